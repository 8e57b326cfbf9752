"""The Fudan threat-space-search paper's ADP critic at play time: pattern features of a
position, the critic net that scores them, and the player that looks one ply deep with it.

The critic (after Zhao et al.'s self-teaching ADP) is a small net from a position's pattern
counts to one number, the first player's (black's) probability of winning. Its player plays
as the paper's action network does: every candidate cell (an empty cell within two of a stone;
the centre on an empty board) is tried, the critic scores the position after it, and black
takes the highest score, white the lowest; a move that makes five scores the game's result.
No search beyond that one ply.

The patterns are the board core's own counts (`core.BoardState.counts`, kept up to date by
every move and undo): for each colour, how many empty cells would make each line pattern
(per direction: an open four, a four, an open three ...) and each cell class (what the four
lines make together). One definition of a pattern, shared with the classical evaluation.

Feature sets (`--features`):

* **30** (the Fudan paper's): seven line patterns, five (`F5`: a cell that completes five),
  open four (`F4`), four (`B4`), open three (`F3`), three (`B3`), open two (`F2`) and two
  (`B2`); for each, the count for the side to move, the count for the other side, and the
  roles (black to move, white to move); then the two roles again: 7 x 4 + 2 = 30 numbers,
  counts as they are.
* **274** (Zhao's input count; the Fudan paper gives the count, not his layout): the two
  roles, then for the side to move and for the other side 17 patterns, the cell classes from
  `F2` up (F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE) and the line patterns below five (B1,
  F1, B2, F2, B3, F3, B4, F4), each count n as 8 nodes: n >= 1, ..., n >= 7, and
  min(n - 7, 8) / 8 above seven: 2 + 2 x 17 x 8 = 274.

Numpy, numba and onnxruntime only: the trainer (`gomoku.train.adp`) computes the same
features through `afterstates` and `position_features`, so what a critic learns on is what it
plays with.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import numpy as np
from numba import njit

from gomoku.engine.game.board import BLACK, Board
from gomoku.engine.game.core import (M_COUNT, M_EMPTY, M_HEIGHT, M_STRIDE, M_TOMOVE, M_WIDTH, PAD,
                                     PATTERN_COUNTS, BoardState, make_move, undo_move)
from gomoku.engine.game.patterns import F5
from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.net.critic_file import FEATURE_SETS, CriticNet

#: the 30 set's seven line patterns, strongest first (patterns.F5 .. B2)
SEVEN = np.array([10, 9, 8, 7, 6, 5, 4], dtype=np.int64)
SEVEN_NAMES = ("F5", "F4", "B4", "F3", "B3", "F2", "B2")
#: the 274 set's 17 columns of counts[]: the classes F2..FIVE, then the line patterns B1..F4
SEVENTEEN = np.array(list(range(2, 11)) + [PATTERN_COUNTS + p for p in range(2, 10)], dtype=np.int64)
SEVENTEEN_NAMES = ("F2", "B3", "F2X2", "F3", "B4", "F3X2", "B4F3", "F4", "FIVE",
                   "line-B1", "line-F1", "line-B2", "line-F2", "line-B3", "line-F3", "line-B4", "line-F4")
THERMOMETER = 8


def feature_names(size: int) -> list[str]:
    """What each input of a feature set is, in order (for people and the docs)."""
    if size == 30:
        out = []
        for name in SEVEN_NAMES:
            out += [f"own {name}", f"other {name}", "black to move", "white to move"]
        return out + ["black to move", "white to move"]
    if size == 274:
        out = ["black to move", "white to move"]
        for side in ("own", "other"):
            for name in SEVENTEEN_NAMES:
                out += [f"{side} {name} >= {k}" for k in range(1, THERMOMETER)] + [f"{side} {name} beyond"]
        return out
    raise ValueError(f"no feature set of {size} inputs (30 or 274)")


@njit(cache=True)
def _fill(st: BoardState, size: np.int64, out: np.ndarray) -> None:
    """The features of the position in `st` (side to move = own) into out[size]."""
    me = st.meta[M_TOMOVE] - 1
    op = 1 - me
    black = 1.0 if me == 0 else 0.0
    white = 1.0 - black
    if size == 30:
        for k in range(7):
            col = PATTERN_COUNTS + SEVEN[k]
            out[4 * k] = st.counts[me, col]
            out[4 * k + 1] = st.counts[op, col]
            out[4 * k + 2] = black
            out[4 * k + 3] = white
        out[28] = black
        out[29] = white
        return
    out[0] = black
    out[1] = white
    j = 2
    for side in range(2):
        c = me if side == 0 else op
        for k in range(17):
            n = st.counts[c, SEVENTEEN[k]]
            for t in range(1, 8):
                out[j] = 1.0 if n >= t else 0.0
                j += 1
            out[j] = min(max(n - 7, 0), 8) / 8.0
            j += 1


@njit(cache=True)
def _candidates(st: BoardState, forbid: np.ndarray, out: np.ndarray) -> int:
    """Empty cells within two of a stone (st.near), not forbidden; the centre on an empty
    board. Returns how many were written to out."""
    n = 0
    if st.meta[M_COUNT] == 0:
        w = st.meta[M_WIDTH]
        h = st.meta[M_HEIGHT]
        out[0] = (h // 2 + PAD) * st.meta[M_STRIDE] + w // 2 + PAD
        return 1
    for i in range(st.cells.shape[0]):
        if st.cells[i] == 0 and st.near[i] > 0 and forbid[i] == 0:
            out[n] = i
            n += 1
    return n


@njit(cache=True)
def _afterstates(st: BoardState, cand: np.ndarray, size: np.int64, out: np.ndarray, ends: np.ndarray) -> None:
    """For each candidate cell: play it, write the features of the position after it to
    out[k], undo. ends[k]: 1 if the move makes five, 2 if it fills the board without one, 0
    otherwise."""
    for k in range(cand.shape[0]):
        i = cand[k]
        c = st.meta[M_TOMOVE] - 1
        five = st.pat[c, 0, i] == F5 or st.pat[c, 1, i] == F5 or st.pat[c, 2, i] == F5 or st.pat[c, 3, i] == F5
        make_move(st, i)
        _fill(st, size, out[k])
        ends[k] = 1 if five else (2 if st.meta[M_EMPTY] == 0 else 0)
        undo_move(st)


def _forbid(board: Board) -> np.ndarray:
    if board.rule == Rule.RENJU and board.to_move == BLACK:
        return board.forbidden_mask().astype(np.int8)
    return np.zeros(board.state.cells.shape[0], dtype=np.int8)


def position_features(board: Board, size: int) -> np.ndarray:
    """float32[size]: the features of the position on `board` (the side to move is 'own')."""
    if size not in FEATURE_SETS:
        raise ValueError(f"no feature set of {size} inputs (30 or 274)")
    out = np.zeros(size, dtype=np.float32)
    _fill(board.state, np.int64(size), out)
    return out


def afterstates(board: Board, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The side to move's candidate cells (int64[K] board indices), the features of the
    position after each (float32[K, size]) and how each ends the game (int8[K]: 0 not, 1 a
    five, 2 a full board). `board` is left as it was."""
    st = board.state
    cand = np.zeros(st.cells.shape[0], dtype=np.int64)
    k = int(_candidates(st, _forbid(board), cand))
    if k == 0:                       # no stone within two of an empty cell: any legal cell
        cells = [board.index(x, y) for x, y in board.legal_moves()]
        cand[:len(cells)] = cells
        k = len(cells)
    cand = cand[:k].copy()
    out = np.zeros((k, size), dtype=np.float32)
    ends = np.zeros(k, dtype=np.int8)
    _afterstates(st, cand, np.int64(size), out, ends)
    return cand, out, ends


