"""`gomoku match`: engine-vs-engine matches with a referee and cutechess-style statistics.

    gomoku match classical:3 random -n 20 -t 0.5
    gomoku match brain:./pbrain-rapfi classical -n 20 --rule renju -c 2 --sgf games.sgf
    gomoku match a.onnx b.onnx -n 100 --sprt elo0=0 elo1=10 --json out.json

The games are played by gomoku.engine.match.arena; this module parses options, shows a live view
and writes the reports. Every user error ends as ONE line: exit status 2 for a bad option (click's
usage error), 1 for a player or file that cannot be used; 130 after Ctrl-C, with the score so far.
"""
from __future__ import annotations

import json
import re
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Optional

import click

from gomoku.engine.match.arena import (GameJob, GameResult, GameSettings, Match, MatchSettings, MatchSummary,
                                 SprtSettings, probe_player)
from gomoku.engine.match.openings import (OpeningError, balanced_openings, book_openings, builtin_openings,
                                          centre_openings, check_openings, default_openings, load_openings)
from gomoku.engine.match.players import PlayerError, SpecError, check_game_fit, match_board, parse_spec
from gomoku.engine.match.specs import kinds_help
from gomoku.engine.game.rules import Rule
from gomoku.protocol.players import make_player
from gomoku.tools.match_records import MatchRecords
from gomoku.tools.options import (INTERRUPTED, ExistingFile, board_option, live_view, output_path, progress_option,
                                  rule_option)

#: while a match runs, --json is rewritten after every game of the first JSON_EVERY_GAME_UPTO,
#: then only once JSON_WAIT_FACTOR times the last rewrite's duration has passed (at most about
#: 5 % of the match); the last is always written
JSON_EVERY_GAME_UPTO = 500
JSON_WAIT_FACTOR = 20.0
_SPRT_KEY = re.compile(r"^(elo0|elo1|alpha|beta|model)=", re.I)


def _parse_sprt(tokens: list[str]) -> Optional[SprtSettings]:
    if not tokens:
        return None
    vals: dict[str, float] = {}
    model = "logistic"
    for tok in " ".join(tokens).replace(",", " ").split():
        key, sep, value = tok.partition("=")
        if sep and key.lower() == "model":
            if value.lower() not in ("logistic", "normalized"):
                raise click.UsageError(f"--sprt: model must be logistic or normalized, got {value!r}")
            model = value.lower()
            continue
        if not sep or key.lower() not in ("elo0", "elo1", "alpha", "beta"):
            raise click.UsageError(f"--sprt takes elo0=X elo1=Y [alpha=A beta=B model=M], got {tok!r}")
        try:
            vals[key.lower()] = float(value)
        except ValueError:
            raise click.UsageError(f"--sprt: {key} must be a number, got {value!r}") from None
    if "elo0" not in vals or "elo1" not in vals:
        raise click.UsageError("--sprt needs elo0=X and elo1=Y")
    s = SprtSettings(vals["elo0"], vals["elo1"], vals.get("alpha", 0.05), vals.get("beta", 0.05), model)
    if s.elo1 <= s.elo0:
        raise click.UsageError("--sprt needs elo1 > elo0")
    if not (0 < s.alpha < 1 and 0 < s.beta < 1):
        raise click.UsageError("--sprt alpha and beta must be between 0 and 1")
    return s


# ----------------------------------------------------------------------------- live view

