"""Pure parts of the brain: line splitting, command parsing, positions, fallback moves."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from gomoku.engine.game.rules import Rule
from gomoku.protocol.commands import (LineSplitter, ascii_text, parse_coord, parse_field, parse_info,
                                      parse_int, parse_line, parse_size)
from gomoku.protocol.fallback import cheap_move
from gomoku.protocol.position import Position, PositionError


def test_splitter_line_endings():
    s = LineSplitter()
    assert s.feed(b"A\r\nB\nC\rD") == ["A", "B", "C"]
    assert s.feed(b"\r") == ["D"]
    assert s.feed(b"\nE\n") == ["E"]          # the LF after a chunk-final CR is not a new line
    assert s.feed(b"\n") == [""]               # but a second LF is an (empty) line


def test_splitter_caps_long_lines_and_decodes_badly_encoded_bytes():
    s = LineSplitter(max_line=10)
    out = s.feed(b"A" * 100_000 + b"\nSTART 15\n\xff\xfe\n")
    assert out[0] == "A" * 10 and out[1] == "START 15"
    assert "\ufffd" in out[2]
    assert s.flush() == []
    s.feed(b"tail")
    assert s.flush() == ["tail"]


@given(st.lists(st.binary(max_size=30), max_size=20))
def test_splitter_chunking_does_not_matter(chunks):
    data = b"".join(chunks)
    whole = LineSplitter()
    expected = whole.feed(data) + whole.flush()
    parts = LineSplitter()
    got = []
    for c in chunks:
        got += parts.feed(c)
    got += parts.flush()
    assert got == expected


def test_parse_line():
    assert parse_line("  turn  7, 8 ").name == "TURN"
    assert parse_line("  turn  7, 8 ").arg == "7, 8"
    assert parse_line("   ") is None
    assert parse_line("END").arg == ""


def test_coords_and_fields():
    assert parse_coord("7, 8") == (7, 8)
    assert parse_coord(" -1 ,3") == (-1, 3)
    for bad in ("7;7", "7", "", "a,b", "1,2,3", "7,7 x"):
        assert parse_coord(bad) is None
    assert parse_field("1 , 2 , 3") == (1, 2, 3)
    assert parse_field("1,2") is None
    assert parse_size("15") == 15 and parse_size("abc") is None and parse_size("") is None


def test_parse_info_keeps_rest_of_line():
    assert parse_info(r"folder C:\Gomocup\my brain dir") == ("folder", r"C:\Gomocup\my brain dir")
    assert parse_info("TIMEOUT_TURN 5") == ("timeout_turn", "5")
    assert parse_info("") == ("", "")
    assert parse_int("-500") == -500 and parse_int("abc") is None


def test_ascii_text():
    assert ascii_text("é\x00ok") == "??ok"
    assert len(ascii_text("x" * 1000, 50)) == 53


def test_position_from_fields_colours_and_errors():
    pos, warn = Position.from_fields(15, 15, [(7, 7, 1), (8, 8, 2), (9, 9, 2)])
    assert pos.to_move == 2 and pos.black == [(8, 8), (9, 9)] and pos.white == [(7, 7)]
    assert warn == []
    pos, warn = Position.from_fields(15, 15, [(7, 7, 1), (7, 7, 2), (3, 3, 4), (99, 1, 1), (8, 8, 2)])
    assert len(warn) == 3 and pos.stone_count == 2
    with pytest.raises(PositionError):
        Position.from_fields(15, 15, [(1, 1, 1), (2, 2, 1)])


def test_position_play_takeback():
    p = Position.empty(15)
    p.play(7, 7)
    p.play(8, 8)
    with pytest.raises(PositionError):
        p.play(7, 7)
    with pytest.raises(PositionError):
        p.takeback(7, 7)                      # black's stone, but white moved last
    p.takeback(8, 8)
    p.takeback(7, 7)
    assert p.stone_count == 0
    with pytest.raises(PositionError):
        Position.empty(4)


def test_fallback_wins_and_blocks():
    p = Position.empty(15)
    for m in [(7, 7), (7, 8), (8, 7), (8, 8), (9, 7), (9, 8), (10, 7)]:
        p.play(*m)
    # white to move: must block black's four
    assert cheap_move(p, Rule.FREESTYLE) in {(6, 7), (11, 7)}
    p.play(0, 0)
    assert cheap_move(p, Rule.FREESTYLE) in {(6, 7), (11, 7)}   # black completes five


def test_fallback_respects_forbidden_and_full_board():
    p = Position.empty(5)
    assert cheap_move(p, Rule.RENJU) == (2, 2)
    assert cheap_move(p, Rule.RENJU, forbidden=lambda x, y: (x, y) == (2, 2)) != (2, 2)
    for y in range(5):
        for x in range(5):
            p.play(x, y) if p.cell(x, y) == 0 else None
    assert cheap_move(p, Rule.FREESTYLE) is None


def _pos(fields):
    return Position.from_fields(15, 15, fields)[0]


def test_fallback_is_rule_aware():
    case36 = [(7, 7, 2), (7, 8, 1), (8, 7, 2), (7, 9, 1), (6, 7, 2), (7, 10, 1), (9, 12, 2), (7, 11, 1),
              (6, 13, 2), (7, 13, 1), (8, 14, 2)]
    assert cheap_move(_pos(case36), Rule.STANDARD) in {(5, 7), (9, 7)}
    assert cheap_move(_pos(case36), Rule.FREESTYLE) == (7, 12)          # six wins in freestyle
    case38 = [(7, 7, 1), (5, 7, 2), (6, 7, 1), (5, 8, 2), (8, 7, 1), (5, 6, 2), (9, 7, 1), (11, 7, 2)]
    for rule in (Rule.CARO, Rule.CARO_EXACT):
        assert cheap_move(_pos(case38), rule) in {(5, 4), (5, 5), (5, 9), (5, 10)}
    assert cheap_move(_pos(case38), Rule.FREESTYLE) == (10, 7)


def test_fallback_avoids_renju_fouls_without_the_engine():
    case37 = [(7, 7, 1), (7, 8, 2), (8, 6, 1), (8, 8, 2), (7, 9, 1), (8, 5, 2), (8, 10, 1), (8, 11, 2)]
    pos = _pos(case37)
    from gomoku.protocol.fallback import maybe_renju_foul
    assert maybe_renju_foul(pos, 6, 8)
    assert cheap_move(pos, Rule.RENJU) != (6, 8)
    p = Position.empty(15)
    for m in [(5, 7), (0, 0), (6, 7), (0, 2), (8, 7), (0, 4), (9, 7), (0, 6)]:
        p.play(*m)
    assert maybe_renju_foul(p, 7, 7) is False       # exactly five: a win, not a foul
    for m in [(10, 7), (1, 1)]:
        p.play(*m)
    assert maybe_renju_foul(p, 4, 7) is False        # 4,5,6 is only a three
    assert maybe_renju_foul(p, 7, 7) is True         # 5..10 with 7,7 = overline


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=40, unique=True))
def test_maybe_foul_agrees_with_board_when_board_says_foul(moves):
    """Conservative: every foul the numba Board sees is also flagged here."""
    pytest.importorskip("numba")
    from gomoku.engine.game.board import Board
    from gomoku.protocol.fallback import maybe_renju_foul
    pos = Position.empty(9)
    b = Board(9, rule=Rule.RENJU)
    for m in moves:
        if b.game_over or b.is_forbidden(*m) and b.to_move == 1:
            break
        b.play(*m)
        pos.play(*m)
    if b.game_over or b.to_move != 1:
        return
    for y in range(9):
        for x in range(9):
            if pos.cell(x, y) == 0 and b.is_forbidden(x, y):
                assert maybe_renju_foul(pos, x, y), (moves, x, y)


def test_info_message_only_for_real_searches():
    from gomoku.protocol.session import _info_message
    assert _info_message({"depth": 0, "nodes": 1}) == []
    assert _info_message({"depth": 1, "nodes": 0, "score": 0}) == []
    (text,) = _info_message({"depth": 7, "score": -35, "nodes": 12345, "time": 0.5, "pv": [(7, 7), (8, 8)]})
    assert text == "depth 7 eval -35 nodes 12345 time 0.50 pv 7,7 8,8"
