"""The papers' architectures (train.paper_models, train.attention_models) and the -fc heads:
names, shapes on square, odd and non-square boards, the tanh value on the outcome contract and
its loss, export + load + a move by the MCTS player, the board-size refusal of -fc nets, and tiny
`gomoku train` runs of cnn4 and cnn4-fc7."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.engine.net.metadata import NetFormatError, NetInfo, net_fits_game
from gomoku.engine.net.planes import encode_game
from gomoku.train.export import export_model, random_positions
from gomoku.train.models import ArchError, build_model, parse_arch, sized_arch
from gomoku.train.paper_models import SizeError, tanh_to_outcome_logits, tanh_value_loss
from gomoku.train.trainer import value_loss

torch.set_num_threads(1)

NEW = ["cnn4", "rnn4", "resnet18", "casatt3", "casatt4", "hybrid1c64", "hybrid2c64", "cnn3r1"]
BOARDS = [(8, 8), (11, 11), (15, 15), (9, 7)]
from cli_runner import gomoku as run_gomoku



def _planes(width: int, height: int, n: int = 2, players: int = 2) -> torch.Tensor:
    return torch.from_numpy(random_positions(np.random.default_rng(3), n, width, height, players))


@pytest.mark.parametrize("arch", NEW)
def test_new_archs_run_on_any_board(arch: str) -> None:
    model = build_model(arch).eval()
    assert model.arch == parse_arch(arch).name == arch
    for width, height in BOARDS:
        with torch.no_grad():
            policy, value = model(_planes(width, height))
        assert policy.shape == (2, height, width) and value.shape == (2, 3)
        assert torch.isfinite(policy).all() and torch.isfinite(value).all()


@pytest.mark.parametrize("arch", ["cnn4", "rnn4", "hybrid1c64", "cnn3r1"])
def test_padded_batch_matches_unpadded(arch: str) -> None:
    """Off-board cells are zeroed after every layer and kept out of the attention's keys."""
    model = build_model(arch).eval()
    small = torch.from_numpy(encode_game(np.array([24, 25, 17, 31, 40]), 9, 7, 2)[-1:])
    padded = torch.zeros(1, 6, 10, 12)
    padded[:, :, :7, :9] = small
    with torch.no_grad():
        p1, v1 = model(small)
        p2, v2 = model(padded)
    assert torch.allclose(p1, p2[:, :7, :9], atol=1e-4) and torch.allclose(v1, v2, atol=1e-4)


def test_three_players() -> None:
    for arch in ("casatt3", "hybrid1c64", "cnn4-fc8"):
        with torch.no_grad():
            policy, value = build_model(arch, players=3).eval()(_planes(8, 8, players=3))
        assert policy.shape == (2, 8, 8) and value.shape == (2, 4)


def test_names() -> None:
    assert parse_arch("casatt").name == "casatt4" and parse_arch("hybrid2").name == "hybrid2c64"
    assert parse_arch("casatt3c16").name == "casatt3c16" and parse_arch("cnn3r2-fc11").name == "cnn3r2-fc11x11"
    assert parse_arch("cnn4-fc8").name == "cnn4-fc8x8" and parse_arch("b2c32-FC9x7").name == "b2c32-fc9x7"
    assert parse_arch("cnn4-fc").name == "cnn4-fc" and parse_arch("cnn4-fc").size is None
    assert sized_arch("cnn4-fc", 9, 7) == "cnn4-fc9x7" and sized_arch("cnn4", 9, 7) == "cnn4"
    for bad, message in (("mix32-fc8", "no fully connected heads"), ("casatt9", "1..5 stages"),
                         ("hybrid1c40", "multiple of 16"), ("cnn4-fc40", "5..32")):
        with pytest.raises(ArchError, match=message):
            parse_arch(bad)
    with pytest.raises(ArchError, match="board-size specific: name the board, e.g. cnn4-fc15"):
        build_model("cnn4-fc")
    with pytest.raises(ArchError, match=r"board-size specific \(8x8 only\); this board is 9x9"):
        sized_arch("cnn4-fc8", 9, 9)
    assert build_model("cnn4-fc", board=(9, 7)).arch == "cnn4-fc9x7"


def test_fc_heads_tanh_value_on_the_outcome_contract() -> None:
    model = build_model("cnn3-fc9x7").eval()
    with torch.no_grad():
        policy, value = model(_planes(9, 7, n=4))
    assert policy.shape == (4, 7, 9)
    p = value.softmax(dim=1)
    v = p[:, 0] - p[:, 1]
    assert torch.allclose(p[:, 0], (1 + v) / 2, atol=1e-5) and (p[:, 2] < 1e-5).all()
    with pytest.raises(SizeError, match=r"9x7 only\) cannot evaluate 8x8"):
        model(_planes(8, 8))
    # the logits' tanh is read back exactly, and the loss is the papers' MSE on the outcome
    t = torch.tensor([0.5, -0.25, 0.0, 0.9])
    logits = tanh_to_outcome_logits(t, 2)
    z = torch.tensor([0, 1, 2, 0])                     # mover won, lost, drew, won
    expect = ((t - torch.tensor([1.0, -1.0, 0.0, 1.0])) ** 2).mean()
    assert torch.allclose(tanh_value_loss(logits, z, 2), expect, atol=1e-5)
    assert torch.allclose(value_loss(model, logits, z), expect, atol=1e-5)
    soft = torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.8, 0.0]])
    assert torch.allclose(tanh_value_loss(logits, soft, 2),
                          ((t - torch.tensor([0.0, 1.0, 0.0, -0.6])) ** 2).mean(), atol=1e-5)
    assert torch.allclose(value_loss(build_model("cnn4"), logits, z), torch.nn.functional.cross_entropy(logits, z))


