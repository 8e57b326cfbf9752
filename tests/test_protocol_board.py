"""BOARD and rule awareness: positions set in one block, the rule from INFO. The real session
and engine in this process (protocol_script), each search bounded by depth."""
from __future__ import annotations

import pytest

from protocol_script import Script, started


WE_ARE_BLACK = ("7,7,1", "7,8,2", "8,8,1", "6,7,2")


def test_board_where_we_play_black_gets_a_free_cell():
    with started() as b:
        b.send("BOARD", *WE_ARE_BLACK, "DONE")
        m = b.move()
        assert m not in {(7, 7), (7, 8), (8, 8), (6, 7)}
        b.end()


def test_board_where_we_play_white_gets_a_free_cell():
    with started() as b:
        b.send("BOARD", "7,7,2", "8,8,1", "9,7,2", "DONE")
        assert b.move() not in {(7, 7), (8, 8), (9, 7)}
        b.end()


def test_board_with_no_stones_gets_a_move():
    with started() as b:
        b.send("BOARD", "DONE")
        b.move()
        b.end()


def test_board_with_field_3_marks_an_unusable_cell():
    with started() as b:
        b.send("BOARD", "7,7,1", "7,8,3", "8,8,2", "DONE")
        assert b.move() not in {(7, 7), (7, 8), (8, 8)}
        b.end()


def test_bad_board_lines_are_ignored_with_a_message():
    with started() as b:
        b.send("BOARD", "7,7,1", "7,7,2", "3,3,4", "99,1,1", "x", "8,8,2", "DONE")
        while True:
            line = b.line()
            assert not line.startswith("ERROR"), line
            if not line.startswith("MESSAGE "):
                break
        assert line not in ("7,7", "8,8")
        assert "," in line
        b.send("TURN 1,1")
        b.move()
        b.end()


def test_board_with_impossible_stone_counts_is_refused():
    with started() as b:
        b.send("BOARD", "7,7,1", "8,8,1", "9,9,1", "DONE")
        assert b.line().startswith("ERROR ")
        b.silent()
        b.send("BOARD", "7,7,1", "DONE")                 # own stone more: also impossible
        assert b.line().startswith("ERROR ")
        b.send("BOARD", "7,7,2", "DONE")
        b.move()
        b.end()


def test_lower_case_board_and_done_are_accepted():
    with started() as b:
        b.send("board", "7,7,2", "done")
        assert b.move() != (7, 7)
        b.send("board", "7,7,1", "8,8,2", "done")
        assert b.move() not in {(7, 7), (8, 8)}
        b.end()


def test_turn_after_board_continues_that_position():
    with started() as b:
        b.send("BOARD", *WE_ARE_BLACK, "DONE")
        a = b.move()
        taken = {(7, 7), (7, 8), (8, 8), (6, 7), a}
        c = next((x, y) for x in range(15) for y in range(15) if (x, y) not in taken)
        b.send(f"TURN {c[0]},{c[1]}")
        assert b.move() not in taken | {c}
        b.end()


def test_second_board_replaces_the_position():
    with started() as b:
        b.send("BOARD", *WE_ARE_BLACK, "DONE")
        b.move()
        b.send("BOARD", "0,0,1", "14,14,2", "DONE")   # 7,7 etc. are free again
        assert b.move() not in {(0, 0), (14, 14)}
        b.end()


OPEN_FOUR = ("7,7,1", "7,8,2", "8,7,1", "8,8,2", "9,7,1", "9,8,2", "10,7,1", "10,8,2")


@pytest.mark.parametrize("rule,size", [(0, 15), (1, 15), (4, 15), (8, 15), (9, 15), (0, 20)])
def test_open_four_is_completed_under_every_rule(rule, size):
    with started(size, rule) as b:
        b.send("BOARD", *OPEN_FOUR, "DONE")
        assert b.move() in {(6, 7), (11, 7)}
        b.end()


THREE_OR_OVERLINE = ("7,7,2", "7,8,1", "8,7,2", "7,9,1", "6,7,2", "7,10,1", "9,12,2", "7,11,1", "6,13,2",
                     "7,13,1", "8,14,2")


def test_standard_rule_blocks_three_instead_of_making_six():
    with started(rule=1) as b:
        b.send("BOARD", *THREE_OR_OVERLINE, "DONE")
        assert b.move() in {(5, 7), (9, 7)}
        b.end()


def test_renju_black_avoids_forbidden_cells():
    with started(rule=4) as b:
        b.send("BOARD", "7,7,1", "7,8,2", "8,6,1", "8,8,2", "7,9,1", "8,5,2", "8,10,1", "8,11,2", "DONE")
        assert b.move() != (6, 8)
        # YXBOARD sets the position without a move; YXSHOWFORBID lists black's fouls
        b.send("YXBOARD", "7,7,1", "7,8,2", "8,6,1", "8,8,2", "7,9,1", "8,5,2", "8,10,1", "8,11,2", "DONE")
        b.silent()
        b.send("YXSHOWFORBID")
        line = b.line()
        assert line.startswith("FORBID ") and line.endswith(".")
        assert "0608" in line   # 6,8 is a foul for black
        b.end()


@pytest.mark.parametrize("rule", [8, 9])
def test_caro_rules_block_the_open_three(rule):
    with started(rule=rule) as b:
        b.send("BOARD", "7,7,1", "5,7,2", "6,7,1", "5,8,2", "8,7,1", "5,6,2", "9,7,1", "11,7,2", "DONE")
        assert b.move() in {(5, 4), (5, 5), (5, 9), (5, 10)}
        b.end()


def test_info_rule_before_start_applies_to_the_game():
    with Script() as b:
        b.send("INFO rule 1", "INFO max_depth 4")
        b.silent()
        b.send("START 15")
        assert b.line() == "OK"
        b.send("BOARD", *THREE_OR_OVERLINE, "DONE")
        assert b.move() in {(5, 7), (9, 7)}
        b.end()


def test_info_rule_after_start_applies_to_the_game():
    with started() as b:
        b.send("INFO rule 1")
        b.silent()
        b.send("BOARD", *THREE_OR_OVERLINE, "DONE")
        assert b.move() in {(5, 7), (9, 7)}
        b.end()