class _View:
    """Progress bar + running score on a terminal; plain cutechess-style lines otherwise."""

    def __init__(self, total: int, live: bool, name_a: str, name_b: str, err: bool = False) -> None:
        self.total, self.live, self.err = total, live, err
        self.name_a, self.name_b = name_a, name_b
        self.progress: Any = None
        self.last_score: Optional[str] = None      # the score line printed after the last game
        if live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            self.console = Console(stderr=err)
            self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.fields[score]}"),
                                     console=self.console, transient=False)
            self.task = self.progress.add_task(f"{name_a} vs {name_b}", total=total, score="")

    def __enter__(self) -> "_View":
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()

    def echo(self, line: str) -> None:
        if self.progress is not None:
            self.progress.console.print(line, markup=False, highlight=False)
        else:
            click.echo(line, err=self.err)

    def started(self, job: GameJob) -> None:
        if self.progress is None:
            a, b = (self.name_a, self.name_b) if job.a_is_black else (self.name_b, self.name_a)
            click.echo(f"Started game {job.index + 1} of {self.total} ({a} vs {b})", err=self.err)

    def finished(self, res: GameResult, summary: MatchSummary) -> None:
        self.echo(f"Finished game {res.index + 1} ({res.black} vs {res.white}): {res.text()}")
        w, l, d = summary.wld()
        if self.progress is not None:
            from gomoku.engine.match import stats
            extra = f"  {stats.elo_brief(w, l, d)}" if w + l + d else ""
            if summary.sprt is not None:
                extra += f"  llr {summary.sprt.llr:.2f}"
            self.progress.update(self.task, advance=1, score=f"{w} - {l} - {d}{extra}")
        else:
            from gomoku.engine.match import stats
            self.last_score = stats.score_line(summary.name_a, summary.name_b, w, l, d)
            click.echo(self.last_score, err=self.err)
            if summary.sprt is not None:
                # a long test's log says where it stands after every game, as cutechess's does
                click.echo(f"...      {summary.pentanomial().line()}", err=self.err)
                if any(summary.earlier):
                    click.echo(f"...      with the earlier runs: {summary.pentanomial_all().line()}", err=self.err)
                click.echo(f"...      {stats.sprt_line(summary.sprt, summary.sprt_basis)}", err=self.err)


# ----------------------------------------------------------------------------- command

@click.command(name="match", context_settings={"help_option_names": ["-h", "--help"]}, epilog=kinds_help())
@click.argument("players", nargs=-1, required=True, metavar="PLAYER_A PLAYER_B")
@click.option("-n", "--games", type=click.IntRange(1), default=2, show_default=True, help="Number of games.")
@rule_option()
@board_option(default=None, help="Board size: N or WxH, sides 5..22 [default: the size the nets were trained "
                                 "for when they name one, else 15; 8 with --players 3].")
@click.option("-t", "--time", "turn_time", type=click.FloatRange(0), default=None,
              help="Seconds per move (protocol timeout_turn). 0: no clock; MCTS players and nets search their "
                   "playouts, players with nodes=/depth= search to them, the rest move at once. "
                   "Default 1, or no cap when --match-time/--nodes/--depth/--playouts is given.")
@click.option("--match-time", type=click.FloatRange(0, min_open=True), default=None,
              help="Seconds per player for the whole game (protocol timeout_match).")
@click.option("--nodes", type=click.IntRange(1), default=None, help="Node limit per move.")
@click.option("--depth", type=click.IntRange(1), default=None, help="Depth limit per move.")
@click.option("--playouts", type=click.IntRange(1), default=None, help="Playouts per move (MCTS players).")
@click.option("--win", "win_length", type=click.IntRange(4, 5), default=5, show_default=True,
              help="Stones in a row that win; 4 only between MCTS players, nets and random.")
@click.option("--players", "seat_count", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Seats at the board. 3: the three-player paper's protocol, every seating of 1 A vs 2 B and 2 A vs 1 B, "
                   "win 3 / draw 1 / loss 0; -n a multiple of 6 (default 6), --size default 8.")
@click.option("--tolerance", type=click.FloatRange(0), default=1.0, show_default=True,
              help="Seconds allowed over a time limit before a time forfeit.")
@click.option("--start-timeout", type=click.FloatRange(0, min_open=True), default=10.0, show_default=True,
              help="Seconds a brain has to answer ABOUT and START.")
@click.option("-o", "--openings", default="auto", show_default=True,
              help="'balanced' (100 openings Rapfi judged even: 15x15 freestyle/standard), 'book' (the "
                   "engine's own 15x15 book of thousands over the whole board: freestyle, standard, renju), "
                   "'centre' (its book of thousands in the central 5x5), "
                   "'builtin' (26 classical 3-stone openings), 'auto' (balanced where it exists, else builtin), "
                   "'none', or a file (pos h8i9j7 or offset -1,0, 0,1).")
