"""`gomoku play`: a human against the engine (or any player spec) in a plain terminal.

Output goes through a rich Console, input through plain `input()`, so the command works in
an 80x25 terminal, over ssh, under a pseudo-terminal in tests, and with piped stdin. Every
bad input gets one line saying what was wrong; EOF and Ctrl-C end the program with exit 0.

Moves are typed as `h8` (column letter, row 1 at the top) or `7,7` (0-based x,y); both
notations are shown in the board rulers and in every message (see tools/render.py).
"""
from __future__ import annotations

import datetime as _dt
import random
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import click
from rich.console import Console
from rich.markup import escape

from gomoku.engine.game import records
from gomoku.engine.limits import Limit, PlayResult
from gomoku.engine.game.size import MAX_SIZE as MAX_SIDE, MIN_SIZE as MIN_SIDE
from gomoku.engine.game.rules import Rule
from gomoku.tools import render
from gomoku.tools.interruptible import run_interruptibly
from gomoku.tools.options import INTERRUPTED, board_option, output_path, rule_option

BLACK, WHITE, EMPTY = 1, 2, 0
COLOUR_NAME = {BLACK: "black", WHITE: "white"}
STONE = {BLACK: "X", WHITE: "O"}
# reason codes are the referee's (engine.arena), so records from play and match read alike
_REASON_TEXT = {"five": "five in a row", "resign": "by resignation", "foul": "black played a forbidden point",
                "illegal": "the engine played an illegal move", "crash": "the engine failed",
                "time": "on time", "full": "the board is full", "adjudication": "adjudicated"}
DEFAULT_MOVE_TIME = 1.0

HELP = """\
[bold]Commands[/bold]
  h8 or H8      play at column h, row 8 (rows count from 1 at the TOP)
  7,7           play at x=7, y=7 (0-based, as the engine and protocol count)
  undo          take back the engine's reply and your last move
  hint          ask the engine for a move for you (shown as * on the board)
  resign        give up this game
  new [COLOUR]  start a new game (COLOUR: black, white or random)
  save [FILE]   save the game (.sgf, or .psq for Piskvork); default name if none
  help          this text;   quit  leave (also Ctrl-D / Ctrl-C)

[bold]Board[/bold]
  X black (moves first)   O white   [X] last move   * hint
  ! a point black may not play under renju (double-three, double-four, overline)
  top rulers: x index 0.. and column letters a..; left: y index 0.. and row 1..
"""


# ----------------------------------------------------------------------------- options

def _opponent_spec(opponent: Optional[str], level: Optional[int]) -> Any:
    from gomoku.engine.match.players import SpecError, parse_spec
    if opponent and level is not None:
        raise click.UsageError("give either --level or --opponent, not both")
    text = opponent or ("classical" if level is None else f"classical:{level}")
    try:
        return parse_spec(text)
    except SpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--opponent") from None


# ----------------------------------------------------------------------------- session

@dataclass
class Outcome:
    winner: int          # 0 draw, BLACK, WHITE
    reason: str


