"""`Board`: the Python face of the numba core, used by the CLI, protocol, referee and tests.

It validates input and speaks (x, y) coordinates; everything that runs per search node
calls the jitted functions in `core` on `board.state` directly.
"""
from __future__ import annotations

import functools
from typing import Iterable, Optional

import numpy as np

from gomoku.engine.game import core
from gomoku.engine.game.core import BoardState, PAD
from gomoku.engine.game.patterns import B4, BLACK, EMPTY, F3, F4, WALL, WHITE
from gomoku.engine.game.rules import Rule

__all__ = ["Board", "IllegalMove", "EMPTY", "BLACK", "WHITE", "WALL"]


class IllegalMove(ValueError):
    """A move that cannot be played; the message is one line meant for a person."""


@functools.lru_cache(maxsize=32)
def _empty_state(width: int, height: int, rule: int) -> BoardState:
    """The empty board of a size and rule, made once: `core.new_state` draws the Zobrist keys
    and builds every pattern from scratch (about 0.2 ms), which reading tens of thousands of
    recorded positions (`gomoku tune --scores`) paid once per position. Never handed out:
    boards get a copy."""
    return core.new_state(width, height, rule)


def _copy_state(st: BoardState) -> BoardState:
    """A board state of its own: every array copied but the two constant ones, the rule's
    pattern table and the Zobrist keys, which no move writes."""
    return BoardState(*[a if a is st.tables or a is st.zobrist else a.copy() for a in st])


