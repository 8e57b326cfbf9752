"""The one referee: plays a game of two or more seats and judges every move.

`engine.match.arena` (two players, colours) and `engine.match.nplayer` (three or four seats,
sides) both hand their seated players to `referee` and turn its `Verdict` into their own
result. The rules of judging are therefore written once; only the words differ, because two-
player results read "White wins on time" (as cutechess does) and n-seat ones name the seat.

Reason codes, as the arena's docstring lists them: five, foul, illegal, time, crash, resign,
full, adjudication, proven. A forfeit names the seat that lost (`Verdict.loser`); with two seats the
other one wins, with more the caller decides (the n-seat match scores it for the other side).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from gomoku.engine.game.seats import SeatBoard
from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.match.players import Player, PlayerError, PlayerTimeout


@dataclass
class Verdict:
    """How a game ended. `winner`: the seat that made the row; `loser`: the seat that
    forfeited or fouled; both None on a draw. `times` and `scores` are of the moves asked for (no opening)."""
    winner: Optional[int]
    loser: Optional[int]
    reason: str
    detail: str
    moves: list[tuple[int, int]]
    times: list[float]
    scores: list[Any] = dataclasses.field(default_factory=list)   # each asked move's reported score


class SeatWords:
    """The sentences of an n-seat game: each names the seat and who sits there."""

    def __init__(self, names: Sequence[str], width: int, height: int) -> None:
        self.names, self.width, self.height = list(names), width, height

    def who(self, seat: int) -> str:
        return f"seat {seat + 1} ({self.names[seat]})"

    def start_failed(self, seat: int, exc: Exception) -> str:
        return f"{self.who(seat)} failed to start: {type(exc).__name__}: {exc}"

    def won(self, seat: int, line: int) -> str:
        return f"{self.who(seat)} wins by {line} in a row"

    def full(self) -> str:
        return "draw by full board"

    def adjudicated(self, moves: int) -> str:
        return f"draw by adjudication after {moves} moves"

    def proven(self, seat: int) -> str:
        return f"{self.who(seat)} wins by adjudication: both searches see its win forced"

    def stopped(self) -> str:
        return "draw: match stopped"

    def timed_out(self, seat: int, exc: Exception) -> str:
        return f"{self.who(seat)} lost on time: {exc}"

    def crashed(self, seat: int, exc: Exception) -> str:
        return f"{self.who(seat)} crashed: {type(exc).__name__}: {exc}"

    def too_slow(self, seat: int, elapsed: float, budget: float, tolerance: float) -> str:
        return f"{self.who(seat)} took {elapsed:.2f} s (limit {budget:g} s + {tolerance:g} s tolerance)"

    def resigned(self, seat: int) -> str:
        return f"{self.who(seat)} resigned"

    def no_move(self, seat: int) -> str:
        return f"{self.who(seat)} returned no move"

    def illegal(self, seat: int, why: str) -> str:
        return f"{self.who(seat)} played an illegal move: {why}"

    def not_a_move(self, seat: int, move: Any) -> str:
        return self.illegal(seat, f"returned {move!r}, not a move")

    def outside(self, seat: int, x: int, y: int) -> str:
        return self.illegal(seat, f"{x},{y} is outside the {self.width}x{self.height} board")

    def occupied(self, seat: int, x: int, y: int, stone: int) -> str:
        return self.illegal(seat, f"{x},{y} is taken by seat {stone}")

    def refused(self, seat: int, exc: Exception) -> str:
        return self.illegal(seat, str(exc))

    def foul(self, seat: int, x: int, y: int) -> str:
        return self.illegal(seat, f"{x},{y} is a forbidden point")


class ColourWords(SeatWords):
    """The sentences of a two-player game, in colours and from the winner's side, as
    cutechess writes them ("White wins on time: ...")."""

    COLOURS = ("Black", "White")

    def _pair(self, seat: int) -> tuple[str, str]:
        """The other colour (who wins a forfeit), and this seat's colour in lower case."""
        return self.COLOURS[1 - seat], self.COLOURS[seat].lower()

    def start_failed(self, seat: int, exc: Exception) -> str:
        other, me = self._pair(seat)
        if isinstance(exc, PlayerError):
            return f"{other} wins, {me} failed to start: {exc}"
        return f"{other} wins, {me} crashed: {type(exc).__name__}: {exc}"

    def won(self, seat: int, line: int) -> str:
        if line == 5:
            return f"{self.COLOURS[seat]} wins by five"
        return f"{self.COLOURS[seat]} wins by {line} in a row"

    def full(self) -> str:
        return "Draw by full board"

    def adjudicated(self, moves: int) -> str:
        return f"Draw by adjudication after {moves} moves"

    def proven(self, seat: int) -> str:
        return f"{self.COLOURS[seat]} wins by adjudication: both searches see the win forced"

    def stopped(self) -> str:
        return "Draw: match stopped"

    def timed_out(self, seat: int, exc: Exception) -> str:
        return f"{self._pair(seat)[0]} wins on time: {exc}"

    def crashed(self, seat: int, exc: Exception) -> str:
        other, me = self._pair(seat)
        if isinstance(exc, PlayerError):
            return f"{other} wins, {me} crashed: {exc}"
        return f"{other} wins, {me} crashed: {type(exc).__name__}: {exc}"

    def too_slow(self, seat: int, elapsed: float, budget: float, tolerance: float) -> str:
        other, me = self._pair(seat)
        return (f"{other} wins on time: {me} took {elapsed:.2f} s "
                f"(limit {budget:.2f} s + {tolerance:g} s tolerance)")

    def resigned(self, seat: int) -> str:
        return f"{self._pair(seat)[0]} wins by resignation"

    def no_move(self, seat: int) -> str:
        other, me = self._pair(seat)
        return f"{other} wins, {me} returned no move"

    def not_a_move(self, seat: int, move: Any) -> str:
        other, me = self._pair(seat)
        return f"{other} wins, {me} returned {move!r}, not a move"

    def outside(self, seat: int, x: int, y: int) -> str:
        other, me = self._pair(seat)
        return f"{other} wins, {me} played {x},{y} outside the board"

    def occupied(self, seat: int, x: int, y: int, stone: int) -> str:
        other, me = self._pair(seat)
        return f"{other} wins, {me} played {x},{y}, an occupied cell"

    def refused(self, seat: int, exc: Exception) -> str:
        other, me = self._pair(seat)
        return f"{other} wins, {me}: {exc}"

    def foul(self, seat: int, x: int, y: int) -> str:
        return f"{self._pair(seat)[0]} wins, {self._pair(seat)[1]} played the forbidden point {x},{y}"