@dataclass
class Session:
    """One sitting at the terminal: settings, the current game, and what to show next."""
    console: Console
    width: int
    height: int
    rule: Rule
    colour_choice: str                      # black | white | random
    spec: Any                               # PlayerSpec of the opponent
    move_time: float
    hint_time: float
    human_name: str
    save_path: Optional[Path]
    board: Any = None
    human: int = BLACK
    opponent: Any = None
    times: list[int] = field(default_factory=list)
    outcome: Optional[Outcome] = None
    hint: Optional[tuple[int, int]] = None
    messages: list[str] = field(default_factory=list)
    engine_line: str = ""
    show_help: bool = False
    dirty: bool = False                     # moves since the last save
    game_no: int = 1
    date: str = ""
    _prompt_at: float = 0.0

    # -- game lifecycle --------------------------------------------------------------
    def new_game(self, colour: Optional[str] = None, record: Optional[records.GameRecord] = None) -> None:
        from gomoku.engine.game.board import Board, IllegalMove
        choice = colour or self.colour_choice
        self.human = random.choice([BLACK, WHITE]) if choice == "random" else (BLACK if choice == "black" else WHITE)
        self.board = Board(self.width, self.height, rule=self.rule)
        self.times, self.outcome, self.hint, self.engine_line = [], None, None, ""
        self.date = _dt.date.today().isoformat()
        if record is not None:
            try:
                for x, y in record.moves:
                    self.board.play(x, y)
            except IllegalMove as exc:
                raise click.ClickException(f"cannot continue the saved game: {exc}") from None
            self.times = list(record.times) if record.times else [0] * len(record.moves)
            self.date = record.date or self.date
            if record.result is not None:
                self.outcome = Outcome(record.winner, record.reason or "")
            elif self.board.winner:
                self.outcome = Outcome(self.board.winner, "five")
            elif self.board.is_full():
                self.outcome = Outcome(EMPTY, "full")
        self.dirty = False
        if self.opponent is not None:
            self.opponent.new_game(self.width, self.height, self.rule)
        you = f"You play {STONE[self.human]} ({COLOUR_NAME[self.human]})"
        self.messages.append(f"{you}. Type a move like h8 or 7,7; 'help' lists commands.")

    def record(self) -> records.GameRecord:
        engine = f"{self.opponent.name if self.opponent else self.spec.name}"
        if self.spec.kind == "classical" and "time" not in self.spec.options:
            engine += f" {self.move_time:g}s"
        names = {self.human: self.human_name, 3 - self.human: engine}
        rec = records.GameRecord(width=self.width, height=self.height, rule=self.rule, moves=self.board.moves,
                                 black=names[BLACK], white=names[WHITE], date=self.date, times=list(self.times))
        if self.outcome is not None:
            rec.finish(self.outcome.winner, self.outcome.reason)
        return rec

    def finish(self, winner: int, reason: str) -> None:
        self.outcome = Outcome(winner, reason)
        self.hint = None
        self.dirty = True
        if self.save_path is not None:
            self.save(None, auto=True)

    def outcome_text(self) -> str:
        o = self.outcome
        assert o is not None
        why = _REASON_TEXT.get(o.reason, o.reason or "no reason given")
        if o.winner == EMPTY:
            return f"Draw ({why})."
        who = "You win" if o.winner == self.human else f"{self.opponent_name()} wins"
        return f"{who} ({STONE[o.winner]} {COLOUR_NAME[o.winner]}): {why}."

    def opponent_name(self) -> str:
        return self.opponent.name if self.opponent is not None else self.spec.name

    def opponent_searcher(self) -> str:
        """' (net b4c32 + MCTS)': what searches for the opponent, when it says and its name does
        not already (the classical engine's names start with 'classical')."""
        searcher = getattr(self.opponent, "searcher", None)
        if not isinstance(searcher, str) or not searcher or self.opponent_name().startswith(searcher.split()[0]):
            return ""
        return f" ({searcher})"

    # -- saving ----------------------------------------------------------------------
    def default_path(self) -> Path:
        if self.save_path is not None:
            if self.game_no == 1:
                return self.save_path
            return self.save_path.with_name(f"{self.save_path.stem}-{self.game_no}{self.save_path.suffix}")
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path(f"gomoku-{stamp}.sgf")

    def save(self, target: Optional[str], auto: bool = False) -> bool:
        path = Path(target).expanduser() if target else self.default_path()
        try:
            records.save(path, self.record())
        except ValueError as exc:
            self.messages.append(f"[red]Not saved:[/red] {escape(str(exc))}")
            return False
        self.dirty = False
        self.messages.append(f"{'Auto-saved' if auto else 'Saved'} {len(self.board.moves)} moves to {escape(str(path))}")
        return True

    # -- turns -----------------------------------------------------------------------
    def human_move(self, x: int, y: int) -> None:
        b = self.board
        name = render.describe_move((x, y))
        v = b.cell(x, y)
        if v != EMPTY:
            what = "a blocked point" if v not in (BLACK, WHITE) else f"taken by {COLOUR_NAME[v]}"
            self.messages.append(f"[red]{name} is {what}[/red]: choose an empty point.")
            return
        if self.rule == Rule.RENJU and self.human == BLACK and b.is_forbidden(x, y):
            kind = "an overline (six or more)" if _makes_overline(b, x, y) else "a double-three or double-four"
            self.messages.append(f"[red]{name} is forbidden for black under renju[/red]: it would make {kind}. "
                                 f"Forbidden points are marked !.")
            return
        spent = int((time.monotonic() - self._prompt_at) * 1000) if self._prompt_at else 0
        b.play(x, y)
        self.times.append(spent)
        self.hint = None
        self.dirty = True
        self.engine_line = ""
        if b.winner:
            self.finish(b.winner, "five")
        elif b.is_full():
            self.finish(EMPTY, "full")

    def engine_move(self) -> None:
        from gomoku.engine.game.board import IllegalMove
        from gomoku.engine.match.players import PlayerError
        b = self.board
        engine_colour = 3 - self.human
        limit = self.spec.limit_for(Limit(turn_time=self.move_time))
        budget = limit.turn_time
        self.console.print(f"[dim]{escape(self.opponent_name())} is thinking"
                           f"{f' (up to {budget:g} s)' if budget else ''}...[/dim]")
        t0 = time.monotonic()
        try:
            res: PlayResult = run_interruptibly(lambda: self.opponent.play(b.copy(), limit))
        except PlayerError as exc:
            self.finish(self.human, "crash")
            self.messages.append(f"[red]The engine failed:[/red] {escape(str(exc))}")
            return
        spent = time.monotonic() - t0
        if res.resigned or res.move is None:
            self.finish(self.human, "resign")
            self.engine_line = f"{escape(self.opponent_name())} resigned after {spent:.2f} s."
            return
        x, y = res.move
        if engine_colour == BLACK and self.rule == Rule.RENJU and b.in_bounds(x, y) and b.is_forbidden(x, y):
            b.play(x, y)
            self.times.append(int(spent * 1000))
            self.finish(self.human, "foul")
            return
        try:
            b.play(x, y)
        except IllegalMove as exc:
            self.finish(self.human, "illegal")
            self.messages.append(f"[red]The engine played an illegal move {x},{y}:[/red] {escape(str(exc))}")
            return
        self.times.append(int(spent * 1000))
        self.dirty = True
        self.engine_line = (f"{escape(self.opponent_name())} played [bold]{render.describe_move((x, y))}[/bold] "
                            f"in {spent:.2f} s{_info_text(res.info, escape(self.opponent_name()))}")
        if b.winner:
            self.finish(b.winner, "five")
        elif b.is_full():
            self.finish(EMPTY, "full")

    def undo(self) -> None:
        b = self.board
        n = b.move_count
        # colour of move i (0-based) is black for even i; the human has moved if any of theirs is there
        human_moves = [i for i in range(n) if (BLACK if i % 2 == 0 else WHITE) == self.human]
        if not human_moves:
            self.messages.append("Nothing to undo: you have not moved yet.")
            return
        taken = []
        while b.move_count > human_moves[-1]:
            taken.append(render.describe_move(b.undo()))
            if self.times:
                self.times.pop()
        self.outcome, self.hint, self.engine_line = None, None, ""
        self.dirty = True
        self.messages.append(f"Took back {', '.join(reversed(taken))}. Your move.")

    def show_hint(self) -> None:
        try:
            from gomoku.engine.agent import think
        except ImportError:
            self.messages.append("[red]No hint:[/red] the engine (gomoku.engine.agent) is not available.")
            return
        b = self.board
        self.console.print(f"[dim]Looking for a hint (up to {self.hint_time:g} s)...[/dim]")
        t0 = time.monotonic()
        try:
            res = run_interruptibly(lambda: think(b.copy(), Limit(turn_time=self.hint_time)))
        except Exception as exc:  # noqa: BLE001 - a failed hint must not end the game
            self.messages.append(f"[red]No hint:[/red] {escape(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)}")
            return
        if res.move is None:
            self.messages.append("No hint: the engine finds no move.")
            return
        self.hint = tuple(res.move)
        self.messages.append(f"Hint: [bold green]{render.describe_move(self.hint)}[/bold green] "
                             f"(marked *, {time.monotonic() - t0:.2f} s{_info_text(res.info, 'you')})")

    # -- screen ----------------------------------------------------------------------
    def draw(self, keep_messages: bool = False) -> None:
        """Clear the screen and show the board, status and pending messages.

        `keep_messages` (used right before the engine moves) leaves the messages pending, so
        they are still on screen when the prompt comes back."""
        c = self.console
        if c.is_terminal and not c.is_dumb_terminal:
            c.clear()             # one screen per turn keeps 80x25 readable; dumb/piped output just scrolls
        if self.show_help:
            self.show_help = False
            c.print(HELP, highlight=False)
            for m in self.messages:
                c.print(m, highlight=False)
            self.messages = []
            return
        b = self.board
        forbidden = ()
        if self.rule == Rule.RENJU and b.to_move == BLACK and self.outcome is None and self.human == BLACK:
            forbidden = b.forbidden_points()
        title = (f"[bold]gomoku[/bold] {self.rule.label} {self.width}x{self.height}  you: "
                 f"{STONE[self.human]} {COLOUR_NAME[self.human]}  vs {escape(self.opponent_name())}"
                 f"{escape(self.opponent_searcher())}")
        if self.outcome is not None:
            status = f"[bold]Game over:[/bold] {self.outcome_text()}"
        else:
            turn = "your move" if b.to_move == self.human else "engine to move"
            status = (f"Move {b.move_count + 1}, {STONE[b.to_move]} {COLOUR_NAME[b.to_move]} ({turn}); "
                      f"last: {render.describe_move(b.last_move)}")
        extra = [status] + ([self.engine_line] if self.engine_line else []) + self.messages
        if self.outcome is not None:
            extra.append("Type new for another game, undo to take back, save [FILE] or quit.")
        room = c.height - render.board_lines(self.height) - 1
        show_title = room - len(extra) >= 1
        if not show_title:
            # tall boards on 80x25 (20x20 and up): the game and the opponent lead the status line,
            # so what is being played stays on screen when the title line has no room
            extra[0] = (f"[bold]{self.rule.label} {self.width}x{self.height}[/bold] vs "
                        f"{escape(self.opponent_name()[:20])}: {status}")
        if len(extra) > room and self.engine_line:
            extra.remove(self.engine_line)
        if len(extra) > room and self.messages and self.outcome is None:
            extra.remove(extra[0])        # tall boards: the message matters more than the status
        if show_title:
            c.print(title, highlight=False)
        c.print(render.render_board(b, hint=self.hint, forbidden=forbidden))
        for line in extra:
            c.print(line, highlight=False)
        if not keep_messages:
            self.messages = []

    def prompt(self) -> str:
        text = "game over> " if self.outcome is not None else f"Your move ({STONE[self.human]})> "
        self._prompt_at = time.monotonic()
        return self.console.input(text)


