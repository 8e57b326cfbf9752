"""`gomoku match --players 3 A B`: the three-player Gobang paper's three-player protocol from the command line.

    gomoku match --players 3 pure-mcts:3000 pure-mcts:1000 -n 12 --size 8
    gomoku match --players 3 net3.onnx pure-mcts:2000 --size 11 --json out/r.json

`match_cmd` parses the shared options and hands them here (through tools.handoff, which
refuses the two-player ones) when --players is not 2; the games are played by
`gomoku.engine.match.nplayer` (cycles of six seatings, win 3 / draw 1 / loss 0).
Every user error ends as one line (exit status 2 for a bad option, 1 otherwise); 130 after Ctrl-C.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Optional

import click

from gomoku.engine.game.nrecord import write_atomic
from gomoku.engine.game.rules import Rule
from gomoku.engine.match.nplayer import NGameResult, NGameSettings, NMatch, NMatchSummary, Seating
from gomoku.engine.match.players import PlayerError, SpecError, parse_spec
from gomoku.engine.game.nboard import NBoardError
from gomoku.tools.options import INTERRUPTED

#: board side when --size is not given: pure MCTS on larger boards takes minutes a game
DEFAULT_SIDE = 8


def run(specs: list[str], *, players: int, games: Optional[int], width: int, height: int, rule: Rule,
        turn_time: Optional[float], playouts: Optional[int], win_length: int, tolerance: float,
        seed: Optional[int], json_path: Optional[Path], name_a: Optional[str], name_b: Optional[str]) -> None:
    """Play the match and print the report. `games` None: one cycle (2 x players games).
    Two-player options were refused before (tools.handoff)."""
    if len(specs) != 2:
        raise click.UsageError(f"expected two players, got {len(specs)}: {' '.join(specs) or '(none)'}")
    settings = NGameSettings(width=width, height=height, players=players, win_length=win_length, rule=rule,
                             turn_time=turn_time, playouts=playouts, tolerance=tolerance)
    cycle = 2 * players
    try:
        settings.check()
        a, b = parse_spec(specs[0]), parse_spec(specs[1])
        na, nb = name_a or a.name, name_b or b.name
        if na == nb:
            nb += "-2"
        m = NMatch(a, b, settings, games if games is not None else cycle, seed=seed, names=(na, nb))
    except (NBoardError, SpecError) as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    err = json_path is not None and str(json_path) == "-"     # then stdout carries only JSON
    stop = threading.Event()
    try:
        try:
            m.probe()
        except (SpecError, PlayerError) as exc:
            raise click.ClickException(str(exc)) from None
        total = m.games

        def started(i: int, seating: Seating) -> None:
            click.echo(f"Started game {i + 1} of {total} ({seating.label}: {_seats(seating, na, nb)})", err=err)

        def finished(res: NGameResult, summary: NMatchSummary) -> None:
            t = summary.totals()
            click.echo(f"Finished game {res.index + 1}: {res.detail}; {na} {res.points('A')}, {nb} "
                       f"{res.points('B')} (total {t['A']} - {t['B']})", err=err)
        try:
            summary = m.run(on_game_start=started, on_game_end=finished, stop=stop)
        except KeyboardInterrupt:
            stop.set()
            summary = m.summary
            summary.stopped = "interrupted"
    finally:
        m.close()
    for line in summary.report_lines():
        click.echo(line, err=err)
    if summary.stopped:
        click.echo(f"Match stopped early: {summary.stopped}", err=err)
    if json_path is not None:
        data: dict[str, Any] = summary.to_json()
        data["settings"] = {"players": players, "rule": rule.label, "width": width, "height": height,
                            "win_length": win_length, "turn_time": turn_time, "playouts": playouts,
                            "games": m.games, "seed": m.seed, "specs": [a.text, b.text]}
        text = json.dumps(data, indent=1) + "\n"
        if str(json_path) == "-":
            click.echo(text, nl=False)
        else:
            try:
                write_atomic(json_path, text)
            except ValueError as exc:
                raise click.ClickException(str(exc)) from None
    if summary.stopped == "interrupted":
        raise SystemExit(INTERRUPTED)


def _seats(seating: Seating, na: str, nb: str) -> str:
    return ", ".join(f"{s + 1} {na if side == 'A' else nb}" for s, side in enumerate(seating.sides))
