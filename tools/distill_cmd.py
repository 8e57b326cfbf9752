"""`gomoku distill RUN LABELS...`: train a learned evaluator on the label engine's files.

A thin command over train.distill: loads the labels' leaf positions (train.labelset) behind a
progress bar, trains behind another, and prints each evaluation's held-out figures beside the
tables' on the same positions. Rerunning the same command continues the run; a larger
--steps trains it further.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from gomoku.tools.options import ExistingFile, live_view, progress_option


@click.command()
@click.argument("run", type=click.Path(file_okay=False, path_type=Path), metavar="RUN")
@click.argument("labels", nargs=-1, required=True, type=ExistingFile("labels"), metavar="LABELS...")
@click.option("-r", "--rule", type=click.Choice(["freestyle", "standard", "renju"]), default="freestyle",
              show_default=True, help="Rule of the labels and of the evaluator (15x15).")
@click.option("--form", type=click.Choice(["residual", "alone"]), default="residual", show_default=True,
              help="residual: a correction added to the tables' score, zero at the start (the untrained "
                   "evaluator plays the tables); alone: the evaluator replaces the tables.")
@click.option("--features", type=click.IntRange(8, 256), default=16, show_default=True,
              help="Features per cell (a multiple of 8): the first layer's width.")
@click.option("--hidden", type=click.IntRange(8, 256), default=32, show_default=True,
              help="Hidden units of the value MLP (a multiple of 8).")
@click.option("--lambda", "lam", type=click.FloatRange(0.0, 1.0), default=0.7, show_default=True,
              help="Value target: this share the search's score (as a win probability at --scale), "
                   "the rest the game's result.")
@click.option("--scale", type=click.FloatRange(min=1.0), default=1000.0, show_default=True,
              help="Evaluation units per logit of the win probability (the tables' logistic K).")
@click.option("--steps", type=click.IntRange(1), default=4000, show_default=True,
              help="Optimiser steps the run should reach: a rerun continues up to this many.")
@click.option("--batch", type=click.IntRange(8), default=1024, show_default=True, help="Positions a step.")
@click.option("--lr", type=click.FloatRange(min=0.0, min_open=True), default=2e-3, show_default=True,
              help="Adam's learning rate at the start (cosine decay to a twentieth).")
@click.option("--policy-weight", type=click.FloatRange(min=0.0), default=0.1, show_default=True,
              help="Weight of the best-move cross-entropy beside the value's.")
@click.option("--holdout", type=click.FloatRange(0.0, 0.9), default=0.05, show_default=True,
              help="Share of the games held out whole: the curves' measure.")
@click.option("--eval-every", type=click.IntRange(1), default=250, show_default=True,
              help="Steps between evaluations, checkpoints and curve points.")
@click.option("--max-positions", type=click.IntRange(1), default=None,
              help="Use at most this many positions (the files' first ones).")
@click.option("--name", default="distilled", show_default=True, help="The evaluator file: RUN/NAME.eval.npz.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the weights and the batches.")
@progress_option()
def distill(run: Path, labels: tuple[str, ...], rule: str, form: str, features: int, hidden: int, lam: float,
            scale: float, steps: int, batch: int, lr: float, policy_weight: float, holdout: float, eval_every: int,
            max_positions: Optional[int], name: str, seed: int, progress: Optional[bool]) -> None:
    """Train a learned evaluator on searched positions (files of `gomoku labels` or `gomoku
    match --labels`): value from the search's score and the result, policy from its best move.
    Writes RUN/NAME.eval.npz, which `classical:eval=FILE` and `pbrain-gomoku --eval FILE` play
    (docs/train.md)."""
    if features % 8 or hidden % 8:
        raise click.BadParameter("--features and --hidden must be multiples of 8")
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from gomoku.engine.game.rules import Rule
    from gomoku.tools.options import INTERRUPTED
    from gomoku.train.distill import Curves, DistillConfig, DistillError, distill as train, evaluator_file, prepare_run
    from gomoku.train.labelset import LabelSetError, load_labels

    cfg = DistillConfig(labels=tuple(str(Path(p)) for p in labels), rule=rule, features=features, hidden=hidden,
                        form=form, lam=lam, scale=scale, steps=steps, batch=batch, lr=lr, policy_weight=policy_weight,
                        holdout=holdout, eval_every=eval_every, max_positions=max_positions, seed=seed, name=name)
    live = live_view(progress, sys.stderr)
    console = Console(stderr=True)
    try:
        prepare_run(run, cfg)
        with Progress(TextColumn("[bold]reading labels"), TextColumn("{task.completed:,} positions"),
                      TimeElapsedColumn(), console=console, transient=True, disable=not live) as bar:
            task = bar.add_task("read", total=None)
            data = load_labels(labels, Rule[rule.upper()], max_positions=max_positions,
                               progress=lambda n: bar.update(task, completed=n))
        train_part, held = data.split(holdout)
        click.echo(f"{len(data):,} positions of {data.games:,} games: {len(train_part):,} to train on, "
                   f"{len(held):,} of {held.games:,} games held out")
        click.echo(f"form {form}, mix{features} with {hidden} hidden units, lambda {lam:g}, K {scale:g}")

        def report(c: Curves) -> None:
            click.echo(f"step {c.step}: value CE {c.train_value:.4f} (training), {c.held_value:.4f} held out, "
                       f"the tables {c.held_tables:.4f}; best move top-1 {c.held_top1:.1%} held out; "
                       f"{c.seconds:.0f} s")

        with Progress(TextColumn("[bold]distill"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TimeRemainingColumn(), console=console, transient=True, disable=not live) as bar:
            task = bar.add_task("steps", total=steps)
            last = train(run, cfg, data, report=report, tick=lambda s: bar.update(task, completed=s))
    except (DistillError, LabelSetError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("stopped; the same command continues from the last checkpoint", err=True)
        sys.exit(INTERRUPTED)
    if last is None:
        click.echo(f"{run} has already reached {steps} steps (raise --steps to train further)")
    click.echo(f"evaluator: {evaluator_file(run, cfg)}")
