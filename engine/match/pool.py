"""The players of one playing process, kept between games: in the match's own process, or in
each worker process of a parallel match (spawn context). Each worker creates its own players
from the spec strings, keeps them for later games (a brain gets START again, as c-gomoku-cli
does) and replaces one that crashed or timed out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.games import BLACK, COLOUR, WHITE, GameResult, GameSettings, other_colour, play_game
from gomoku.engine.match.openings import Opening
from gomoku.engine.match.players import Player, PlayerError, PlayerSpec, parse_spec

PlayerLike = Union[str, PlayerSpec, Player]


@dataclass(frozen=True)
class GameJob:
    index: int
    opening: Opening
    a_is_black: bool
    seed: int


class PlayerPool:
    """Players of one process, created on first use from their specs and reused; replaced
    after a crash or time forfeit so the next game starts with a fresh process."""

    def __init__(self, a: PlayerLike, b: PlayerLike, game: GameSettings) -> None:
        self.sources = {"A": a, "B": b}
        self.specs = {k: (parse_spec(v) if isinstance(v, str) else v if isinstance(v, PlayerSpec) else None)
                      for k, v in self.sources.items()}
        self.game = game
        self.players: dict[str, Player] = {}
        for k, v in self.sources.items():
            if not isinstance(v, (str, PlayerSpec)):
                self.players[k] = v  # a Player object given by the caller (in-process only)

    def get(self, key: str) -> Player:
        p = self.players.get(key)
        if p is None:
            spec = self.specs[key]
            assert spec is not None
            p = self.game.factory(spec, tolerance=self.game.tolerance, start_timeout=self.game.start_timeout,
                                  info=self.game.brain_info, win_length=self.game.win_length)
            self.players[key] = p
            if spec.kind != "brain":
                _warm_up(p, self.game)
        return p

    def limit(self, key: str) -> Limit:
        spec = self.specs[key]
        base = self.game.base_limit()
        return spec.limit_for(base) if spec is not None else base

    def drop(self, key: str) -> None:
        p = self.players.get(key)
        if p is not None and self.specs[key] is not None:
            try:
                p.close()
            finally:
                del self.players[key]

    def close(self) -> None:
        for key in list(self.players):
            if self.specs[key] is not None:   # caller-owned players are the caller's to close
                self.drop(key)

    def play(self, job: GameJob) -> GameResult:
        roles = ("A", "B") if job.a_is_black else ("B", "A")
        got: dict[str, Player] = {}
        for i, key in enumerate(roles):
            try:
                got[key] = self.get(key)
            except PlayerError as exc:
                # a brain that no longer starts loses this game; the match goes on
                colour = BLACK if i == 0 else WHITE
                return GameResult(job.index, "", "", other_colour(colour), "crash",
                                  f"{COLOUR[other_colour(colour)]} wins, {COLOUR[colour].lower()} failed to start: {exc}",
                                  list(job.opening), [0.0] * len(job.opening), job.opening, job.a_is_black,
                                  self.game.width, self.game.board_height, self.game.rule)
        for key in roles:
            reseed = getattr(got[key], "reseed", None)
            if callable(reseed):
                reseed(job.seed * 2 + (key == "B"))
        res = play_game(got[roles[0]], got[roles[1]], self.game, job.opening,
                        (self.limit(roles[0]), self.limit(roles[1])), job.index)
        res.a_is_black = job.a_is_black
        for key in roles:
            # a dead brain (crashed, or killed at its time limit) is replaced next game
            if res.reason == "crash" or getattr(got[key], "alive", True) is False:
                self.drop(key)
        return res


def _warm_up(p: Player, game: GameSettings) -> None:
    """One short untimed search before the first game, so loading numba caches (search and
    threat solver functions load on first use) or an ONNX session is not charged to the
    first timed move of the match."""
    try:
        w, h, rule = game.width, game.board_height, Rule(game.rule)
        p.new_game(w, h, rule)
        cx, cy = w // 2, h // 2
        board = Board.from_moves(w, [(cx, cy), (cx, cy - 1), (cx + 1, cy + 1)], rule=rule, height=h)
        p.play(board, Limit(turn_time=0.2, nodes=game.nodes, depth=min(game.depth or 4, 4),
                            playouts=min(game.playouts or 64, 64)))
    except Exception:
        pass   # a broken player shows itself in its first real game, where it is judged


_WORKER: Optional[PlayerPool] = None


def worker_init(a: str, b: str, game: GameSettings) -> None:
    global _WORKER
    import signal
    from multiprocessing import util
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    _WORKER = PlayerPool(a, b, game)
    # worker processes leave through os._exit: multiprocessing finalizers run, atexit does not
    util.Finalize(None, _WORKER.close, exitpriority=100)


def worker_play(job: GameJob) -> GameResult:
    assert _WORKER is not None
    return _WORKER.play(job)


_PAIRED: Optional[tuple[str, str, PlayerPool]] = None


def any_worker_init() -> None:
    """A worker that plays games between any two specs (`play_specs`): Ctrl-C is the parent's."""
    import signal
    from multiprocessing import util
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    util.Finalize(None, _close_paired, exitpriority=100)


def _close_paired() -> None:
    global _PAIRED
    if _PAIRED is not None:
        _PAIRED[2].close()
        _PAIRED = None


def play_specs(a: str, b: str, game: GameSettings, job: GameJob) -> GameResult:
    """One game of `a` against `b` in a worker. A tuner's players change every few games, so
    the pool is kept only while the same two play (both games of a pair, the next pair)."""
    global _PAIRED
    if _PAIRED is None or _PAIRED[:2] != (a, b):
        _close_paired()
        _PAIRED = (a, b, PlayerPool(a, b, game))
    return _PAIRED[2].play(job)
