"""`gomoku labels FILE`: the label engine. Self-play of one engine at a fixed node budget, every
position kept with the search's score, its best move and the game's result (the scored-games
file of engine.game.labels, the file `gomoku match --labels` also writes).

Game i starts from the book's opening i (its rule's book where there is one, else the built-in
openings, in turn) followed by `--random-plies` random moves next to the stones, drawn from
(seed, i): one engine against itself at fixed nodes plays each opening once, so the random
plies are what keeps two games apart. Games are written to FILE in index order as they finish
(out of order on several workers: a finished game waits for the ones before it), so the file
always holds games 0..k-1 and a rerun of the same command, after Ctrl-C or kill -9, starts at
game k and makes the same file an uninterrupted run makes. FILE.json beside it keeps the
settings; a rerun with other settings is refused, not mixed in.
"""
from __future__ import annotations

import json
import random
import sys
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any, Optional

import click

from gomoku.engine.game.rules import Rule


def varied_opening(base: tuple, plies: int, rng: random.Random, width: int, height: int, rule: Rule) -> tuple:
    """`base` followed by `plies` random legal moves within two cells of a stone that make no
    five (a game that is over before it starts teaches nothing)."""
    from gomoku.engine.game.board import Board
    b = Board.from_moves(width, list(base), rule=rule, height=height)
    moves = list(base)
    for _ in range(plies):
        stones = b.moves
        near = [m for m in b.legal_moves()
                if not stones or any(max(abs(m[0] - x), abs(m[1] - y)) <= 2 for x, y in stones)]
        near = [m for m in near if not b.would_win(*m)]
        if not near:
            break
        m = rng.choice(near)
        b.play(*m)
        moves.append(m)
    return tuple(moves)


def _settings_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def _check_settings(path: Path, settings: dict[str, Any], existing_games: int) -> None:
    """Write FILE.json for a new file; refuse a rerun whose settings differ from it."""
    from gomoku.engine.base.fileio import write_atomic
    sp = _settings_path(path)
    if existing_games and sp.is_file():
        try:
            old = json.loads(sp.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        if isinstance(old, dict):
            differ = [k for k in settings if k != "games" and old.get(k) != settings[k]]
            if differ:
                raise click.ClickException(f"{path} was made with other {', '.join(differ)} ({sp}): give the same "
                                           "options to continue it, or another file")
    write_atomic(sp, json.dumps(settings, indent=1) + "\n")


def run(path: Path, games: int, player: str, nodes: int, rule: Rule, random_plies: int, seed: int,
        concurrency: int, ray: Optional[str], progress: Optional[bool]) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from gomoku.engine.game.labels import LabelWriter
    from gomoku.engine.match.arena import LocalGames
    from gomoku.engine.match.games import GameSettings
    from gomoku.engine.match.openings import OpeningError, book_openings, builtin_openings
    from gomoku.engine.match.players import SpecError, parse_spec
    from gomoku.engine.match.pool import GameJob
    from gomoku.tools.options import INTERRUPTED, live_view
    from gomoku.tools.prepare import ensure_compiled

    try:
        parse_spec(player)
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        book = book_openings(15, 15, rule)
    except OpeningError:
        book = builtin_openings(15, 15)
    try:
        writer = LabelWriter(path)
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    done = writer.games_before
    settings = {"player": player, "nodes": nodes, "rule": rule.label, "random_plies": random_plies, "seed": seed,
                "games": games, "book": len(book)}
    _check_settings(path, settings, done)
    if done >= games:
        click.echo(f"{path} already holds {done} games (of {games} asked for)")
        writer.close()
        return
    if done:
        click.echo(f"continuing {path}: {done} of {games} games there")
    ensure_compiled()
    game = GameSettings(width=15, rule=rule, turn_time=0.0, nodes=nodes, adjudicate_proven=True)
    if ray is not None:
        from gomoku.tools.match_cmd import ray_games_runner
        runner = ray_games_runner(ray, concurrency)(concurrency, player, player, game)
    else:
        runner = LocalGames(concurrency or 1, player, player, game)
    width = runner.workers

    def job(i: int) -> Any:
        rng = random.Random(seed * 1_000_003 + i)
        opening = varied_opening(book[i % len(book)], random_plies, rng, 15, 15, rule)
        return GameJob(i, opening, True, seed * 7919 + i)

    live = live_view(progress, sys.stderr)
    bar = Progress(TextColumn("[bold]labels"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[pos]}"),
                   TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), disable=not live)
    positions = 0
    interrupted = False
    next_index, written = done, done
    finished: dict[int, Any] = {}
    pending: dict[Future, int] = {}
    try:
        with bar:
            task = bar.add_task("labels", total=games, completed=done, pos="")
            while written < games:
                while next_index < games and len(pending) < width:
                    pending[runner.play(job(next_index))] = next_index
                    next_index += 1
                ready, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in ready:
                    finished[pending.pop(fut)] = fut.result()
                while written in finished:
                    scored = finished.pop(written).to_labels()
                    writer.write(scored)
                    positions += len(scored.scored())
                    written += 1
                    bar.update(task, completed=written, pos=f"{positions:,} positions")
                    if not live and (written % 100 == 0 or written == games):
                        click.echo(f"{written}/{games} games, {positions:,} positions this run")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        runner.close(kill=interrupted)
        writer.close()
    click.echo(f"{path}: {written} games; this run added {written - done} with {positions:,} scored positions")
    if interrupted:
        click.echo("stopped; the same command continues from there")
        sys.exit(INTERRUPTED)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@click.option("-n", "--games", type=click.IntRange(1), default=1000, show_default=True,
              help="Games FILE should hold: a rerun continues up to this many.")
@click.option("--player", default="classical", show_default=True,
              help="The engine that plays itself and scores the positions (a player spec: a learned "
                   "evaluator as classical:eval=FILE makes the next generation's labels).")
@click.option("--nodes", type=click.IntRange(1), default=20000, show_default=True, help="Nodes a move.")
@click.option("-r", "--rule", "rule", type=click.Choice(["freestyle", "standard", "renju"]), default="freestyle",
              show_default=True, help="Rule of the games (15x15).")
@click.option("--random-plies", type=click.IntRange(0, 20), default=4, show_default=True,
              help="Random moves next to the stones after each book opening.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random plies.")
@click.option("-c", "--concurrency", type=click.IntRange(1, 4096), default=None,
              help="Games at once: worker processes (default 1), or Ray actors with --ray (default: the "
                   "cluster's CPUs).")
@click.option("--ray", default=None, metavar="ADDRESS|local", help="Play on Ray actors (the ray extra).")
@click.option("--progress/--no-progress", "progress", default=None,
              help="Progress bar (default: when stderr is a terminal); else a line every 100 games.")
def labels(path: Path, games: int, player: str, nodes: int, rule: str, random_plies: int, seed: int,
           concurrency: Optional[int], ray: Optional[str], progress: Optional[bool]) -> None:
    """Make training labels: an engine plays itself at --nodes a move, and FILE keeps every
    position with the search's score and best move and the game's result (docs/train.md).

    Rerun the same command to continue a stopped run (also after kill -9); raise -n to make
    more. The file grows about four bytes a position.
    """
    from gomoku.tools.match_cmd import resolve_concurrency
    run(path, games, player, nodes, Rule[rule.upper()], random_plies, seed, resolve_concurrency(concurrency, ray), ray,
        progress)
