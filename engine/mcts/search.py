"""The tree search of play and self-play: limits, batching, noise, move choice and tree reuse.

`ForestSearch` searches a forest of trees together (one net call for the leaves of all of
them) and chooses the move; play uses a forest of one tree through `MCTS`, self-play one tree
per game (engine.mcts.selfplay), so the targets the nets learn from come from the same code
that plays. Time is polled between batches; a batch of net leaves takes milliseconds, so a
deadline is kept to within one batch.
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
from .config import SELECT_NAMES, WARM_TREE_BYTES, MCTSConfig
from ..game.cells import flat_to_padded, new_cells, wins_at

SELECT_RULES = {"puct": T.SELECT_PUCT, "ucb1": T.SELECT_UCB1, "plain": T.SELECT_PLAIN, "flat": T.SELECT_FLAT}
assert tuple(SELECT_RULES) == SELECT_NAMES


def search_params(width: int, height: int, players: int, win_length: int, rule: Rule | int, select: str,
                  c_puct: float, fpu: float, radius: int, draw_value: float = 0.0,
                  tactics: bool = True) -> np.ndarray:
    """The params[] array every jitted tree function reads (slots tree.P_*); tactics False
    sets tree.P_BARE (no exact wins, blocks or proofs in the tree)."""
    p = np.zeros(T.PARAMS_LEN)
    p[T.P_WIDTH], p[T.P_HEIGHT], p[T.P_STRIDE] = width, height, width + PAD
    p[T.P_PLAYERS], p[T.P_WIN], p[T.P_RULE] = players, win_length, int(rule)
    p[T.P_SELECT], p[T.P_CPUCT], p[T.P_FPU] = SELECT_RULES[select], c_puct, fpu
    p[T.P_RADIUS] = radius
    p[T.P_DRAW] = draw_value
    p[T.P_BARE] = 0.0 if tactics else 1.0
    return p


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


def choose_move(f, kids: np.ndarray, rng: np.random.Generator, temperature: float = 0.0,
                move_noise: float = 0.0, noise_alpha: float = 0.3, flat_mover: int = -1) -> int:
    """The root child to play, for play and self-play alike (so that what the nets learn from
    is what they play). `kids` are the root's children; f needs visits, solved and prior.

    - A move proven to win is played at once; among several, the most visited (then the
      first): any of them wins, and the search's visits say which line it was following.
    - A move proven lost is never played while another move is not (it counts as -1 visits,
      below every unproven move, and move noise skips it); when every move loses, none is set
      apart: at temperature 0 the most visited, the longest resistance the search found.
    - Otherwise the most visited move (ties, e.g. with few playouts: the higher prior, then
      the first), or with `temperature` > 0 a move drawn in proportion to visits^(1/t).
    - `move_noise` eps mixes Dirichlet(noise_alpha) into that distribution over the moves not
      lost by force, as the move-noise paper does (docs/references.md).
    - `flat_mover` >= 0 (flat Monte Carlo): the best mean for that seat, not the most tried."""
    solved = f.solved[kids]
    won = kids[solved == -1]
    if won.size:
        return int(won[np.argmax(f.visits[won])])
    if len(kids) == 1:
        return int(kids[0])
    v = f.visits[kids].astype(np.float64)
    lost = solved == 1
    if not lost.all():
        v[lost] = -1
    if flat_mover >= 0:
        tried = v > 0
        v = np.where(tried, f.wsum[kids, flat_mover] / np.maximum(f.visits[kids], 1) + 2.0, v)
    if (temperature <= 0 or v.max() <= 0) and move_noise <= 0:
        best = np.flatnonzero(v == v.max())
        return int(kids[best[np.argmax(f.prior[kids[best]])]])
    if temperature <= 0 or v.max() <= 0:
        best = np.flatnonzero(v == v.max())
        p = np.zeros(len(kids))
        p[best[np.argmax(f.prior[kids[best]])]] = 1.0
    else:
        w = np.where(v > 0, v, 0) ** (1.0 / temperature)
        p = w / w.sum()
    if move_noise > 0:
        ok = v >= 0
        noise = np.zeros(len(kids))
        noise[ok] = rng.dirichlet([noise_alpha] * int(ok.sum()))
        p = (1 - move_noise) * p + move_noise * noise
    return int(kids[rng.choice(len(kids), p=p / p.sum())])


class ForestSearch:
    """The tree search of play and of self-play: a forest of trees (one per game), searched
    together so that a net sees one batch for all of them, with root noise, tree reuse and the
    move choice. Play holds a forest of one tree (`MCTS`); self-play one tree per game.

    evaluator: a NetEvaluator, or None for random rollouts (pure MCTS)."""

    def __init__(self, width: int, height: int, rule: Rule | int, win_length: int, players: int,
                 config: MCTSConfig, evaluator, trees: int, nodes_per_tree: int, seed: int = 0,
                 rng: Optional[np.random.Generator] = None):
        config.check()
        if config.select == "flat" and evaluator is not None:
            raise ValueError("flat Monte Carlo uses rollouts, not a net")
        self.config = config
        self.width, self.height = int(width), int(height)
        self.rule, self.win_length, self.players = Rule(rule), int(win_length), int(players)
        self.evaluator = evaluator
        if evaluator is not None:
            evaluator.info.check_game(self.width, self.height, self.rule.label, self.win_length, self.players,
                                      allow_any_size=True, source=getattr(evaluator, "path", "net"))
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        self.forest = T.new_forest(self.width, self.height, self.players, trees, nodes_per_tree, seed=seed + 1)
        c = config
        self.params = search_params(self.width, self.height, self.players, self.win_length, self.rule,
                                    c.select, c.c_puct, c.fpu, c.radius, c.draw_value, c.tactics)
        self.scratch = T.new_scratch(self.forest)
        self.to_padded = flat_to_padded(self.width, self.height)
        self.noise = np.zeros(trees, bool)       # the root still wants its Dirichlet noise
        self.stuck = np.zeros(trees, bool)       # full, and compaction freed too little
        self._planes: Optional[np.ndarray] = None

    # -- positions ------------------------------------------------------------------------
    def set_position(self, g: int, moves: Sequence[int]) -> None:
        """Tree g's stones are `moves` (flat cells, seats in turn); the tree itself is untouched."""
        f = self.forest
        cells = new_cells(self.width, self.height, self.players)
        for i, m in enumerate(moves):
            cells[self.to_padded[m]] = 1 + i % self.players
        f.cells[g] = cells
        f.nstones[g] = len(moves)
        f.last[g, 0] = self.to_padded[moves[-1]] if len(moves) else -1
        f.last[g, 1] = self.to_padded[moves[-2]] if len(moves) > 1 else -1

    def place(self, g: int, cell: int) -> bool:
        """The mover's stone on `cell` in tree g's position; True when it wins. The root does
        not follow (see `advance`): an opening stone is placed before the tree is made."""
        f = self.forest
        pad = int(self.to_padded[cell])
        color = int(f.nstones[g]) % self.players + 1
        f.cells[g, pad] = color
        f.nstones[g] += 1
        f.last[g, 1] = f.last[g, 0]
        f.last[g, 0] = pad
        return bool(wins_at(f.cells[g], f.steps, pad, color, self.win_length, int(self.rule), self.players))

    def advance(self, g: int, cell: int) -> bool:
        """Move tree g's root to the child played on `cell`, keeping its subtree; a new tree
        when the child was never made. Returns whether the subtree was kept."""
        if T.advance_root(self.forest, g, self.to_padded[cell]):
            return True
        T.reset_tree(self.forest, g)
        return False

    def new_tree(self, g: int, noise: bool) -> None:
        T.reset_tree(self.forest, g)
        self.noise[g] = noise

    # -- search ---------------------------------------------------------------------------
    def run(self, trees: np.ndarray, targets: np.ndarray, deadline: Optional[float] = None,
            stop=None) -> tuple[int, int]:
        """Search each tree of `trees` until its root has `targets` visits (counting those kept
        from earlier searches) or is proven, or until the perf_counter `deadline` or
        `stop.is_set()` once every root has a visit. Returns (net evaluations, net batches)."""
        f = self.forest
        trees = np.asarray(trees, np.int64)
        targets = np.asarray(targets, np.int64)
        for g in trees:
            self.stuck[g] = False
            if f.used[g] > f.cap[g] // 2:
                T.compact(f, g)
        evals = batches = 0
        while True:
            roots = f.root[trees]
            need = (f.visits[roots] < targets) & (f.solved[roots] == 0) & ~self.stuck[trees]
            if not need.any():
                break
            late = (deadline is not None and time.perf_counter() >= deadline) or (stop is not None and stop.is_set())
            if late and (f.visits[roots] > 0).all():
                break
            live, left = trees[need], targets[need] - f.visits[roots[need]]
            if self.evaluator is None:
                for g, n in zip(live, left):
                    if T.run_rollout_playouts(f, g, self.params, min(256, int(n)), self.scratch) == 0:
                        self.stuck[g] = not self._make_room(g)
            else:
                n = self._net_step(live, min(self.config.batch, max(1, int(left.max()))))
                evals += n
                batches += 1 if n else 0
            for g in live:
                self._add_noise(g)
        return evals, batches

    def _make_room(self, g: int) -> bool:
        f = self.forest
        before = int(f.used[g])
        T.compact(f, g)
        return int(f.used[g]) < before * 0.9

    def _net_step(self, trees: np.ndarray, per_tree: int) -> int:
        """One net call for up to `per_tree` leaves of each tree; a tree too full for another
        expansion is compacted (and stops searching when that frees too little)."""
        f = self.forest
        want = per_tree * len(trees)
        if self._planes is None or self._planes.shape[0] < want:
            self._planes = np.zeros((want, plane_count(self.players), self.height, self.width), np.float32)
            self._leaf_tree = np.zeros(want, np.int64)
            self._leaf_depth = np.zeros(want, np.int64)
            self._paths = np.zeros((want, T.MAX_DEPTH), np.int64)
        count, _, full = T.collect_batch(f, trees, per_tree, self.params, self._planes[:want], self._leaf_tree,
                                         self._leaf_depth, self._paths, max(4, per_tree), self.scratch)
        if count:
            policy, value = self.evaluator.evaluate(self._planes[:count])
            T.apply_batch(f, self.params, count, self._leaf_tree, self._leaf_depth, self._paths, policy, value,
                          self.scratch)
        if full:
            area = self.width * self.height
            for g in trees:
                if f.used[g] + area > f.cap[g]:
                    self.stuck[g] = not self._make_room(g)
        return count

    def _add_noise(self, g: int) -> None:
        """Dirichlet noise on the root's priors, once its children exist (AlphaZero)."""
        f = self.forest
        root = int(f.root[g])
        if not self.noise[g] or f.first[root] < 0:
            return
        first, n = int(f.first[root]), int(f.nchild[root])
        if n > 1:
            noise = self.rng.dirichlet([self.config.dirichlet_alpha] * n).astype(np.float32)
            eps = self.config.dirichlet_eps
            f.prior[first:first + n] = (1 - eps) * f.prior[first:first + n] + eps * noise
        self.noise[g] = False

    # -- results --------------------------------------------------------------------------
    def root_children(self, g: int) -> np.ndarray:
        f = self.forest
        root = int(f.root[g])
        first, n = int(f.first[root]), int(f.nchild[root])
        if first < 0 or n == 0:
            raise RuntimeError("the root has no legal move")
        return np.arange(first, first + n)

    def result(self, g: int, temperature: Optional[float] = None, playouts: int = 0, evals: int = 0,
               batches: int = 0, elapsed: float = 0.0) -> SearchResult:
        """Tree g's root: the move `choose_move` picks (at the config's temperature unless
        given), the children's visits and the mover's value."""
        f, root = self.forest, int(self.forest.root[g])
        kids = self.root_children(g)
        mover = int(f.nstones[g]) % self.players
        c = self.config
        t = c.temperature if temperature is None else temperature
        pick = choose_move(f, kids, self.rng, t, c.move_noise, c.move_noise_alpha,
                           flat_mover=mover if c.select == "flat" else -1)
        visits = np.zeros(self.width * self.height, np.int32)
        visits[f.flat[f.move[kids]]] = f.visits[kids]
        solved = int(f.solved[root])
        value = float(solved) if solved else float(f.wsum[root, mover] / f.visits[root]) if f.visits[root] else 0.0
        return SearchResult(move=int(f.flat[f.move[pick]]), visits=visits, value=value, playouts=playouts,
                            proven=solved, evals=evals, batches=batches, time=elapsed, pv=self._pv(pick))

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


