"""engine.base.timeman: deadlines from the protocol's clocks."""
from __future__ import annotations

import pytest

from gomoku.engine.base import timeman
from gomoku.engine.base.limits import UNLIMITED_MS
from gomoku.engine.base.timeman import TimeInfo, compute_budget


def info(**kw) -> TimeInfo:
    t = TimeInfo(**kw)
    t.default_turn = 5000
    return t


def test_turn_limit_keeps_a_margin():
    b = compute_budget(info(timeout_turn=1000), 100.0)
    assert not b.instant
    assert 100.0 + 0.80 < b.hard < 100.0 + 0.95      # 1000 ms minus 60 ms + 4 %
    assert b.soft < b.hard
    assert b.limit_ms == 1000


def test_turn_zero_is_instant():
    b = compute_budget(info(timeout_turn=0, time_left=UNLIMITED_MS), 10.0)
    assert b.instant and b.soft == 10.0 and b.hard - 10.0 <= 0.15


@pytest.mark.parametrize("left", [0, -500])
def test_no_time_left_is_instant(left):
    assert compute_budget(info(timeout_turn=5000, time_left=left), 0.0).instant


def test_unlimited_sentinel_is_ignored():
    b = compute_budget(info(timeout_turn=2000, timeout_match=0, time_left=UNLIMITED_MS), 0.0)
    assert b.limit_ms == 2000


def test_time_left_caps_the_hard_deadline():
    b = compute_budget(info(timeout_turn=30000, timeout_match=180000, time_left=1500), 0.0)
    assert b.hard < 1.5 and b.limit_ms == 1500


def test_match_clock_is_shared_over_moves():
    b = compute_budget(info(timeout_turn=300000, timeout_match=1000000, time_left=1000000), 0.0)
    assert 20 < b.soft < 60               # not the whole 300 s turn
    assert b.hard > 250


def test_no_info_uses_default():
    t = info()
    t.default_turn = 700
    b = compute_budget(t, 0.0)
    assert b.limit_ms == 700 and b.hard < 0.7


def test_first_move_pays_startup_and_extra_margin():
    t = info(timeout_turn=1000)
    normal = compute_budget(t, 50.0)
    first = compute_budget(t, 50.0, first_move=True, startup_s=0.3)
    assert first.origin == pytest.approx(49.7)
    assert first.hard < normal.hard - 0.3


def test_tighten_never_extends():
    t = info(timeout_turn=30000)
    b = compute_budget(t, 0.0)
    t.time_left = 400
    tight = timeman.tighten(b, t)
    assert tight.hard < 0.4 and tight.soft <= tight.hard
    t.time_left = 10_000_000
    again = timeman.tighten(tight, t)
    assert again.hard == tight.hard


def test_stop_now():
    b = compute_budget(info(timeout_turn=30000), 0.0)
    s = timeman.stop_now(b, 1.0, 0.15)
    assert s.soft == 1.0 and s.hard == pytest.approx(1.15)


def test_process_age_and_startup_cost():
    age = timeman.process_age_s()
    assert 0.0 < age < 24 * 3600
    assert timeman.startup_cost_s(age_s=5.0, cpu_s=0.2) == pytest.approx(0.3)
    assert timeman.startup_cost_s(age_s=0.1, cpu_s=0.5) == pytest.approx(0.1)
    assert timeman.startup_cost_s(age_s=50, cpu_s=40) == 2.0


def test_table_memory():
    mb = 1024 * 1024
    assert timeman.table_memory_bytes(367001600, 120 * mb) == 350 * mb - 120 * mb - 32 * mb
    assert timeman.table_memory_bytes(0, 120 * mb) == timeman.table_memory_bytes(None, 120 * mb)
    assert timeman.table_memory_bytes(1, 120 * mb) == 4 * mb


def test_the_brains_tables_under_gomocups_limit_and_below_what_it_needs():
    # one memory figure: the TT keeps its full 32 MiB under Gomocup's 350 MB, and a limit
    # below the brain's own memory leaves the smallest tables, the floor's half for the TT
    from gomoku.engine.player.agent import _table_bytes
    mb = 1024 * 1024
    assert timeman.table_memory_bytes(367001600) == 350 * mb - timeman.BRAIN_RESIDENT_BYTES - 32 * mb
    assert _table_bytes(367001600) == 32 * mb
    assert _table_bytes(timeman.MIN_USABLE_MEMORY - 1) == 2 * mb
    assert timeman.table_memory_bytes(timeman.MIN_USABLE_MEMORY) == timeman.MIN_TABLE_BYTES


def test_search_deadlines_from_a_limit():
    from gomoku.engine.base.limits import Limit
    s = 100.0
    assert timeman.search_deadlines(Limit(turn_time=0), s).instant
    assert timeman.search_deadlines(Limit(time_left=0.0), s).instant
    untimed = timeman.search_deadlines(Limit(nodes=10), s)
    assert not untimed.timed and untimed.another_iteration(1.0, 9.0, 1e9)
    assert timeman.search_deadlines(Limit(), s).seconds == timeman.DEFAULT_THINK_S
    one = timeman.search_deadlines(Limit(turn_time=1.0), s)
    assert 0.9 < one.seconds < 1.0 and one.soft < one.hard <= s + 1.0      # checks end inside the turn
    clock = timeman.search_deadlines(Limit(turn_time=5.0, time_left=10.0), s)
    assert clock.seconds == pytest.approx(10.0 / timeman.MOVES_TO_GO)
    assert clock.hard <= s + 5.0
    # the brain's own deadlines are used as they are
    own = timeman.search_deadlines(Limit(turn_time=0.5, hard_time=0.6), s)
    assert (own.soft, own.hard) == (s + 0.5, pytest.approx(s + 0.6))


def test_engine_times_follow_the_brains_budget():
    info = timeman.TimeInfo(timeout_turn=1000, timeout_match=0)
    b = timeman.compute_budget(info, 50.0)
    soft, hard = timeman.engine_times(b, 50.0)
    assert soft == pytest.approx(b.soft - 50.0) and soft < hard < b.hard - 50.0
    instant = timeman.compute_budget(timeman.TimeInfo(timeout_turn=0), 50.0)
    assert timeman.engine_times(instant, 50.0) == (0.0, 0.0)


def test_the_next_iteration_rule():
    d = timeman.Deadlines(0.0, 1.0, 1.04)
    assert d.another_iteration(0.01, 0.02, 0.5)          # plenty of time left
    assert not d.another_iteration(0.1, 0.3, 0.9)        # 0.1 s left, the next would take ~0.9 s
