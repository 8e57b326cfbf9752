"""The k-in-a-row cells every game of two or more seats is judged on: any number of players,
win length 4 or 5, every rule. The tree search plays on them, and the n-seat board and the
referee judge moves with the same `wins_at`, so search and referee never disagree on a win.

The alpha-beta core (`engine.game.core`) keeps incremental line patterns for two players and five
in a row, which pays off at millions of nodes per second but does not describe three players
or four in a row. A tree search touches far fewer positions, each with a fresh line scan, so
here a position is just its cells, in the core's padded layout (`core.PAD` wall cells around
the board, row stride `width + PAD`): line scans need no bounds checks, and for two players
the renju foul check of the core (`core.is_forbidden_at`) runs on these cells unchanged.

Every jitted function here and in the tree code runs without numba's runtime (`_nrt=False`),
like the core's hot paths and the foul check they call, so nothing here allocates: callers pass
scratch arrays. The foul check is recursive, and numba's cache reloads it only in the
specialisation the core compiles (int64 index and depth): calls pass np.int64 values, never a
bare constant (which types as a literal and leaves an unresolved symbol in the cache).

Cell values: 0 empty, 1 + seat for a stone (seat 0 moves first, so two-player games have the
core's BLACK = 1 and WHITE = 2), `wall_value(players)` outside the board.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .core import PAD, is_forbidden_at
from .rules import Rule
from ..base.numba_cache import drop_stale_cache

# the jitted code here embeds these modules' functions (see numba_cache.drop_stale_cache)
drop_stale_cache(__file__, ('game.core', 'game.patterns'))

RULE_FREESTYLE = int(Rule.FREESTYLE)
RULE_STANDARD = int(Rule.STANDARD)
RULE_RENJU = int(Rule.RENJU)
RULE_CARO = int(Rule.CARO)
RULE_CARO_EXACT = int(Rule.CARO_EXACT)
#: depth bound of the recursive renju foul check, as the core's callers use it
FOUL_DEPTH = 0


def wall_value(players: int) -> int:
    """3 for two players (the core's WALL), above every seat's stone value otherwise."""
    return 3 if players == 2 else 7


def padded_size(width: int, height: int) -> int:
    return (height + 2 * PAD + 1) * (width + PAD)


def new_cells(width: int, height: int, players: int) -> np.ndarray:
    """An empty padded board."""
    stride = width + PAD
    cells = np.full(padded_size(width, height), wall_value(players), dtype=np.int8)
    for y in range(height):
        start = (y + PAD) * stride + PAD
        cells[start:start + width] = 0
    return cells


def direction_steps(width: int) -> np.ndarray:
    stride = width + PAD
    return np.array([1, stride, stride + 1, stride - 1], dtype=np.int64)


def flat_to_padded(width: int, height: int) -> np.ndarray:
    """int32[W * H]: padded index of the flat cell y * width + x."""
    stride = width + PAD
    f = np.arange(width * height)
    return ((f // width + PAD) * stride + f % width + PAD).astype(np.int32)


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _run(cells: np.ndarray, idx: np.int64, step: np.int64, color: np.int64) -> tuple[int, np.int64, np.int64]:
    """Run of `color` through idx (which holds color) along one line: length, and the cells
    just past each end."""
    f = 1
    while cells[idx + f * step] == color:
        f += 1
    b = 1
    while cells[idx - b * step] == color:
        b += 1
    return f + b - 1, idx + f * step, idx - b * step


@njit(cache=True, nogil=True, _nrt=False)
def wins_at(cells: np.ndarray, steps: np.ndarray, idx: np.int64, color: np.int64, k: np.int64,
            rule: np.int64, players: np.int64) -> bool:
    """Does the stone of `color` at idx complete a winning line under `rule`?

    Exact rules (standard, caro5, and renju for black) want exactly k; caro wants the run not
    closed at both ends by other players' stones (an edge does not close it)."""
    exact = rule == RULE_STANDARD or rule == RULE_CARO_EXACT or (rule == RULE_RENJU and color == 1)
    caro = rule == RULE_CARO or rule == RULE_CARO_EXACT
    for d in range(4):
        n, e1, e2 = _run(cells, idx, steps[d], color)
        if n < k or (exact and n != k):
            continue
        if caro:
            a = cells[e1]
            b = cells[e2]
            if a != 0 and a <= players and a != color and b != 0 and b <= players and b != color:
                continue
        return True
    return False


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _has_line_neighbour(cells: np.ndarray, steps: np.ndarray, idx: np.int64, color: np.int64) -> bool:
    for d in range(4):
        if cells[idx + steps[d]] == color or cells[idx - steps[d]] == color:
            return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def is_legal(cells: np.ndarray, steps: np.ndarray, idx: np.int64, color: np.int64, rule: np.int64) -> bool:
    """Empty, and for black under renju not a foul."""
    if cells[idx] != 0:
        return False
    if rule == RULE_RENJU and color == 1:
        return not is_forbidden_at(cells, steps, np.int64(idx), np.int64(FOUL_DEPTH))
    return True


@njit(cache=True, nogil=True, _nrt=False)
def winning_cells(cells: np.ndarray, steps: np.ndarray, board: np.ndarray, color: np.int64, k: np.int64,
                  rule: np.int64, players: np.int64, out: np.ndarray) -> int:
    """Write into out the padded cells where `color` would win at once; returns their count.

    board: padded index of every board cell. A winning cell has a stone of its colour next
    to it on some line, which skips most cells before any line is scanned."""
    n = 0
    for j in range(board.shape[0]):
        idx = board[j]
        if cells[idx] != 0 or not _has_line_neighbour(cells, steps, idx, color):
            continue
        cells[idx] = color
        w = wins_at(cells, steps, idx, color, k, rule, players)
        cells[idx] = 0
        if w:
            out[n] = idx
            n += 1
    return n


@njit(cache=True, nogil=True, _nrt=False)
def has_stone_within(cells: np.ndarray, idx: np.int64, stride: np.int64, radius: np.int64,
                     players: np.int64) -> bool:
    """Any stone in the (2r+1)^2 square around idx (walls excluded); radius <= PAD."""
    for dy in range(-radius, radius + 1):
        row = idx + dy * stride
        for dx in range(-radius, radius + 1):
            v = cells[row + dx]
            if v != 0 and v <= players:
                return True
    return False
