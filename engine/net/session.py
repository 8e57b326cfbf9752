"""Opening an ONNX net file with onnxruntime, and the one-line error for a file that cannot
serve.

This sits below both `metadata` (which reads what a file claims through `read_metadata`) and
`evaluator` (which runs it), so neither needs the other to open a file. onnxruntime is
imported when a file is opened, not when this module is: the classical engine and the CLI's
help never pay for it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence


class NetFormatError(ValueError):
    """A net file that cannot be used; the message is one line for a person."""


def _log_severity() -> int:
    """onnxruntime's own logging stays off (4) unless GOMOKU_ORT_LOG asks for warnings (2),
    so nothing it says can reach a brain's stdout."""
    return 4 if os.environ.get("GOMOKU_ORT_LOG") is None else 2


def open_onnx(path: str | os.PathLike, threads: int, providers: Sequence[str]) -> Any:
    """An onnxruntime InferenceSession on `providers`, or NetFormatError with one line when
    the file is missing or unusable.

    With more than one intra-op thread the pool's threads sleep between runs instead of
    spinning: the tree search works between net calls, and spinning threads would take the
    CPU from it (and, in a match on shared cores, from the opponent)."""
    import onnxruntime as ort
    ort.set_default_logger_severity(_log_severity())
    p = Path(path)
    if not p.is_file():
        # the words a player spec's check uses too: info, match, play and the brain say one line
        raise NetFormatError(f"ONNX file not found: {path}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    if threads > 1:
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = _log_severity()
    try:
        return ort.InferenceSession(str(p), sess_options=opts, providers=list(providers))
    except Exception as exc:  # onnxruntime raises several unrelated types
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise NetFormatError(f"{path}: not a usable ONNX model: {first[:200]}") from None


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The metadata_props of an ONNX file, read through onnxruntime (no onnx package needed).

    The session is a CPU one whatever the machine has: only the file's strings are wanted,
    and a CUDA session would spend seconds setting up a device for them."""
    sess = open_onnx(path, 1, ["CPUExecutionProvider"])
    return dict(sess.get_modelmeta().custom_metadata_map)
