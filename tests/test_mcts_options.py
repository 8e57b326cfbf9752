"""Two options of the MCTS search: flat Monte Carlo (no tree below the root) and Dirichlet
noise on the move distribution. Cells are flat (y * width + x); black (seat 0) moves first."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gomoku.engine.match.players import SpecError, make_engine_player, parse_spec
from gomoku.engine.mcts.search import MCTS, MCTSConfig, choose_move

from cli_runner import gomoku



def cell(x: int, y: int, w: int = 9) -> int:
    return y * w + x


# 9x9: black a1 b1 c1 d1 on the top row, white below it: black to move wins at e1
BLACK_FOUR = [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1), cell(2, 0), cell(2, 1), cell(3, 0), cell(6, 6)]
# the same without white's last move: white to move must block at e1
WHITE_MUST_BLOCK = BLACK_FOUR[:-1]


def flat(playouts: int = 300, **kw) -> MCTSConfig:
    return MCTSConfig.pure(playouts, select="flat", radius=2, **kw)


def test_flat_takes_the_immediate_win():
    m = MCTS(9, 9, config=flat(), seed=1)
    m.sync(BLACK_FOUR)
    r = m.search()
    assert r.move == cell(4, 0) and r.proven == 1


def test_flat_blocks_a_lone_four():
    m = MCTS(9, 9, config=flat(), seed=1)
    m.sync(WHITE_MUST_BLOCK)
    r = m.search()
    assert r.move == cell(4, 0)
    assert np.count_nonzero(r.visits) == 1


def test_flat_grows_no_tree_below_the_root_and_spreads_playouts_evenly():
    m = MCTS(9, 9, config=flat(400), seed=3)
    m.sync([cell(4, 4), cell(5, 5)])
    r = m.search()
    f = m.forest
    root = int(f.root[0])
    kids = int(f.nchild[root])
    assert f.used[0] == 1 + kids                     # the root and its children, nothing deeper
    tried = r.visits[r.visits > 0]
    assert tried.size == kids and tried.max() - tried.min() <= 1      # round robin
    # the move played is the best mean, not necessarily the most tried
    first = int(f.first[root])
    means = f.wsum[first:first + kids, 0] / f.visits[first:first + kids]
    assert r.move == int(f.flat[f.move[first + int(np.argmax(means))]])


def test_flat_refuses_a_net():
    class Net:
        class info:
            @staticmethod
            def check_game(*a, **k):
                pass
    with pytest.raises(ValueError, match="rollouts"):
        MCTS(9, 9, config=flat(), evaluator=Net(), seed=0)


def _draws(move_noise: float, n: int = 300) -> tuple[Counter, np.ndarray, int]:
    m = MCTS(9, 9, config=MCTSConfig.pure(20, move_noise=move_noise), seed=5)
    m.sync([cell(4, 4)])
    r = m.search()
    f = m.forest
    root = int(f.root[0])
    kids = np.arange(int(f.first[root]), int(f.first[root]) + int(f.nchild[root]))
    picks = Counter(int(f.flat[f.move[choose_move(f, kids, m.rng, move_noise=move_noise)]]) for _ in range(n))
    return picks, r.visits, r.move


def test_move_noise_off_keeps_the_most_visited_move():
    picks, visits, move = _draws(0.0)
    assert list(picks) == [move] and visits[move] == visits.max()
    # the same search without the field at all: the same move and visits
    m = MCTS(9, 9, config=MCTSConfig.pure(20), seed=5)
    m.sync([cell(4, 4)])
    r = m.search()
    assert r.move == move and np.array_equal(r.visits, visits)


def test_move_noise_can_play_an_unvisited_move():
    picks, visits, move = _draws(0.5)
    unvisited = sum(c for cell_, c in picks.items() if visits[cell_] == 0)
    assert unvisited > 0                               # only noise reaches these
    share = picks[move] / sum(picks.values())
    assert 0.4 < share < 0.95                          # (1 - eps) + eps * its noise share
    assert len(picks) > 5


def test_specs_for_flat_mc_and_move_noise():
    s = parse_spec("flat-mc:200")
    assert s.kind == "pure-mcts" and s.name == "flat-mc-200"
    assert s.options["select"] == "flat" and s.options["radius"] == 2
    assert parse_spec("flat-mc:200,radius=1,seed=4").options["radius"] == 1
    assert parse_spec("pure-mcts:100,select=flat").options["select"] == "flat"
    assert parse_spec("pure-mcts:100,temperature=1,move_noise=0.25").options["move_noise"] == 0.25
    assert make_engine_player("pure-mcts:100,draw=-0.3").config.draw_value == -0.3
    for bad in ("pure-mcts:100,move_noise=2", "flat-mc:100,select=puct", "pure-mcts:100,draw=-2"):
        with pytest.raises(SpecError):
            parse_spec(bad)


def test_flat_mc_plays_a_match_through_the_cli(tmp_path):
    # -t 5: a generous clock the 200 playouts end well within (-t 0 leaves one playout a move)
    js = tmp_path / "r.json"
    p = gomoku(["match", "flat-mc:200", "random", "--size", "9", "-n", "2", "-t", "5", "--json", str(js)])
    assert p.returncode == 0, p.stderr
    data = json.loads(js.read_text())
    assert data["games"] == 2
    assert all(r["reason"] in ("five", "full") for r in data["results"])


def test_self_play_move_noise_reaches_unvisited_moves_only_when_on():
    from types import SimpleNamespace
    from gomoku.engine.mcts.selfplay import SelfPlayConfig
    assert SelfPlayConfig(width=9, height=9).move_noise == 0.0
    f = SimpleNamespace(solved=np.zeros(4, np.int8), prior=np.full(4, 0.25, np.float32),
                        visits=np.array([30, 10, 0, 0], np.int32))
    kids = np.arange(4)
    rng = np.random.default_rng(0)
    off = Counter(choose_move(f, kids, rng, temperature=1.0) for _ in range(400))
    on = Counter(choose_move(f, kids, rng, temperature=1.0, move_noise=0.25, noise_alpha=0.3) for _ in range(400))
    assert set(off) <= {0, 1} and off[0] > off[1]
    assert on[2] + on[3] > 0 and on[0] > on[1]


def test_no_proven_loss_is_played_while_an_unproven_move_is_left():
    """The visited moves are all lost by force (solved == 1) and the one with the highest prior
    too; the pick is the unvisited move nobody has proven lost, at any temperature, with
    noise or without."""
    from types import SimpleNamespace
    f = SimpleNamespace(solved=np.array([1, 1, 0, 1], np.int8), prior=np.array([0.5, 0.3, 0.05, 0.15], np.float32),
                        visits=np.array([20, 9, 0, 1], np.int32))
    kids = np.arange(4)
    rng = np.random.default_rng(0)
    assert {choose_move(f, kids, rng, temperature=t) for t in (1.0, 0.0)} == {2}
    assert {choose_move(f, kids, rng, temperature=1.0, move_noise=0.25, noise_alpha=0.3) for _ in range(50)} == {2}


def test_self_play_target_is_the_visit_shares_unless_only_losses_were_visited():
    from types import SimpleNamespace
    from gomoku.engine.mcts.selfplay import _target
    kids = np.arange(4)
    f = SimpleNamespace(solved=np.zeros(4, np.int8), move=np.arange(4), flat=np.array([5, 6, 7, 8]))
    noise_pick = _target(f, kids, np.array([6.0, 4.0, 0.0, 0.0]), 8, 9)     # move noise played cell 8
    assert np.allclose(noise_pick, [0, 0, 0, 0, 0, 0.6, 0.4, 0, 0])
    f.solved = np.array([1, 1, 0, 1], np.int8)
    only_losses = _target(f, kids, np.array([20.0, 9.0, 0.0, 1.0]), 7, 9)
    assert np.allclose(only_losses, np.eye(9)[7])
