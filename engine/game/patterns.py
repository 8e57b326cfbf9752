"""Per-rule line-pattern tables: what a stone on an empty cell would make along one line.

Every board cell keeps, for each of the four directions, a 20-bit key of its ten neighbours
(offsets -5..-1 and +1..+5, two bits each: empty, black, white, wall). One table lookup per
colour turns that key into a pattern such as "playing here makes a five / an open four / a
four / an open three ...". The tables are exact for each rule because they are computed by
playing the line out, not by matching hand-written strings:

    level(line) = F5  if the centre stone is part of a winning five under the rule
                  OL  if it is part of a long line that does not win (exact-five rules)
                  F4  if >= 2 empty cells would each complete a five through the centre
                  B4  if exactly one would
                  F3/B3, F2/B2, F1/B1 if some single added stone reaches F4/B4, F3/B3, F2/B2

Adding an own stone turns a 0 digit of the key into 1 or 2, so a child key is always larger
than its parent; filling the table from the largest key down therefore needs no recursion.
Only fives through the centre are considered, so everything is decided within +-5 cells.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomoku.engine.game.rules import NUM_RULES, R_CARO, R_CARO_EXACT, R_RENJU, R_STANDARD, Rule
from gomoku.engine.game.stones import BLACK, EMPTY, WALL, WHITE  # noqa: F401  (board.py re-exports them)

# line patterns, weakest to strongest
DEAD, OL, B1, F1, B2, F2, B3, F3, B4, F4, F5 = range(11)
NUM_PATTERNS = 11
PATTERN_NAMES = ("DEAD", "OL", "B1", "F1", "B2", "F2", "B3", "F3", "B4", "F4", "F5")

HALF = 5                 # cells each side of the centre that a key covers
KEY_BITS = 4 * HALF      # 2 bits per neighbour
NUM_KEYS = 1 << KEY_BITS

@njit(cache=True)
def _neighbour(key: np.int64, offset: np.int64) -> np.int64:
    pos = offset + 5 if offset < 0 else offset + 4
    return (key >> (2 * pos)) & 3


@njit(cache=True)
def _line_result(key: np.int64, color: np.int64, rule: np.int64) -> int:
    """Return 2 if the centre (own stone) is in a winning line, 1 if in a non-winning long
    line (overline under an exact-five rule), 0 otherwise."""
    left = 0
    while left < 5 and _neighbour(key, -(left + 1)) == color:
        left += 1
    right = 0
    while right < 5 and _neighbour(key, right + 1) == color:
        right += 1
    total = left + right + 1
    if total < 5:
        return 0
    exact = rule == R_STANDARD or rule == R_CARO_EXACT or (rule == R_RENJU and color == BLACK)
    if total > 5:
        if exact:
            return 1
        return 2
    # exactly five
    if rule == R_CARO or rule == R_CARO_EXACT:
        opp = 3 - color
        lend = _neighbour(key, -(left + 1))
        rend = _neighbour(key, right + 1)
        if lend == opp and rend == opp:
            return 0   # caro: blocked at both ends by opponent stones
    return 2


@njit(cache=True)
def build_table(color: np.int64, rule: np.int64) -> np.ndarray:
    """Pattern of every key for one colour under one rule (uint8[NUM_KEYS])."""
    n = 1 << 20
    table = np.zeros(n, dtype=np.uint8)
    for key in range(n - 1, -1, -1):
        res = _line_result(key, color, rule)
        if res == 2:
            table[key] = 10  # F5
            continue
        if res == 1:
            table[key] = 1   # OL
            continue
        fives = 0
        best = 0
        for off in range(-4, 5):
            if off == 0:
                continue
            pos = off + 5 if off < 0 else off + 4
            if (key >> (2 * pos)) & 3 != 0:
                continue
            child = table[key | (color << (2 * pos))]
            if child == 10:
                fives += 1
            elif child > best:
                best = child
        if fives >= 2:
            table[key] = 9   # F4
        elif fives == 1:
            table[key] = 8   # B4
        elif best >= 4:
            # one stone short of F4/B4/F3/B3/F2/B2 is F3/B3/F2/B2/F1/B1: two steps down the scale
            table[key] = best - 2
        else:
            table[key] = 0
    return table


_TABLES: dict[int, np.ndarray] = {}


def pattern_tables(rule: Rule | int) -> np.ndarray:
    """uint8[NUM_KEYS]: black's pattern in the low nibble, white's in the high nibble.

    One packed table (1 MiB) rather than two halves the cache misses of the hot update,
    which is dominated by these lookups. Built once per rule per process (~25 ms)."""
    r = int(rule)
    if not 0 <= r < NUM_RULES:
        raise ValueError(f"bad rule id {r}")
    tab = _TABLES.get(r)
    if tab is None:
        tab = build_table(np.int64(1), np.int64(r)) | (build_table(np.int64(2), np.int64(r)) << 4)
        tab.setflags(write=False)
        _TABLES[r] = tab
    return tab
