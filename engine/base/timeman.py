"""How long to think: the one place that turns time limits into deadlines.

Every clock ends here: the protocol's INFO values (`compute_budget`: the brain's soft and hard
deadlines), a Limit's turn_time / time_left / match_time (`search_deadlines`: `--time`, the
match runner's clocks) and the brain's own budget handed to the engine (`engine_times`). The
agent and the searches hold no time constant: they poll the `Deadlines` made here.

Managers measure wall time from writing a move request to reading our move, then forfeit us
after `min(timeout_turn, time_left) + tolerance`. Searches never look at those numbers; they poll
a deadline computed here. Two deadlines per move:

* `soft`: when the search should stop (stop event set); aims to use a fair share of the clock.
* `hard`: the last moment a move line may be printed; a watchdog prints a cheap move then.

Both are `time.monotonic()` values. The margin covers what the manager counts and we do not see:
pipe and scheduler latency, the first-move numba cache load, and (for the first move of a
process) start-up work that GomocupJudge charges to the first move.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Optional

from gomoku.engine.base.limits import UNLIMITED_MS, Limit

#: Budget when no time INFO was ever sent (ms); the brain's `--turn-ms` (or GOMOKU_TURN_MS, read
#: by protocol/options.py) gives the session another one.
DEFAULT_TURN_MS = 5000
#: Fixed part of the safety margin (ms): pipe latency, thread wake-up, the manager's own slack.
BASE_MARGIN_MS = 70
#: Proportional part of the margin: scheduler stalls on a loaded machine (measured up to ~0.2 s
#: on a shared 2-core box during 1 s/move matches) and GC pauses.
MARGIN_FRACTION = 0.08
#: Extra margin for the first move of a process: numba functions are loaded from the cache on
#: their first call, which can take a few hundred ms.
FIRST_MOVE_MARGIN_MS = 150
#: The longest margin we ever keep back (ms); long thinks still use almost all their time.
MAX_MARGIN_MS = 1500
#: The hard deadline sits at least this much (ms), or HARD_GAP_FRACTION of the limit, after the
#: soft one, so the engine gets a chance to return its own move before the watchdog answers.
MIN_HARD_GAP_MS = 40
HARD_GAP_FRACTION = 0.05
#: Hard deadline (ms) of an instant move (timeout_turn 0): the quickest engine answer or a
#: cheap move; tests allow 200 ms.
INSTANT_HARD_MS = 120
#: How many more moves we expect to play when only a match clock limits us.
MOVES_TO_GO = 25

#: Budget (s) of a search whose Limit says nothing about time, nodes or depth.
DEFAULT_THINK_S = 5.0
#: Share of a Limit's turn_time after which the search stops, less TURN_MARGIN_S for returning
#: the move; what is left of the turn (up to CHECKS_SHARE of the search's time) is for the last
#: safety checks of the move chosen (alphabeta's final checks), which end at the hard deadline.
SOFT_SHARE = 0.97
TURN_MARGIN_S = 0.02
CHECKS_SHARE = 0.04
#: The brain's engine: its search stops at the brain's soft deadline and its final checks end
#: this share of the way from there to the hard one (where the watchdog answers instead).
CHECKS_GAP_SHARE = 0.5
#: Start another iteration only when the time left covers this share of its predicted cost
#: (an interrupted iteration still counts where its first move finished and was beaten; the
#: first move of an iteration takes about half of it); the prediction grows the last
#: iteration's time by the growth of the last two, within these bounds.
NEXT_ITER_SHARE = 0.25
ITER_GROWTH_MIN, ITER_GROWTH_MAX = 1.5, 6.0


@dataclass
class TimeInfo:
    """The protocol's time and memory INFO values (ms / bytes), None = never sent."""
    timeout_turn: Optional[int] = None
    timeout_match: Optional[int] = None
    time_left: Optional[int] = None
    max_memory: Optional[int] = None
    default_turn: int = DEFAULT_TURN_MS     # ms a move when the manager sends no time INFO

    def match_limited(self) -> bool:
        """True when `time_left` is a real clock (not absent, not the 'unlimited' sentinel)."""
        if self.time_left is None or self.time_left >= UNLIMITED_MS:
            return False
        # timeout_match 0 means unlimited; a time_left sent anyway is still honoured (managers
        # enforce time_left per move), unless it is the sentinel.
        return True


@dataclass(frozen=True)
class Budget:
    """Deadlines for one move, as time.monotonic() values, plus the limit they came from."""
    origin: float      # when the manager's clock for this move (probably) started
    soft: float        # stop searching here
    hard: float        # print a move no later than this
    limit_ms: float    # the manager's allowance, min(turn, left); inf when unlimited
    instant: bool      # timeout_turn 0 / no time left: answer without searching


