"""`gomoku bench --compile`: what a cold compile of the engine costs, function by function.

A fresh install compiles the numba engine for minutes before its first move; to cut that
time one has to know where it goes. This runs the compile as `gomoku warmup -j 1` and the
brain's compile child run it (`warmup.compile_in_processes`: the warm-up steps in a few
processes one after the other) against an empty temporary `NUMBA_CACHE_DIR`, so it compiles
everything cold without touching the real cache, and reports, from the children's compile
logs (`engine.base.compile_log`):

- per jitted function: the signatures compiled and its own compile seconds;
- per warm-up step: wall seconds; per process: its steps, CPU seconds and peak RSS;
- the total CPU seconds (user + system) of the processes and the largest one's peak RSS.

A cold compile costs minutes of one core: run it rarely, and `nice` it on a shared machine.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from typing import Any, Callable


def measure(nice: int = 10, jobs: int = 1) -> dict[str, Any]:
    """Compile the engine cold in child processes (`jobs` lanes); returns the merged compile
    logs (`compile_log.merge`) plus `wall` (seconds)."""
    from gomoku.engine.base.compile_log import merge
    from gomoku.engine.player import warmup

    with tempfile.TemporaryDirectory(prefix="gomoku-compile-") as tmp:
        log = os.path.join(tmp, "compile.jsonl")
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"))
        t0 = time.perf_counter()
        try:
            warmup.compile_in_processes(lambda _label, _seconds: None, jobs=jobs, env=env, nice=nice, log=log)
        except warmup.CompileError as exc:
            raise RuntimeError(str(exc)) from None
        wall = time.perf_counter() - t0
        with open(log) as fh:
            data = merge([json.loads(line) for line in fh if line.strip()])
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
    for k, proc in enumerate(data.get("processes", []), 1):
        say(f"process {k}: {', '.join(proc['steps'])}: cpu {proc['cpu']:.1f} s, peak RSS {proc['rss_mb']:.0f} MB")
    nsig = sum(len(r["sigs"]) for _, r in funcs)
    say(f"compile: functions={len(funcs)} signatures={nsig} compile_s={compiled:.1f} "
        f"wall_s={data['wall']:.1f} cpu_s={data['cpu']:.1f} peak_rss_mb={data['rss_mb']:.0f} "
        f"processes={len(data.get('processes', [])) or 1}")


def main() -> None:  # pragma: no cover - convenience: python -m gomoku.tools.bench_compile
    report(measure())


if __name__ == "__main__":  # pragma: no cover
    main()
