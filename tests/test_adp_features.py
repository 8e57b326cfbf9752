"""The ADP critic's pattern features (engine.net.critic) on positions counted by hand, and the
one-ply choice its player makes."""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.net.critic import (SEVEN_NAMES, afterstates, choose, end_values, feature_names,
                                      position_features)

#: black's open three h8-g8-f8 (x 5..7 on row 7), white's three stones alone in corners
THREE = [(5, 7), (0, 14), (6, 7), (14, 14), (7, 7), (14, 0)]


def thirty(board: Board) -> dict[str, tuple[float, float]]:
    """The 30 set as {pattern: (own count, other count)}, its role columns checked on the way."""
    f = position_features(board, 30)
    black = 1.0 if board.to_move == 1 else 0.0
    assert f.shape == (30,)
    assert list(f[2:28:4]) == [black] * 7 and list(f[3:28:4]) == [1 - black] * 7
    assert list(f[28:]) == [black, 1 - black]
    return {name: (float(f[4 * k]), float(f[4 * k + 1])) for k, name in enumerate(SEVEN_NAMES)}


def test_an_open_three_counted_by_hand_for_the_side_to_move():
    # Black to move with an open three on row 7 (x 5..7). Along that row a black stone at x 4
    # or 8 makes an open four (F4: two cells would then complete five), at x 3 or 9 a four
    # (B4: 3,5,6,7 or 5,6,7,9, one completion each), at x 2 or 10 a three one move from a four
    # (B3). No column or diagonal holds two black stones, so nothing makes an open three (F3)
    # and nothing completes five. White's lone corner stones make nothing from B3 up.
    c = thirty(Board.from_moves(15, THREE))
    for name, black in (("F5", 0), ("F4", 2), ("B4", 2), ("F3", 0), ("B3", 2)):
        assert c[name] == (black, 0), name


def test_the_same_position_with_white_to_move_swaps_own_and_other():
    c = thirty(Board.from_moves(15, THREE[:5]))          # white's last corner stone not yet played
    for name, black in (("F5", 0), ("F4", 2), ("B4", 2), ("F3", 0), ("B3", 2)):
        assert c[name] == (0, black), name


def test_a_four_is_one_cell_that_completes_five():
    # black x 3..6 on row 7, blocked by white at x 2: only x 7 completes five (F5 1); white to move
    moves = [(3, 7), (2, 7), (4, 7), (0, 14), (5, 7), (14, 14), (6, 7)]
    b = Board.from_moves(15, moves)
    c = thirty(b)
    assert c["F5"] == (0, 1)
    f = position_features(b, 274)
    names = feature_names(274)
    assert f.shape == (274,) and len(names) == 274
    assert list(f[:2]) == [0.0, 1.0]                     # white to move
    # the other side's FIVE class (one cell) as its eight nodes: >= 1, then nothing
    at = names.index("other FIVE >= 1")
    assert list(f[at:at + 8]) == [1, 0, 0, 0, 0, 0, 0, 0]
    assert f[names.index("own FIVE >= 1")] == 0


def test_afterstates_see_the_open_four_and_the_win():
    b = Board.from_moves(15, THREE)
    cand, feats, ends = afterstates(b, 30)
    cells = [b.coords(int(i)) for i in cand]
    assert len(cells) == len(set(cells)) and all(b.cell(x, y) == 0 for x, y in cells)
    # every candidate is within two of a stone: the 5x5 squares round six stones, less the stones
    assert (4, 7) in cells and (12, 12) in cells and (7, 11) not in cells
    k = cells.index((4, 7))
    # after black's x 4 (an open four, x 4..7) white is to move: "other" is black, whose x 3 and 8 complete five
    assert feats[k][0:2].tolist() == [0, 2]
    assert not ends.any()
    four = Board.from_moves(15, [(3, 7), (2, 7), (4, 7), (0, 14), (5, 7), (14, 14), (6, 7), (14, 0)])
    cand, feats, ends = afterstates(four, 30)
    win = [four.coords(int(i)) for i, e in zip(cand, ends) if e == 1]
    assert win == [(7, 7)]


def test_the_action_network_takes_the_win_and_breaks_ties_to_the_last():
    ends = np.array([0, 1, 0], np.int8)
    v = end_values(ends, 1)
    assert v[1] == 1.0 and np.isnan(v[0]) and np.isnan(v[2])
    assert choose(np.array([0.2, 0.7, 0.7], np.float32), 1) == 2       # black: the highest, last of equals
    assert choose(np.array([0.2, 0.7, 0.2], np.float32), 2) == 2       # white: the lowest, last of equals


def test_an_unknown_feature_set_is_refused():
    with pytest.raises(ValueError, match="30 or 274"):
        position_features(Board(9), 31)