@dataclass(frozen=True)
class Deadlines:
    """When one search stops, as time.perf_counter() values (None: no clock, only nodes or
    depth limit it). `soft`: the watcher stops the search here. `hard`: the move's last safety
    checks end here (never before `soft`)."""
    start: float
    soft: Optional[float] = None
    hard: Optional[float] = None

    @property
    def timed(self) -> bool:
        return self.soft is not None

    @property
    def instant(self) -> bool:
        """No time to search: answer with the static move."""
        return self.soft is not None and self.soft <= self.start

    @property
    def seconds(self) -> Optional[float]:
        """Seconds from the start to the soft deadline (sizes the root probes' node budgets)."""
        return None if self.soft is None else max(0.0, self.soft - self.start)

    def another_iteration(self, t_prev: float, t_last: float, now: float) -> bool:
        """Start the next iteration? Its cost is predicted from the growth of the last two."""
        if self.soft is None:
            return True
        growth = t_last / t_prev if t_prev > 1e-4 else 3.0
        growth = min(max(growth, ITER_GROWTH_MIN), ITER_GROWTH_MAX)
        return self.soft - now > NEXT_ITER_SHARE * growth * t_last


def exact_deadlines(start: float, seconds: Optional[float]) -> Deadlines:
    """Stop after exactly `seconds` (None: no clock), checks included: a caller's own deadline."""
    if seconds is None:
        return Deadlines(start)
    return Deadlines(start, start + seconds, start + seconds)


def clock_share(left: float, total: Optional[float]) -> float:
    """What one move may use of a game clock with `left` (of `total`) left, in their unit."""
    share = left / MOVES_TO_GO
    if total:
        share = max(share, min(left * 0.5, total / (2 * MOVES_TO_GO)))
    return share


def search_deadlines(limit: Limit, start: float) -> Deadlines:
    """The deadlines of one search under `limit`, started at `start` (perf_counter).

    `turn_time` is the move's allowance: the search stops at SOFT_SHARE of it (less the
    return margin), its checks end before the allowance does. `time_left` (of `match_time`)
    gives a share of the clock (`clock_share`). With `hard_time` the caller made its own
    deadlines (the brain: `engine_times`) and they are used as they are. `turn_time == 0` or
    an empty clock means instant; no time field and no node or depth limit: DEFAULT_THINK_S."""
    if limit.hard_time is not None and limit.turn_time is not None:
        soft = start + max(0.0, limit.turn_time)
        return Deadlines(start, soft, max(soft, start + limit.hard_time))
    if (limit.turn_time is not None and limit.turn_time <= 0) or \
            (limit.time_left is not None and limit.time_left <= 0):
        return Deadlines(start, start, start)
    softs, hards = [], []
    if limit.turn_time is not None:
        softs.append(max(0.001, limit.turn_time * SOFT_SHARE - TURN_MARGIN_S))
        hards.append(max(0.001, limit.turn_time - TURN_MARGIN_S))
    if limit.time_left is not None and limit.time_left < UNLIMITED_MS / 1000:
        softs.append(clock_share(limit.time_left, limit.match_time))
        hards.append(max(0.001, limit.time_left * 0.5))
    if not softs:
        if limit.nodes or limit.depth:
            return Deadlines(start)
        softs.append(DEFAULT_THINK_S)
    soft = min(softs)
    hard = min(hards + [soft * (1 + CHECKS_SHARE)])
    return Deadlines(start, start + soft, start + max(soft, hard))


def time_budget(limit: Limit) -> Optional[float]:
    """Seconds a search may use under `limit` (None: no clock, only nodes or depth), for
    searchers that take a duration (engine.mcts): the soft deadline, 0 for instant."""
    return search_deadlines(limit, 0.0).seconds


def engine_times(budget: "Budget", now: float) -> tuple[float, float]:
    """(turn_time, hard_time) for the Limit the brain hands its engine at `now` (monotonic):
    the search stops at the brain's soft deadline and its checks end CHECKS_GAP_SHARE of the
    way to the hard one, where the watchdog would answer. (0, 0) for an instant move."""
    if budget.instant:
        return 0.0, 0.0
    soft = max(0.0, budget.soft - now)
    hard = max(soft, budget.soft + CHECKS_GAP_SHARE * (budget.hard - budget.soft) - now)
    return soft, hard


def margin_ms(limit_ms: float, first_move: bool) -> float:
    """Safety margin kept back from a manager allowance of `limit_ms`."""
    m = BASE_MARGIN_MS + MARGIN_FRACTION * limit_ms
    if first_move:
        m += FIRST_MOVE_MARGIN_MS
    return min(m, MAX_MARGIN_MS)


