"""Rule positions small enough to check by hand, one group per rule."""
import pytest

from gomoku.engine.game.board import BLACK, WHITE, Board, IllegalMove
from gomoku.engine.game.rules import Rule, parse_rule, rule_from_piskvork

DIRS = [(1, 0), (0, 1), (1, 1), (1, -1)]


def stones(board: Board, black, white):
    """Play black and white stones alternately (black first), padding with far-away moves."""
    black, white = list(black), list(white)
    assert len(black) in (len(white), len(white) + 1)
    for i, b in enumerate(black):
        board.play(*b)
        if i < len(white):
            board.play(*white[i])
    return board


def line(x, y, dx, dy, n):
    return [(x + i * dx, y + i * dy) for i in range(n)]


@pytest.mark.parametrize("rule", list(Rule))
@pytest.mark.parametrize("d", DIRS)
def test_five_wins_every_direction(rule, d):
    dx, dy = d
    x0, y0 = (3, 7) if dy >= 0 else (3, 11)
    black = line(x0, y0, dx, dy, 4)
    white = [(0, 0), (0, 2), (0, 4), (0, 6)]
    b = stones(Board(15, rule=rule), black, white)
    last = (x0 + 4 * dx, y0 + 4 * dy)
    assert b.would_win(*last)
    b.play(*last)
    assert b.winner == BLACK


@pytest.mark.parametrize("rule", list(Rule))
def test_five_at_the_edges(rule):
    b = stones(Board(15, rule=rule), [(14, 10), (14, 11), (14, 12), (14, 13)], [(0, 0), (2, 0), (4, 0), (6, 0)])
    b.play(14, 14)
    assert b.winner == BLACK
    # corner diagonal
    b = stones(Board(15, rule=rule), [(0, 0), (1, 1), (2, 2), (3, 3)], [(9, 0), (11, 0), (13, 0), (9, 2)])
    b.play(4, 4)
    assert b.winner == BLACK


def test_freestyle_overline_wins_standard_does_not():
    black = [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)]
    white = [(0, 0), (0, 2), (0, 4), (0, 6), (0, 8)]
    for rule, wins in [(Rule.FREESTYLE, True), (Rule.STANDARD, False), (Rule.CARO, True), (Rule.CARO_EXACT, False)]:
        b = Board(15, rule=rule)
        stones(b, black, white[:4])
        b.play(*white[4])
        assert b.would_win(5, 7) is wins, rule
        b.play(5, 7)
        assert (b.winner == BLACK) is wins, rule


def test_standard_exact_five_next_to_gap():
    # x x x x . x : completing at the gap makes six -> no win; the other end makes five
    b = Board(15, rule=Rule.STANDARD)
    stones(b, [(3, 5), (4, 5), (5, 5), (6, 5), (8, 5)], [(0, 0), (0, 2), (0, 4), (0, 6)])
    b.play(0, 8)
    assert not b.would_win(7, 5)
    assert b.would_win(2, 5)


def test_caro_five_blocked_both_ends_is_no_win():
    # o x x x x . o  -> x at the gap is blocked at both ends by white: no win in caro
    for rule in (Rule.CARO, Rule.CARO_EXACT):
        b = Board(15, rule=rule)
        stones(b, [(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7), (8, 7), (0, 0), (0, 2)])
        assert not b.would_win(7, 7)
        b.play(7, 7)
        assert b.winner == 0
    # the same in freestyle wins
    b = Board(15, rule=Rule.FREESTYLE)
    stones(b, [(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7), (8, 7), (0, 0), (0, 2)])
    assert b.would_win(7, 7)


def test_caro_edge_does_not_block():
    # five against the board edge with a white stone at the other end still wins in caro
    b = Board(15, rule=Rule.CARO_EXACT)
    stones(b, [(0, 3), (1, 3), (2, 3), (3, 3)], [(5, 3), (9, 9), (9, 11), (9, 13)])
    assert b.would_win(4, 3)


def test_caro_blocked_one_end_wins():
    b = Board(15, rule=Rule.CARO)
    stones(b, [(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7), (0, 0), (0, 2), (0, 4)])
    assert b.would_win(7, 7)


def test_renju_white_overline_wins_black_overline_is_foul():
    b = Board(15, rule=Rule.RENJU)
    # white: o o . o o o at row 9 ; white completing makes six and wins
    stones(b, [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (10, 0)], [(3, 9), (4, 9), (6, 9), (7, 9), (8, 9)])
    assert b.to_move == WHITE
    assert b.would_win(5, 9)
    # black: x x . x x x -> overline point is forbidden, and not a win
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(3, 9), (4, 9), (6, 9), (7, 9), (8, 9)], [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)])
    assert b.to_move == BLACK
    assert not b.would_win(5, 9)
    assert b.is_forbidden(5, 9)
    assert (5, 9) not in b.legal_moves()


