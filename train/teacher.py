"""Positions a stronger engine has scored, as value targets beside the run's own games.

A game's result labels every one of its positions alike, so a few thousand games teach a
value head mostly noise (a learned evaluator distilled from 3,000 classical games alone lost
0 - 20 to the tables it learnt from, at equal nodes). A teacher's judgement of each position
is a far denser label: `gomoku train --scores FILE` (the files `gomoku tune --scores` reads:
`GAME P x,y x,y ...`, P the teacher's probability that the side to move wins) adds a batch of
them to every update, with the soft target (P, 1 - P, 0) on the value head only.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gomoku.engine.game.rules import parse_rule
from gomoku.engine.search.tuning import scored_positions

from .config import RunError


@dataclass
class TeacherSet:
    """Scored positions: stones int8[n, H, W] (0 empty, 1 black, 2 white), the side to move
    (0 black, 1 white) and P, its probability of winning."""
    stones: np.ndarray
    mover: np.ndarray
    p: np.ndarray

    def __len__(self) -> int:
        return int(self.p.shape[0])

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """planes float32[n, 6, H, W] (docs/net-format.md; no last-move planes) under a random
        symmetry of the square each, and value targets float32[n, 3] (win, loss, draw)."""
        idx = rng.integers(0, len(self), size=n)
        stones = self.stones[idx]
        k = rng.integers(0, 8, size=n)
        for s in range(8):
            sel = k == s
            if sel.any():
                t = np.rot90(stones[sel], s % 4, axes=(1, 2))
                stones[sel] = t[:, :, ::-1] if s >= 4 else t
        mover = self.mover[idx]
        own = 1 + mover[:, None, None]
        planes = np.zeros((n, 6) + stones.shape[1:], dtype=np.float32)
        planes[:, 0] = stones == own
        planes[:, 1] = (stones != 0) & (stones != own)
        planes[:, 4] = (mover == 0)[:, None, None]
        planes[:, 5] = 1.0
        p = self.p[idx]
        target = np.stack([p, 1.0 - p, np.zeros_like(p)], axis=1).astype(np.float32)
        return planes, target


def load_teacher(paths: Sequence[str], rule: str, width: int, height: int) -> TeacherSet:
    """The scored positions of `paths` (plain or .gz) for a run's game; RunError (one line) for a
    file of another rule or size, or a malformed line."""
    stones, movers, ps = [], [], []
    for path in paths:
        try:
            their_rule, w, h, positions = scored_positions(str(path))
            with contextlib.closing(positions):
                if their_rule.label != parse_rule(rule).label or (w, h) != (width, height):
                    raise RunError(f"--scores {path}: positions of {their_rule.label} {w}x{h}, the run is {rule} "
                                   f"{width}x{height}")
                for _, p, board in positions:
                    if board.game_over:
                        continue
                    grid = np.array([[board.cell(x, y) for x in range(width)] for y in range(height)],
                                    dtype=np.int8)
                    stones.append(grid)
                    movers.append(int(board.to_move) - 1)
                    ps.append(p)
        except ValueError as exc:
            raise RunError(f"--scores {exc}") from None
        except OSError as exc:
            raise RunError(f"--scores {path}: {exc.strerror or exc}") from None
    if not ps:
        raise RunError(f"--scores: no position in {', '.join(paths)}")
    return TeacherSet(np.stack(stones), np.array(movers, dtype=np.int64), np.array(ps, dtype=np.float32))