def _line_editing() -> None:
    """Arrow keys, history and Ctrl-A/E at the prompt: Python's input() gets them once readline
    is imported (where it exists: not on plain Windows, whose console edits lines itself)."""
    try:
        import readline  # noqa: F401
    except ImportError:
        pass


def _makes_overline(b: Any, x: int, y: int) -> bool:
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            cx, cy = x + s * dx, y + s * dy
            while b.in_bounds(cx, cy) and b.cell(cx, cy) == BLACK:
                n += 1
                cx, cy = cx + s * dx, cy + s * dy
        if n >= 6:
            return True
    return False


def _info_text(info: dict, who: str = "") -> str:
    parts = []
    if info.get("depth") is not None:
        parts.append(f"depth {info['depth']}")
    score = info.get("score")
    if score is not None:
        # the search scores the position for the side it moved for: + is good for the engine
        text = f"{score:+d}" if isinstance(score, int) else f"{score}"
        parts.append(f"score {text} for {who}" if who else f"score {text}")
    if info.get("nodes"):
        n = int(info["nodes"])
        parts.append(f"{n / 1000:.1f}k nodes" if n >= 1000 else f"{n} nodes")
    return (", " + ", ".join(parts)) if parts else ""


# ----------------------------------------------------------------------------- command loop

