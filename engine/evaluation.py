"""Tunable weights of the classical evaluation, in one table.

The evaluation is a weighted count of empty cells by what a stone there would make
(the core keeps `counts[colour, class]` incrementally, so it costs 20 multiply-adds per
leaf). The side to move gets the larger weights because it moves first: its open three
is one step from an open four, the opponent's is one step from being blocked.

Class order (core.C_*): NONE, WEAK, F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE.
"""
from __future__ import annotations

import numpy as np

#: weight per empty cell of each class, for the side to move
OWN_WEIGHTS = np.array([0, 1, 8, 10, 40, 60, 45, 300, 500, 2500, 0], dtype=np.int32)
#: weight per empty cell of each class, for the side that just moved (subtracted)
OPP_WEIGHTS = np.array([0, 1, 6, 8, 30, 45, 35, 200, 300, 800, 0], dtype=np.int32)

#: centi-stones per evaluation unit when reporting scores
SCORE_SCALE = 1


def weights() -> tuple[np.ndarray, np.ndarray]:
    """Fresh copies (the search may be handed tuned tables)."""
    return OWN_WEIGHTS.copy(), OPP_WEIGHTS.copy()
