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

The tables are data, not code: engine/data/eval_tables.json, a tables file (the format
`gomoku tune --out` writes and `classical:tables=FILE` reads), loaded here at import, one
entry per rule. They are fitted, not guessed: `gomoku tune GAMES...` (engine.fit.tuning,
Texel's method) fits the logistic of this evaluation to game results over the positions the
leaf scores, and `gomoku tune --scores FILE` to a stronger engine's judgement of positions.
 - freestyle and standard are fitted to the engine's own searches: the positions of its games
   at 20,000 nodes a move (tools/data/sprt20k_{freestyle,standard}_*.labels), each labelled
   with its search's score as a win probability blended with the game's result (`gomoku tune
   --holdout 0.05 --labels F1 ... --labels Fn`: 805,295 freestyle positions, 48,794
   standard; both with --lambda 1, the search's score alone). They beat the tables
   distilled from PentaZen's scores before them by +29.5 and +33.9 Elo, and lambda 1 added
   +25.5 and +61.5 (docs/strength.md): a deep search sees the tactics the counts cannot, and the
   fit weighs the counts by what those tactics made of them. Game results alone say little
   per position (every position of a game gets the same label); a search's score says what
   this position is worth. The PentaZen-scored files in tools/data remain, with how the
   earlier fits were chosen (docs/engine-history.md).
 - renju is fitted the same way to 51,418 positions of its own games
   (tools/data/sprt20k_renju_1.labels): +61.1 Elo against the common tables it used before.
 - caro and caro5 share the common tables, fitted to game results of our matches (`gomoku
   tune --holdout 0 GAMES`); they weigh classes only (their pattern and pair tables are
   zero). A search given no rule uses them too.
The units are those of the first hand-set tables (each fit is scaled by their logistic K,
~960), so the search's margins keep their meaning. For the side to move, FIVE never reaches
the evaluation and F4 only for renju black and caro (the leaf scores an open four as won).

Class order (core.C_*): NONE, WEAK, F2, B3, F2X2, F3, B4, F3X2, B4F3, F4, FIVE.
Pattern order (patterns.*): DEAD, OL, B1, F1, B2, F2, B3, F3, B4, F4, F5.
Pair order (core.PAIR_NAMES): none, B2+low, B2+B2, F2+low, F2+B2, F2+F2, B3+low ... F4+F4
(strongest pattern from B2 up, then the second: 'low' below B2); `none` is not weighed.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping, NamedTuple, Optional

import numpy as np

from gomoku.engine.base.fileio import cannot_read, write_atomic
from gomoku.engine.game.core import C_FIVE, C_WEAK, NUM_CLASSES, NUM_PAIRS
from gomoku.engine.game.patterns import B1, F5, NUM_PATTERNS
from gomoku.engine.game.rules import NUM_RULES, Rule, parse_rule

#: the entries of the tables the evaluation weighs: classes WEAK .. F4 (a cell of class NONE
#: makes nothing; FIVE is decided before the evaluation is asked), line patterns B1 .. F4
#: (DEAD and OL say nothing, F5 never reaches it), pairs from 1 (pair 0: nothing from B2 up).
#: The search zeroes the rest; `gomoku tune` fits these and leaves the rest 0.
WEIGHED_CLASSES = slice(C_WEAK, C_FIVE)
WEIGHED_PATTERNS = slice(B1, F5)
WEIGHED_PAIRS = slice(1, NUM_PAIRS)


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


#: centi-stones per evaluation unit when reporting scores
SCORE_SCALE = 1


# ----------------------------------------------------------------------------- tables files

#: the `format` field of a tables file (`gomoku tune --out`, `classical:tables=FILE`)
TABLES_FORMAT = "gomoku-eval-tables"
TABLES_VERSION = 1
_SIZES = {"own": NUM_CLASSES, "opp": NUM_CLASSES, "pattern_own": NUM_PATTERNS, "pattern_opp": NUM_PATTERNS,
          "pair_own": NUM_PAIRS, "pair_opp": NUM_PAIRS}


def tables_to_json(by_rule: Mapping[int, EvalTables]) -> str:
    """A tables file's text: per rule (by label) the six tables as integer lists, one line
    each, so that a re-fitted rule shows in a diff as the lines it changed."""
    blocks = []
    for r, t in sorted(by_rule.items()):
        rows = ",\n".join(f'   "{k}": {json.dumps([int(v) for v in getattr(t, k)])}' for k in EvalTables._fields)
        blocks.append(f'  "{Rule(r).label}": {{\n{rows}\n  }}')
    return (f'{{\n "format": "{TABLES_FORMAT}",\n "version": {TABLES_VERSION},\n "rules": {{\n'
            + ",\n".join(blocks) + "\n }\n}\n")


def save_tables(path: str | os.PathLike, by_rule: Mapping[int, EvalTables]) -> None:
    """Write a tables file atomically (engine.base.fileio's one atomic write): a match or a brain
    reading it meanwhile sees the old file or the new one, never half of one."""
    write_atomic(Path(path), tables_to_json(by_rule))


def load_tables(path: str | os.PathLike) -> dict[int, EvalTables]:
    """Read a tables file: rule id -> tables. Raises ValueError with one line for a person when
    the file is missing, unreadable or not a tables file of this version."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(cannot_read("tables", path, exc)) from None
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


# ----------------------------------------------------------------------------- the shipped tables

#: the tables the engine plays with: one entry per rule (the module's docstring says where
#: each comes from)
TABLES_FILE = Path(__file__).resolve().parent.parent / "data" / "eval_tables.json"


def _shipped(path: Path) -> dict[int, EvalTables]:
    """The shipped tables file, which must give every rule its tables: a rule left out would
    otherwise be searched with another rule's tables without a word."""
    got = load_tables(path)
    missing = [Rule(r).label for r in range(NUM_RULES) if r not in got]
    if missing:
        raise ValueError(f"{path}: no tables for {', '.join(missing)}")
    return got


#: rule id (engine.game.rules.Rule) -> its tables
RULE_TABLES = _shipped(TABLES_FILE)
#: the tables caro and caro5 share, and a search given no rule uses
COMMON_TABLES = RULE_TABLES[Rule.CARO]

# the shipped arrays by the names notes and tests give them
(FREESTYLE_OWN_WEIGHTS, FREESTYLE_OPP_WEIGHTS, FREESTYLE_PATTERN_OWN, FREESTYLE_PATTERN_OPP,
 FREESTYLE_PAIR_OWN, FREESTYLE_PAIR_OPP) = RULE_TABLES[Rule.FREESTYLE]
(STANDARD_OWN_WEIGHTS, STANDARD_OPP_WEIGHTS, STANDARD_PATTERN_OWN, STANDARD_PATTERN_OPP,
 STANDARD_PAIR_OWN, STANDARD_PAIR_OPP) = RULE_TABLES[Rule.STANDARD]
OWN_WEIGHTS, OPP_WEIGHTS = COMMON_TABLES.own, COMMON_TABLES.opp


def tables(rule: Optional[int] = None) -> EvalTables:
    """Fresh copies of the tables for `rule` (None: the common ones)."""
    t = COMMON_TABLES if rule is None else RULE_TABLES.get(rule, COMMON_TABLES)
    return EvalTables(*(a.copy() for a in t))
