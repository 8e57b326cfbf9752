"""Ctrl-C that always stops a `gomoku` command, and engine moves that Ctrl-C can interrupt.

Four ways a Ctrl-C was lost or late, and what `install` (the first thing `gomoku` does) and
`exit_interrupted` (its last) set against each:

- Inherited as ignored. A non-interactive shell starts a background job (`cmd &`; how CI,
  test runners and scripts start things) with SIGINT ignored, and Python then installs no
  handler: the signal is dropped by the kernel and the command runs on (`gomoku study` went on
  from depth 2 to 7 after its Ctrl-C). `install` sets the handler whatever was inherited.
- Caught but not run. Python runs a handler only between bytecodes of the main thread; during
  a jitted search it waits until the search returns (seconds). The signal also wakes a thread
  here (signal.set_wakeup_fd: the C-level handler writes to a socket at once), which calls
  engine.base.interrupt.trip: it sets the stop slot of the searches' control blocks (MCTS polls its
  flag), the search returns within a node, and the handler's KeyboardInterrupt then ends the
  command the usual way (the match's score so far, the training's saved state, no
  half-written study result).
- Stuck in C. Should the main thread still not have run the handler GRACE_S after the signal
  (a long compile step, a compiled call nothing stops), the thread ends the process with 130;
  so does a second Ctrl-C, at once. Work written atomically stays whole; what was not written
  is lost, as after a kill.
- Slow to leave. Once the command has stopped cleanly, the interpreter's teardown (torch's
  above all) took longer than the rest; `exit_interrupted` skips it.

A signal that arrives before `install` runs (the first ~0.1 s of the process, while Python
starts and imports click) still meets whatever the process inherited.
"""
from __future__ import annotations

import os
import select
import signal
import socket
import sys
import threading
import time
from typing import Any, Callable

from gomoku.engine.base import interrupt

#: seconds the main thread has, after Ctrl-C, to reach Python code (where the KeyboardInterrupt
#: starts the command's own clean stop) before the process is ended from the Ctrl-C thread: a
#: stopped search returns within a node, and with the main thread deep in a search the handler
#: ran 3-6 ms after the signal, beside two busy loops on two cores as without them; 1 s of the
#: 2 s a Ctrl-C may take leaves the other second for the exit itself
GRACE_S = 1.0
#: exit status after Ctrl-C, forced or not: the shell's for SIGINT (tools.options.INTERRUPTED)
INTERRUPTED_STATUS = 130

_installed = False
_handler_ran = threading.Event()
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


def _on_sigint(_signum: int, _frame: Any) -> None:
    """The Python-level handler, run by the main thread once it reaches bytecode: the first
    Ctrl-C raises KeyboardInterrupt (the command's clean stop); a second one ends the process
    here too, as the Ctrl-C thread does, whichever of the two runs first."""
    if _handler_ran.is_set():
        _force_exit("interrupted again: exiting now")
    _handler_ran.set()
    interrupt.trip()
    raise KeyboardInterrupt


def _watch(reader: socket.socket) -> None:
    """Woken through the wakeup socket the moment a signal arrives (one byte per signal, its
    number; other handled signals, e.g. training's SIGTERM, are skipped): the first SIGINT
    trips the engine's stop, a second one, or a main thread that has not handled the first
    within GRACE_S, ends the process."""
    seen = 0
    deadline = None
    while True:
        timeout = None
        if deadline is not None and not _handler_ran.is_set():
            timeout = max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([reader], [], [], timeout)
        if not ready:
            if signal.getsignal(signal.SIGINT) is _on_sigint and not _handler_ran.is_set():
                _force_exit(f"interrupted: the main thread did not stop within {GRACE_S:g} s, exiting now")
            deadline = None
            continue
        data = reader.recv(64)
        if not data:
            return
        for number in data:
            if number != signal.SIGINT:
                continue
            seen += 1
            if seen == 1:
                deadline = time.monotonic() + GRACE_S
                interrupt.trip()
            else:
                _force_exit("interrupted again: exiting now")


def _force_exit(line: str) -> None:
    """End the process now, from whichever thread: the worker processes this one started go
    first (they ignore SIGINT, theirs to the parent), then one line on stderr and status 130."""
    mp = sys.modules.get("multiprocessing")
    if mp is not None:
        for child in mp.active_children():
            try:
                child.terminate()
            except (OSError, AttributeError):
                pass
    try:
        os.write(2, f"\n{line}\n".encode())
    except OSError:
        pass
    os._exit(INTERRUPTED_STATUS)


def exit_interrupted(status: object) -> None:
    """Leave at once with `status` if it is the interrupted one (130) and Ctrl-C came: the
    command's own stop is done by then (the score printed, the training's state saved, every
    file written atomically and closed, pools and brains ended), and what remains is the
    interpreter's teardown, which with torch loaded took 0.5-1 s on a 2-core machine, and
    `gomoku train` took 3.4 s in all to exit beside two busy loops, past the 2 s a Ctrl-C may take
    (0.05 s without the teardown). atexit handlers are skipped
    with it: multiprocessing's would reap workers the pools already terminated. Any other
    status returns, for the normal exit."""
    if status != INTERRUPTED_STATUS or not interrupt.CTRL_C.is_set():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(INTERRUPTED_STATUS)


def run_interruptibly(fn: Callable[[], Any]) -> Any:
    """Run fn in a worker thread so Ctrl-C reaches the main thread while an engine thinks (the
    main thread only waits, in a wait signals interrupt); the engine's search, which Ctrl-C
    stops once `install` armed engine.base.interrupt, ends too instead of thinking on behind the
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
