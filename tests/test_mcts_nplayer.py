"""Three-player MCTS on the k-in-a-row board: seats move in turn (0, 1, 2, 0, ...)."""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.mcts import tree as T
from gomoku.engine.game.cells import direction_steps, flat_to_padded, new_cells, wins_at
from gomoku.engine.mcts.search import MCTS, MCTSConfig


@pytest.mark.parametrize("seat", [0, 1, 2])
@pytest.mark.parametrize("dx,dy", [(1, 0), (0, 1), (1, 1), (1, -1)])
def test_wins_are_detected_for_each_player_in_each_direction(seat, dx, dy):
    w = 8
    cells = new_cells(w, w, 3)
    pad = flat_to_padded(w, w)
    line = [(2 + i * dx, 3 + i * dy) for i in range(4)]
    for x, y in line:
        cells[pad[y * w + x]] = seat + 1
    steps = direction_steps(w)
    x, y = line[1]
    assert wins_at(cells, steps, pad[y * w + x], seat + 1, 4, 0, 3)
    assert not wins_at(cells, steps, pad[y * w + x], seat + 1, 5, 0, 3)
    other = (seat + 1) % 3 + 1
    assert not wins_at(cells, steps, pad[y * w + x], other, 4, 0, 3)


def test_outcome_values_sum_to_zero():
    out = np.zeros(3)
    T.outcome_values(1, 3, 0.0, out)
    assert list(out) == [-0.5, 1.0, -0.5] and out.sum() == 0
    T.value_from_logits(np.array([5.0, 0.0, 0.0, 0.0]), 2, 3, 0.0, out)   # seat 2 to move, near-certain win
    assert out[2] > 0.9 and out.sum() == pytest.approx(0.0, abs=1e-9)


def test_three_player_mcts_takes_its_own_win():
    w = 8
    # seat 0 has three in a row on row 0 (four in a row wins); seats 1 and 2 elsewhere
    moves = [0, 8 * 3 + 0, 8 * 5 + 0, 1, 8 * 3 + 2, 8 * 5 + 2, 2, 8 * 3 + 4, 8 * 5 + 4]
    m = MCTS(w, w, win_length=4, players=3, config=MCTSConfig.pure(300), seed=1)
    m.sync(moves)
    assert m.search().move == 3


def test_three_player_mcts_blocks_the_next_players_win():
    w = 8
    # seat 1 (next after seat 0) has three on row 3 with one open end at d4; seat 0 to move
    moves = [8 * 6 + 6, 8 * 3 + 0, 8 * 7 + 7, 8 * 6 + 1, 8 * 3 + 1, 8 * 7 + 3, 8 * 6 + 4, 8 * 3 + 2, 8 * 0 + 7]
    m = MCTS(w, w, win_length=4, players=3, config=MCTSConfig.pure(500), seed=2)
    m.sync(moves)
    r = m.search()
    assert r.move == 8 * 3 + 3
    assert np.count_nonzero(r.visits) == 1


def test_three_player_backup_credits_each_seat():
    w = 6
    m = MCTS(w, w, win_length=4, players=3, config=MCTSConfig.pure(400), seed=3)
    m.sync([])
    m.search()
    f = m.forest
    root = int(f.root[0])
    # every backed-up value sums to zero over the seats, so the sums do too
    assert abs(float(f.wsum[root].sum())) < 1e-2 * f.visits[root]
