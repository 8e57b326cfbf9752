"""The small vocabulary every player speaks: a Limit in, a PlayResult out.

Shared by in-process engines, the Piskvork brain and external brains driven over a pipe
(python-chess style), so the match runner treats them all the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Protocol, runtime_checkable

from gomoku.engine.game.rules import Rule

if TYPE_CHECKING:  # the board pulls in numba; the vocabulary must stay light
    from gomoku.engine.game.board import Board

UNLIMITED_MS = 2147483647

#: what plays when no net does, as the brain's ABOUT and MESSAGE lines and the play screen say it
CLASSICAL_SEARCHER = "classical alpha-beta + VCF/VCT"


@dataclass
class Limit:
    """How much a player may think for one move.

    All times are in seconds (floats); None means "not limited by this". `turn_time` and
    `time_left` follow the protocol: a per-move cap and what is left of the game clock.
    `turn_time == 0` means "move as fast as possible". `hard_time` is for a caller that made
    its own deadlines (the brain, from the protocol's clocks): then `turn_time` is when the
    search stops and `hard_time` when the move's last checks must end, both used as they are
    (engine.timeman.search_deadlines turns every Limit into deadlines).
    """
    turn_time: Optional[float] = None
    time_left: Optional[float] = None
    match_time: Optional[float] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    playouts: Optional[int] = None
    max_memory: Optional[int] = None   # bytes; None/0 = default
    hard_time: Optional[float] = None

    @classmethod
    def per_move(cls, seconds: float) -> "Limit":
        return cls(turn_time=seconds)


@dataclass
class PlayResult:
    """A move and what the player said about it.

    `move` is (x, y) with x the column and y the row, 0-based, or None when the player
    resigned or failed. `info` keys that are understood everywhere: depth, score (centi-
    stones from the mover's view, or 'win'/'loss' strings for proven results), nodes,
    time (s), pv (list of (x, y)), nps, searcher (what searched, for people).
    """
    move: Optional[tuple[int, int]]
    info: dict[str, Any] = field(default_factory=dict)
    resigned: bool = False


@runtime_checkable
class Player(Protocol):
    """Anything that can play a game: the classical engine, an ONNX net, an external brain.

    The match runner, the brain and `gomoku play` only ever talk to this interface."""

    name: str

    def new_game(self, width: int, height: int, rule: Rule) -> None: ...

    def play(self, board: "Board", limit: Limit) -> PlayResult: ...

    def close(self) -> None: ...
