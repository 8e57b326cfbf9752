"""`gomoku plot RUN`: PNGs of a run's metrics.jsonl (losses, entropy, learning rate, evaluation,
the ladder, self-play), each written atomically next to the others in RUN/plots.

Two- and n-player runs share the figures: an n-player match's `score` is the net's share of
the three-player Gobang paper's points, the two-player score's counterpart."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Optional

from .atomic import write_with
from .metrics import read_metrics


class PlotError(ValueError):
    """Nothing to plot; one line naming the file."""


def _series(recs: list[dict[str, Any]], *path: str) -> tuple[list[int], list[float]]:
    xs, ys = [], []
    for r in recs:
        v: Any = r
        for key in path:
            v = v.get(key) if isinstance(v, dict) else None
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            xs.append(int(r["generation"]))
            ys.append(float(v))
    return xs, ys


def plot_run(run: str | os.PathLike, out: Optional[str | os.PathLike] = None) -> list[str]:
    """Write the PNGs; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    src = Path(run) / "metrics.jsonl"
    recs = read_metrics(src)
    if not recs:
        raise PlotError(f"{src}: no generation finished yet, nothing to plot")
    folder = Path(out) if out else Path(run) / "plots"
    written: list[str] = []

    def figure(name: str, title: str, draw: Callable[[Any], None], xlabel: str = "generation") -> None:
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(ax)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        path = folder / name
        write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
        plt.close(fig)
        written.append(str(path))

    def losses(ax: Any) -> None:
        for key, label in (("loss", "total"), ("policy_loss", "policy CE"), ("value_loss", "value CE"), ("l2", "L2")):
            ax.plot(*_series(recs, "train", key), marker=".", label=label)

    def teacher(ax: Any) -> None:
        """The value head against the teacher's scores: its training loss says little (the same
        few positions come back every update); the held-out games and the tables' loss on them
        are the measure."""
        ax.plot(*_series(recs, "train", "value_loss"), marker=".", label="value CE, the run's games")
        ax.plot(*_series(recs, "train", "teacher_loss"), marker=".", label="teacher CE, training positions")
        ax.plot(*_series(recs, "train", "teacher_held"), marker=".", label="teacher CE, held-out games")
        ax.plot(*_series(recs, "train", "teacher_held_tables"), linestyle="--", color="tab:gray",
                label="the tables on the held-out games")
        if _series(recs, "train", "teacher_held_quiet")[0]:
            ax.plot(*_series(recs, "train", "teacher_held_quiet"), marker=".",
                    label="teacher CE, held-out quiet positions")
            ax.plot(*_series(recs, "train", "teacher_held_quiet_tables"), linestyle=":", color="tab:gray",
                    label="the tables on the held-out quiet positions")

    def entropy(ax: Any) -> None:
        ax.plot(*_series(recs, "train", "entropy"), marker=".", label="policy entropy")
        ax2 = ax.twinx()
        ax2.plot(*_series(recs, "train", "kl"), color="tab:red", marker=".", label="KL")
        ax2.set_ylabel("KL", color="tab:red")

    def lr(ax: Any) -> None:
        ax.plot(*_series(recs, "train", "lr"), marker=".", label="learning rate")
        ax.set_yscale("log")

    players = next((r["ladder"].get("players", 2) for r in recs if isinstance(r.get("ladder"), dict)), 2)
    share = " (share of points)" if players > 2 else ""

    def evaluation(ax: Any) -> None:
        ax.plot(*_series(recs, "gating", "score"), marker="o", label=f"score vs best{share}")
        ax.plot(*_series(recs, "ladder", "score"), marker="s", label=f"score vs pure MCTS rung{share}")
        ax.plot(*_series(recs, "classical", "score"), marker="^", label="score vs classical level")
        xs, ys = _series(recs, "ladder", "playouts")
        ax2 = ax.twinx()
        ax2.step(xs, ys, where="post", color="tab:gray", label="pure MCTS playouts")
        ax2.set_ylabel("pure MCTS playouts")
        ax.set_ylim(-0.05, 1.05)

    def ladder(ax: Any) -> None:
        """The three-player Gobang paper's "batches to beat N playouts": each rung at the optimiser step that beat it,
        and the self-play playouts (which --dynamic-playouts raises) over the same steps."""
        beaten = [(int(r["step"]), int(r["ladder"]["playouts"]), int(r["generation"])) for r in recs
                  if isinstance(r.get("ladder"), dict) and r["ladder"].get("beaten") and "step" in r]
        if beaten:
            ax.plot([b[0] for b in beaten], [b[1] for b in beaten], marker="o", label="pure MCTS playouts beaten")
            for step, n, gen in beaten:
                ax.annotate(f"gen {gen}", (step, n), textcoords="offset points", xytext=(4, -10), fontsize=7)
        played = [(int(r["step"]), r["selfplay"]["playouts"]) for r in recs if "step" in r
                  and isinstance(r.get("selfplay"), dict) and isinstance(r["selfplay"].get("playouts"), int)]
        if played:
            ax.step([p[0] for p in played], [p[1] for p in played], where="post", color="tab:gray",
                    label="self-play playouts")
        ax.set_ylabel("playouts")

    def selfplay(ax: Any) -> None:
        xs, ys = _series(recs, "selfplay", "moves")
        _, games = _series(recs, "selfplay", "games")
        if xs:
            ax.plot(xs, [m / max(1, g) for m, g in zip(ys, games)], marker=".", label="moves per game")
        ax.plot(*_series(recs, "selfplay", "draws"), marker=".", label="draws")
        ax.plot(*_series(recs, "selfplay", "first_player_wins"), marker=".", label="first player wins")

    figure("loss.png", "training loss", losses)
    if _series(recs, "train", "teacher_loss")[0] or _series(recs, "train", "teacher_held")[0]:
        figure("teacher.png", "value loss against the teacher's scores", teacher)
    figure("entropy.png", "policy entropy and KL per update", entropy)
    figure("lr.png", "learning rate (KL-adapted)", lr)
    figure("evaluation.png", "evaluation", evaluation)
    figure("ladder.png", f"batches to beat N playouts ({players} players)", ladder, xlabel="optimiser step")
    figure("selfplay.png", "self-play games", selfplay)
    return written