def test_renju_double_three_forbidden():
    # black stones making two open threes through (7,7): (6,7),(8,7)? use split: (5,7),(6,7) and (7,5),(7,6)
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(5, 7), (6, 7), (7, 5), (7, 6)], [(0, 0), (2, 0), (4, 0), (14, 14)])
    assert b.to_move == BLACK
    assert b.is_forbidden(7, 7)
    # the same shape is fine for white (white has no fouls) and in freestyle
    f = Board(15, rule=Rule.FREESTYLE)
    stones(f, [(5, 7), (6, 7), (7, 5), (7, 6)], [(0, 0), (2, 0), (4, 0), (14, 14)])
    assert 7 * 0 == 0 and (7, 7) in f.legal_moves()


def test_renju_double_four_forbidden_and_four_three_allowed():
    # double four: row x x x . and column x x x . meeting at (7,7)
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)], [(3, 7), (7, 3), (0, 0), (2, 0), (4, 0), (14, 14)])
    assert b.is_forbidden(7, 7)
    # four-three: row four (blocked) + column open three is allowed
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)], [(3, 7), (0, 0), (2, 0), (4, 0), (14, 14)])
    assert not b.is_forbidden(7, 7)


def test_renju_double_four_on_one_line():
    # x . x [x] x . x : playing the centre makes two fours in one row (fill 4 or 8)
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(3, 7), (5, 7), (7, 7), (9, 7)], [(0, 0), (2, 0), (4, 0), (14, 14)])
    assert b.is_forbidden(6, 7)
    # x x x . [x] . x x x : the same with longer arms
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(2, 7), (3, 7), (4, 7), (8, 7), (9, 7), (10, 7)], [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (14, 14)])
    assert b.is_forbidden(6, 7)


def test_renju_false_three_not_counted():
    # Double-three at (7,7): row three (5,7),(6,7) and column three (7,5),(7,6), but the row
    # three can only become a straight four through points that are themselves fouls?
    # Simpler hand case: a "three" blocked so it cannot become a straight four is not a three.
    b = Board(15, rule=Rule.RENJU)
    # row: o . x x [7,7] . . with white at (4,7): (5,7),(6,7),(7,7) -> o at 4 and empty 8,9:
    # o x x x . . is not open (one side blocked) -> not a three; column is a real three.
    stones(b, [(5, 7), (6, 7), (7, 5), (7, 6)], [(4, 7), (0, 0), (2, 0), (14, 14)])
    assert not b.is_forbidden(7, 7)


def test_renju_three_whose_completion_is_a_foul_is_false():
    # Build a position where (4,7) is blocked by white and (8,7) is a double-four foul.
    b = Board(15, rule=Rule.RENJU)
    black = [(5, 7), (6, 7), (7, 5), (7, 6), (8, 4), (8, 5), (8, 6), (11, 4), (10, 5), (9, 6)]
    white = [(4, 7), (8, 3), (12, 3), (0, 0), (2, 0), (4, 0), (6, 0), (0, 14), (2, 14)]
    stones(b, black, white)
    # with (7,7) black: row x x x with 4,7 white -> only completion is (8,7) side: o x x x . .
    # so the row is not an open three anyway; the column is. -> at most one three -> legal
    assert not b.is_forbidden(7, 7)
    # (8,7) itself: column 8,4..8,7 four (8,3 white -> blocked four) + diagonal 11,4 10,5 9,6 8,7
    # (12,3 white) blocked four -> two fours -> foul
    assert b.is_forbidden(8, 7)


def test_occupied_and_off_board_are_refused():
    b = Board(9)
    b.play(4, 4)
    with pytest.raises(IllegalMove):
        b.play(4, 4)
    with pytest.raises(IllegalMove):
        b.play(9, 0)
    with pytest.raises(IllegalMove):
        b.play(-1, 0)


def test_undo_and_side_to_move():
    b = Board(9)
    assert b.to_move == BLACK
    b.play(4, 4)
    assert b.to_move == WHITE and b.last_move == (4, 4)
    assert b.undo() == (4, 4)
    assert b.to_move == BLACK and b.move_count == 0
    with pytest.raises(IllegalMove):
        b.undo()


def test_rectangular_and_small_boards():
    b = Board(8, 6)
    for x in range(4):
        b.play(x, 5)
        b.play(x, 0)
    b.play(4, 5)
    assert b.winner == BLACK
    with pytest.raises(ValueError):
        Board(4)
    with pytest.raises(ValueError):
        Board(23)
    Board(22)