def compute_budget(info: TimeInfo, origin: float, *, first_move: bool = False,
                   startup_s: float = 0.0) -> Budget:
    """Deadlines for a move requested at `origin` (monotonic seconds).

    `startup_s` is start-up work the manager may have charged to this move (GomocupJudge starts
    the first move's clock before our interpreter finished starting); it moves the origin back.
    `timeout_turn == 0` (or a clock at or below zero) means an instant move: the soft deadline is
    the origin and the hard one is as soon as a cheap move can be printed.
    """
    origin = origin - max(0.0, startup_s)
    turn = info.timeout_turn
    limited_match = info.match_limited()
    left = info.time_left if limited_match else None

    if turn is None and left is None:
        turn = info.default_turn
    caps = [v for v in (turn, left) if v is not None]
    limit_ms = float(min(caps)) if caps else float("inf")

    if (turn is not None and turn <= 0) or (left is not None and left <= 0):
        return Budget(origin, origin, origin + INSTANT_HARD_MS / 1000.0, max(limit_ms, 0.0), True)

    margin = margin_ms(limit_ms, first_move)
    hard_ms = max(limit_ms - margin, limit_ms * 0.5)
    # Share of the match clock: spend time_left over the moves still to come, but never less
    # than what one turn would allow when a turn limit is the smaller one.
    soft_ms = hard_ms
    if left is not None:
        total = info.timeout_match if info.timeout_match and info.timeout_match > 0 else None
        soft_ms = min(soft_ms, clock_share(left, total))
    soft_ms = min(soft_ms, hard_ms - min(max(MIN_HARD_GAP_MS, HARD_GAP_FRACTION * limit_ms), hard_ms * 0.3))
    soft_ms = max(soft_ms, 0.0)
    return Budget(origin, origin + soft_ms / 1000.0, origin + hard_ms / 1000.0, limit_ms, False)


def tighten(budget: Budget, info: TimeInfo, *, first_move: bool = False) -> Budget:
    """Recompute a running move's deadlines after new INFO values; never extends them."""
    fresh = compute_budget(info, budget.origin, first_move=first_move)
    return Budget(budget.origin, min(budget.soft, fresh.soft), min(budget.hard, fresh.hard),
                  min(budget.limit_ms, fresh.limit_ms), budget.instant or fresh.instant)


def stop_now(budget: Budget, now: float, grace_s: float = 0.15) -> Budget:
    """Deadlines after a stop request (YXSTOP): stop at once, answer within `grace_s`."""
    return Budget(budget.origin, min(budget.soft, now), min(budget.hard, now + grace_s),
                  budget.limit_ms, budget.instant)


def process_age_s() -> float:
    """Seconds since this process was created (Linux /proc; 0.0 where unavailable).

    Used to tell how much start-up work happened before the reader was ready; /proc/uptime
    and the process start tick share a clock, so suspension of other processes does not matter.
    """
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        # Field 22 (starttime) counts after the ')' that ends the command name.
        fields = stat[stat.rindex(")") + 2:].split()
        start_ticks = int(fields[19])
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        hz = os.sysconf("SC_CLK_TCK")
        return max(0.0, uptime - start_ticks / hz)
    except (OSError, ValueError, IndexError):
        return 0.0


def startup_cost_s(age_s: Optional[float] = None, cpu_s: Optional[float] = None) -> float:
    """Estimate of start-up work a manager could charge to our first move.

    Wall age overstates it when the manager suspended us (GomocupJudge does, right after
    writing START), CPU time understates it by the exec/loader and disk waits; take the smaller
    of wall age and CPU time plus 100 ms, capped at 2 s.
    """
    age = process_age_s() if age_s is None else age_s
    cpu = time.process_time() if cpu_s is None else cpu_s
    return max(0.0, min(age, cpu + 0.1, 2.0))


#: What a brain holds before any table: Python, numpy, the compiled engine, onnxruntime. The
#: peak (VmHWM) over a game with the smallest tables, `python -m gomoku.tools.brain_memory
#: --max-memory 1 --seed S`: 225-244 MiB over seeds 1-3 (2026-12-01, Python 3.11, x86-64 Linux,
#: warm cache). One figure for the table sizes, the brain's warning and the docs.
BRAIN_RESIDENT_BYTES = 245 << 20
#: Kept back beyond that peak: a measured peak already holds numba's and Python's garbage, so
#: this covers only what a different game or platform adds.
MEMORY_MARGIN_BYTES = 32 << 20
#: The smallest tables the engine plays with, whatever the limit says.
MIN_TABLE_BYTES = 4 << 20
#: The smallest `max_memory` a brain can keep to; below it the brain says so and plays anyway.
MIN_USABLE_MEMORY = BRAIN_RESIDENT_BYTES + MEMORY_MARGIN_BYTES + MIN_TABLE_BYTES


def table_memory_bytes(max_memory: Optional[int], resident_bytes: int = BRAIN_RESIDENT_BYTES,
                       default_total: int = 350 * 1024 * 1024) -> int:
    """Bytes the engine may spend on tables (TT, trees) under the process-wide `max_memory`.

    0/None means no announced limit: we still keep to `default_total` (Gomocup's 350 MB).
    What the process holds (`resident_bytes`, a measured peak) plus MEMORY_MARGIN_BYTES is kept
    back; the floor MIN_TABLE_BYTES lets the engine play under a tiny or impossible limit.
    """
    total = default_total if not max_memory or max_memory <= 0 else min(max_memory, 4 * default_total)
    spare = total - resident_bytes - MEMORY_MARGIN_BYTES
    return max(MIN_TABLE_BYTES, int(spare))
