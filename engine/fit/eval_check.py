"""How well an evaluation predicts a teacher's scores: the tables, a learned evaluator, and the
blends of the two the search plays with (`share=P`).

This is the cheap measure to steer a learned evaluator by before any match: every figure is
the value cross-entropy against the teacher's probability of the positions the search's leaf
would score, with each evaluation read as the search reads it (search units, turned into a
probability at the evaluator's scale). Over the shipped nets its order has been the order of
play: the later generation beat the earlier against the tables, and the half-and-half blend
beat both the net alone and the tables (docs/learned-eval.md).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from gomoku.engine.search.evaluation import tables as rule_tables
from gomoku.engine.search.learned import mix_rebuild, mix_residual, mix_score
from gomoku.engine.search.learned_file import LearnedEval
from gomoku.engine.fit.tuning import decided, evaluate, game_key, leaf_row, scored_positions, teacher_cross_entropy

#: the blends reported beside the tables (share 0) and the evaluator alone (share 100)
SHARES = (30, 50, 70)


@dataclass
class EvalCheck:
    """Cross-entropies by share of the evaluator (0: the tables, 100: the evaluator alone), on
    all positions and apart on the quiet and the decided ones.

    The split is there because the two halves tell different stories: a decided position (the
    teacher announces a win or a loss) is one a deep enough search solves with its threat
    solvers anyway, so an evaluator's gain there fades with depth, while its error on quiet
    positions stays with it at every depth."""
    positions: int
    games: int
    loss: dict[int, float] = field(default_factory=dict)
    floor: float = 0.0        # the teacher's own entropy: what a perfect evaluation would score
    decided: int = 0          # positions the teacher scores 0 or 1 (an announced loss or win)
    loss_quiet: dict[int, float] = field(default_factory=dict)      # empty when none is quiet
    loss_decided: dict[int, float] = field(default_factory=dict)    # empty when none is decided


def check_evaluator(paths: Sequence[str], learned: LearnedEval, holdout: float = 0.0,
                    shares: Sequence[int] = SHARES) -> EvalCheck:
    """Score the tables of the evaluator's rule, the evaluator and their blends on the positions
    of `paths` (scored-positions files of that rule) that the leaf evaluation scores; with
    holdout > 0 only those of the games a training run with `--scores-holdout holdout` keeps
    out. ValueError (one line) for a file of another rule, or nothing to score."""
    weights = rule_tables(learned.rule_id)
    ps, rows, nets, games = [], [], [], set()
    ev = None
    for path in paths:
        rule, _, _, positions = scored_positions(str(path))
        with contextlib.closing(positions):
            if int(rule) != learned.rule_id:
                raise ValueError(f"{path}: positions of {rule.label}, the evaluator is for {learned.rule}")
            for game, p, board in positions:
                if holdout > 0 and game_key(str(path), game) >= holdout:
                    continue
                row = leaf_row(board)
                if row is None or board.game_over:
                    continue
                st = board.state
                if ev is None or ev.acc.shape[0] != st.cells.shape[0]:
                    ev = learned.evaluator(st.cells.shape[0])
                mix_rebuild(st, ev)
                nets.append(int(mix_residual(st, ev) if learned.residual else mix_score(st, ev)))
                rows.append(row)
                ps.append(p)
                games.add((str(path), game))
    if not ps:
        raise ValueError(f"no position to score in {', '.join(map(str, paths))}"
                         + (f" (held out at {holdout})" if holdout > 0 else ""))
    p = np.array(ps, dtype=np.float64)
    tab = evaluate(np.stack(rows), weights)
    net = np.array(nets, dtype=np.float64)
    is_decided = decided(p)
    out = EvalCheck(positions=len(ps), games=len(games), decided=int(is_decided.sum()))
    for share in (0, *shares, 100):
        # the search's integer blend (engine.search.pvs.evaluate); a residual's share of its correction
        if learned.residual:
            blend = np.trunc(tab) + np.floor_divide(share * net, 100)
        else:
            blend = tab if share == 0 else net if share == 100 else np.floor_divide(
                share * net + (100 - share) * np.trunc(tab), 100)
        out.loss[share] = teacher_cross_entropy(p, blend, learned.eval_scale)
        for part, losses in ((~is_decided, out.loss_quiet), (is_decided, out.loss_decided)):
            if part.any():
                losses[share] = teacher_cross_entropy(p[part], blend[part], learned.eval_scale)
    q = np.clip(p, 1e-12, 1.0 - 1e-12)
    out.floor = float(np.mean(-(q * np.log(q) + (1.0 - q) * np.log(1.0 - q))))
    return out
