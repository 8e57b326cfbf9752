"""Ctrl-C that always stops a `gomoku` command, and engine moves that Ctrl-C can interrupt.

Two ways a Ctrl-C was lost or late, and what `install` (the first thing `gomoku` does) sets
against each:

- Inherited as ignored. A non-interactive shell starts a background job (`cmd &`; how CI,
  test runners and scripts start things) with SIGINT ignored, and Python then installs no
  handler: the signal is dropped by the kernel and the command runs on (`gomoku study` went on
  from depth 2 to 7 after its Ctrl-C). `install` sets the handler whatever was inherited.
- Caught but not run. Python runs a handler only between bytecodes of the main thread; during
  a jitted search it waits until the search returns (seconds). The signal also wakes a thread
  here (signal.set_wakeup_fd: the C-level handler writes to a socket at once), which calls
  engine.interrupt.trip: it sets the stop slot of the searches' control blocks (MCTS polls its
  flag), the search returns within a node, and the handler's KeyboardInterrupt then ends the
  command the usual way (the match's score so far, the training's saved state, no
  half-written study result).

A signal that arrives before `install` runs (the first ~0.1 s of the process, while Python
starts and imports click) still meets whatever the process inherited.
"""
from __future__ import annotations

import select
import signal
import socket
import threading
from typing import Any, Callable

from gomoku.engine import interrupt

_installed = False
_wakeup: list[socket.socket] = []


def install() -> None:
    """Make SIGINT stop this process promptly, whatever it inherited and wherever its main
    thread is (see the module's doc). Only from the main thread, where signals can be set;
    later calls do nothing."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    # a socket pair, not a pipe: Windows takes only a socket as the wakeup fd
    reader, writer = socket.socketpair()
    writer.setblocking(False)                 # the C handler must never block on a full buffer
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    signal.signal(signal.SIGINT, _on_sigint)
    interrupt.arm()
    _wakeup[:] = [reader, writer]             # kept open for the life of the process
    threading.Thread(target=_watch, args=(reader,), name="ctrl-c", daemon=True).start()
    _installed = True


def _on_sigint(signum: int, frame: Any) -> None:
    """The Python-level handler, run by the main thread once it reaches bytecode."""
    interrupt.trip()
    raise KeyboardInterrupt


def _watch(reader: socket.socket) -> None:
    """Woken through the wakeup socket the moment a signal arrives (one byte per signal, its
    number; other handled signals, e.g. training's SIGTERM, are skipped): SIGINT trips the
    engine's stop."""
    while True:
        select.select([reader], [], [])
        data = reader.recv(64)
        if not data:
            return
        if signal.SIGINT in data:
            interrupt.trip()


def run_interruptibly(fn: Callable[[], Any]) -> Any:
    """Run fn in a worker thread so Ctrl-C reaches the main thread while an engine thinks (the
    main thread only waits, in a wait signals interrupt); the engine's search, which Ctrl-C
    stops once `install` armed engine.interrupt, ends too instead of thinking on behind the
    game's exit."""
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
