"""The thinking thread + watchdog: one answer per request, never late, never after END.

The deadlines are checked on a fake clock (the watchdog's time policy), not on the wall clock:
a loaded machine may delay a thread by seconds, and that must not decide these tests. One real-
clock test (marked slow) keeps the requirement that matters to a manager: the fallback comes at
the hard deadline, not before and not much after.
"""
from __future__ import annotations

import os
import threading
import time

import pytest

from conftest import LOAD_SLACK_S, FakeClock
from gomoku.engine.base.timeman import Budget
from gomoku.protocol.output import ProtocolOutput
from gomoku.protocol.move_request import MoveRequest, run_request

#: Real seconds a thread may take to do what it was woken for: far above any scheduling delay,
#: far below the 30 s the watchdog would sleep when a wake-up is missing.
WAKE_S = 10.0


def pipe_output():
    r, w = os.pipe()
    return ProtocolOutput(w), r


def read_all(r: int, out: ProtocolOutput) -> list[str]:
    os.close(out._fd)
    data = b""
    while chunk := os.read(r, 4096):
        data += chunk
    os.close(r)
    return data.decode().splitlines()


def budget(clock, soft: float, hard: float) -> Budget:
    now = clock()
    return Budget(now, now + soft, now + hard, hard * 1000, False)


def join(*threads: threading.Thread) -> None:
    for t in threads:
        t.join(WAKE_S)
        assert not t.is_alive(), f"{t.name} still running"


def test_engine_answer_wins_and_is_the_only_line():
    clock = FakeClock()
    out, r = pipe_output()
    effects = []
    req = MoveRequest(out, budget(clock, 0.5, 1.0), ("0,0", lambda: effects.append("fb"), []), ["note"],
                      clock=clock)
    join(*run_request(req, lambda q: ("7,7", lambda: effects.append("engine"), ["depth 3"])))
    clock.advance(2.0)                    # past the hard deadline: the watchdog must stay quiet
    assert req.watch(clock()) is None
    assert read_all(r, out) == ["MESSAGE note", "MESSAGE depth 3", "7,7"]
    assert effects == ["engine"] and req.answered_by == "engine"


def test_watchdog_stops_at_soft_and_answers_at_hard_deadline():
    clock = FakeClock()
    out, r = pipe_output()
    req = MoveRequest(out, budget(clock, 0.1, 0.3), ("1,1", None, []), clock=clock)
    t0 = clock()
    assert req.watch(t0 + 0.05) == t0 + 0.1          # sleeps until the soft deadline
    assert not req.stop.is_set()
    assert req.watch(t0 + 0.1) == t0 + 0.3           # soft: stop the search, wait for hard
    assert req.stop.is_set() and not req.done.is_set()
    assert req.watch(t0 + 0.299) == t0 + 0.3         # not a moment early
    assert not req.done.is_set()
    assert req.watch(t0 + 0.3) is None               # hard: the fallback goes out
    assert req.answered_by == "fallback"
    assert read_all(r, out) == ["1,1"]


def test_watchdog_answers_the_fallback_when_the_engine_hangs():
    clock = FakeClock()
    out, r = pipe_output()
    release = threading.Event()
    seen_stop = []

    def stuck(q):
        seen_stop.append(q.stop.wait(WAKE_S))
        release.wait(WAKE_S)              # ignores the stop flag, like a stuck search
        return "9,9", None, []

    req = MoveRequest(out, budget(clock, 0.1, 0.3), ("1,1", None, []), clock=clock)
    thinking, watchdog = run_request(req, stuck)
    clock.advance(0.15)
    req.recheck()
    assert req.stop.wait(WAKE_S)          # stop was set at the soft deadline
    assert not req.done.is_set()          # the clock is before the hard one: no answer yet
    clock.advance(0.2)
    req.recheck()
    assert req.done.wait(WAKE_S) and req.answered_by == "fallback"
    release.set()
    join(thinking, watchdog)
    assert seen_stop == [True]
    assert read_all(r, out) == ["1,1"]    # the engine's late answer is dropped


