"""`gomoku play --players 3`: seed 004's three-player Gobang in the terminal.

Any mix of people and engines sits at the board (`--seats human,pure-mcts:2000,net3.onnx`);
seats move in turn (seat 1, 2, 3, 1, ...) and the first to make `--win` in a row wins, a full
board is a draw. Every seat has its own symbol and colour; the turn order, with the seat to
move marked, is on screen all the time. Moves are typed as in the two-player game (`h8` or
`7,7`, see tools/render.py); `undo` takes back every move since the last person's move, so that
person is to move again; `save FILE` writes the JSON record of `gomoku.engine.game.nrecord`
(SGF and .psq know two colours only).

Like `play_cmd` (whose two-player game this mirrors), output goes through a rich Console and
input through plain `input()`, so pipes and pseudo-terminals work; bad input gets one line;
EOF and Ctrl-C end the program with exit 0.
"""
from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import click
from rich.console import Console
from rich.markup import escape

from gomoku.engine.game import nrecord
from gomoku.engine.game.rules import Rule
from gomoku.engine.limits import Limit, PlayResult
from gomoku.engine.mcts.nboard import NBoard, NBoardError, check_game
from gomoku.tools import render
from gomoku.tools.interruptible import run_interruptibly
from gomoku.tools.options import INTERRUPTED

#: per seat: (symbol, rich style); seat 1 moves first
SEAT_LOOK = (("X", "bold"), ("O", "bold cyan"), ("V", "bold magenta"), ("Z", "bold green"))
HUMAN = "human"
DEFAULT_SIDE = 11

HELP = """\
[bold]Commands[/bold]
  h8 or H8      play at column h, row 8 (rows count from 1 at the TOP)
  7,7           play at x=7, y=7 (0-based)
  undo          take back every move since the last person's move (that person moves again)
  new           start a new game with the same seats
  save [FILE]   save the game as a JSON record (default name if none)
  help          this text;   quit  leave (also Ctrl-D / Ctrl-C)
"""


@dataclass
class SeatInfo:
    """Who sits at one seat: a person (player None) or an engine."""
    name: str
    spec: str                          # "human" or the player spec text
    symbol: str
    style: str
    player: Any = None

    @property
    def human(self) -> bool:
        return self.player is None

    def tag(self, index: int) -> str:
        """'seat 2 O pure-mcts-2000' with the seat's colour (rich markup)."""
        return f"seat {index + 1} [{self.style}]{self.symbol}[/{self.style}] {escape(self.name)}"


@dataclass
class Outcome:
    winner: Optional[int]              # seat, None for a draw or a forfeit
    reason: str                        # five | full | crash | illegal
    text: str


