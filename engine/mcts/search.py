"""One player's tree search: limits, batching, noise, move choice and tree reuse.

An `MCTS` owns its forest (its tree and everything it learned) and its net evaluator, so two
MCTS players in one process never share state. Time is polled between batches; a batch of
net leaves takes milliseconds, so a deadline is kept to within one batch.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from ..game.core import PAD
from ..game.rules import Rule
from ..net.planes import plane_count
from . import tree as T
from ..game.cells import flat_to_padded

SELECT_RULES = {"puct": T.SELECT_PUCT, "ucb1": T.SELECT_UCB1, "plain": T.SELECT_PLAIN, "flat": T.SELECT_FLAT}
#: memory for one player's tree when the caller gives no budget
DEFAULT_TREE_BYTES = 64 << 20
#: a warm-up tree: room for its few playouts on 9x9 and no more
WARM_TREE_BYTES = 1 << 20


def search_params(width: int, height: int, players: int, win_length: int, rule: Rule | int, select: str,
                  c_puct: float, fpu: float, radius: int, draw_value: float = 0.0) -> np.ndarray:
    """The params[] array every jitted tree function reads (slots tree.P_*)."""
    p = np.zeros(T.PARAMS_LEN)
    p[T.P_WIDTH], p[T.P_HEIGHT], p[T.P_STRIDE] = width, height, width + PAD
    p[T.P_PLAYERS], p[T.P_WIN], p[T.P_RULE] = players, win_length, int(rule)
    p[T.P_SELECT], p[T.P_CPUCT], p[T.P_FPU] = SELECT_RULES[select], c_puct, fpu
    p[T.P_RADIUS] = radius
    p[T.P_DRAW] = draw_value
    return p


@dataclass
class MCTSConfig:
    """How the tree is searched. Defaults suit play with a net; `pure()` gives the seeds'
    rollout MCTS (uniform priors, c_puct 5, as junxiaosong/AlphaZero_Gomoku)."""
    playouts: int = 800
    c_puct: float = 2.5
    select: str = "puct"
    fpu: float = 0.25            # unvisited child: the parent's value minus this (PUCT)
    batch: int = 16              # leaves collected per net call (one tree)
    radius: int = 0              # children only within this many cells of a stone; 0 all
    dirichlet_alpha: float = 0.0  # 0: no root noise (play); self-play sets it
    dirichlet_eps: float = 0.25
    temperature: float = 0.0     # 0: most visits; 1: proportional to visits
    move_noise: float = 0.0      # eps of Dirichlet noise mixed into the move distribution (seed 000); 0 off
    move_noise_alpha: float = 0.3
    draw_value: float = 0.0      # what a draw is worth to each side (-1..1); below 0 plays for a win
    tree_bytes: int = DEFAULT_TREE_BYTES

    @classmethod
    def pure(cls, playouts: int = 1000, **kw) -> "MCTSConfig":
        base = dict(playouts=playouts, c_puct=5.0, fpu=0.0, batch=1)
        base.update(kw)
        return cls(**base)

    def check(self) -> None:
        if self.select not in SELECT_RULES:
            raise ValueError(f"unknown selection rule {self.select!r} (use {', '.join(SELECT_RULES)})")
        if self.playouts < 1:
            raise ValueError("playouts must be at least 1")
        if self.c_puct <= 0:
            raise ValueError("c_puct must be positive")
        if not 0 <= self.radius <= 5:
            raise ValueError("radius must be 0..5")
        if not 0 <= self.move_noise <= 1:
            raise ValueError("move_noise must be 0..1")
        if not -1 <= self.draw_value <= 1:
            raise ValueError("draw_value must be -1..1")
        if self.move_noise > 0 and self.move_noise_alpha <= 0:
            raise ValueError("move_noise_alpha must be positive")


@dataclass
class SearchResult:
    """What one search found. Cells are flat (y * width + x)."""
    move: int
    visits: np.ndarray                 # int32[H * W]: root children's visits
    value: float                       # the mover's expected value (-1..1)
    playouts: int
    proven: int = 0                    # +1 the mover wins by force, -1 loses, 0 unknown
    evals: int = 0
    batches: int = 0
    time: float = 0.0
    pv: list[int] = field(default_factory=list)


class MCTS:
    """A searcher for one player: sync it to the game's moves, then search.

    evaluator: a NetEvaluator, or None for random rollouts (pure MCTS)."""

    def __init__(self, width: int, height: int, rule: Rule | int = Rule.FREESTYLE, win_length: int = 5,
                 players: int = 2, config: Optional[MCTSConfig] = None, evaluator=None, seed: int = 0):
        self.config = config or (MCTSConfig() if evaluator is not None else MCTSConfig.pure())
        self.config.check()
        if self.config.select == "flat" and evaluator is not None:
            raise ValueError("flat Monte Carlo uses rollouts, not a net")
        self.width, self.height = int(width), int(height)
        self.rule, self.win_length, self.players = Rule(rule), int(win_length), int(players)
        self.evaluator = evaluator
        if evaluator is not None:
            evaluator.info.check_game(self.width, self.height, self.rule.label, self.win_length, self.players,
                                      allow_any_size=True, source=getattr(evaluator, "path", "net"))
        self.rng = np.random.default_rng(seed)
        nodes = max(1024, self.config.tree_bytes // T.node_bytes(self.players))
        self.forest = T.new_forest(self.width, self.height, self.players, 1, nodes, seed=seed + 1)
        c = self.config
        self.params = search_params(self.width, self.height, self.players, self.win_length, self.rule,
                                    c.select, c.c_puct, c.fpu, c.radius, c.draw_value)
        self.scratch = T.new_scratch(self.forest)
        self.to_padded = flat_to_padded(self.width, self.height)
        self.moves: list[int] = []          # the root position's moves (flat cells)
        self._noised = False
        self._planes = None

    # -- position -------------------------------------------------------------------------
    def sync(self, moves: Sequence[int]) -> None:
        """Point the root at the position after `moves` (flat cells), keeping what the tree
        knows: forward along played moves, back along takebacks, anew otherwise."""
        moves = [int(m) for m in moves]
        f, g = self.forest, 0
        ok = True
        if moves[:len(self.moves)] == self.moves:
            for m in moves[len(self.moves):]:
                if not T.advance_root(f, g, self.to_padded[m]):
                    ok = False
                    break
        elif self.moves[:len(moves)] == moves:
            for _ in range(len(self.moves) - len(moves)):
                if not T.retreat_root(f, g):
                    ok = False
                    break
        else:
            ok = False
        self._set_cells(moves)
        if not ok:
            T.reset_tree(f, g)
        self.moves = moves
        self._noised = False

    def _set_cells(self, moves: list[int]) -> None:
        from ..game.cells import new_cells
        f = self.forest
        cells = new_cells(self.width, self.height, self.players)
        for i, m in enumerate(moves):
            cells[self.to_padded[m]] = 1 + i % self.players
        f.cells[0] = cells
        f.nstones[0] = len(moves)
        f.last[0, 0] = self.to_padded[moves[-1]] if moves else -1
        f.last[0, 1] = self.to_padded[moves[-2]] if len(moves) > 1 else -1

    # -- search ---------------------------------------------------------------------------
    def search(self, playouts: Optional[int] = None, deadline: Optional[float] = None,
               stop=None) -> SearchResult:
        """Search the root position until `playouts` (counting the visits kept from earlier
        searches), the perf_counter `deadline`, `stop.is_set()`, or a proven root."""
        t0 = time.perf_counter()
        f, g = self.forest, 0
        target = self.config.playouts if playouts is None else int(playouts)
        if f.used[g] > f.cap[g] // 2:
            T.compact(f, g)
        evals = batches = 0
        start_visits = int(f.visits[f.root[g]])
        while True:
            root = f.root[g]
            if f.visits[root] >= target or f.solved[root] != 0:
                break
            if deadline is not None and time.perf_counter() >= deadline and f.visits[root] > 0:
                break
            if stop is not None and stop.is_set() and f.visits[root] > 0:
                break
            if self.evaluator is None:
                step = min(256, target - int(f.visits[root]))
                done = T.run_rollout_playouts(f, g, self.params, step, self.scratch)
                if done == 0:
                    if not self._make_room():
                        break
            else:
                n, full = self._net_step(min(self.config.batch, max(1, target - int(f.visits[root]))))
                evals += n
                batches += 1 if n else 0
                if full and not self._make_room():
                    break
            if self.config.dirichlet_alpha > 0 and not self._noised and f.first[f.root[g]] >= 0:
                self._add_noise()
        return self._result(int(f.visits[f.root[g]]) - start_visits, evals, batches, time.perf_counter() - t0)

    def _make_room(self) -> bool:
        f, g = self.forest, 0
        before = int(f.used[g])
        T.compact(f, g)
        return int(f.used[g]) < before * 0.9

    def _net_step(self, want: int) -> tuple[int, bool]:
        f = self.forest
        c = plane_count(self.players)
        if self._planes is None or self._planes.shape[0] < want:
            self._planes = np.zeros((want, c, self.height, self.width), np.float32)
            self._leaf_tree = np.zeros(want, np.int64)
            self._leaf_depth = np.zeros(want, np.int64)
            self._paths = np.zeros((want, T.MAX_DEPTH), np.int64)
        trees = np.zeros(1, np.int64)
        count, exact, full = T.collect_batch(f, trees, want, self.params, self._planes[:want], self._leaf_tree,
                                             self._leaf_depth, self._paths, max(4, want), self.scratch)
        if count:
            policy, value = self.evaluator.evaluate(self._planes[:count])
            T.apply_batch(f, self.params, count, self._leaf_tree, self._leaf_depth, self._paths, policy, value,
                          self.scratch)
        return count, bool(full)

    def _add_noise(self) -> None:
        f, root = self.forest, int(self.forest.root[0])
        first, n = int(f.first[root]), int(f.nchild[root])
        if n > 1:
            noise = self.rng.dirichlet([self.config.dirichlet_alpha] * n).astype(np.float32)
            eps = self.config.dirichlet_eps
            f.prior[first:first + n] = (1 - eps) * f.prior[first:first + n] + eps * noise
        self._noised = True

    def _result(self, playouts: int, evals: int, batches: int, elapsed: float) -> SearchResult:
        f, root = self.forest, int(self.forest.root[0])
        first, n = int(f.first[root]), int(f.nchild[root])
        visits = np.zeros(self.width * self.height, np.int32)
        mover = len(self.moves) % self.players
        if first < 0 or n == 0:
            raise RuntimeError("the root has no legal move")
        kids = np.arange(first, first + n)
        cells = f.flat[f.move[kids]]
        visits[cells] = f.visits[kids]
        solved = int(f.solved[root])
        if solved == 1:
            win = kids[f.solved[kids] == -1]
            pick = int(win[np.argmax(f.visits[win])]) if win.size else int(kids[0])
        elif n == 1:
            pick = int(kids[0])
        else:
            pick = self._choose(kids)
        value = float(f.wsum[root, mover] / f.visits[root]) if f.visits[root] else 0.0
        if solved:
            value = float(solved)
        return SearchResult(move=int(f.flat[f.move[pick]]), visits=visits, value=value, playouts=playouts,
                            proven=solved, evals=evals, batches=batches, time=elapsed, pv=self._pv(pick))

    def _choose(self, kids: np.ndarray) -> int:
        f = self.forest
        v = f.visits[kids].astype(np.float64)
        lost = f.solved[kids] == 1            # lost for us by force: only if nothing else is left
        if not lost.all():
            v[lost] = -1
        if self.config.select == "flat":
            # flat Monte Carlo plays the best mean, not the most tried
            mover = len(self.moves) % self.players
            tried = v > 0
            v = np.where(tried, f.wsum[kids, mover] / np.maximum(f.visits[kids], 1) + 2.0, v)
        t = self.config.temperature
        eps = self.config.move_noise
        if (t <= 0 or v.max() <= 0) and eps <= 0:
            best = np.flatnonzero(v == v.max())
            # ties (few playouts): the higher prior, then the first
            return int(kids[best[np.argmax(f.prior[kids[best]])]])
        if t <= 0 or v.max() <= 0:
            best = np.flatnonzero(v == v.max())
            p = np.zeros(len(kids))
            p[best[np.argmax(f.prior[kids[best]])]] = 1.0
        else:
            w = np.where(v > 0, v, 0) ** (1.0 / t)
            p = w / w.sum()
        if eps > 0:
            # seed 000: p_noise = (1 - eps) p + eps Dirichlet(alpha), over the moves not lost by force
            ok = v >= 0
            noise = np.zeros(len(kids))
            noise[ok] = self.rng.dirichlet([self.config.move_noise_alpha] * int(ok.sum()))
            p = (1 - eps) * p + eps * noise
        return int(kids[self.rng.choice(len(kids), p=p / p.sum())])

    def _pv(self, node: int, length: int = 8) -> list[int]:
        f = self.forest
        pv = [int(f.flat[f.move[node]])]
        while len(pv) < length and f.first[node] >= 0 and f.nchild[node] > 0:
            first, n = int(f.first[node]), int(f.nchild[node])
            node = first + int(np.argmax(f.visits[first:first + n]))
            if f.visits[node] == 0:
                break
            pv.append(int(f.flat[f.move[node]]))
        return pv


def warm_up() -> None:
    """Compile (or load) the tree search's jitted code for the argument types play and
    self-play use: rollouts for two and three players, a renju expansion, one net batch (with
    zero logits standing in for a net's output), compaction, and the trainer's plane encoder.

    The trees are WARM_TREE_BYTES, not the default 64 MB: a tree's arrays are written when it
    is made, and the brain runs this warm-up in its own process, where the freed memory stays
    with the allocator (four default trees kept 75-115 MB of RSS in a brain that never
    searches with MCTS, against Gomocup's 350 MB for the whole brain)."""
    from ..net.planes import encode_game
    for players, rule in ((2, Rule.FREESTYLE), (2, Rule.RENJU), (3, Rule.FREESTYLE)):
        m = MCTS(9, 9, rule, 5, players, MCTSConfig.pure(64, tree_bytes=WARM_TREE_BYTES), seed=0)
        m.sync([40, 41])
        m.search()
        T.compact(m.forest, 0)
        m.sync([40, 41, m.search().move])
    m = MCTS(9, 9, Rule.FREESTYLE, 5, 2, MCTSConfig(playouts=8, batch=4, tree_bytes=WARM_TREE_BYTES), seed=0)
    m.sync([40])
    f = m.forest
    planes = np.zeros((4, 6, 9, 9), np.float32)
    tree_ids, depth, paths = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros((4, T.MAX_DEPTH), np.int64)
    count, _, _ = T.collect_batch(f, np.zeros(1, np.int64), 4, m.params, planes, tree_ids, depth, paths, 4,
                                  m.scratch)
    T.apply_batch(f, m.params, count, tree_ids, depth, paths, np.zeros((4, 9, 9), np.float32),
                  np.zeros((4, 3), np.float32), m.scratch)
    T.advance_root(f, 0, np.int64(m.to_padded[41]))
    T.retreat_root(f, 0)
    encode_game(np.array([40, 41], np.int64), 9, 9, 2)
