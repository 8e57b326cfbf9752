"""Input planes of a position, as docs/net-format.md defines them (format version 1).

One jitted `fill_planes` serves both the search (which fills a batch from its own board
arrays) and the trainer (`encode_game`), so what a net is trained on and what it is shown
at play time cannot drift apart.

Cells here are `int8[H * W]` in row-major order (cell = y * width + x) holding 0 for empty
and 1 + seat for a stone of the player in that seat (seat 0 moves first).
"""
from __future__ import annotations

import numpy as np
from numba import njit

FORMAT_VERSION = 1


def plane_count(players: int) -> int:
    """C = P + 4: one plane per player, the last two moves, the first-player flag, the mask."""
    return players + 4


def plane_names(players: int) -> list[str]:
    """The plane names in order, as the `planes` metadata lists them."""
    return ["own"] + [f"next{i}" for i in range(1, players)] + ["last1", "last2", "first", "mask"]


@njit(cache=True, nogil=True, _nrt=False)
def fill_planes(cells: np.ndarray, width: np.int64, height: np.int64, players: np.int64, mover: np.int64,
                last1: np.int64, last2: np.int64, out: np.ndarray) -> None:
    """Write the planes of one position into `out` (float32[C, H, W], overwritten).

    mover: seat of the player to move; last1/last2: cells of the last two moves or -1.
    Compiled without numba's runtime so the tree search (which runs without it) can call it."""
    out[:] = 0.0
    for cell in range(width * height):
        v = cells[cell]
        if v > 0:
            rel = (v - 1 - mover) % players      # 0 = the mover, 1 = the next player, ...
            out[rel, cell // width, cell % width] = 1.0
    if last1 >= 0:
        out[players, last1 // width, last1 % width] = 1.0
    if last2 >= 0:
        out[players + 1, last2 // width, last2 % width] = 1.0
    if mover == 0:
        out[players + 2] = 1.0
    out[players + 3] = 1.0


@njit(cache=True)
def _encode_game(moves: np.ndarray, width: np.int64, height: np.int64, players: np.int64,
                 out: np.ndarray) -> None:
    cells = np.zeros(width * height, dtype=np.int8)
    for t in range(moves.shape[0]):
        last1 = moves[t - 1] if t >= 1 else -1
        last2 = moves[t - 2] if t >= 2 else -1
        fill_planes(cells, width, height, players, t % players, last1, last2, out[t])
        cells[moves[t]] = 1 + t % players


def encode_game(moves: np.ndarray, width: int, height: int, players: int = 2) -> np.ndarray:
    """Planes of the position before each move of a game: float32[T, C, H, W].

    moves: flat cells (y * width + x) in play order; seats move in turn (0, 1, ..., P-1, 0, ...)."""
    moves = np.asarray(moves, dtype=np.int64)
    if moves.ndim != 1:
        raise ValueError("moves must be a 1-D sequence of cells")
    if moves.size and (moves.min() < 0 or moves.max() >= width * height):
        raise ValueError(f"a move lies outside the {width}x{height} board")
    if np.unique(moves).size != moves.size:
        raise ValueError("a cell is played twice")
    out = np.zeros((moves.size, plane_count(players), height, width), dtype=np.float32)
    _encode_game(moves, width, height, players, out)
    return out