def split_seats(text: str) -> list[str]:
    """'human,net.onnx:playouts=100,c_puct=2,pure-mcts:500' -> three specs: a part with '=' and
    no ':' continues the spec before it (a spec's own options are comma separated too)."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise click.BadParameter(f"{text!r}: an empty seat; use e.g. human,pure-mcts:2000,pure-mcts:2000",
                                     param_hint="--seats")
        if out and "=" in part and ":" not in part and out[-1].lower() != HUMAN:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def make_seats(text: Optional[str], players: int, win_length: int, human_name: str) -> list[SeatInfo]:
    """Parse --seats (default: a person at seat 1, rollout MCTS at 2000 playouts elsewhere)
    and create the engines; one-line click errors for anything that cannot sit here."""
    from gomoku.engine.match.nplayer import check_spec
    from gomoku.engine.match.players import PlayerError, SpecError, make_player, parse_spec
    specs = split_seats(text) if text else [HUMAN] + ["pure-mcts:2000"] * (players - 1)
    if len(specs) != players:
        raise click.BadParameter(f"{len(specs)} seats given for {players} players", param_hint="--seats")
    seats: list[SeatInfo] = []
    names: set[str] = set()
    for i, spec_text in enumerate(specs):
        sym, style = SEAT_LOOK[i]
        if spec_text.lower() == HUMAN:
            name = human_name if specs.count(HUMAN) == 1 else f"{human_name}{i + 1}"
            seats.append(SeatInfo(name, HUMAN, sym, style))
            continue
        try:
            spec = parse_spec(spec_text)
            check_spec(spec, players)
            player = make_player(spec, win_length=win_length, players=players)
        except (SpecError, PlayerError) as exc:
            for s in seats:
                if s.player is not None:
                    s.player.close()
            raise click.BadParameter(str(exc), param_hint="--seats") from None
        name = spec.name if spec.name not in names else f"{spec.name}-{i + 1}"
        seats.append(SeatInfo(name, spec.text, sym, style, player))
        if hasattr(player, "reseed"):
            player.reseed(i)        # two copies of one spec search differently
        names.add(name)
    return seats


@dataclass
class NSession:
    """One sitting: the seats, the current game and what to show next."""
    console: Console
    width: int
    height: int
    players: int
    win_length: int
    rule: Rule
    seats: list[SeatInfo]
    move_time: Optional[float]
    save_path: Optional[Path]
    board: Any = None
    times: list[int] = field(default_factory=list)
    outcome: Optional[Outcome] = None
    messages: list[str] = field(default_factory=list)
    engine_lines: list[str] = field(default_factory=list)
    show_help: bool = False
    dirty: bool = False
    game_no: int = 1
    date: str = ""
    _prompt_at: float = 0.0

    # -- game lifecycle --------------------------------------------------------------
    def new_game(self) -> None:
        self.board = NBoard(self.width, self.height, self.players, self.win_length, self.rule)
        self.times, self.outcome, self.engine_lines, self.dirty = [], None, [], False
        self.date = _dt.date.today().isoformat()
        for s in self.seats:
            if s.player is not None:
                s.player.new_game(self.width, self.height, self.rule)
        self.messages.append(f"{self.players} players, {self.win_length} in a row wins. Type a move like h8 or "
                             f"7,7; 'help' lists commands.")

    def finish(self, winner: Optional[int], reason: str, text: str) -> None:
        self.outcome = Outcome(winner, reason, text)
        self.dirty = True
        if self.save_path is not None:
            self.save(None, auto=True)

    def _after_move(self) -> None:
        b = self.board
        if b.winner is not None:
            s = b.winner
            self.finish(s, "five", f"{self.seats[s].tag(s)} wins with {self.win_length} in a row.")
        elif b.is_full():
            self.finish(None, "full", "Draw: the board is full.")

    # -- saving ----------------------------------------------------------------------
    def record(self) -> nrecord.NGameRecord:
        o = self.outcome
        rec = nrecord.NGameRecord(self.width, self.height, self.players, self.win_length, self.rule.label,
                                  [nrecord.Seat(s.name, s.spec, s.symbol) for s in self.seats],
                                  list(self.board.moves), list(self.times), date=self.date)
        if o is not None:
            rec.finished, rec.reason = True, o.reason
            rec.winner_seat = None if o.winner is None else o.winner + 1
            rec.text = render_plain(o.text)
        return rec

    def default_path(self) -> Path:
        if self.save_path is not None:
            if self.game_no == 1:
                return self.save_path
            return self.save_path.with_name(f"{self.save_path.stem}-{self.game_no}{self.save_path.suffix}")
        return Path(f"gomoku{self.players}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json")

    def save(self, target: Optional[str], auto: bool = False) -> bool:
        path = Path(target).expanduser() if target else self.default_path()
        if path.suffix.lower() in (".sgf", ".psq"):
            self.messages.append(f"[red]Not saved:[/red] {self.players}-player games are saved as JSON records "
                                 f"(.json); SGF and .psq know two colours only.")
            return False
        try:
            nrecord.save(path, self.record())
        except ValueError as exc:
            self.messages.append(f"[red]Not saved:[/red] {escape(str(exc))}")
            return False
        self.dirty = False
        self.messages.append(f"{'Auto-saved' if auto else 'Saved'} {self.board.move_count} moves to "
                             f"{escape(str(path))}")
        return True

    # -- turns -----------------------------------------------------------------------
    def human_move(self, x: int, y: int) -> None:
        b = self.board
        name = render.describe_move((x, y))
        v = b.cell(x, y)
        if v:
            self.messages.append(f"[red]{name} is taken by {self.seats[v - 1].tag(v - 1)}[/red]: choose an empty point.")
            return
        spent = int((time.monotonic() - self._prompt_at) * 1000) if self._prompt_at else 0
        b.play(x, y)
        self.times.append(spent)
        self.dirty = True
        self.engine_lines = []
        self._after_move()

    def engine_move(self) -> None:
        b = self.board
        seat = b.to_move
        s = self.seats[seat]
        limit = Limit(turn_time=self.move_time)
        from gomoku.engine.match.players import parse_spec
        limit = parse_spec(s.spec).limit_for(limit)
        self.console.print(f"[dim]seat {seat + 1} {escape(s.name)} is thinking...[/dim]")
        t0 = time.monotonic()
        try:
            res: PlayResult = run_interruptibly(lambda: s.player.play(b.copy(), limit))
        except Exception as exc:  # noqa: BLE001 - an engine's failure ends the game, not the program
            self.finish(None, "crash", f"{s.tag(seat)} failed: {escape(str(exc) or type(exc).__name__)}")
            return
        spent = time.monotonic() - t0
        if res.move is None:
            self.finish(None, "crash", f"{s.tag(seat)} returned no move.")
            return
        try:
            x, y = int(res.move[0]), int(res.move[1])
            b.play(x, y)
        except (NBoardError, TypeError, ValueError, IndexError) as exc:
            self.finish(None, "illegal", f"{s.tag(seat)} played an illegal move: {escape(str(exc))}")
            return
        self.times.append(int(spent * 1000))
        self.dirty = True
        self.engine_lines.append(f"{s.tag(seat)} played [bold]{render.describe_move((x, y))}[/bold] "
                                 f"in {spent:.2f} s{_info_text(res.info)}")
        self.engine_lines = self.engine_lines[-(self.players - 1):]
        self._after_move()

    def undo(self) -> None:
        """Take back every move since the last move of a person, so that person is to move again."""
        b = self.board
        human_moves = [i for i in range(b.move_count) if self.seats[b.seat_of(i)].human]
        if not human_moves:
            self.messages.append("Nothing to undo: no person has moved yet.")
            return
        taken = []
        while b.move_count > human_moves[-1]:
            taken.append(render.describe_move(b.undo()))
            if self.times:
                self.times.pop()
        self.outcome, self.engine_lines, self.dirty = None, [], True
        seat = b.to_move
        self.messages.append(f"Took back {', '.join(reversed(taken))}. {self.seats[seat].tag(seat)} to move.")

    # -- screen ----------------------------------------------------------------------
    def order_line(self) -> str:
        """The turn order with the seat to move marked: '>[seat 1 X you]< -> seat 2 O ...'."""
        parts = []
        moving = self.board.to_move if self.outcome is None else -1
        for i, s in enumerate(self.seats):
            tag = s.tag(i) + (" (you)" if s.human and self.humans() == 1 else "")
            parts.append(f"[reverse]>{tag}<[/reverse]" if i == moving else tag)
        return "Order: " + " -> ".join(parts)

    def humans(self) -> int:
        return sum(s.human for s in self.seats)

    def status_line(self) -> str:
        b = self.board
        if self.outcome is not None:
            return f"[bold]Game over:[/bold] {self.outcome.text}"
        seat = b.to_move
        who = "your move" if self.seats[seat].human else "engine to move"
        last = ""
        if b.last_move is not None:
            ls = b.seat_of(b.move_count - 1)
            last = f"; last: {render.describe_move(b.last_move)} by {self.seats[ls].symbol}"
        return f"Move {b.move_count + 1}: {self.seats[seat].tag(seat)} ({who}){last}"

    def symbols(self) -> dict[int, tuple[str, str]]:
        return {i + 1: (s.symbol, s.style) for i, s in enumerate(self.seats)}

    def draw(self, keep_messages: bool = False) -> None:
        c = self.console
        if c.is_terminal and not c.is_dumb_terminal:
            c.clear()
        if self.show_help:
            self.show_help = False
            c.print(HELP, highlight=False)
            for m in self.messages:
                c.print(m, highlight=False)
            self.messages = []
            return
        title = (f"[bold]gomoku[/bold] {self.players} players, {self.win_length} in a row, {self.rule.label} "
                 f"{self.width}x{self.height}")
        extra = [self.order_line(), self.status_line()] + self.engine_lines + self.messages
        if self.outcome is not None:
            extra.append("Type new for another game, undo to take back, save [FILE] or quit.")
        room = c.height - render.board_lines(self.height) - 1
        while len(extra) > room and self.engine_lines and extra[2] in self.engine_lines:
            extra.pop(2)
        if room - len(extra) >= 1:
            c.print(title, highlight=False)
        c.print(render.render_board(self.board, symbols=self.symbols()))
        for line in extra:
            c.print(line, highlight=False)
        if not keep_messages:
            self.messages = []

    def prompt(self) -> str:
        if self.outcome is not None:
            text = "game over> "
        else:
            seat = self.board.to_move
            text = f"Your move, seat {seat + 1} ({self.seats[seat].symbol})> "
        self._prompt_at = time.monotonic()
        return self.console.input(text)


def render_plain(markup: str) -> str:
    """Text of a rich markup string (for records)."""
    from rich.text import Text
    return Text.from_markup(markup).plain


def _info_text(info: dict) -> str:
    parts = []
    if info.get("playouts"):
        parts.append(f"{int(info['playouts'])} playouts")
    if info.get("winrate") is not None:
        parts.append(f"value {float(info['winrate']):.2f}")
    return (", " + ", ".join(parts)) if parts else ""


def _handle(s: NSession, line: str) -> bool:
    """Apply one input line; False to quit."""
    words = line.strip().split()
    if not words:
        return True
    cmd, args = words[0].lower(), words[1:]
    if cmd in ("quit", "exit", "q"):
        return False
    if cmd in ("help", "?"):
        s.show_help = True
    elif cmd == "undo":
        s.undo()
    elif cmd == "new":
        if s.dirty and s.board.move_count and s.save_path is not None:
            s.save(None, auto=True)
        if s.board.move_count:
            s.game_no += 1
        s.new_game()
    elif cmd == "save":
        if len(args) > 1:
            s.messages.append("[red]save takes one file name[/red] (no spaces), e.g. save game.json")
        else:
            s.save(args[0] if args else None)
    else:
        try:
            x, y = render.parse_move(line, s.width, s.height)
        except ValueError as exc:
            if words[0].isalpha() and len(words[0]) > 1:
                s.messages.append(f"[red]Unknown command {escape(words[0][:20])!r}.[/red] Use moves like h8 or "
                                  f"7,7, or undo, new, save, help, quit.")
            else:
                s.messages.append(f"[red]{escape(str(exc))}[/red]")
            return True
        if s.outcome is not None:
            s.messages.append("The game is over. Type new for another game, undo to take back, save or quit.")
        else:
            s.human_move(x, y)
    return True


def _loop(s: NSession) -> None:
    while True:
        if s.outcome is None and not s.seats[s.board.to_move].human:
            s.draw(keep_messages=True)
            s.engine_move()
            continue
        s.draw()
        if not _handle(s, s.prompt()):
            break


def run(*, players: int, width: Optional[int], height: Optional[int], rule: Rule, win_length: int,
        seats_text: Optional[str], move_time: Optional[float], save_path: Optional[str], human_name: str) -> None:
    """The game loop behind `gomoku play --players N`. width/height None: DEFAULT_SIDE;
    move_time None: each engine's playouts alone decide."""
    import signal
    width = width or DEFAULT_SIDE
    height = height or width
    try:
        check_game(width, height, players, win_length, rule)
    except NBoardError as exc:
        raise click.UsageError(str(exc)) from None
    if save_path is not None and Path(save_path).suffix.lower() in (".sgf", ".psq"):
        raise click.BadParameter(f"{players}-player games are saved as JSON records (.json)", param_hint="--save")
    seats = make_seats(seats_text, players, win_length, human_name)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    console = Console(highlight=False)
    s = NSession(console, width, height, players, win_length, Rule(rule), seats, move_time,
                 Path(save_path) if save_path else None)
    interrupted = False
    try:
        s.new_game()
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
        for seat in seats:
            if seat.player is not None:
                try:
                    seat.player.close()
                except Exception:  # noqa: BLE001 - closing must not turn a clean exit into a traceback
                    pass
    if interrupted:
        raise SystemExit(INTERRUPTED)