def _handle(s: Session, line: str) -> bool:
    """Apply one input line; return False to quit."""
    words = line.strip().split()
    if not words:
        return True
    cmd, args = words[0].lower(), words[1:]
    over = s.outcome is not None
    if cmd in ("quit", "exit", "q"):
        return False
    if cmd in ("help", "?"):
        s.show_help = True
    elif cmd == "undo":
        s.undo()
    elif cmd == "hint":
        if over:
            s.messages.append("The game is over: no hint needed. Type new, undo, save or quit.")
        else:
            s.show_hint()
    elif cmd == "resign":
        if over:
            s.messages.append("The game is already over.")
        else:
            s.finish(3 - s.human, "resign")
    elif cmd == "new":
        colour = args[0].lower() if args else None
        if colour not in (None, "black", "white", "random"):
            s.messages.append(f"[red]new {escape(args[0])}?[/red] Use new, new black, new white or new random.")
            return True
        if s.dirty and s.board.move_count and s.save_path is not None:
            s.save(None, auto=True)
        if s.board.move_count:
            s.game_no += 1
        s.new_game(colour)
    elif cmd == "save":
        if len(args) > 1:
            s.messages.append("[red]save takes one file name[/red] (no spaces), e.g. save game.sgf")
        else:
            s.save(args[0] if args else None)
    else:
        try:
            x, y = render.parse_move(line, s.width, s.height)
        except ValueError as exc:
            known = "moves like h8 or 7,7, or undo, hint, resign, new, save, help, quit"
            if words[0].isalpha() and len(words[0]) > 1 and not words[0][1:].isdigit():
                s.messages.append(f"[red]Unknown command {escape(words[0][:20])!r}.[/red] Use {known}.")
            else:
                s.messages.append(f"[red]{escape(str(exc))}[/red]")
            return True
        if over:
            s.messages.append("The game is over. Type new for another game, undo to take back, save or quit.")
        else:
            s.human_move(x, y)
    return True


