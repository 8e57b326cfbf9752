"""An ADP critic's file (engine.net.critic plays it): what it claims and the onnxruntime
session that scores feature vectors. No numba here: the brain checks a named net with this
before its protocol starts, while the engine still loads in the background.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gomoku.engine.net.metadata import CRITIC_PLANES, NetFormatError, NetInfo
from gomoku.engine.net.session import open_onnx, read_metadata

#: feature-set sizes (engine.net.critic), and the `planes` metadata word each writes
FEATURE_SETS = {30: CRITIC_PLANES[0], 274: CRITIC_PLANES[1]}
INPUT_NAME = "features"
OUTPUT_NAME = "value"


class CriticNet:
    """One loaded critic: `info` says what it is (`info.planes[0]` names the feature set),
    `evaluate(features)` gives black's win probability of each position."""

    def __init__(self, session: Any, info: NetInfo, path: str, threads: int = 1) -> None:
        self.session = session
        self.info = info
        self.path = path
        self.threads = threads
        self.features = critic_features(info)

    @classmethod
    def load(cls, path: str | Path, threads: int = 1) -> "CriticNet":
        threads = max(1, int(threads))
        sess = open_onnx(path, threads, ["CPUExecutionProvider"])
        info = NetInfo.from_metadata(dict(sess.get_modelmeta().custom_metadata_map), source=str(path))
        if info.value_head != "critic":
            raise NetFormatError(f"{path}: a policy-value net, not an ADP critic (it plays with MCTS)")
        inputs = [(i.name, i.shape[-1]) for i in sess.get_inputs()]
        outputs = [o.name for o in sess.get_outputs()]
        if inputs != [(INPUT_NAME, critic_features(info))] or outputs != [OUTPUT_NAME]:
            raise NetFormatError(f"{path}: a critic expects input 'features' [B, {critic_features(info)}] and "
                                 f"output 'value' (has {inputs} -> {outputs})")
        return cls(sess, info, str(path), threads)

    def set_threads(self, threads: int) -> bool:
        threads = max(1, int(threads))
        if threads == self.threads:
            return False
        self.session = open_onnx(self.path, threads, ["CPUExecutionProvider"])
        self.threads = threads
        return True

    def evaluate(self, features: np.ndarray) -> np.ndarray:
        """features: float32[K, F] -> float32[K], black's win probability of each position."""
        (value,) = self.session.run([OUTPUT_NAME], {INPUT_NAME: features.astype(np.float32, copy=False)})
        return np.asarray(value, dtype=np.float32).reshape(-1)


def critic_features(info: NetInfo) -> int:
    """The feature-set size a critic's metadata names."""
    for size, word in FEATURE_SETS.items():
        if info.planes == [word]:
            return size
    raise NetFormatError(f"critic input {','.join(info.planes)} unknown (known: {', '.join(CRITIC_PLANES)})")


def is_critic(path: str | Path) -> bool:
    """Whether an ONNX file's metadata says it is an ADP critic (False for anything else,
    including a file that does not open: the loader that plays it says why)."""
    try:
        return read_metadata(path).get("value_head") == "critic"
    except Exception:       # noqa: BLE001 - not a net at all: not a critic either
        return False
