"""Self-play worker processes: each plays whole chunks of games and returns them to the driver.

One process per core by default (onnxruntime with one thread each beats one process with
many threads on small nets, and the numba search is single-threaded). A chunk is many games
searched together by the engine's `play_games`, so the net sees one batch per step for all of
them. The driver writes each returned chunk as one shard; a chunk's games exist on disk
entirely or not at all. This module must not import torch: it is what workers load.
"""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

from gomoku.engine.base.processes import KillablePool

from .games import TrainingGame, from_selfplay


@dataclass(frozen=True)
class ChunkJob:
    """One chunk: `games` games of `source` ('selfplay', 'classical' or 'learned') with their own seed.

    selfplay: `net` is the ONNX file to search with (None: pure rollout MCTS), `config` the
    keyword arguments of the engine's SelfPlayConfig. classical: `config` has nodes etc.
    learned: the alpha-beta as classical, scoring its leaves with the evaluator file `net`."""
    name: str
    source: str
    games: int
    seed: int
    width: int
    height: int
    rule: str
    net: Optional[str]
    config: dict[str, Any]
    device: str = "cpu"


_EVALUATORS: dict[str, Any] = {}
_PROGRESS: Any = None


def _providers(device: str) -> list[str]:
    """--device cuda evaluates on the GPU where onnxruntime has its CUDA provider; a CPU build of
    onnxruntime (the GPU machine's image has one) plays on the CPU without a warning per worker."""
    if device == "cuda":
        from gomoku.engine.net.evaluator import default_providers
        return default_providers()
    return ["CPUExecutionProvider"]


def _evaluator(path: str, device: str) -> Any:
    from gomoku.engine.net.evaluator import NetEvaluator
    key = f"{path}@{device}@{os.path.getmtime(path)}"
    if key not in _EVALUATORS:
        _EVALUATORS.clear()               # one net at a time per worker
        _EVALUATORS[key] = NetEvaluator.load(path, threads=1, providers=_providers(device))
    return _EVALUATORS[key]


def run_chunk(job: ChunkJob, progress: Optional[Callable[[int, int], None]] = None,
              evaluator: Any = None) -> list[TrainingGame]:
    """Play one chunk (in whatever process calls it). `evaluator`: the loaded net to search with
    instead of loading `job.net` (a Ray actor gets the net's bytes, not a path it can read)."""
    if progress is None and _PROGRESS is not None:
        queue = _PROGRESS
        progress = lambda done, moves: queue.put((job.name, done, moves))   # noqa: E731
    if job.source in ("classical", "learned"):
        from .bootstrap import play_classical_games
        return play_classical_games(job.width, job.height, job.rule, job.games, job.seed, progress=progress,
                                    evaluator=job.net if job.source == "learned" else None, **job.config)
    from gomoku.engine.mcts.selfplay import SelfPlayConfig, play_games
    from gomoku.engine.game.rules import parse_rule
    cfg = SelfPlayConfig(width=job.width, height=job.height, rule=parse_rule(job.rule), **job.config)
    if evaluator is None and job.net:
        evaluator = _evaluator(job.net, job.device)
    return [from_selfplay(g) for g in play_games(evaluator, cfg, job.games, seed=job.seed, progress=progress)]


def _init_worker(queue: Any) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the driver's to handle
    global _PROGRESS
    _PROGRESS = queue
    _exit_with_parent(os.getppid())


def _exit_with_parent(parent: int, every: float = 1.0) -> None:
    """A driver killed with SIGKILL (or SIGTERM from a shell that ignores it) leaves its pool's
    processes waiting on their queue forever, each holding a net and spinning a little; a
    daemon thread ends the worker once its parent is gone."""
    import threading
    import time

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class WorkerPool:
    """`workers` spawn processes (workers <= 1: chunks run in the calling process).

    run(jobs) yields (job, games) as chunks finish, in completion order; `progress` messages
    (chunk name, games done, moves) arrive through `poll()`."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, int(workers))
        self._ctx = mp.get_context("spawn")
        self.queue = self._ctx.Queue() if self.workers > 1 else None
        self._ex: Optional[KillablePool] = None
        self._local: list[tuple[str, int, int]] = []

    def _executor(self) -> KillablePool:
        if self._ex is None:
            self._ex = KillablePool(self.workers, mp_context=self._ctx, initializer=_init_worker,
                                    initargs=(self.queue,))
        return self._ex

    def poll(self) -> list[tuple[str, int, int]]:
        out, self._local = self._local, []
        if self.queue is not None:
            while True:
                try:
                    out.append(self.queue.get_nowait())
                except Exception:
                    break
        return out

    def run(self, jobs: list[ChunkJob], tick: Optional[Callable[[], None]] = None
            ) -> Iterator[tuple[ChunkJob, list[TrainingGame]]]:
        if self.workers <= 1:
            for job in jobs:
                def local(done: int, moves: int, name: str = job.name) -> None:
                    self._local.append((name, done, moves))
                    if tick is not None:
                        tick()
                yield job, run_chunk(job, local)
            return
        ex = self._executor()
        todo = list(reversed(jobs))
        pending: dict[Future, ChunkJob] = {}
        while todo or pending:
            while todo and len(pending) < self.workers:
                job = todo.pop()
                pending[ex.submit(run_chunk, job)] = job
            done, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
            if tick is not None:
                tick()
            for fut in done:
                job = pending.pop(fut)
                yield job, fut.result()

    def close(self, kill: bool = False) -> None:
        if self._ex is not None:
            self._ex.close(kill=kill)
            self._ex = None


def job_config(**kwargs: Any) -> dict[str, Any]:
    """Only the SelfPlayConfig fields that are set (so the engine's defaults stay its own)."""
    from gomoku.engine.mcts.selfplay import SelfPlayConfig
    names = {f.name for f in dataclasses.fields(SelfPlayConfig)}
    return {k: v for k, v in kwargs.items() if k in names and v is not None}
