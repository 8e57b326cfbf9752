"""The learned evaluator's input: what each board cell looks like along its four lines.

A cell's feature vector is the sum of table rows (the learned evaluator's first layer), one
per thing it is shown, all read from what the board core already keeps up to date:

* its **line shape** in each direction: its own state (empty, black, white) and the four
  cells either side of it (empty, black, white, wall). Four cells reach every five through
  the cell, so the shape decides everything freestyle needs. A line and its mirror image get
  the same row (the halves are sorted): a shape means the same read left to right or right
  to left, and the sums over four directions do not care which way a line runs.
  3 * 121 * 122 / 2 = 22,143 shapes;
* for an empty cell, the **pattern pair** of each direction: what a black stone and what a
  white stone would make there (the core's rule-exact patterns: five, open four ... dead),
  11 * 11 rows, plus one row for an occupied cell. The patterns see five cells either side
  and know the rule (an overline that does not win, a caro five blocked at both ends);
* for an empty cell, the **class pair**: the core's classes of the four lines together for
  black and for white (four-three, double three ...), 11 * 11 rows, plus one for occupied.

Key layout (`core.BoardState.keys`): two bits per neighbour at offsets -5..-1 (positions
0..4) and +1..+5 (positions 5..9): empty 0, black 1, white 2, wall 3. The shape needs
positions 1..8, which are bits 2..17 of the key: `SHAPE_OF_KEY16[(key >> 2) & 0xFFFF]` is
the shape of an empty cell, and `centre * SHAPES_PER_CENTRE` more for a stone.

Numpy only: the numba evaluator (`learned`) and the torch net (`gomoku.train.mixnet`) read
the same tables, so what a net is trained on is what the search computes.
"""
from __future__ import annotations

import numpy as np

from gomoku.engine.game.core import CLASS_TABLE  # noqa: F401  (re-exported for the trainer)

#: states of one half line (the four cells on one side, read outward): walls only at the end
HALF_STATES = 1 + 3 + 9 + 27 + 81
#: shapes per centre state: unordered pairs of half lines
SHAPES_PER_CENTRE = HALF_STATES * (HALF_STATES + 1) // 2
NUM_SHAPES = 3 * SHAPES_PER_CENTRE
#: pattern pairs (black's pattern * 11 + white's) and one row for an occupied cell
NUM_PATTERN_ROWS = 11 * 11 + 1
#: class pairs (black's class * 11 + white's) and one row for an occupied cell
NUM_CLASS_ROWS = 11 * 11 + 1
OCCUPIED_ROW = 121


def _half_index(digits: list[np.ndarray]) -> np.ndarray:
    """Index of each half line given outward from the centre (four digit arrays: 0 empty,
    1 black, 2 white, 3 wall), -1 where a wall is followed by a cell. Walls only at the end:
    n cells then walls, numbered after the shorter halves (1 + 3 + 9 ... of them), the cells
    read as a base-3 number with the one next to the centre lowest."""
    walled = np.zeros(digits[0].shape, dtype=bool)
    valid = np.ones(digits[0].shape, dtype=bool)
    value = np.zeros(digits[0].shape, dtype=np.int64)
    length = np.zeros(digits[0].shape, dtype=np.int64)
    for i, d in enumerate(digits):
        wall = d == 3
        valid &= wall | ~walled
        walled |= wall
        value += np.where(walled, 0, d * 3 ** i)
        length += ~walled
    offset = np.array([0, 1, 4, 13, 40])[length]
    return np.where(valid, offset + value, -1)


def _shape_of_key16() -> np.ndarray:
    """uint16[65536]: the shape (centre empty) of bits 2..17 of a key; 0 for impossible keys
    (a wall inside the board), which only off-board cells of a padded batch have. Computed on
    arrays: a loop over the keys took a sixth of a second of the engine's import."""
    k16 = np.arange(1 << 16, dtype=np.int64)
    d = [(k16 >> (2 * i)) & 3 for i in range(8)]         # offsets -4..-1, then +1..+4
    left = _half_index([d[3], d[2], d[1], d[0]])
    right = _half_index([d[4], d[5], d[6], d[7]])
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    out = np.where((left >= 0) & (right >= 0), hi * (hi + 1) // 2 + lo, 0).astype(np.uint16)
    out.setflags(write=False)
    return out


SHAPE_OF_KEY16 = _shape_of_key16()

#: key position (see the module docstring) of each offset along a line, -5..+5 without 0
KEY_POSITION = {o: (o + 5 if o < 0 else o + 4) for o in range(-5, 6) if o != 0}
#: the four directions as (dx, dy) steps, in the core's order (steps 1, stride, stride+1, stride-1)
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))
