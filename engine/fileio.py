"""Writing files that matter: whole or not at all, into folders made on demand.

A record or a results file half written by a crash (or by a full disk) is worse than none,
so text goes to a temporary file beside the target, is flushed to disk and then renamed over
it. Commands check their output paths before the first game with `check_writable`, so a
typo costs a second, not a match.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]


def write_atomic(path: PathLike, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically, creating missing parent folders.
    Raises OSError."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: PathLike, data: bytes) -> None:
    """Replace `path` with `data` atomically, creating missing parent folders. Raises OSError."""
    p = Path(path)
    if p.parent != Path(""):
        p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def append_text(path: PathLike, text: str) -> None:
    """Append `text` to `path` (created with its parent folders if missing) and flush it to
    disk: an SGF collection grows one game at a time. Raises OSError."""
    p = Path(path)
    if p.parent != Path(""):
        p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "a", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def check_writable(path: PathLike, folder: bool = False) -> str | None:
    """Why `path` (a file, or a folder with `folder`) cannot be written, or None when it can.
    Creates missing parent folders (the folder itself with `folder`), as writing would."""
    p = Path(path)
    target_dir = p if folder else (p.parent if p.parent != Path("") else Path("."))
    if not folder and p.is_dir():
        return f"{path} is a folder"
    if folder and p.exists() and not p.is_dir():
        return f"{path} is not a folder"
    existing = target_dir
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create folder {target_dir}: {exc.strerror or exc}"
    if not folder and p.exists():
        if not os.access(p, os.W_OK):
            return f"{path} is not writable"
        return None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".write-test.", dir=str(target_dir))
    except OSError as exc:
        return f"cannot write in {target_dir}: {exc.strerror or exc}"
    os.close(fd)
    os.unlink(tmp)
    return None