def _export(model: torch.nn.Module, path: Path, sizes: list[int]) -> float:
    info = NetInfo(players=model.players, win_length=5, rules=["freestyle"], board_sizes=sizes, arch=model.arch,
                   provenance={"run": "test"})
    return export_model(model, path, info)


@pytest.mark.parametrize("arch,board", [("cnn4", (9, 7)), ("rnn4", (8, 8)), ("resnet18", (8, 8)),
                                        ("casatt3", (11, 11)), ("casatt4", (9, 7)), ("hybrid1c64", (8, 8)),
                                        ("hybrid2c64", (9, 7)), ("cnn3r1", (8, 8)), ("cnn4-fc8", (8, 8)),
                                        ("casatt3-fc9x7", (9, 7)), ("b1c16-fc7", (7, 7))])
def test_export_load_and_play_a_move(tmp_path: Path, arch: str, board: tuple[int, int]) -> None:
    from gomoku.engine.mcts.search import MCTS, MCTSConfig
    model = build_model(arch)
    path = tmp_path / "net.onnx"
    assert _export(model, path, sorted(set(board))) < 2e-3      # export_model verified it on onnxruntime
    net = NetEvaluator.load(path)
    assert net.info.arch == model.arch
    if not parse_arch(arch).fc:          # the file's H and W are dynamic: every board, as torch computes
        for w, h in BOARDS:
            planes = _planes(w, h)
            with torch.no_grad():
                tp, tv = model.eval()(planes)
            op, ov = net.evaluate(planes.numpy())
            assert np.abs(op - tp.numpy()).max() < 2e-3 and np.abs(ov - tv.numpy()).max() < 2e-3
    width, height = board
    mcts = MCTS(width, height, evaluator=net, config=MCTSConfig(playouts=12))
    mcts.sync([width * (height // 2) + width // 2])
    result = mcts.search()
    assert 0 <= result.move < width * height and result.move != mcts.moves[0] and result.playouts >= 1


def test_fc_net_is_board_size_specific(tmp_path: Path) -> None:
    from gomoku.engine.mcts.search import MCTS
    from gomoku.tools.info_cmd import info
    path = tmp_path / "fc.onnx"
    _export(build_model("cnn4-fc8"), path, [8])
    net = NetEvaluator.load(path)
    assert net.info.fixed_size == (8, 8) and net.info.to_metadata()["fixed_size"] == "8x8"
    assert net_fits_game(net.info, "freestyle", 8, 8, allow_any_size=True) is None
    why = net_fits_game(net.info, "freestyle", 9, 9, allow_any_size=True, name="fc.onnx")
    assert why == ("fc.onnx is a freestyle net (two players, five in a row, trained on 8x8, board-size "
                   "specific (8x8 only)); this game is freestyle 9x9")
    with pytest.raises(NetFormatError, match="board-size specific"):
        MCTS(9, 9, evaluator=net)
    out = CliRunner().invoke(info, [str(path)])
    assert out.exit_code == 0 and "board-size specific (8x8 only)" in out.output
    assert "fixed_size    8x8" in out.output
    # a fully convolutional net's metadata has no such key, as before
    _export(build_model("cnn4"), tmp_path / "conv.onnx", [8])
    assert "fixed_size" not in NetEvaluator.load(tmp_path / "conv.onnx").info.to_metadata()


@pytest.mark.parametrize("arch,name,fixed", [("cnn4", "cnn4", None), ("cnn4-fc", "cnn4-fc7x7", (7, 7))])
def test_tiny_training_run(tmp_path: Path, arch: str, name: str, fixed: tuple[int, int] | None) -> None:
    """Self-play, the update (the -fc net's with the tanh value's MSE), the export of one size; a bare
    -fc takes the run's board."""
    run = tmp_path / "run"
    out = run_gomoku(["train", "--board", "7", "--arch", arch, "--generations", "1",
                          "--games-per-gen", "2", "--parallel-games", "2", "--workers", "1", "--playouts", "8",
                          "--updates", "1", "--batch", "16", "--eval-games", "0", "--ladder-games", "0",
                          "--classical-games", "0", "--full-search-prob", "1", "--run", str(run), "--plain"],
                     env={"OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    nets = sorted(run.rglob("*.onnx"))
    assert nets, "no net exported"
    info = NetEvaluator.load(nets[-1]).info
    assert info.arch == name and info.fixed_size == fixed


def test_train_refuses_an_fc_net_of_another_board(tmp_path: Path) -> None:
    """--arch cnn4-fc8 on a 7x7 run: one line before anything is trained."""
    out = run_gomoku(["train", "--board", "7", "--arch", "cnn4-fc8", "--generations", "1",
                          "--run", str(tmp_path / "run"), "--plain"])
    assert out.returncode != 0
    assert "Error: architecture cnn4-fc8x8 is board-size specific (8x8 only); this board is 7x7" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "run" / "config.json").exists()


def test_match_plays_a_board_size_specific_net_on_its_board(tmp_path: Path) -> None:
    """No --size: a 9x7 -fc net's match is 9x7, the board it can play."""
    from gomoku.tools.cli import main
    path = tmp_path / "fc.onnx"
    _export(build_model("cnn4-fc9x7"), path, [7, 9])
    out = CliRunner().invoke(main, ["match", f"{path}:playouts=8", "random", "-n", "2", "-t", "0", "-o", "none"])
    assert out.exit_code == 0, out.output
    assert "on 9x7" in out.output
