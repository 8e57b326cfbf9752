"""MCTS players through `gomoku match`, the real command (run in this process)."""
from __future__ import annotations

import json
from cli_runner import Ran, gomoku
from netfiles import conv_net, uniform_net


def run_match(*args: str) -> Ran:
    return gomoku(["match", *args])


def test_pure_mcts_3000_beats_pure_mcts_100_on_8x8(tmp_path):
    js = tmp_path / "r.json"
    p = run_match("pure-mcts:3000", "pure-mcts:100", "-n", "6", "--size", "8", "--json", str(js))
    assert p.returncode == 0, p.stderr
    assert "Score of pure-mcts-3000 vs pure-mcts-100: " in p.stdout
    data = json.loads(js.read_text())
    assert data["games"] == 6 and data["wins"] >= 4          # 30x the playouts


def test_two_onnx_nets_play_a_match(tmp_path):
    a = uniform_net(str(tmp_path / "flat.onnx"), sizes=(9,))
    b = conv_net(str(tmp_path / "conv.onnx"), sizes=(9,), channels=(8, 8))
    p = run_match(f"{a}:playouts=64", f"{b}:playouts=64,batch=8", "-n", "2", "--size", "9")
    assert p.returncode == 0, p.stderr
    assert "Score of flat vs conv: " in p.stdout and p.stdout.count("Finished game") == 2


def test_a_net_without_metadata_is_refused_before_the_match(tmp_path):
    bad = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    p = run_match(bad, "random", "-n", "2", "--size", "8")
    assert p.returncode != 0
    assert "not a gomoku net" in (p.stdout + p.stderr)
    assert "Traceback" not in p.stderr


def test_four_in_a_row_matches_are_judged_by_four_and_refuse_the_classical_engine(tmp_path):
    js = tmp_path / "r.json"
    p = run_match("pure-mcts:400", "random", "--win", "4", "--size", "6", "-n", "4", "-o", "none",
                  "--json", str(js))
    assert p.returncode == 0, p.stderr
    data = json.loads(js.read_text())
    assert data["wins"] >= 3
    assert all(r["reason"] in ("five", "full") for r in data["results"])
    assert any("4 in a row" in r["detail"] for r in data["results"])
    p = run_match("classical", "pure-mcts:100", "--win", "4", "--size", "6", "-n", "2")
    assert p.returncode != 0 and "plays five in a row only" in p.stderr


def test_zero_time_per_move_lets_mcts_players_search_their_own_playouts(tmp_path):
    """`-t 0` means no clock, not one playout: 2000 playouts against 20 must show."""
    js = tmp_path / "r.json"
    p = run_match("pure-mcts:2000", "pure-mcts:20", "-t", "0", "-n", "4", "--size", "8", "--json", str(js))
    assert p.returncode == 0, p.stderr
    data = json.loads(js.read_text())
    assert data["wins"] >= 3, data
    assert not any(r["reason"] == "time" for r in data["results"])
