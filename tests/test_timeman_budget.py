"""engine.base.timeman.time_budget: the seconds a duration-taking searcher (MCTS) may use. The MCTS
player takes it from timeman, not from engine.player.agent (which imports the player):
tests/test_imports.py holds that no import of the player's reaches the agent."""
from __future__ import annotations

import pytest

from gomoku.engine.base.limits import Limit
from gomoku.engine.base.timeman import SOFT_SHARE, TURN_MARGIN_S, time_budget


def test_no_clock_and_a_node_limit_give_no_budget():
    assert time_budget(Limit(nodes=1000)) is None
    assert time_budget(Limit(depth=4)) is None


def test_instant_moves_get_zero_seconds():
    assert time_budget(Limit(turn_time=0)) == 0.0
    assert time_budget(Limit(time_left=0)) == 0.0


def test_a_turn_time_gives_its_soft_share():
    assert time_budget(Limit(turn_time=2.0)) == pytest.approx(2.0 * SOFT_SHARE - TURN_MARGIN_S)


def test_a_callers_own_deadlines_are_used_as_they_are():
    assert time_budget(Limit(turn_time=1.5, hard_time=2.0)) == pytest.approx(1.5)
