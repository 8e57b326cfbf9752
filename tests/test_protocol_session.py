"""TAKEBACK and PLAY, SWAP2BOARD, the YXSTOP/INFO extensions while thinking, and whole sessions
as Piskvork and GomocupJudge run them: the real session in this process (protocol_script), the
real engine bounded by depth, and a scripted one where the test is about a deadline."""
from __future__ import annotations

import re

import pytest

from conftest import FakeClock
from protocol_script import Script, ScriptedLoader, started, waits_for_stop
from protocol_script import cells as _cells


def test_takeback_removes_the_stone():
    with started() as b:
        b.send("TURN 7,7")
        a = b.move()
        b.send(f"TAKEBACK {a[0]},{a[1]}")
        assert b.line() == "OK"
        b.send("TAKEBACK 7,7")
        assert b.line() == "OK"
        b.send("TURN 7,7")
        b.move()
        b.end()


def test_takeback_of_an_empty_or_bad_cell_is_an_error():
    with started() as b:
        b.send("TAKEBACK 3,3")
        assert b.line().startswith("ERROR ")
        b.send("TAKEBACK 20,20")
        assert b.line().startswith("ERROR ")
        b.end()


def test_play_places_our_stone_and_turn_on_it_is_refused():
    with started() as b:
        b.send("PLAY 12,10")
        assert b.line() == "12,10"
        b.send("TURN 12,10")
        assert b.line().startswith("ERROR ")
        b.end()


def test_swap2_on_an_empty_board_places_three_stones():
    with started() as b:
        b.send("INFO rule 1", "INFO time_left 7200000", "SWAP2BOARD", "DONE")
        line = b.line()
        assert re.fullmatch(r"\d+,\d+ \d+,\d+ \d+,\d+", line), line
        cells = _cells(line)
        assert len(set(cells)) == 3 and all(0 <= x < 15 and 0 <= y < 15 for x, y in cells)
        b.end()


def test_swap2_after_three_stones_swaps_or_adds_stones():
    with started() as b:
        b.send("INFO time_left 7200000", "SWAP2BOARD", "7,7", "8,7", "9,9", "DONE")
        line = b.answer(15)
        assert line == "SWAP" or len(_cells(line)) in (1, 2)
        if line != "SWAP":
            cells = _cells(line)
            assert len(set(cells)) == len(cells)
            assert not set(cells) & {(7, 7), (8, 7), (9, 9)}
        b.end()


def test_swap2_after_five_stones_swaps_or_plays_then_board_plays():
    with started() as b:
        b.send("INFO time_left 7200000", "SWAP2BOARD", "7,7", "8,7", "9,9", "8,8", "8,6", "DONE")
        line = b.answer(15)
        assert line == "SWAP" or len(_cells(line)) == 1
        if line != "SWAP":
            assert _cells(line)[0] not in {(7, 7), (8, 7), (9, 9), (8, 8), (8, 6)}
        b.send("INFO timeout_turn 1000", "INFO time_left 7000000", "BOARD", "7,7,1", "8,7,2", "9,9,1", "8,8,2", "8,6,1", "6,8,2", "DONE")
        assert b.move(15) not in {(7, 7), (8, 7), (9, 9), (8, 8), (8, 6), (6, 8)}
        b.end()


@pytest.mark.parametrize("stones", [["7,7"], ["7,7", "8,8"], ["1,1", "2,2", "3,3", "4,4"],
                                    ["1,1", "2,2", "3,3", "4,4", "5,5", "6,6"],
                                    ["7,7", "7,7", "9,9"], ["7,7", "8,8", "15,3"], ["7,7", "x", "9,9"]])
def test_swap2_with_bad_stones_is_an_error(stones):
    with started() as b:
        b.send("SWAP2BOARD", *stones, "DONE")
        assert b.line().startswith("ERROR ")
        b.silent()
        b.send("BEGIN")
        b.move()
        b.end()


def test_yxstop_while_thinking_answers_at_once():
    """YXSTOP stops the search now and leaves it 0.15 s to answer, whatever the turn's time."""
    clock = FakeClock()
    engine = ScriptedLoader([waits_for_stop((3, 3))], clock=clock)
    with started(loader=engine, clock=clock) as b:
        b.send("INFO timeout_turn 30000")
        b.send("BEGIN")
        search = engine.searching()
        b.advance(0.1)
        b.send("YXSTOP")
        t = b.sent_at
        assert (b.session.request.budget.soft, b.session.request.budget.hard) == (t, t + 0.15)
        assert b.move() == (3, 3) and b.last_at == t        # the stopped search's own move
        assert search.limit.turn_time > 20          # it had been given the turn's time
        b.silent()
        b.end()


def test_yxstop_when_idle_is_silent():
    with started() as b:
        b.send("YXSTOP", "STOP")
        b.silent()
        b.end()


def test_info_while_thinking_tightens_the_move():
    clock = FakeClock()
    engine = ScriptedLoader([waits_for_stop((3, 3))], clock=clock)
    with started(loader=engine, clock=clock) as b:
        b.send("INFO timeout_turn 30000")
        b.send("TURN 7,7")
        t = b.sent_at
        engine.searching()
        b.send("INFO time_left 400")
        budget = b.session.request.budget
        assert t < budget.soft < budget.hard <= t + 0.4     # the move's deadlines came in
        b.advance(budget.soft - t)                          # its soft deadline: stopped
        assert b.move() == (3, 3)
        assert b.last_at - t <= 0.4
        b.silent()
        b.end()


def test_piskvork_style_session():
    with Script() as b:
        b.send("START 20", "INFO max_depth 4")
        assert b.line() == "OK"
        info = ["INFO timeout_turn 1000", "INFO timeout_match 100000", "INFO max_memory 367001600",
                "INFO game_type 1", "INFO rule 0", "INFO time_left 100000"]
        b.send(*info, eol="\r\n")
        b.silent()
        b.send("BEGIN", eol="\r\n")
        taken = {b.move(size=(20, 20))}
        for mv in ("3,3", "3,4", "3,5"):
            b.send("INFO time_left 95000", f"TURN {mv}", eol="\r\n")
            taken.add(tuple(map(int, mv.split(","))))
            m = b.move(size=(20, 20))
            assert m not in taken
            taken.add(m)
        b.send("RESTART", eol="\r\n")
        assert b.line() == "OK"
        b.send(*info, "BOARD", "10,10,1", "10,11,2", "11,11,1", "9,10,2", "DONE", eol="\r\n")
        assert b.move(size=(20, 20)) not in {(10, 10), (10, 11), (11, 11), (9, 10)}
        b.silent()
        b.end()


def test_gomocupjudge_style_session():
    with Script() as b:
        b.send("START 15", "INFO max_depth 4", "INFO timeout_turn 5000", "INFO timeout_match 180000",
               "INFO max_memory 367001600", "INFO game_type 3", "INFO rule 0",
               r"INFO folder C:\GJ\match\folder\abc", "INFO time_left 180000",
               "BOARD", "7,7,2", "8,8,1", "9,7,2", "DONE", eol="\r\n")
        assert b.line() == "OK"
        m = b.move()
        assert m not in {(7, 7), (8, 8), (9, 7)}
        b.send("INFO time_left 179000", "TURN 1,1", eol="\r\n")
        b.move()
        b.end()
