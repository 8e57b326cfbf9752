"""The two-player front end of the terminal session (`gomoku play`): a person against one engine.

What only the two-player game has: the person chooses a colour (black moves first), renju
forbids black some points (marked ! and refused with the reason, an engine's foul loses), the
engine gives hints and may resign, and games are saved as .sgf or .psq (engine.game.records).
Everything else is `play_session.PlaySession`.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Optional

import click
from rich.markup import escape

from gomoku.engine.game import records
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.stones import BLACK, EMPTY, WHITE
from gomoku.engine.base.limits import Limit, PlayResult, SearchInfo
from gomoku.tools import render
from gomoku.tools.interruptible import run_interruptibly
from gomoku.tools.play_session import SEAT_LOOK, Outcome, PlaySession, Seat, print_rows, screen_rows

COLOUR_NAME = {BLACK: "black", WHITE: "white"}
STONE = {BLACK: "X", WHITE: "O"}
#: what `refuse_move` says a renju foul would make (Board.foul_kind's words)
_FOUL_WORDS = {"overline": "an overline (six or more)", "double-four": "a double-four",
               "double-three": "a double-three"}
# reason codes are the referee's (engine.match.referee), so records from play and match read alike
_REASON_TEXT = {"five": "five in a row", "four": "four in a row", "resign": "by resignation", "foul": "black played a forbidden point",
                "illegal": "the engine played an illegal move", "crash": "the engine failed",
                "time": "on time", "full": "the board is full", "adjudication": "adjudicated"}

#: the game-over line of the two-player game, which can be reviewed (play_session's, plus review)
GAME_OVER_REVIEW = "Type review to see every move judged, new for another game, undo, save or quit."

HELP = """\
[bold]Commands[/bold]
  h8 or H8      play at column h, row 8 (rows count from 1 at the TOP)
  7,7           play at x=7, y=7 (0-based, as the engine and protocol count)
  undo          take back the engine's reply and your last move
  hint          ask the engine for a move for you (shown as * on the board)
  resign        give up this game
  review        the engine's opinion of every move so far (as gomoku analyze)
  new [COLOUR]  start a new game (COLOUR: black, white or random)
  save [FILE]   save the game (.sgf, or .psq for Piskvork); default name if none
  help          this text;   quit  leave (also Ctrl-D / Ctrl-C)

[bold]Board[/bold]
  X black (moves first)   O white   [X] last move   * hint
  ! a point black may not play under renju (double-three, double-four, overline)
  top rulers: x index 0.. and column letters a..; left: y index 0.. and row 1..
