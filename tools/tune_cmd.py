"""`gomoku tune`: fit the classical evaluation's weight tables to game results (Texel) or to a
teacher engine's scores (distillation).

A thin command over engine.fit.tuning: reads SGF collections and .psq games (replayed by
`extract`) and/or files of positions a stronger engine has scored (`read_scored`), fits the
logistic model on a share of the games (`fit_tables`), reports how well the current and the
fitted tables predict the labels on both shares (`report`), and with --out writes the fitted
tables as a tables file, the format of the tables the engine loads
(engine/data/eval_tables.json).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import click
from click.core import ParameterSource

from gomoku.engine.game.rules import Rule
from gomoku.tools.options import ExistingFile, output_path, progress_option, rule_option


def _load(paths: tuple[str, ...], rule: Optional[Rule]) -> list[Any]:
    from gomoku.engine.game import records

    recs = []
    for path in paths:
        try:
            recs.extend(records.load_all(path, rule))
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    return recs


def _stderr_bar(progress: Optional[bool], *columns: Any) -> Any:
    """A transient rich progress bar on stderr: shown on a terminal unless --progress says."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    live = console.is_terminal if progress is None else progress
    return Progress(*columns, console=console, transient=True, disable=not live)


def _replay(finished: list[Any], min_ply: int, progress: Optional[bool]) -> tuple[Any, Any, Any]:
    """The finished games' positions, behind a progress bar on a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from gomoku.engine.fit import tuning

    bar = _stderr_bar(progress, TextColumn("[bold]replaying games"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn())
    with bar:
        task = bar.add_task("games", total=len(finished))
        return tuning.extract(finished, min_ply=min_ply, on_game=lambda _r: bar.advance(task))


def _read_labels(paths: tuple[str, ...], rule: Optional[Rule], lam: float, scale: float,
                 progress: Optional[bool]) -> tuple[Rule, list[tuple[Any, Any, Any]]]:
    """The labels files' positions for the fit, with a count of the positions read so far."""
    from rich.progress import TextColumn, TimeElapsedColumn

    from gomoku.engine.fit.label_positions import read_label_rows

    bar = _stderr_bar(progress, TextColumn("[bold]reading labels"), TextColumn("{task.completed:,} positions"),
                      TimeElapsedColumn())
    with bar:
        task = bar.add_task("labels", total=None)
        return read_label_rows(paths, rule, lam, scale, on_game=lambda n: bar.update(task, completed=n))


@click.command()
@click.argument("games", nargs=-1, metavar="[GAMES]...")
@click.option("--scores", "score_files", multiple=True, type=ExistingFile("scores"),
              help="Positions labelled by a teacher engine (format: gomoku.engine.fit.tuning.load_scored; "
                   "repeatable), instead of or besides GAMES.")
@click.option("--labels", "label_files", multiple=True, type=ExistingFile("labels"),
              help="Scored games (`gomoku labels`, `gomoku match --labels`; repeatable), instead of or besides "
                   "GAMES: each position the leaf scores is labelled with --lambda times its search's score as a "
                   "win probability (at the evaluation's K of 1000) plus the rest the game's result.")
@click.option("--lambda", "lam", type=click.FloatRange(0, 1), default=0.7, show_default=True,
              help="(--labels) Share of a position's label that is its search's score; the game's result the rest.")
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
@click.option("--eval", "eval_file", type=ExistingFile("evaluator"), default=None, metavar="FILE",
              help="Fit nothing: score a learned evaluator (NAME.eval.npz), the tables and their blends "
                   "(share=30/50/70) against the --scores files' teacher. With --holdout H given, only "
                   "the games `gomoku train --scores-holdout H` keeps out; else all.")
@click.option("--spsa", "spsa_names", default=None, metavar="NAME,...",
              help="Tune these search parameters (gomoku params) by SPSA self-play at fixed nodes instead of "
                   "fitting tables: the options below marked (SPSA) apply; GAMES are not read.")
