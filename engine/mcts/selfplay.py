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
from .search import ForestSearch, MCTSConfig


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
    __slots__ = ("moves", "policy", "recorded", "values", "no_resign", "would_resign", "full")

    def __init__(self, no_resign: bool):
        self.moves: list[int] = []
        self.policy: list[np.ndarray] = []
        self.recorded: list[bool] = []
        self.values: list[float] = []
        self.no_resign = no_resign
        self.would_resign = -1
        self.full = True                 # this move's search is a full one (recorded, noised)


def play_games(evaluator, config: SelfPlayConfig, n_games: int, seed: int = 0,
               progress: Optional[Callable[[int, int], None]] = None) -> list[SelfPlayGame]:
    """Play `n_games` games of the net (or, with evaluator None, of rollout MCTS) against
    itself. progress(games_done, moves_played) is called as games finish."""
    run = _SelfPlay(evaluator, config, n_games, seed)
    out: list[SelfPlayGame] = []
    while (active := run.active()).size:
        run.search.run(active, run.targets[active])
        for g in active:
            done = run.move(int(g))
            if done is not None:
                out.append(done)
                if progress is not None:
                    progress(len(out), run.moves_played)
    return out


def search_config(cfg: SelfPlayConfig) -> MCTSConfig:
    """The play search's settings for self-play: root noise and move noise at `alpha()`, and
    `leaves_per_tree` leaves of every game's tree in each net call."""
    return MCTSConfig(playouts=cfg.playouts, c_puct=cfg.c_puct, select=cfg.select, fpu=cfg.fpu,
                      batch=max(1, cfg.leaves_per_tree), radius=cfg.radius, dirichlet_alpha=cfg.alpha(),
                      dirichlet_eps=cfg.dirichlet_eps, move_noise=cfg.move_noise, move_noise_alpha=cfg.alpha(),
                      draw_value=cfg.draw_value, tree_bytes=cfg.tree_bytes)


