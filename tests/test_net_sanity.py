"""The sanity battery (engine/match/sanity.py) and `gomoku ship`'s use of it.

The positions are checked by hand for the boards the shipped nets play (the cells that pass are
written out here, not taken from the code under test), the verdicts on moves built for the
purpose, a net whose policy points at the corner is caught through `gomoku ship --check` and
refused by `gomoku ship` before anything is written, and a run whose best net passes ships with
the battery's record in its manifest entry."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku.engine.game.rules import Rule
from gomoku.engine.match import sanity
from gomoku.engine.match.sanity import (FAIL, PASS, SKIP, block_position, central_region, judge, opening_position,
                                      run_battery, three_position, win_position)
from gomoku.tools.cli import main

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"


# -- the central region --------------------------------------------------------------------------

@pytest.mark.parametrize("size,band", [(5, (1, 3)), (6, (1, 4)), (7, (2, 4)), (8, (2, 5)), (15, (5, 9)),
                                       (19, (6, 12)), (20, (7, 12))])
def test_central_region_is_the_middle_third_or_off_the_edge_on_tiny_boards(size: int, band: tuple) -> None:
    cells = set(central_region(size, size))
    lo, hi = band
    assert cells == {(x, y) for x in range(lo, hi + 1) for y in range(lo, hi + 1)}
    # symmetric about the centre
    assert cells == {(size - 1 - x, size - 1 - y) for x, y in cells}


def test_central_region_of_a_rectangle_takes_each_side_alone() -> None:
    cells = set(central_region(15, 8))
    assert {x for x, _ in cells} == set(range(5, 10)) and {y for _, y in cells} == set(range(2, 6))


# -- the positions, checked by hand --------------------------------------------------------------

def _stones(pos) -> dict[int, set]:
    out: dict[int, set] = {}
    for i, m in enumerate(pos.moves):
        out.setdefault(i % pos.players, set()).add(m)
    return out


def test_fifteen_by_fifteen_positions_by_hand() -> None:
    win = win_position(15, 15, Rule.FREESTYLE, 2, 5)
    s = _stones(win)
    assert s[0] == {(5, 6), (6, 6), (7, 6), (8, 6), (9, 8)} and s[1] == {(4, 6), (5, 8), (6, 8), (7, 8), (8, 8)}
    assert win.mover == 0 and win.acceptable == {(9, 6)}        # white's e9 (4,8) is the trap
    block = block_position(15, 15, Rule.FREESTYLE, 2, 5)
    s = _stones(block)
    assert s[1] == {(5, 8), (6, 8), (7, 8), (8, 8)} and {(9, 8), (5, 6), (6, 6), (7, 6)} == s[0]
    assert block.acceptable == {(4, 8)}                          # not the open four at e7/i7
    three = three_position(15, 15, Rule.FREESTYLE, 2, 5)
    s = _stones(three)
    assert s[1] == {(5, 8), (6, 8), (7, 8)} and len(s[0]) == 3
    # . . O O O . . with room on both sides: only the two cells next to the three defend
    assert three.acceptable == {(4, 8), (8, 8)}
    assert len(opening_position(15, 15, Rule.FREESTYLE, 2, 5).acceptable) == 25


def test_five_by_five_four_in_a_row_positions_by_hand() -> None:
    win = win_position(5, 5, Rule.FREESTYLE, 2, 4)
    assert _stones(win)[0] == {(1, 1), (2, 1), (3, 1), (4, 3)} and win.acceptable == {(4, 1)}
    block = block_position(5, 5, Rule.FREESTYLE, 2, 4)
    assert _stones(block)[1] == {(1, 3), (2, 3), (3, 3)} and block.acceptable == {(0, 3)}
    three = three_position(5, 5, Rule.FREESTYLE, 2, 4)
    assert _stones(three)[1] == {(1, 3), (2, 3)}
    # _ O O _ _ on a row of five: d4 makes _OOO_ (two wins); a4, d4 and e4 each stop it
    assert three.acceptable == {(0, 3), (3, 3), (4, 3)}


@pytest.mark.parametrize("size,k,players,rule", [(5, 4, 2, Rule.FREESTYLE), (6, 4, 2, Rule.FREESTYLE),
                                                 (8, 5, 2, Rule.FREESTYLE), (8, 4, 3, Rule.FREESTYLE),
                                                 (15, 5, 2, Rule.STANDARD), (15, 5, 2, Rule.RENJU),
                                                 (19, 5, 2, Rule.FREESTYLE), (11, 4, 4, Rule.FREESTYLE)])
def test_positions_for_any_game_are_fair_questions(size: int, k: int, players: int, rule: Rule) -> None:
    builders = [win_position, block_position] + ([three_position] if players == 2 else [])
    for build in builders:
        pos = build(size, size, rule, players, k)
        shares = _stones(pos)
        assert len({len(v) for v in shares.values()}) == 1 and len(shares) == players
        assert pos.mover == 0
        g = pos.grid()
        assert 0 < len(pos.acceptable) <= 3, (build.__name__, pos.acceptable)
        assert all(g.seat_at(*c) is None and g.legal(*c, 0) for c in pos.acceptable)
        if build is win_position:
            assert pos.acceptable == set(g.winning_cells(0)) and g.winning_cells(1)
        if build is block_position:
            assert not g.winning_cells(0) and pos.acceptable == set(g.winning_cells(1))


def test_skips_say_why() -> None:
    assert "3-player" in sanity.skip_reason("answer-three", 8, 3, 4)
    assert sanity.skip_reason("answer-three", 8, 2, 5) is None
    assert sanity.skip_reason("opening", 4, 2, 4) is None
    assert "no room" in sanity.skip_reason("block-four", 4, 2, 4)


# -- verdicts on moves built for the purpose ----------------------------------------------------------

def test_opening_in_the_corner_fails_and_in_the_centre_passes() -> None:
    pos = opening_position(15, 15, Rule.FREESTYLE, 2, 5)
    bad = judge(pos, {"200": (1, 1), "800": (1, 1)}, (0, 14))
    assert bad.status == FAIL and "b2 (1,1)" in bad.reason and "central 5x5" in bad.reason
    good = judge(pos, {"200": (7, 7), "800": (6, 8)}, (7, 7))
    assert good.status == PASS and good.move == (7, 7)
    # the search central but the policy in the corner: the net has still not learnt the empty board
    policy = judge(pos, {"200": (7, 7), "800": (7, 7)}, (0, 14))
    assert policy.status == FAIL and "policy's top cell" in policy.reason
    # one playout count off is enough
    assert judge(pos, {"200": (7, 7), "800": (4, 4)}, (7, 7)).status == FAIL


def test_tactics_verdicts() -> None:
    win = win_position(15, 15, Rule.FREESTYLE, 2, 5)
    assert judge(win, {"200": (9, 6)}, (4, 8)).status == PASS
    r = judge(win, {"200": (4, 8)}, (4, 8))                     # blocked instead of winning
    assert r.status == FAIL and "passing moves: j7 (9,6)" in r.reason
    block = block_position(15, 15, Rule.FREESTYLE, 2, 5)
    assert judge(block, {"200": (8, 6)}, (8, 6)).status == FAIL  # its own open four, too late
    three = three_position(15, 15, Rule.FREESTYLE, 2, 5)
    assert judge(three, {"200": (8, 8)}, (4, 8)).status == PASS
    assert judge(three, {"200": (3, 8)}, (3, 8)).status == FAIL  # the far end does not stop . . O O O . .


def test_report_summary_names_the_failed_check() -> None:
    ok = sanity.CheckResult("opening", "freestyle", 15, PASS, "fine")
    skip = sanity.CheckResult("answer-three", "freestyle", 8, SKIP, "3 players")
    bad = sanity.CheckResult("opening", "freestyle", 15, FAIL, "first move b2 (1,1) lies outside", (1, 1), (0, 14))
    assert sanity.SanityReport("x", [ok, skip]).summary() == "passed all 1 checks (1 skipped)"
    report = sanity.SanityReport("x", [ok, bad])
    assert not report.passed and report.summary().startswith("fails opening (freestyle, 15x15): first move b2")
    rec = report.to_record()
    assert rec["passed"] is False and rec["battery"] == sanity.BATTERY_VERSION
    back = sanity.result_from_record(rec["checks"][1])
    assert (back.status, back.move, back.policy) == (FAIL, (1, 1), (0, 14))


# -- nets -------------------------------------------------------------------------------------------

def _pointing_net(path: Path, cell: tuple[int, int], size: int = 8) -> Path:
    """A net whose policy always prefers `cell` by a wide margin (value even), whatever the position."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from gomoku.engine.net.metadata import NetInfo

    bias = np.zeros((size, size), np.float32)
    bias[cell[1], cell[0]] = 8.0
    inits = [numpy_helper.from_array(bias, "bias"), numpy_helper.from_array(np.zeros((1, 3), np.float32), "zeros"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array([1, 2, 3], np.int64), "axes123"),
             numpy_helper.from_array(np.array([-1, 1], np.int64), "shape_b1"),
             numpy_helper.from_array(np.zeros((), np.float32), "zero")]
    nodes = [helper.make_node("ReduceSum", ["planes", "axis1"], ["s"], keepdims=0),
             helper.make_node("Mul", ["s", "zero"], ["s0"]),
             helper.make_node("Add", ["s0", "bias"], ["policy"]),
             helper.make_node("ReduceSum", ["planes", "axes123"], ["t"], keepdims=1),
             helper.make_node("Reshape", ["t", "shape_b1"], ["t2"]),
             helper.make_node("Mul", ["t2", "zeros"], ["value"])]
    info = NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[size], arch="pointing")
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("planes", TensorProto.FLOAT,
                                                                           ["B", 6, "H", "W"])],
                              [helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["B", "H", "W"]),
                               helper.make_tensor_value_info("value", TensorProto.FLOAT, ["B", 3])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in info.to_metadata().items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
    return path


