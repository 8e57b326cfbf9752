"""Writing files so that a kill -9 at any instant leaves either the old file or the new one.

Every file the trainer keeps (replay shards, checkpoints, run state, metrics, nets) goes
through `write_bytes`: the data goes to a temporary file in the same folder, is fsynced,
renamed over the target (atomic on POSIX), and the folder is fsynced so the rename itself
survives a power cut. A reader therefore never sees half a file under the final name.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

TMP_PREFIX = ".tmp-"


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:          # some filesystems do not open folders; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_with(path: str | os.PathLike, writer: Callable[[str], None]) -> None:
    """Atomically create `path` from `writer(tmp_path)`, which writes the whole file at tmp_path.

    For libraries that insist on writing a path themselves (onnx, matplotlib)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX + target.name + ".", dir=target.parent)
    os.close(fd)
    try:
        writer(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(target.parent)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Atomically replace `path` with `data`."""
    def _write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)
    write_with(path, _write)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Atomically replace `path` with `obj` as indented JSON."""
    write_bytes(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def clean_temporaries(folder: str | os.PathLike) -> int:
    """Remove temporaries a killed process left in `folder`; returns how many."""
    n = 0
    p = Path(folder)
    if not p.is_dir():
        return 0
    for f in p.glob(TMP_PREFIX + "*"):
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    return n
