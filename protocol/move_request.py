"""One owed answer at a time: the thinking thread, the watchdog and the 'answered' flag.

A `MoveRequest` is created for BEGIN/TURN/BOARD/SWAP2BOARD. Its job runs in a thinking thread;
a supervisor thread sets the stop event at the soft deadline and, if the job still has not
answered at the hard deadline, prints the precomputed fallback answer. Whoever answers first
wins under the output lock; the other answer is dropped, so there is never a second move line
and never a late one (as long as the GIL is not held by a long-running native call).

The deadlines are read on an injectable clock (`time.monotonic` by default), so tests can check
the policy (stop at the soft deadline, fallback at the hard one) on a fake clock, without the
wall clock of a loaded machine deciding the outcome.
"""
from __future__ import annotations

import threading
import time
import traceback
from typing import Callable, Iterable, Optional

from gomoku.engine.base.timeman import Budget, stop_now
from gomoku.protocol.output import ProtocolOutput

Answer = tuple[str, Optional[Callable[[], None]], list[str]]   # line, effect, MESSAGE texts
Clock = Callable[[], float]    # seconds, on the clock the Budget's deadlines are on


class MoveRequest:
    """An answer the brain owes the manager, with its deadlines and its fallback."""

    def __init__(self, out: ProtocolOutput, budget: Budget, fallback: Answer,
                 messages: Iterable[str] = (), clock: Clock = time.monotonic) -> None:
        self.out = out
        self.clock = clock
        self.stop = threading.Event()       # polled by the search
        self.done = threading.Event()       # set once answered (or dropped after END)
        self.answered_by: Optional[str] = None
        self._budget = budget
        self._fallback = fallback
        self._messages = list(messages)     # printed before whichever answer goes out
        self._cond = threading.Condition()   # re-entrant: `watch` answers inside `supervise`

    @property
    def budget(self) -> Budget:
        return self._budget

    def set_budget(self, budget: Budget) -> None:
        """Replace the deadlines (only ever tightened by callers) and wake the supervisor."""
        with self._cond:
            self._budget = budget
            self._cond.notify_all()

    def request_stop(self) -> None:
        """YXSTOP/STOP: stop now, answer within a short grace period."""
        self.set_budget(stop_now(self._budget, self.clock()))
        self.stop.set()

    def add_messages(self, texts: Iterable[str]) -> bool:
        """Print `texts` as MESSAGE lines before whichever answer goes out; False (and nothing
        printed) when the answer is already out, so the caller can say it with a later one."""
        with self.out.lock:
            if self.answered_by is not None or self.out.closed:
                return False
            self._messages.extend(texts)
        return True

    def set_fallback(self, fallback: Answer) -> None:
        self._fallback = fallback

    def answer(self, answer: Answer, source: str = "engine") -> bool:
        """Print the answer unless one was already printed or output is closed."""
        line, effect, messages = answer
        with self.out.lock:
            ok = self.answered_by is None and not self.out.closed
            if ok:
                self.answered_by = source
                for text in self._messages + list(messages):
                    self.out.send_locked("MESSAGE " + text)
                self.out.send_locked(line)
                if effect is not None:
                    effect()
        self.stop.set()
        with self._cond:
            self.done.set()
            self._cond.notify_all()
        if ok:   # diagnostics for the log (fd 1 is the log file or /dev/null, never the manager)
            b = self._budget
            now = self.clock()
            print(f"answer {line!r} by {source}: {1000 * (now - b.origin):.0f} ms after origin "
                  f"(soft {1000 * (b.soft - b.origin):.0f}, hard {1000 * (b.hard - b.origin):.0f}, "
                  f"limit {b.limit_ms:.0f})")
        return ok

    def answer_fallback(self) -> bool:
        return self.answer(self._fallback, "fallback")

    def watch(self, now: float) -> Optional[float]:
        """One look of the watchdog at clock time `now`: past the soft deadline the stop event is
        set, at the hard one the fallback goes out (unless an answer already did). Returns when
        to look again, None once the request is answered; the whole time policy is here, so a
        test can drive it on a fake clock."""
        with self._cond:
            if self.done.is_set():
                return None
            b = self._budget
            if now < b.hard:
                if now >= b.soft:
                    self.stop.set()
                return b.hard if now >= b.soft else b.soft
        self.answer_fallback()
        return None

    def recheck(self) -> None:
        """Wake the watchdog to read the clock again: a clock that jumps (a test's fake clock)
        says nothing to a watchdog sleeping until the next deadline."""
        with self._cond:
            self._cond.notify_all()

    def supervise(self) -> None:
        """Watchdog loop: `watch` at each deadline, and whenever the budget changes (the
        condition is held from one look to the wait, so no set_budget can slip between)."""
        with self._cond:
            while (wake := self.watch(self.clock())) is not None:
                self._cond.wait(max(0.001, wake - self.clock()))


def run_request(req: MoveRequest, job: Callable[[MoveRequest], Optional[Answer]]
                ) -> tuple[threading.Thread, threading.Thread]:
    """Start the thinking thread and the watchdog for `req`; returns (thinking, watchdog), which
    a test can join to know both are done."""

    def body() -> None:
        try:
            result = job(req)
        except Exception:   # noqa: BLE001 - a bug in the engine must cost a move, not the game
            traceback.print_exc()
            result = None
        if result is None:
            req.answer_fallback()
        else:
            req.answer(result)

    watchdog = threading.Thread(target=req.supervise, name="watchdog", daemon=True)
    thinking = threading.Thread(target=body, name="thinking", daemon=True)
    watchdog.start()
    thinking.start()
    return thinking, watchdog
