"""Is numba's on-disk cache for the engine warm? If not, fill it in a child process.

A cold numba compile inside the brain holds the GIL for up to ~0.5 s at a time (measured: a
brain answering ABOUT every 20 ms saw 276 ms p99 and 445 ms worst latency while compiling),
which would make the watchdog late. So when the cache looks cold the brain compiles in a
separate process and keeps playing cheap pure-Python moves meanwhile; only cache loads (short)
happen inside the brain. The check is a heuristic on file names and times, erring towards
'cold' (cost: one extra process start of ~1 s CPU).
"""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

_JIT = re.compile(r"@(?:numba\.)?njit\([^)]*cache\s*=\s*True[^)]*\)\s*\n(?:@[^\n]*\n)*def\s+(\w+)")
_INLINED = re.compile(r"inline\s*=\s*[\"']always[\"']")

WARM_CODE = "from gomoku.engine.player.warmup import warm_all; warm_all()"

#: the engine package folder (engine/, one above this base/ folder): every room's sources and caches
ENGINE_DIR = Path(__file__).resolve().parent.parent


def engine_dir() -> Path:
    """The installed engine package folder (never the working directory)."""
    return ENGINE_DIR


def drop_stale_cache(module_file: str, deps: Iterable[str]) -> int:
    """Delete this module's numba cache files when a module it compiles in has changed.

    Numba's cache checks only the module's own source stamp, yet a jitted caller embeds the
    code of every jitted callee (core.make_move, threats.vcf ...). After an edit to a callee's
    module the caller would keep running the old callee. `deps` are dotted module paths below
    `gomoku.engine` ("game.core"). Installed copies never trip this (their caches are newer
    than every source). Returns the files removed."""
    src = Path(module_file)
    cache = src.parent / "__pycache__"
    try:
        newest = max(os.stat(ENGINE_DIR.joinpath(*d.split(".")).with_suffix(".py")).st_mtime for d in deps)
        removed = 0
        for f in cache.glob(src.stem + ".*.nb[ic]"):
            if f.stat().st_mtime < newest:
                f.unlink()
                removed += 1
        return removed
    except (OSError, ValueError):
        return 0


def _jit_modules(src_dir: Path) -> Iterator[Path]:
    """The engine's source files that hold `@njit(cache=True)` functions, in every room."""
    for py in sorted(src_dir.rglob("*.py")):
        if "__pycache__" in py.parts:
            continue
        text = py.read_text(encoding="utf-8", errors="replace")
        # a module whose cached functions are all inline="always" (search/tables.py) is
        # compiled into its callers and never gets an index file
        if "cache" in text and any(not _INLINED.search(m.group(0)) for m in _JIT.finditer(text)):
            yield py


def cache_dirs(src_dir: Path) -> list[Path]:
    """Where numba keeps index files for modules in the folder `src_dir` (its locator order)."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return [Path(p) for p in glob.glob(os.path.join(custom, src_dir.name + "_*"))]
    user = os.path.join(os.path.expanduser("~"), ".cache", "numba")
    return [src_dir / "__pycache__"] + [Path(p) for p in glob.glob(os.path.join(user, src_dir.name + "_*"))]


def cache_is_warm(src_dir: Path | None = None) -> bool:
    """True when every engine module with `@njit(cache=True)` functions has at least one index
    file at least as new as its source. (Functions only called from other jitted code are
    compiled into their callers and get no file of their own, so a per-module test is the
    finest that works.)"""
    src_dir = src_dir or engine_dir()
    try:
        for py in _jit_modules(src_dir):
            mtime = py.stat().st_mtime
            if not any(_mtime(f) >= mtime for f in _index_files(py)):
                return False
        return True
    except OSError:
        return False


def _index_files(py: Path) -> list[Path]:
    """numba's index files for the module `py` (from every cache location: the same
    function may have an index in more than one)."""
    found: list[Path] = []
    for d in cache_dirs(py.parent):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        found.extend(d / n for n in names if n.endswith(".nbi") and n.split(".", 1)[0] == py.stem)
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("-inf")


def mark_warm(src_dir: Path | None = None) -> None:
    """Call after a full warm-up: give the index files of `src_dir`'s modules the current time.

    Numba keeps using an index whose source got a newer mtime with the same contents (a git
    checkout or revert back to a cached version) and does not rewrite it, so `cache_is_warm`
    kept saying 'cold' and every brain start compiled in a child for 1-3 s, answering its
    first moves with the fallback. Everything was just loaded or compiled from the current
    sources, so the indexes are as new as they are."""
    src_dir = src_dir or engine_dir()
    for py in _jit_modules(src_dir):
        for f in _index_files(py):
            try:
                os.utime(f)
            except OSError:
                pass


_child: "subprocess.Popen[bytes] | None" = None


def die_with_parent() -> None:  # pragma: no cover - runs in a child process
    """Linux: this (child) process gets SIGKILL when its parent dies (the brain's END, EOF,
    a manager's kill; a compile's parent interrupted). Elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001
        pass


def lock_path(src_dir: Path) -> str:
    """One lock per cache location, so brains started together compile only once."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    base = custom if custom else str(src_dir / "__pycache__")
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        base = tempfile.gettempdir()
    return os.path.join(base, "gomoku-warmup.lock")


def lock_file(fd: int) -> None:
    """Block until this process holds the exclusive lock on `fd` (released when it is closed).
    fcntl exists only on POSIX; Windows (where Gomocup runs its brains) locks a byte instead.
    Imported here, not at the top: the brain's engine loader imports this module inside its
    catch-all, and an ImportError there would leave every move to the fallback."""
    if sys.platform == "win32":    # os.name "nt"; mypy then skips msvcrt's names off Windows
        import msvcrt
        import time
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                time.sleep(0.1)
    import fcntl
    fcntl.flock(fd, fcntl.LOCK_EX)


def compile_in_child(timeout: float = 600.0) -> bool:
    """Fill the cache in a child process (output to our fd 1/2, i.e. the log), one compiling
    process per cache at a time: a brain that finds another one compiling waits for it, then
    re-checks. The child dies with the brain. Returns True if the cache is warm afterwards."""
    global _child
    src = engine_dir()
    try:
        fd = os.open(lock_path(src), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        fd = -1
    try:
        if fd >= 0:
            lock_file(fd)
        if cache_is_warm(src):
            return True
        # a frozen brain (gomoku freeze) has no Python to run -c with: it warms itself up
        argv = [sys.executable, "--warmup"] if getattr(sys, "frozen", False) else [sys.executable, "-c", WARM_CODE]
        _child = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                  preexec_fn=die_with_parent if sys.platform.startswith("linux") else None)
        try:
            rc = _child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _child.kill()
            rc = -1
        return rc == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        _child = None
        if fd >= 0:
            os.close(fd)


def kill_child() -> None:
    """Stop a compile still running (the brain is exiting)."""
    child = _child
    if child is not None and child.poll() is None:
        try:
            child.kill()
        except OSError:
            pass
