"""Self-play: many games searched together, one net call per step for all of them.

A single game gives the net batches of one tree's leaves, which virtual loss keeps small and
biased; G games each contribute a leaf or two per step, so the net sees batches of G and the
trees stay accurate. Each game owns one tree of a shared forest and reuses it move to move.

What a game records is what AlphaZero trains on: the moves, the root visit shares of every
searched move (only the full searches under playout cap randomisation), and the winner.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..game.rules import Rule
from . import tree as T
from ..game.cells import flat_to_padded, new_cells, wins_at
from .search import SELECT_RULES, search_params


@dataclass
class SelfPlayConfig:
    """Search and game settings of self-play (AlphaZero / KataGo conventions)."""
    width: int
    height: int
    rule: Rule | int = Rule.FREESTYLE
    win_length: int = 5
    players: int = 2
    playouts: int = 400
    c_puct: float = 2.5
    fpu: float = 0.25
    select: str = "puct"
    radius: int = 0
    dirichlet_alpha: float = 0.0          # 0: 10 / (cells on the board), AlphaZero's scaling
    dirichlet_eps: float = 0.25
    move_noise: float = 0.0               # eps of Dirichlet(alpha()) mixed into the move distribution; 0 off
    temperature_moves: int = 0            # 0: a sixth of the board's cells; then the most visited
    opening_stones: int = 0               # each game starts from 0..this many random stones near the centre
    draw_value: float = 0.0               # what the search counts a draw as, for every seat (below 0: contempt)
    full_search_prob: float = 1.0         # playout cap randomisation: share of full searches
    cheap_playouts: int = 0               # playouts of the other moves (0: a fifth of `playouts`)
    resign_threshold: float = 0.0         # resign when the mover's value is below -threshold; 0 off
    no_resign_share: float = 0.1          # games that never resign, to check the threshold
    parallel_games: int = 32
    leaves_per_tree: int = 2
    tree_bytes: int = 256 << 20           # all trees together

    def alpha(self) -> float:
        return self.dirichlet_alpha or 10.0 / (self.width * self.height)

    def temp_moves(self) -> int:
        return self.temperature_moves or max(2, self.width * self.height // 6)

    def cheap(self) -> int:
        return self.cheap_playouts or max(8, self.playouts // 5)


@dataclass
class SelfPlayGame:
    """One finished game. Cells are flat (y * width + x); seats move in turn from 0."""
    width: int
    height: int
    rule: int
    win_length: int
    players: int
    moves: np.ndarray           # int32[T]
    policy: np.ndarray          # float32[T, H * W]: root visit shares (zeros where not recorded)
    recorded: np.ndarray        # bool[T]: a full search, to train on
    winner: int                 # seat, or -1 for a draw
    resigned: bool = False
    would_resign: int = -1      # never-resign games: the first seat whose value crossed the threshold
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # mover's root value


class _Game:
    __slots__ = ("moves", "policy", "recorded", "values", "no_resign", "would_resign", "target", "noised")

    def __init__(self, no_resign: bool):
        self.moves: list[int] = []
        self.policy: list[np.ndarray] = []
        self.recorded: list[bool] = []
        self.values: list[float] = []
        self.no_resign = no_resign
        self.would_resign = -1
        self.target = 0
        self.noised = False


def play_games(evaluator, config: SelfPlayConfig, n_games: int, seed: int = 0,
               progress: Optional[Callable[[int, int], None]] = None) -> list[SelfPlayGame]:
    """Play `n_games` games of the net (or, with evaluator None, of rollout MCTS) against
    itself. progress(games_done, moves_played) is called as games finish."""
    cfg = config
    if cfg.select not in SELECT_RULES:
        raise ValueError(f"unknown selection rule {cfg.select!r}")
    if evaluator is not None:
        evaluator.info.check_game(cfg.width, cfg.height, Rule(cfg.rule).label, cfg.win_length, cfg.players,
                                  allow_any_size=True, source=getattr(evaluator, "path", "net"))
    rng = np.random.default_rng(seed)
    parallel = max(1, min(cfg.parallel_games, n_games))
    nodes = max(4096, cfg.tree_bytes // T.node_bytes(cfg.players) // parallel)
    f = T.new_forest(cfg.width, cfg.height, cfg.players, parallel, nodes, seed=seed + 1)
    prm = search_params(cfg.width, cfg.height, cfg.players, cfg.win_length, cfg.rule, cfg.select, cfg.c_puct,
                        cfg.fpu, cfg.radius, cfg.draw_value)
    sc = T.new_scratch(f)
    to_padded = flat_to_padded(cfg.width, cfg.height)
    area = cfg.width * cfg.height
    empty = new_cells(cfg.width, cfg.height, cfg.players)
    centre = central_cells(cfg.width, cfg.height, 2)
    slots: list[Optional[_Game]] = [None] * parallel
    started = finished = moves_played = 0
    out: list[SelfPlayGame] = []
    per = max(1, cfg.leaves_per_tree)
    planes = np.zeros((parallel * per, cfg.players + 4, cfg.height, cfg.width), np.float32)
    leaf_tree = np.zeros(parallel * per, np.int64)
    leaf_depth = np.zeros(parallel * per, np.int64)
    paths = np.zeros((parallel * per, T.MAX_DEPTH), np.int64)

    def start(g: int) -> Optional[_Game]:
        nonlocal started
        if started >= n_games:
            return None
        started += 1
        f.cells[g] = empty
        f.nstones[g] = 0
        f.last[g] = -1
        game = _Game(no_resign=bool(rng.random() < cfg.no_resign_share))
        if cfg.opening_stones > 0:
            _place_opening(g, game, int(rng.integers(0, cfg.opening_stones + 1)))
        T.reset_tree(f, g)
        _set_target(game)
        return game

    def _place_opening(g: int, game: _Game, stones: int) -> None:
        """Random stones in the central 5x5 square, seats in turn, not trained on: self-play from
        the empty board repeats a few lines and, once the net blocks well, ends mostly in draws;
        random openings give it unbalanced positions that one side should convert."""
        for _ in range(stones):
            free = [c for c in centre if f.cells[g, to_padded[c]] == 0]
            if not free:
                return
            cell = int(free[int(rng.integers(0, len(free)))])
            pad = int(to_padded[cell])
            seat = len(game.moves) % cfg.players
            f.cells[g, pad] = seat + 1
            if wins_at(f.cells[g], f.steps, pad, seat + 1, cfg.win_length, int(cfg.rule), cfg.players):
                f.cells[g, pad] = 0            # an opening never decides the game
                return
            f.nstones[g] += 1
            f.last[g, 1] = f.last[g, 0]
            f.last[g, 0] = pad
            game.moves.append(cell)
            game.policy.append(np.zeros(area, np.float32))
            game.recorded.append(False)
            game.values.append(0.0)

    def _set_target(game: _Game) -> None:
        full = cfg.full_search_prob >= 1.0 or rng.random() < cfg.full_search_prob
        game.target = cfg.playouts if full else min(cfg.playouts, cfg.cheap())
        game.noised = not full            # noise only on searches that are recorded

    for g in range(parallel):
        slots[g] = start(g)

    while any(s is not None for s in slots):
        active = np.array([g for g, s in enumerate(slots) if s is not None], np.int64)
        # 1. search: one batch over every tree that still needs playouts
        needy = np.array([g for g in active if f.visits[f.root[g]] < slots[g].target
                          and f.solved[f.root[g]] == 0], np.int64)
        if needy.size:
            if evaluator is None:
                for g in needy:
                    if T.run_rollout_playouts(f, g, prm, min(64, slots[g].target - int(f.visits[f.root[g]])), sc) == 0:
                        T.compact(f, g)
            else:
                count, _, full = T.collect_batch(f, needy, per, prm, planes, leaf_tree, leaf_depth, paths, 4 * per,
                                                 sc)
                if count:
                    pol, val = evaluator.evaluate(planes[:count])
                    T.apply_batch(f, prm, count, leaf_tree, leaf_depth, paths, pol, val, sc)
                if full:
                    for g in needy:
                        if f.used[g] > f.cap[g] * 0.9:
                            T.compact(f, g)
            for g in needy:
                game = slots[g]
                root = f.root[g]
                if not game.noised and f.first[root] >= 0 and f.nchild[root] > 1:
                    first, n = int(f.first[root]), int(f.nchild[root])
                    noise = rng.dirichlet([cfg.alpha()] * n).astype(np.float32)
                    f.prior[first:first + n] = (1 - cfg.dirichlet_eps) * f.prior[first:first + n] \
                        + cfg.dirichlet_eps * noise
                    game.noised = True
            continue_search = any(f.visits[f.root[g]] < slots[g].target and f.solved[f.root[g]] == 0
                                  for g in needy)
            if continue_search:
                continue
        # 2. move in every game whose search is done
        for g in active:
            game = slots[g]
            root = int(f.root[g])
            if f.visits[root] < game.target and f.solved[root] == 0:
                continue
            mover = len(game.moves) % cfg.players
            first, n = int(f.first[root]), int(f.nchild[root])
            kids = np.arange(first, first + n)
            vis = f.visits[kids].astype(np.float64)
            value = float(f.wsum[root, mover] / max(1, f.visits[root]))
            if f.solved[root] != 0:
                value = float(f.solved[root])
            pick = _pick(f, kids, vis, len(game.moves) < cfg.temp_moves(), rng, cfg.move_noise, cfg.alpha())
            dist = _target(f, kids, vis, pick, area)
            resign = False
            if cfg.resign_threshold > 0 and cfg.players == 2 and value < -cfg.resign_threshold:
                if game.no_resign:
                    if game.would_resign < 0:
                        game.would_resign = mover
                else:
                    resign = True
            if not resign:
                game.policy.append(dist)
                game.recorded.append(game.target == cfg.playouts)
                game.values.append(value)
            if resign:
                out.append(_finish(cfg, game, winner=(mover + 1) % cfg.players, resigned=True))
            else:
                cell = int(f.flat[f.move[pick]])
                pad = int(to_padded[cell])
                game.moves.append(cell)
                moves_played += 1
                f.cells[g, pad] = mover + 1
                f.nstones[g] += 1
                f.last[g, 1] = f.last[g, 0]
                f.last[g, 0] = pad
                if wins_at(f.cells[g], f.steps, pad, mover + 1, cfg.win_length, int(cfg.rule), cfg.players):
                    out.append(_finish(cfg, game, winner=mover))
                elif len(game.moves) >= area:
                    out.append(_finish(cfg, game, winner=-1))
                else:
                    if not T.advance_root(f, g, pad):
                        T.reset_tree(f, g)
                    elif f.used[g] > f.cap[g] // 2:
                        T.compact(f, g)
                    _set_target(game)
                    continue
            finished += 1
            if progress is not None:
                progress(finished, moves_played)
            slots[g] = start(g)
    return out


def central_cells(width: int, height: int, radius: int) -> np.ndarray:
    """Flat cells at most `radius` from the centre (width // 2, height // 2) on both axes."""
    cx, cy = width // 2, height // 2
    return np.array([y * width + x for y in range(max(0, cy - radius), min(height, cy + radius + 1))
                     for x in range(max(0, cx - radius), min(width, cx + radius + 1))], np.int64)


def _target(f, kids: np.ndarray, vis: np.ndarray, pick: int, area: int) -> np.ndarray:
    """The policy target of a searched move: the root's visit shares, unless every visited move
    is lost by force while another is not; then the move played (the visits point only at
    losses). A move picked by --move-noise does not change the target."""
    dist = np.zeros(area, np.float32)
    lost = f.solved[kids] == 1
    if vis.sum() > 0 and (lost.all() or vis[~lost].sum() > 0):
        dist[f.flat[f.move[kids]]] = vis / vis.sum()
    else:
        dist[f.flat[f.move[pick]]] = 1.0
    return dist


def _pick(f, kids: np.ndarray, vis: np.ndarray, explore: bool, rng: np.random.Generator,
          move_noise: float = 0.0, alpha: float = 0.3) -> int:
    """The move to play: a forced win, else visits (proportional while `explore`, else the
    most). move_noise > 0 mixes Dirichlet(alpha) into those probabilities, as seed 000 does,
    over the moves not lost by force."""
    won = kids[f.solved[kids] == -1]
    if won.size:
        return int(won[0])
    v = vis.copy()
    lost = f.solved[kids] == 1
    prior = f.prior[kids].astype(np.float64)
    if not lost.all():
        v[lost] = 0
        prior[lost] = -1.0
    if move_noise <= 0:
        if v.sum() <= 0:            # nothing visited survives: the likeliest move not lost by force
            return int(kids[np.argmax(prior)])
        if explore:
            return int(kids[rng.choice(len(kids), p=v / v.sum())])
        return int(kids[np.argmax(v)])
    p = np.zeros(len(kids))
    if v.sum() <= 0:
        p[np.argmax(prior)] = 1.0
    elif explore:
        p = v / v.sum()
    else:
        p[np.argmax(v)] = 1.0
    ok = ~lost if not lost.all() else np.ones(len(kids), bool)
    noise = np.zeros(len(kids))
    noise[ok] = rng.dirichlet([alpha] * int(ok.sum()))
    p = (1 - move_noise) * p + move_noise * noise
    return int(kids[rng.choice(len(kids), p=p / p.sum())])


def _finish(cfg: SelfPlayConfig, game: _Game, winner: int, resigned: bool = False) -> SelfPlayGame:
    t = len(game.policy)
    return SelfPlayGame(width=cfg.width, height=cfg.height, rule=int(cfg.rule), win_length=cfg.win_length,
                        players=cfg.players, moves=np.array(game.moves, np.int32),
                        policy=np.array(game.policy, np.float32).reshape(t, cfg.width * cfg.height),
                        recorded=np.array(game.recorded, bool), winner=winner, resigned=resigned,
                        would_resign=game.would_resign, values=np.array(game.values, np.float32))
