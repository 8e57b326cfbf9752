"""Game records: Piskvork `.psq` and SGF (`GM[4]`) read/write.

`play` saves games with these, `match` writes a whole match into one SGF collection, and
training reads them back, so every loader turns a malformed file into ONE clear `ValueError`
line (never a traceback deep in a parser).

Coordinates inside a `GameRecord` are the engine's: (x, y), 0-based, x = column from the
left, y = row from the top; black moves first.

The formats live in their own modules, `engine.game.psq` (Piskvork) and `engine.game.sgf`
(the lossless one: rule, result and reason ride along), the record and what they share in
`engine.game.gamerecord`; this module picks the format by the file's extension and is the one
callers import: every name of the three is re-exported here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from gomoku.engine.game.gamerecord import (BLACK, EMPTY, MAX_SIDE, RESULT_BLACK, RESULT_DRAW, RESULT_WHITE, WHITE,
                                          GameRecord, Move, PathLike, infer_result, read_text, write_text)
from gomoku.engine.game.psq import load_psq, parse_psq, psq_string, save_psq
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.sgf import (append_sgf, from_sgf_string, load_sgf, load_sgf_all, save_sgf, sgf_game_string,
                                   to_sgf_string)


# ----------------------------------------------------------------------------- by extension

def _kind(path: PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix == ".psq":
        return "psq"
    if suffix == ".sgf":
        return "sgf"
    raise ValueError(f"{path}: unknown record type {suffix or '(no extension)'!r}; use .sgf or .psq")


def save(path: PathLike, rec: GameRecord) -> None:
    """Save rec as .sgf or .psq, chosen by the file extension."""
    if _kind(path) == "psq":
        save_psq(path, rec)
    else:
        save_sgf(path, rec)


def load_all(path: PathLike, rule: Optional[Rule] = None) -> list[GameRecord]:
    """Every game of a .sgf collection, or the one game of a .psq record; `rule` is the rule of
    a record that does not say (a .psq, an SGF game without RU[]), freestyle when None."""
    if _kind(path) == "psq":
        return [load_psq(path, rule=Rule.FREESTYLE if rule is None else Rule(rule))]
    return load_sgf_all(path, rule)


def load(path: PathLike, rule: Optional[Rule] = None) -> GameRecord:
    """Load a .sgf (first game) or .psq record; `rule` is used where the record names none."""
    return load_all(path, rule)[0]


__all__ = ["Move", "PathLike", "EMPTY", "BLACK", "WHITE", "RESULT_BLACK", "RESULT_WHITE", "RESULT_DRAW", "MAX_SIDE",
           "GameRecord", "infer_result", "read_text", "write_text", "psq_string", "parse_psq", "save_psq", "load_psq",
           "sgf_game_string", "to_sgf_string", "from_sgf_string", "save_sgf", "append_sgf", "load_sgf_all",
           "load_sgf", "save", "load_all", "load"]
