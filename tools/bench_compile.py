"""`gomoku bench --compile`: what a cold compile of the engine costs, function by function.

A fresh install compiles the numba engine for minutes before its first move; to cut that
time one has to know where it goes. This runs the whole warm-up (`warmup.warm_steps`, what
`gomoku warmup` and the brain's compile child run) in a child process against an empty
temporary `NUMBA_CACHE_DIR`, so it compiles everything cold without touching the real cache,
and reports:

- per jitted function: the signatures compiled, and its own compile seconds (the time
  inside numba's `numba:compile` event minus that of the compiles it triggered, i.e. of the
  callees that are not inlined; an `inline="always"` callee counts in each caller);
- per warm-up step: wall seconds;
- the child's total CPU seconds (user + system) and peak RSS.

A cold compile costs minutes of one core: run it rarely, and `nice` it on a shared machine.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

CHILD_CODE = "import sys; from gomoku.tools.bench_compile import child_main; child_main(sys.argv[1])"


def child_main(out_path: str) -> None:
    """Runs in the child: every warm-up step with a listener on numba's compile events; the
    figures go to `out_path` as JSON."""
    from numba.core import event

    from gomoku.engine.player import warmup

    stack: list[list[Any]] = []          # [key, start, seconds of nested compiles]
    funcs: dict[str, dict[str, Any]] = {}
    step_now = [0]                       # index of the step running now

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            d = ev.data["dispatcher"]
            f = d.py_func
            stack.append([f"{f.__module__.replace('gomoku.engine.', '')}.{f.__qualname__}",
                          str(ev.data["args"]), time.perf_counter(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            key, sig, t0, nested = stack.pop()
            total = time.perf_counter() - t0
            if stack:
                stack[-1][3] += total
            rec = funcs.setdefault(key, {"self": 0.0, "sigs": [], "steps": []})
            rec["self"] += total - nested
            rec["sigs"].append(sig)
            if step_now[0] not in rec["steps"]:
                rec["steps"].append(step_now[0])

    steps: list[tuple[str, float]] = []
    listener = Listener()
    event.register("numba:compile", listener)
    t = time.perf_counter()
    for label in warmup.warm_steps():
        now = time.perf_counter()
        steps.append((label, now - t))
        t = now
        step_now[0] += 1
    event.unregister("numba:compile", listener)
    # a step's label comes when it is done: the compiles were booked by the step's index
    for rec in funcs.values():
        rec["steps"] = [steps[i][0] if i < len(steps) else "?" for i in rec["steps"]]
    with open(out_path, "w") as fh:
        json.dump({"funcs": funcs, "steps": steps}, fh)


def measure(nice: int = 10) -> dict[str, Any]:
    """Compile the engine cold in a child process; returns the child's figures plus `cpu`
    (seconds), `rss_mb` (peak) and `wall` (seconds)."""
    with tempfile.TemporaryDirectory(prefix="gomoku-compile-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"))
        out = os.path.join(tmp, "figures.json")

        def lower_priority() -> None:
            os.nice(nice)
        preexec: Optional[Callable[[], None]] = lower_priority if nice else None
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", CHILD_CODE, out], env=env, stdin=subprocess.DEVNULL,
                             preexec_fn=preexec)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"the compiling child failed (exit status {p.returncode})")
        with open(out) as fh:
            data: dict[str, Any] = json.load(fh)
    data["cpu"] = usage.ru_utime + usage.ru_stime
    data["rss_mb"] = usage.ru_maxrss / 1024.0          # Linux: KiB
    data["wall"] = wall
    return data


def report(data: dict[str, Any], say: Callable[[str], None] = print, top: int = 40) -> None:
    """The table, most expensive first, then the steps and the totals."""
    funcs = sorted(data["funcs"].items(), key=lambda kv: -kv[1]["self"])
    compiled = sum(r["self"] for _, r in funcs)
    say(f"{'seconds':>8} {'share':>6} {'sigs':>4}  function (steps)")
    for key, r in funcs[:top]:
        share = 100.0 * r["self"] / max(compiled, 1e-9)
        say(f"{r['self']:8.1f} {share:5.1f}% {len(r['sigs']):4d}  {key} ({', '.join(r['steps'])})")
    if len(funcs) > top:
        rest = sum(r["self"] for _, r in funcs[top:])
        say(f"{rest:8.1f} {100.0 * rest / max(compiled, 1e-9):5.1f}%       {len(funcs) - top} more functions")
    say("steps: " + ", ".join(f"{label} {s:.1f}s" for label, s in data["steps"]))
    nsig = sum(len(r["sigs"]) for _, r in funcs)
    say(f"compile: functions={len(funcs)} signatures={nsig} compile_s={compiled:.1f} "
        f"wall_s={data['wall']:.1f} cpu_s={data['cpu']:.1f} peak_rss_mb={data['rss_mb']:.0f}")


def main() -> None:  # pragma: no cover - convenience: python -m gomoku.tools.bench_compile
    report(measure())


if __name__ == "__main__":  # pragma: no cover
    main()
