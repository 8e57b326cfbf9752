"""`gomoku analyze RECORD`: review a recorded game with the engine (engine.player.review).

Reads what `play --save`, `match --sgf/--psq` and Piskvork write (.sgf, collections included,
and .psq), searches every position at one budget over worker processes, prints the report
(tools.review_view) and writes what was asked: the record again as SGF with a comment and a
mark on every move (`--out`), the same data as JSON (`--json`), a PNG of the winning chance
(`--plot`). Ctrl-C keeps what was done: the report and the files cover the moves reviewed so
far, and the command exits 130.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import click

from gomoku.engine.game.rules import Rule
from gomoku.tools.options import INTERRUPTED, live_view, output_path, progress_option, rule_option


def _suffix(path: Optional[str], option: str, suffix: str) -> Optional[Path]:
    """An output file of `option`, checked before any search: its extension and its folder."""
    if path is None:
        return None
    if Path(path).suffix.lower() != suffix:
        raise click.BadParameter(f"the file must end in {suffix}", param_hint=option)
    return output_path(path, option)


def load_game(record: Path, rule: Optional[Rule], game: Optional[int]) -> tuple[Any, int, int]:
    """The game to review (a record of engine.game.records), its number and the file's count
    of games; a bad file or game number is one line (click.ClickException)."""
    from gomoku.engine.game import records
    try:
        games = records.load_all(record, rule)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    number = game or 1
    if number > len(games):
        raise click.BadParameter(f"{record} holds {len(games)} game{'s' if len(games) > 1 else ''}",
                                 param_hint="--game")
    return games[number - 1], number, len(games)


@click.command(name="analyze")
@click.argument("record", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--game", "game", type=click.IntRange(min=1), default=None,
              help="Which game of an SGF collection to review (1 is the first) [default: 1].")
@click.option("--time", "seconds", type=click.FloatRange(min=0.01, max=600), default=None,
              help="Seconds of search a position (instead of --nodes).")
@click.option("--nodes", type=click.IntRange(min=100), default=None,
              help="Nodes of search a position [default: 400000: a 60-move game in about a minute on 2 cores].")
@rule_option(default=None, help="Rule of a record that names none (.psq; SGF without RU): freestyle, standard, "
                                "renju, caro, caro5 [default: freestyle].")
@click.option("--from", "first", type=click.IntRange(min=1), default=1, show_default=True,
              help="First move to review (the moves before it are played, not judged).")
@click.option("-c", "--concurrency", type=click.IntRange(1, 64), default=None,
              help="Worker processes that search positions [default: every core].")
@click.option("--out", default=None, metavar="FILE.sgf",
              help="Write the game as SGF with a comment on every move and the engine's move marked.")
@click.option("--json", "json_path", default=None, metavar="FILE.json", help="Write the review as JSON.")
@click.option("--plot", default=None, metavar="FILE.png",
              help="Write a PNG of the winning chance over the game (needs matplotlib).")
@progress_option("Progress bar (default: when stderr is a terminal).")
def analyze(record: Path, game: Optional[int], seconds: Optional[float], nodes: Optional[int],
            rule: Optional[Rule], first: int, concurrency: Optional[int], out: Optional[str],
            json_path: Optional[str], plot: Optional[str], progress: Optional[bool]) -> None:
    """Review the game in RECORD (.sgf or .psq): every move's winning chance before and after
    it, the engine's move, forced wins the threat solvers prove, renju fouls, the mistakes
    marked ?! ? ?? and the move that lost the game."""
    from gomoku.engine.base.limits import Limit
    from gomoku.engine.player.review import DEFAULT_NODES, review_game
    if seconds is not None and nodes is not None:
        raise click.UsageError("give --time or --nodes, not both")
    sgf_out = _suffix(out, "--out", ".sgf")
    json_out = _suffix(json_path, "--json", ".json")
    plot_out = _suffix(plot, "--plot", ".png")
    rec, number, games = load_game(record, rule, game)
    if rule is not None and rec.rule != rule:
        click.echo(f"note: {record} says the rule is {Rule(rec.rule).label}; --rule is for records "
                   f"that name none", err=True)
    if not rec.moves:
        raise click.ClickException(f"{record}: the record has no moves to review")
    if first > len(rec.moves):
        raise click.BadParameter(f"the game has {len(rec.moves)} moves", param_hint="--from")
    limit = Limit(turn_time=seconds) if seconds is not None else Limit(nodes=nodes or DEFAULT_NODES)
    from rich.console import Console
    console = Console(stderr=True, highlight=False)
    from gomoku.tools.prepare import ensure_compiled
    ensure_compiled(console)
    show = live_view(progress, sys.stderr)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn
    with Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(), TextColumn("positions"),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(), console=console,
                  transient=True, disable=not show) as bar:
        task = bar.add_task("review", total=None)

        shown = [-1]

        def on_progress(done: int, total: int) -> None:
            """The bar, or without one a line at the start and then about every 5 %."""
            bar.update(task, completed=done, total=total)
            if show:
                return
            if shown[0] < 0:
                click.echo(f"reviewing {total} positions", err=True)
            elif done == total or done - shown[0] >= max(1, total // 20):
                click.echo(f"{done}/{total} positions reviewed", err=True)
            else:
                return
            shown[0] = done

        from concurrent.futures.process import BrokenProcessPool
        try:
            review = review_game(rec, limit, first=first, workers=concurrency, on_progress=on_progress)
        except ValueError as exc:
            raise click.ClickException(f"{record}: {exc}") from None
        except BrokenProcessPool:
            raise click.ClickException("review aborted: a worker process died (-c 1 searches in this one)") from None
    show_review(review, record, number, games, sgf_out, json_out, plot_out)
    if review.interrupted:
        sys.exit(INTERRUPTED)


def show_review(review: Any, record: Path, number: int, games: int, sgf_out: Optional[Path],
                json_out: Optional[Path], plot_out: Optional[Path]) -> None:
    """Print the report and write the files asked for (each atomically): after Ctrl-C too,
    with what was reviewed."""
    from gomoku.engine.player.agent import searcher_name
    from gomoku.engine.game import records
    from gomoku.engine.player.review import review_json, sgf_annotations
    from gomoku.tools.review_view import game_line, report_lines, write_plot
    for line in report_lines(review, str(record), number, games, engine=searcher_name(None)):
        click.echo(line)
    written = []
    try:
        if sgf_out is not None:
            text = records.sgf_game_string(review.record, sgf_annotations(review))
            records.write_text(sgf_out, text)
            written.append(str(sgf_out))
        if json_out is not None:
            from gomoku.engine.base.fileio import write_atomic
            write_atomic(json_out, json.dumps(review_json(review, str(record), number), indent=1) + "\n")
            written.append(str(json_out))
        if plot_out is not None:
            why = write_plot(review, plot_out, game_line(review, record.name, number, games))
            if why is None:
                written.append(str(plot_out))
            else:
                click.echo(why, err=True)
    except (OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if written:
        click.echo(f"wrote {', '.join(written)}")
