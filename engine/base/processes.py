"""A process pool that can be ended at once, through public API only.

`ProcessPoolExecutor.shutdown(cancel_futures=True)` still waits for the work already running,
which after Ctrl-C is a whole game or a self-play chunk. Its workers are not public, so this pool
remembers the children this process had before it started and terminates the new ones
(`multiprocessing.active_children`). Matches, self-play and training's evaluation share it.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Optional


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the system has one, as
    `taskset` or a container's cpuset sets it), not the machine's: a process pinned to one core
    of two gains nothing from a second worker or thread, which only takes turns with the first."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):     # Windows and macOS have no affinity call
        return max(1, os.cpu_count() or 1)


class KillablePool:
    """A ProcessPoolExecutor with `close(kill=True)`: terminate the workers, wait for nothing.
    Children this process starts elsewhere while the pool lives count as the pool's."""

    def __init__(self, max_workers: int, mp_context: Any = None, initializer: Optional[Callable[..., Any]] = None,
                 initargs: tuple = ()) -> None:
        self._before = set(mp.active_children())
        self.executor = ProcessPoolExecutor(max_workers=max_workers, mp_context=mp_context, initializer=initializer,
                                            initargs=initargs)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        return self.executor.submit(fn, *args, **kwargs)

    def close(self, kill: bool = False) -> None:
        """Shut the pool down: after the running work (kill False) or at once (kill True)."""
        if kill:
            for proc in mp.active_children():
                if proc not in self._before:
                    proc.terminate()
        self.executor.shutdown(wait=not kill, cancel_futures=True)
