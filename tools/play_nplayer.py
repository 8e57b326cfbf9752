"""`gomoku play --players 3`: three-player Gobang (the three-player Gobang paper's game) in the terminal.

Any mix of people and engines sits at the board (`--seats human,pure-mcts:2000,net3.onnx`);
seats move in turn (seat 1, 2, 3, 1, ...) and the first to make `--win` in a row wins, a full
board is a draw. Every seat has its own symbol and colour; the turn order, with the seat to
move marked, is on screen all the time. Moves are typed as in the two-player game (`h8` or
`7,7`, see tools/render.py); `undo` takes back every move since the last person's move, so that
person is to move again; `save FILE` writes the JSON record of `gomoku.engine.game.nrecord`
(SGF and .psq know two colours only).

This is the n-player front end of `play_session.PlaySession`, the session the two-player game
(`play_two`) shares: the same commands, screen frame and ending (EOF exits 0, Ctrl-C 130).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Optional

import click
from rich.console import Console
from rich.markup import escape

from gomoku.engine.game import nrecord
from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit, PlayResult, SearchInfo
from gomoku.engine.game.nboard import NBoard, NBoardError, check_game
from gomoku.tools import render
from gomoku.tools.play_session import GAME_OVER_HINT, SEAT_LOOK, PlaySession, Seat, catch_ctrl_c, run_session

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


def make_seats(text: Optional[str], players: int, win_length: int, human_name: str) -> list[Seat]:
    """Parse --seats (default: a person at seat 1, rollout MCTS at 2000 playouts elsewhere)
    and create the engines; one-line click errors for anything that cannot sit here."""
    from gomoku.engine.match.nplayer import check_spec
    from gomoku.engine.match.players import PlayerError, SpecError, make_engine_player, parse_spec
    specs = split_seats(text) if text else [HUMAN] + ["pure-mcts:2000"] * (players - 1)
    if len(specs) != players:
        raise click.BadParameter(f"{len(specs)} seats given for {players} players", param_hint="--seats")
    seats: list[Seat] = []
    for i, spec_text in enumerate(specs):
        sym, style = SEAT_LOOK[i]
        if spec_text.lower() == HUMAN:
            name = human_name if specs.count(HUMAN) == 1 else f"{human_name}{i + 1}"
            seats.append(Seat(name, HUMAN, sym, style))
            continue
        try:
            spec = parse_spec(spec_text)
            check_spec(spec, players)
            player = make_engine_player(spec, win_length=win_length, players=players)
        except (SpecError, PlayerError) as exc:
            for s in seats:
                if s.player is not None:
                    s.player.close()
            raise click.BadParameter(str(exc), param_hint="--seats") from None
        seats.append(Seat(spec.name, spec.text, sym, style, player, spec))
        if hasattr(player, "reseed"):
            player.reseed(i)        # two copies of one spec search differently
    return distinct_names(seats)


def distinct_names(seats: list[Seat]) -> list[Seat]:
    """Every copy of a name that more than one engine seat has gets its seat number
    (pure-mcts-2000-2, pure-mcts-2000-3): naming only the second copy so left one seat looking
    like the original and the other like a different player, on screen and in the record."""
    engines = [s.name for s in seats if not s.human]
    for i, s in enumerate(seats):
        if not s.human and engines.count(s.name) > 1:
            s.name = f"{s.name}-{i + 1}"
    return seats


@dataclass
class NPlayerSession(PlaySession):
    """Three or four seats in turn order; people and engines in any mix."""
    players: int = 3
    win_length: int = 5

    HELP: ClassVar[str] = HELP
    COMMANDS: ClassVar[str] = "undo, new, save, help, quit"
    SAVE_EXAMPLE: ClassVar[str] = "game.json"
    UNDO_NOTHING: ClassVar[str] = "Nothing to undo: no person has moved yet."

    # -- game lifecycle --------------------------------------------------------------
    # each front end's new_game takes the keywords its own new_settings makes (none here)
    def new_game(self) -> None:  # type: ignore[override]
        self.start_game(NBoard(self.width, self.height, self.players, self.win_length, self.rule))
        self.messages.append(f"{self.players} players, {self.win_length} in a row wins. Type a move like h8 or "
                             f"7,7; 'help' lists commands.")

    def winner_seat(self) -> Optional[int]:
        return self.board.winner

    def outcome_text(self, winner: Optional[int], reason: str) -> str:
        if winner is not None:
            return f"{self.seats[winner].tag(winner)} wins with {self.win_length} in a row."
        return "Draw: the board is full."

    # -- saving ----------------------------------------------------------------------
    def record(self) -> nrecord.NGameRecord:
        o = self.outcome
        rec = nrecord.NGameRecord(self.width, self.height, self.players, self.win_length, self.rule.label,
                                  [nrecord.Seat(s.name, s.spec_text, s.symbol) for s in self.seats],
                                  list(self.board.moves), list(self.times), date=self.date)
        if o is not None:
            rec.finished, rec.reason = True, o.reason
            rec.winner_seat = None if o.winner is None else o.winner + 1
            rec.text = render_plain(o.text)
        return rec

    def default_name(self, stamp: str) -> str:
        return f"gomoku{self.players}-{stamp}.json"

    def refuse_path(self, path: Path) -> Optional[str]:
        if path.suffix.lower() in (".sgf", ".psq"):
            return (f"{self.players}-player games are saved as JSON records (.json); SGF and .psq know two "
                    f"colours only.")
        return None

    def write_record(self, path: Path) -> None:
        nrecord.save(path, self.record())

    # -- engines ---------------------------------------------------------------------
    def illegal_errors(self) -> tuple[type[BaseException], ...]:
        return (NBoardError, TypeError, ValueError, IndexError)

    def thinking_text(self, seat: int, limit: Limit) -> str:
        return f"[dim]seat {seat + 1} {escape(self.seats[seat].name)} is thinking...[/dim]"

    def engine_failed(self, seat: int, reason: str, detail: str, move: Optional[tuple[int, int]] = None) -> None:
        what = "failed" if reason == "crash" else "played an illegal move"
        self.finish(None, reason, f"{self.seats[seat].tag(seat)} {what}: {detail}")

    def engine_gave_up(self, seat: int, res: PlayResult, spent: float) -> bool:
        if res.move is not None:
            return False
        self.finish(None, "crash", f"{self.seats[seat].tag(seat)} returned no move.")
        return True

    def engine_line(self, seat: int, move: tuple[int, int], spent: float, info: SearchInfo) -> str:
        return (f"{self.seats[seat].tag(seat)} played [bold]{render.describe_move(move)}[/bold] "
                f"in {spent:.2f} s{SearchInfo.of(info).summary()}")

    def undone_text(self, taken: str) -> str:
        seat = self.board.to_move
        return f"Took back {taken}. {self.seats[seat].tag(seat)} to move."

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

    def draw_game(self) -> None:
        c = self.console
        title = (f"[bold]gomoku[/bold] {self.players} players, {self.win_length} in a row, {self.rule.label} "
                 f"{self.width}x{self.height}")
        extra = [self.order_line(), self.status_line()] + self.engine_lines + self.messages
        if self.outcome is not None:
            # in the order it happened: the last moves, then the end they made
            extra = [self.order_line()] + self.engine_lines + [self.status_line()] + self.messages + [GAME_OVER_HINT]
        room = c.height - render.board_lines(self.height) - 1
        while len(extra) > room and self.engine_lines and any(line in self.engine_lines for line in extra):
            extra.remove(next(line for line in extra if line in self.engine_lines))
        if room - len(extra) >= 1:
            c.print(title, highlight=False)
        c.print(render.render_board(self.board, symbols=self.symbols()))
        for line in extra:
            c.print(line, highlight=False)

    def move_prompt(self) -> str:
        seat = self.board.to_move
        return f"Your move, seat {seat + 1} ({self.seats[seat].symbol})> "


def render_plain(markup: str) -> str:
    """Text of a rich markup string (for records)."""
    from rich.text import Text
    return Text.from_markup(markup).plain


def run(*, players: int, width: Optional[int], height: Optional[int], rule: Rule, win_length: int,
        seats_text: Optional[str], move_time: Optional[float], save_path: Optional[str], human_name: str) -> None:
    """The game behind `gomoku play --players N`. width/height None: DEFAULT_SIDE;
    move_time None: each engine's playouts alone decide."""
    width = width or DEFAULT_SIDE
    height = height or width
    try:
        check_game(width, height, players, win_length, rule)
    except NBoardError as exc:
        raise click.UsageError(str(exc)) from None
    if save_path is not None and Path(save_path).suffix.lower() in (".sgf", ".psq"):
        raise click.BadParameter(f"{players}-player games are saved as JSON records (.json)", param_hint="--save")
    seats = make_seats(seats_text, players, win_length, human_name)
    catch_ctrl_c()
    s = NPlayerSession(console=Console(highlight=False), width=width, height=height, rule=Rule(rule), move_time=move_time,
                 save_path=Path(save_path) if save_path else None, seats=seats, players=players,
                 win_length=win_length)
    run_session(s, s.new_game)
