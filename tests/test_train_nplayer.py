"""`gomoku train --players 3` end to end through the CLI on a tiny board: self-play, training,
gating the new net against the best one and the ladder against pure MCTS under the three-player Gobang paper's
protocol, recorded in metrics.jsonl; the dynamic playout number raised when the ladder stalls;
the ladder table printed at the end and by `gomoku plot --table`, and the ladder plot."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.train.metrics import read_metrics

pytestmark = pytest.mark.slow

from cli_runner import gomoku as run_gomoku

GENS, LADDER, STEP, RAISE = 2, 16, 16, 8
ARGS = ["train", "--board", "6", "--win", "4", "--players", "3", "--arch", "b1c16", "--generations", str(GENS),
        "--games-per-gen", "4", "--parallel-games", "2", "--playouts", "24", "--full-search-prob", "0.5",
        "--workers", "1", "--updates", "2", "--batch", "32", "--eval-games", "6", "--eval-playouts", "16",
        "--ladder-games", "5", "--ladder-start", str(LADDER), "--dynamic-playouts", str(RAISE),
        "--stall-generations", "1", "--plain"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def test_three_player_training_plays_the_ladder_and_records_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = run_gomoku([*ARGS, "--run", str(run)], env=_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    recs = read_metrics(run / "metrics.jsonl")
    assert [r["generation"] for r in recs] == list(range(1, GENS + 1))
    assert NetEvaluator.load(run / "nets" / "best.onnx").info.players == 3

    ladder, playouts, best = LADDER, 24, 0
    for r in recs:
        assert r["selfplay"]["playouts"] == playouts
        for key, openings in (("gating", 1), ("ladder", 0)):
            ev = r[key]
            # 5 ladder games round up to one cycle of six seatings, as do the 6 gating games
            assert ev["players"] == 3 and ev["games"] == 6 and ev["openings"] == openings
            assert ev["wins"] + ev["losses"] + ev["draws"] == 6
            # win 3 / draw 1 / loss 0 per side: every decided game hands out 3 points, a draw 2
            assert sum(ev["totals"].values()) == 3 * 6 - ev["draws"]
            assert ev["totals"]["A"] == 3 * ev["wins"] + ev["draws"]
            assert ev["score"] == round(ev["totals"]["A"] / sum(ev["totals"].values()), 4)
            for side in ("A", "B"):
                assert [c["games"] for c in ev["by_seat"][side]] == [3, 3, 3]
            assert {lab: sum(v.values()) for lab, v in ev["by_seating"].items()} == {"1 A vs 2 B": 3, "2 A vs 1 B": 3}
        gt, ld = r["gating"], r["ladder"]
        assert gt["accepted"] == (gt["score"] >= 0.55) and gt["against"] == best
        best = r["generation"] if gt["accepted"] else best
        assert r["best"] == best and ld["net"] == best
        assert ld["playouts"] == ladder and ld["beat_if"] == "score > 0.5"
        assert ld["beaten"] == (ld["totals"]["A"] > ld["totals"]["B"])
        if ld["beaten"]:
            # the rung fell at this generation's optimiser step, and the next rung is up
            assert r["beaten"][f"pure-mcts:playouts={ladder}"] == r["step"] and "playouts_raised_to" not in r
            ladder += STEP
        else:
            # a stalled generation (--stall-generations 1) raises self-play's playouts
            playouts += RAISE
            assert r["playouts_raised_to"] == playouts
    assert all("classical" not in r for r in recs)

    # the ladder as a table: at the end of training and from the run folder
    assert "batches to beat N playouts (optimiser steps; 3 players" in done.stdout
    table = run_gomoku(["plot", "--table", str(run)], env=_env())
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].endswith("beaten when score > 0.5):") and lines[1:] == done.stdout.splitlines()[-len(lines) + 1:]
    beaten = [r for r in recs if r["ladder"]["beaten"]]
    for r in beaten:
        assert any(f"pure MCTS {r['ladder']['playouts']} playouts" in ln
                   and f"beaten at step {r['step']} (generation {r['generation']})" in ln for ln in lines)
    if not recs[-1]["ladder"]["beaten"]:
        assert f"pure MCTS {ladder} playouts" in lines[-1] and "not beaten" in lines[-1]

    plot = run_gomoku(["plot", str(run)], env=_env())
    assert plot.returncode == 0, plot.stderr
    assert (run / "plots" / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