"""


def _colour_seat(colour: int) -> int:
    return colour - 1


@dataclass
class TwoPlayerSession(PlaySession):
    """A person and one engine; seat 0 is black. The person's colour may change with `new`."""
    colour_choice: str = "black"            # black | white | random
    spec: Any = None                        # PlayerSpec of the opponent
    opponent: Any = None                    # its player, kept from game to game
    hint_time: float = 1.0
    human_name: str = "human"
    human: int = BLACK

    HELP: ClassVar[str] = HELP
    COMMANDS: ClassVar[str] = "undo, hint, resign, review, new, save, help, quit"
    SAVE_EXAMPLE: ClassVar[str] = "game.sgf"
    UNDO_NOTHING: ClassVar[str] = "Nothing to undo: you have not moved yet."

    def engine_errors(self) -> tuple[type[BaseException], ...]:
        from gomoku.engine.match.players import PlayerError
        return (PlayerError,)

    def illegal_errors(self) -> tuple[type[BaseException], ...]:
        from gomoku.engine.game.board import IllegalMove
        return (IllegalMove,)

    # -- game lifecycle --------------------------------------------------------------
    # each front end's new_game takes the keywords its own new_settings makes
    def new_game(self, colour: Optional[str] = None,  # type: ignore[override]
                 record: Optional[records.GameRecord] = None) -> None:
        from gomoku.engine.game.board import Board, IllegalMove
        choice = colour or self.colour_choice
        self.human = random.choice([BLACK, WHITE]) if choice == "random" else (BLACK if choice == "black" else WHITE)
        sym, style = SEAT_LOOK[_colour_seat(self.human)]
        you = Seat(self.human_name, "human", sym, style)
        sym, style = SEAT_LOOK[_colour_seat(3 - self.human)]
        engine = Seat(self.opponent_name(), self.spec.text, sym, style, self.opponent, self.spec)
        self.seats = [you, engine] if self.human == BLACK else [engine, you]
        self.start_game(Board(self.width, self.height, rule=self.rule))
        if record is not None:
            try:
                for x, y in record.moves:
                    self.board.play(x, y)
            except IllegalMove as exc:
                raise click.ClickException(f"cannot continue the saved game: {exc}") from None
            self.times = list(record.times) if record.times else [0] * len(record.moves)
            self.date = record.date or self.date
            self.outcome = self.loaded_outcome(record)
        told = f"You play {STONE[self.human]} ({COLOUR_NAME[self.human]})"
        self.messages.append(f"{told}. Type a move like h8 or 7,7; 'help' lists commands.")

    def loaded_outcome(self, record: records.GameRecord) -> Optional[Outcome]:
        """How a loaded game ended: as its record says, else as its board shows (not saved again)."""
        if record.result is not None:
            winner, reason = (_colour_seat(record.winner) if record.winner else None), record.reason or ""
        elif self.board.winner:
            winner, reason = self.winner_seat(), "five"
        elif self.board.is_full():
            winner, reason = None, "full"
        else:
            return None
        return Outcome(winner, reason, self.outcome_text(winner, reason))

    def new_settings(self, args: list[str]) -> Optional[dict[str, Any]]:
        colour = args[0].lower() if args else None
        if colour not in (None, "black", "white", "random"):
            self.messages.append(f"[red]new {escape(args[0])}?[/red] Use new, new black, new white or new random.")
            return None
        return {"colour": colour}

    def winner_seat(self) -> Optional[int]:
        return _colour_seat(self.board.winner) if self.board.winner else None

    def stone_name(self, seat: int) -> str:
        return COLOUR_NAME[seat + 1]

    def outcome_text(self, winner: Optional[int], reason: str) -> str:
        why = _REASON_TEXT.get(reason, reason or "no reason given")
        if winner is None:
            return f"Draw ({why})."
        colour = winner + 1
        who = "You win" if colour == self.human else f"{self.opponent_name()} wins"
        return f"{who} ({STONE[colour]} {COLOUR_NAME[colour]}): {why}."

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
    def record(self) -> records.GameRecord:
        engine = self.opponent_name()
        if self.spec.kind == "classical" and "time" not in self.spec.options:
            engine += f" {self.move_time:g}s"
        names = {self.human: self.human_name, 3 - self.human: engine}
        rec = records.GameRecord(width=self.width, height=self.height, rule=self.rule, moves=self.board.moves,
                                 black=names[BLACK], white=names[WHITE], date=self.date, times=list(self.times))
        if self.outcome is not None:
            w = self.outcome.winner
            rec.finish(EMPTY if w is None else w + 1, self.outcome.reason)
        return rec

    def default_name(self, stamp: str) -> str:
        return f"gomoku-{stamp}.sgf"

    def write_record(self, path: Path) -> None:
        records.save(path, self.record())

    # -- turns -----------------------------------------------------------------------
    def refuse_move(self, x: int, y: int) -> Optional[str]:
        if self.rule == Rule.RENJU and self.human == BLACK and self.board.is_forbidden(x, y):
            kind = _FOUL_WORDS.get(self.board.foul_kind(x, y) or "", "a foul")
            return (f"[red]{render.describe_move((x, y))} is forbidden for black under renju[/red]: it would make "
                    f"{kind}. Forbidden points are marked !.")
        return None

    def thinking_text(self, seat: int, limit: Limit) -> str:
        budget = limit.turn_time
        return (f"[dim]{escape(self.opponent_name())} is thinking"
                f"{f' (up to {budget:g} s)' if budget else ''}...[/dim]")

    def engine_failed(self, seat: int, reason: str, detail: str, move: Optional[tuple[int, int]] = None) -> None:
        self.finish(_colour_seat(self.human), reason)
        if reason == "crash":
            self.messages.append(f"[red]The engine failed:[/red] {detail}")
        else:
            at = f" {move[0]},{move[1]}" if move is not None else ""
            self.messages.append(f"[red]The engine played an illegal move{at}:[/red] {detail}")

    def engine_gave_up(self, seat: int, res: PlayResult, spent: float) -> bool:
        if not (res.resigned or res.move is None):
            return False
        self.finish(_colour_seat(self.human), "resign")
        self.engine_lines = [f"{escape(self.opponent_name())} resigned after {spent:.2f} s."]
        return True

    def engine_fouled(self, seat: int, x: int, y: int, spent: float) -> bool:
        b = self.board
        if seat + 1 == BLACK and self.rule == Rule.RENJU and b.in_bounds(x, y) and b.is_forbidden(x, y):
            b.play(x, y)
            self.times.append(int(spent * 1000))
            self.finish(_colour_seat(self.human), "foul")
            return True
        return False

    def engine_line(self, seat: int, move: tuple[int, int], spent: float, info: SearchInfo) -> str:
        name = escape(self.opponent_name())
        said = SearchInfo.of(info).summary("its")
        return f"{name} played [bold]{render.describe_move(move)}[/bold] in {spent:.2f} s{said}"

    def undone_text(self, taken: str) -> str:
        return f"Took back {taken}. Your move."

    # -- hint and resign -------------------------------------------------------------
    def extra_command(self, cmd: str, args: list[str]) -> bool:
        if cmd == "hint":
            if self.outcome is not None:
                self.messages.append("The game is over: no hint needed. Type new, undo, save or quit.")
            else:
                self.show_hint()
        elif cmd == "review":
            self.review()
        elif cmd == "resign":
            if self.outcome is not None:
                self.messages.append("The game is already over.")
            else:
                self.finish(_colour_seat(3 - self.human), "resign")
        else:
            return False
        return True

    def review(self) -> None:
        """Review the moves played so far as `gomoku analyze` does (its default budget, on every
        core, with a progress bar), and show the report in place of the board until the next
        input. Ctrl-C stops the review and leaves the game, as it does anywhere in `play`."""
        if self.board.move_count == 0:
            self.messages.append("Nothing to review yet: play a move first.")
            return
        self.engine_ready()
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from gomoku.engine.player.agent import searcher_name
        from gomoku.engine.player.review import review_game
        from gomoku.tools.review_view import report_lines
        with Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(), TextColumn("positions"),
                      TimeRemainingColumn(), console=self.console, transient=True) as bar:
            task = bar.add_task("review", total=None)
            review = review_game(self.record(), on_progress=lambda done, total: bar.update(
                task, completed=done, total=total))
        if review.interrupted:
            raise KeyboardInterrupt
        self.page = report_lines(review, "this game", engine=searcher_name(None))

    def show_hint(self) -> None:
        try:
            from gomoku.engine.player.agent import think
        except ImportError:
            self.messages.append("[red]No hint:[/red] the engine (gomoku.engine.player.agent) is not available.")
            return
        b = self.board
        self.engine_ready()
        self.console.print(f"[dim]Looking for a hint (up to {self.hint_time:g} s)...[/dim]")
        t0 = time.monotonic()
        try:
            res = run_interruptibly(lambda: think(b.copy(), Limit(turn_time=self.hint_time)))
        except Exception as exc:  # noqa: BLE001 - a failed hint must not end the game
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.messages.append(f"[red]No hint:[/red] {escape(why)}")
            return
        if res.move is None:
            self.messages.append("No hint: the engine finds no move.")
            return
        self.hint = (int(res.move[0]), int(res.move[1]))
        self.messages.append(f"Hint: [bold green]{render.describe_move(self.hint)}[/bold green] "
                             f"(marked *, {time.monotonic() - t0:.2f} s{SearchInfo.of(res.info).summary('your')})")

    # -- screen ----------------------------------------------------------------------
    def draw_game(self) -> None:
        c, b = self.console, self.board
        forbidden = ()
        if self.rule == Rule.RENJU and b.to_move == BLACK and self.outcome is None and self.human == BLACK:
            forbidden = b.forbidden_points()
        title = (f"[bold]gomoku[/bold] {self.rule.label} {self.width}x{self.height}  you: "
                 f"{STONE[self.human]} {COLOUR_NAME[self.human]}  vs {escape(self.opponent_name())}"
                 f"{escape(self.opponent_searcher())}")
        if self.outcome is not None:
            status = f"[bold]Game over:[/bold] {self.outcome.text}"
        else:
            turn = "your move" if b.to_move == self.human else "engine to move"
            status = (f"Move {b.move_count + 1}, {STONE[b.to_move]} {COLOUR_NAME[b.to_move]} ({turn}); "
                      f"last: {render.describe_move(b.last_move)}")
        engine_line = self.engine_lines[-1] if self.engine_lines else ""
        # in the order it happened: the engine's last move, then the game's end it made
        extra = ([engine_line] if engine_line else []) + [status] + self.messages
        if self.outcome is None:
            extra = [status] + ([engine_line] if engine_line else []) + self.messages
        if self.outcome is not None:
            extra.append(GAME_OVER_REVIEW)
        compile_line = self.compile_line()
        if compile_line:
            extra.insert(extra.index(status) + 1, compile_line)
        # rows, not lines: a line wider than the terminal wraps, and counting it as one row
        # scrolled the title (18x18 after a hint) or the top ruler (20x20) off an 80x25 screen
        room = c.height - render.board_lines(self.height) - 1
        show_title = room - screen_rows(c, extra) >= screen_rows(c, [title])
        if not show_title:
            # tall boards on 80x25 (20x20 and up): the game and the opponent lead the status line,
            # so what is being played stays on screen when the title line has no room
            at = extra.index(status)
            status = extra[at] = (f"[bold]{self.rule.label} {self.width}x{self.height}[/bold] vs "
                                  f"{escape(self.opponent_name()[:20])}: {status}")
        if screen_rows(c, extra) > room and engine_line:
            extra.remove(engine_line)
        if screen_rows(c, extra) > room and self.messages and self.outcome is None:
            extra.remove(status)          # tall boards: the message matters more than the status
        if show_title:
            c.print(title, highlight=False)
        c.print(render.render_board(b, hint=self.hint, forbidden=forbidden))
        print_rows(c, extra, room)

    def move_prompt(self) -> str:
        return f"Your move ({STONE[self.human]})> "

