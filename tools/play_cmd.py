"""`gomoku play`: a person against the engine (or any player spec), or three or four seats.

The command parses the options of every seat count. Two players go to `play_two` (colours,
renju, hints, .sgf/.psq); `--players 3` (or 4) goes through `tools.handoff`, the hand-off
`match` uses too, to `play_nplayer`. Both sit in `play_session`: one terminal session with a
seat model, the same commands, screen frame and ending (EOF exits 0, Ctrl-C exits 130, both
after saving to --save).

Moves are typed as `h8` (column letter, row 1 at the top) or `7,7` (0-based x,y); both
notations are shown in the board rulers and in every message (see tools/render.py).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import click
from rich.console import Console
from rich.markup import escape

from gomoku.engine.game import records
from gomoku.engine.game.size import MAX_SIZE as MAX_SIDE, MIN_SIZE as MIN_SIDE
from gomoku.engine.game.rules import Rule
from gomoku.engine.match.specs import kind_list
from gomoku.tools.options import board_option, output_path, rule_option

DEFAULT_MOVE_TIME = 1.0
#: options only the two-player game knows; with --players 3 the seats come from --seats
_TWO_PLAYER_ONLY = ("colour", "level", "opponent", "load_path")


def _opponent_spec(opponent: Optional[str], level: Optional[int]) -> Any:
    from gomoku.engine.match.players import SpecError, parse_spec
    if opponent and level is not None:
        raise click.UsageError("give either --level or --opponent, not both")
    text = opponent or ("classical" if level is None else f"classical:{level}")
    try:
        return parse_spec(text)
    except SpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--opponent") from None


def _line_editing() -> None:
    """Arrow keys, history and Ctrl-A/E at the prompt: Python's input() gets them once readline
    is imported (where it exists: not on plain Windows, whose console edits lines itself)."""
    try:
        import readline  # noqa: F401
    except ImportError:
        pass


@click.command("play")
@board_option(default=None, help="Board size: N or WxH, sides 5..22 [default: 15; 11 with --players 3].")
@rule_option()
@click.option("--color", "--colour", "colour", type=click.Choice(["black", "white", "random"], case_sensitive=False),
              default="black", show_default=True, help="Your colour; black moves first.")
@click.option("--level", type=click.IntRange(1, 6), default=None,
              help="Engine strength 1-6: 1 a static one-ply choice, 2-5 fixed budgets of 2k / 20k / 100k / 400k "
                   "nodes, 6 full strength by --time [default: 6].")
@click.option("--time", "move_time", type=click.FloatRange(0, 3600), default=DEFAULT_MOVE_TIME, show_default=True,
              help="Engine thinking time per move, seconds (0 = instant).")
@click.option("--opponent", default=None, metavar="SPEC",
              help=f"Any player spec instead of the engine: {kind_list()} (gomoku match --help lists "
                   "their keys).")
@click.option("--hint-time", type=click.FloatRange(0, 600), default=1.0, show_default=True,
              help="Seconds the engine spends on a hint.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False), default=None,
              help="Continue a saved game (.sgf or .psq; a .psq uses --rule).")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="Save here automatically when a game ends or you quit (.sgf or .psq).")
@click.option("--name", "human_name", default="human", show_default=True, help="Your name in saved records.")
@click.option("--players", "seat_count", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Seats at the board; 3 or 4 is Gobang for that many (then --size defaults to 11, "
                   "saves are JSON records).")
@click.option("--seats", "seats_text", default=None, metavar="SPEC,SPEC,...",
              help=f"With --players 3 or 4: who sits where, in turn order: human or a player spec ({kind_list(3)}; "
                   "a net trained for that game); default human,pure-mcts:2000,pure-mcts:2000.")
@click.option("--win", "win_length", type=click.IntRange(4, 5), default=5, show_default=True,
              help="With --players 3 or 4: stones in a row that win.")
def play(board: Optional[tuple[int, int]], rule: Rule, colour: str, level: Optional[int], move_time: float,
         opponent: Optional[str],
         hint_time: float, load_path: Optional[str], save_path: Optional[str], human_name: str,
         seat_count: int, seats_text: Optional[str], win_length: int) -> None:
    """Play against the engine in the terminal.

    Type moves as h8 (column letter, row 1 at the top) or 7,7 (0-based x,y); the board shows
    both rulers. Commands: undo, hint, resign, review, new, save [FILE], help, quit.

    After its move the engine shows its depth and its score: the position from its own side,
    in evaluation units, 0 even and 1000 a logit of the winning chance (+1000 about 73 %,
    -789 about 31 %), win or loss when proven. MCTS players and nets show playouts and a value
    (their winning chance, 0-1).
    """
    if seat_count != 2 or seats_text is not None or win_length != 5:
        _play_nplayer(seat_count, board, rule, move_time, save_path, human_name, seats_text, win_length)
        return
    _play_two(board, rule, colour, level, move_time, opponent, hint_time, load_path, save_path, human_name)


def _load(load_path: str, rule: Rule) -> records.GameRecord:
    try:
        loaded = records.load(load_path, rule=rule)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if not (MIN_SIDE <= loaded.width <= MAX_SIDE and MIN_SIDE <= loaded.height <= MAX_SIDE):
        raise click.ClickException(f"{load_path}: board {loaded.width}x{loaded.height} is outside "
                                   f"{MIN_SIDE}..{MAX_SIDE}")
    return loaded


def _play_two(board: Optional[tuple[int, int]], rule: Rule, colour: str, level: Optional[int], move_time: float,
              opponent: Optional[str], hint_time: float, load_path: Optional[str], save_path: Optional[str],
              human_name: str) -> None:
    """A person against one engine: check the options, build the engine, run the session."""
    from gomoku.tools.play_session import catch_ctrl_c, run_session
    from gomoku.tools.play_two import TwoPlayerSession
    from gomoku.tools.render import plural
    width, height = board or (15, 15)
    spec = _opponent_spec(opponent, level)
    if save_path is not None and Path(save_path).suffix.lower() not in (".sgf", ".psq"):
        raise click.BadParameter("the file must end in .sgf or .psq", param_hint="--save")
    output_path(save_path, "--save")
    loaded = _load(load_path, rule) if load_path is not None else None
    if loaded is not None:
        width, height, rule = loaded.width, loaded.height, loaded.rule
    from gomoku.engine.match.players import PlayerError, SpecError, check_game_fit
    try:
        warnings = check_game_fit(spec, width, height, rule)     # a net of another game: one line, now
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None

    catch_ctrl_c()
    console = Console(highlight=False)
    _line_editing()
    from gomoku.tools.prepare import start_compile
    s = TwoPlayerSession(console=console, width=width, height=height, rule=rule, move_time=move_time,
                         save_path=Path(save_path) if save_path else None, colour_choice=colour.lower(), spec=spec,
                         hint_time=hint_time, human_name=human_name)
    from gomoku.protocol.players import make_player
    try:
        s.opponent = make_player(spec)
    except (SpecError, PlayerError) as exc:
        s.close()                     # stops a compile already started
        raise click.ClickException(str(exc)) from None
    s.messages += [f"Warning: {escape(line)}" for line in warnings]

    def start() -> None:
        s.new_game(record=loaded)
        # a cold cache compiles behind the board: the person moves at once, and the engine's
        # first move waits for the rest (PlaySession.engine_ready) only if the person was faster.
        # Started after the board exists: making it compiles the board core's rebuild here
        # (seconds, faster without the children on the same cores); a move's code compiles
        # in a thread while the person looks at the board (start_compile).
        s.compiling = start_compile(board=s.board)
        if loaded is not None:
            s.messages.append(f"Loaded {plural(len(loaded.moves), 'move')} from {escape(load_path or '')}.")
    run_session(s, start)


def _play_nplayer(seat_count: int, board: Optional[tuple[int, int]], rule: Rule, move_time: float,
                  save_path: Optional[str], human_name: str, seats_text: Optional[str], win_length: int) -> None:
    """--players 3 (or 4): hand over to tools.play_nplayer through tools.handoff (as `match`
    does); options left at their defaults take that game's own (an 11x11 board, engines
    limited by their playouts alone)."""
    from gomoku.tools import play_nplayer
    from gomoku.tools.handoff import to_nplayer
    if seat_count == 2:
        raise click.UsageError("--seats and --win are for --players 3 or 4")
    given = to_nplayer(_TWO_PLAYER_ONLY, f"is for two-player games; with --players {seat_count} use --seats")
    width, height = board if board is not None else (None, None)
    _line_editing()
    play_nplayer.run(players=seat_count, width=width, height=height, rule=rule, win_length=win_length,
                     seats_text=seats_text, move_time=move_time if given("move_time") else None,
                     save_path=save_path, human_name=human_name)
