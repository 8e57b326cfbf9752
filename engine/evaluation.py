"""Tunable weights of the classical evaluation, in one table.

The evaluation is a weighted count of empty cells by what a stone there would make
(the core keeps `counts[colour, class]` incrementally, so it costs 20 multiply-adds per
leaf). The side to move gets the larger weights because it moves first: its open three
is one step from an open four, the opponent's is one step from being blocked.

The tables are fitted, not guessed: `gomoku tune GAMES...` (engine.tuning, Texel's method)
fits the logistic of this evaluation to game results over the positions the leaf scores, and
`gomoku tune --scores FILE` to a stronger engine's judgement of positions (freestyle's tables,
below, which play clearly better than the result-fitted ones).
The common tables come from 1036 games (24042 positions: our matches against PentaZen and
ourselves, freestyle, standard and renju), `gomoku tune --holdout 0 $(find runs -name '*.sgf')`:
prediction error (MSE) 0.178 with the earlier hand-set tables, 0.141 fitted. The units stay
those of the earlier tables (the fit is scaled by their logistic K, ~960), so the search's
margins keep their meaning; the weak classes come out slightly negative (noise, harmless).

Class order (core.C_*): NONE, WEAK, F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

#: weight per empty cell of each class, for the side to move (FIVE never reaches the
#: evaluation, F4 only for renju black and caro: the leaf scores an open four as won)
OWN_WEIGHTS = np.array([0, -9, 29, 61, 18, 177, 209, 523, 3472, 4000, 0], dtype=np.int32)
#: weight per empty cell of each class, for the side that just moved (subtracted)
OPP_WEIGHTS = np.array([0, -12, 20, 56, 14, 152, 219, 264, 1003, 635, 0], dtype=np.int32)

#: standard (exactly five) has tables of its own, distilled like freestyle's (below) from
#: tools/data/pentazen_standard_scores.txt.gz: 6000 positions, half from PentaZen's standard
#: self-play, half from our standard games against it. `gomoku tune --holdout 0 --scores
#: tools/data/pentazen_standard_scores.txt.gz` gives these lines; held out, MSE against the
#: teacher 0.0790, the result-fitted standard tables before them 0.0939. Against PentaZen at
#: 50 ms a move (we at 1 s, 60 games each): 20-39-1, the result-fitted tables 12-47-1.
#: (Those result-fitted tables, from 620 standard games, had beaten the common tables at
#: 1 s/move, 27-53 against 19-61 over 80 games, on an older opening set.)
STANDARD_OWN_WEIGHTS = np.array([0, 3, 15, 75, 62, 140, 352, 141, 3107, 4000, 0], dtype=np.int32)
STANDARD_OPP_WEIGHTS = np.array([0, 1, 7, 69, 57, 98, 329, 114, 960, 833, 0], dtype=np.int32)

#: freestyle's tables are distilled from a stronger engine instead of fitted to results: 6000
#: positions (half from PentaZen's self-play, half from our games against it) labelled with
#: PentaZen's 200 ms search score turned into a win probability, in
#: tools/data/pentazen_freestyle_scores.txt.gz (how: that file's header). Game results say
#: little per position (every position of a game gets the same label); a teacher's score says
#: what this position is worth. `gomoku tune --holdout 0 --scores
#: tools/data/pentazen_freestyle_scores.txt.gz` gives these lines; held out (--holdout 0.2) the
#: fit predicts PentaZen's probabilities with MSE 0.0686, the common tables 0.0783. Against
#: PentaZen at 50 ms a move (we at 1 s, 60 games each): these tables 17-42-1 and 18-41-1, a
#: first fit of the same data (with an intercept: OWN B4F3 3131, OPP F3X2 87, B4F3 1029, F4 685,
#: the other entries within 16 of these) 20-40 and 28-32; the common tables 14-42-4 and 14-46.
#: So 83-155-2 (35 %) against 28-88-4 (25 %); these tables alone 35-83-2 (30 %). In self-play
#: at 0.3 s/move these tables beat the common ones 72-27-1. At equal time (1 s each) PentaZen
#: still wins 56 of 60, as before.
#: The common tables' weight on a four-three point (OWN B4F3 3472) survives
#: the distillation; a double three's weight for the side that just moved (OPP F3X2) falls
#: from 264 to 52: the side to move usually blocks one of the threes with a gain of tempo.
FREESTYLE_OWN_WEIGHTS = np.array([0, -1, 19, 70, 77, 166, 330, 347, 3568, 4000, 0], dtype=np.int32)
FREESTYLE_OPP_WEIGHTS = np.array([0, -4, 21, 59, 44, 127, 329, 52, 1137, 771, 0], dtype=np.int32)

#: rule id (engine.rules.Rule) -> its own (OWN, OPP) tables; renju and caro use the common ones
RULE_TABLES = {0: (FREESTYLE_OWN_WEIGHTS, FREESTYLE_OPP_WEIGHTS),
               1: (STANDARD_OWN_WEIGHTS, STANDARD_OPP_WEIGHTS)}

#: centi-stones per evaluation unit when reporting scores
SCORE_SCALE = 1


def weights(rule: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
    """Fresh copies of the tables for `rule` (None: the common ones)."""
    own, opp = RULE_TABLES.get(rule, (OWN_WEIGHTS, OPP_WEIGHTS))
    return own.copy(), opp.copy()
