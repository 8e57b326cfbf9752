"""Make sure numba's cache holds the compiled engine before any clock starts.

A fresh install has no compiled code: the first search would compile for minutes inside a
timed move (a match then loses on time to `random`, `play` answers its first moves late).
`play`, `match`, `bench` and `warmup` call `ensure_compiled` first. With a warm cache it
costs a directory listing; with a cold one it compiles in child processes (in parallel where
there are cores) and shows a progress bar: stage, share done, elapsed time and time left
(`CompileProgress`, which `play`'s status line reads too).
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional

from rich.console import Console


def ensure_compiled(console: Optional[Console] = None, force: bool = False,
                    jobs: Optional[int] = None) -> Optional[float]:
    """Compile the engine into numba's cache unless it is already there (`force`: even then).
    Returns the seconds spent compiling, or None when nothing had to be done. Raises
    click.ClickException with one line if compiling fails."""
    import click

    from gomoku.engine.player import warmup
    from gomoku.engine.base import numba_cache

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


class CompileProgress:
    """How far a compile has got and how long it has left, for the bar of `gomoku warmup` and
    the status line of `gomoku play` alike. Finished steps count their `STEP_COST` (measured
    seconds of each step); a running step counts the share its elapsed time suggests at the
    speed seen so far, up to 95 % of it. "left" is the slowest process's remaining cost at that
    speed; a step running past its estimate adds a tenth of it, so the time left never reads 0
    while work remains. Steps are reported from the compile's thread and read from the screen's,
    hence the lock; `clock` is injectable so that tests need no waiting."""

    def __init__(self, plan: list[list[str]], clock: Callable[[], float] = time.perf_counter) -> None:
        import threading

        from gomoku.engine.player.warmup import STEP_COST
        self.clock = clock
        self.cost = {s: STEP_COST.get(s, 10.0) for group in plan for s in group}
        self.total = sum(self.cost.values())
        self.pending = [list(group) for group in plan]       # per process: steps not done yet
        self.t0 = clock()
        self.started = [self.t0] * len(plan)                 # when each process's current step began
        self.done_cost = 0.0
        self.done_seconds = 0.0
        self._lock = threading.Lock()

    def running(self) -> list[str]:
        """The step each busy process is on."""
        with self._lock:
            return [p[0] for p in self.pending if p]

    def step_done(self, label: str, seconds: float) -> None:
        with self._lock:
            for i, steps in enumerate(self.pending):
                if label in steps:
                    steps.remove(label)
                    self.started[i] = self.clock()
                    self.done_cost += self.cost.get(label, 10.0)
                    self.done_seconds += seconds

    def estimate(self, now: Optional[float] = None) -> tuple[float, float]:
        """(cost done, including running steps' shares; wall seconds left) at `now`."""
        now = self.clock() if now is None else now
        with self._lock:
            # seconds of wall time per unit of cost, from the finished steps (1.0 before any)
            rate = self.done_seconds / self.done_cost if self.done_cost > 0 else 1.0
            running = 0.0
            left = 0.0
            for i, steps in enumerate(self.pending):
                if not steps:
                    continue
                c = self.cost.get(steps[0], 10.0)
                spent = now - self.started[i]
                running += min(0.95 * c, spent / max(rate, 1e-6))
                rest = sum(self.cost.get(s, 10.0) for s in steps[1:]) * rate
                left = max(left, rest + max(c * rate - spent, 0.1 * c * rate))
            return self.done_cost + running, left

    def fraction(self, now: Optional[float] = None) -> float:
        """Share of the work done (see `estimate`), 0..1."""
        return min(1.0, self.estimate(now)[0] / max(self.total, 1e-9))

    def summary(self) -> str:
        """'37 %, ~1m10s left'."""
        done, left = self.estimate()
        return f"{100 * min(1.0, done / max(self.total, 1e-9)):.0f} %, ~{_clock(left)} left"

    @property
    def finished(self) -> bool:
        with self._lock:
            return not any(self.pending)


class _Bar:
    """The progress bar of a compile, in at most 80 columns: stage, share done, elapsed time
    and time left, from a `CompileProgress`."""

    def __init__(self, console: Console, plan: list[list[str]], jobs: int,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

        self.work = CompileProgress(plan, clock)
        self.progress = Progress(TextColumn("compiling once: {task.fields[stage]}"), BarColumn(bar_width=16),
                                 TaskProgressColumn(), TextColumn("{task.fields[clock]}"), console=console,
                                 transient=True)
        self.task = self.progress.add_task("compile", total=self.work.total, stage=self._stage(), clock="")

    def __enter__(self) -> "_Bar":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def _stage(self) -> str:
        running = self.work.running()
        text = ", ".join(running) if running else "done"
        return text if len(text) <= 24 else text[:23] + "\u2026"

    def step_done(self, label: str, seconds: float) -> None:
        self.work.step_done(label, seconds)
        self.refresh()

    def refresh(self) -> None:
        now = self.work.clock()
        done, left = self.work.estimate(now)
        elapsed = _clock(now - self.work.t0)
        clock = elapsed if self.work.finished else f"{elapsed}, ~{_clock(left)} left"
        self.progress.update(self.task, completed=done, stage=self._stage(), clock=clock)


class BackgroundCompile:
    """A cold compile that runs while `play` is already on screen: the child processes of
    `warmup.compile_in_processes`, driven from a daemon thread. The board and the person's
    moves need none of it; the engine's first move (or a hint) calls `wait`, which returns at
    once if the compile finished while the person was thinking. `status_line` is the screen's
    one line of progress, from the same `CompileProgress` as the warm-up's bar."""

    def __init__(self, jobs: Optional[int] = None, first: Optional[Callable[[], None]] = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        import threading

        from gomoku.engine.player import warmup
        self.jobs = jobs or max(1, min(len(warmup.GROUPS), os.cpu_count() or 1))
        self.plan = warmup.plan_processes(self.jobs)
        self.work = CompileProgress(self.plan, clock)
        self.error: Optional[str] = None
        self.seconds: Optional[float] = None
        self._first = first                  # run in the thread before the children start
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="compile", daemon=True)

    def start(self) -> "BackgroundCompile":
        self._thread.start()
        return self

    def _run(self) -> None:
        from gomoku.engine.base import numba_cache
        from gomoku.engine.player import warmup

        def poll() -> None:
            if self._cancel.is_set():
                raise _Cancelled()
        try:
            if self._first is not None:
                self._first()
            poll()
            self.seconds = warmup.compile_in_processes(self.work.step_done, jobs=len(self.plan), poll=poll)
            numba_cache.mark_warm()
        except _Cancelled:
            self.error = "cancelled"
        except warmup.CompileError as exc:
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported by wait(), not lost in a thread
            self.error = f"compiling the engine failed: {exc}"
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def fraction(self) -> float:
        """Share of the work done: 1 once the compile is over (see `CompileProgress`)."""
        return 1.0 if self.done and self.error is None else self.work.fraction()

    def status_line(self) -> str:
        """'Engine compiling (once): 37 %, ~1m10s left; you can move meanwhile.' (at most 80
        columns: the screen's rows are counted)."""
        if self.done:
            return "" if self.error is None else f"[red]{self.error}[/red]"
        return f"[dim]Engine compiling (once): {self.work.summary()}; you can move meanwhile.[/dim]"

    def wait(self, console: Console) -> None:
        """Block until the compile is over, showing its progress; raises click.ClickException
        if it failed, KeyboardInterrupt on Ctrl-C (after stopping the children)."""
        import click
        if not self.done:
            try:
                with console.status(self._waiting()) as st:
                    while not self._done.wait(0.2):
                        st.update(self._waiting())
            except KeyboardInterrupt:
                self.cancel()
                raise
        if self.error is not None:
            raise click.ClickException(self.error)

    def _waiting(self) -> str:
        return f"the engine is compiling (once): {self.work.summary()}..."

    def cancel(self) -> None:
        """Stop the children (Ctrl-C, quit): `compile_in_processes` kills them on its way out."""
        self._cancel.set()
        self._thread.join(5)


class _Cancelled(Exception):
    pass


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}m{s:02d}s" if m else f"{s}s"


def start_compile(jobs: Optional[int] = None, board: Any = None) -> Optional[BackgroundCompile]:
    """A `BackgroundCompile` already running when the cache is cold; None when it is warm.

    With `board` (the game on screen), the compile's thread first compiles here what a
    person's move runs (make and undo a move on a copy) while the person reads the board, and
    only then starts the children, so that part has the cores to itself: left to the first
    move, it took 15 s once the children shared the two cores; done before the board, it
    delayed the board as long. A move typed meanwhile waits on numba's compiler lock for
    what is left of it; the children load it from the cache."""
    from gomoku.engine.base import numba_cache
    if numba_cache.cache_is_warm():
        return None
    cells = [] if board is None or board.game_over else board.empty_cells()
    first = None
    if cells:
        scratch = board.copy()

        def first() -> None:
            scratch.play(*cells[0])
            scratch.undo()
    return BackgroundCompile(jobs, first).start()
