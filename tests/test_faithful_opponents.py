"""The papers' own opponents: AlphaZero_Gomoku's mcts_pure (`pure-mcts:N,tactics=0`) and an
untrained net (`random-net:arch=ARCH,seed=N`). Cells are flat (y * width + x); black moves first."""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku.engine.match.players import SpecError, make_engine_player, parse_spec
from gomoku.engine.mcts import tree as T
from gomoku.engine.mcts.search import MCTS, MCTSConfig
from gomoku.tools.cli import main

HAS_TORCH = importlib.util.find_spec("torch") is not None


def cell(x: int, y: int, w: int = 9) -> int:
    return y * w + x


# 9x9: black a1 b1 c1 d1 on the top row, white below it: black to move wins at e1
BLACK_FOUR = [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1), cell(2, 0), cell(2, 1), cell(3, 0), cell(6, 6)]
# the same without white's last move: white to move must block at e1
WHITE_MUST_BLOCK = BLACK_FOUR[:-1]


def root_children(m: MCTS) -> np.ndarray:
    f = m.forest
    r = int(f.root[0])
    first, n = int(f.first[r]), int(f.nchild[r])
    return np.asarray(f.flat[f.move[first:first + n]])


@pytest.mark.parametrize("moves", [BLACK_FOUR, WHITE_MUST_BLOCK], ids=["win-in-one", "lone-block"])
def test_with_tactics_the_root_has_one_child_without_it_every_empty_cell(moves):
    exact = MCTS(9, 9, config=MCTSConfig.pure(8), seed=3)
    exact.sync(moves)
    r = exact.search()
    assert list(root_children(exact)) == [cell(4, 0)] and r.move == cell(4, 0)
    bare = MCTS(9, 9, config=MCTSConfig.pure(8, tactics=False), seed=3)
    bare.sync(moves)
    r = bare.search()
    assert sorted(root_children(bare)) == sorted(set(range(81)) - set(moves))
    assert r.playouts == 8 and r.proven == 0          # nothing is proven, every playout is run
    assert r.visits.sum() == 7                         # the first playout expands the root


def test_without_tactics_a_won_child_is_not_proven_but_wins_through_its_visits():
    """mcts_pure plays e1 only because playouts that reach it score a win every time."""
    m = MCTS(9, 9, config=MCTSConfig.pure(3000, tactics=False), seed=5)
    m.sync(BLACK_FOUR)
    r = m.search()
    f = m.forest
    assert r.proven == 0 and not f.solved[:int(f.used[0])].any()
    assert r.playouts == 3000 and r.move == cell(4, 0)
    assert r.visits[cell(4, 0)] == r.visits.max()


def test_without_tactics_the_tree_is_new_at_every_move_with_tactics_it_is_kept():
    for tactics, kept in ((True, True), (False, False)):
        m = MCTS(9, 9, config=MCTSConfig.pure(200, tactics=tactics), seed=1)
        m.sync([40])
        r = m.search()
        m.sync([40, r.move])
        assert (m.forest.visits[m.forest.root[0]] > 0) == kept


def test_tactics_default_is_one_and_sets_no_param():
    assert MCTSConfig.pure(10).tactics is True
    m = MCTS(9, 9, config=MCTSConfig.pure(10), seed=1)
    assert m.params[T.P_BARE] == 0
    assert MCTS(9, 9, config=MCTSConfig.pure(10, tactics=False), seed=1).params[T.P_BARE] == 1


def test_the_spec_short_form_takes_tactics_after_the_playouts():
    spec = parse_spec("pure-mcts:5000,tactics=0")
    assert spec.options == {"playouts": 5000, "tactics": False} and spec.name == "pure-mcts-5000-t0"
    player = make_engine_player(spec)
    assert player.config.tactics is False and player.config.playouts == 5000 and player.config.c_puct == 5.0
    assert make_engine_player("pure-mcts:100").config.tactics is True
    assert make_engine_player("pure-mcts:playouts=100,tactics=1").config.tactics is True


@pytest.mark.parametrize("text,words", [
    ("pure-mcts:100,tactics=2", "tactics=2 is out of range"),
    ("pure-mcts:100,tactics=no", "tactics must be a number"),
    ("random-net:seed=2", "random-net needs arch=ARCH"),
    ("random-net:arch=b4c32,colour=red", "unknown option 'colour'"),
])
def test_bad_specs_are_one_line(text, words):
    with pytest.raises(SpecError) as err:
        parse_spec(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_random_net_without_torch_is_refused_in_one_line(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(SpecError) as err:
        parse_spec("random-net:arch=cnn3")
    assert "needs torch" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.skipif(not HAS_TORCH, reason="random nets are made with torch (the train extra)")
@pytest.mark.process
def test_random_net_plays_a_match_its_seed_makes_the_net_and_a_bad_arch_is_one_line(tmp_path):
    """Random nets are made by a trainer child process (torch stays out of the match)."""
    with pytest.raises(SpecError) as err:
        parse_spec("random-net:arch=nosuchnet")
    assert "unknown architecture 'nosuchnet'" in str(err.value) and "\n" not in str(err.value)
    cache = tmp_path / "nets"
    env = dict(os.environ, GOMOKU_RANDOM_NETS=str(cache))
    js = tmp_path / "r.json"
    p = CliRunner().invoke(main, ["match", "random-net:arch=cnn3,seed=3,playouts=16", "random", "--size", "6",
                                  "-n", "2", "-t", "0", "-o", "none", "--json", str(js)], env=env)
    assert p.exit_code == 0, p.output
    assert json.loads(js.read_text())["games"] == 2
    assert "Score of random-cnn3-seed3 vs random: " in p.stdout
    assert [f.name for f in cache.iterdir()] == ["cnn3-seed3-6x6-k5-p2-freestyle.onnx"]
    # the same seed makes the same net, another seed another one
    from gomoku.engine.match.random_net import net_path
    from gomoku.engine.net.evaluator import NetEvaluator
    os.environ["GOMOKU_RANDOM_NETS"] = str(tmp_path / "again")
    try:
        paths = [net_path("cnn3", s, 6, 6, 5, 2, 0) for s in (3, 4)]
    finally:
        del os.environ["GOMOKU_RANDOM_NETS"]
    planes = np.zeros((1, 6, 6, 6), np.float32)
    planes[:, -1] = 1.0
    first, again, other = (NetEvaluator.load(p).evaluate(planes)[0] for p in
                           (cache / "cnn3-seed3-6x6-k5-p2-freestyle.onnx", *paths))
    assert np.array_equal(first, again) and not np.allclose(first, other)
