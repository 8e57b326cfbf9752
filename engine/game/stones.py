"""What a board cell holds: empty, a black or white stone, or a wall.

One numba-free definition for the whole project, so that the engine core, the game records,
the referee, the protocol and the screens cannot drift apart. Python code can use the typed
`Stone`; numba kernels need the plain ints below, since numba freezes a module's globals as
constants when it compiles and treats them best as ints.
"""
from __future__ import annotations

from enum import IntEnum


class Stone(IntEnum):
    """A cell's content; the values are the two-bit codes the pattern keys store."""

    EMPTY = 0
    BLACK = 1
    WHITE = 2
    WALL = 3   # off the board, or a cell the protocol blocks


EMPTY: int = int(Stone.EMPTY)
BLACK: int = int(Stone.BLACK)
WHITE: int = int(Stone.WHITE)
WALL: int = int(Stone.WALL)