def end_values(ends: np.ndarray, mover: int) -> np.ndarray:
    """The value (black's result: 1, 0 or 0.5) of each candidate that ends the game, NaN for
    the rest: a five wins for `mover`, a full board is a draw."""
    v = np.full(ends.shape[0], np.nan, dtype=np.float32)
    v[ends == 1] = 1.0 if mover == BLACK else 0.0
    v[ends == 2] = 0.5
    return v


def choose(values: np.ndarray, mover: int) -> int:
    """The index the action network takes: black the highest value (first player's win
    probability), white the lowest; of equal values the last found, as the paper does."""
    best = values.max() if mover == BLACK else values.min()
    return int(np.flatnonzero(values == best)[-1])


def critic_move(net: CriticNet, board: Board) -> tuple[tuple[int, int], dict[str, Any]]:
    """The critic's one-ply choice on `board` and what it saw (candidates, its value)."""
    t0 = time.perf_counter()
    cand, feats, ends = afterstates(board, net.features)
    values = end_values(ends, board.to_move)
    open_ = np.isnan(values)
    if open_.any():
        values[open_] = net.evaluate(feats[open_])
    k = choose(values, board.to_move)
    return board.coords(int(cand[k])), {"depth": 1, "nodes": int(cand.shape[0]), "score": round(float(values[k]), 3),
                                        "time": time.perf_counter() - t0}


class CriticPlayer:
    """A critic as a Player (`gomoku match FILE.onnx`, `play --opponent`): one ply deep over the
    candidate cells, whatever the clock (a move takes milliseconds)."""

    def __init__(self, path: str, name: Optional[str] = None, threads: int = 1) -> None:
        self.net = CriticNet.load(path, threads=threads)
        self.name = name or Path(path).stem
        self.searcher = f"ADP critic {self.net.info.arch}, one ply"

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        pass

    def play(self, board: Board, limit: Limit) -> PlayResult:
        if board.game_over:
            return PlayResult(None, {}, resigned=True)
        move, info = critic_move(self.net, board)
        info["searcher"] = self.searcher
        return PlayResult(move, info)

    def close(self) -> None:
        pass


def warm_up() -> None:
    """Compile/load the critic's feature code (engine.player.warmup hook): without it the
    module never has a cache index, and every command's start found the cache cold."""
    board = Board.from_moves(9, [(4, 4), (3, 3)])
    for size in FEATURE_SETS:
        position_features(board, size)
        afterstates(board, size)
