"""A match's games on Ray actors (`gomoku match --ray local|ADDRESS`).

Each actor is what a local worker process is (engine.match.pool): it keeps the two players
made from their specs and plays the games it is sent; the results come back to the driver,
which records and reports them exactly as for local workers, SPRT included. `play` returns a
concurrent.futures.Future, so the arena's loop does not know which of the two it drives: the
arena never imports this module (the engine never needs Ray); `gomoku match --ray` hands it
`ray_runner(address)` as MatchSettings.runner.
A cluster's nodes need the same gomoku installed (and any brain a spec names); nothing is
written on them.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Callable

from gomoku.engine.match.games import GameResult, GameSettings
from gomoku.engine.match.pool import GameJob, PlayerPool


class GameActor:
    """One seat of the cluster: the players of one process, kept between games."""

    def __init__(self, a: str, b: str, game: GameSettings) -> None:
        self.pool = PlayerPool(a, b, game)

    def play(self, job: GameJob) -> GameResult:
        return self.pool.play(job)

    def close(self) -> None:
        self.pool.close()


class RayGames:
    """`workers` actors of one CPU each (0: every CPU of the cluster). Games go to the actor with
    the fewest in flight, so a game sent while another is finishing waits behind it."""

    def __init__(self, ray: Any, owned: bool, workers: int, a: str, b: str, game: GameSettings) -> None:
        from .raycluster import cluster_cpus
        self._ray, self._owned = ray, owned
        self.workers = workers or cluster_cpus(self._ray)
        actor = self._ray.remote(num_cpus=1)(GameActor)
        self._actors = [actor.remote(a, b, game) for _ in range(self.workers)]
        self._busy = [0] * self.workers
        self._lock = threading.Lock()

    def play(self, job: GameJob) -> "Future[GameResult]":
        with self._lock:
            i = min(range(self.workers), key=self._busy.__getitem__)
            self._busy[i] += 1
        fut: Future[GameResult] = self._actors[i].play.remote(job).future()

        def free(_: Any, i: int = i) -> None:
            with self._lock:
                self._busy[i] -= 1
        fut.add_done_callback(free)
        return fut

    def close(self, kill: bool = False) -> None:
        """Ends the actors (at once with `kill`: a game in flight is dropped, as the local pool
        drops it) and the Ray instance this match started."""
        ray, self._ray = self._ray, None
        if ray is None:
            return
        if not kill:
            ray.get([a.close.remote() for a in self._actors])
        if self._owned:
            ray.shutdown()
            return
        for a in self._actors:
            try:
                ray.kill(a)
            except Exception:
                pass


def ray_runner(address: str, workers: int) -> Callable[[int, str, str, GameSettings], RayGames]:
    """The arena's games runner for `address` ('local': a new instance of `workers` CPUs, every
    core for 0): (workers, spec a, spec b, game) -> RayGames. Ray starts (or is joined) here,
    before any game, so a cluster that cannot be reached is one line (RayStartError) at once."""
    import os

    from .raycluster import start
    ray, owned = start(address, workers or (os.cpu_count() or 1))

    def make(workers: int, a: str, b: str, game: GameSettings) -> RayGames:
        return RayGames(ray, owned, workers, a, b, game)
    return make


__all__ = ["RayGames", "GameActor", "ray_runner"]
