"""Make sure numba's cache holds the compiled engine before any clock starts.

A fresh install has no compiled code: the first search would compile for minutes inside a
timed move (a match then loses on time to `random`, `play` answers its first moves late).
`play`, `match`, `bench` and `warmup` call `ensure_compiled` first. With a warm cache it
costs a directory listing; with a cold one it compiles in child processes (in parallel where
there are cores) and shows a progress bar: stage, share done, elapsed time and time left.
"""
from __future__ import annotations

import os
import time
from typing import Optional

from rich.console import Console


def ensure_compiled(console: Optional[Console] = None, force: bool = False,
                    jobs: Optional[int] = None) -> Optional[float]:
    """Compile the engine into numba's cache unless it is already there (`force`: even then).
    Returns the seconds spent compiling, or None when nothing had to be done. Raises
    click.ClickException with one line if compiling fails."""
    import click

    from gomoku.engine import warmup
    from gomoku.engine import numba_cache

    if not force and numba_cache.cache_is_warm():
        return None
    console = console or Console(stderr=True)
    jobs = jobs or max(1, min(len(warmup.GROUPS), os.cpu_count() or 1))
    plan = warmup.plan_processes(jobs)
    bar = _Bar(console, plan, jobs)
    try:
        with bar:
            seconds = warmup.compile_in_processes(bar.step_done, jobs=len(plan), poll=bar.refresh)
    except warmup.CompileError as exc:
        raise click.ClickException(str(exc)) from None
    numba_cache.mark_warm()
    console.print(f"engine compiled in {seconds:.0f} s with {len(plan)} process"
                  f"{'es' if len(plan) > 1 else ''} (cached: later starts take well under a second)")
    return seconds


class _Bar:
    """The progress bar of a compile: finished steps count their `STEP_COST`; a running step
    counts the share its elapsed time suggests (at the speed seen so far), up to 95 % of it."""

    def __init__(self, console: Console, plan: list[list[str]], jobs: int) -> None:
        from rich.progress import (BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        from gomoku.engine.warmup import STEP_COST
        self.cost = {s: STEP_COST.get(s, 10.0) for group in plan for s in group}
        self.pending = [list(group) for group in plan]       # per process: steps not done yet
        self.started = [time.perf_counter()] * len(plan)     # when each process's current step began
        self.done_cost = 0.0
        self.done_seconds = 0.0
        self.progress = Progress(TextColumn("compiling the engine once:"), TextColumn("{task.fields[stage]}"),
                                 BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
                                 TextColumn("left"), TimeRemainingColumn(), console=console, transient=True)
        self.task = self.progress.add_task("compile", total=sum(self.cost.values()), stage=self._stage())

    def __enter__(self) -> "_Bar":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def _stage(self) -> str:
        running = [p[0] for p in self.pending if p]
        return ", ".join(running)[:48] if running else "done"

    def step_done(self, label: str, seconds: float) -> None:
        for i, steps in enumerate(self.pending):
            if label in steps:
                steps.remove(label)
                self.started[i] = time.perf_counter()
                self.done_cost += self.cost.get(label, 10.0)
                self.done_seconds += seconds
        self.refresh()

    def refresh(self) -> None:
        # seconds of wall time per unit of cost, from the finished steps (1.0 before any)
        rate = self.done_seconds / self.done_cost if self.done_cost > 0 else 1.0
        now = time.perf_counter()
        running = 0.0
        for i, steps in enumerate(self.pending):
            if steps:
                c = self.cost.get(steps[0], 10.0)
                running += min(0.95 * c, (now - self.started[i]) / max(rate, 1e-6))
        self.progress.update(self.task, completed=self.done_cost + running, stage=self._stage())
