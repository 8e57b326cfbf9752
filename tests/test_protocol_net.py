"""The brain with a net (`gomoku brain --net FILE`) over a pipe: net + MCTS on the boards the net
was trained for, the classical engine on others; a bad net is refused before the protocol starts."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import MOVE_RE, Brain, wait_in_log

from netfiles import conv_net, uniform_net

GOMOKU = str(Path(sys.executable).parent / "gomoku")


@pytest.fixture(scope="module")
def net8(tmp_path_factory) -> str:
    return conv_net(str(tmp_path_factory.mktemp("nets") / "c8.onnx"), sizes=(8,), channels=(16, 16))


def test_brain_with_a_net_plays_legal_searched_moves_and_says_so(net8, tmp_path):
    log = tmp_path / "brain.log"
    with Brain(turn_ms=500, args=[GOMOKU, "brain", "--net", net8, "--log", str(log)]) as b:
        b.send("START 8")
        assert b.line() == "OK"
        b.send("INFO timeout_turn 500")
        # the moves come once the net brain has warmed up: at 500 ms/move, four moves right
        # after START all came before it was usable on a busy machine (ready after 1-2 s), and
        # with a load average of 7-12 four moves after 'engine ready' all found a warm-up step
        # holding the engine at their soft deadline; every one was a fallback
        wait_in_log(log, "engine warmed up")
        played, messages = set(), []
        for x, y in [(3, 3), (4, 4), (2, 5), (6, 1)]:
            b.send(f"TURN {x},{y}")
            played.add((x, y))
            reply = b.line()
            while reply.startswith("MESSAGE"):
                messages.append(reply)
                reply = b.line()
            mv = tuple(int(v) for v in reply.split(","))
            assert mv not in played and all(0 <= v < 8 for v in mv)
            played.add(mv)
        b.send("ABOUT")
        about = b.line()
        b.end()
    # which searcher plays, said to the manager and to whoever reads its log
    assert 'searcher="net cnn16-16 + MCTS on 8x8 freestyle, classical alpha-beta + VCF/VCT elsewhere"' in about
    assert any(m.startswith("MESSAGE net cnn16-16 + MCTS depth ") for m in messages), messages
    text = log.read_text()
    assert "net loaded" in text and "cnn16-16" in text
    assert "by engine" in text                        # at least one move came from the search


def test_brain_with_a_net_uses_the_classical_engine_where_the_net_has_no_claim(net8, tmp_path):
    log = tmp_path / "brain.log"
    with Brain(turn_ms=2000, args=[GOMOKU, "brain", "--net", net8, "--log", str(log)]) as b:
        b.send("START 15")
        assert b.line() == "OK"
        b.send("INFO timeout_turn 2000")
        wait_in_log(log, "engine warmed up")
        b.send("BOARD", "7,7,2", "8,8,1", "6,8,2", "DONE")   # a searched move, not an opening one
        messages = []
        reply = b.line()
        while reply.startswith("MESSAGE"):
            messages.append(reply)
            reply = b.line()
        assert MOVE_RE.match(reply), reply
        b.end()
    assert any(m.startswith("MESSAGE classical alpha-beta + VCF/VCT depth ") for m in messages), messages


def test_a_bad_net_refuses_every_game_in_one_error_line(tmp_path):
    bare = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    p = subprocess.run([GOMOKU, "brain", "--net", bare], input="START 15\nEND\n", capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stderr == "", p
    assert p.stdout.startswith("ERROR ") and "not a gomoku net" in p.stdout and len(p.stdout.splitlines()) == 1


PBRAIN = str(Path(sys.executable).parent / "pbrain-gomoku")



def _settled_threads(pid: int, seconds: float = 0.6) -> int:
    """The brain's OS thread count once a move's short-lived threads (thinker, watchdog) are
    gone: the smallest count seen over `seconds`."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append(len(os.listdir(f"/proc/{pid}/task")))
        time.sleep(0.02)
    return min(seen)


def _net_move(b: Brain, log: Path, xy: tuple[int, int]) -> None:
    """TURN xy and wait until the brain's log has the answer (printed just after the move)."""
    b.send(f"TURN {xy[0]},{xy[1]}")
    x, y = b.move(size=(8, 8))
    wait_in_log(log, f"answer '{x},{y}' by ", 5.0)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
