"""INFO, time and END/EOF, and the time policy on a fake clock.

The deadlines a move gets from the INFO values are checked on the session with an injected
clock (`Session(clock=...)`), so a loaded machine cannot fail them; the INFO commands run on the
in-process session (protocol_script). The real brain stays only where a process is the point:
END and end of input during a search (exit at once, nothing printed), and a cold numba cache.
"""
from __future__ import annotations

import os
import tempfile
import threading
import time

import pytest

from conftest import EXIT_S, LOAD_SLACK_S, MOVE_RE, Brain, FakeClock
from protocol_script import Script
from protocol_script import started as script_started
from gomoku.protocol.output import ProtocolOutput
from gomoku.protocol.session import Session


class LoadingEngine:
    """An engine loader that never gets ready: every move is the session's fallback move, so
    a test sees the deadlines the session computed and the move that goes out without one.
    `busy=True`: a move waits for it (as for a search) until `release` is set."""

    def __init__(self, busy: bool = False) -> None:
        self.ready, self.board_ready, self.warmed = threading.Event(), threading.Event(), threading.Event()
        self.quick_move = None
        self.busy, self.release = busy, threading.Event()

    def acquire(self, timeout: float, ready_timeout: float | None = None) -> bool:
        if self.busy:
            self.release.wait(30)
        return False

    def notices(self, width: int, height: int, rule_label: str) -> None:
        return None


def session_on(clock: FakeClock, engine: LoadingEngine | None = None) -> tuple[Session, list[str]]:
    """A session on `clock` whose output lines are collected in the returned list."""
    r, w = os.pipe()
    lines: list[str] = []

    def read() -> None:
        with os.fdopen(r, "rb") as f:
            lines.extend(raw.decode().rstrip("\n") for raw in f)

    threading.Thread(target=read, daemon=True).start()
    session = Session(ProtocolOutput(w), engine or LoadingEngine(), clock=clock)  # type: ignore[arg-type]
    session.handle_line("START 15")
    return session, lines


def owed(session: Session) -> tuple[float, float, float, bool]:
    """The deadlines of the move just asked for, in seconds after the request was read, then
    waits until its answer is out."""
    req = session.request
    assert req is not None and req.done.wait(10)
    b = req.budget
    return round(b.soft - b.origin, 3), round(b.hard - b.origin, 3), b.limit_ms, b.instant


def test_policy_timeout_turn_zero_is_an_instant_move():
    clock = FakeClock()
    session, _ = session_on(clock)
    session.handle_line("INFO timeout_turn 0")
    session.handle_line("TURN 7,7")
    assert session.request.budget.origin == clock()
    assert owed(session) == (0.0, 0.12, 0.0, True)    # no search; a move within 120 ms
    clock.advance(5.0)
    session.handle_line("TURN 3,3")
    assert session.request.budget.origin == clock()
    assert owed(session) == (0.0, 0.12, 0.0, True)


def test_policy_negative_time_left_is_an_instant_move():
    session, _ = session_on(FakeClock())
    session.handle_line("INFO time_left -500")
    session.handle_line("TURN 7,7")
    assert owed(session)[3] is True
    assert session.request.answered_by == "fallback"


def test_policy_turn_limit_with_unlimited_match_clock():
    """time_left 2147483647 is the 'unlimited' sentinel: the turn alone limits the move, less
    the margin (larger on a process's first move, for numba's cache load)."""
    session, _ = session_on(FakeClock())
    session.handle_line("INFO timeout_turn 1000")
    session.handle_line("INFO timeout_match 0")
    session.handle_line("INFO time_left 2147483647")
    session.handle_line("BEGIN")
    assert owed(session) == (0.65, 0.7, 1000.0, False)
    session.handle_line("TURN 8,8")
    assert owed(session) == (0.8, 0.85, 1000.0, False)


def test_policy_time_left_sent_mid_game_shortens_the_move():
    session, _ = session_on(FakeClock())
    session.handle_line("TURN 7,7")
    assert owed(session)[1] > 4.0                      # the 5000 ms default turn
    session.handle_line("INFO time_left 1500")
    session.handle_line("TURN 9,9")
    # the clock alone limits the move: hard inside it less the margin, soft a 25th of it
    assert owed(session) == (0.06, 1.31, 1500.0, False)


