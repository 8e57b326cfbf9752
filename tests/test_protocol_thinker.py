"""The thinking thread + watchdog: one answer per request, never late, never after END."""
from __future__ import annotations

import os
import threading
import time

from gomoku.engine.timeman import Budget
from gomoku.protocol.output import ProtocolOutput
from gomoku.protocol.thinker import MoveRequest, run_request


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


def budget(soft: float, hard: float) -> Budget:
    now = time.monotonic()
    return Budget(now, now + soft, now + hard, hard * 1000, False)


def test_engine_answer_wins_and_is_the_only_line():
    out, r = pipe_output()
    effects = []
    req = MoveRequest(out, budget(0.5, 1.0), ("0,0", lambda: effects.append("fb"), []), ["note"])
    run_request(req, lambda q: ("7,7", lambda: effects.append("engine"), ["depth 3"]))
    assert req.done.wait(2)
    time.sleep(1.1)                       # past the hard deadline: the watchdog must stay quiet
    assert read_all(r, out) == ["MESSAGE note", "MESSAGE depth 3", "7,7"]
    assert effects == ["engine"] and req.answered_by == "engine"


def test_watchdog_answers_at_hard_deadline_when_engine_hangs():
    out, r = pipe_output()
    release = threading.Event()
    seen_stop = []

    def slow(q):
        seen_stop.append(q.stop.wait(5))
        release.wait(5)                   # ignores the stop flag, like a stuck search
        return "9,9", None, []

    t0 = time.monotonic()
    req = MoveRequest(out, budget(0.1, 0.3), ("1,1", None, []))
    run_request(req, slow)
    assert req.done.wait(2)
    dt = time.monotonic() - t0
    assert 0.28 < dt < 0.4
    release.set()
    time.sleep(0.1)
    assert seen_stop == [True]            # stop was set at the soft deadline
    assert read_all(r, out) == ["1,1"] and req.answered_by == "fallback"


def test_stop_request_shortens_deadlines():
    out, r = pipe_output()
    req = MoveRequest(out, budget(30, 40), ("2,2", None, []))
    run_request(req, lambda q: (q.stop.wait(60), ("3,3", None, []))[1])
    time.sleep(0.1)
    t0 = time.monotonic()
    req.request_stop()
    assert req.done.wait(1)
    assert time.monotonic() - t0 < 0.05
    assert read_all(r, out) == ["3,3"]


def test_tightened_budget_wakes_the_watchdog():
    out, r = pipe_output()
    req = MoveRequest(out, budget(30, 40), ("4,4", None, []))
    run_request(req, lambda q: (time.sleep(3), ("5,5", None, []))[1])
    time.sleep(0.05)
    t0 = time.monotonic()
    b = req.budget
    req.set_budget(Budget(b.origin, t0 + 0.1, t0 + 0.2, 200, False))
    assert req.done.wait(1)
    assert 0.15 < time.monotonic() - t0 < 0.3
    assert read_all(r, out) == ["4,4"]


def test_nothing_after_close():
    out, r = pipe_output()
    req = MoveRequest(out, budget(0.05, 0.1), ("6,6", None, []))
    out.close()
    run_request(req, lambda q: ("7,7", None, []))
    req.done.wait(1)
    time.sleep(0.2)
    assert read_all(r, out) == []


def test_job_exception_gives_fallback():
    out, r = pipe_output()
    req = MoveRequest(out, budget(1, 2), ("8,8", None, []))

    def boom(q):
        raise RuntimeError("engine bug")

    run_request(req, boom)
    assert req.done.wait(1)
    assert read_all(r, out) == ["8,8"]
