"""Move requests, leniency and bad input (line ends, case, blanks, unknown commands): the real
session and engine in this process (protocol_script), input fed in the reads a pipe would give;
one test runs `gomoku brain` itself."""
from __future__ import annotations

import pytest

from conftest import Brain
from protocol_script import Script, started


def test_begin_on_20x20_plays_on_the_board():
    with started(20) as b:
        b.send("BEGIN")
        b.move(size=(20, 20))
        b.end()


def test_turn_as_the_first_command_after_start():
    with started(20) as b:
        b.send("TURN 10,10")
        assert b.move(size=(20, 20)) != (10, 10)
        b.end()


def test_turn_on_an_occupied_cell_is_an_error():
    with started() as b:
        b.send("TURN 7,7")
        a = b.move()
        b.send(f"TURN {a[0]},{a[1]}")
        assert b.line().startswith("ERROR ")
        b.send("TURN 7,7")                       # still occupied: position unchanged
        assert b.line().startswith("ERROR ")
        b.send("TURN 0,0")
        m = b.move()
        assert m not in ((0, 0), (7, 7), a)
        b.end()


def test_turn_off_the_board_is_an_error():
    with started() as b:
        b.send("TURN 15,3")
        assert b.line().startswith("ERROR ")
        b.send("TURN -1,3")
        assert b.line().startswith("ERROR ")
        b.send("TURN 3,3")
        b.move()
        b.end()


def test_malformed_turn_is_an_error():
    with started() as b:
        for bad in ("TURN 7;7", "TURN 7", "TURN"):
            b.send(bad)
            assert b.line().startswith("ERROR "), bad
        b.silent()
        b.end()


def test_turn_before_start_is_an_error():
    with Script() as b:
        b.send("TURN 7,7")
        assert b.line().startswith("ERROR ")
        b.end()


def test_begin_twice_is_an_error():
    with started() as b:
        b.send("BEGIN")
        b.move()
        b.send("BEGIN")
        assert b.line().startswith("ERROR ")
        b.end()


def test_blanks_around_the_comma_are_accepted():
    with started() as b:
        b.send("   TURN  7, 8  ")
        assert b.move() != (7, 8)
        b.end()


def test_lower_case_commands_are_accepted():
    with Script() as b:
        b.send("start 15")
        assert b.line() == "OK"
        b.send("info timeout_turn 1000")
        b.silent()
        b.send("turn 7,7")
        b.move()
        b.end()


def test_crlf_line_ends_are_accepted():
    with Script() as b:
        b.feed(b"START 15\r\n")
        assert b.line() == "OK"
        b.feed(b"TURN 7,7\r\n")
        assert b.move() != (7, 7)
        b.end()


def test_lone_cr_and_crlf_split_across_writes():
    with Script() as b:
        b.feed(b"START 15\r")
        assert b.line() == "OK"
        b.feed(b"\nTURN 7,7\r")           # the LF belongs to the previous CR: no empty command
        b.move()
        b.silent()
        b.end()


def test_lf_line_ends_are_accepted():
    with Script() as b:
        b.feed(b"START 15\nTURN 7,7\n")
        assert b.line() == "OK"
        b.move()
        b.end()


def test_empty_and_blank_lines_are_ignored():
    with started() as b:
        b.send("", "    ", "\t")
        b.silent()
        b.end()


def test_unknown_command_answers_unknown():
    with Script() as b:
        b.send("FOO 1 2")
        assert b.line().startswith("UNKNOWN ")
        b.silent()
        b.send("START 15")
        assert b.line() == "OK"
        b.end()


def test_huge_line_is_survived():
    with Script() as b:
        b.send("A" * 100_000)
        assert b.line().startswith("UNKNOWN ")
        b.silent()
        b.send("START 15")
        assert b.line() == "OK"
        b.end()


def test_invalid_utf8_is_survived(capsys):
    with Script() as b:
        b.feed(b"\xff\xfe\n")
        line = b.line()
        assert line.startswith("UNKNOWN ") and line.isascii()
        b.send("START 15")
        assert b.line() == "OK"
        b.end()
        assert "Traceback" not in capsys.readouterr().err


def test_garbage_lines_keep_serving():
    with started() as b:
        b.send("\x00\x01junk", "12,12", "TURN 7,7,7")
        for _ in range(3):
            line = b.line()
            assert line.startswith(("UNKNOWN ", "ERROR ")), line
        b.send("TURN 7,7")
        b.move()
        b.end()


@pytest.mark.process
def test_gomoku_brain_click_command_is_the_same_brain():
    """`gomoku brain` is the same brain as `pbrain-gomoku`: its own process, over pipes."""
    import sys
    from pathlib import Path
    gomoku = str(Path(sys.executable).parent / "gomoku")
    with Brain(args=[gomoku, "brain", "--turn-ms", "200"]) as b:
        b.send("START 15")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move()
        b.send("YXSHOWFORBID")
        assert b.line().startswith("FORBID ")
        b.end()


def test_yxhashclear_is_silent_and_the_brain_plays_on():
    """The search keeps its TT between timed moves; YXHASHCLEAR (Yixin, Rapfi) drops it, with
    no reply, before and after the engine is loaded."""
    with started() as b:
        b.send("YXHASHCLEAR")
        b.send("INFO timeout_turn 300", "BEGIN")
        b.move()
        b.send("YXHASHCLEAR")
        b.silent()
        b.send("TURN 8,8")
        b.move()
        b.end()


def test_loader_forget_drops_the_brains_search_tables():
    from gomoku.engine.game.board import Board
    from gomoku.engine.base.limits import Limit
    from gomoku.protocol.engine_loader import EngineLoader
    loader = EngineLoader(warmup=False)
    loader.forget()                     # the engine is not loaded yet: nothing to drop
    loader.start()
    assert loader.wait(120)
    loader.think(Board.from_moves(15, [(7, 7)]), Limit(depth=2))
    searcher = loader._thinker.searcher
    assert searcher.holds_tables
    loader.forget()
    assert not searcher.holds_tables