@click.option("--dir", "spsa_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("spsa"),
              show_default=True, help="(SPSA) The run's folder: state, history, params.json, paths.png. A rerun "
                                      "with the same options continues the run there.")
@click.option("--iterations", type=click.IntRange(1), default=1000, show_default=True,
              help="(SPSA) Iterations: each plays --pairs game pairs of theta+c against theta-c.")
@click.option("--nodes", type=click.IntRange(1), default=20000, show_default=True,
              help="(SPSA) Nodes a move.")
@click.option("--pairs", type=click.IntRange(1), default=1, show_default=True,
              help="(SPSA) Game pairs (one opening, colours swapped) an iteration.")
@click.option("-c", "--concurrency", type=click.IntRange(1, 64), default=2, show_default=True,
              help="(SPSA) Games played at once (worker processes).")
@click.option("-o", "--openings", default="book", show_default=True,
              help="(SPSA) Openings, as gomoku match -o takes them.")
@click.option("--openings-from", type=click.IntRange(1), default=1, show_default=True, metavar="K",
              help="(SPSA) Start at the set's K-th opening (keep the openings you report on apart).")
@click.option("--r-end", type=click.FloatRange(0, min_open=True), default=0.002, show_default=True,
              help="(SPSA) Learning rate a/c^2 at the last iteration (fishtest's r_end).")
@click.option("--plot-every", type=click.IntRange(0), default=50, show_default=True,
              help="(SPSA) Redraw paths.png every N iterations (0: at the end only).")