@dataclass(eq=False)
class _Ended(Exception):
    """Raised inside the referee to end the game; carries the verdict's fields."""
    reason: str
    detail: str
    winner: Optional[int] = None
    loser: Optional[int] = None


def referee(seated: Sequence[Player], board: SeatBoard, limits: Sequence[Limit], words: SeatWords,
            tolerance: float = 1.0, draw_after: Optional[int] = None,
            stop: Optional[threading.Event] = None, adjudicate_proven: bool = False) -> Verdict:
    """Play the game on `board` (opening stones already placed) with `seated[s]` at seat s.
    Player errors never escape: the seat that made one forfeits. `limits[s]`' match_time is
    kept as a game clock here and handed over as `time_left`.

    With `adjudicate_proven` (two seats), a game ends as soon as both players agree it is over:
    one's last report is a proven win (`score` "win"), the other's a proven loss. The rest of such a game is a matter of playing out the proof, and a tester
    at fixed nodes plays thousands of them (reason "proven")."""
    times: list[float] = []
    scores: list[Any] = []
    said: list[Any] = [None] * len(seated)      # each seat's last reported score
    try:
        _start(seated, board, words)
        used = [0.0] * len(seated)
        while True:
            _check_end(board, words, draw_after, stop)
            seat = board.to_move
            res, elapsed = _ask(seated[seat], seat, board, limits[seat], used, words, tolerance)
            x, y = _judge(res, seat, board, words)
            foul = board.is_foul(x, y)
            try:
                board.play(x, y)
            except ValueError as exc:     # IllegalMove, NBoardError
                raise _Ended("illegal", words.refused(seat, exc), loser=seat) from None
            times.append(elapsed)
            scores.append(res.info.get("score"))
            if foul:
                raise _Ended("foul", words.foul(seat, x, y), loser=seat)
            said[seat] = scores[-1]
            if adjudicate_proven and len(seated) == 2 and board.winner is None \
                    and {said[seat], said[1 - seat]} == {"win", "loss"}:
                winner = seat if said[seat] == "win" else 1 - seat
                raise _Ended("proven", words.proven(winner), winner=winner)
    except _Ended as end:
        return Verdict(end.winner, end.loser, end.reason, end.detail, board.moves, times, scores)


