"""Positions a stronger engine has scored, as value targets beside the run's own games.

A game's result labels every one of its positions alike, so a few thousand games teach a
value head mostly noise (a learned evaluator distilled from 3,000 classical games alone lost
0 - 20 to the tables it learnt from, at equal nodes). A teacher's judgement of each position
is a far denser label: `gomoku train --scores FILE` (the files `gomoku tune --scores` reads:
`GAME P x,y x,y ...`, P the teacher's probability that the side to move wins) adds a batch of
them to every update, with the soft target (P, 1 - P, 0) on the value head only.

A teacher announces some positions as won or lost (P exactly 1 or 0). A deep search settles
most of those by its threat solvers before it asks the evaluator, so `--scores-decided-weight`
can draw them less often than the quiet ones, the positions the search still asks about. (Measured
in docs/lab/learned-eval.md, "Training for the quiet positions": the held-out quiet positions
improved, play did not.)

A share of the teacher's games (`--scores-holdout`) is kept out of training, whole games at a
time: the run's only measure of how well the value head judges positions it has not seen.
Its training loss says little, because the few tens of thousands of positions come back in
every update (a net's loss on them falls well below its loss on positions of games it has not
seen). The
tables' score of the same held-out positions is the reference a learned value has to beat.
"""
from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from gomoku.engine.game.rules import parse_rule
from gomoku.engine.search.evaluation import tables as rule_tables
from gomoku.engine.fit.tuning import decided as announced
from gomoku.engine.fit.tuning import evaluate, game_key, leaf_row, scored_positions, teacher_cross_entropy

from .config import RunError


@dataclass
class TeacherSet:
    """Scored positions: stones int8[n, H, W] (0 empty, 1 black, 2 white), the side to move
    (0 black, 1 white), P, its probability of winning, the game each came from and the tables'
    static score of it (side to move's view, evaluation units; NaN where the search decides the
    position by rule).

    A game is named by a number in [0, 1) hashed from its file's name and its name in the file,
    so a game is held out or not whatever other files come with it: a run that adds a file
    (a new run started with --init from an older one) holds out the same old games."""
    stones: np.ndarray
    mover: np.ndarray
    p: np.ndarray
    game: np.ndarray
    tables: np.ndarray
    draw: Optional[np.ndarray] = None     # each position's chance in `sample`; None: all alike

    def __len__(self) -> int:
        return int(self.p.shape[0])

    @property
    def decided(self) -> np.ndarray:
        """bool[n]: the positions the teacher announces as won or lost (P exactly 1 or 0)."""
        return announced(self.p)

    def subset(self, rows: np.ndarray) -> "TeacherSet":
        """The positions `rows`, drawn alike."""
        return TeacherSet(self.stones[rows], self.mover[rows], self.p[rows], self.game[rows], self.tables[rows])

    def quiet(self) -> Optional["TeacherSet"]:
        """The positions the teacher does not announce as decided, or None if there are none."""
        rows = np.flatnonzero(~self.decided)
        return self.subset(rows) if rows.size else None

    def weigh_decided(self, weight: float) -> "TeacherSet":
        """The same positions, where `sample` draws a decided one `weight` times as often as a
        quiet one; RunError if that leaves nothing to draw."""
        if weight == 1.0:
            return dataclasses.replace(self, draw=None)
        w = np.where(self.decided, weight, 1.0)
        if w.sum() <= 0:
            raise RunError("--scores-decided-weight 0: every scored position is decided, none is left to train on")
        return dataclasses.replace(self, draw=w / w.sum())

    def split(self, holdout: float) -> tuple["TeacherSet", Optional["TeacherSet"]]:
        """(training positions, held-out positions or None): the games whose number is below
        `holdout` (about that share of them), whole; at least one where holdout > 0 and there are
        two games or more."""
        held = self.game < holdout
        games = np.unique(self.game)
        if holdout > 0 and not held.any() and games.size >= 2:
            held = self.game == games[0]
        train = ~held
        if train.all():
            return self, None
        return self.subset(np.flatnonzero(train)), self.subset(np.flatnonzero(~train))

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """n positions drawn with replacement (by `draw` where set): planes float32[n, 6, H, W]
        (docs/net-format.md; no last-move planes) under a random symmetry of the square each,
        and value targets float32[n, 3] (win, loss, draw)."""
        if self.draw is None:
            idx = rng.integers(0, len(self), size=n)
        else:
            idx = rng.choice(len(self), size=n, p=self.draw)
        stones = self.stones[idx]
        k = rng.integers(0, 8, size=n)
        for s in range(8):
            sel = k == s
            if sel.any():
                t = np.rot90(stones[sel], s % 4, axes=(1, 2))
                stones[sel] = t[:, :, ::-1] if s >= 4 else t
        return _planes(stones, self.mover[idx]), _targets(self.p[idx])

    def batches(self, size: int = 512):  # noqa: ANN201
        """Every position once, as it stands, in batches of (planes, targets): held-out scoring."""
        for a in range(0, len(self), size):
            b = slice(a, a + size)
            yield _planes(self.stones[b], self.mover[b]), _targets(self.p[b])

    def tables_loss(self, scale: float) -> Optional[float]:
        """Cross-entropy of the tables' predictions sigmoid(score / scale) against the teacher's
        P, over the positions the tables score (None if none): the reference for a value head."""
        ok = ~np.isnan(self.tables)
        if not ok.any():
            return None
        return teacher_cross_entropy(self.p[ok], self.tables[ok], scale)


