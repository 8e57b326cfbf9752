"""Ctrl-C as a stop the engine's searches see while the main thread is inside jitted code.

Python runs a signal handler only between bytecodes of the main thread, so a SIGINT that arrives
while the main thread is in a nogil search (or any long compiled call) waits until that call
returns: seconds for a deep iteration or a study's 3M-node search. `gomoku`'s commands arm this
module (tools.interruptible.install): a thread woken by the signal itself calls `trip`, which
sets `CTRL_C` and the stop slots of every control block registered with `stopping` (the
classical searches of engine.player.agent.think and the study's); MCTS polls `CTRL_C` through
`either`. The search returns within a node, the main thread reaches bytecode, and the
KeyboardInterrupt the handler raises ends the command.

Nothing here imports numpy or numba (the brain imports this before it answers ABOUT), and
nothing changes for a process that never arms it.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, Optional

#: set once this process got Ctrl-C (SIGINT), from the moment the signal arrives
CTRL_C = threading.Event()

_armed = False
# reentrant: the SIGINT handler calls `trip` on the main thread, which may be inside `stopping`
_lock = threading.RLock()
_ctrls: list[tuple[Any, tuple[int, ...]]] = []


def arm() -> None:
    """Called by whoever turns SIGINT into `trip` (tools.interruptible.install): from now on
    `either` adds CTRL_C to a search's stop and `armed` says so."""
    global _armed
    _armed = True


def armed() -> bool:
    return _armed


class Either:
    """An event-like stop that is set when either of two events is: the caller's own stop
    (the brain's YXSTOP, a match's record error) and Ctrl-C. The searches only call is_set."""

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()


def either(stop: Optional[Any] = None) -> Optional[Any]:
    """The stop event a search loop that polls one in Python (MCTS) should get: `stop` and
    Ctrl-C when armed, `stop` alone otherwise (a library caller, a test or the brain, whose
    searches stay exactly as they were)."""
    if not _armed:
        return stop
    if stop is None:
        return CTRL_C
    return Either(stop, CTRL_C)


@contextmanager
def stopping(ctrl: Any, *slots: int) -> Iterator[None]:
    """While inside, Ctrl-C sets ctrl[slot] = 1 for each slot, in order, at once: the control
    block of a jitted search or solver (alphabeta's ctrl: C_EXTERNAL then C_STOP, as its own
    watcher writes them; a bare solver's: C_STOP). No thread is started and nothing is polled,
    so a search costs what it did: a stop event would start the search's watcher thread, which
    on a loaded 2-core machine made a 0.13 ms depth-1 search take 4 ms. A Ctrl-C already
    received sets the slots on entry.

    A search that clears its ctrl after entering (Searcher.search does) calls `restop` after
    the clearing, so a Ctrl-C that tripped in between is not wiped."""
    entry = (ctrl, slots)
    with _lock:
        _ctrls.append(entry)
    restop()
    try:
        yield
    finally:
        with _lock:
            for i, e in enumerate(_ctrls):
                if e is entry:
                    del _ctrls[i]
                    break


def trip() -> None:
    """Ctrl-C arrived: set CTRL_C and stop every registered control block (from any thread)."""
    CTRL_C.set()
    restop()


def restop() -> None:
    """Once Ctrl-C has come, stop every registered control block (again). `trip` and
    `stopping` use it, and a search calls it right after clearing a block that may be
    registered, so a Ctrl-C received in the meantime stops it again. A search on a worker thread (`gomoku play`'s engine move)
    clears its block after `stopping` has registered it, and a Ctrl-C that tripped in between
    was wiped and the move ran to its end."""
    with _lock:
        if CTRL_C.is_set():
            for ctrl, slots in _ctrls:
                for slot in slots:
                    ctrl[slot] = 1
