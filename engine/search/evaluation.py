"""Tunable weights of the classical evaluation, in one table.

The evaluation is a weighted count of empty cells by what a stone there would make: by the
cell's class (what the four lines make together: an open three, a four-three ...), by each
line's pattern on its own, and by the pair of the cell's two strongest line patterns (the
core keeps `counts[colour, class]`, `counts[colour, PATTERN_COUNTS + pattern]` and
`counts[colour, PAIR_COUNTS + pair]` incrementally, so a leaf costs one straight loop of 50
multiply-adds per colour).
The patterns say what the class folds away: how many lines a cell serves and how strong each
is (a four-three point with an open three behind it, or two blocked threes). The pairs say
what the patterns, counted one line at a time, cannot: that two lines meet at one cell, which
makes a point worth more (or less) than its lines' sum; the class keeps only the strongest
meetings apart (F3X2, B4F3). The side to move gets the larger weights because it moves
first: its open three is one step from an open four, the opponent's is one step from being
blocked.

The tables are fitted, not guessed: `gomoku tune GAMES...` (gomoku.train.tuning, Texel's method)
fits the logistic of this evaluation to game results over the positions the leaf scores, and
`gomoku tune --scores FILE` to a stronger engine's judgement of positions (freestyle's tables,
below, which play clearly better than the result-fitted ones).
The common tables (renju and caro use them) are fitted to game results of our matches
(`gomoku tune --holdout 0 GAMES`); they weigh classes only. The units are those of the first
hand-set tables (each fit is scaled by their logistic K, ~960), so the search's margins keep
their meaning.

Class order (core.C_*): NONE, WEAK, F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE.
Pattern order (patterns.*): DEAD, OL, B1, F1, B2, F2, B3, F3, B4, F4, F5.
Pair order (core.PAIR_NAMES): none, B2+low, B2+B2, F2+low, F2+B2, F2+F2, B3+low ... F4+F4
(strongest pattern from B2 up, then the second: 'low' below B2); `none` is not weighed.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Mapping, NamedTuple, Optional

import numpy as np

from gomoku.engine.game.core import C_FIVE, C_WEAK, NUM_CLASSES, NUM_PAIRS
from gomoku.engine.game.patterns import B1, F5, NUM_PATTERNS

#: the entries of the tables the evaluation weighs: classes WEAK .. F4 (a cell of class NONE
#: makes nothing; FIVE is decided before the evaluation is asked), line patterns B1 .. F4
#: (DEAD and OL say nothing, F5 never reaches it), pairs from 1 (pair 0: nothing from B2 up).
#: The search zeroes the rest; `gomoku tune` fits these and leaves the rest 0.
WEIGHED_CLASSES = slice(C_WEAK, C_FIVE)
WEIGHED_PATTERNS = slice(B1, F5)
WEIGHED_PAIRS = slice(1, NUM_PAIRS)

#: weight per empty cell of each class, for the side to move (FIVE never reaches the
#: evaluation, F4 only for renju black and caro: the leaf scores an open four as won)
OWN_WEIGHTS = np.array([0, -9, 29, 61, 18, 177, 209, 523, 3472, 4000, 0], dtype=np.int32)
#: weight per empty cell of each class, for the side that just moved (subtracted)
OPP_WEIGHTS = np.array([0, -12, 20, 56, 14, 152, 219, 264, 1003, 635, 0], dtype=np.int32)

#: standard (exactly five) has tables of its own, distilled like freestyle's (below) from the
#: four standard files in tools/data (29184 positions): `gomoku tune --holdout 0 --scores F1
#: --scores F2 --scores F3 --scores F4` gives these lines. How they were chosen against the
#: fits before them: docs/engine-history.md.
STANDARD_OWN_WEIGHTS = np.array([0, 5, 6, 14, 20, 73, 115, 52, 2473, 4000, 0], dtype=np.int32)
STANDARD_OPP_WEIGHTS = np.array([0, 1, -6, 2, 28, 52, 117, 26, 658, 342, 0], dtype=np.int32)
STANDARD_PATTERN_OWN = np.array([0, 0, 2, 3, 17, 8, 36, 53, 125, 0, 0], dtype=np.int32)
STANDARD_PATTERN_OPP = np.array([0, 0, 1, 3, 19, 25, 23, 41, 119, 343, 0], dtype=np.int32)
STANDARD_PAIR_OWN = np.array([0, -11, -15, -1, 33, 21, -2, 6, 97, 134, 78, 74, 172, 228, 52, 78, 100, 526, 639, 2473, 0, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)
STANDARD_PAIR_OPP = np.array([0, -13, -15, -13, 11, -23, 16, 25, 77, 98, 47, 87, 120, 113, 26, 95, 158, 368, 483, 658, 713, 215, 469, 482, 819, -41, 1010, 4105], dtype=np.int32)

#: freestyle's tables are distilled from a stronger engine instead of fitted to results:
#: positions labelled with PentaZen's 200 ms search score turned into a win probability (how:
#: the files' headers). Game results say little per position (every position of a game gets
#: the same label); a teacher's score says what this position is worth. The four freestyle
#: files in tools/data (35572 positions), `gomoku tune --holdout 0 --scores F1 ... --scores F4`
#: gives these lines; what each file holds and how the fit was chosen: docs/engine-history.md.
FREESTYLE_OWN_WEIGHTS = np.array([0, 2, 10, 16, 0, 64, 96, 160, 2496, 4000, 0], dtype=np.int32)
FREESTYLE_OPP_WEIGHTS = np.array([0, -2, 2, 5, -5, 45, 99, 56, 670, 292, 0], dtype=np.int32)
FREESTYLE_PATTERN_OWN = np.array([0, 0, 3, 2, 17, 2, 36, 60, 106, 0, 0], dtype=np.int32)
FREESTYLE_PATTERN_OPP = np.array([0, 0, 2, 2, 21, 15, 41, 46, 102, 293, 0], dtype=np.int32)
FREESTYLE_PAIR_OWN = np.array([0, -10, -29, 7, 23, 51, -16, -12, 76, 84, 66, 62, 151, 257, 160, 61, 101, 451, 488, 2496, 0, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)
FREESTYLE_PAIR_OPP = np.array([0, -17, -31, -3, 15, 18, -13, -21, 38, 52, 48, 40, 91, 165, 56, 69, 154, 330, 404, 670, 532, 161, 436, 424, 633, 431, 252, -103], dtype=np.int32)


class EvalTables(NamedTuple):
    """The weights of the evaluation: per class of an empty cell (int32[11], NONE..FIVE),
    per line pattern of an empty cell's direction (int32[11], DEAD..F5) and per pattern pair
    of an empty cell (int32[NUM_PAIRS], core.PAIR_NAMES), for the side to move and for the
    side that just moved."""
    own: np.ndarray
    opp: np.ndarray
    pattern_own: np.ndarray
    pattern_opp: np.ndarray
    pair_own: np.ndarray
    pair_opp: np.ndarray


_NO_PATTERNS = np.zeros(NUM_PATTERNS, dtype=np.int32)
_NO_PAIRS = np.zeros(NUM_PAIRS, dtype=np.int32)

#: rule id (engine.rules.Rule) -> its own tables; renju and caro use the common ones (which
#: weigh classes only)
RULE_TABLES = {0: EvalTables(FREESTYLE_OWN_WEIGHTS, FREESTYLE_OPP_WEIGHTS,
                             FREESTYLE_PATTERN_OWN, FREESTYLE_PATTERN_OPP,
                             FREESTYLE_PAIR_OWN, FREESTYLE_PAIR_OPP),
               1: EvalTables(STANDARD_OWN_WEIGHTS, STANDARD_OPP_WEIGHTS,
                             STANDARD_PATTERN_OWN, STANDARD_PATTERN_OPP,
                             STANDARD_PAIR_OWN, STANDARD_PAIR_OPP)}
COMMON_TABLES = EvalTables(OWN_WEIGHTS, OPP_WEIGHTS, _NO_PATTERNS, _NO_PATTERNS, _NO_PAIRS, _NO_PAIRS)

#: centi-stones per evaluation unit when reporting scores
SCORE_SCALE = 1


def tables(rule: Optional[int] = None) -> EvalTables:
    """Fresh copies of the tables for `rule` (None: the common ones)."""
    t = RULE_TABLES.get(rule, COMMON_TABLES)
    return EvalTables(*(a.copy() for a in t))


# ----------------------------------------------------------------------------- tables files

#: the `format` field of a tables file (`gomoku tune --out`, `classical:tables=FILE`)
TABLES_FORMAT = "gomoku-eval-tables"
TABLES_VERSION = 1
_SIZES = {"own": NUM_CLASSES, "opp": NUM_CLASSES, "pattern_own": NUM_PATTERNS, "pattern_opp": NUM_PATTERNS,
          "pair_own": NUM_PAIRS, "pair_opp": NUM_PAIRS}


def tables_to_json(by_rule: Mapping[int, EvalTables]) -> str:
    """A tables file's text: per rule (by label) the six tables as integer lists."""
    from gomoku.engine.game.rules import Rule
    doc = {"format": TABLES_FORMAT, "version": TABLES_VERSION,
           "rules": {Rule(r).label: {k: [int(v) for v in getattr(t, k)] for k in EvalTables._fields}
                     for r, t in sorted(by_rule.items())}}
    return json.dumps(doc, indent=1) + "\n"


