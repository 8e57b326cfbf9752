"""Writing files so that a kill -9 at any instant leaves either the old file or the new one.

Every file the trainer keeps (replay shards, checkpoints, run state, metrics, nets) goes
through these names, which are the engine's one atomic write (`engine.base.fileio`: temporary
file beside the target, fsync, rename, folder fsync) under the trainer's vocabulary, plus
the JSON layout the run folder uses. A reader therefore never sees half a file under the
final name, and `clean_temporaries` sweeps what a killed run left behind.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable

from gomoku.engine.base.fileio import TMP_PREFIX, clean_temporaries, write_atomic_bytes, write_atomic_with

__all__ = ["TMP_PREFIX", "clean_temporaries", "write_bytes", "write_json", "write_with"]


def write_with(path: str | os.PathLike, writer: Callable[[str], None]) -> None:
    """Atomically create `path` from `writer(tmp_path)`, which writes the whole file at tmp_path.

    For libraries that insist on writing a path themselves (onnx, matplotlib)."""
    write_atomic_with(path, writer)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Atomically replace `path` with `data`."""
    write_atomic_bytes(path, data)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Atomically replace `path` with `obj` as indented JSON with sorted keys, so two states
    of a run folder compare line by line."""
    write_atomic_bytes(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())