def _loop(s: Session) -> None:
    while True:
        if s.outcome is None and s.board.to_move != s.human:
            s.draw(keep_messages=True)
            s.engine_move()
            continue
        s.draw()
        line = s.prompt()
        if not _handle(s, line):
            break


@click.command("play")
@board_option(default=None, help="Board size: N or WxH, sides 5..22 [default: 15; 11 with --players 3].")
@rule_option()
@click.option("--color", "--colour", "colour", type=click.Choice(["black", "white", "random"], case_sensitive=False),
              default="black", show_default=True, help="Your colour; black moves first.")
@click.option("--level", type=click.IntRange(min=1), default=None, help="Engine strength level (classical engine).")
@click.option("--time", "move_time", type=click.FloatRange(0, 3600), default=DEFAULT_MOVE_TIME, show_default=True,
              help="Engine thinking time per move, seconds (0 = instant).")
@click.option("--opponent", default=None, metavar="SPEC",
              help="Any player spec instead of the engine: classical[:LEVEL], random, brain:CMD, FILE.onnx ...")
@click.option("--hint-time", type=click.FloatRange(0, 600), default=1.0, show_default=True,
              help="Seconds the engine spends on a hint.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False), default=None,
              help="Continue a saved game (.sgf or .psq; a .psq uses --rule).")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="Save here automatically when a game ends or you quit (.sgf or .psq).")
