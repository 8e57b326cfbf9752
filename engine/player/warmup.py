"""Compile (or load from numba's on-disk cache) every jitted function the engine uses.

Numba compiles on first call; a cold compile of the whole engine takes over a minute of CPU
(and 0.57 GB in one process), which no timed move can afford. `gomoku warmup`, and `play`,
`match` and `bench` before their clocks start, fill the cache once; later processes only load
it (well under a second). Each call below uses the same argument types as the real callers,
so the cached signatures are the ones that will be looked up.

The work is split into named steps. Steps in different groups (`GROUPS`) can run in separate
processes at the same time: a function one group needs from another is compiled by whichever
process gets there first, and the other loads it from the cache or compiles its own copy
(numba writes cache files atomically), so the split is safe and only costs duplicated work
where the groups overlap.

Inside a group, the steps of `FRESH_PROCESS` each start a new process. A numba process keeps
the LLVM modules of everything it compiled, and a caller's module links its callees' in, so
one process compiling the whole engine peaked at 0.57 GB. The alpha-beta search compiled in
three processes, its plain-call helpers first, then `pvs` (linking the helpers from the cache),
then the rest, peaks at about 0.31 GB, in fewer CPU seconds (70-85 s for the whole engine on
a 2-core machine, against 95 s in one process).
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time
from typing import Callable, Iterator, Optional, Sequence

from gomoku.engine.base.compile_log import CompileLog
from gomoku.engine.game.rules import Rule

# extra warm-up hooks registered by other engine modules (search, threats, mcts ...):
# (module path, function name, step label); each is called with no arguments. The order is
# the order of a one-process compile: callees before their callers, so that a process of its
# own (FRESH_PROCESS) loads what it calls from the cache instead of compiling it again.
EXTRA_HOOKS = [
    ("gomoku.engine.search.threats", "warm_up", "threats"),
    ("gomoku.engine.search.dfpn", "warm_up", "dfpn"),
    ("gomoku.engine.search.alphabeta", "warm_up_helpers", "search helpers"),
    ("gomoku.engine.search.alphabeta", "warm_up_pvs", "pvs"),
    ("gomoku.engine.search.alphabeta", "warm_up", "alphabeta"),
    ("gomoku.engine.mcts.search", "warm_up", "search"),
    ("gomoku.engine.net.critic", "warm_up", "critic"),
]

# What each step costs in a cold compile, the processes of one lane one after the other, as
# seconds (`gomoku bench --compile` on a 2-core x86 machine: 70-85 s of CPU in all, no
# process above 0.31 GB; a slower machine takes about twice as long, in the same
# proportions). Only used to split the work between processes, to weight the progress bar and
# to guess the time left. The PVS recursion with the small helpers it inlines
# (inline="always") is a fifth of the compile; the board core is a few seconds.
STEP_COST = {
    "board core (freestyle)": 4.7, "board core (standard)": 0.1, "board core (renju)": 2.6,
    "board core (caro)": 0.1, "board core (caro5)": 0.1, "playouts": 1.1, "threats": 16.4, "dfpn": 9.9,
    "search helpers": 16.1, "pvs": 19.6, "alphabeta": 8.3, "search": 16.1, "critic": 1.9,
}

# Steps that can be compiled in parallel processes, largest first. The alpha-beta search calls the
# threat solvers and df-pn, which call the board core: in parallel, each process compiles
# what it needs of the others unless another process has cached it first.
GROUPS: list[list[str]] = [
    ["search helpers", "pvs", "alphabeta"],
    ["threats"],
    ["dfpn"],
    [f"board core ({rule.label})" for rule in Rule] + ["playouts", "critic"],
]


# Steps that start a process of their own (see the module's docstring): the three parts of the
# alpha-beta search and the MCTS, each the largest LLVM module of its process (with the MCTS
# after the alpha-beta's last part, that process peaked at 0.35 GB).
FRESH_PROCESS = frozenset({"search helpers", "pvs", "alphabeta", "search"})

# Steps that only stage a cold compile across processes: in a process that runs the alpha-beta
# step after them they compile (or load) nothing it would not, and loading what they name from
# a warm cache costs the brain about 0.4 s between its first moves (a cached caller carries its
# callees' code; its callees' own cache entries are never read otherwise).
COMPILE_ONLY = frozenset({"search helpers", "pvs"})


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
    """Every warm-up step, then mark the cache warm. This is what the brain's compile child
    runs when it finds the cache cold (see numba_cache): the compile in processes of one lane
    (`compile_in_processes`, which keeps each process's memory down), then the steps here,
    which load what they compiled. A frozen brain has no Python to start: it compiles here."""
    from gomoku.engine.base.numba_cache import mark_warm
    if not getattr(sys, "frozen", False):
        compile_in_processes(lambda _label, _seconds: None, jobs=1)
    for _ in warm_steps():
        pass
    mark_warm()


def step_names() -> list[str]:
    """Every step, in the order `warm_up_steps` runs them."""
    names = [f"board core ({rule.label})" for rule in Rule] + ["playouts"]
    names += [label for _, _, label in EXTRA_HOOKS]
    return names


def warm_up_steps(names: Optional[Sequence[str]] = None) -> Iterator[str]:
    """The warm-up one piece at a time (a rule's board core, a module's hook), yielding the
    label of what was just done: the brain runs the steps between moves, so a move asked for
    during the warm-up waits for one step only. `names` picks some steps (default: all but
    COMPILE_ONLY's, which in one process add nothing but their load time)."""
    wanted = None if names is None else set(names)
    unknown = set() if wanted is None else wanted - set(step_names())
    if unknown:
        raise ValueError(f"unknown warm-up step(s): {', '.join(sorted(unknown))}")
    for label in step_names():
        if (label in wanted) if wanted is not None else (label not in COMPILE_ONLY):
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
    for module, name, hook_label in EXTRA_HOOKS:
        if hook_label == label:
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


def child_main(argv: Optional[Sequence[str]] = None, nice: int = 0, log: Optional[str] = None) -> int:
    """Entry point of a compiling child process: run the named steps and print one line
    `done <seconds> <label>` per step on stdout, so the parent can draw its progress. With a
    `log` file, numba's compile events of each step are appended to it (one JSON line for the
    process: `gomoku bench --compile`). The child dies with its parent
    (Linux) and lowers its priority by `nice`: set here, not in a preexec_fn, which is unsafe
    in a parent with threads."""
    from gomoku.engine.base.numba_cache import die_with_parent
    die_with_parent()
    if nice:
        os.nice(nice)
    names = list(sys.argv[1:] if argv is None else argv) or step_names()
    events = CompileLog() if log else None
    with events if events is not None else contextlib.nullcontext():
        t = time.perf_counter()
        for label in names:
            if events is not None:
                events.step = label
            if not run_step(label):
                continue
            now = time.perf_counter()
            print(f"done {now - t:.2f} {label}", flush=True)
            if events is not None:
                events.done(label, now - t)
            t = now
    if events is not None and log:
        events.append_to(log)
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


def processes_of(steps: Sequence[str]) -> list[list[str]]:
    """One planned process's steps cut into the processes that run them one after the other:
    a new one before each step of FRESH_PROCESS, so that no process holds the LLVM memory of
    two large modules."""
    runs: list[list[str]] = []
    for step in steps:
        if not runs or step in FRESH_PROCESS:
            runs.append([])
        runs[-1].append(step)
    return runs


class CompileError(RuntimeError):
    """A compiling child process failed; the message carries the tail of its output."""


def compile_in_processes(on_step: Callable[[str, float], None], jobs: Optional[int] = None,
                         poll: Optional[Callable[[], None]] = None, env: Optional[dict[str, str]] = None,
                         nice: int = 0, log: Optional[str] = None) -> float:
    """Fill numba's cache in child processes, so a machine with several cores compiles the
    independent parts at once and the caller's process stays responsive (it can draw progress)
    and never holds LLVM's memory. Each process of `plan_processes(jobs)` is a lane of the
    processes `processes_of` cuts it into, run one after the other. `on_step(label, seconds)`
    is called as each step finishes; `poll()` about ten times a second. `env` and `nice` are
    the children's environment and niceness; `log`, a file each child appends its compile
    events to (`child_main`). Returns the wall time; raises CompileError if a
    child fails (the rest of its lane is not run)."""
    import subprocess
    import tempfile
    import threading

    jobs = jobs or max(1, min(len(GROUPS), os.cpu_count() or 1))
    code = f"from gomoku.engine.player.warmup import child_main; raise SystemExit(child_main(nice={int(nice)}, log={log!r}))"
    t0 = time.perf_counter()
    lock = threading.Lock()
    events: list[tuple[str, float]] = []
    running: list["subprocess.Popen[bytes]"] = []
    failures: list[str] = []
    quit_now = threading.Event()

    def lane(runs: list[list[str]]) -> None:
        for names in runs:
            with tempfile.TemporaryFile() as err:
                with lock:
                    if quit_now.is_set():
                        return
                    p = subprocess.Popen([sys.executable, "-c", code, *names], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=err, env=env)
                    running.append(p)
                assert p.stdout is not None
                with p.stdout:
                    for raw in p.stdout:
                        parts = raw.decode("utf-8", "replace").rstrip("\n").split(" ", 2)
                        if len(parts) == 3 and parts[0] == "done":
                            with lock:
                                events.append((parts[2], float(parts[1])))
                p.wait()
                if p.returncode != 0:
                    err.seek(0)
                    tail = err.read().decode("utf-8", "replace").strip().splitlines()[-3:]
                    with lock:
                        failures.append(f"compiling the engine failed (exit status {p.returncode}): "
                                        + " | ".join(tail))
                    return

    def drain() -> None:
        with lock:
            got, events[:] = list(events), []
        for label, seconds in got:
            on_step(label, seconds)

    threads = [threading.Thread(target=lane, args=(processes_of(steps),), daemon=True)
               for steps in plan_processes(jobs)]
    try:
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            drain()
            if poll is not None:
                poll()
            time.sleep(0.1)
        drain()
        if failures:
            raise CompileError(failures[0])
    finally:
        with lock:
            quit_now.set()
            for p in running:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    return time.perf_counter() - t0