@click.option("--replay", is_flag=True,
              help="Allow more games than twice the openings (each opening is then played again; at fixed "
                   "nodes that replays the same games).")
@click.option("--openings-from", "openings_from", type=click.IntRange(1), default=1, show_default=True, metavar="K",
              help="Start at the set's K-th opening: a test that continues a stopped one, or one kept apart from "
                   "the openings others were tuned on, plays openings no earlier run played.")
@click.option("--continue", "continues", type=ExistingFile("match result"), default=None, metavar="FILE.json",
              help="Continue a stopped test: FILE is its --json. The games start at the first opening it did "
                   "not reach, and its game pairs count in this run's SPRT (which must have the same players, "
                   "limits, rule, openings and hypotheses).")
@click.option("--openings-format", type=click.Choice(["auto", "pos", "offset"]), default="auto", show_default=True,
              help="How an openings file writes moves: pos (h8i9j7), offset (-1,0 0,1, from the centre) or auto.")
@click.option("--random-order", is_flag=True, help="Shuffle the openings (reproducible with --seed).")
@click.option("-c", "--concurrency", type=click.IntRange(1, 4096), default=None,
              help="Games played at once: worker processes (default 1, at most 64), or Ray actors with --ray "
                   "(default: every CPU of the cluster).")
@click.option("--ray", "ray", default=None, metavar="ADDRESS|local",
              help="Play the games on Ray actors: 'local' starts Ray on this machine's cores, an address joins "
                   "that cluster (its nodes need the same gomoku installed). Same report, records and SPRT. "
                   "Needs the ray extra.")
@click.option("--draw-after", type=click.IntRange(1), default=None,
              help="Adjudicate a draw when this many stones are on the board.")
@click.option("--adjudicate", "adjudicate_proven", is_flag=True,
              help="End a game as soon as both players see it decided: one's last report is a proven win, "
                   "the other's a proven loss (reason 'proven', counted as a win).")
@click.option("--seed", type=int, default=None, help="Seed for opening order and random players.")
@click.option("--sprt", "sprt_text", default=None, metavar="elo0=X elo1=Y [alpha=A beta=B model=M]",
              help="Stop early when the SPRT decides: on the game pairs' pentanomial counts "
                   "(fishtest's GSPRT; an odd -n: on games, cutechess's model). model=logistic "
                   "(default) or normalized: what elo0/elo1 are.")
@click.option("--sgf", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write this match's games to this SGF collection, rewritten after every game "
                   "(an existing file is replaced, unless --append).")
@click.option("--psq", "psq_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each game as DIR/game_NNNN.psq (Piskvork format); the game_NNNN.psq files "
                   "already in DIR are replaced, unless --append.")
@click.option("--labels", "labels", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Add every game to this training-data file: each position with the score and best move its "
                   "player's search reported, and the result (docs/train.md). An existing file keeps its games.")
@click.option("--append", is_flag=True,
              help="Keep the games already in --sgf FILE and --psq DIR: this match's follow them.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write results and statistics to this JSON file ('-' = stdout, the report then goes to stderr).")
@click.option("--max-memory", type=click.IntRange(0), default=0,
              help="MiB announced to brains as INFO max_memory (0 = not sent).")
@click.option("--brain-info", multiple=True, metavar="KEY=VALUE",
              help="Extra 'INFO KEY VALUE' line for external brains, e.g. thread_num=1 (repeatable).")