def _planes(stones: np.ndarray, mover: np.ndarray) -> np.ndarray:
    own = 1 + mover[:, None, None]
    planes = np.zeros((stones.shape[0], 6) + stones.shape[1:], dtype=np.float32)
    planes[:, 0] = stones == own
    planes[:, 1] = (stones != 0) & (stones != own)
    planes[:, 4] = (mover == 0)[:, None, None]
    planes[:, 5] = 1.0
    return planes


def _targets(p: np.ndarray) -> np.ndarray:
    return np.stack([p, 1.0 - p, np.zeros_like(p)], axis=1).astype(np.float32)


def load_teacher(paths: Sequence[str], rule: str, width: int, height: int) -> TeacherSet:
    """The scored positions of `paths` (plain or .gz) for a run's game; RunError (one line) for a
    file of another rule or size, or a malformed line."""
    stones, movers, ps, games = [], [], [], []
    rows: list[np.ndarray] = []
    scored: list[int] = []
    for path in paths:
        try:
            their_rule, w, h, positions = scored_positions(str(path))
            with contextlib.closing(positions):
                if their_rule.label != parse_rule(rule).label or (w, h) != (width, height):
                    raise RunError(f"--scores {path}: positions of {their_rule.label} {w}x{h}, the run is {rule} "
                                   f"{width}x{height}")
                for game, p, board in positions:
                    if board.game_over:
                        continue
                    grid = np.array([[board.cell(x, y) for x in range(width)] for y in range(height)],
                                    dtype=np.int8)
                    stones.append(grid)
                    movers.append(int(board.to_move) - 1)
                    ps.append(p)
                    games.append(game_key(str(path), game))
                    row = leaf_row(board)
                    if row is not None:
                        rows.append(row)
                        scored.append(len(ps) - 1)
        except ValueError as exc:
            raise RunError(f"--scores {exc}") from None
        except OSError as exc:
            raise RunError(f"--scores {path}: {exc.strerror or exc}") from None
    if not ps:
        raise RunError(f"--scores: no position in {', '.join(paths)}")
    scores = np.full(len(ps), np.nan)
    if rows:
        scores[scored] = evaluate(np.stack(rows), rule_tables(int(parse_rule(rule))))
    return TeacherSet(np.stack(stones), np.array(movers, dtype=np.int64), np.array(ps, dtype=np.float32),
                      np.array(games, dtype=np.float64), scores)
