"""`gomoku tune`: fit the classical evaluation's weight tables to game results (Texel) or to a
teacher engine's scores (distillation).

Reads SGF collections and .psq games, replays them (engine.tuning.extract), and/or files of
positions a stronger engine has scored (engine.tuning.load_scored); fits the logistic model
on a share of the games, reports how well the current and the fitted tables predict the
labels on both shares, and prints the fitted tables as lines to paste into
engine/evaluation.py.
"""
from __future__ import annotations

from typing import Optional

import click

from gomoku.engine.game.rules import Rule
from gomoku.tools.options import output_path, progress_option, rule_option

#: fewer positions than this cannot pin down the weights
MIN_POSITIONS = 200
#: the printed tables' names, in EvalTables order (a rule's own tables in engine/evaluation.py
#: carry its name in front: FREESTYLE_OWN_WEIGHTS, FREESTYLE_PATTERN_OWN ...)
TABLE_NAMES = ("OWN_WEIGHTS", "OPP_WEIGHTS", "PATTERN_OWN", "PATTERN_OPP", "PAIR_OWN", "PAIR_OPP")


def _load(paths: tuple[str, ...], rule):
    from gomoku.engine.game import records

    recs = []
    for path in paths:
        try:
            recs.extend(records.load_all(path, rule))
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    return recs


def _next_group(groups) -> int:
    """First game index not used by the groups so far (each source numbers its games from 0)."""
    return max((int(g.max()) + 1 for g in groups if len(g)), default=0)


@click.command()
@click.argument("games", nargs=-1, metavar="[GAMES]...")
@click.option("--scores", "score_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Positions labelled by a teacher engine (format: gomoku.train.tuning.load_scored; "
                   "repeatable), instead of or besides GAMES.")
@click.option("--min-ply", type=click.IntRange(min=0), default=6, show_default=True,
              help="Skip the first N plies of each game (opening moves say little about the weights).")
@rule_option(default=None, help="Use only games of this rule (freestyle, standard, renju, caro, caro5); also the "
                                "rule of .psq files.")
@click.option("--l2", type=click.FloatRange(min=0), default=1e-3, show_default=True,
              help="L2 penalty on the standardised weights.")
@click.option("--holdout", type=click.FloatRange(0, 1, max_open=True), default=0.2, show_default=True,
              help="Share of games held out to check the fit (split by game; 0 = fit on all).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the holdout split.")
