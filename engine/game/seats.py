"""The one game model: two or more seats, a win length, a rule; and the board a referee keeps.

Two kinds of board hold stones. Two seats play on `Board`, the numba core with incremental
five detection and renju fouls, which the alpha-beta engine and the MCTS player's threat
probes read directly: it stays the fast path. It judges five in a row only, so a two-seat
game to another length is judged here with `cells.wins_at`, once per move. Three or four
seats play on `NBoard`, which judges with the same `wins_at`. `SeatBoard` puts both behind
one face, in seats (0-based, seat 0 moves first), so one referee serves every game.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Union

import numpy as np

from .board import Board
from .cells import direction_steps, flat_to_padded, new_cells, wins_at
from .nboard import NBoard, NBoardError, check_game
from .rules import Rule

#: what a player is handed: the two-seat core board, or the n-seat board
PlayerBoard = Union[Board, NBoard]


@dataclass(frozen=True)
class Game:
    """Which game is played: board size, seats, the stones in a row that win, and the rule."""
    width: int
    height: int
    players: int = 2
    win_length: int = 5
    rule: Rule = Rule.FREESTYLE

    def check(self) -> None:
        """NBoardError (one line) for more seats than the two-seat core holds and a game their
        board cannot play. Two seats take every rule; `Board` refuses a bad size itself."""
        if self.players != 2:
            check_game(self.width, self.height, self.players, self.win_length, self.rule)

    def board(self, opening: Iterable[tuple[int, int]] = ()) -> "SeatBoard":
        """An empty board with `opening`'s stones placed in turn order (stone i to seat
        i % players); the board's ValueError (IllegalMove, NBoardError) for one it refuses."""
        b = SeatBoard(self)
        for x, y in opening:
            b.play(int(x), int(y))
        return b


class SeatBoard:
    """A game in progress as a referee sees it: whose turn it is, who has won, what a move
    would do. `board` is the position players are handed a copy of (`view`)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        g = game
        self.board: PlayerBoard
        self._cells: Optional[np.ndarray] = None
        if g.players == 2:
            self.board = Board(g.width, g.height, g.rule)
            if g.win_length != 5:    # the core knows five; other lengths are scanned per move
                self._cells = new_cells(g.width, g.height, 2)
                self._pad = flat_to_padded(g.width, g.height)
                self._steps = direction_steps(g.width)
        else:
            self.board = NBoard(g.width, g.height, g.players, g.win_length, g.rule)
        #: the seat that made the winning row, None while nobody has
        self.winner: Optional[int] = None
        #: stones in that row as the rule counts them: 5 when the two-seat core saw five
        self.win_line = 0

    @property
    def moves(self) -> list[tuple[int, int]]:
        return list(self.board.moves)

    @property
    def move_count(self) -> int:
        return self.board.move_count

    @property
    def to_move(self) -> int:
        """The seat whose turn it is."""
        return self.board.move_count % self.game.players

    def is_full(self) -> bool:
        return self.board.is_full()

    @property
    def game_over(self) -> bool:
        return self.winner is not None or self.is_full()

    def in_bounds(self, x: int, y: int) -> bool:
        return self.board.in_bounds(x, y)

    def cell(self, x: int, y: int) -> int:
        """0 empty, 1 + seat for a stone."""
        return int(self.board.cell(x, y))

    def is_foul(self, x: int, y: int) -> bool:
        """Would the mover's stone at x, y be a renju foul? (Black only, two seats only.)"""
        return (self.game.players == 2 and self.game.rule == Rule.RENJU and self.to_move == 0
                and isinstance(self.board, Board) and self.board.is_forbidden(x, y))

    def view(self) -> PlayerBoard:
        """A copy of the position for a player to search on."""
        return self.board.copy()

    def play(self, x: int, y: int) -> bool:
        """Place the mover's stone; True when it wins. The board's ValueError for a move it
        refuses. A foul is played like any move: judging it is the referee's."""
        seat = self.to_move
        self.board.play(x, y)
        if isinstance(self.board, NBoard):
            if self.board.winner is not None:
                self.winner, self.win_line = self.board.winner, self.game.win_length
        elif self._cells is not None and self._row(x, y, seat):
            self.winner, self.win_line = seat, self.game.win_length
        elif self.board.winner:
            self.winner, self.win_line = self.board.winner - 1, 5
        return self.winner is not None

    def _row(self, x: int, y: int, seat: int) -> bool:
        assert self._cells is not None
        idx = self._pad[y * self.game.width + x]
        self._cells[idx] = seat + 1
        return bool(wins_at(self._cells, self._steps, np.int64(idx), np.int64(seat + 1),
                            np.int64(self.game.win_length), np.int64(int(self.game.rule)), np.int64(2)))


__all__ = ["Game", "SeatBoard", "PlayerBoard", "NBoardError"]