def test_info_thread_num_sets_the_nets_onnxruntime_threads_clamped_to_the_cores(net8, tmp_path):
    """onnxruntime's intra-op pool of N threads is N - 1 OS threads beside the caller: the
    brain's thread count shows the session really was rebuilt, in both directions."""
    from gomoku.engine.processes import usable_cores
    cores = usable_cores()
    log = tmp_path / "brain.log"
    with Brain(turn_ms=1000, args=[PBRAIN, "--net", net8], env={"GOMOKU_BRAIN_LOG": str(log)}) as b:
        b.send("START 8")
        assert b.line() == "OK"
        b.send("INFO timeout_turn 1000")
        wait_in_log(log, "engine warmed up")
        assert "onnxruntime threads: 1)" in log.read_text()
        _net_move(b, log, (3, 3))
        base = _settled_threads(b.proc.pid)
        b.send("INFO thread_num 64")           # more than any test machine has: clamped
        b.silent(0.2)                          # INFO never answers
        _net_move(b, log, (4, 4))
        assert f"net threads: {cores} (asked for 64)" in log.read_text()
        assert _settled_threads(b.proc.pid) == base + cores - 1
        b.send("info THREAD_NUM 1")            # INFO keys are case-insensitive
        _net_move(b, log, (2, 5))
        assert _settled_threads(b.proc.pid) == base
        for bad in ("0", "-3", "two"):         # ignored, and said so in the log only
            b.send(f"INFO thread_num {bad}")
            b.silent(0.1)
        _net_move(b, log, (6, 1))
        assert _settled_threads(b.proc.pid) == base
        b.end()
    text = log.read_text()
    assert "ignored INFO thread_num '0'" in text and "ignored INFO thread_num 'two'" in text


def test_thread_num_sent_before_the_net_has_loaded_is_kept(net8, tmp_path):
    """c-gomoku-cli sends its INFOs right after START, while the brain is still loading."""
    from gomoku.engine.processes import usable_cores
    log = tmp_path / "brain.log"
    with Brain(turn_ms=400, args=[PBRAIN, "--net", net8], env={"GOMOKU_BRAIN_LOG": str(log)}) as b:
        b.send("START 8", "INFO thread_num 2")
        assert b.line() == "OK"
        wait_in_log(log, "engine ready after")
        b.end()
    assert f"onnxruntime threads: {min(2, usable_cores())})" in log.read_text()


def test_pbrain_with_a_net_plays_the_net_and_refuses_a_bad_one_in_one_line(net8, tmp_path):
    log = tmp_path / "brain.log"
    with Brain(turn_ms=400, args=[PBRAIN, f"--net={net8}"], env={"GOMOKU_BRAIN_LOG": str(log)}) as b:
        b.send("START 8")
        assert b.line() == "OK"
        wait_in_log(log, "engine ready after")
        b.send("BEGIN")
        b.move(size=(8, 8))
        b.end()
    assert "net loaded" in log.read_text() and "cnn16-16" in log.read_text()
    bare = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    # a file that cannot be the net: the brain answers, refusing START in one ERROR line
    for rest, said in (([bare], "not a gomoku net"), ([str(tmp_path / "missing.onnx")], "ONNX file not found")):
        p = subprocess.run([PBRAIN, "--net", *rest], input="START 8\n", capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and p.stderr == "", (rest, p)
        assert p.stdout.startswith("ERROR ") and said in p.stdout and len(p.stdout.splitlines()) == 1, (rest, p)
    # a malformed command line: one line on stderr, exit status 2
    for rest, said in (([], "--net needs a file"), ([net8, "--log"], "unknown argument '--log' after --net FILE")):
        p = subprocess.run([PBRAIN, "--net", *rest], input="START 8\n", capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and p.stdout == "", (rest, p)
        assert said in p.stderr and len(p.stderr.strip().splitlines()) == 1, (rest, p.stderr)
        assert p.stderr.startswith("pbrain-gomoku: ")
    # the same refusal as `gomoku brain --net` gives
    p = subprocess.run([GOMOKU, "brain", "--net", bare], input="START 8\n", capture_output=True, text=True, timeout=60)
    q = subprocess.run([PBRAIN, "--net", bare], input="START 8\n", capture_output=True, text=True, timeout=60)
    assert p.stdout == q.stdout and p.stdout.startswith("ERROR ")
