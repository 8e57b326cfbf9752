"""One sitting at the terminal for `gomoku play`, two players or more: seats, turns, commands.

A game is a row of seats in turn order (seat 1 moves first); a seat holds a person or an engine
player. `PlaySession` owns what every game shares: the board and its move times, the outcome,
save/undo/new/help/quit, the engine's turn, the screen's clear-and-help frame and the prompt.
The front ends say what differs: `play_two.TwoPlayerSession` (colours, renju fouls, hints,
resign, .sgf/.psq records) and `play_nplayer.NPlayerSession` (three or four seats, JSON records).

Output goes through a rich Console and input through plain `input()`, so the command works in
an 80x25 terminal, over ssh, under a pseudo-terminal in tests and with piped stdin. Every bad
input gets one line. `run_session` ends the program the same way for every game: EOF (Ctrl-D,
end of piped input) exits 0, Ctrl-C exits 130; both save first when --save is given.
"""
from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Optional

from rich.console import Console
from rich.markup import escape

from gomoku.engine.base.limits import Limit, PlayResult, SearchInfo
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.stones import EMPTY
from gomoku.tools import render
from gomoku.tools.interruptible import install, run_interruptibly
from gomoku.tools.options import INTERRUPTED

#: per seat: (symbol, rich style); seat 1 moves first (black in the two-player game)
SEAT_LOOK = (("X", "bold"), ("O", "bold cyan"), ("V", "bold magenta"), ("Z", "bold green"))
GAME_OVER_HINT = "Type new for another game, undo to take back, save [FILE] or quit."


def screen_rows(console: Console, lines: list[str]) -> int:
    """How many terminal rows these markup lines take on `console`, wrapped as `print` wraps
    them at its width (a line wider than the terminal takes two rows, or more)."""
    from rich.text import Text
    return sum(max(1, len(Text.from_markup(line).wrap(console, console.width))) for line in lines)


def print_rows(console: Console, lines: list[str], room: int) -> None:
    """Print `lines` in at most `room` rows: whole lines while they fit, the last one cut at
    the terminal's width with an ellipsis when even that does not fit (the screen must not
    scroll its top rows away; 22x22 on 80x25 leaves one row below the board)."""
    left = max(1, room)
    for line in lines:
        rows = screen_rows(console, [line])
        if rows > left:
            console.print(line, highlight=False, no_wrap=True, overflow="ellipsis")
            return
        console.print(line, highlight=False)
        left -= rows
        if left <= 0:
            return


@dataclass
class Seat:
    """Who sits at one seat: a person (player None) or an engine with its parsed spec."""
    name: str
    spec_text: str                     # "human" or the player spec as typed
    symbol: str
    style: str
    player: Any = None
    spec: Any = None                   # PlayerSpec of an engine seat

    @property
    def human(self) -> bool:
        return self.player is None

    def tag(self, index: int) -> str:
        """'seat 2 O pure-mcts-2000' with the seat's colour (rich markup)."""
        return f"seat {index + 1} [{self.style}]{self.symbol}[/{self.style}] {escape(self.name)}"


@dataclass
class Outcome:
    winner: Optional[int]              # seat index; None for a draw or a game without winner
    reason: str                        # the referee's codes: five | full | resign | foul | crash | illegal ...
    text: str                          # what the screen says (rich markup)


