"""Numba's compile events booked per jitted function and warm-up step, for `gomoku bench --compile`.

To cut a cold compile's cost one has to know where it goes. A compiling child process
(`warmup.child_main`) given a log file records, per function, the
signatures it compiled and its own seconds (the time inside numba's `numba:compile` event less
that of the compiles it triggered, i.e. of the callees that are not inlined; an
`inline="always"` callee counts in each caller), and appends one JSON line for the process,
with the process's CPU seconds and peak RSS, when it is done.
"""
from __future__ import annotations

import json
import time
from typing import Any

class CompileLog:
    """A listener on numba's compile events while it is entered; `step` is the label the
    compiles are booked to."""

    def __init__(self) -> None:
        self.step = ""
        self.funcs: dict[str, dict[str, Any]] = {}
        self.steps: list[tuple[str, float]] = []
        self._stack: list[list[Any]] = []          # [key, signature, start, seconds of nested compiles]
        self._listener: Any = None

    def __enter__(self) -> "CompileLog":
        from numba.core import event

        log = self

        class Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                f = ev.data["dispatcher"].py_func
                log._stack.append([f"{f.__module__.replace('gomoku.engine.', '')}.{f.__qualname__}",
                                   str(ev.data["args"]), time.perf_counter(), 0.0])

            def on_end(self, ev: event.Event) -> None:
                log._booked(*log._stack.pop())

        self._listener = Listener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc_info: object) -> None:
        from numba.core import event
        event.unregister("numba:compile", self._listener)

    def _booked(self, key: str, sig: str, t0: float, nested: float) -> None:
        total = time.perf_counter() - t0
        if self._stack:
            self._stack[-1][3] += total
        rec = self.funcs.setdefault(key, {"self": 0.0, "sigs": [], "steps": []})
        rec["self"] += total - nested
        rec["sigs"].append(sig)
        if self.step not in rec["steps"]:
            rec["steps"].append(self.step)

    def done(self, label: str, seconds: float) -> None:
        """A step finished after `seconds` of wall time."""
        self.steps.append((label, seconds))

    def record(self) -> dict[str, Any]:
        """This process's line: the functions, the steps, CPU seconds and peak RSS so far."""
        import resource                                        # POSIX only: a benchmark's figure
        use = resource.getrusage(resource.RUSAGE_SELF)
        return {"funcs": self.funcs, "steps": self.steps, "cpu": use.ru_utime + use.ru_stime,
                "rss_mb": use.ru_maxrss / 1024.0}                # Linux: KiB

    def append_to(self, path: str) -> None:
        """One line, in one write (the lanes of a compile append to the same file)."""
        with open(path, "a") as fh:
            fh.write(json.dumps(self.record()) + "\n")


def merge(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The processes' lines as one compile: functions summed over processes (a function two
    processes compiled counts twice, as its CPU did), steps in order, CPU summed, the largest
    process's peak RSS, and `processes` (each one's steps, CPU and peak)."""
    funcs: dict[str, dict[str, Any]] = {}
    for line in lines:
        for key, rec in line["funcs"].items():
            into = funcs.setdefault(key, {"self": 0.0, "sigs": [], "steps": []})
            into["self"] += rec["self"]
            into["sigs"] += rec["sigs"]
            into["steps"] += [s for s in rec["steps"] if s not in into["steps"]]
    return {"funcs": funcs, "steps": [step for line in lines for step in line["steps"]],
            "cpu": sum(line["cpu"] for line in lines),
            "rss_mb": max((line["rss_mb"] for line in lines), default=0.0),
            "processes": [{"steps": [s for s, _ in line["steps"]], "cpu": line["cpu"], "rss_mb": line["rss_mb"]}
                          for line in lines]}