def test_policy_yxstop_while_thinking_answers_within_the_grace_period():
    clock, engine = FakeClock(), LoadingEngine(busy=True)
    session, _ = session_on(clock, engine)
    session.handle_line("INFO timeout_turn 30000")
    session.handle_line("BEGIN")
    req = session.request
    clock.advance(0.1)
    session.handle_line("YXSTOP")
    assert req.stop.is_set() and (req.budget.soft, req.budget.hard) == (clock(), clock() + 0.15)
    assert not req.done.is_set()
    clock.advance(0.15)                   # the grace period is over: the watchdog answers
    req.recheck()
    assert req.done.wait(10) and req.answered_by == "fallback"
    engine.release.set()


def test_policy_info_while_thinking_tightens_the_move():
    """time_left 400 sent while a 30 s move is being thought about: the running move gets the
    deadlines of a 400 ms clock (never later ones), and the watchdog keeps them."""
    clock, engine = FakeClock(), LoadingEngine(busy=True)
    session, _ = session_on(clock, engine)
    session.handle_line("INFO timeout_turn 30000")
    session.handle_line("TURN 7,7")
    req = session.request
    session.handle_line("INFO time_left 400")
    b = req.budget
    assert (round(b.soft - b.origin, 3), round(b.hard - b.origin, 3)) == (0.016, 0.298)
    clock.advance(0.298)
    req.recheck()
    assert req.done.wait(10) and req.answered_by == "fallback"
    engine.release.set()


def test_policy_moves_go_out_without_the_engine():
    """With no engine ready by the soft deadline the fallback move still goes out, once."""
    session, lines = session_on(FakeClock())
    session.handle_line("INFO timeout_turn 300")
    session.handle_line("TURN 7,7")
    owed(session)
    deadline = time.monotonic() + 10
    while len(lines) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lines[0] == "OK" and MOVE_RE.match(lines[1]) and lines[1] != "7,7"


def test_the_search_is_handed_the_moves_deadlines():
    """What the engine is told: stop at the move's soft deadline, end its checks before the hard
    one (timeman.engine_times), from the moment the TURN was read; its move goes out at once."""
    from gomoku.engine.base import timeman
    from protocol_script import ScriptedLoader
    clock = FakeClock()
    engine = ScriptedLoader([(3, 3), (4, 4)], clock=clock)
    with script_started(loader=engine, clock=clock, depth=None) as b:
        b.send("INFO timeout_turn 1000", "INFO timeout_match 0", "TURN 7,7")
        t = b.sent_at
        assert b.move() == (3, 3) and b.last_at == t
        budget = b.session.request.budget
        call = engine.calls[0]
        assert call.at == t and (round(budget.soft - t, 3), round(budget.hard - t, 3)) == (0.65, 0.7)
        assert (call.limit.turn_time, call.limit.hard_time) == timeman.engine_times(budget, t)
        assert call.limit.depth is None and call.limit.nodes is None
        b.advance(10.0)
        b.send("INFO max_depth 6", "INFO max_node 5000", "TURN 8,8")     # the manager's search caps
        t = b.sent_at
        assert b.move() == (4, 4)
        call = engine.calls[1]
        assert (call.limit.depth, call.limit.nodes) == (6, 5000)
        assert round(call.limit.turn_time, 3) == 0.8                     # not the first move now
        b.end()


def started(size: int = 15, **kw) -> Script:
    return script_started(size, **kw)


def test_info_block_is_silent():
    with started() as b:
        b.send("INFO timeout_turn 5000", "INFO timeout_match 180000", "INFO max_memory 367001600",
               "INFO game_type 3", "INFO rule 0", r"INFO folder C:\GJ\match\folder\abc",
               "INFO time_left 180000")
        b.silent()
        b.end()