@progress_option(help="Progress bar over games (default: when stderr is a terminal).")
def tune(games: tuple[str, ...], score_files: tuple[str, ...], label_files: tuple[str, ...], lam: float,
         min_ply: int, rule: Optional[Rule],
         l2: float, holdout: float, seed: int, scale: Optional[float], patterns: bool,
         out_path: Optional[str], eval_file: Optional[str], spsa_names: Optional[str], spsa_dir: Path,
         iterations: int, nodes: int, pairs: int, concurrency: int, openings: str, openings_from: int,
         r_end: float, plot_every: int, progress: Optional[bool]) -> None:
    """Fit the evaluation weights (class, line-pattern and pattern-pair tables, OWN/OPP each) to the results
    of GAMES (.sgf, .psq) or to the teacher's scores in --scores files.

    Texel tuning: each position from --min-ply on that the search's leaf evaluation scores
    is labelled with the game's result for the side to move, and the logistic of the
    evaluation is fitted to those labels. A --scores position is labelled with the
    teacher's win probability instead (--min-ply does not apply: the file chose them).
    Prints the error of the current tables, the error of the fit on the training and
    held-out games, and the fitted tables; --out writes them as a tables file, which a
    player spec can name (classical:tables=FILE) and which can ship as that rule's entry of
    the engine's own tables.

    With --spsa NAME,...: tune those search parameters by self-play instead (SPSA: each
    iteration plays theta + c against theta - c at --nodes a move and moves theta towards
    the side that won). The run lives in --dir and continues there after a stop or a kill;
    play the result as classical:params=DIR/params.json.

    With --labels FILE: the search is the teacher. Each scored position of those games gets
    its search's score as a win probability, blended with the result (--lambda).
    """
    if spsa_names is not None:
        if games or score_files or label_files or eval_file or out_path:
            raise click.UsageError("--spsa plays its own games: no GAMES, --scores, --labels, --eval or --out "
                                   "(the parameters go to --dir's params.json)")
        from gomoku.tools import spsa_cmd
        spsa_cmd.run([n for n in spsa_names.split(",") if n.strip()], spsa_dir, iterations, nodes,
                     rule or Rule.FREESTYLE, openings, openings_from, pairs, concurrency, seed, r_end, progress,
                     plot_every)
        return
    from gomoku.engine.search import evaluation
    from gomoku.engine.fit import tuning

    if eval_file:
        held = click.get_current_context().get_parameter_source("holdout") == ParameterSource.COMMANDLINE
        _check(eval_file, score_files, holdout if held else 0.0)
        return
    if not games and not score_files and not label_files:
        raise click.UsageError("give GAMES, --scores FILE or --labels FILE")
    output_path(out_path, "--out")
    if out_path and rule is None and not score_files and not label_files:
        raise click.UsageError("--out needs a rule: give --rule (a tables file holds one rule's tables)")
    try:
        rule, parts = tuning.read_scored(score_files, rule)
        if label_files:
            from gomoku.engine.search.learned import DEFAULT_EVAL_SCALE
            rule, labelled = _read_labels(label_files, rule, lam, DEFAULT_EVAL_SCALE, progress)
            parts += labelled
    except (OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    recs = _load(games, rule)
    if rule is not None:
        recs = [r for r in recs if r.rule == rule]
    finished = [r for r in recs if r.result is not None]
    X, y, gi = tuning.stack(parts + [_replay(finished, min_ply, progress)])
    if len(y) < tuning.MIN_POSITIONS:
        raise click.ClickException(
            f"only {len(y)} positions from {len(set(gi.tolist()))} games with a result (of {len(recs)} read"
            + (f", and {len(score_files)} score files" if score_files else "")
            + (f", and {len(label_files)} labels files" if label_files else "")
            + f"); need at least {tuning.MIN_POSITIONS}: give more games or a lower --min-ply")
    now = evaluation.tables(None if rule is None else int(rule))
    result = tuning.fit_tables(X, y, gi, now, l2=l2, holdout=holdout, seed=seed, scale=scale, patterns=patterns)
    for line in tuning.report(result, min_ply, skipped=len(recs) - len(finished)):
        click.echo(line)
    ship = (f"copy its {rule.label} entry over the one in" if rule is not None
            else "copy its entry over its rule's in") \
        + f" {evaluation.TABLES_FILE}, the tables the engine loads"
    if not out_path:
        click.echo(f"# --out FILE{'' if rule is not None else ' --rule RULE'} writes them as a tables file: play it with "
                   f"classical:tables=FILE; to ship it, {ship}")
        return
    assert rule is not None     # --out without --rule was refused above, and a scores file has its rule
    try:
        evaluation.save_tables(out_path, {int(rule): result.fitted})
    except OSError as exc:
        raise click.ClickException(f"cannot write {out_path}: {exc.strerror or exc}") from None
    click.echo(f"# written to {out_path} ({rule.label}): play it with classical:tables={out_path}; to ship it, {ship}")


def _check(eval_file: str, score_files: tuple[str, ...], holdout: float) -> None:
    """`tune --eval`: the evaluator, the tables and their blends against the teacher."""
    from gomoku.engine.fit.eval_check import check_evaluator
    from gomoku.engine.search.learned_file import EvalFileError, load_evaluator

    if not score_files:
        raise click.UsageError("--eval needs --scores FILE: the teacher's positions to score it on")
    try:
        learned = load_evaluator(eval_file)
        got = check_evaluator(score_files, learned, holdout)
    except (EvalFileError, OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"positions: {got.positions} the search's leaf scores, from {got.games} games"
               + (f" (those `gomoku train --scores-holdout {holdout}` keeps out)" if holdout > 0 else ""))
    click.echo(f"value cross-entropy against the teacher at K={learned.eval_scale:g} "
               f"(lower is better; the teacher's own entropy is {got.floor:.4f}); quiet: the "
               f"{got.positions - got.decided} positions it scores between an announced win and loss, "
               f"decided: the {got.decided} it announces:")
    click.echo(f"  {'':<40} {'all':>7} {'quiet':>7} {'decided':>7}")
    for share, loss in got.loss.items():
        name = ("the tables" if share == 0 else f"{learned.name}" if share == 100
                else f"blend share={share}")
        parts = (f"{part[share]:7.4f}" if share in part else f"{'-':>7}" for part in (got.loss_quiet, got.loss_decided))
        click.echo(f"  {name:<40} {loss:7.4f} {' '.join(parts)}")
