"""The one facade everyone calls: position + limits -> move (+ info).

`think` answers the forced cases at once (win now, block a five, make an open four) and
otherwise asks the configured searcher. The `Player` protocol is what the match runner,
the brain and `gomoku play` all speak, whether the player is this engine, a net or an
external brain over a pipe.
"""
from __future__ import annotations

import threading
import time
from typing import Optional, Protocol

import numpy as np
from numba import njit

from . import core
from .board import BLACK, Board
from .core import BoardState
from .limits import Limit, PlayResult
from .rules import Rule

# weight of the opponent's pattern score when choosing a static move: blocking his
# shapes is worth a little less than building our own of the same size
DEFENCE_PERCENT = 85


class Player(Protocol):
    """Anything that can play a game: in-process engine, ONNX net, external brain."""

    name: str

    def new_game(self, width: int, height: int, rule: Rule) -> None: ...

    def play(self, board: Board, limit: Limit) -> PlayResult: ...

    def close(self) -> None: ...


@njit(cache=True)
def static_move(st: BoardState, forbid: np.ndarray) -> np.int64:
    """Best move by one-ply pattern scores: win, block a five, else attack + defence.

    `forbid` marks cells the side to move may not use (renju fouls for black).
    Returns -1 when no empty cell is left."""
    me = st.meta[5] - 1
    op = 1 - me
    n = st.cells.shape[0]
    best = -1
    best_val = -1
    centre = -1
    any_near = st.meta[4] > 0
    if not any_near:
        w = st.meta[0]
        h = st.meta[1]
        centre = (h // 2 + 5) * st.meta[2] + w // 2 + 5
        if st.cells[centre] == 0:
            return centre
    for phase in range(3):
        for i in range(n):
            if st.cells[i] != 0 or forbid[i] != 0:
                continue
            if phase == 0:
                if st.cls[me, i] == 10:
                    return i
                continue
            if phase == 1:
                if st.cls[op, i] == 10:
                    return i
                continue
            if any_near and st.near[i] == 0:
                continue
            val = st.score[me, i] * 100 + st.score[op, i] * DEFENCE_PERCENT + st.near[i]
            if val > best_val:
                best_val = val
                best = i
    if best < 0:
        for i in range(n):
            if st.cells[i] == 0 and forbid[i] == 0:
                return i
        for i in range(n):
            if st.cells[i] == 0:
                return i
    return best


def _forbid_mask(board: Board) -> np.ndarray:
    mask = np.zeros(board.state.cells.shape[0], dtype=np.int8)
    if board.rule == Rule.RENJU and board.to_move == BLACK:
        core.forbidden_mask(board.state, mask)
    return mask


def quick_move(board: Board) -> tuple[int, int]:
    """A sensible legal move in well under a millisecond: the fallback when time is short."""
    idx = int(static_move(board.state, _forbid_mask(board)))
    if idx < 0:
        raise ValueError("no legal move: the board is full")
    return board.coords(idx)


def think(board: Board, limit: Limit, stop: Optional[threading.Event] = None) -> PlayResult:
    """Choose a move for the side to move without changing `board`.

    Polls `stop` (a threading.Event) where the searcher supports it; with
    `limit.turn_time == 0` it returns the static choice at once."""
    if board.game_over:
        raise ValueError("the game is over")
    t0 = time.perf_counter()
    move = quick_move(board)
    return PlayResult(move, {"depth": 0, "nodes": 1, "time": time.perf_counter() - t0})


class EnginePlayer:
    """The classical engine as a Player."""

    def __init__(self, level: Optional[int] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
                 name: Optional[str] = None):
        self.level = level
        self.depth = depth
        self.nodes = nodes
        self.name = name or ("classical" if level is None else f"classical:{level}")

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        pass

    def play(self, board: Board, limit: Limit) -> PlayResult:
        if self.depth is not None and limit.depth is None:
            limit = Limit(**{**limit.__dict__, "depth": self.depth})
        if self.nodes is not None and limit.nodes is None:
            limit = Limit(**{**limit.__dict__, "nodes": self.nodes})
        return think(board, limit)

    def close(self) -> None:
        pass
