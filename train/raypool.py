"""Self-play on Ray (`gomoku train --ray local|ADDRESS`): the same chunks as the local worker
processes, played by Ray actors, returned to the driver, written by the driver.

`RayPool` has `WorkerPool`'s interface (run, poll, close), so the loop does not know which one
it drives: it makes the same `ChunkJob`s (names, games, seeds, chunk sizes fixed in state.json
when a generation starts) and writes each returned chunk as one shard through the replay store.
A run can therefore switch between --ray and local workers on any resume, even in the middle of
a generation, without losing or repeating a game.

Nothing an actor does touches the run folder. The net a chunk searches with travels as bytes
(put in Ray's object store once per version of best.onnx), and the finished games come back as
numpy arrays; the driver alone writes shards, atomically as always. So a cluster's nodes need
the same gomoku (and ray) installed, but no filesystem shared with the driver.

`ray` is imported only when a pool is made (train.raycluster starts it): without --ray, training never loads it.
This module must not import torch (actors load it).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from typing import Any, Callable, Iterator, Optional

from .config import RunError
from .workers import ChunkJob, _providers, run_chunk

from .raycluster import RAY_MISSING, RayStartError, cluster_cpus, first_line, ray_available, start

__all__ = ["RAY_MISSING", "RayError", "RayPool", "ray_available"]

#: an actor lost with its node (or killed) is restarted and its chunk played again, with the
#: same seed, so a retried chunk gives the same games
_RETRIES = 3


class RayError(RunError):
    """Ray cannot be used as asked; one line."""


class _Progress:
    """(chunk name, games done, moves) messages from the actors, collected for the driver."""

    def __init__(self) -> None:
        self.items: list[tuple[str, int, int]] = []

    def put(self, item: tuple[str, int, int]) -> None:
        self.items.append(item)

    def take(self) -> list[tuple[str, int, int]]:
        out, self.items = self.items, []
        return out


class SelfPlayActor:
    """Plays chunks; keeps the last net it was sent loaded."""

    def __init__(self) -> None:
        self.digest = ""
        self.evaluator: Any = None

    def _load(self, net: bytes, device: str) -> Any:
        digest = hashlib.sha256(net).hexdigest() + "@" + device
        if digest != self.digest:
            from gomoku.engine.net.evaluator import NetEvaluator
            fd, path = tempfile.mkstemp(prefix="gomoku-net-", suffix=".onnx")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(net)
                self.evaluator = NetEvaluator.load(path, threads=1, providers=_providers(device))
            finally:
                os.unlink(path)          # the session holds the model; nothing is left behind
            self.digest = digest
        return self.evaluator

    def play(self, job: ChunkJob, net: Optional[bytes], progress_to: Any) -> list:
        """`net`: the bytes of job.net; `progress_to`: the pool's _Progress actor."""
        report = progress_to.put.remote

        def progress(done: int, moves: int) -> None:
            report((job.name, done, moves))         # fire and forget

        if job.source == "learned" and net is not None:
            # the alpha-beta's learned evaluator is read from a file: this node's own copy
            import dataclasses
            fd, path = tempfile.mkstemp(prefix="gomoku-eval-", suffix=".eval.npz")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(net)
                return run_chunk(dataclasses.replace(job, net=path), progress)
            finally:
                os.unlink(path)
        evaluator = self._load(net, job.device) if net is not None else None
        return run_chunk(job, progress, evaluator=evaluator)