@click.option("--name", "human_name", default="human", show_default=True, help="Your name in saved records.")
@click.option("--players", "seat_count", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Seats at the board; 3 is three-player Gobang (then --size defaults to 11, "
                   "saves are JSON records).")
@click.option("--seats", "seats_text", default=None, metavar="SPEC,SPEC,...",
              help="With --players 3: who sits where, in turn order: human or a player spec (pure-mcts:N, "
                   "FILE.onnx, random); default human,pure-mcts:2000,pure-mcts:2000.")
@click.option("--win", "win_length", type=click.IntRange(4, 5), default=5, show_default=True,
              help="With --players 3: stones in a row that win.")
def play(board: Optional[tuple[int, int]], rule: Rule, colour: str, level: Optional[int], move_time: float,
         opponent: Optional[str],
         hint_time: float, load_path: Optional[str], save_path: Optional[str], human_name: str,
         seat_count: int, seats_text: Optional[str], win_length: int) -> None:
    """Play against the engine in the terminal.

    Type moves as h8 (column letter, row 1 at the top) or 7,7 (0-based x,y); the board shows
    both rulers. Commands: undo, hint, resign, new, save [FILE], help, quit.
    """
    if seat_count != 2 or seats_text is not None or win_length != 5:
        _play_nplayer(seat_count, board, rule, move_time, save_path, human_name, seats_text, win_length,
                      colour, level, opponent, load_path)
        return
    width, height = board or (15, 15)
    spec = _opponent_spec(opponent, level)
    if save_path is not None and Path(save_path).suffix.lower() not in (".sgf", ".psq"):
        raise click.BadParameter("the file must end in .sgf or .psq", param_hint="--save")
    output_path(save_path, "--save")
    loaded = None
    if load_path is not None:
        try:
            loaded = records.load(load_path, rule=rule)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        width, height, rule = loaded.width, loaded.height, loaded.rule
        if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
            raise click.ClickException(f"{load_path}: board {width}x{height} is outside {MIN_SIDE}..{MAX_SIDE}")
    from gomoku.engine.match.players import PlayerError, SpecError, check_game_fit
    try:
        warnings = check_game_fit(spec, width, height, rule)     # a net of another game: one line, now
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None

    # Ctrl-C ends the game cleanly: make sure it raises KeyboardInterrupt even when started from
    # a background job of a non-interactive shell, which hands SIGINT down as ignored (and then
    # Python installs no handler of its own)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    console = Console(highlight=False)
    _line_editing()
    from gomoku.tools.prepare import ensure_compiled
    try:
        ensure_compiled(console)      # before the engine's first clock: never compile in a move
    except KeyboardInterrupt:
        console.print("\nBye.")
        sys.exit(INTERRUPTED)
    s = Session(console=console, width=width, height=height, rule=rule, colour_choice=colour.lower(), spec=spec,
                move_time=move_time, hint_time=hint_time, human_name=human_name,
                save_path=Path(save_path) if save_path else None)
    from gomoku.protocol.players import make_player
    try:
        s.opponent = make_player(spec)
    except (SpecError, PlayerError) as exc:
        raise click.ClickException(str(exc)) from None
    s.messages += [f"Warning: {escape(line)}" for line in warnings]
    interrupted = False
    try:
        s.new_game(record=loaded)
        if loaded is not None:
            s.messages.append(f"Loaded {len(loaded.moves)} moves from {escape(load_path or '')}.")
        _loop(s)
        console.print("Bye.")
    except EOFError:
        console.print("\nBye.")
    except KeyboardInterrupt:
        console.print("\nBye.")
        interrupted = True
    finally:
        if s.dirty and s.board is not None and s.board.move_count and s.save_path is not None:
            s.save(None, auto=True)
            for m in s.messages:
                console.print(m, highlight=False)
        try:
            s.opponent.close()
        except Exception:  # noqa: BLE001 - closing must not turn a clean exit into a traceback
            pass
    if interrupted:
        sys.exit(INTERRUPTED)


def _play_nplayer(seat_count: int, board: Optional[tuple[int, int]], rule: Rule, move_time: float,
                  save_path: Optional[str],
                  human_name: str, seats_text: Optional[str], win_length: int, *two_player_only: Any) -> None:
    """--players 3 (or 4): hand over to tools.play_nplayer; options left at their defaults take
    that game's own (an 11x11 board, engines limited by their playouts alone)."""
    from click.core import ParameterSource
    from gomoku.tools import play_nplayer
    ctx = click.get_current_context()
    if seat_count == 2:
        raise click.UsageError("--seats and --win are for --players 3 or 4")
    for name in ("colour", "level", "opponent", "load_path"):
        if ctx.get_parameter_source(name) != ParameterSource.DEFAULT:
            opt = {"colour": "--color", "load_path": "--load"}.get(name, "--" + name)
            raise click.UsageError(f"{opt} is for two-player games; with --players {seat_count} use --seats")
    width, height = board if board is not None else (None, None)
    timed = ctx.get_parameter_source("move_time") != ParameterSource.DEFAULT
    from gomoku.tools.prepare import ensure_compiled
    ensure_compiled()        # the tree search is numba code too: compiled before any clock starts
    play_nplayer.run(players=seat_count, width=width, height=height, rule=rule, win_length=win_length,
                     seats_text=seats_text, move_time=move_time if timed else None, save_path=save_path,
                     human_name=human_name)
