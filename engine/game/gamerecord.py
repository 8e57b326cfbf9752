"""One game record (`GameRecord`) and what its file formats share: the result codes, reading a
record's text whatever its encoding, writing it atomically, and inferring a result the file lacks.

The formats themselves live beside it (`engine.game.psq`, `engine.game.sgf`) and
`engine.game.records` picks one by extension; keeping the record apart from both lets each
format depend on it alone, with no format importing the other.

Coordinates inside a `GameRecord` are the engine's: (x, y), 0-based, x = column from the
left, y = row from the top; black moves first.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from gomoku.engine.base import fileio
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.stones import BLACK, EMPTY, WHITE

Move = tuple[int, int]
PathLike = Union[str, "os.PathLike[str]"]

RESULT_BLACK = "1-0"
RESULT_WHITE = "0-1"
RESULT_DRAW = "1/2-1/2"
_RESULTS = (RESULT_BLACK, RESULT_WHITE, RESULT_DRAW)

MAX_SIDE = 52   # SGF coordinates a..z A..Z


@dataclass
class GameRecord:
    """One game: board geometry, rule, moves in order (black first) and how it ended.

    `result` is '1-0' (black won), '0-1' (white won), '1/2-1/2' or None (unfinished or
    unknown); `winner` says the same as 0/BLACK/WHITE (0 for a draw AND for no result, so
    read `result` to tell them apart). `times` is milliseconds per move (same length as
    `moves`) or None. `extra` keeps what a file carried that has no field here (unknown SGF
    root properties under their SGF names, `psq_code`, `psq_levels`).
    """
    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    moves: list[Move] = field(default_factory=list)
    result: Optional[str] = None
    winner: int = 0
    reason: str = ""
    black: str = ""
    white: str = ""
    date: str = ""
    times: Optional[list[int]] = None
    extra: dict[str, str] = field(default_factory=dict)

    def finish(self, winner: int, reason: str = "") -> None:
        """Set result/winner/reason together so they cannot disagree."""
        if winner not in (EMPTY, BLACK, WHITE):
            raise ValueError(f"winner must be 0, 1 or 2, not {winner!r}")
        self.winner = winner
        self.result = {BLACK: RESULT_BLACK, WHITE: RESULT_WHITE, EMPTY: RESULT_DRAW}[winner]
        self.reason = reason

    def validate(self) -> None:
        """Raise ValueError (one line) unless sizes, moves, times and result are consistent."""
        if not (1 <= self.width <= MAX_SIDE and 1 <= self.height <= MAX_SIDE):
            raise ValueError(f"board size {self.width}x{self.height} out of range 1..{MAX_SIDE}")
        seen: set[Move] = set()
        for i, mv in enumerate(self.moves, 1):
            try:
                x, y = mv
                x, y = int(x), int(y)
            except (TypeError, ValueError):
                raise ValueError(f"move {i} is not an (x, y) pair: {mv!r}") from None
            if not (0 <= x < self.width and 0 <= y < self.height):
                raise ValueError(f"move {i} ({x},{y}) is off the {self.width}x{self.height} board")
            if (x, y) in seen:
                raise ValueError(f"move {i} ({x},{y}) is on an occupied cell")
            seen.add((x, y))
        if self.times is not None and len(self.times) != len(self.moves):
            raise ValueError(f"{len(self.times)} move times for {len(self.moves)} moves")
        if self.result is not None and self.result not in _RESULTS:
            raise ValueError(f"result must be one of {', '.join(_RESULTS)} or None, not {self.result!r}")
        expected = {None: None, RESULT_BLACK: BLACK, RESULT_WHITE: WHITE, RESULT_DRAW: EMPTY}[self.result]
        if expected is not None and self.winner != expected:
            raise ValueError(f"winner {self.winner} disagrees with result {self.result}")


# ----------------------------------------------------------------------------- helpers

def infer_result(rec: GameRecord) -> bool:
    """Set rec's result if the last move completed a winning line (under rec.rule) or filled the board.

    Returns True when a result was set. Needs the engine's Board; a game whose moves run on
    past an earlier win (possible under another rule than the file was played with) is left
    without a result rather than guessed at.
    """
    from gomoku.engine.game.board import Board  # local: records stay importable without numba warm-up

    try:
        board = Board(rec.width, rec.height, rule=rec.rule)
        for x, y in rec.moves:
            board.play(x, y)
    except Exception:  # noqa: BLE001 - any refusal means "cannot tell", not an error in the file
        return False
    if board.winner:
        rec.finish(int(board.winner), "five")
        return True
    if board.is_full():
        rec.finish(EMPTY, "full")
        return True
    return False


def read_text(path: PathLike) -> str:
    """A record file's text, or ONE ValueError line: a missing or unreadable file is the user's
    mistake, never a traceback."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(fileio.cannot_read("record", path, exc)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")   # old Piskvork files carry Windows-1250/1252 brain names


def write_text(path: PathLike, text: str) -> None:
    """Write atomically (missing folders created) so a crash never leaves half a record behind."""
    try:
        fileio.write_atomic(path, text)
    except OSError as exc:
        raise ValueError(f"{path}: cannot write ({exc.strerror or exc})") from None