class MCTS:
    """A searcher for one player: sync it to the game's moves, then search. It owns its
    forest of one tree and its net evaluator, so two MCTS players in one process never share
    state.

    evaluator: a NetEvaluator, or None for random rollouts (pure MCTS)."""

    def __init__(self, width: int, height: int, rule: Rule | int = Rule.FREESTYLE, win_length: int = 5,
                 players: int = 2, config: Optional[MCTSConfig] = None, evaluator=None, seed: int = 0):
        config = config or (MCTSConfig() if evaluator is not None else MCTSConfig.pure())
        nodes = max(1024, config.tree_bytes // T.node_bytes(players))
        self.driver = ForestSearch(width, height, rule, win_length, players, config, evaluator, 1, nodes, seed)
        d = self.driver
        self.config, self.evaluator = d.config, d.evaluator
        self.width, self.height, self.rule, self.win_length, self.players = \
            d.width, d.height, d.rule, d.win_length, d.players
        self.forest, self.params, self.scratch, self.to_padded, self.rng = \
            d.forest, d.params, d.scratch, d.to_padded, d.rng
        self.moves: list[int] = []          # the root position's moves (flat cells)

    def sync(self, moves: Sequence[int]) -> None:
        """Point the root at the position after `moves` (flat cells), keeping what the tree
        knows: forward along played moves, back along takebacks, anew otherwise (and always
        anew without tactics, as mcts_pure's player does)."""
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
        self.driver.set_position(g, moves)
        if not ok or not self.config.tactics:
            T.reset_tree(f, g)
        self.moves = moves
        self.driver.noise[g] = self.config.dirichlet_alpha > 0

    def search(self, playouts: Optional[int] = None, deadline: Optional[float] = None,
               stop=None) -> SearchResult:
        """Search the root position until `playouts` (counting the visits kept from earlier
        searches), the perf_counter `deadline`, `stop.is_set()`, or a proven root. Time is
        polled between batches; a batch of net leaves takes milliseconds."""
        t0 = time.perf_counter()
        f = self.forest
        target = self.config.playouts if playouts is None else int(playouts)
        start_visits = int(f.visits[f.root[0]])
        evals, batches = self.driver.run(np.zeros(1, np.int64), np.array([target]), deadline, stop)
        return self.driver.result(0, playouts=int(f.visits[f.root[0]]) - start_visits, evals=evals,
                                  batches=batches, elapsed=time.perf_counter() - t0)


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