def test_stop_request_shortens_deadlines():
    clock = FakeClock()
    out, r = pipe_output()
    req = MoveRequest(out, budget(clock, 30, 40), ("2,2", None, []), clock=clock)
    thinking, watchdog = run_request(req, lambda q: (q.stop.wait(60), ("3,3", None, []))[1])
    clock.advance(1.0)
    req.request_stop()
    assert (req.budget.soft, req.budget.hard) == (clock(), clock() + 0.15)   # stop now, answer soon
    assert req.done.wait(WAKE_S)
    join(thinking, watchdog)
    assert read_all(r, out) == ["3,3"]


def test_stop_request_gives_the_fallback_when_the_engine_ignores_it():
    clock = FakeClock()
    out, r = pipe_output()
    release = threading.Event()
    req = MoveRequest(out, budget(clock, 30, 40), ("2,2", None, []), clock=clock)
    thinking, watchdog = run_request(req, lambda q: (release.wait(WAKE_S), ("3,3", None, []))[1])
    req.request_stop()
    clock.advance(0.15)                   # the grace period is over
    req.recheck()
    assert req.done.wait(WAKE_S) and req.answered_by == "fallback"
    release.set()
    join(thinking, watchdog)
    assert read_all(r, out) == ["2,2"]


def test_tightened_budget_wakes_the_watchdog():
    clock = FakeClock()
    out, r = pipe_output()
    release = threading.Event()
    req = MoveRequest(out, budget(clock, 30, 40), ("4,4", None, []), clock=clock)
    thinking, watchdog = run_request(req, lambda q: (release.wait(WAKE_S), ("5,5", None, []))[1])
    now = clock.advance(1.0)
    b = req.budget
    # a new budget whose hard deadline is now: set_budget alone must wake the watchdog, which
    # would otherwise sleep until the old soft deadline, 29 s away
    req.set_budget(Budget(b.origin, now - 0.1, now, 1000, False))
    assert req.done.wait(WAKE_S) and req.answered_by == "fallback"
    release.set()
    join(thinking, watchdog)
    assert read_all(r, out) == ["4,4"]


def test_nothing_after_close():
    clock = FakeClock()
    out, r = pipe_output()
    req = MoveRequest(out, budget(clock, 0.05, 0.1), ("6,6", None, []), clock=clock)
    out.close()
    join(*run_request(req, lambda q: ("7,7", None, [])))
    clock.advance(1.0)
    req.watch(clock())                    # the watchdog's look past the hard deadline
    assert read_all(r, out) == []


def test_job_exception_gives_fallback():
    clock = FakeClock()
    out, r = pipe_output()
    req = MoveRequest(out, budget(clock, 1, 2), ("8,8", None, []), clock=clock)

    def boom(q):
        raise RuntimeError("engine bug")

    join(*run_request(req, boom))
    assert req.answered_by == "fallback"
    assert read_all(r, out) == ["8,8"]


@pytest.mark.slow
def test_watchdog_on_the_real_clock_answers_at_the_hard_deadline():
    """A manager forfeits a late move: on the real clock the fallback comes at the hard
    deadline, never before it, and late only by what a loaded machine adds."""
    out, r = pipe_output()
    release = threading.Event()
    req = MoveRequest(out, budget(time.monotonic, 0.1, 0.3), ("1,1", None, []))
    thinking, watchdog = run_request(req, lambda q: (release.wait(WAKE_S), ("9,9", None, []))[1])
    assert req.done.wait(WAKE_S)
    took = time.monotonic() - req.budget.origin
    release.set()
    join(thinking, watchdog)
    assert 0.3 <= took < 0.3 + LOAD_SLACK_S
    assert read_all(r, out) == ["1,1"]
