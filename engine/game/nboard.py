"""The (x, y) face of the n-player board: what a referee, a terminal game and a Player see.

`engine.game.board.Board` wraps the two-player core (incremental five detection, renju fouls)
and cannot hold a third colour. Games of the three-player Gobang paper (three players, or two
to four) keep their stones here instead, in the padded cells of `engine.game.cells`, and judge
each move with its `wins_at` line scan, the same function the tree search uses, so referee and
search never disagree on what wins. Python speed is plenty: one scan per move played.
`engine.game.seats` puts this board and `Board` behind the one interface the referee uses.

Seats are 0-based (seat 0 moves first; next = (seat + 1) % players); a cell holds 0 when empty
and 1 + seat for a stone, as in `engine.game.cells`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .cells import direction_steps, flat_to_padded, new_cells, wins_at
from .rules import Rule
from .size import MAX_SIZE as MAX_SIDE, MIN_SIZE as MIN_SIDE

MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: rules an n-player game can be judged by: renju's fouls are defined for black against white only
NPLAYER_RULES = (Rule.FREESTYLE, Rule.STANDARD, Rule.CARO, Rule.CARO_EXACT)


class NBoardError(ValueError):
    """A move or a board the n-player game cannot take; the message is one line for a person."""


def check_game(width: int, height: int, players: int, win_length: int, rule: Rule | int) -> None:
    """Raise NBoardError (one line) when the game cannot be played on an NBoard."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise NBoardError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players}")
    if win_length not in (4, 5):
        raise NBoardError(f"win length must be 4 or 5, got {win_length}")
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise NBoardError(f"board {width}x{height}: each side must be {MIN_SIDE}..{MAX_SIDE}")
    if Rule(rule) not in NPLAYER_RULES:
        if players == 2:   # the fouls are judged by engine.game.board.Board, not here
            raise NBoardError(f"rule {Rule(rule).label}: two-player games with fouls use the two-player board")
        raise NBoardError(f"rule {Rule(rule).label} is for two players; {players} players play "
                          f"{', '.join(r.label for r in NPLAYER_RULES)}")


class NBoard:
    """Stones of `players` seats on a width x height board; the first to make `win_length`
    in a row (under `rule`) wins, a full board is a draw.

    Speaks the part of `engine.game.board.Board` that players use (`width`, `height`, `rule`,
    `moves`, `move_count`, `to_move`, `cell`, `in_bounds`, `legal_moves`, `copy`, `last_move`),
    so MCTS players and the random player take it unchanged. `to_move` and `winner` are seats
    (0-based) here; `winner` is None while nobody has won.
    """

    def __init__(self, width: int, height: Optional[int] = None, players: int = 3, win_length: int = 5,
                 rule: Rule | int = Rule.FREESTYLE) -> None:
        height = width if height is None else height
        check_game(width, height, players, win_length, rule)
        self.width, self.height = int(width), int(height)
        self.players, self.win_length, self.rule = int(players), int(win_length), Rule(rule)
        self._cells = new_cells(self.width, self.height, self.players)
        self._pad = flat_to_padded(self.width, self.height)
        self._steps = direction_steps(self.width)
        self.moves: list[tuple[int, int]] = []
        self.winner: Optional[int] = None

    # -- reading -------------------------------------------------------------------------
    @property
    def move_count(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> int:
        """The seat whose turn it is (0-based)."""
        return len(self.moves) % self.players

    @property
    def last_move(self) -> Optional[tuple[int, int]]:
        return self.moves[-1] if self.moves else None

    @property
    def game_over(self) -> bool:
        return self.winner is not None or self.is_full()

    def seat_of(self, index: int) -> int:
        """The seat that played move `index` (0-based)."""
        return index % self.players

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def cell(self, x: int, y: int) -> int:
        """0 empty, 1 + seat for a stone."""
        return int(self._cells[self._pad[y * self.width + x]])

    def is_full(self) -> bool:
        return len(self.moves) >= self.width * self.height

    def legal_moves(self) -> list[tuple[int, int]]:
        if self.winner is not None:
            return []
        return [(x, y) for y in range(self.height) for x in range(self.width) if self.cell(x, y) == 0]

    def copy(self) -> "NBoard":
        b = NBoard(self.width, self.height, self.players, self.win_length, self.rule)
        b._cells = self._cells.copy()
        b.moves = list(self.moves)
        b.winner = self.winner
        return b

    # -- changing ------------------------------------------------------------------------
    def play(self, x: int, y: int) -> bool:
        """Place the mover's stone at x, y; True when it wins. Raises NBoardError for a move
        outside the board, on a stone, or after the game has ended."""
        if self.winner is not None:
            raise NBoardError(f"the game is over: seat {self.winner + 1} has won")
        if not self.in_bounds(x, y):
            raise NBoardError(f"{x},{y} is outside the {self.width}x{self.height} board")
        idx = self._pad[y * self.width + x]
        if self._cells[idx] != 0:
            raise NBoardError(f"{x},{y} is taken by seat {int(self._cells[idx])}")
        seat = self.to_move
        self._cells[idx] = seat + 1
        self.moves.append((int(x), int(y)))
        if wins_at(self._cells, self._steps, np.int64(idx), np.int64(seat + 1), np.int64(self.win_length),
                   np.int64(int(self.rule)), np.int64(self.players)):
            self.winner = seat
            return True
        return False

    def undo(self) -> tuple[int, int]:
        """Take back the last move; returns it."""
        if not self.moves:
            raise NBoardError("no move to take back")
        x, y = self.moves.pop()
        self._cells[self._pad[y * self.width + x]] = 0
        self.winner = None      # the only winning move is the last one
        return x, y

    @classmethod
    def from_moves(cls, width: int, height: int, players: int, win_length: int, rule: Rule | int,
                   moves: list[tuple[int, int]]) -> "NBoard":
        b = cls(width, height, players, win_length, rule)
        for x, y in moves:
            b.play(x, y)
        return b