@click.option("--name-a", default=None, help="Display name of player A.")
@click.option("--name-b", default=None, help="Display name of player B.")
@progress_option()
def match(players: tuple[str, ...], games: int, rule: Rule, board: Optional[tuple[int, int]], turn_time: Optional[float],
          match_time: Optional[float], nodes: Optional[int], depth: Optional[int], playouts: Optional[int],
          win_length: int, seat_count: int,
          tolerance: float, start_timeout: float, openings: str, openings_from: int, continues: Optional[str],
          openings_format: str,
          random_order: bool, replay: bool, concurrency: Optional[int], ray: Optional[str], draw_after: Optional[int],
          adjudicate_proven: bool, seed: Optional[int],
          sprt_text: Optional[str],
          sgf: Optional[Path], psq_dir: Optional[Path], labels: Optional[Path], append: bool,
          json_path: Optional[Path], max_memory: int,
          brain_info: tuple[str, ...], name_a: Optional[str],
          name_b: Optional[str], progress: Optional[bool]) -> None:
    """Play PLAYER_A against PLAYER_B and report score, Elo difference, LOS and SPRT.

    Each opening is played twice with colours swapped; the two games are one pair of the
    report's Ptnml line and of the SPRT. The players and what each takes are listed below
    (the table in docs/players.md says what every key means).
    """
    if seat_count != 2:
        _run_nplayer(players, seat_count, games, rule, board, turn_time, playouts, win_length, tolerance, seed,
                     json_path, name_a, name_b)
        return
    specs, sprt = _split_players(players, sprt_text)
    concurrency = resolve_concurrency(concurrency, ray)
    if turn_time is None and not (match_time or nodes or depth or playouts):
        turn_time = 1.0
    spec_a, spec_b, width, height, warnings = _parse_players(specs, board, rule, win_length)
    ops = choose_openings(openings, openings_format, width, height, rule)
    # what makes two runs one test: a --continue must match them, and --json records them
    identity = {"rule": rule.label, "width": width, "height": height, "turn_time": turn_time,
                "match_time": match_time, "nodes": nodes, "depth": depth, "playouts": playouts,
                "openings": openings, "players": [spec_a.text, spec_b.text], "sprt": _sprt_json(sprt)}
    earlier = (0, 0, 0, 0, 0)
    if continues is not None:
        from gomoku.tools.match_continue import ContinueError, read_earlier
        if openings_from > 1 or random_order:
            raise click.UsageError("--continue picks the openings itself: leave out --openings-from and "
                                   "--random-order")
        try:
            earlier, openings_from = read_earlier(Path(continues), identity)
        except ContinueError as exc:
            raise click.UsageError(f"--continue {continues}: {exc}") from None
        if openings_from > len(ops):
            raise click.UsageError(f"--continue {continues}: the earlier runs reached all {len(ops)} openings "
                                   "of the set")
    if openings_from > 1:
        if openings_from > len(ops):
            raise click.UsageError(f"--openings-from {openings_from}: the set has {len(ops)} openings")
        ops = ops[openings_from - 1:]
    if ops and games > 2 * len(ops) and not replay:
        raise click.UsageError(f"{games} games need {(games + 1) // 2} openings and the set has {len(ops)}: use a "
                               "larger set (-o book, gomoku openings), fewer games, or --replay")
    infos = _parse_brain_info(brain_info)
    game = GameSettings(width=width, height=height, rule=rule, turn_time=turn_time, match_time=match_time,
                        nodes=nodes, depth=depth, playouts=playouts, tolerance=tolerance,
                        draw_after=draw_after, start_timeout=start_timeout,
                        max_memory=max_memory * 1024 * 1024 if max_memory else None, brain_info=infos,
                        win_length=win_length, factory=make_player, adjudicate_proven=adjudicate_proven)
    settings = MatchSettings(game=game, games=games, openings=tuple(ops), random_order=random_order,
                             seed=seed, concurrency=concurrency, sprt=sprt, earlier_pairs=earlier,
                             runner=ray_games_runner(ray, concurrency))

    # output that cannot be written is refused now, not after the games (folders are made)
    for path, option, folder in ((sgf, "--sgf", False), (psq_dir, "--psq", True), (json_path, "--json", False),
                                 (labels, "--labels", False)):
        output_path(path, option, folder=folder)
    records = _match_records(sgf, psq_dir, append, labels)

    # compile the engine (cold install) before any clock starts, with a progress bar
    from gomoku.tools.prepare import ensure_compiled
    ensure_compiled()

    na, nb = _probe_players(spec_a, spec_b, game, name_a, name_b)
    json_stdout = json_path is not None and str(json_path) == "-"   # then stdout carries only JSON
    live = live_view(progress, sys.stderr if json_stdout else sys.stdout)
    click.echo(game_line(width, height, rule, win_length, games, turn_time, match_time, nodes, depth, playouts),
               err=json_stdout)
    for line in warnings:
        click.echo(f"warning: {line}", err=True)
    for line in records.notices:
        click.echo(line, err=json_stdout)
    run_settings = {**identity, "tolerance": tolerance, "games": games, "openings_from": openings_from,
                    "random_order": random_order, "seed": seed, "concurrency": concurrency,
                    "draw_after": draw_after, "continues": str(continues) if continues is not None else None}
    json_file = json_path if json_path is not None and not json_stdout else None
    m = Match(spec_a.text, spec_b.text, settings, names=(na, nb))
    try:
        summary, last_score = _play(m, _View(games, live, na, nb, err=json_stdout), records, json_file,
                                    run_settings)
    finally:
        records.close()
    _report(summary, last_score, json_stdout, json_file, run_settings)