@dataclass
class PlaySession:
    """The state of one sitting; subclasses fill in the hooks marked 'front end'."""
    console: Console
    width: int
    height: int
    rule: Rule
    move_time: Optional[float]
    save_path: Optional[Path]
    seats: list[Seat] = field(default_factory=list)
    board: Any = None
    times: list[int] = field(default_factory=list)
    outcome: Optional[Outcome] = None
    hint: Optional[tuple[int, int]] = None
    messages: list[str] = field(default_factory=list)
    engine_lines: list[str] = field(default_factory=list)
    show_help: bool = False
    page: list[str] = field(default_factory=list)    # plain lines shown once instead of the board (a review)
    dirty: bool = False                # moves since the last save
    saved: Optional[str] = None        # what the last save said ('Saved 4 moves to g.sgf'), for the exit
    game_no: int = 1
    date: str = ""
    compiling: Any = None              # a prepare.BackgroundCompile still filling numba's cache, or None
    _prompt_at: float = 0.0

    # front-end texts
    HELP: ClassVar[str] = ""
    COMMANDS: ClassVar[str] = "undo, new, save, help, quit"
    SAVE_EXAMPLE: ClassVar[str] = "game.sgf"
    UNDO_NOTHING: ClassVar[str] = "Nothing to undo."

    # -- turns and seats -----------------------------------------------------------------
    def seat_to_move(self) -> int:
        return self.board.move_count % len(self.seats)

    def seat_of(self, index: int) -> int:
        """The seat that played move `index` (0-based)."""
        return index % len(self.seats)

    def stone_name(self, seat: int) -> str:  # front end
        return self.seats[seat].tag(seat)

    def winner_seat(self) -> Optional[int]:  # front end: the board's winner as a seat
        raise NotImplementedError

    # -- game lifecycle ------------------------------------------------------------------
    def start_game(self, board: Any) -> None:
        """A fresh game on `board`: clears what the last one left and tells every engine."""
        self.board = board
        self.times, self.outcome, self.hint, self.engine_lines, self.dirty = [], None, None, [], False
        self.date = _dt.date.today().isoformat()
        for s in self.seats:
            if s.player is not None:
                s.player.new_game(self.width, self.height, self.rule)

    def outcome_text(self, winner: Optional[int], reason: str) -> str:  # front end
        raise NotImplementedError

    def finish(self, winner: Optional[int], reason: str, text: Optional[str] = None) -> None:
        self.outcome = Outcome(winner, reason, text if text is not None else self.outcome_text(winner, reason))
        self.hint = None
        self.dirty = True
        if self.save_path is not None:
            self.save(None, auto=True)

    def after_move(self) -> None:
        w = self.winner_seat()
        if w is not None:
            self.finish(w, "five")
        elif self.board.is_full():
            self.finish(None, "full")

    # -- saving --------------------------------------------------------------------------
    def default_name(self, stamp: str) -> str:  # front end
        raise NotImplementedError

    def refuse_path(self, path: Path) -> Optional[str]:
        """Why this file cannot hold the game (one line of markup), or None."""
        return None

    def write_record(self, path: Path) -> None:  # front end; raises ValueError
        raise NotImplementedError

    def default_path(self) -> Path:
        if self.save_path is not None:
            if self.game_no == 1:
                return self.save_path
            return self.save_path.with_name(f"{self.save_path.stem}-{self.game_no}{self.save_path.suffix}")
        return Path(self.default_name(_dt.datetime.now().strftime("%Y%m%d-%H%M%S")))

    def save(self, target: Optional[str], auto: bool = False) -> bool:
        path = Path(target).expanduser() if target else self.default_path()
        refusal = self.refuse_path(path)
        if refusal is not None:
            self.messages.append(f"[red]Not saved:[/red] {refusal}")
            return False
        try:
            self.write_record(path)
        except ValueError as exc:
            self.messages.append(f"[red]Not saved:[/red] {escape(str(exc))}")
            return False
        self.dirty = False
        self.saved = (f"{'Auto-saved' if auto else 'Saved'} {render.plural(self.board.move_count, 'move')} to "
                      f"{escape(str(path))}")
        self.messages.append(self.saved)
        return True

    def autosave(self) -> None:
        """Save unsaved moves to --save (before a new game and when the program ends)."""
        if self.dirty and self.board is not None and self.board.move_count and self.save_path is not None:
            self.save(None, auto=True)

    # -- a person's move -----------------------------------------------------------------
    def refuse_move(self, x: int, y: int) -> Optional[str]:
        """Why the person to move may not play this empty point (one line of markup), or None."""
        return None

    def human_move(self, x: int, y: int) -> None:
        b = self.board
        name = render.describe_move((x, y))
        v = int(b.cell(x, y))
        if v != EMPTY:
            what = f"taken by {self.stone_name(v - 1)}" if v <= len(self.seats) else "a blocked point"
            self.messages.append(f"[red]{name} is {what}[/red]: choose an empty point.")
            return
        refusal = self.refuse_move(x, y)
        if refusal is not None:
            self.messages.append(refusal)
            return
        spent = int((time.monotonic() - self._prompt_at) * 1000) if self._prompt_at else 0
        b.play(x, y)
        self.times.append(spent)
        self.hint = None
        self.dirty = True
        self.engine_lines = []
        self.after_move()

    # -- an engine's move ----------------------------------------------------------------
    def engine_errors(self) -> tuple[type[BaseException], ...]:
        """What an engine's turn may raise that ends the game instead of the program."""
        return (Exception,)

    def illegal_errors(self) -> tuple[type[BaseException], ...]:
        """What the board raises for a move it cannot take."""
        return (ValueError,)

    def thinking_text(self, seat: int, limit: Limit) -> str:  # front end
        raise NotImplementedError

    def engine_failed(self, seat: int, reason: str, detail: str,
                      move: Optional[tuple[int, int]] = None) -> None:  # front end
        """The engine at `seat` crashed (reason 'crash') or played an illegal `move`
        ('illegal'; None when it was no point at all): end the game."""
        raise NotImplementedError

    def engine_gave_up(self, seat: int, res: PlayResult, spent: float) -> bool:  # front end
        """Handle a resignation or a missing move; True when the game ended so."""
        raise NotImplementedError

    def engine_fouled(self, seat: int, x: int, y: int, spent: float) -> bool:
        """A move the rules forbid this seat (renju): True when it ended the game."""
        return False

    def engine_line(self, seat: int, move: tuple[int, int], spent: float, info: SearchInfo) -> str:  # front end
        raise NotImplementedError

    def engine_ready(self) -> None:
        """Before anything searches: wait for a compile still running (with its progress), so
        no clock runs while numba compiles. Returns at once once the cache is warm."""
        if self.compiling is not None:
            self.compiling.wait(self.console)
            self.compiling = None

    def compile_line(self) -> Optional[str]:
        """The compile's progress for the screen, while one runs behind the board."""
        if self.compiling is None:
            return None
        return self.compiling.status_line() or None

    def engine_move(self) -> None:
        b = self.board
        k = self.seat_to_move()
        seat = self.seats[k]
        self.engine_ready()
        limit = seat.spec.limit_for(Limit(turn_time=self.move_time))
        self.console.print(self.thinking_text(k, limit))
        t0 = time.monotonic()
        try:
            res: PlayResult = run_interruptibly(lambda: seat.player.play(b.copy(), limit))
        except self.engine_errors() as exc:
            self.engine_failed(k, "crash", escape(str(exc) or type(exc).__name__))
            return
        spent = time.monotonic() - t0
        if self.engine_gave_up(k, res, spent):
            return
        assert res.move is not None     # engine_gave_up ended the game on no move
        move = None
        try:
            x, y = move = int(res.move[0]), int(res.move[1])
            if self.engine_fouled(k, x, y, spent):
                return
            b.play(x, y)
        except self.illegal_errors() as exc:
            self.engine_failed(k, "illegal", escape(str(exc)), move)
            return
        self.times.append(int(spent * 1000))
        self.dirty = True
        self.engine_lines.append(self.engine_line(k, (x, y), spent, res.info))
        self.engine_lines = self.engine_lines[-(len(self.seats) - 1):]
        self.after_move()

    # -- undo ----------------------------------------------------------------------------
    def undone_text(self, taken: str) -> str:  # front end
        raise NotImplementedError

    def undo(self) -> None:
        """Take back every move since the last move of a person, so that person moves again."""
        b = self.board
        human_moves = [i for i in range(b.move_count) if self.seats[self.seat_of(i)].human]
        if not human_moves:
            self.messages.append(self.UNDO_NOTHING)
            return
        taken = []
        while b.move_count > human_moves[-1]:
            taken.append(render.describe_move(b.undo()))
            if self.times:
                self.times.pop()
        self.outcome, self.hint, self.engine_lines, self.dirty = None, None, [], True
        self.messages.append(self.undone_text(", ".join(reversed(taken))))

    # -- commands ------------------------------------------------------------------------
    def new_settings(self, args: list[str]) -> Optional[dict[str, Any]]:
        """new's words as new_game's keywords, or None (with a message) when they make no sense."""
        return {}

    def new_game(self, **settings: Any) -> None:  # front end
        raise NotImplementedError

    def extra_command(self, cmd: str, args: list[str]) -> bool:
        """A command only this front end knows (hint, resign); True when `cmd` was one."""
        return False

    # -- screen --------------------------------------------------------------------------
    def draw_game(self) -> None:  # front end: title, board, status and the lines below it
        raise NotImplementedError

    def draw(self, keep_messages: bool = False) -> None:
        """Clear the screen and show the board, status and pending messages (or the help).

        `keep_messages` (used right before an engine moves) leaves the messages pending, so
        they are still on screen when the prompt comes back."""
        c = self.console
        if c.is_terminal and not c.is_dumb_terminal:
            c.clear()             # one screen per turn keeps 80x25 readable; dumb/piped output just scrolls
        if self.show_help:
            self.show_help = False
            c.print(self.HELP, highlight=False)
            for m in self.messages:
                c.print(m, highlight=False)
            self.messages = []
            return
        if self.page:
            lines, self.page = self.page, []
            for line in lines:
                c.print(escape(line), highlight=False)
            for m in self.messages:
                c.print(m, highlight=False)
            self.messages = []
            return
        self.draw_game()
        if not keep_messages:
            self.messages = []

    def move_prompt(self) -> str:  # front end
        raise NotImplementedError

    def prompt(self) -> str:
        text = "game over> " if self.outcome is not None else self.move_prompt()
        self._prompt_at = time.monotonic()
        return self.console.input(text)

    def close(self) -> None:
        if self.compiling is not None:
            self.compiling.cancel()
        for seat in self.seats:
            if seat.player is not None:
                try:
                    seat.player.close()
                except Exception:  # noqa: BLE001 - closing must not turn a clean exit into a traceback
                    pass


