"""Compile (or load from numba's on-disk cache) every jitted function the engine uses.

Numba compiles on first call; a cold compile of the whole engine takes minutes of CPU and
~600 MB, which no timed move can afford. `gomoku warmup`, and `play`, `match` and `bench`
before their clocks start, fill the cache once; later processes only load it (well under a
second). Each call below uses the same argument types as the real callers, so the cached
signatures are the ones that will be looked up.

The work is split into named steps. Steps in different groups (`GROUPS`) can run in separate
processes at the same time: a function one group needs from another is compiled by whichever
process gets there first, and the other loads it from the cache or compiles its own copy
(numba writes cache files atomically), so the split is safe and only costs duplicated work
where the groups overlap.
"""
from __future__ import annotations

import importlib
import sys
import time
from typing import IO, Callable, Iterator, Optional, Sequence

from gomoku.engine.game.rules import Rule

# extra warm-up hooks registered by other engine modules (search, threats, mcts ...):
# module path -> function name; each is called with no arguments.
EXTRA_HOOKS = [
    ("gomoku.engine.search.alphabeta", "warm_up"),
    ("gomoku.engine.search.threats", "warm_up"),
    ("gomoku.engine.search.dfpn", "warm_up"),
    ("gomoku.engine.mcts.search", "warm_up"),
    ("gomoku.engine.net.critic", "warm_up"),
]

# What each step costs in a cold compile, one after the other in one process, as seconds of CPU
# (`gomoku bench --compile` on an idle 2-core x86 machine: 91 s of CPU in all, peak RSS 0.56 GB;
# a slower machine takes about twice as long, in the same proportions). Only used to split the
# work between processes, to weight the progress bar and to guess the time left. The alpha-beta
# step is the largest: `pvs` with the small helpers it inlines (inline="always") is a fifth of
# the compile; the board core is a few seconds.
STEP_COST = {
    "board core (freestyle)": 3.9, "board core (standard)": 0.1, "board core (renju)": 1.9,
    "board core (caro)": 0.1, "board core (caro5)": 0.1, "playouts": 0.7,
    "alphabeta": 46.8, "threats": 8.6, "dfpn": 9.1, "search": 16.1, "critic": 1.7,
}

# Steps that can be compiled in parallel processes, largest first. The alpha-beta search calls the
# threat solvers and df-pn, which call the board core: in parallel, each process compiles
# what it needs of the others unless another process has cached it first.
GROUPS: list[list[str]] = [
    ["alphabeta"],
    ["threats"],
    ["dfpn"],
    [f"board core ({rule.label})" for rule in Rule] + ["playouts", "critic"],
]


def warm_up(progress: Optional[Callable[[str], None]] = None) -> float:
    """Exercise the core on every rule; returns the seconds it took."""
    t0 = time.perf_counter()
    say = progress or (lambda _msg: None)
    for label in warm_up_steps():
        say(label)
    return time.perf_counter() - t0


def warm_steps() -> Iterator[str]:
    """Load (or compile) every numba function, one step per `next`: the warm-up over all
    rules, then two short searches through the agent, so no later move pays a cache load or
    a compile. The brain runs these between moves."""
    import threading

    from gomoku.engine.player import agent
    from gomoku.engine.game.board import Board
    from gomoku.engine.base.limits import Limit
    yield from warm_up_steps()
    b = Board(15)
    for m in ((7, 7), (8, 8), (8, 7)):
        b.play(*m)
    stop = threading.Event()
    agent.think(b, Limit(turn_time=0), stop)
    yield "think"
    agent.think(b, Limit(turn_time=0.05, depth=2), stop)
    yield "short search"


def warm_all() -> None:
    """Every warm-up step at once, then mark the cache warm. This is what the brain's compile
    child runs when it finds the cache cold (see numba_cache)."""
    from gomoku.engine.base.numba_cache import mark_warm
    for _ in warm_steps():
        pass
    mark_warm()


def step_names() -> list[str]:
    """Every step, in the order `warm_up_steps` runs them."""
    names = [f"board core ({rule.label})" for rule in Rule] + ["playouts"]
    names += [module.rsplit(".", 1)[-1] for module, _ in EXTRA_HOOKS]
    return names


def warm_up_steps(names: Optional[Sequence[str]] = None) -> Iterator[str]:
    """The warm-up one piece at a time (a rule's board core, a module's hook), yielding the
    label of what was just done: the brain runs the steps between moves, so a move asked for
    during the warm-up waits for one step only. `names` picks some steps (default: all)."""
    wanted = None if names is None else set(names)
    unknown = set() if wanted is None else wanted - set(step_names())
    if unknown:
        raise ValueError(f"unknown warm-up step(s): {', '.join(sorted(unknown))}")
    for label in step_names():
        if wanted is None or label in wanted:
            if run_step(label):
                yield label