def resolve_concurrency(concurrency: Optional[int], ray: Optional[str]) -> int:
    """-c's value: worker processes (1 to 64), or Ray actors (0 when not given: the cluster's CPUs)."""
    if ray is None:
        if concurrency is not None and concurrency > 64:
            raise click.BadParameter(f"{concurrency} is more than 64 worker processes (use --ray for more)",
                                     param_hint="-c")
        return concurrency or 1
    from gomoku.train.raycluster import RAY_MISSING, ray_available
    if not ray_available():
        raise click.ClickException(RAY_MISSING)
    if not ray.strip():
        raise click.BadParameter("give 'local' or a Ray cluster address", param_hint="--ray")
    return concurrency or 0


def ray_games_runner(ray: Optional[str], concurrency: int) -> Any:
    """--ray's games runner, with Ray started or joined now (a cluster nobody answers at is
    one line before any game); None without --ray."""
    if ray is None:
        return None
    from gomoku.train.raycluster import RayStartError
    from gomoku.train.raygames import ray_runner
    try:
        return ray_runner(ray.strip(), concurrency)
    except RayStartError as exc:
        raise click.ClickException(str(exc)) from None


def _match_records(sgf: Optional[Path], psq_dir: Optional[Path], append: bool,
                   labels: Optional[Path]) -> MatchRecords:
    """The --sgf/--psq writer; --append without either, or a file --append cannot read, is a
    one-line error before any game."""
    if append and sgf is None and psq_dir is None:
        raise click.UsageError("--append needs --sgf FILE or --psq DIR (the records it adds to)")
    try:
        return MatchRecords(sgf, psq_dir, append, labels)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def _split_players(players: tuple[str, ...], sprt_text: Optional[str]) -> tuple[list[str], Optional[SprtSettings]]:
    """The two player specs and the SPRT: its extra key=value words (`--sprt elo0=0 elo1=10`)
    land among the positional arguments, where click put them."""
    sprt_tokens = [sprt_text] if sprt_text else []
    specs = []
    for tok in players:
        if _SPRT_KEY.match(tok) and sprt_text:
            sprt_tokens.append(tok)
        else:
            specs.append(tok)
    if len(specs) != 2:
        raise click.UsageError(f"expected two players, got {len(specs)}: {' '.join(specs) or '(none)'}")
    return specs, _parse_sprt(sprt_tokens)


def _parse_players(specs: list[str], board: Optional[tuple[int, int]], rule: Rule,
                   win_length: int) -> tuple[Any, Any, int, int, list[str]]:
    """Both specs, the board (the nets' own size unless --size says), and the warnings about
    players that fit the game badly; a spec that cannot be read is a one-line error."""
    try:
        spec_a, spec_b = parse_spec(specs[0]), parse_spec(specs[1])
        width, height = board if board is not None else match_board((spec_a, spec_b))
        warnings = [w for spec in (spec_a, spec_b)
                    for w in check_game_fit(spec, width, height, rule, win_length)]
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None
    return spec_a, spec_b, width, height, warnings


