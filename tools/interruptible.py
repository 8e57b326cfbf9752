"""Ctrl-C that always stops a `gomoku` command, and engine moves that Ctrl-C can interrupt.

A non-interactive shell starts a background job (`cmd &`; how CI, test runners and scripts
start things) with SIGINT ignored, and Python then installs no handler of its own: the kernel
drops the signal and the command runs on (`gomoku study` went on from depth 2 to 7 after its
Ctrl-C, until the test gave up). `install`, the first thing `gomoku` does, sets the handler
whatever was inherited. A signal that arrives before it runs (the first ~0.1 s of the
process, while Python starts and imports click) still meets what the process inherited.
"""
from __future__ import annotations

import signal
import threading
from typing import Any, Callable

_installed = False


def install() -> None:
    """Make SIGINT raise KeyboardInterrupt in this process, whatever it inherited. Only from
    the main thread, where signals can be set; later calls do nothing."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _installed = True


def run_interruptibly(fn: Callable[[], Any]) -> Any:
    """Run fn in a worker thread so Ctrl-C reaches the main thread while an engine thinks."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    t = threading.Thread(target=target, name="play-engine", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.1)
    if "error" in box:
        raise box["error"]
    return box["value"]