@pytest.mark.parametrize("rule", [0, 1, 2, 4, 8, 9])
def test_every_rule_value_is_silent_and_playable(rule):
    with started() as b:
        b.send(f"INFO rule {rule}", "INFO timeout_turn 300")
        b.silent()
        b.send("BEGIN")
        b.move()
        b.end()


def test_unknown_and_bad_info_is_silent():
    with started() as b:
        b.send("INFO mystery 7", "INFO timeout_turn abc", "INFO", "INFO rule 77", "INFO rule x",
               "INFO max_memory -5", "INFO time_left", "info TIMEOUT_TURN 200")
        b.silent()
        b.send("BEGIN")
        b.move()
        b.end()


def test_info_evaluate_is_silent_on_stdout_and_stderr(capsys):
    with started() as b:
        b.send("INFO evaluate 5,5")
        b.silent()
        b.end()
    assert capsys.readouterr().err == ""


def test_info_folder_with_spaces_is_accepted():
    with started() as b:
        b.send(r"INFO folder C:\Gomocup\my brain dir")
        b.silent()
        b.send("BEGIN")
        b.move()
        b.end()


def test_impossible_max_memory_is_told_and_play_goes_on():
    with started() as b:
        b.send("INFO max_memory 1")
        b.silent()
        b.send("BEGIN")
        saw_message = False
        while True:
            line = b.line()
            assert not line.startswith("ERROR"), line
            if line.startswith("MESSAGE "):
                saw_message = True
                continue
            break
        assert "," in line and saw_message
        b.end()


@pytest.mark.slow
@pytest.mark.process
def test_cold_numba_cache_still_moves_on_time():
    """With an empty numba cache (compile takes many seconds) moves still come on time."""
    with tempfile.TemporaryDirectory() as cache:
        with Brain(env={"NUMBA_CACHE_DIR": cache}) as b:
            b.send("ABOUT")
            b.line()
            b.send("START 15")
            assert b.line() == "OK"
            assert b.last_at - b.spawned < 1.0 + LOAD_SLACK_S
            b.send("INFO timeout_turn 500", "BEGIN")
            b.move()
            assert b.last_at - b.sent_at < 0.5 + LOAD_SLACK_S
            b.send("TURN 8,8")
            b.move()
            assert b.elapsed() < 0.5 + LOAD_SLACK_S
            assert _compilers(cache), "expected a compiling child process"
            b.end()
            deadline = time.monotonic() + EXIT_S         # the brain kills it on its way out
            while _compilers(cache) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _compilers(cache) == [], "the compile child outlived the brain"


def _compilers(cache_dir: str) -> list[int]:
    """PIDs of warm-up children working for this NUMBA_CACHE_DIR."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if b"warm_all" in cmd and cache_dir.encode() in env:
            found.append(int(pid))
    return found


def test_end_exits_quickly():
    with started() as b:
        b.end()


def test_end_input_ends_the_session_without_output():
    with started() as b:
        b.send("INFO timeout_turn 300")
        b.feed(b"")                       # end of input: what brain.run quits on
        assert b.ended and b.rest() == []


@pytest.mark.process
def test_end_or_eof_while_thinking_exits_at_once_and_prints_nothing():
    """The brain leaves at once on END or end of input, even in a 30 s search, and never prints
    the move it was thinking about (one brain for each)."""
    for how in ("END", "EOF"):
        with Brain() as b:
            b.send("START 15")
            assert b.line() == "OK"
            b.send("INFO timeout_turn 30000", "BEGIN")
            if how == "END":
                b.send("END")
            else:
                b.close_stdin()
            rc, dt = b.wait_exit()
            assert rc == 0 and dt < EXIT_S, how
            b._t_out.join(EXIT_S)
            assert b.lines.get_nowait()[1] is None, how     # only the end-of-output marker


def test_data_files_do_not_depend_on_cwd(tmp_path, monkeypatch):
    """A fresh engine loaded from another working folder plays, and writes nothing there."""
    from protocol_script import real_loader
    monkeypatch.chdir(tmp_path)
    with Script(loader=real_loader(fresh=True)) as b:
        b.send("START 15", "INFO timeout_turn 300", "INFO max_depth 4")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move()
        b.end()
    assert os.listdir(tmp_path) == []
