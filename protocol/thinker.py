"""One owed answer at a time: the thinking thread, the watchdog and the 'answered' flag.

A `MoveRequest` is created for BEGIN/TURN/BOARD/SWAP2BOARD. Its job runs in a thinking thread;
a supervisor thread sets the stop event at the soft deadline and, if the job still has not
answered at the hard deadline, prints the precomputed fallback answer. Whoever answers first
wins under the output lock; the other answer is dropped, so there is never a second move line
and never a late one (as long as the GIL is not held by a long-running native call).
"""
from __future__ import annotations

import threading
import time
import traceback
from typing import Callable, Iterable, Optional

from gomoku.engine.timeman import Budget, stop_now
from gomoku.protocol.output import ProtocolOutput

Answer = tuple[str, Optional[Callable[[], None]], list[str]]   # line, effect, MESSAGE texts


class MoveRequest:
    """An answer the brain owes the manager, with its deadlines and its fallback."""

    def __init__(self, out: ProtocolOutput, budget: Budget, fallback: Answer,
                 messages: Iterable[str] = ()) -> None:
        self.out = out
        self.stop = threading.Event()       # polled by the search
        self.done = threading.Event()       # set once answered (or dropped after END)
        self.answered_by: Optional[str] = None
        self._budget = budget
        self._fallback = fallback
        self._messages = list(messages)     # printed before whichever answer goes out
        self._cond = threading.Condition()

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
        self.set_budget(stop_now(self._budget, time.monotonic()))
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
            now = time.monotonic()
            print(f"answer {line!r} by {source}: {1000 * (now - b.origin):.0f} ms after origin "
                  f"(soft {1000 * (b.soft - b.origin):.0f}, hard {1000 * (b.hard - b.origin):.0f}, "
                  f"limit {b.limit_ms:.0f})")
        return ok

    def answer_fallback(self) -> bool:
        return self.answer(self._fallback, "fallback")

    def supervise(self) -> None:
        """Watchdog loop: stop at the soft deadline, answer the fallback at the hard one."""
        with self._cond:
            while not self.done.is_set():
                now = time.monotonic()
                b = self._budget
                if now >= b.hard:
                    break
                if now >= b.soft:
                    self.stop.set()
                    wake = b.hard
                else:
                    wake = b.soft
                self._cond.wait(max(0.001, wake - now))
        if not self.done.is_set():
            self.answer_fallback()


def run_request(req: MoveRequest, job: Callable[[MoveRequest], Optional[Answer]]) -> None:
    """Start the thinking thread and the watchdog for `req`."""

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

    threading.Thread(target=req.supervise, name="watchdog", daemon=True).start()
    threading.Thread(target=body, name="thinker", daemon=True).start()