def test_a_net_that_points_at_the_corner_fails_the_opening(tmp_path: Path) -> None:
    net = _pointing_net(tmp_path / "corner.onnx", (0, 0))
    report = run_battery(net)
    opening = [r for r in report.results if r.check == "opening"][0]
    assert opening.status == FAIL and opening.move == (0, 0) and opening.policy == (0, 0)
    assert not report.passed and report.summary().startswith("fails opening (freestyle, 8x8)")
    # the same net pointing at the centre opens there
    centre = run_battery(_pointing_net(tmp_path / "centre.onnx", (3, 4)), checks=("opening",))
    assert centre.results[0].status == PASS and centre.results[0].move == (3, 4)


def test_ship_check_of_a_file_prints_every_check_and_exits_1(tmp_path: Path) -> None:
    net = _pointing_net(tmp_path / "corner.onnx", (0, 0))
    out = CliRunner().invoke(main, ["ship", "--check", str(net), "--weights", str(tmp_path / "w")])
    assert out.exit_code == 1, out.output
    assert "opening" in out.output and "FAIL" in out.output and "a1 (0,0)" in out.output
    assert f"{net}: fails opening" in out.output
    assert not (tmp_path / "w").exists()                           # a file is checked, never recorded


def _run_folder(run: Path, net: Path, checkpoint: Path, size: int, k: int = 5, arch: str = "b4c32") -> Path:
    """A training run's folder as `gomoku train` leaves it, its best generation 1 being `net`."""
    (run / "nets").mkdir(parents=True)
    (run / "ckpt").mkdir()
    shutil.copy(net, run / "nets" / "gen00001.onnx")
    shutil.copy(checkpoint, run / "ckpt" / "gen00001.safetensors")
    (run / "config.json").write_text(json.dumps({
        "width": size, "height": size, "win_length": k, "arch": arch, "workers": 1,
        "command": f"gomoku train --board {size} --win {k} --run {run}"}))
    (run / "state.json").write_text(json.dumps({"generation": 1, "best": 1, "step": 10, "games": 4,
                                                "positions": 40, "elapsed": 12.0}))
    (run / "metrics.jsonl").write_text(json.dumps({"generation": 1, "games_total": 4, "positions_total": 40,
                                                   "step": 10, "elapsed": 12.0,
                                                   "hardware": "test machine, 2 cores"}) + "\n")
    return run


