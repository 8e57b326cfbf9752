"""Models: output shapes on two board sizes for every architecture; ONNX export with metadata,
checked by onnxruntime against torch; the engine's loader reads the exported file."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.engine.net.metadata import NetInfo
from gomoku.engine.net.planes import encode_game
from gomoku.train.export import ExportError, export_model, random_positions, verify
from gomoku.train.models import ArchError, build_model, parse_arch

torch.set_num_threads(1)

ARCHS = ["b2c16", "cnn3", "skip3", "ffnn", "tfm1c32"]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("players", [2, 3])
def test_shapes_on_two_board_sizes(arch: str, players: int) -> None:
    model = build_model(arch, players).eval()
    assert model.arch == parse_arch(arch).name
    for width, height in [(7, 7), (11, 9)]:
        planes = torch.from_numpy(random_positions(np.random.default_rng(1), 3, width, height, players))
        policy, value = model(planes)
        assert policy.shape == (3, height, width)
        assert value.shape == (3, players + 1)
        assert torch.isfinite(policy).all() and torch.isfinite(value).all()


def test_padded_batch_matches_unpadded() -> None:
    """The mask plane makes a small board inside a bigger batch compute what it computes alone."""
    model = build_model("b2c16").eval()
    moves = np.array([24, 25, 17, 31])
    small = torch.from_numpy(encode_game(moves, 7, 7, 2)[-1:])
    padded = torch.zeros(1, 6, 9, 10)
    padded[:, :, :7, :7] = small
    with torch.no_grad():
        p1, v1 = model(small)
        p2, v2 = model(padded)
    assert torch.allclose(p1, p2[:, :7, :7], atol=1e-4)
    assert torch.allclose(v1, v2, atol=1e-4)
    assert (p2[:, 7:, :] < -1e3).all()      # off-board cells are pushed out


def test_unknown_arch_is_one_line() -> None:
    with pytest.raises(ArchError, match="unknown architecture 'resnet9'"):
        build_model("resnet9")


@pytest.mark.parametrize("arch", ["b1c16", "tfm1c32"])
def test_export_metadata_and_onnxruntime_matches_torch(tmp_path, arch: str) -> None:
    model = build_model(arch)
    info = NetInfo(players=2, win_length=5, rules=["freestyle", "standard"], board_sizes=[7, 9], arch=model.arch,
                   provenance={"run": "test"})
    out = tmp_path / "net.onnx"
    worst = export_model(model, out, info)
    assert worst < 1e-3
    ev = NetEvaluator.load(out)
    assert ev.info.arch == model.arch and ev.info.board_sizes == [7, 9]
    assert ev.info.rules == ["freestyle", "standard"] and ev.info.provenance == {"run": "test"}
    # dynamic batch and board size: a 13x10 batch of 5 that export never saw
    planes = random_positions(np.random.default_rng(3), 5, 13, 10, 2)
    pol, val = ev.evaluate(planes)
    with torch.no_grad():
        tp, tv = model.eval()(torch.from_numpy(planes))
    assert pol.shape == (5, 10, 13) and val.shape == (5, 3)
    assert np.abs(pol - tp.numpy()).max() < 1e-3 and np.abs(val - tv.numpy()).max() < 1e-3
    assert [p.name for p in tmp_path.iterdir()] == ["net.onnx"]     # no temporaries left


def test_verify_rejects_a_file_that_differs(tmp_path) -> None:
    a, b = build_model("b1c16"), build_model("b1c16")
    info = NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[7], arch="b1c16")
    export_model(a, tmp_path / "a.onnx", info)
    with pytest.raises(ExportError, match="differs from torch"):
        verify(str(tmp_path / "a.onnx"), b, 2, [(7, 7)])


def test_verify_compares_a_saturated_tanh_value_as_probabilities(tmp_path) -> None:
    """A fully connected head's value near -1 is the logit log((1+v)/2), which moves by
    1/(1+v) per unit of v: float rounding that changes no probability moved it by 5e-3 and
    failed the export of trained -fc nets. The value is compared as the probabilities engines read."""
    torch.manual_seed(0)
    model = build_model("cnn3-fc6")
    with torch.no_grad():
        last = model.heads.value_fc[-1]
        last.weight.mul_(0.01)
        last.bias.fill_(-6.1)                 # v = tanh(-6.1 + small): 1 + v about 1e-5
    info = NetInfo(players=2, win_length=4, rules=["freestyle"], board_sizes=[6], arch=model.arch)
    assert export_model(model, tmp_path / "fc.onnx", info) <= 2e-3
