"""Self-play games: legal, decided by the rules, with visit distributions to train on."""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.game.cells import direction_steps, flat_to_padded, new_cells, wins_at
from gomoku.engine.mcts.selfplay import SelfPlayConfig, play_games
from gomoku.engine.net.evaluator import NetEvaluator

from netfiles import uniform_net


def _check_game(g, k):
    assert len(set(g.moves.tolist())) == len(g.moves)               # no cell twice
    assert g.policy.shape == (len(g.moves), g.width * g.height)
    rec = g.policy[g.recorded]
    assert np.allclose(rec.sum(axis=1), 1.0, atol=1e-5)
    for t, mv in enumerate(g.moves):
        assert g.policy[t, mv] > 0 or not g.recorded[t]            # the move played was searched
    cells = new_cells(g.width, g.height, g.players)
    pad = flat_to_padded(g.width, g.height)
    steps = direction_steps(g.width)
    for t, mv in enumerate(g.moves):
        seat = t % g.players
        cells[pad[mv]] = seat + 1
        won = wins_at(cells, steps, pad[mv], seat + 1, k, g.rule, g.players)
        assert won == (t == len(g.moves) - 1 and g.winner == seat)
    if g.winner < 0:
        assert len(g.moves) == g.width * g.height


@pytest.mark.parametrize("players", [2, 3])
def test_rollout_selfplay_games_follow_the_rules(players):
    cfg = SelfPlayConfig(width=6, height=6, win_length=4, players=players, playouts=60, parallel_games=3)
    games = play_games(None, cfg, 5, seed=1)
    assert len(games) == 5
    for g in games:
        _check_game(g, 4)


def test_net_selfplay_batches_games_and_caps_playouts(tmp_path):
    net = NetEvaluator.load(uniform_net(str(tmp_path / "u.onnx"), win_length=4, sizes=(6,)))
    cfg = SelfPlayConfig(width=6, height=6, win_length=4, playouts=40, parallel_games=4, full_search_prob=0.5,
                         cheap_playouts=8)
    seen = []
    games = play_games(net, cfg, 6, seed=2, progress=lambda done, moves: seen.append(done))
    assert seen == [1, 2, 3, 4, 5, 6]
    for g in games:
        _check_game(g, 4)
    rec = np.concatenate([g.recorded for g in games])
    assert 0 < rec.mean() < 1                                       # playout cap randomisation
    assert net.calls < net.evals                                    # leaves of several games per call


def test_opening_stones_start_games_from_random_central_stones():
    """--opening-stones: each game starts with 0..N stones in the central 5x5 square, seats in
    turn, with no policy target; the search takes over from there under the same rules."""
    cfg = SelfPlayConfig(width=9, height=9, win_length=4, playouts=60, parallel_games=4, opening_stones=3)
    games = play_games(None, cfg, 12, seed=3)
    centre = {y * 9 + x for y in range(2, 7) for x in range(2, 7)}
    lead = []
    for g in games:
        _check_game(g, 4)
        k = int(np.argmax(g.recorded)) if g.recorded.any() else len(g.moves)
        assert not g.policy[:k].any()
        assert set(g.moves[:k].tolist()) <= centre
        lead.append(k)
    assert set(lead) == {0, 1, 2, 3}, lead
    plain = play_games(None, SelfPlayConfig(width=9, height=9, win_length=4, playouts=60, parallel_games=4), 4, seed=3)
    assert all(g.recorded[0] for g in plain)
