"""`gomoku plot`'s figures say what they draw: no legend entry for a match the run never
played, every line named (the twin axis's too), both axes labelled, the ladder titled in the
unit of its x axis."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")


def _run(tmp_path: Path) -> Path:
    """A run of three generations with --eval-games 0 --classical-games 0: the ladder alone."""
    run = tmp_path / "run"
    run.mkdir()
    lines = []
    for g, (score, beaten) in enumerate(((0.3, False), (0.5, False), (0.8, True)), 1):
        lines.append(json.dumps({
            "generation": g, "step": 150 * g,
            "train": {"loss": 3.0 - g / 10, "policy_loss": 2.5, "value_loss": 0.4, "entropy": 2.0, "kl": 0.03,
                      "lr": 1e-3},
            "selfplay": {"games": 32, "moves": 400, "draws": 1, "first_player_wins": 20, "playouts": 400},
            "ladder": {"score": score, "playouts": 1000, "beaten": beaten, "wins": 8, "losses": 2, "draws": 0}}))
    (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    return run


def test_the_evaluation_and_ladder_figures_name_what_they_draw(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gomoku.train.plot import plot_run
    figures: dict[str, Any] = {}
    close = plt.close

    def keep(fig: Any = None) -> None:
        figures[fig.axes[0].get_title()] = fig
        close(fig)
    monkeypatch.setattr(plt, "close", keep)
    written = plot_run(_run(tmp_path))
    assert {Path(p).name for p in written} >= {"evaluation.png", "ladder.png"}

    ev = next(f for t, f in figures.items() if "evaluation" in t)
    main, right = ev.axes
    assert [ln.get_label() for ln in main.get_lines()] == ["vs the pure MCTS rung"]   # no gating, no classical
    assert main.get_ylabel().startswith("score") and right.get_ylabel() == "pure MCTS playouts"
    legend = [t.get_text() for t in main.get_legend().get_texts()]
    assert legend == ["vs the pure MCTS rung", "pure MCTS rung's playouts (right)"]

    ladder = next(f for t, f in figures.items() if "to beat" in t)
    assert "batches" not in ladder.axes[0].get_title()
    assert ladder.axes[0].get_title().startswith("optimiser steps")
    assert ladder.axes[0].get_xlabel() == "optimiser step"
