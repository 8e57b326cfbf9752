"""Running a policy-value net: an onnxruntime session behind one `evaluate(planes)` call.

The search hands over whole batches (many leaves, often many games) so the per-call overhead
of onnxruntime is paid once per batch. CUDA is used when onnxruntime offers it, the CPU
otherwise; onnxruntime's own logging is turned down so nothing it says can reach a brain's
stdout (the brain points fd 1 and 2 at its log anyway).
"""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import numpy as np

from .metadata import NetInfo
from .session import NetFormatError, open_onnx

INPUT_NAME = "planes"
OUTPUT_NAMES = ("policy", "value")


def available_providers() -> list[str]:
    import onnxruntime as ort
    return list(ort.get_available_providers())


def _gpu_present() -> bool:
    """Is there an NVIDIA device to use? onnxruntime-gpu lists its CUDA provider on every
    machine, and on one without a GPU each session first spends seconds failing to load the
    CUDA libraries, so ask the system first."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if os.name == "nt":
        import ctypes.util
        return ctypes.util.find_library("nvcuda") is not None
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")


def default_providers() -> list[str]:
    """CUDA first where a GPU and onnxruntime's CUDA provider are both present, then the CPU."""
    providers = []
    if "CUDAExecutionProvider" in available_providers() and _gpu_present():
        providers.append("CUDAExecutionProvider")
    providers.append("CPUExecutionProvider")
    return providers


def open_session(path: str | os.PathLike, threads: int = 1, providers: Optional[Sequence[str]] = None) -> Any:
    """An onnxruntime InferenceSession on `providers` (default: `default_providers`), or
    NetFormatError with one line when the file is unusable."""
    return open_onnx(path, threads, default_providers() if providers is None else providers)


class NetEvaluator:
    """One loaded net: `info` says what it is, `evaluate` runs a batch.

    A NetEvaluator belongs to the player (or self-play worker) that created it."""

    def __init__(self, session, info: NetInfo, path: str, threads: int = 1,
                 providers: Optional[Sequence[str]] = None):
        self.session = session
        self.info = info
        self.path = path
        self.threads = threads  # intra-op threads the session was made with
        self.providers = None if providers is None else list(providers)
        self.evals = 0          # positions evaluated, for nps-like figures
        self.calls = 0

    @classmethod
    def load(cls, path: str | os.PathLike, threads: int = 1,
             providers: Optional[Sequence[str]] = None) -> "NetEvaluator":
        threads = max(1, int(threads))
        sess = open_session(path, threads, providers)
        meta = dict(sess.get_modelmeta().custom_metadata_map)
        info = NetInfo.from_metadata(meta, source=str(path))
        if info.value_head == "critic":
            raise NetFormatError(f"{path}: an ADP critic ({info.arch}), which plays one ply deep as a player "
                                 "(FILE.onnx in match and play, --net in the brain), not with MCTS")
        inputs = [i.name for i in sess.get_inputs()]
        outputs = [o.name for o in sess.get_outputs()]
        if inputs != [INPUT_NAME] or sorted(outputs) != sorted(OUTPUT_NAMES):
            raise NetFormatError(f"{path}: expects input 'planes' and outputs 'policy', 'value' "
                                 f"(has {inputs} -> {outputs})")
        return cls(sess, info, str(path), threads, providers)

    def set_threads(self, threads: int) -> bool:
        """Run on `threads` intra-op threads from the next evaluation on; True when the session
        was rebuilt. onnxruntime fixes a session's thread pool when it is created, so a new
        count means a new session of the same file (milliseconds for the nets played on a
        CPU). Call it between evaluations, from the thread that evaluates: a run in progress
        would go on with the old session, but nothing else guards the swap."""
        threads = max(1, int(threads))
        if threads == self.threads:
            return False
        self.session = open_session(self.path, threads, self.providers)
        self.threads = threads
        return True

    @property
    def provider(self) -> str:
        return self.session.get_providers()[0]

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """planes: float32[B, C, H, W] -> (policy logits float32[B, H, W], value logits float32[B, P+1])."""
        if planes.dtype != np.float32:
            planes = planes.astype(np.float32)
        policy, value = self.session.run(list(OUTPUT_NAMES), {INPUT_NAME: planes})
        self.evals += planes.shape[0]
        self.calls += 1
        return policy, value
