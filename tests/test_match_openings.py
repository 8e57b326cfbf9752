"""Opening sets and the c-gomoku-cli opening-file forms."""
from __future__ import annotations

import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.match.openings import (RENJU_26, OpeningError, balanced_openings, builtin_openings, check_opening,
                                    check_openings, default_openings, load_openings, parse_line, parse_offset,
                                    parse_pos, to_pos_string)
from gomoku.engine.game.rules import Rule


def test_pos_form():
    assert parse_pos("h8i9j7") == ((7, 7), (8, 8), (9, 6))
    assert parse_pos("A1 b2") == ((0, 0), (1, 1))
    assert to_pos_string(((7, 7), (8, 8), (9, 6))) == "h8i9j7"
    for bad in ("h8i", "8h", "h8-i9", ""):
        with pytest.raises(OpeningError):
            parse_pos(bad)


def test_offset_form_is_relative_to_the_centre():
    assert parse_offset("-7,-7, -6,-6", 15, 15) == ((0, 0), (1, 1))
    assert parse_offset("0,0, 1,-1", 20, 20) == ((10, 10), (11, 9))
    assert parse_offset("0, 0,1 ,2", 15, 15) == ((7, 7), (8, 9))
    with pytest.raises(OpeningError, match="odd number"):
        parse_offset("0,0, 1", 15, 15)
    with pytest.raises(OpeningError):
        parse_offset("0,0, x,1", 15, 15)
    assert parse_line("h8", 15, 15) == ((7, 7),) and parse_line("0,0", 15, 15) == ((7, 7),)


def test_builtin_sets_are_the_26_classical_openings():
    assert len(RENJU_26) == 26 and len(set(RENJU_26)) == 26
    for size in (15, 20):
        ops = builtin_openings(size)
        assert len(ops) == 26
        c = size // 2
        for op in ops:
            assert op[0] == (c, c) and op[1] in ((c, c - 1), (c + 1, c - 1))
            assert max(abs(x - c) for x, _ in op) <= 2 and max(abs(y - c) for _, y in op) <= 2
            for rule in Rule:
                check_opening(op, size, size, rule)
    # no two openings are mirror images of each other (within direct / indirect)
    canon = set()
    for op in builtin_openings(15):
        b = Board.from_moves(15, op)
        variants = []
        for t in range(8):
            pts = []
            for x, y in op:
                dx, dy = x - 7, y - 7
                for _ in range(t % 4):
                    dx, dy = -dy, dx
                if t >= 4:
                    dx = -dx
                pts.append((dx, dy))
            variants.append(tuple(pts))
        key = min(variants)
        assert key not in canon
        canon.add(key)
        assert b.winner == 0


def test_check_opening_errors():
    with pytest.raises(OpeningError, match="does not fit the 15x15 board"):
        check_opening(((7, 7), (15, 7)), 15, 15, Rule.FREESTYLE)
    with pytest.raises(OpeningError, match="occupied"):
        check_opening(((7, 7), (7, 7)), 15, 15, Rule.FREESTYLE)
    five = ((0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (2, 5), (3, 0), (3, 5), (4, 0))
    with pytest.raises(OpeningError, match="five"):
        check_opening(five, 15, 15, Rule.FREESTYLE)
    foul = ((7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11), (6, 8))
    with pytest.raises(OpeningError, match="foul"):
        check_opening(foul, 15, 15, Rule.RENJU)
    check_opening(foul, 15, 15, Rule.FREESTYLE)


def test_load_openings_reports_file_and_line(tmp_path):
    f = tmp_path / "o.txt"
    f.write_text("h8i9\n# comment\n\nzz\n")
    with pytest.raises(OpeningError, match=r"o.txt:4: "):
        load_openings(f, 15, 15)
    f.write_text("h8i9\n0,0, 1,1\n")
    assert load_openings(f, 15, 15) == [((7, 7), (8, 8)), ((7, 7), (8, 8))]
    with pytest.raises(OpeningError):
        load_openings(f, 15, 15, fmt="pos")
    f.write_text("# nothing\n")
    with pytest.raises(OpeningError, match="no openings"):
        load_openings(f, 15, 15)


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
def test_balanced_sets_are_short_central_legal_and_distinct(rule):
    ops = balanced_openings(15, 15, rule)
    assert len(ops) == 100 and len(set(ops)) == 100
    check_openings(ops, 15, 15, rule)
    for op in ops:
        assert 3 <= len(op) <= 6
        assert all(abs(x - 7) <= 2 and abs(y - 7) <= 2 for x, y in op)
    assert default_openings(15, 15, rule) == ops


def test_balanced_sets_only_where_they_were_judged():
    with pytest.raises(OpeningError, match="15x15 freestyle and standard only"):
        balanced_openings(20, 20, Rule.FREESTYLE)
    with pytest.raises(OpeningError, match="renju"):
        balanced_openings(15, 15, Rule.RENJU)
    assert default_openings(20, 20, Rule.FREESTYLE) == builtin_openings(20)
    assert default_openings(15, 15, Rule.CARO) == builtin_openings(15)
