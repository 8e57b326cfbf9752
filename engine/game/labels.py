"""Scored games: every position a search played, with its score, its best move and the result.

A tester at fixed nodes plays thousands of games whose every move a search chose and scored;
kept, they are the labels a learned evaluator trains on (Stockfish's `gensfen` and Rapfi's
`selfplay` keep the same three facts per position). This module is the one file format for
them: `gomoku match --labels FILE` appends to it, the trainer reads it in a stream.

The file is `MAGIC` followed by games, each written whole by one `write` call, so a file cut by
a kill ends at most in one torn game, which the reader ignores and `LabelWriter` cuts off
before it appends. A game is a 10-byte header

    b"GM", width u8, height u8, rule u8, result i8 (+1 black won, -1 white, 0 draw),
    plies u16 (all moves, opening stones included), opening u16 (how many of them it has)

then three arrays of `plies` entries: the moves played, the search's best move in each
position (NO_CELL where no search chose: opening stones, a player that reports no score),
and the search's score from the mover's view (int16 centi-stones; WIN/LOSS for a proven
result; NO_SCORE where none). A cell is y * width + x, one byte on boards of up to 254
cells (15x15: four bytes a position), else two. Symmetries are applied by the reader's user
at training time, never stored.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, Optional, Sequence, Union

import numpy as np

from gomoku.engine.base.fileio import write_atomic_bytes

MAGIC = b"GMKLBL1\n"
_HEADER = struct.Struct("<2sBBBbHH")
_MARK = b"GM"
WIN, LOSS, NO_SCORE = 32000, -32000, -32768
SCORE_CAP = 30000            # centi-stone scores are clipped inside the proven-result codes

Score = Union[int, str, None]


def cell_dtype(width: int, height: int) -> type:
    """One byte a cell where the board fits (its largest value is the no-cell mark)."""
    return np.uint8 if width * height < 255 else np.uint16


def no_cell(width: int, height: int) -> int:
    return 255 if width * height < 255 else 65535


def score_code(score: Score) -> int:
    """A player's reported score ("win"/"loss"/centi-stones/None) as the file's int16."""
    if score is None:
        return NO_SCORE
    if score == "win":
        return WIN
    if score == "loss":
        return LOSS
    if isinstance(score, str):
        return NO_SCORE
    return max(-SCORE_CAP, min(SCORE_CAP, int(score)))


@dataclass(frozen=True)
class ScoredGame:
    """One game of the file. `moves`, `best` and `scores` have one entry per ply; `result` is
    +1 when black won, -1 white, 0 a draw. `rule` is the rule's id (engine.game.rules.Rule)."""
    width: int
    height: int
    rule: int
    result: int
    opening: int
    moves: np.ndarray
    best: np.ndarray
    scores: np.ndarray

    @property
    def plies(self) -> int:
        return int(self.moves.shape[0])

    def scored(self) -> np.ndarray:
        """The plies whose position a search scored and chose a move in."""
        return np.flatnonzero((self.scores != NO_SCORE) & (self.best != no_cell(self.width, self.height)))

    def result_for_mover(self, ply: int) -> int:
        """+1 / 0 / -1: the game's result from the side to move at `ply` (black moves at even plies)."""
        return self.result if ply % 2 == 0 else -self.result

    def to_bytes(self) -> bytes:
        dt = cell_dtype(self.width, self.height)
        head = _HEADER.pack(_MARK, self.width, self.height, self.rule, self.result, self.plies, self.opening)
        return b"".join((head, self.moves.astype(dt).tobytes(), self.best.astype(dt).tobytes(),
                         self.scores.astype("<i2").tobytes()))


def symmetric(game: ScoredGame, k: int) -> ScoredGame:
    """The game under the k-th of the board's symmetries (0..7 on a square board: k & 3 quarter
    turns, then a mirror when k & 4; 0..3 on a rectangle: identity, mirrors, half turn), the
    one way the trainer multiplies a file's positions without storing them."""
    w, h = game.width, game.height
    square = w == h
    if not 0 <= k < (8 if square else 4):
        raise ValueError(f"symmetry {k} of a {w}x{h} board")
    none = no_cell(w, h)
    dt = game.moves.dtype

    def image(cells: np.ndarray) -> np.ndarray:
        c = cells.astype(np.int64)
        x, y = c % w, c // w
        if square:
            for _ in range(k & 3):
                x, y = w - 1 - y, x
            if k & 4:
                x = w - 1 - x
        else:
            if k & 1:
                x = w - 1 - x
            if k & 2:
                y = h - 1 - y
        out = y * w + x
        return np.where(c == none, none, out).astype(dt)

    return ScoredGame(w, h, game.rule, game.result, game.opening, image(game.moves), image(game.best),
                      game.scores.copy())