class Board:
    """A position under one rule: cells, side to move, move list, hash and patterns."""

    __slots__ = ("width", "height", "rule", "state", "_forbid_cache")

    def __init__(self, width: int, height: Optional[int] = None, rule: Rule | int = Rule.FREESTYLE):
        height = width if height is None else height
        self.width = int(width)
        self.height = int(height)
        self.rule = Rule(rule)
        self.state: BoardState = _copy_state(_empty_state(self.width, self.height, int(self.rule)))
        self._forbid_cache: Optional[tuple[int, np.ndarray]] = None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_moves(cls, width: int, moves: Iterable[tuple[int, int]], rule: Rule | int = Rule.FREESTYLE,
                   height: Optional[int] = None) -> "Board":
        b = cls(width, height, rule)
        for x, y in moves:
            b.play(x, y)
        return b

    def copy(self) -> "Board":
        other = object.__new__(Board)
        other.width, other.height, other.rule = self.width, self.height, self.rule
        other.state = _copy_state(self.state)
        other._forbid_cache = None
        return other

    # -- coordinates --------------------------------------------------------------------
    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, x: int, y: int) -> int:
        return (y + PAD) * (self.width + PAD) + x + PAD

    def coords(self, idx: int) -> tuple[int, int]:
        stride = self.width + PAD
        return int(idx % stride - PAD), int(idx // stride - PAD)

    # -- queries ------------------------------------------------------------------------
    def cell(self, x: int, y: int) -> int:
        if not self.in_bounds(x, y):
            raise IllegalMove(f"{x},{y} is outside the {self.width}x{self.height} board")
        return int(self.state.cells[self.index(x, y)])

    @property
    def to_move(self) -> int:
        return int(self.state.meta[core.M_TOMOVE])

    @property
    def move_count(self) -> int:
        return int(self.state.meta[core.M_COUNT])

    @property
    def moves(self) -> list[tuple[int, int]]:
        return [self.coords(int(i)) for i in self.state.moves[: self.move_count]]

    @property
    def last_move(self) -> Optional[tuple[int, int]]:
        n = self.move_count
        return self.coords(int(self.state.moves[n - 1])) if n else None

    @property
    def winner(self) -> int:
        return int(self.state.meta[core.M_WINNER])

    @property
    def empty_count(self) -> int:
        return int(self.state.meta[core.M_EMPTY])

    def is_full(self) -> bool:
        return self.empty_count == 0

    @property
    def game_over(self) -> bool:
        return self.winner != 0 or self.is_full()

    @property
    def hash(self) -> int:
        return int(self.state.hashv[0])

    def would_win(self, x: int, y: int, color: Optional[int] = None) -> bool:
        color = self.to_move if color is None else color
        if self.cell(x, y) != EMPTY:
            return False
        idx = self.index(x, y)
        return bool((self.state.pat[color - 1, :, idx] == 10).any())

    def is_forbidden(self, x: int, y: int) -> bool:
        """Renju only: is (x, y) a foul for black (regardless of whose turn it is)?"""
        if self.rule != Rule.RENJU or self.cell(x, y) != EMPTY:
            return False
        return bool(self.forbidden_mask()[self.index(x, y)])

    def foul_kind(self, x: int, y: int) -> Optional[str]:
        """Renju only: what black's stone at (x, y) would be, 'overline', 'double-four' or
        'double-three', or None when it is no foul: the words `play` refuses a point with and
        a review names a foul by. The kind is read off the lines the stone would make (a run
        of six or more; fours; open threes), after the core's own judgement that it is a foul
        at all: a four with two threes (4-3-3) is a double-three."""
        if not self.is_forbidden(x, y):
            return None
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for s in (1, -1):
                cx, cy = x + s * dx, y + s * dy
                while self.in_bounds(cx, cy) and self.cell(cx, cy) == BLACK:
                    run += 1
                    cx, cy = cx + s * dx, cy + s * dy
            if run >= 6:
                return "overline"
        idx = self.index(x, y)
        lines = [int(self.state.pat[BLACK - 1, d, idx]) for d in range(4)]
        fours = sum(1 for p in lines if p in (B4, F4))
        threes = sum(1 for p in lines if p == F3)
        if fours >= 2 or (fours == 1 and threes < 2):
            return "double-four"         # two lines, or one line with two fours (x.x[x]x.x)
        return "double-three"

    def forbidden_points(self) -> list[tuple[int, int]]:
        if self.rule != Rule.RENJU:
            return []
        mask = self.forbidden_mask()
        return sorted(self.coords(int(i)) for i in np.flatnonzero(mask))

    def forbidden_mask(self) -> np.ndarray:
        """int8 per cell index, 1 where black would commit a renju foul; cached per position."""
        h = self.hash
        if self._forbid_cache is None or self._forbid_cache[0] != h:
            mask = np.zeros(self.state.cells.shape[0], dtype=np.int8)
            core.forbidden_mask(self.state, mask)
            self._forbid_cache = (h, mask)
        return self._forbid_cache[1]

    def empty_cells(self) -> list[tuple[int, int]]:
        cells = self.state.cells
        return [(x, y) for y in range(self.height) for x in range(self.width)
                if cells[self.index(x, y)] == EMPTY]

    def legal_moves(self) -> list[tuple[int, int]]:
        """Empty cells; for black under renju the fouls are left out."""
        if self.game_over:
            return []
        moves = self.empty_cells()
        if self.rule == Rule.RENJU and self.to_move == BLACK:
            mask = self.forbidden_mask()
            moves = [m for m in moves if not mask[self.index(*m)]]
        return moves

    def is_legal(self, x: int, y: int) -> bool:
        return self.in_bounds(x, y) and not self.game_over and self.cell(x, y) == EMPTY and not (
            self.to_move == BLACK and self.is_forbidden(x, y))

    # -- changes ------------------------------------------------------------------------
    def play(self, x: int, y: int) -> None:
        """Place the side to move's stone. Renju fouls are allowed here; referees check
        `is_forbidden` first, because a foul is a result, not an impossibility."""
        if not self.in_bounds(x, y):
            raise IllegalMove(f"{x},{y} is outside the {self.width}x{self.height} board")
        if self.winner:
            raise IllegalMove("the game is over")
        v = self.cell(x, y)
        if v != EMPTY:
            raise IllegalMove(f"{x},{y} is {'not playable' if v == WALL else 'already occupied'}")
        core.make_move(self.state, np.int64(self.index(x, y)))

    def undo(self) -> tuple[int, int]:
        if self.move_count == 0:
            raise IllegalMove("no move to take back")
        return self.coords(int(core.undo_move(self.state)))

    def block(self, x: int, y: int) -> None:
        """Mark a cell unusable (Piskvork BOARD field 3). Only on a board with no moves,
        so the move stack never has to undo around it."""
        if self.move_count:
            raise IllegalMove("cells can only be blocked before the first move")
        if self.cell(x, y) != EMPTY:
            raise IllegalMove(f"{x},{y} is not empty")
        core.place_wall(self.state, np.int64(self.index(x, y)))

    # -- display ------------------------------------------------------------------------
    def __str__(self) -> str:
        sym = {EMPTY: ".", BLACK: "X", WHITE: "O", WALL: "#"}
        rows = []
        for y in range(self.height):
            rows.append(" ".join(sym[int(self.state.cells[self.index(x, y)])] for x in range(self.width)))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board({self.width}x{self.height}, {self.rule.label}, moves={self.moves})"
