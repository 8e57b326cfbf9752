"""External brains over a pipe: the BrainClient and the referee's verdicts on real processes."""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from gomoku.engine.match.arena import BLACK, WHITE, GameSettings, Match, MatchSettings, play_game, probe_player
from gomoku.engine.game.board import Board
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.openings import builtin_openings
from gomoku.engine.match.players import PlayerCrashed, PlayerStartError, PlayerTimeout, RandomPlayer
from gomoku.protocol.players import make_player
from gomoku.engine.game.rules import Rule
from gomoku.protocol.client import BrainClient

FIXTURE = Path(__file__).parent / "fixtures" / "pbrain_fixture.py"


def brain(mode: str = "random", *args: str) -> str:
    return " ".join([sys.executable, str(FIXTURE), mode, *args])


S = GameSettings(15, turn_time=2.0, tolerance=0.5, start_timeout=10, factory=make_player)


def test_client_plays_and_closes():
    with BrainClient(brain("random", "1"), tolerance=0.5) as c:
        assert c.about["name"] == "fixture"
        c.new_game(15, 15, Rule.FREESTYLE)
        b = Board(15)
        r = c.play(b, Limit(turn_time=1.0))
        assert b.in_bounds(*r.move) and r.info["time"] < 1.5
        pid = c.proc.pid
    assert c.proc.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_close_kills_the_whole_process_tree(tmp_path):
    pidfile = tmp_path / "kid.pid"
    c = BrainClient(brain("child", str(pidfile)))
    c.new_game(15, 15, Rule.FREESTYLE)
    kid = int(pidfile.read_text())
    os.kill(kid, 0)                      # alive while the brain runs
    c.close()                            # END, grace, then SIGKILL to the process group
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.kill(kid, 0)
        except ProcessLookupError:
            break
        try:   # reap it if it is our grandchild turned zombie (it is not our child: nothing to reap)
            os.waitpid(kid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    else:
        status = Path(f"/proc/{kid}/status")
        assert status.exists() and "zombie" in status.read_text(), "child of the brain survived close()"


def test_protocol_uses_board_then_turn(tmp_path):
    log = tmp_path / "cmds.txt"
    opening = builtin_openings(15)[0]
    logger = make_player(f"brain:{brain('log', str(log))}")
    try:
        res = play_game(logger, RandomPlayer(1), GameSettings(15, turn_time=2.0, match_time=60, draw_after=9),
                        opening)
    finally:
        logger.close()
    assert res.reason in ("adjudication", "five")
    lines = log.read_text().split("\n")
    assert lines[:2] == ["ABOUT", "START 15"]
    assert lines[-2] == "END"
    assert "INFO rule 0" in lines and "INFO timeout_turn 2000" in lines and "INFO timeout_match 60000" in lines
    assert any(l.startswith("INFO time_left ") for l in lines)
    first = lines.index("BOARD")
    x, y = opening[0]
    # the brain plays black; after the 3-stone opening white (random) moved first, so the
    # first request is BOARD with 4 stones and black's are the brain's own (1)
    assert lines[first + 1] == f"{x},{y},1"
    assert lines[first + 2] == f"{opening[1][0]},{opening[1][1]},2"
    assert lines[first + 5] == "DONE"
    assert any(l.startswith("TURN ") for l in lines[first:])
    assert lines.count("BOARD") == 1


def test_brain_match_against_in_process_player():
    settings = MatchSettings(S, games=4, openings=tuple(builtin_openings(15)), seed=2)
    summary = Match(f"brain:{brain('random', '3')}", "random", settings).run()
    assert len(summary.results) == 4
    assert [r.a_is_black for r in summary.results] == [True, False, True, False]
    assert {r.reason for r in summary.results} <= {"five", "full"}
    for r in summary.results:
        assert r.black == ("pbrain_fixture" if r.a_is_black else "random")
        assert Board.from_moves(15, r.moves).winner == r.winner


def test_brain_vs_brain_with_two_workers():
    settings = MatchSettings(S, games=4, seed=2, concurrency=2)
    summary = Match(f"brain:{brain('random', '1')}", f"brain:{brain('chatty')}", settings).run()
    assert sorted(r.index for r in summary.results) == [0, 1, 2, 3]
    assert {r.reason for r in summary.results} <= {"five", "full"}   # chatter is skipped, not judged


@pytest.mark.parametrize("as_black", [True, False])
def test_brain_playing_occupied_cell_loses(as_black):
    bad, good = make_player(f"brain:{brain('occupied')}"), RandomPlayer(1)
    try:
        b, w = (bad, good) if as_black else (good, bad)
        res = play_game(b, w, S, builtin_openings(15)[0])
    finally:
        bad.close()
    assert res.reason == "illegal" and "occupied" in res.detail
    assert res.winner == (WHITE if as_black else BLACK)


def test_brain_off_board_loses():
    bad = make_player(f"brain:{brain('offboard')}")
    try:
        res = play_game(RandomPlayer(1), bad, S)
    finally:
        bad.close()
    assert (res.winner, res.reason) == (BLACK, "illegal") and "outside" in res.detail


def test_late_brain_loses_on_time_and_is_killed():
    late = make_player(f"brain:{brain('late', '60')}", tolerance=0.2)
    try:
        t0 = time.monotonic()
        res = play_game(late, RandomPlayer(1), GameSettings(15, turn_time=0.3, tolerance=0.2))
        took = time.monotonic() - t0
        assert (res.winner, res.reason) == (WHITE, "time")
        # killed at 0.3 + 0.2 s, not waited for: the brain would answer after 60 s, so any
        # bound well under that tells the two apart, whatever the machine's load
        assert took < 20
        assert late.alive is False
    finally:
        late.close()


def test_late_brain_within_tolerance_is_accepted():
    late = make_player(f"brain:{brain('late', '0.3')}", tolerance=1.0)
    try:
        res = play_game(late, RandomPlayer(1), GameSettings(15, turn_time=0.1, tolerance=1.0, draw_after=4))
    finally:
        late.close()
    assert res.reason == "adjudication"


def test_crashing_brain_loses_and_is_replaced_next_game():
    settings = MatchSettings(S, games=2, seed=1)
    summary = Match(f"brain:{brain('crash')}", "random", settings).run()
    assert [r.reason for r in summary.results] == ["crash", "crash"]
    assert all("exit code 3" in r.detail for r in summary.results)
    assert summary.wld() == (0, 2, 0)


def test_brain_that_does_not_start():
    with pytest.raises(PlayerStartError, match="did not start"):
        BrainClient(brain("dead"))
    with pytest.raises(PlayerStartError, match="refused START 15"):
        probe_player(f"brain:{brain('refuse')}", S)


def test_client_timeout_and_crash_exceptions():
    with BrainClient(brain("late", "5"), tolerance=0.1) as c:
        c.new_game(15, 15, Rule.FREESTYLE)
        with pytest.raises(PlayerTimeout):
            c.play(Board(15), Limit(turn_time=0.1))
    with BrainClient(brain("crash")) as c:
        c.new_game(15, 15, Rule.FREESTYLE)
        with pytest.raises(PlayerCrashed, match="exit code 3"):
            c.play(Board(15), Limit(turn_time=1))


def _pbrain_gomoku() -> str | None:
    exe = Path(sys.executable).parent / "pbrain-gomoku"
    if exe.exists():
        return str(exe)
    return shutil.which("pbrain-gomoku")


@pytest.mark.process
@pytest.mark.slow
def test_our_pbrain_gomoku_over_the_protocol():
    exe = _pbrain_gomoku()
    if exe is None:
        pytest.skip("pbrain-gomoku entry point is not installed")
    settings = MatchSettings(GameSettings(15, turn_time=0.5, tolerance=1.0, start_timeout=20, factory=make_player), games=2,
                             openings=tuple(builtin_openings(15)), seed=4)
    summary = Match(f"brain:{exe}", "random", settings).run()
    assert len(summary.results) == 2
    assert {r.reason for r in summary.results} <= {"five", "full"}, [r.detail for r in summary.results]
    # a real engine must not lose to random moves
    assert summary.wld()[0] == 2, [r.detail for r in summary.results]
