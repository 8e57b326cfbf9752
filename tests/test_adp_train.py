"""The Fudan paper's learning agents (gomoku.train.adp): the TD update on a two-position example
computed by hand, the exported critic as a player, and `gomoku train --arch adp|adp-er|dqn`
end to end through the command line (tiny runs of seconds)."""
from __future__ import annotations

import json
import math
from typing import Any
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gomoku.engine.game.board import Board                     # noqa: E402
from gomoku.engine.net.critic import critic_move
from gomoku.engine.net.critic_file import CriticNet    # noqa: E402
from gomoku.engine.net.metadata import NetInfo, read_metadata  # noqa: E402
from gomoku.train.adp import Critic, export_critic, td_target, td_update  # noqa: E402

from cli_runner import gomoku as run_gomoku



def hand_net() -> Critic:
    """Two inputs, one hidden unit: h = sigmoid(0.5 x1 - 0.5 x2), V = sigmoid(h)."""
    net = Critic(2, [1])
    with torch.no_grad():
        net.hidden[0].weight[:] = torch.tensor([[0.5, -0.5]])
        net.hidden[0].bias.zero_()
        net.out.weight[:] = torch.tensor([[1.0]])
        net.out.bias.zero_()
    return net


def test_td_update_on_two_positions_computed_by_hand():
    # s = (1, 0), s' = (0, 1), r = 0, gamma 0.9, alpha 0.1:
    #   h(s)  = sigmoid(0.5)  = 0.6224593,  V(s)  = sigmoid(0.6224593) = 0.6507777
    #   h(s') = sigmoid(-0.5) = 0.3775407,  V(s') = sigmoid(0.3775407) = 0.5932798
    #   delta = 0 + 0.9 * 0.5932798 - 0.6507777 = -0.1168259
    #   dV/dw2 = V(1-V) h = 0.2272743 * 0.6224593, dV/db2 = V(1-V),
    #   dV/dw1 = V(1-V) w2 h(1-h) x,  dV/db1 = V(1-V) w2 h(1-h)
    #   w <- w + alpha delta dV/dw:
    #   w2 = 0.9983473, b2 = -0.0026551, w1 = (0.4993761, -0.5), b1 = -0.0006239
    net = hand_net()
    s, s2 = torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])
    target = td_target(net, s2, 0.0, 0.9)
    assert target == pytest.approx(0.9 * 0.5932798, abs=1e-6)
    delta = td_update(net, s, target, 0.1)
    assert delta == pytest.approx(-0.1168259, abs=1e-6)
    assert net.out.weight.item() == pytest.approx(0.9983473, abs=1e-6)
    assert net.out.bias.item() == pytest.approx(-0.0026551, abs=1e-6)
    assert net.hidden[0].weight[0].tolist() == pytest.approx([0.4993761, -0.5], abs=1e-6)
    assert net.hidden[0].bias.item() == pytest.approx(-0.0006239, abs=1e-6)


def test_the_last_move_learns_the_result_with_nothing_after_the_end():
    # s' ends the game with a black win: target r = 1, V past the end counts 0, whatever gamma.
    #   delta = 1 - V(s') = 1 - 0.5932798 = 0.4067202 (here s' = (0, 1) is the position learnt)
    #   w2 = 1 + 0.1 * 0.4067202 * 0.2413000 * 0.3775407 = 1.0037052
    net = hand_net()
    s2 = torch.tensor([0.0, 1.0])
    target = td_target(net, None, 1.0, 0.9)
    assert target == 1.0
    delta = td_update(net, s2, target, 0.1)
    assert delta == pytest.approx(0.4067202, abs=1e-6)
    assert net.out.weight.item() == pytest.approx(1.0037052, abs=1e-6)
    assert net.hidden[0].weight[0].tolist() == pytest.approx([0.5, -0.4976936], abs=1e-6)
    assert math.isclose(net.out.bias.item(), 0.0098141, abs_tol=1e-6)


def _critic_file(tmp_path: Path, size: int = 15) -> str:
    torch.manual_seed(3)
    net = Critic(30, [8])
    info = NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[size], arch="adp-f30-h8",
                   value_head="critic", planes=["features30"], provenance={"test": True})
    path = str(tmp_path / "critic.onnx")
    worst = export_critic(net, path, info)
    assert worst < 1e-4
    return path


def test_an_exported_critic_carries_its_metadata_and_takes_a_win(tmp_path):
    path = _critic_file(tmp_path)
    meta = read_metadata(path)
    assert meta["value_head"] == "critic" and meta["planes"] == "features30" and meta["arch"] == "adp-f30-h8"
    net = CriticNet.load(path)
    assert net.features == 30
    four = Board.from_moves(15, [(3, 7), (2, 7), (4, 7), (0, 14), (5, 7), (14, 14), (6, 7), (14, 0)])
    move, info = critic_move(net, four)
    assert move == (7, 7) and info["score"] == 1.0 and info["depth"] == 1


