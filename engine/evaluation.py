"""Tunable weights of the classical evaluation, in one table.

The evaluation is a weighted count of empty cells by what a stone there would make
(the core keeps `counts[colour, class]` incrementally, so it costs 20 multiply-adds per
leaf). The side to move gets the larger weights because it moves first: its open three
is one step from an open four, the opponent's is one step from being blocked.

The tables are fitted, not guessed: `gomoku tune GAMES...` (engine.tuning, Texel's method)
fits the logistic of this evaluation to game results over the positions the leaf scores.
The shipped tables come from 1036 games (24042 positions: our matches against PentaZen and
ourselves, freestyle, standard and renju), `gomoku tune --holdout 0 $(find runs -name '*.sgf')`:
prediction error (MSE) 0.178 with the earlier hand-set tables, 0.141 fitted. The units stay
those of the earlier tables (the fit is scaled by their logistic K, ~960), so the search's
margins keep their meaning; the weak classes come out slightly negative (noise, harmless).

Class order (core.C_*): NONE, WEAK, F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE.
"""
from __future__ import annotations

import numpy as np

#: weight per empty cell of each class, for the side to move (FIVE never reaches the
#: evaluation, F4 only for renju black and caro: the leaf scores an open four as won)
OWN_WEIGHTS = np.array([0, -9, 29, 61, 18, 177, 209, 523, 3472, 4000, 0], dtype=np.int32)
#: weight per empty cell of each class, for the side that just moved (subtracted)
OPP_WEIGHTS = np.array([0, -12, 20, 56, 14, 152, 219, 264, 1003, 635, 0], dtype=np.int32)

#: centi-stones per evaluation unit when reporting scores
SCORE_SCALE = 1


def weights() -> tuple[np.ndarray, np.ndarray]:
    """Fresh copies (the search may be handed tuned tables)."""
    return OWN_WEIGHTS.copy(), OPP_WEIGHTS.copy()