def _start(seated: Sequence[Player], board: SeatBoard, words: SeatWords) -> None:
    g = board.game
    for seat, p in enumerate(seated):
        try:
            p.new_game(g.width, g.height, g.rule)
        except Exception as exc:  # an in-process player's bug is its loss, not the match's
            raise _Ended("crash", words.start_failed(seat, exc), loser=seat) from None


def _check_end(board: SeatBoard, words: SeatWords, draw_after: Optional[int],
               stop: Optional[threading.Event]) -> None:
    """End the game before the next move: a row made, a full board, the move cap, a stop."""
    if board.winner is not None:
        raise _Ended("five", words.won(board.winner, board.win_line), winner=board.winner)
    if board.is_full():
        raise _Ended("full", words.full())
    if draw_after and board.move_count >= draw_after:
        raise _Ended("adjudication", words.adjudicated(board.move_count))
    if stop is not None and stop.is_set():
        raise _Ended("adjudication", words.stopped())


def _ask(player: Player, seat: int, board: SeatBoard, lim: Limit, used: list[float], words: SeatWords,
         tolerance: float) -> tuple[PlayResult, float]:
    """The seat's answer and the seconds it took, judged against its turn time and clock."""
    time_left = None if not lim.match_time else lim.match_time - used[seat]
    limit = dataclasses.replace(lim, time_left=time_left)
    t0 = time.perf_counter()
    try:
        # Player.play is typed for the two-seat Board; an NBoard goes only to the players that
        # make_engine_player allows for more seats, which take it
        res: PlayResult = player.play(board.view(), limit)  # type: ignore[arg-type]
    except PlayerTimeout as exc:
        raise _Ended("time", words.timed_out(seat, exc), loser=seat) from None
    except Exception as exc:  # PlayerError or an in-process player's bug: its loss
        raise _Ended("crash", words.crashed(seat, exc), loser=seat) from None
    elapsed = time.perf_counter() - t0
    used[seat] += elapsed
    budgets = [b for b in (lim.turn_time, time_left) if b is not None]
    if budgets and elapsed > max(0.0, min(budgets)) + tolerance:
        raise _Ended("time", words.too_slow(seat, elapsed, max(0.0, min(budgets)), tolerance), loser=seat)
    return res, elapsed


def _judge(res: PlayResult, seat: int, board: SeatBoard, words: SeatWords) -> tuple[int, int]:
    """The answer as a move on an empty cell of the board, or the game ends."""
    if res.move is None:
        if res.resigned:
            raise _Ended("resign", words.resigned(seat), loser=seat)
        raise _Ended("illegal", words.no_move(seat), loser=seat)
    try:
        x, y = int(res.move[0]), int(res.move[1])
    except (TypeError, ValueError, IndexError):
        raise _Ended("illegal", words.not_a_move(seat, res.move), loser=seat) from None
    if not board.in_bounds(x, y):
        raise _Ended("illegal", words.outside(seat, x, y), loser=seat)
    if board.cell(x, y) != 0:
        raise _Ended("illegal", words.occupied(seat, x, y, board.cell(x, y)), loser=seat)
    return x, y


__all__ = ["Verdict", "SeatWords", "ColourWords", "referee"]
