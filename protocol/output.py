"""The brain's only way to talk to the manager, and the fd hygiene that protects it.

Piskvork gives the brain one pipe for stdout and stderr, so any stray byte on fd 1 or fd 2
(numba or onnxruntime chatter, a warning, a traceback) would be read as a protocol line. At start
we duplicate the real stdout to a private descriptor used only here, then point fd 1 and fd 2 at
a log file (or /dev/null). Native libraries that write straight to the descriptors can then not
corrupt the stream, and Python's own sys.stdout/sys.stderr land in the log too.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Optional, TextIO

from gomoku.protocol.commands import ascii_text


def isolate_stdio(log_path: Optional[str] = None) -> int:
    """Move the protocol channel off fd 1; return the private descriptor for protocol lines.

    fd 1 and fd 2 (and sys.stdout/sys.stderr) then point at `log_path` (appended) or /dev/null.
    The private descriptor is not inheritable, so child processes never see it.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    proto_fd = os.dup(1)
    os.set_inheritable(proto_fd, False)
    target = None
    if log_path:
        try:
            target = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError:
            target = None
    if target is None:
        target = os.open(os.devnull, os.O_WRONLY)
    os.dup2(target, 1)
    os.dup2(target, 2)
    if target not in (1, 2):
        os.close(target)
    # Rebind the Python streams to the redirected descriptors (line-buffered text, never raising).
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    return proto_fd


class ProtocolOutput:
    """Writes whole ASCII lines to the protocol descriptor, flushed at once, thread-safe.

    After `close()` (END, EOF) nothing more is ever written, whichever thread asks.
    """

    def __init__(self, fd: int, log: Optional[TextIO] = None) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._closed = False
        self._log = log

    @property
    def lock(self) -> threading.Lock:
        return self._lock

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, line: str) -> bool:
        """Write one line (made ASCII, no embedded newlines); False if closed or the pipe broke."""
        with self._lock:
            return self.send_locked(line)

    def send_locked(self, line: str) -> bool:
        """Like send(), for callers already holding `lock` (to pair a check with the write)."""
        if self._closed:
            return False
        data = (ascii_text(line.replace("\r", " ").replace("\n", " "), 4000) + "\n").encode("ascii")
        try:
            view = memoryview(data)
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
        except OSError:
            self._closed = True
            return False
        if self._log is not None:
            try:
                print(f"< {line}", file=self._log, flush=True)
            except Exception:
                pass
        return True

    def close(self) -> None:
        """Stop all output for good (called on END/EOF before exiting)."""
        with self._lock:
            self._closed = True
