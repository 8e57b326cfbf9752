"""engine.timeman.time_budget: the seconds a duration-taking searcher (MCTS) may use, and the
MCTS player taking it from timeman rather than from engine.agent (which imports the player)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gomoku.engine.limits import Limit
from gomoku.engine.timeman import SOFT_SHARE, TURN_MARGIN_S, time_budget


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


@pytest.mark.process
def test_the_mcts_player_does_not_import_the_classical_agent():
    """Playing a move under a clock (which needs the time budget) leaves engine.agent unloaded
    (a fresh interpreter: this one has imported everything already)."""
    code = ("import sys\n"
            "from gomoku.engine.game.board import Board\n"
            "from gomoku.engine.limits import Limit\n"
            "from gomoku.engine.mcts.player import MCTSPlayer\n"
            "from gomoku.engine.mcts.search import MCTSConfig\n"
            "b = Board(9, 9)\n"
            "b.play(4, 4)\n"
            "MCTSPlayer(MCTSConfig.pure(20), use_solver=False).play(b, Limit(turn_time=0.2))\n"
            "print('gomoku.engine.agent' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
