"""Net files: metadata checks, the one-line refusals, input planes and batched evaluation."""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.engine.net.metadata import NetFormatError, NetInfo
from gomoku.engine.net.planes import encode_game, plane_names

from netfiles import conv_net, uniform_net


def test_planes_of_a_short_game_by_hand():
    # 3x5 board (width 5, height 3); black c2 (x2,y1), white a1 (x0,y0), black e3 (x4,y2)
    moves = [1 * 5 + 2, 0, 2 * 5 + 4]
    p = encode_game(moves, 5, 3, players=2)
    assert p.shape == (3, 6, 3, 5)
    assert plane_names(2) == ["own", "next1", "last1", "last2", "first", "mask"]
    assert p[0, :2].sum() == 0 and p[0, 2:4].sum() == 0 and p[0, 4].all() and p[0, 5].all()
    # before move 2 (white to move): own = white (none), next1 = black c2, last1 = c2
    assert p[1, 0].sum() == 0 and p[1, 1, 1, 2] == 1 and p[1, 1].sum() == 1
    assert p[1, 2, 1, 2] == 1 and p[1, 3].sum() == 0 and not p[1, 4].any()
    # before move 3 (black): own = c2, next1 = a1, last1 = a1, last2 = c2
    assert p[2, 0, 1, 2] == 1 and p[2, 1, 0, 0] == 1 and p[2, 2, 0, 0] == 1 and p[2, 3, 1, 2] == 1
    with pytest.raises(ValueError, match="twice"):
        encode_game([3, 3], 5, 3)


def test_three_player_planes_rotate_to_the_mover():
    p = encode_game([0, 1, 2, 3], 4, 4, players=3)
    assert p.shape == (4, 7, 4, 4)
    # before move 3 (seat 0 again): own = cell 0, next1 = seat 1's cell 1, next2 = seat 2's cell 2
    assert p[3, 0, 0, 0] == 1 and p[3, 1, 0, 1] == 1 and p[3, 2, 0, 2] == 1 and p[3, 5].all()


def test_metadata_round_trip_and_summary():
    info = NetInfo(players=2, win_length=5, rules=["freestyle", "standard"], board_sizes=[13, 14, 15],
                   arch="b6c64", provenance={"games": 10})
    meta = info.to_metadata()
    assert meta["board_sizes"] == "13-15" and meta["gomoku_format"] == "1"
    back = NetInfo.from_metadata(meta)
    assert back == info
    assert "b6c64" in back.summary()


def test_evaluator_runs_batches_of_any_board_size(tmp_path):
    path = conv_net(str(tmp_path / "c.onnx"), sizes=(8, 15), channels=(8, 8))
    net = NetEvaluator.load(path)
    for size in (8, 15):
        pol, val = net.evaluate(np.zeros((3, 6, size, size), np.float32))
        assert pol.shape == (3, size, size) and val.shape == (3, 3)
    assert net.evals == 6 and net.info.arch == "cnn8-8"


@pytest.mark.parametrize("meta,message", [
    ({}, "metadata lacks gomoku_format"),
    ({"gomoku_format": "2"}, "net format 2"),
    ({"planes": "own,next1,last1,first,mask"}, "input planes"),
    ({"value_head": "scalar"}, "value head 'scalar'"),
])
def test_a_file_without_or_with_wrong_metadata_is_refused_in_one_line(tmp_path, meta, message):
    base = NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[8], arch="uniform").to_metadata()
    if meta:
        base.update(meta)
    else:
        base = {}
    path = uniform_net(str(tmp_path / "bad.onnx"), meta_override=base)
    with pytest.raises(NetFormatError, match=message) as err:
        NetEvaluator.load(path)
    assert "\n" not in str(err.value) and "bad.onnx" in str(err.value)


def test_not_an_onnx_file_is_refused(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"not a model")
    with pytest.raises(NetFormatError, match="not a usable ONNX model"):
        NetEvaluator.load(path)
    with pytest.raises(NetFormatError, match="not found"):
        NetEvaluator.load(tmp_path / "missing.onnx")


def test_a_five_in_a_row_net_is_refused_for_four_in_a_row(tmp_path):
    from gomoku.engine.mcts.search import MCTS
    net = NetEvaluator.load(uniform_net(str(tmp_path / "u.onnx"), win_length=5, sizes=(6,)))
    with pytest.raises(NetFormatError, match=r"five in a row, trained on 6x6\); this game is freestyle 6x6, four in a"):
        MCTS(6, 6, win_length=4, evaluator=net)
    with pytest.raises(NetFormatError, match="this game is standard 6x6"):
        MCTS(6, 6, rule=1, evaluator=net)
    with pytest.raises(NetFormatError, match=r"\(two players, .*this game is freestyle 6x6, three players"):
        MCTS(6, 6, players=3, evaluator=net)
    net.info.check_game(6, 6, "freestyle")
    with pytest.raises(NetFormatError, match=r"trained on 6x6\); this game is freestyle 9x9"):
        net.info.check_game(9, 9, "freestyle")


def test_gomoku_info_prints_the_metadata_and_refuses_in_one_line(tmp_path):
    from click.testing import CliRunner
    from gomoku.tools.cli import main
    path = conv_net(str(tmp_path / "c.onnx"), sizes=(8, 15), channels=(8,))
    p = CliRunner().invoke(main, ["info", path])
    assert p.exit_code == 0, p.output
    assert "cnn8, 2 players, 5 in a row, rules freestyle, boards 8,15" in p.stdout
    assert "input  planes" in p.stdout and "output value" in p.stdout
    bad = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    p = CliRunner().invoke(main, ["info", bad])
    assert p.exit_code == 1 and "not a gomoku net" in p.stderr and "Traceback" not in p.output