class RayPool:
    """`workers` Ray actors of one CPU each (0: one per core for `local`, every CPU of the cluster
    for an address). Ray starts or connects at the first `run`, so a resume that has no self-play
    left to do does not pay for it."""

    def __init__(self, address: str, workers: int = 0) -> None:
        if not ray_available():
            raise RayError(RAY_MISSING)
        self.address = address
        self.requested = max(0, int(workers))
        self._ray: Any = None
        self._owned = False              # whether close() shuts Ray down (not if the caller had it up)
        self._actors: list[Any] = []
        self._progress: Any = None
        self._nets: dict[tuple[str, int, int], Any] = {}
        self._workers: Optional[int] = None

    # -- starting ---------------------------------------------------------------------------------
    def _start(self) -> Any:
        if self._ray is not None:
            return self._ray
        try:
            self._ray, self._owned = start(self.address, self.workers if self.address == "local" else 0)
        except RayStartError as exc:
            raise RayError(str(exc)) from None
        return self._ray

    @property
    def workers(self) -> int:
        """How many chunks run at once: fixes the chunk size of a generation that starts now."""
        if self._workers is None:
            if self.requested:
                self._workers = self.requested
            elif self.address == "local":
                self._workers = os.cpu_count() or 1
            else:
                ray = self._start()
                self._workers = cluster_cpus(ray)
        return self._workers

    def _spawn(self) -> list[Any]:
        ray = self._start()
        if not self._actors:
            self._progress = ray.remote(num_cpus=0)(_Progress).remote()
            actor = ray.remote(num_cpus=1, max_restarts=_RETRIES, max_task_retries=_RETRIES)(SelfPlayActor)
            self._actors = [actor.remote() for _ in range(self.workers)]
        return self._actors

    def _net(self, path: Optional[str]) -> Any:
        """The object-store reference of a net file's bytes, put once per version of the file."""
        if path is None:
            return None
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        if key not in self._nets:
            with open(path, "rb") as fh:
                data = fh.read()
            self._nets = {key: self._ray.put(data)}      # older versions are released
        return self._nets[key]

    # -- the WorkerPool interface -----------------------------------------------------------------
    def poll(self) -> list[tuple[str, int, int]]:
        if self._progress is None:
            return []
        try:
            return self._ray.get(self._progress.take.remote(), timeout=10)
        except Exception:          # progress is for the view; a slow answer is not an error
            return []

    def run(self, jobs: list[ChunkJob], tick: Optional[Callable[[], None]] = None
            ) -> Iterator[tuple[ChunkJob, list]]:
        if not jobs:
            return
        actors = self._spawn()
        ray = self._ray
        idle = list(reversed(actors))
        todo = list(reversed(jobs))
        pending: dict[Any, tuple[ChunkJob, Any]] = {}
        while todo or pending:
            while todo and idle:
                job, actor = todo.pop(), idle.pop()
                pending[actor.play.remote(job, self._net(job.net), self._progress)] = (job, actor)
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            if tick is not None:
                tick()
            for ref in done:
                job, actor = pending.pop(ref)
                idle.append(actor)
                yield job, self._result(ref, job)

    def _result(self, ref: Any, job: ChunkJob) -> list:
        from ray.exceptions import RayActorError, RayTaskError
        try:
            return self._ray.get(ref)
        except RayTaskError as exc:            # the chunk's own error, as the local pool raises it
            cause = getattr(exc, "cause", None)
            if isinstance(cause, KeyboardInterrupt):
                raise KeyboardInterrupt from None
            if isinstance(cause, Exception):
                raise cause from None
            raise
        except RayActorError as exc:
            raise RayError(f"self-play chunk {job.name}: its Ray worker was lost {_RETRIES + 1} times "
                           f"({first_line(exc)})") from None

    def close(self, kill: bool = False) -> None:
        """Ends the actors (kill or not: a chunk not yet returned is played again on resume) and
        the Ray instance this pool started or joined."""
        if self._ray is None:
            return
        ray, self._ray = self._ray, None
        actors = self._actors + ([self._progress] if self._progress is not None else [])
        self._actors, self._progress, self._nets = [], None, {}
        if self._owned:
            # the actors end with the driver's job (a local instance stops altogether); killing
            # them first would have Ray print a retry notice for each running chunk on stdout
            ray.shutdown()
            self._owned = False
            return
        for actor in actors:
            try:
                ray.kill(actor)
            except Exception:
                pass
