"""Conformance cases 39-50 (INFO, time) and 54-56 (END/EOF) against the real brain."""
from __future__ import annotations

import os
import tempfile
import time

import pytest

from test_protocol_util import Brain


def started(size: int = 15, **kw) -> Brain:
    b = Brain(**kw)
    b.send(f"START {size}")
    assert b.line() == "OK"
    return b


def test_39_info_block_is_silent():
    with started() as b:
        b.send("INFO timeout_turn 5000", "INFO timeout_match 180000", "INFO max_memory 367001600",
               "INFO game_type 3", "INFO rule 0", r"INFO folder C:\GJ\match\folder\abc",
               "INFO time_left 180000")
        b.silent(0.4)
        b.end()


@pytest.mark.parametrize("rule", [0, 1, 2, 4, 8, 9])
def test_39b_every_rule_value_is_silent_and_playable(rule):
    with started() as b:
        b.send(f"INFO rule {rule}", "INFO timeout_turn 300")
        b.silent(0.1)
        b.send("BEGIN")
        b.move()
        b.end()


def test_42_unknown_and_bad_info_is_silent():
    with started() as b:
        b.send("INFO mystery 7", "INFO timeout_turn abc", "INFO", "INFO rule 77", "INFO rule x",
               "INFO max_memory -5", "INFO time_left", "info TIMEOUT_TURN 200")
        b.silent(0.4)
        b.send("BEGIN")
        b.move()
        b.end()


def test_43_info_evaluate_is_silent_everywhere():
    with started() as b:
        b.send("INFO evaluate 5,5")
        b.silent(0.3)
        b.end()
        assert b.stderr == b""


def test_44_folder_with_spaces():
    with started() as b:
        b.send(r"INFO folder C:\Gomocup\my brain dir")
        b.silent(0.3)
        b.send("BEGIN")
        b.move()
        b.end()


def test_45_impossible_max_memory():
    with started() as b:
        b.send("INFO max_memory 1")
        b.silent(0.3)
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


def test_46_time_left_mid_game():
    with started(turn_ms=5000) as b:
        b.send("TURN 7,7")
        b.move()
        b.send("INFO time_left 1500", "TURN 9,9")
        b.move()
        assert b.elapsed() < 1.5
        b.silent(0.2)
        b.end()


def test_47_turn_1000_unlimited_match():
    with started() as b:
        b.send("INFO timeout_turn 1000", "INFO timeout_match 0", "INFO time_left 2147483647")
        time.sleep(1.0)    # let the engine finish loading: we measure thinking, not start-up
        b.send("BEGIN")
        b.move()
        assert b.elapsed() < 0.9
        b.send("TURN 8,8")
        b.move()
        assert b.elapsed() < 0.9
        b.end()


def test_48_timeout_turn_zero_is_instant():
    with started() as b:
        b.send("INFO timeout_turn 0")
        time.sleep(0.8)
        b.send("TURN 7,7")
        b.move()
        assert b.elapsed() < 0.2
        b.send("TURN 3,3")
        b.move()
        assert b.elapsed() < 0.2
        b.end()


def test_49_negative_time_left():
    with started() as b:
        b.send("INFO time_left -500", "TURN 7,7")
        b.move()
        assert b.elapsed() < 0.2
        b.end()


def test_50b_first_move_in_time_right_after_spawn():
    """GomocupJudge charges start-up to the first move: BOARD sent at spawn with a 1 s turn."""
    with Brain() as b:
        b.send("START 15", "INFO timeout_turn 1000", "INFO time_left 100000", "BOARD", "7,7,2", "DONE")
        assert b.line() == "OK"
        b.move()
        assert b.last_at - b.spawned < 1.0
        b.end()


@pytest.mark.slow
def test_50c_cold_numba_cache_still_moves_on_time():
    """With an empty numba cache (compile takes many seconds) moves still come on time."""
    with tempfile.TemporaryDirectory() as cache:
        with Brain(env={"NUMBA_CACHE_DIR": cache}) as b:
            b.send("ABOUT")
            b.line()
            b.send("START 15")
            assert b.line() == "OK"
            assert b.last_at - b.spawned < 1.0
            b.send("INFO timeout_turn 500", "BEGIN")
            b.move()
            assert b.last_at - b.sent_at < 0.5
            b.send("TURN 8,8")
            b.move()
            assert b.elapsed() < 0.5
            assert _compilers(cache), "expected a compiling child process"
            b.end()
            time.sleep(0.3)
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


def test_54_end_exits_quickly():
    with started() as b:
        b.end()


def test_55_end_while_thinking_prints_nothing():
    with started() as b:
        b.send("INFO timeout_turn 30000", "BEGIN", "END")
        rc, dt = b.wait_exit()
        assert rc == 0 and dt < 0.5
        b.silent(0.1)


def test_56_eof_exits_without_output():
    with started() as b:
        b.close_stdin()
        rc, dt = b.wait_exit()
        assert rc == 0 and dt < 0.5
        b._t_out.join(1)
        assert b.lines.get_nowait()[1] is None     # only the end-of-output marker


def test_56b_eof_while_thinking():
    with started() as b:
        b.send("INFO timeout_turn 30000", "BEGIN")
        b.close_stdin()
        rc, dt = b.wait_exit()
        assert rc == 0 and dt < 0.5


def test_data_files_do_not_depend_on_cwd():
    with tempfile.TemporaryDirectory() as d:
        with Brain(cwd=d) as b:
            b.send("START 15", "INFO timeout_turn 300")
            assert b.line() == "OK"
            time.sleep(0.5)
            b.send("BEGIN")
            b.move()
            b.end()
            assert os.listdir(d) == []
