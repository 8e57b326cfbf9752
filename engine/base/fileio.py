"""Writing files that matter: whole or not at all, into folders made on demand.

A record, a results file or a checkpoint half written by a crash (or by a full disk) is
worse than none, so data goes to a temporary file beside the target, is flushed to disk and
renamed over it, and the folder is flushed so the rename survives a power cut. Records,
results, learned tables and the trainer's files (through `train.atomic`) all use
`write_atomic_with`. Commands check their output paths before the first game with
`check_writable`, so a typo costs a second, not a match.
"""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path
from typing import Callable, Union

PathLike = Union[str, "os.PathLike[str]"]


def cannot_read(what: str, path: PathLike, exc: OSError) -> str:
    """One wording, in every command, for a file the user named that cannot be read:
    `ONNX file not found: x.onnx`, `tables file not found: t.json`, `cannot read openings file
    o.txt: Permission denied`. `what` names the kind of file, as the user knows it."""
    if isinstance(exc, FileNotFoundError):
        return f"{what} file not found: {os.fspath(path)}"
    if isinstance(exc, IsADirectoryError):
        return f"{what} file {os.fspath(path)} is a folder"
    return f"cannot read {what} file {os.fspath(path)}: {exc.strerror or exc}"


#: Temporaries start with this (and end with ".tmp"), so a trainer resuming after kill -9
#: can sweep a folder's leftovers with `clean_temporaries` without touching anything else.
TMP_PREFIX = ".tmp-"


def write_atomic(path: PathLike, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically, creating missing parent folders.
    Raises OSError."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: PathLike, data: bytes) -> None:
    """Replace `path` with `data` atomically, creating missing parent folders. Raises OSError."""
    def _write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(data)
    write_atomic_with(path, _write)


def write_atomic_with(path: PathLike, writer: Callable[[str], None]) -> None:
    """Replace `path` atomically with the file `writer(tmp_path)` writes whole at tmp_path,
    creating missing parent folders; for libraries that insist on writing a path themselves
    (onnx, matplotlib, torch). Raises OSError, or what `writer` raises.

    The temporary lies beside the target (a rename across filesystems is not atomic), is
    fsynced before the rename so the new name never points at unwritten blocks, and the
    folder is fsynced after it so the rename itself survives a power cut. The file gets the
    mode a plain `open()` would give it (0666 less the umask; see `_new_temporary`)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_temporary(p)
    try:
        writer(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(p.parent)


def _new_temporary(target: Path) -> str:
    """Create an empty, unique temporary beside `target` and return its path.

    Not `tempfile.mkstemp`: that creates the file 0600 whatever the umask, and the rename
    carries the mode over, so every result, record, plot and net came out readable by its
    owner only while a plain `open()` gives 0666 less the umask (0644 under the usual 0022).
    Asking the kernel for 0666 with O_EXCL gives exactly what `open()` would, umask
    applied, with no umask read-and-restore (which would race with other threads)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = target.parent / f"{TMP_PREFIX}{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return str(tmp)
    raise FileExistsError(f"{target.parent}: no free temporary name for {target.name}")


def _fsync_folder(folder: Path) -> None:
    """Flush a folder's entries; silently skipped where folders cannot be opened (Windows,
    some network filesystems), since the rename before it is atomic all the same."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def clean_temporaries(folder: PathLike) -> int:
    """Remove the temporaries a killed writer left in `folder` (not below it); returns how
    many. Only for folders no other process is writing into at the time."""
    p = Path(folder)
    if not p.is_dir():
        return 0
    n = 0
    for f in p.glob(TMP_PREFIX + "*"):
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    return n


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
