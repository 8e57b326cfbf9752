"""The one game model: `Game` and `SeatBoard` put the two-seat core board and the n-seat board
behind one face, and judge rows of any length the same way on both."""
from __future__ import annotations

import random

import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.game.nboard import NBoard, NBoardError
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.seats import Game


def _random_game(seed: int, size: int) -> list[tuple[int, int]]:
    cells = [(x, y) for y in range(size) for x in range(size)]
    random.Random(seed).shuffle(cells)
    return cells


@pytest.mark.parametrize("rule,k", [(Rule.FREESTYLE, 4), (Rule.FREESTYLE, 5), (Rule.STANDARD, 5),
                                    (Rule.CARO_EXACT, 5)])
def test_two_seats_on_the_core_and_on_the_cells_see_the_same_wins(rule, k):
    """Two seats play on `Board` (five judged by the core, other lengths by a line scan);
    the n-seat board judges every length by the scan. Random games must end on the same move
    with the same winner on both. (Caro is left out: the core counts an overline closed at
    both ends as a win, the scan does not; the two-seat referee keeps the core's verdict.)"""
    ended = 0
    for seed in range(12):
        two = Game(8, 8, 2, k, rule).board()
        ref = NBoard(8, 8, 2, k, rule)
        for x, y in _random_game(seed, 8):
            assert two.to_move == ref.to_move
            won = two.play(x, y)
            assert won == ref.play(x, y), (seed, x, y, list(ref.moves))
            if won:
                assert two.winner == ref.winner
                ended += 1
                break
        assert isinstance(two.board, Board) and two.moves == ref.moves
    assert ended >= 6      # most random games on 8x8 end in a row: the comparison saw wins


def test_more_seats_play_on_the_n_seat_board():
    g = Game(6, 6, 3, 4)
    b = g.board([(0, 0), (1, 0), (2, 0)])
    assert isinstance(b.board, NBoard) and b.to_move == 0 and b.cell(1, 0) == 2
    for x, y in [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)]:
        assert not b.play(x, y)
    assert b.play(0, 3) and b.winner == 0 and b.win_line == 4 and b.game_over
    view = b.view()
    assert isinstance(view, NBoard) and view.moves == b.moves and view is not b.board


def test_two_seats_to_four_keep_the_core_board_and_win_by_four():
    b = Game(9, 9, 2, 4).board()
    for x, y in [(0, 0), (0, 8), (1, 0), (1, 8), (2, 0), (2, 8)]:
        assert not b.play(x, y)
    assert b.play(3, 0) and b.winner == 0 and b.win_line == 4
    assert b.board.winner == 0          # the core, judging five only, has not seen it


def test_an_exact_five_still_ends_a_two_seat_game_to_four():
    """Under an exact rule a five is no four, but the core has always called it a win in a
    two-seat game (the referee's verdict "by five"): the model keeps that."""
    b = Game(9, 9, 2, 4, Rule.STANDARD).board([(0, 0), (0, 8), (1, 0), (1, 8), (3, 0), (3, 8), (4, 0), (4, 8)])
    assert b.play(2, 0) and b.winner == 0 and b.win_line == 5


def test_five_on_the_core_is_the_core_s_verdict():
    b = Game(9, 9).board([(0, 0), (0, 8), (1, 0), (1, 8), (2, 0), (2, 8), (3, 0), (3, 8)])
    assert b.play(4, 0) and b.winner == 0 and b.win_line == 5


def test_renju_fouls_are_for_black_with_two_seats_only():
    foul = [(6, 8), (0, 0), (7, 8), (0, 2), (8, 6), (0, 4), (8, 7), (0, 6)]   # black's 8,8: two open threes
    b = Game(15, 15, 2, 5, Rule.RENJU).board(foul)
    assert b.is_foul(8, 8) and Board.from_moves(15, foul, Rule.RENJU).is_forbidden(8, 8)
    b.play(14, 14)
    assert not b.is_foul(8, 8)            # white to move: no foul for white


def test_games_no_board_can_play_are_refused_in_one_line():
    with pytest.raises(NBoardError, match="is for two players"):
        Game(8, 8, 3, 5, Rule.RENJU).check()
    with pytest.raises(NBoardError, match="players must be"):
        Game(8, 8, 5).check()
    Game(15, 15, 2, 5, Rule.RENJU).check()