def test_block_cell():
    b = Board(15)
    b.block(7, 8)
    with pytest.raises(IllegalMove):
        b.play(7, 8)
    assert (7, 8) not in b.legal_moves()


def test_rule_names():
    assert rule_from_piskvork(0) == Rule.FREESTYLE
    assert rule_from_piskvork(1) == Rule.STANDARD
    assert rule_from_piskvork(4) == Rule.RENJU
    assert rule_from_piskvork(2) == Rule.RENJU
    assert rule_from_piskvork(8) == Rule.CARO
    assert rule_from_piskvork(9) == Rule.CARO_EXACT
    assert parse_rule("renju") == Rule.RENJU
    assert parse_rule("9") == Rule.CARO_EXACT
    with pytest.raises(ValueError):
        parse_rule("chess")


def test_renju_false_three_whose_completions_are_fouls():
    # (7,7) would make a row three (5,7),(6,7),(7,7) and a column three (7,5),(7,6),(7,7).
    # The row three can only become a straight four at (4,7) or (8,7), and each of those is a
    # double-four foul (row four + blocked column four at x=4 / x=8). So the row three is
    # false, only one real three remains, and (7,7) is legal.
    black = [(5, 7), (6, 7), (7, 5), (7, 6), (8, 4), (8, 5), (8, 6), (4, 4), (4, 5), (4, 6)]
    white = [(8, 3), (4, 3), (0, 0), (2, 0), (0, 14), (2, 14), (14, 0), (14, 2), (14, 14), (12, 14)]
    b = stones(Board(15, rule=Rule.RENJU), black, white)
    assert b.to_move == BLACK
    assert not b.is_forbidden(7, 7)
    # control: without the x=8 and x=4 shapes the same 3-3 is a foul
    b2 = stones(Board(15, rule=Rule.RENJU), black[:4], white[2:6])
    assert b2.is_forbidden(7, 7)


def test_recursive_forbidden_check_has_one_signature():
    # numba issue 6061: a literal-int call would add a second signature that can segfault
    # when loaded back from the cache.
    from gomoku.engine.game import core
    b = Board(15, rule=Rule.RENJU)
    stones(b, [(5, 7), (6, 7), (7, 5), (7, 6)], [(0, 0), (2, 0), (4, 0), (14, 14)])
    import numpy as np
    assert b.is_forbidden(7, 7)
    st = b.state
    assert core.is_forbidden_at(st.cells, st.steps, np.int64(b.index(7, 7)), np.int64(0))
    sigs = core.is_forbidden_at.signatures
    assert len(sigs) == 1 and "Literal" not in str(sigs)


def test_renju_four_three_three_is_a_foul():
    # (7,7): row four (4..7, blocked by white at 3,7) + column three + diagonal three = 4-3-3
    black = [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6), (8, 8), (9, 9)]
    white = [(3, 7), (0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (14, 14)]
    b = stones(Board(15, rule=Rule.RENJU), black, white)
    assert b.is_forbidden(7, 7)


def test_a_foul_is_named_by_its_kind():
    """The words play refuses a point with and a review names a foul by."""
    far = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (10, 0), (14, 14)]
    b = stones(Board(15, rule=Rule.RENJU), [(3, 9), (4, 9), (6, 9), (7, 9), (8, 9)], far[:5])
    assert b.foul_kind(5, 9) == "overline"
    b = stones(Board(15, rule=Rule.RENJU), [(5, 7), (6, 7), (7, 5), (7, 6)], far[:4])
    assert b.foul_kind(7, 7) == "double-three"
    b = stones(Board(15, rule=Rule.RENJU), [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
               [(3, 7), (7, 3)] + far[:4])
    assert b.foul_kind(7, 7) == "double-four"
    b = stones(Board(15, rule=Rule.RENJU), [(3, 7), (5, 7), (7, 7), (9, 7)], far[:4])
    assert b.foul_kind(6, 7) == "double-four"                      # two fours on one line
    b = stones(Board(15, rule=Rule.RENJU), [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6), (8, 8), (9, 9)],
               [(3, 7)] + far[:6])
    assert b.foul_kind(7, 7) == "double-three"                     # four-three-three
    b = stones(Board(15, rule=Rule.RENJU), [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)], [(3, 7)] + far[:4])
    assert b.foul_kind(7, 7) is None                               # four-three is allowed
    assert stones(Board(15), [(5, 7), (6, 7), (7, 5), (7, 6)], far[:4]).foul_kind(7, 7) is None
