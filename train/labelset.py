"""The positions of scored-games files (engine.game.labels) as a learned evaluator's training set.

A position is kept where the search's leaf evaluation would be asked about it: a search scored
it (a centi-stone score, not a proven result) and the board does not settle it by rule (the
side to move has no five and no open four to make, the opponent no five to complete:
tuning.leaf_row's test, the one the tables were fitted under). Each keeps what training needs
and nothing it can recompute cheaply: the stones, the side to move, the search's score, the
game's result, the search's best move, the tables' static score and the game it came from
(held-out sets are whole games; positions of one game are strongly correlated).

The value target blends the two labels Stockfish's NNUE trainers blend (lambda): the search's
score turned into a win probability at the evaluation's scale, and the game's result.
numpy only; the trainer (train.distill) brings torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from gomoku.engine.fit.tuning import evaluate, game_key, leaf_row
from gomoku.engine.game.board import Board
from gomoku.engine.game.labels import NO_SCORE, ScoredGame, no_cell, read_games
from gomoku.engine.game.rules import Rule
from gomoku.engine.search.evaluation import EvalTables, tables as rule_tables

#: scores at or beyond this are the search's proven results, which no evaluation is asked for
PROVEN = 29000


class LabelSetError(ValueError):
    """Labels that cannot be trained on; one line naming the file."""


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
        search = 1.0 / (1.0 + np.exp(-self.score.astype(np.float64) / scale))
        result = (self.result.astype(np.float64) + 1.0) / 2.0
        return (lam * search + (1.0 - lam) * result).astype(np.float32)


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
    for path in paths:
        path = Path(path)
        try:
            for index, game in enumerate(read_games(path)):
                if (game.width, game.height, game.rule) != (width, height, int(rule)):
                    raise LabelSetError(f"{path}: game {index} is {Rule(game.rule).label} {game.width}x{game.height}, "
                                        f"the training is {rule.label} {width}x{height}")
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
        except FileNotFoundError:
            raise LabelSetError(f"labels file not found: {path}") from None
        except OSError as exc:
            raise LabelSetError(f"{path}: {exc.strerror or exc}") from None
        except LabelSetError:
            raise
        except ValueError as exc:
            raise LabelSetError(f"{path}: {exc}") from None
        if max_positions is not None and total >= max_positions:
            break
    if not total:
        raise LabelSetError(f"no position to train on in {', '.join(map(str, paths))}")
    return LabelSet(**{k: np.concatenate(v) for k, v in cols.items()})


def _game_positions(game: ScoredGame, weights: EvalTables, key: float) -> Optional[dict[str, np.ndarray]]:
    """One game's kept positions as arrays (None when it keeps none)."""
    w, h = game.width, game.height
    none = no_cell(w, h)
    board = Board(w, h, rule=game.rule)
    grid = np.zeros((h, w), dtype=np.int8)
    stones, mover, score, result, best, rows = [], [], [], [], [], []
    for ply in range(game.plies):
        s, b = int(game.scores[ply]), int(game.best[ply])
        if s != NO_SCORE and b != none and abs(s) < PROVEN and not board.game_over:
            row = leaf_row(board)
            if row is not None:
                stones.append(grid.copy())
                mover.append(ply % 2)
                score.append(s)
                result.append(game.result_for_mover(ply))
                best.append(b)
                rows.append(row)
        m = int(game.moves[ply])
        x, y = m % w, m // w
        board.play(x, y)
        grid[y, x] = 1 + ply % 2
    if not rows:
        return None
    n = len(rows)
    return {"stones": np.stack(stones), "mover": np.array(mover, dtype=np.int8),
            "score": np.array(score, dtype=np.int16), "result": np.array(result, dtype=np.int8),
            "best": np.array(best, dtype=np.int16), "tables": evaluate(np.stack(rows), weights).astype(np.float32),
            "key": np.full(n, key)}