def handle(s: PlaySession, line: str) -> bool:
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
    elif s.extra_command(cmd, args):
        pass
    elif cmd == "new":
        settings = s.new_settings(args)
        if settings is None:
            return True
        s.autosave()
        if s.board.move_count:
            s.game_no += 1
        s.new_game(**settings)
    elif cmd == "save":
        if len(args) > 1:
            s.messages.append(f"[red]save takes one file name[/red] (no spaces), e.g. save {s.SAVE_EXAMPLE}")
        else:
            s.save(args[0] if args else None)
    else:
        _move_command(s, line, words[0])
    return True


def _move_command(s: PlaySession, line: str, first: str) -> None:
    try:
        x, y = render.parse_move(line, s.width, s.height)
    except ValueError as exc:
        if first.isalpha() and len(first) > 1:
            s.messages.append(f"[red]Unknown command {escape(first[:20])!r}.[/red] Use moves like h8 or 7,7, "
                              f"or {s.COMMANDS}.")
        else:
            s.messages.append(f"[red]{escape(str(exc))}[/red]")
        return
    if s.outcome is not None:
        s.messages.append("The game is over. Type new for another game, undo to take back, save or quit.")
    else:
        s.human_move(x, y)


def loop(s: PlaySession) -> None:
    """Engines move by themselves; a person's turn (or a finished game) waits at the prompt."""
    while True:
        if s.outcome is None and not s.seats[s.seat_to_move()].human:
            s.draw(keep_messages=True)
            s.engine_move()
            continue
        s.draw()
        if not handle(s, s.prompt()):
            break