def test_a_policy_value_loader_refuses_a_critic_in_one_line(tmp_path):
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    path = _critic_file(tmp_path)
    with pytest.raises(NetFormatError, match="ADP critic .* one ply deep"):
        NetEvaluator.load(path)


def gomoku(*args: str, timeout: float = 300) -> Any:
    return run_gomoku(args)


TINY = ["--board", "9", "--games-per-gen", "2", "--hidden", "4", "--no-progress"]


@pytest.mark.parametrize("arch", ["adp", "adp-er", "dqn"])
def test_train_each_agent_exports_a_net_that_match_plays(arch, tmp_path):
    run = tmp_path / arch
    extra = ["--replay-batch", "20", "--buffer", "50"] if arch == "adp-er" else []
    p = gomoku("train", "--arch", arch, "--run", str(run), "--generations", "1", *TINY, *extra)
    assert p.returncode == 0, p.stderr + p.stdout
    assert "generation 1: 2 games" in p.stdout
    recs = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    assert recs[-1]["generation"] == 1 and recs[-1]["games"] == 2
    if arch == "adp-er":
        assert recs[-1]["replay_passes"] >= 1
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["arch"] == arch and cfg["hidden"] == ([4, 4] if arch == "dqn" else [4])
    meta = read_metadata(run / "nets" / "best.onnx")
    assert meta["value_head"] == "critic" and json.loads(meta["provenance"])["generation"] == 1
    # the same command resumes: one more generation, the first one's games kept
    p = gomoku("train", "--arch", arch, "--run", str(run), "--generations", "2", *TINY, *extra)
    assert p.returncode == 0, p.stderr
    assert "resuming" in p.stdout and json.loads((run / "state.json").read_text())["games"] == 4
    m = gomoku("match", str(run / "nets" / "best.onnx"), "random", "-n", "2", "--size", "9", "-t", "0",
               "-o", "none", "--no-progress")
    assert m.returncode == 0, m.stderr
    assert "Score of best vs random" in m.stdout


def test_bad_options_are_one_line_errors(tmp_path):
    p = gomoku("train", "--arch", "dqn", "--features", "274", "--run", str(tmp_path / "q"), *TINY,
               "--generations", "1")
    assert p.returncode == 2 and "dqn is the paper's Q-learning trial on its 30 features" in p.stderr
    p = gomoku("train", "--arch", "adp", "--playouts", "50", "--run", str(tmp_path / "a"), *TINY)
    assert p.returncode == 2 and "--playouts apply to the AlphaZero loop only" in p.stderr
    run = tmp_path / "f"
    assert gomoku("train", "--arch", "adp", "--run", str(run), "--generations", "0", *TINY).returncode == 0
    p = gomoku("train", "--arch", "adp", "--features", "274", "--run", str(run), *TINY, "--generations", "1")
    assert p.returncode == 1 and "this run trains features=30, not 274" in p.stderr
    assert len([ln for ln in p.stderr.splitlines() if ln.strip()]) == 1


def test_a_critic_refuses_search_options_as_a_player(tmp_path):
    path = _critic_file(tmp_path, size=9)
    m = gomoku("match", f"{path}:playouts=100", "random", "-n", "2", "--size", "9", "-t", "0", "-o", "none",
               "--no-progress")
    assert m.returncode != 0 and "an ADP critic plays one ply deep" in m.stderr + m.stdout


def test_the_274_set_trains_and_plays(tmp_path):
    run = tmp_path / "z"
    p = gomoku("train", "--arch", "adp", "--features", "274", "--run", str(run), "--generations", "1", *TINY)
    assert p.returncode == 0, p.stderr
    net = CriticNet.load(run / "nets" / "best.onnx")
    assert net.features == 274 and net.info.arch == "adp-f274-h4"
    assert np.isfinite(net.evaluate(np.zeros((3, 274), np.float32))).all()
    i = gomoku("info", str(run / "nets" / "best.onnx"))
    assert i.returncode == 0 and "adp-f274-h4, 2 players" in i.stdout and "an ADP critic played one ply deep" in i.stdout
    assert "input  features tensor(float) ['B', 274]" in i.stdout


def test_play_answers_with_the_critic(tmp_path):
    path = _critic_file(tmp_path)
    p = run_gomoku(["play", "--opponent", path], input="h8\nquit\n")
    assert p.returncode == 0, p.stderr
    assert "critic played" in p.stdout and "depth 1" in p.stdout