def run_step(label: str) -> bool:
    """Run one named step; False when the step's module is not part of this install."""
    if label.startswith("board core ("):
        rule = next(r for r in Rule if f"board core ({r.label})" == label)
        _board_core(rule)
        return True
    if label == "playouts":
        import numpy as np

        from gomoku.engine.game import core
        from gomoku.engine.game.board import Board
        core.random_playouts(Board(9).state, np.int64(1), np.int64(0))
        return True
    for module, name in EXTRA_HOOKS:
        if module.rsplit(".", 1)[-1] == label:
            try:
                mod = importlib.import_module(module)
            except ModuleNotFoundError:
                return False
            hook = getattr(mod, name, None)
            if hook is None:
                return False
            hook()
            return True
    raise ValueError(f"unknown warm-up step: {label}")


def _board_core(rule: Rule) -> None:
    from gomoku.engine.player.agent import quick_move, think
    from gomoku.engine.game.board import Board
    from gomoku.engine.base.limits import Limit

    b = Board(15, rule=rule)
    for mv in [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9), (9, 9)]:
        b.play(*mv)
    b.legal_moves()
    b.is_forbidden(7, 10)
    b.forbidden_points()
    quick_move(b)
    think(b, Limit(turn_time=0))
    b.undo()
    b.copy()
    Board(6, rule=rule).play(2, 2)


def child_main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of a compiling child process: run the named steps and print one line
    `done <seconds> <label>` per step on stdout, so the parent can draw its progress."""
    names = list(sys.argv[1:] if argv is None else argv)
    t = time.perf_counter()
    for label in warm_up_steps(names or None):
        now = time.perf_counter()
        print(f"done {now - t:.2f} {label}", flush=True)
        t = now
    return 0


def plan_processes(jobs: int) -> list[list[str]]:
    """Split `GROUPS` over at most `jobs` processes, balancing `STEP_COST` (largest first);
    inside a process the steps keep `step_names` order, so the board core comes first."""
    names = step_names()
    grouped = {s for g in GROUPS for s in g}
    # a step of a hook added later (and not yet grouped) compiles in a group of its own
    groups = [[s for s in g if s in names] for g in GROUPS] + [[s] for s in names if s not in grouped]
    groups = [g for g in groups if g]
    jobs = max(1, min(jobs, len(groups)))
    bins: list[list[str]] = [[] for _ in range(jobs)]
    load = [0.0] * jobs
    for group in sorted(groups, key=lambda g: -sum(STEP_COST.get(s, 10.0) for s in g)):
        i = load.index(min(load))
        bins[i] += group
        load[i] += sum(STEP_COST.get(s, 10.0) for s in group)
    order = {name: i for i, name in enumerate(names)}
    return [sorted(b, key=lambda s: order.get(s, len(order))) for b in bins if b]


class CompileError(RuntimeError):
    """A compiling child process failed; the message carries the tail of its output."""


def compile_in_processes(on_step: Callable[[str, float], None], jobs: Optional[int] = None,
                         poll: Optional[Callable[[], None]] = None) -> float:
    """Fill numba's cache in child processes (one per group of `plan_processes(jobs)`), so a
    machine with several cores compiles the independent parts at once and the caller's process
    stays responsive (it can draw progress) and never holds LLVM's memory. `on_step(label,
    seconds)` is called as each step finishes; `poll()` about ten times a second. Returns the
    wall time; raises CompileError if a child fails."""
    import os
    import subprocess
    import tempfile
    import threading

    jobs = jobs or max(1, min(len(GROUPS), os.cpu_count() or 1))
    code = "from gomoku.engine.player.warmup import child_main; raise SystemExit(child_main())"
    t0 = time.perf_counter()
    procs = []
    lock = threading.Lock()
    events: list[tuple[str, float]] = []

    def reader(stream: IO[bytes]) -> None:
        for raw in stream:
            parts = raw.decode("utf-8", "replace").rstrip("\n").split(" ", 2)
            if len(parts) == 3 and parts[0] == "done":
                with lock:
                    events.append((parts[2], float(parts[1])))

    try:
        for names in plan_processes(jobs):
            err = tempfile.TemporaryFile()
            p = subprocess.Popen([sys.executable, "-c", code, *names], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=err)
            t = threading.Thread(target=reader, args=(p.stdout,), daemon=True)
            t.start()
            procs.append((p, err, t))
        while True:
            with lock:
                got, events[:] = list(events), []
            for label, seconds in got:
                on_step(label, seconds)
            if all(p.poll() is not None for p, _, _ in procs):
                for _, _, t in procs:
                    t.join(5)
                with lock:
                    got, events[:] = list(events), []
                for label, seconds in got:
                    on_step(label, seconds)
                break
            if poll is not None:
                poll()
            time.sleep(0.1)
        for p, err, _ in procs:
            if p.returncode != 0:
                err.seek(0)
                tail = err.read().decode("utf-8", "replace").strip().splitlines()[-3:]
                raise CompileError(f"compiling the engine failed (exit status {p.returncode}): "
                                   + " | ".join(tail))
    finally:
        for p, err, _ in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            err.close()
    return time.perf_counter() - t0