def catch_ctrl_c() -> None:
    """Make Ctrl-C raise KeyboardInterrupt even when started from a background job of a
    non-interactive shell, which hands SIGINT down as ignored, and stop the engine's search
    with it (tools.interruptible.install: the console script has run it already; this is for
    a session started otherwise, in-process, and does nothing the second time)."""
    install()


def run_session(s: PlaySession, start: Callable[[], None]) -> None:
    """Play until quit, EOF or Ctrl-C, then save to --save and close the engines. `start`
    opens the first game. Ctrl-C exits 130 (after saving), EOF and quit return normally.

    The last words say where the game is whenever --save holds it, saved now or when it
    ended ('Auto-saved 31 moves to g.sgf.'), then 'Bye.': after Ctrl-C the screen's last save
    message is gone, and a person should not have to guess whether the game was kept."""
    interrupted = False
    try:
        start()
        loop(s)
    except EOFError:
        s.console.print()
    except KeyboardInterrupt:
        s.console.print()
        interrupted = True
    finally:
        s.messages = []
        if s.dirty and s.board is not None and s.board.move_count and s.save_path is not None:
            s.save(None, auto=True)
            for m in s.messages:
                s.console.print(m, highlight=False)
        elif s.saved is not None and not s.dirty:
            s.console.print(f"{s.saved}.", highlight=False)
        s.console.print("Bye.")
        s.close()
    if interrupted:
        raise SystemExit(INTERRUPTED)
