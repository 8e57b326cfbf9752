"""The positions of scored-games files (engine.game.labels) as a learned evaluator's training set.

The positions are the ones engine.fit.label_positions keeps (where the search's leaf
evaluation would be asked about them), and the value target is its blend of the search's score
and the game's result. Each keeps what training needs and nothing it can recompute cheaply: the
stones, the side to move, the search's score, the game's result, the search's best move, the
tables' static score and the game it came from (held-out sets are whole games; positions of one
game are strongly correlated).
numpy only; the trainer (train.distill) brings torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from gomoku.engine.fit.label_positions import LabelFileError, checked_games, label_target, leaf_plies
from gomoku.engine.fit.tuning import evaluate, game_key
from gomoku.engine.game.labels import ScoredGame
from gomoku.engine.game.rules import Rule
from gomoku.engine.search.evaluation import EvalTables, tables as rule_tables

#: labels that cannot be trained on (one line naming the file): the positions module's error
LabelSetError = LabelFileError


@dataclass
class LabelSet:
    """Positions as parallel arrays: stones int8[n, H, W] (0 empty, 1 black, 2 white), mover
    int8[n] (0 black, 1 white to move), score int16[n] (the search's, mover's view), result
    int8[n] (+1 / 0 / -1 for the mover), best int16[n] (y * W + x), tables float32[n] (the
    tables' static score, mover's view) and key float64[n] (the game's number in [0, 1))."""
    stones: np.ndarray
    mover: np.ndarray
    score: np.ndarray
    result: np.ndarray
    best: np.ndarray
    tables: np.ndarray
    key: np.ndarray

    def __len__(self) -> int:
        return int(self.mover.shape[0])

    @property
    def games(self) -> int:
        return int(np.unique(self.key).shape[0])

    def subset(self, rows: np.ndarray) -> "LabelSet":
        return LabelSet(*(a[rows] for a in (self.stones, self.mover, self.score, self.result, self.best,
                                            self.tables, self.key)))

    def split(self, holdout: float) -> tuple["LabelSet", "LabelSet"]:
        """(training, held out): the games whose number is below `holdout`, whole, held out."""
        held = self.key < holdout
        return self.subset(np.flatnonzero(~held)), self.subset(np.flatnonzero(held))

    def target(self, scale: float, lam: float) -> np.ndarray:
        """float32[n]: lam * sigmoid(score / scale) + (1 - lam) * the result as 1 / 1/2 / 0."""
        return label_target(self.score, self.result, scale, lam)


def load_labels(paths: Sequence[str | Path], rule: Rule, width: int = 15, height: int = 15,
                max_positions: Optional[int] = None,
                progress: Optional[Callable[[int], None]] = None) -> LabelSet:
    """The leaf positions of `paths` (read in a stream, games of other rules or sizes refused),
    at most `max_positions` (the first ones); `progress(positions so far)` after each game.
    LabelSetError (one line) for a file that is missing, not a scored-games file, or of
    another rule or size, or when no position is kept."""
    weights = rule_tables(int(rule))
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("stones", "mover", "score", "result", "best", "tables", "key")}
    total = 0
    for path in map(Path, paths):
        for index, game in checked_games(path, rule, width, height):
            taken = _game_positions(game, weights, game_key(str(path), str(index)))
            if taken is None:
                continue
            if max_positions is not None and total + len(taken["mover"]) > max_positions:
                keep = max_positions - total
                taken = {k: v[:keep] for k, v in taken.items()}
            for k, v in taken.items():
                cols[k].append(v)
            total += len(taken["mover"])
            if progress is not None:
                progress(total)
            if max_positions is not None and total >= max_positions:
                break
        if max_positions is not None and total >= max_positions:
            break
    if not total:
        raise LabelSetError(f"no position to train on in {', '.join(map(str, paths))}")
    return LabelSet(**{k: np.concatenate(v) for k, v in cols.items()})


def _game_positions(game: ScoredGame, weights: EvalTables, key: float) -> Optional[dict[str, np.ndarray]]:
    """One game's kept positions as arrays (None when it keeps none)."""
    grid = np.zeros((game.height, game.width), dtype=np.int8)
    stones, mover, score, result, best, rows = [], [], [], [], [], []
    done = 0
    for ply, _board, row in leaf_plies(game):
        for k in range(done, ply):        # the stones up to this ply (leaf_plies keeps its own board)
            m = int(game.moves[k])
            grid[m // game.width, m % game.width] = 1 + k % 2
        done = ply
        stones.append(grid.copy())
        mover.append(ply % 2)
        score.append(int(game.scores[ply]))
        result.append(game.result_for_mover(ply))
        best.append(int(game.best[ply]))
        rows.append(row)
    if not rows:
        return None
    n = len(rows)
    return {"stones": np.stack(stones), "mover": np.array(mover, dtype=np.int8),
            "score": np.array(score, dtype=np.int16), "result": np.array(result, dtype=np.int8),
            "best": np.array(best, dtype=np.int16), "tables": evaluate(np.stack(rows), weights).astype(np.float32),
            "key": np.full(n, key)}