def save_tables(path: str | os.PathLike, by_rule: Mapping[int, EvalTables]) -> None:
    """Write a tables file atomically (temp file, fsync, rename): a match or a brain reading it
    meanwhile sees the old file or the new one, never half of one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(tables_to_json(by_rule))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_tables(path: str | os.PathLike) -> dict[int, EvalTables]:
    """Read a tables file: rule id -> tables. Raises ValueError with one line for a person when
    the file is missing, unreadable or not a tables file of this version."""
    from gomoku.engine.game.rules import parse_rule
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read tables file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a tables file (not JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != TABLES_FORMAT:
        raise ValueError(f"{path}: not a tables file (format is not {TABLES_FORMAT!r})")
    if doc.get("version") != TABLES_VERSION:
        raise ValueError(f"{path}: tables file version {doc.get('version')!r}, this engine reads {TABLES_VERSION}")
    rules = doc.get("rules")
    if not isinstance(rules, dict) or not rules:
        raise ValueError(f"{path}: no rules in the tables file")
    out: dict[int, EvalTables] = {}
    for label, tabs in rules.items():
        try:
            rule = int(parse_rule(label))
        except ValueError:
            raise ValueError(f"{path}: unknown rule {label!r}") from None
        if not isinstance(tabs, dict) or set(tabs) != set(_SIZES):
            raise ValueError(f"{path}: rule {label} needs the tables {', '.join(EvalTables._fields)}")
        arrays = []
        for key in EvalTables._fields:
            vals = tabs[key]
            if not isinstance(vals, list) or len(vals) != _SIZES[key] or \
                    not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1 << 20 for v in vals):
                raise ValueError(f"{path}: rule {label}: {key} must be {_SIZES[key]} integers")
            arrays.append(np.array(vals, dtype=np.int32))
        out[rule] = EvalTables(*arrays)
    return out