class _SelfPlay:
    """The games in flight: one slot (and one tree of the shared forest) each."""

    def __init__(self, evaluator, cfg: SelfPlayConfig, n_games: int, seed: int):
        self.cfg, self.n_games = cfg, n_games
        self.rng = np.random.default_rng(seed)
        parallel = max(1, min(cfg.parallel_games, n_games))
        nodes = max(4096, cfg.tree_bytes // T.node_bytes(cfg.players) // parallel)
        self.search = ForestSearch(cfg.width, cfg.height, cfg.rule, cfg.win_length, cfg.players,
                                   search_config(cfg), evaluator, parallel, nodes, seed=seed, rng=self.rng)
        self.centre = central_cells(cfg.width, cfg.height, 2)
        self.targets = np.zeros(parallel, np.int64)
        self.started = self.moves_played = 0
        self.slots: list[Optional[_Game]] = [self._start(g) for g in range(parallel)]

    def active(self) -> np.ndarray:
        return np.array([g for g, s in enumerate(self.slots) if s is not None], np.int64)

    def _start(self, g: int) -> Optional[_Game]:
        if self.started >= self.n_games:
            return None
        self.started += 1
        self.search.set_position(g, [])
        game = _Game(no_resign=bool(self.rng.random() < self.cfg.no_resign_share))
        if self.cfg.opening_stones > 0:
            self._place_opening(g, game, int(self.rng.integers(0, self.cfg.opening_stones + 1)))
        self._new_search(g, game, keep=False)
        return game

    def _place_opening(self, g: int, game: _Game, stones: int) -> None:
        """Random stones in the central 5x5 square, seats in turn, not trained on: self-play from
        the empty board repeats a few lines and, once the net blocks well, ends mostly in draws;
        random openings give it unbalanced positions that one side should convert."""
        f, area = self.search.forest, self.cfg.width * self.cfg.height
        for _ in range(stones):
            free = [c for c in self.centre if f.cells[g, self.search.to_padded[c]] == 0]
            if not free:
                return
            cell = int(free[int(self.rng.integers(0, len(free)))])
            if self.search.place(g, cell):
                self.search.set_position(g, game.moves)       # an opening never decides the game
                return
            game.moves.append(cell)
            game.policy.append(np.zeros(area, np.float32))
            game.recorded.append(False)
            game.values.append(0.0)

    def _new_search(self, g: int, game: _Game, keep: bool) -> None:
        """Playout cap randomisation: a full search (recorded, with root noise) or a cheap one."""
        cfg = self.cfg
        game.full = cfg.full_search_prob >= 1.0 or self.rng.random() < cfg.full_search_prob
        self.targets[g] = cfg.playouts if game.full else min(cfg.playouts, cfg.cheap())
        if not keep:
            self.search.new_tree(g, game.full)
        self.search.noise[g] = game.full

    def _game(self, g: int) -> _Game:
        """Tree g's game; only a tree that is playing one is moved or ended."""
        game = self.slots[g]
        assert game is not None
        return game

    def move(self, g: int) -> Optional[SelfPlayGame]:
        """Play tree g's searched move (or resign); the finished game, if this ended it."""
        cfg, game, f = self.cfg, self._game(g), self.search.forest
        mover = len(game.moves) % cfg.players
        explore = len(game.moves) < cfg.temp_moves()
        res = self.search.result(g, temperature=1.0 if explore else 0.0)
        if cfg.resign_threshold > 0 and cfg.players == 2 and res.value < -cfg.resign_threshold:
            if not game.no_resign:
                return self._end(g, winner=(mover + 1) % cfg.players, resigned=True)
            if game.would_resign < 0:
                game.would_resign = mover
        kids = self.search.root_children(g)
        game.policy.append(_target(f, kids, f.visits[kids].astype(np.float64), res.move, cfg.width * cfg.height))
        game.recorded.append(bool(self.targets[g] == cfg.playouts))
        game.values.append(res.value)
        game.moves.append(res.move)
        self.moves_played += 1
        if self.search.place(g, res.move):
            return self._end(g, winner=mover)
        if len(game.moves) >= cfg.width * cfg.height:
            return self._end(g, winner=-1)
        self._new_search(g, game, keep=self.search.advance(g, res.move))
        return None

    def _end(self, g: int, winner: int, resigned: bool = False) -> SelfPlayGame:
        done = _finish(self.cfg, self._game(g), winner, resigned)
        self.slots[g] = self._start(g)
        return done


def central_cells(width: int, height: int, radius: int) -> np.ndarray:
    """Flat cells at most `radius` from the centre (width // 2, height // 2) on both axes."""
    cx, cy = width // 2, height // 2
    return np.array([y * width + x for y in range(max(0, cy - radius), min(height, cy + radius + 1))
                     for x in range(max(0, cx - radius), min(width, cx + radius + 1))], np.int64)


def _target(f, kids: np.ndarray, vis: np.ndarray, cell: int, area: int) -> np.ndarray:
    """The policy target of a searched move: the root's visit shares, unless every visited move
    is lost by force while another is not; then the move played (the visits point only at
    losses). A move picked by --move-noise does not change the target."""
    dist = np.zeros(area, np.float32)
    lost = f.solved[kids] == 1
    if vis.sum() > 0 and (lost.all() or vis[~lost].sum() > 0):
        dist[f.flat[f.move[kids]]] = vis / vis.sum()
    else:
        dist[cell] = 1.0
    return dist


def _finish(cfg: SelfPlayConfig, game: _Game, winner: int, resigned: bool = False) -> SelfPlayGame:
    t = len(game.policy)
    return SelfPlayGame(width=cfg.width, height=cfg.height, rule=int(cfg.rule), win_length=cfg.win_length,
                        players=cfg.players, moves=np.array(game.moves, np.int32),
                        policy=np.array(game.policy, np.float32).reshape(t, cfg.width * cfg.height),
                        recorded=np.array(game.recorded, bool), winner=winner, resigned=resigned,
                        would_resign=game.would_resign, values=np.array(game.values, np.float32))