def choose_openings(openings: str, openings_format: str, width: int, height: int, rule: Rule) -> list[Any]:
    """The openings -o names (a set's name or a file), checked against the board and rule
    before any game, so a bad one is a one-line error."""
    try:
        if openings.lower() == "builtin":
            ops = builtin_openings(width, height)
        elif openings.lower() == "balanced":
            ops = balanced_openings(width, height, rule)
        elif openings.lower() == "book":
            ops = book_openings(width, height, rule)
        elif openings.lower() == "centre":
            ops = centre_openings(width, height, rule)
        elif openings.lower() == "auto":
            ops = default_openings(width, height, rule)
        elif openings.lower() == "none":
            ops = []
        else:
            ops = load_openings(openings, width, height, openings_format)
        check_openings(ops, width, height, rule)
    except OpeningError as exc:
        raise click.ClickException(str(exc)) from None
    return ops


def _parse_brain_info(brain_info: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """--brain-info KEY=VALUE words as (key, value) pairs; a key the protocol could not carry
    is a usage error now rather than a confused brain later."""
    infos = []
    for item in brain_info:
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()) or not value.strip():
            raise click.BadParameter(f"{item!r}: use KEY=VALUE, e.g. thread_num=1", param_hint="--brain-info")
        infos.append((key.strip().lower(), value.strip()))
    return tuple(infos)


def _probe_players(spec_a: Any, spec_b: Any, game: GameSettings, name_a: Optional[str],
                   name_b: Optional[str]) -> tuple[str, str]:
    """Fail once, clearly, before any game (unknown or unavailable players, brains that do not
    start); then the display names, made distinct so the score says who is who."""
    for spec in (spec_a, spec_b):
        try:
            probe_player(spec, game)
        except (SpecError, PlayerError) as exc:
            raise click.ClickException(str(exc)) from None
    na = name_a or spec_a.name
    nb = name_b or spec_b.name
    if na == nb:
        nb = nb + "-2"
    return na, nb


def _play(m: Match, view: _View, records: MatchRecords, json_file: Optional[Path],
          run_settings: dict[str, Any]) -> tuple[MatchSummary, Optional[str]]:
    """Run the match under the live view, writing the records after each game (a write that
    fails stops the match: its games would be lost); Ctrl-C stops it with the score so far.
    Returns the summary and the score line the view printed last."""
    stop = threading.Event()
    record_error: list[str] = []
    next_json = [0.0]
    with view:
        def on_end(res: GameResult, summary: MatchSummary) -> None:
            view.finished(res, summary)
            if not record_error:
                try:
                    records.add(res)
                except (OSError, ValueError) as exc:
                    record_error.append(f"cannot write game records: {exc}")
                    stop.set()
            if json_file is not None and not record_error and (len(summary.results) <= JSON_EVERY_GAME_UPTO
                                                                or time.monotonic() >= next_json[0]):
                # what was played so far survives an interrupted match. The file holds every
                # game, so rewriting it after each of 10,000 games would cost more than the
                # games: past JSON_EVERY_GAME_UPTO games, after a write that took t the next
                # waits JSON_WAIT_FACTOR * t
                try:
                    t0 = time.monotonic()
                    write_json(json_file, summary, run_settings, finished=False)
                    next_json[0] = time.monotonic() + JSON_WAIT_FACTOR * (time.monotonic() - t0)
                except OSError as exc:
                    record_error.append(f"cannot write {json_file}: {exc.strerror or exc}")
                    stop.set()
        try:
            summary = m.run(on_game_start=view.started, on_game_end=on_end, stop=stop)
        except KeyboardInterrupt:
            stop.set()
            summary = m.summary
            summary.stopped = "interrupted"
        except (SpecError, PlayerError) as exc:
            raise click.ClickException(str(exc)) from None
        except BrokenProcessPool:
            raise click.ClickException("match aborted: a worker process died (try -c 1 to see the game it was playing)") from None
    if record_error:
        raise click.ClickException(record_error[0])
    return summary, view.last_score