def test_ship_refuses_a_net_that_fails_and_writes_nothing(tmp_path: Path) -> None:
    net = _pointing_net(tmp_path / "corner.onnx", (0, 0))
    run = _run_folder(tmp_path / "run", net, tmp_path / "corner.onnx", 8)   # never reached: refused first
    weights = tmp_path / "weights"
    out = CliRunner().invoke(main, ["ship", str(run), "corner8", "--weights", str(weights)])
    assert out.exit_code == 1, out.output
    lines = [ln for ln in out.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in out.output, out.output
    assert "refused to ship" in lines[0] and "fails opening (freestyle, 8x8)" in lines[0]
    assert not weights.exists()


def test_ship_refuses_the_corner_opening_15x15_net_through_the_command(tmp_path: Path) -> None:
    """The corner-opening net, as a run's best generation, through `gomoku ship` (click's
    runner: the command's own code, with its exit status and its error stream)."""
    entry = json.loads((WEIGHTS / "manifest.json").read_text())["nets"]["15x15k5-b4c32"]
    run = _run_folder(tmp_path / "run", WEIGHTS / entry["file"], WEIGHTS / entry["checkpoint"], 15)
    weights = tmp_path / "weights"
    done = CliRunner().invoke(main, ["ship", str(run), "again15", "--weights", str(weights)])
    assert done.exit_code == 1, done.output
    err = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "fails opening (freestyle, 15x15): first move b2 (1,1)" in err[0], done.stderr
    assert not weights.exists()


@pytest.mark.slow
def test_ship_a_run_whose_net_passes_records_the_battery(tmp_path: Path) -> None:
    """A run whose best net is the shipped 5x5 four-in-a-row net (with its own checkpoint, so the
    ship's onnxruntime-against-torch comparison holds) ships, with the battery's verdict."""
    pytest.importorskip("torch")
    from gomoku.weights.manifest import check_folder, read_manifest, sha256_file
    entry = json.loads((WEIGHTS / "manifest.json").read_text())["nets"]["5x5k4-skip3"]
    run = _run_folder(tmp_path / "run", WEIGHTS / entry["file"], WEIGHTS / entry["checkpoint"], 5, k=4,
                      arch="skip3")
    weights = tmp_path / "weights"
    out = CliRunner().invoke(main, ["ship", str(run), "five", "--weights", str(weights)])
    assert out.exit_code == 0, out.output
    assert "sanity battery: passed all 4 checks" in out.output
    shipped = read_manifest(weights)["five"]
    rec = shipped["sanity"]
    assert rec["passed"] is True and rec["sha256"] == shipped["sha256"] == sha256_file(weights / "five.onnx")
    assert [c["check"] for c in rec["checks"]] == list(sanity.CHECKS) and "withdrawn" not in shipped
    assert check_folder(weights) == []
    # re-checked: the same verdict, recorded again, nothing withdrawn
    again = CliRunner().invoke(main, ["ship", "--check", "five", "--weights", str(weights)])
    assert again.exit_code == 0, again.output
    assert "five: passed all 4 checks (recorded in" in again.output
    assert read_manifest(weights)["five"]["sanity"]["checks"] == rec["checks"]


def test_check_withdraws_a_failing_shipped_net_and_lifts_only_its_own_withdrawal(tmp_path: Path) -> None:
    """--check NAME on a manifest entry: the failing net is withdrawn with the reason; once it
    passes (here: its file replaced by a passing one, the entry's hashes updated) the battery's
    withdrawal goes, while one given for another reason stays."""
    from gomoku.weights.manifest import BATTERY_WITHDRAWAL, read_manifest, sha256_file, write_manifest
    weights = tmp_path / "w"
    weights.mkdir()
    net = _pointing_net(weights / "pt.onnx", (0, 0))
    entry: dict[str, Any] = {"file": "pt.onnx", "sha256": sha256_file(net)}
    write_manifest(weights, {"pt": entry})
    out = CliRunner().invoke(main, ["ship", "--check", "pt", "--weights", str(weights)])
    assert out.exit_code == 1 and "withdrawn" in out.output, out.output
    got = read_manifest(weights)["pt"]
    assert got["withdrawn"].startswith(BATTERY_WITHDRAWAL + "fails opening") and got["sanity"]["passed"] is False
    _pointing_net(net, (3, 4))
    write_manifest(weights, {"pt": {**got, "sha256": sha256_file(net)}})
    out = CliRunner().invoke(main, ["ship", "--check", "pt", "--weights", str(weights)])
    got = read_manifest(weights)["pt"]
    opening = [c for c in got["sanity"]["checks"] if c["check"] == "opening"][0]
    assert opening["status"] == "pass", out.output
    if got["sanity"]["passed"]:
        assert "withdrawn" not in got
    write_manifest(weights, {"pt": {**got, "withdrawn": "kept back by hand"}})
    CliRunner().invoke(main, ["ship", "--check", "pt", "--weights", str(weights)])
    assert read_manifest(weights)["pt"]["withdrawn"] == "kept back by hand"


def test_ship_check_refusals_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["ship", "--check", "nonesuch", "--weights", str(WEIGHTS)])
    assert out.exit_code == 1 and "'nonesuch' is not shipped" in out.output.splitlines()[-1]
    out = runner.invoke(main, ["ship", "--check", str(tmp_path / "missing.onnx"), "--weights", str(tmp_path)])
    assert out.exit_code == 1 and "no such net file" in out.output
    out = runner.invoke(main, ["ship", "--check", "x", "--strength", "a|b|c"])
    assert out.exit_code == 2 and "--check records no --strength" in out.output
    out = runner.invoke(main, ["ship"])
    assert out.exit_code == 2 and "--check" in out.output
