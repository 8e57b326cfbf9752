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
    from matplotlib.ticker import MaxNLocator

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
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))     # no generation 2.5, no step 742.5
        ax.grid(alpha=0.3)
        # one legend for both y axes: a line on a twin axis (the ladder's playouts) was unlabelled
        handles: list[Any] = []
        labels: list[str] = []
        for a in fig.axes:
            h, lab = a.get_legend_handles_labels()
            handles, labels = handles + h, labels + lab
        if handles:
            ax.legend(handles, labels, fontsize=8)
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
        """The new net's score in each match it played, only those with games (a run with
        --eval-games 0 has no gating line, nor a legend entry for one), and the ladder rung's
        playouts on the right-hand axis."""
        drawn = 0
        for key, marker, label in (("gating", "o", f"vs the best net{share}"),
                                   ("ladder", "s", f"vs the pure MCTS rung{share}"),
                                   ("classical", "^", "vs the classical level")):
            xs, ys = _series(recs, key, "score")
            if xs:
                ax.plot(xs, ys, marker=marker, label=label)
                drawn += 1
        if not drawn:
            ax.text(0.5, 0.5, "no evaluation games in this run", ha="center", va="center", transform=ax.transAxes)
        ax.set_ylabel("score (win 1, draw 1/2, loss 0)")
        ax.set_ylim(-0.05, 1.05)
        xs, ys = _series(recs, "ladder", "playouts")
        if xs:
            ax2 = ax.twinx()
            ax2.step(xs, ys, where="post", color="tab:gray", linestyle="--", label="pure MCTS rung's playouts (right)")
            ax2.set_ylabel("pure MCTS playouts")
            ax2.set_ylim(0, max(ys) * 1.15)

    def ladder(ax: Any) -> None:
        """The three-player Gobang paper's "batches to beat N playouts", counted here in optimiser
        steps (the x axis, what the run's `step` counts): each rung at the step that beat it,
        and the self-play playouts (which --dynamic-playouts raises) over the same steps."""
        beaten = [(int(r["step"]), int(r["ladder"]["playouts"]), int(r["generation"])) for r in recs
                  if isinstance(r.get("ladder"), dict) and r["ladder"].get("beaten") and "step" in r]
        if beaten:
            ax.plot([b[0] for b in beaten], [b[1] for b in beaten], marker="o", label="pure MCTS playouts beaten")
            for step, n, gen in beaten:
                ax.annotate(f"gen {gen}", (step, n), textcoords="offset points", xytext=(4, -10), fontsize=7)
        else:
            ax.text(0.5, 0.5, "no pure MCTS rung beaten yet", ha="center", va="center", transform=ax.transAxes)
        played = [(int(r["step"]), r["selfplay"]["playouts"]) for r in recs if "step" in r
                  and isinstance(r.get("selfplay"), dict) and isinstance(r["selfplay"].get("playouts"), int)]
        if played:
            ax.step([p[0] for p in played], [p[1] for p in played], where="post", color="tab:gray",
                    label="self-play playouts")
        ax.set_ylabel("playouts")
        ax.set_ylim(bottom=0)

    def selfplay(ax: Any) -> None:
        xs, ys = _series(recs, "selfplay", "moves")
        _, games = _series(recs, "selfplay", "games")
        if xs:
            ax.plot(xs, [m / max(1, g) for m, g in zip(ys, games)], marker=".", label="moves per game")
        ax.plot(*_series(recs, "selfplay", "draws"), marker=".", label="draws")
        ax.plot(*_series(recs, "selfplay", "first_player_wins"), marker=".", label="first player wins")

    if _series(recs, "distill", "held_value")[0]:
        _distill_figures(recs, figure)
        return written
    figure("loss.png", "training loss", losses)
    if _series(recs, "train", "teacher_loss")[0] or _series(recs, "train", "teacher_held")[0]:
        figure("teacher.png", "value loss against the teacher's scores", teacher)
    figure("entropy.png", "policy entropy and KL per update", entropy)
    figure("lr.png", "learning rate (KL-adapted)", lr)
    figure("evaluation.png", "each generation's net in its evaluation matches", evaluation)
    figure("ladder.png", f"optimiser steps to beat pure MCTS at N playouts ({players} players)", ladder,
           xlabel="optimiser step")
    figure("selfplay.png", "self-play games", selfplay)
    return written


def _distill_figures(recs: list[dict[str, Any]], figure: Callable[..., None]) -> None:
    """A `gomoku distill` run's learning curves, by optimiser step: the value's cross-entropy
    on the training batches and on the held-out games beside the tables' on the same held-out
    positions (the line a learned evaluator has to get under), and the policy's agreement with
    the search's best move."""
    def steps(key: str) -> tuple[list[int], list[float]]:
        pts = [(int(r["step"]), float(r["distill"][key])) for r in recs
               if isinstance(r.get("distill"), dict) and isinstance(r["distill"].get(key), (int, float))]
        return [p[0] for p in pts], [p[1] for p in pts]

    def value(ax: Any) -> None:
        ax.plot(*steps("train_value"), marker=".", label="training batches")
        ax.plot(*steps("held_value"), marker=".", label="held-out games")
        ax.plot(*steps("held_tables"), linestyle="--", color="tab:gray", label="the tables on the held-out games")
        ax.set_ylabel("value cross-entropy")

    def policy(ax: Any) -> None:
        ax.plot(*steps("train_policy"), marker=".", label="best-move cross-entropy, training batches")
        ax.set_ylabel("cross-entropy")
        ax2 = ax.twinx()
        xs, ys = steps("held_top1")
        ax2.plot(xs, [100.0 * y for y in ys], color="tab:red", marker=".", label="top-1 held out (right)")
        ax2.set_ylabel("top-1 agreement, %")

    figure("distill_value.png", "value loss against the searched labels", value, xlabel="optimiser step")
    figure("distill_policy.png", "policy against the search's best move", policy, xlabel="optimiser step")