@click.option("--scale", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Evaluation units per logit for the fitted tables (default: the K at which the "
                   "current tables predict best). Pins the unit, so a fit whose own best K lies "
                   "off the current one can be reproduced.")
@click.option("--patterns/--no-patterns", default=True, show_default=True,
              help="Fit the line-pattern and pattern-pair tables too, or the class tables alone "
                   "(the pattern and pair tables then stay as they are: all zero for the rules "
                   "that have none).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the fitted tables to this file (JSON), for a player spec's "
                   "tables= option: `gomoku match classical:tables=FILE classical` is the A/B.")
@progress_option(help="Progress bar over games (default: when stderr is a terminal).")
def tune(games: tuple[str, ...], score_files: tuple[str, ...], min_ply: int, rule: Optional[Rule],
         l2: float, holdout: float, seed: int, scale: Optional[float], patterns: bool,
         out_path: Optional[str], progress: Optional[bool]) -> None:
    """Fit the evaluation weights (class, line-pattern and pattern-pair tables, OWN/OPP each) to the results
    of GAMES (.sgf, .psq) or to the teacher's scores in --scores files.

    Texel tuning: each position from --min-ply on that the search's leaf evaluation scores
    is labelled with the game's result for the side to move, and the logistic of the
    evaluation is fitted to those labels. A --scores position is labelled with the
    teacher's win probability instead (--min-ply does not apply: the file chose them).
    Prints the error of the current tables, the error of the fit on the training and
    held-out games, and the fitted tables ready to paste into engine/search/evaluation.py
    (or, with --out, a tables file a player spec can name).
    """
    import numpy as np
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from gomoku.engine.search import evaluation
    from gomoku.train import tuning

    if not games and not score_files:
        raise click.UsageError("give GAMES or --scores FILE")
    output_path(out_path, "--out")
    if out_path and rule is None and not score_files:
        raise click.UsageError("--out needs a rule: give --rule (a tables file holds one rule's tables)")
    Xs, ys, gis = [], [], []
    for path in score_files:
        try:
            file_rule, X, y, gi = tuning.load_scored(path)
        except (OSError, ValueError) as exc:
            raise click.ClickException(str(exc)) from None
        if rule is None:
            rule = file_rule
        elif file_rule != rule:
            raise click.ClickException(f"{path} holds {file_rule.label} positions, not {rule.label}")
        Xs.append(X)
        ys.append(y)
        gis.append(gi + _next_group(gis))

    recs = _load(games, rule)
    if rule is not None:
        recs = [r for r in recs if r.rule == rule]
    finished = [r for r in recs if r.result is not None]

    console = Console(stderr=True)
    live = console.is_terminal if progress is None else progress
    bar = Progress(TextColumn("[bold]replaying games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=console, transient=True, disable=not live)
    with bar:
        task = bar.add_task("games", total=len(finished))
        X, y, gi = tuning.extract(finished, min_ply=min_ply, on_game=lambda _r: bar.advance(task))
    Xs.append(X)
    ys.append(y)
    gis.append(gi + _next_group(gis))
    X, y, gi = np.concatenate(Xs), np.concatenate(ys), np.concatenate(gis)
    if not patterns:
        X[:, tuning.PATTERN_COLUMNS] = 0.0      # no data: the fit leaves the tables as they are

    n_games = len(np.unique(gi))
    if len(y) < MIN_POSITIONS:
        raise click.ClickException(
            f"only {len(y)} positions from {n_games} games with a result (of {len(recs)} read"
            + (f", and {len(score_files)} score files" if score_files else "")
            + f"); need at least {MIN_POSITIONS}: give more games or a lower --min-ply")

    train = tuning.split_by_game(gi, holdout, seed)
    test = ~train
    Xt, yt = X[train], y[train]
    g_train = len(np.unique(gi[train]))

    now = evaluation.tables(None if rule is None else int(rule))
    k_now = tuning.best_scale(Xt, yt, now)
    k_out = k_now if scale is None else scale
    w = tuning.fit(Xt, yt, l2=l2)
    fitted = tuning.to_tables(w, k_out, now, seen=Xt.any(axis=0))
    k_fit = tuning.best_scale(Xt, yt, fitted)

    def errors(tables, k) -> str:
        text = f"MSE {'train' if test.any() else 'all'} {tuning.mse(Xt, yt, tables, k):.4f}"
        if test.any():
            text += f"  holdout {tuning.mse(X[test], y[test], tables, k):.4f}"
        return text

    skipped = len(recs) - len(finished)
    click.echo(f"games: {n_games} used (train {g_train}, holdout {n_games - g_train})"
               + (f", {skipped} without a result skipped" if skipped else ""))
    click.echo(f"positions: {len(y)} (train {int(train.sum())}, holdout {int(test.sum())}), "
               f"from ply {min_ply}, mean label for the side to move {np.mean(y):.3f}")
    click.echo(f"current tables: K={k_now:.1f}  {errors(now, k_now)}")
    click.echo(f"fitted tables:  K={k_out:.1f}  {errors(fitted, k_out)}  (own best K={k_fit:.1f})")
    fitted_on = f"the {g_train} training games" if test.any() else f"all {g_train} games"
    click.echo(f"# fitted on {fitted_on}; paste into engine/search/evaluation.py:")
    for name, table in zip(TABLE_NAMES, fitted):
        click.echo(tuning.table_line(name, table))
    if out_path:
        try:
            evaluation.save_tables(out_path, {int(rule): fitted})
        except OSError as exc:
            raise click.ClickException(f"cannot write {out_path}: {exc.strerror or exc}") from None
        click.echo(f"# written to {out_path} ({rule.label}); play it with classical:tables={out_path}")
