"""The brain's own record of the game: stones, colours, blocked cells, in plain Python.

Kept independent of the numba Board on purpose: the brain must accept and validate commands
(and still answer with a legal move) while the numba core is still loading or compiling. The
engine Board is built from this record when a search starts (`to_board`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from gomoku.engine.game.size import MAX_SIZE, MIN_SIZE
from gomoku.engine.game.stones import BLACK, EMPTY, WHITE
from gomoku.engine.game.stones import WALL as BLOCKED


class PositionError(ValueError):
    """A command that would make the position invalid; the message is one line for ERROR."""


@dataclass
class Position:
    width: int
    height: int
    black: list[tuple[int, int]] = field(default_factory=list)   # in play order
    white: list[tuple[int, int]] = field(default_factory=list)
    blocked: list[tuple[int, int]] = field(default_factory=list)
    cells: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def empty(cls, width: int, height: Optional[int] = None) -> "Position":
        h = width if height is None else height
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= h <= MAX_SIZE):
            raise PositionError(f"unsupported board size {width}x{h} (supported: {MIN_SIZE}..{MAX_SIZE})")
        return cls(width, h)

    # -- queries ---------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        return BLACK if len(self.black) == len(self.white) else WHITE

    @property
    def stone_count(self) -> int:
        return len(self.black) + len(self.white)

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def cell(self, x: int, y: int) -> int:
        return self.cells.get((x, y), EMPTY)

    def is_full(self) -> bool:
        return len(self.cells) >= self.width * self.height

    def moves(self) -> list[tuple[int, int]]:
        """Stones in play order, black first, alternating (what Board.from_moves expects)."""
        out: list[tuple[int, int]] = []
        for i, b in enumerate(self.black):
            out.append(b)
            if i < len(self.white):
                out.append(self.white[i])
        return out

    def copy(self) -> "Position":
        return Position(self.width, self.height, list(self.black), list(self.white),
                        list(self.blocked), dict(self.cells))

    # -- changes ---------------------------------------------------------------------------
    def check_free(self, x: int, y: int) -> None:
        if not self.in_bounds(x, y):
            raise PositionError(f"coordinates {x},{y} are outside the {self.width}x{self.height} board")
        if self.cell(x, y) != EMPTY:
            raise PositionError(f"cell {x},{y} is not empty")

    def play(self, x: int, y: int) -> int:
        """Place a stone for the side to move; returns its colour."""
        self.check_free(x, y)
        colour = self.to_move
        (self.black if colour == BLACK else self.white).append((x, y))
        self.cells[(x, y)] = colour
        return colour

    def takeback(self, x: int, y: int) -> None:
        """Remove the stone at x,y; it must belong to the side that moved last."""
        if not self.in_bounds(x, y):
            raise PositionError(f"coordinates {x},{y} are outside the board")
        colour = self.cell(x, y)
        if colour not in (BLACK, WHITE):
            raise PositionError(f"no stone at {x},{y}")
        last = WHITE if self.to_move == BLACK else BLACK
        if colour != last or self.stone_count == 0:
            raise PositionError(f"stone at {x},{y} is not one of the last mover's stones")
        (self.black if colour == BLACK else self.white).remove((x, y))
        del self.cells[(x, y)]

    @classmethod
    def from_fields(cls, width: int, height: int,
                    fields: Iterable[tuple[int, int, int]]) -> tuple["Position", list[str]]:
        """Build a position from BOARD data (1 = own, 2 = opponent, 3 = unusable), any order.

        The brain is always to move: equal counts make it black, one opponent stone more makes
        it white; anything else raises PositionError. Bad lines (off-board, duplicate, unknown
        field) are skipped and reported as warnings, so the caller can still play a move.
        """
        warnings: list[str] = []
        own: list[tuple[int, int]] = []
        opp: list[tuple[int, int]] = []
        blocked: list[tuple[int, int]] = []
        seen: set[tuple[int, int]] = set()
        for x, y, f in fields:
            if not (0 <= x < width and 0 <= y < height):
                warnings.append(f"ignored {x},{y},{f}: outside the board")
                continue
            if (x, y) in seen:
                warnings.append(f"ignored {x},{y},{f}: cell given twice")
                continue
            if f not in (1, 2, 3):
                warnings.append(f"ignored {x},{y},{f}: field must be 1, 2 or 3")
                continue
            seen.add((x, y))
            (own if f == 1 else opp if f == 2 else blocked).append((x, y))
        if len(own) == len(opp):
            black, white = own, opp
        elif len(opp) == len(own) + 1:
            black, white = opp, own
        else:
            raise PositionError(f"impossible stone counts: {len(own)} own, {len(opp)} opponent "
                                "(need equal, or one more opponent stone)")
        pos = cls(width, height, black, white, blocked)
        for p in black:
            pos.cells[p] = BLACK
        for p in white:
            pos.cells[p] = WHITE
        for p in blocked:
            pos.cells[p] = BLOCKED
        return pos, warnings

    def to_board(self, board_cls: Any, rule: Any) -> Any:
        """Build the engine Board (blocked cells first, then the stones in play order)."""
        board = board_cls(self.width, self.height, rule=rule)
        for x, y in self.blocked:
            board.block(x, y)
        for x, y in self.moves():
            board.play(x, y)
        return board