def scored_game(width: int, height: int, rule: int, winner: int, moves: Sequence[tuple[int, int]],
                opening: int, scores: Sequence[Score]) -> ScoredGame:
    """The record of a played game: `winner` 0 (draw), 1 (black) or 2 (white); `scores[i]` what
    the player of ply i reported (None for the opening's stones). The move a search played is
    its best move, so a ply with a score has its own move as best."""
    if len(scores) != len(moves):
        raise ValueError(f"{len(moves)} moves but {len(scores)} scores")
    if not 0 <= opening <= len(moves) or len(moves) > 65535 or width * height > 65535:
        raise ValueError("the game does not fit the format")
    cells = np.array([y * width + x for x, y in moves], dtype=np.int64)
    codes = np.array([score_code(s) for s in scores], dtype=np.int64)
    best = np.where(codes != NO_SCORE, cells, no_cell(width, height))
    result = {0: 0, 1: 1, 2: -1}[winner]
    return ScoredGame(width, height, int(rule), result, opening, cells, best, codes)


def _read_game(f: BinaryIO, head: bytes) -> Optional[ScoredGame]:
    mark, w, h, rule, result, plies, opening = _HEADER.unpack(head)
    if mark != _MARK:
        raise ValueError("not a scored-games file (a game's mark is missing)")
    dt = np.dtype(cell_dtype(w, h))
    size = plies * (2 * dt.itemsize + 2)
    body = f.read(size)
    if len(body) < size:
        return None
    n = plies * dt.itemsize
    moves = np.frombuffer(body[:n], dtype=dt)
    best = np.frombuffer(body[n:2 * n], dtype=dt)
    scores = np.frombuffer(body[2 * n:], dtype="<i2")
    return ScoredGame(w, h, rule, result, opening, moves, best, scores)


def _check_magic(f: BinaryIO, path: Path) -> None:
    if f.read(len(MAGIC)) != MAGIC:
        raise ValueError(f"{path} is not a scored-games file")


def _games_with_ends(f: BinaryIO, path: Path) -> Iterator[tuple[ScoredGame, int]]:
    """Each complete game of an open file and the offset just past it (a torn last game ends
    the walk): the one reading loop of the reader and of the writer's cut."""
    _check_magic(f, path)
    while True:
        head = f.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        game = _read_game(f, head)
        if game is None:
            return
        yield game, f.tell()


def read_games(path: Union[str, Path]) -> Iterator[ScoredGame]:
    """The file's complete games, in order, read in a stream (a torn last game is skipped)."""
    path = Path(path)
    with open(path, "rb") as f:
        for game, _ in _games_with_ends(f, path):
            yield game


def _complete_length(path: Path) -> tuple[int, int]:
    """Bytes of the file's complete games (magic included) and how many games they are."""
    end, count = len(MAGIC), 0
    with open(path, "rb") as f:
        for _, end in _games_with_ends(f, path):
            count += 1
    return end, count


class LabelWriter:
    """Appends games to a scored-games file, each in one write and on disk before the next.
    An existing file keeps its complete games; a torn last one (a kill mid-write) is cut off."""

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.stat().st_size > 0:
            end, self.games_before = _complete_length(self.path)
            with open(self.path, "r+b") as f:
                f.truncate(end)
        else:
            # a new file appears with its magic already in it, so neither a reader nor a
            # writer after a kill ever meets a file that exists but says nothing
            self.games_before = 0
            write_atomic_bytes(self.path, MAGIC)
        self._f = open(self.path, "ab")
        self.written = 0

    def write(self, game: ScoredGame) -> None:
        self._f.write(game.to_bytes())
        self._f.flush()
        os.fsync(self._f.fileno())
        self.written += 1

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "LabelWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["MAGIC", "WIN", "LOSS", "NO_SCORE", "ScoredGame", "scored_game", "read_games", "LabelWriter",
           "score_code", "cell_dtype", "no_cell", "symmetric"]