def _report(summary: MatchSummary, last_score: Optional[str], json_stdout: bool, json_file: Optional[Path],
            run_settings: dict[str, Any]) -> None:
    """The final report and JSON; exits with INTERRUPTED after Ctrl-C, once the score so far
    is out."""
    lines = summary.report_lines()
    if lines and lines[0] == last_score:
        lines = lines[1:]            # already printed after the last game: not twice
    for line in lines:
        click.echo(line, err=json_stdout)
    if summary.stopped:
        click.echo(f"Match stopped early: {summary.stopped}", err=json_stdout)
    if json_stdout:
        click.echo(json.dumps(json_data(summary, run_settings, finished=True), indent=1))
    elif json_file is not None:
        try:
            write_json(json_file, summary, run_settings, finished=True)
        except OSError as exc:
            raise click.ClickException(f"cannot write {json_file}: {exc.strerror or exc}") from None
    if summary.stopped == "interrupted":
        sys.exit(INTERRUPTED)


def game_line(width: int, height: int, rule: Rule, win_length: int, games: int, turn_time: Optional[float],
              match_time: Optional[float], nodes: Optional[int], depth: Optional[int],
              playouts: Optional[int]) -> str:
    """The match header: the game every result below was played in, so a log says it once."""
    limits = []
    if turn_time:
        limits.append(f"{turn_time:g} s a move")
    if match_time:
        limits.append(f"{match_time:g} s a game")
    limits += [f"{v} {k}" for k, v in (("nodes", nodes), ("depth", depth), ("playouts", playouts)) if v]
    return (f"Match: {games} games of {rule.label} on {width}x{height}, {win_length} in a row, "
            f"{', '.join(limits) or 'no clock'}")


def _sprt_json(sprt: Optional[SprtSettings]) -> Optional[dict[str, Any]]:
    """The SPRT's hypotheses as the --json settings record them (a continuation must match)."""
    if sprt is None:
        return None
    return {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta, "model": sprt.model}


def json_data(summary: MatchSummary, settings: dict[str, Any], finished: bool) -> dict[str, Any]:
    """The --json document: statistics, every game, the settings; `finished` is false while
    the match still runs (the file is rewritten after each game)."""
    data = summary.to_json()
    data["settings"] = settings
    data["finished"] = finished
    return data


def write_json(path: Path, summary: MatchSummary, settings: dict[str, Any], finished: bool) -> None:
    """Replace the --json file atomically (temp file, fsync, rename). Raises OSError."""
    from gomoku.engine.base.fileio import write_atomic
    write_atomic(path, json.dumps(json_data(summary, settings, finished), indent=1) + "\n")


#: options only two-player matches know; given with --players 3 they are one-line errors
_TWO_PLAYER_ONLY = ("match_time", "nodes", "depth", "sprt_text", "sgf", "psq_dir", "openings", "replay", "random_order",
                    "draw_after", "adjudicate_proven", "brain_info", "max_memory", "concurrency", "append", "ray",
                    "labels", "openings_from", "continues")


def _run_nplayer(specs: tuple[str, ...], seat_count: int, games: int, rule: Rule, board: Optional[tuple[int, int]],
                 turn_time: Optional[float], playouts: Optional[int], win_length: int, tolerance: float,
                 seed: Optional[int], json_path: Optional[Path], name_a: Optional[str], name_b: Optional[str]) -> None:
    """--players 3 (or 4): hand the options to tools.match_nplayer (through tools.handoff, as
    `play` does); options left at their defaults take that protocol's own (one cycle of
    games, an 8x8 board)."""
    from gomoku.tools import match_nplayer
    from gomoku.tools.handoff import to_nplayer
    given = to_nplayer(_TWO_PLAYER_ONLY, f"is for two-player matches; --players {seat_count} takes -n, --size, "
                                         f"--win, --rule, -t, --playouts, --seed, --json, --name-a/--name-b")
    width, height = board if board is not None else (match_nplayer.DEFAULT_SIDE,) * 2
    match_nplayer.run(list(specs), players=seat_count, games=games if given("games") else None,
                      width=width, height=height, rule=rule, turn_time=turn_time, playouts=playouts,
                      win_length=win_length, tolerance=tolerance, seed=seed, json_path=json_path, name_a=name_a,
                      name_b=name_b)
