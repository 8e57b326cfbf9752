"""The move choice that play and self-play share (engine.mcts.search.choose_move): what is
played on a proven win and in a proven loss, on real positions and on hand-set node counts.
Cells are flat (y * width + x); black (seat 0) moves first."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gomoku.engine.mcts.search import MCTS, MCTSConfig, choose_move
from gomoku.engine.mcts.selfplay import SelfPlayConfig


def cell(x: int, y: int, w: int = 9) -> int:
    return y * w + x


def _interleave(black: list[int], white: list[int]) -> list[int]:
    return [m for pair in zip(black, white) for m in pair] + black[len(white):]


# black c5 d5 e5 (an open three in the middle row), white in three corners: black to move
# wins by force with b5 or f5, each an open four that white cannot block at both ends
OPEN_THREE = _interleave([cell(2, 4), cell(3, 4), cell(4, 4)], [cell(0, 0), cell(8, 0), cell(0, 8)])
OPEN_FOURS = {cell(1, 4), cell(5, 4)}
# white a1-d1 and a9-d9: two fours, each won at e1 / e9; black to move can block one only
TWO_FOURS = _interleave([cell(6, 2), cell(6, 4), cell(6, 6), cell(8, 3), cell(2, 4), cell(4, 6), cell(2, 6),
                         cell(8, 5)],
                        [cell(0, 0), cell(1, 0), cell(2, 0), cell(3, 0), cell(0, 8), cell(1, 8), cell(2, 8),
                         cell(3, 8)])
BLOCKS = {cell(4, 0), cell(4, 8)}


def _node_counts(solved, visits, prior=None) -> SimpleNamespace:
    n = len(solved)
    prior = np.full(n, 1.0 / n, np.float32) if prior is None else np.asarray(prior, np.float32)
    return SimpleNamespace(solved=np.asarray(solved, np.int8), visits=np.asarray(visits, np.int32), prior=prior)


@pytest.mark.parametrize("temperature, move_noise", [(0.0, 0.0), (1.0, 0.0), (1.0, 0.5)])
def test_a_proven_win_is_played_at_once_as_the_most_visited_winning_move(temperature, move_noise):
    """Children 1 and 3 win by force (solved -1 for the opponent): the most visited of them is
    played, whatever the temperature or move noise; with equal visits the first."""
    rng = np.random.default_rng(0)
    kids = np.arange(4)
    f = _node_counts([0, -1, 0, -1], [50, 3, 40, 7])
    assert {choose_move(f, kids, rng, temperature, move_noise) for _ in range(20)} == {3}
    f = _node_counts([0, -1, 0, -1], [50, 7, 40, 7])
    assert choose_move(f, kids, rng, temperature, move_noise) == 1


def test_when_every_move_is_lost_they_are_chosen_among_as_usual():
    """Every child loses by force: none is set apart, so temperature 0 plays the most visited,
    the longest resistance the search found (ties: the higher prior), and temperature 1 draws
    by visits, as in a position nobody has solved."""
    rng = np.random.default_rng(0)
    kids = np.arange(3)
    f = _node_counts([1, 1, 1], [5, 9, 2])
    assert choose_move(f, kids, rng) == 1
    drawn = [choose_move(f, kids, rng, temperature=1.0) for _ in range(300)]
    assert set(drawn) == {0, 1, 2} and drawn.count(1) > drawn.count(0) > drawn.count(2)
    f = _node_counts([1, 1, 1], [4, 4, 0], prior=[0.2, 0.7, 0.1])
    assert choose_move(f, kids, rng) == 1


@pytest.mark.parametrize("playouts", [1000, 3000])
def test_the_open_three_is_won_with_an_open_four(playouts):
    m = MCTS(9, 9, config=MCTSConfig.pure(playouts), seed=2)
    m.sync(OPEN_THREE)
    res = m.search()
    assert res.proven == 1 and res.value == 1.0
    assert res.move in OPEN_FOURS


def test_facing_two_fours_the_lost_side_still_blocks_one():
    """The root is lost by force as soon as it is expanded (two winning cells for white), before
    any child is visited: the move is a block (both blocks are the only children), not a
    random cell."""
    for noise in (0.0, 0.5):
        m = MCTS(9, 9, config=MCTSConfig.pure(200, move_noise=noise), seed=3)
        m.sync(TWO_FOURS)
        res = m.search()
        assert res.proven == -1 and res.value == -1.0
        assert res.move in BLOCKS


def test_self_play_searches_and_chooses_as_play_does():
    """A self-play tree and a player's tree, given the same position, seed and settings (root
    noise off, temperature 0), grow the same visits and choose the same move: one code path."""
    from gomoku.engine.mcts.selfplay import _SelfPlay
    moves = [cell(4, 4), cell(3, 3), cell(5, 4)]
    cfg = SelfPlayConfig(width=9, height=9, playouts=300, parallel_games=1, c_puct=5.0, fpu=0.0)
    run = _SelfPlay(None, cfg, 1, seed=4)
    run.search.set_position(0, moves)
    run.search.new_tree(0, noise=False)
    run.search.run(np.zeros(1, np.int64), np.array([cfg.playouts]))
    selfplay = run.search.result(0, temperature=0.0)
    m = MCTS(9, 9, config=MCTSConfig.pure(300), seed=4)
    m.sync(moves)
    play = m.search()
    assert play.visits.sum() > 0 and np.array_equal(selfplay.visits, play.visits)
    assert selfplay.move == play.move and selfplay.value == pytest.approx(play.value)
