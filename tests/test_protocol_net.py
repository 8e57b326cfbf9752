"""The brain with a net (`--net FILE`): net + MCTS on the boards the net was trained for, the
classical engine on others; a bad net refuses every game. The real session and EngineLoader in
this process (protocol_script), the net loaded by onnxruntime here; `gomoku brain`'s own
process is test_protocol_refusal's."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import MOVE_RE
from gomoku.protocol import brain
from gomoku.protocol.engine_loader import EngineLoader
from netfiles import conv_net, uniform_net
from protocol_script import Script, real_loader


@pytest.fixture(scope="module")
def net8(tmp_path_factory) -> str:
    return conv_net(str(tmp_path_factory.mktemp("nets") / "c8.onnx"), sizes=(8,), channels=(16, 16))


def _reply(b: Script, messages: list[str]) -> str:
    reply = b.line()
    while reply.startswith("MESSAGE"):
        messages.append(reply)
        reply = b.line()
    return reply


def test_brain_with_a_net_plays_legal_searched_moves_and_says_so(net8, capsys):
    loader = real_loader(net=net8, fresh=True)
    assert "net loaded" in capsys.readouterr().out
    with Script(loader=loader, turn_ms=500) as b:
        b.send("START 8")
        assert b.line() == "OK"
        b.send("INFO timeout_turn 500")
        played, messages = set(), []
        for x, y in [(3, 3), (4, 4), (2, 5), (6, 1)]:
            b.send(f"TURN {x},{y}")
            played.add((x, y))
            mv = tuple(int(v) for v in _reply(b, messages).split(","))
            assert mv not in played and all(0 <= v < 8 for v in mv)
            played.add(mv)
            assert b.session.request.answered_by == "engine"     # the fake clock never runs out
        b.send("ABOUT")
        about = b.line()
        b.end()
    # which searcher plays, said to the manager
    assert 'searcher="net cnn16-16 + MCTS on 8x8 freestyle, classical alpha-beta + VCF/VCT elsewhere"' in about
    assert any(m.startswith("MESSAGE net cnn16-16 + MCTS depth ") for m in messages), messages


def test_brain_with_a_net_uses_the_classical_engine_where_the_net_has_no_claim(net8):
    with Script(loader=real_loader(net=net8), turn_ms=2000) as b:
        b.send("START 15", "INFO max_depth 4")
        assert b.line() == "OK"
        b.send("INFO timeout_turn 2000")
        b.send("BOARD", "7,7,2", "8,8,1", "6,8,2", "DONE")   # a searched move, not an opening one
        messages: list[str] = []
        assert MOVE_RE.match(_reply(b, messages))
        b.end()
    assert any(m.startswith("MESSAGE classical alpha-beta + VCF/VCT depth ") for m in messages), messages


def test_a_bad_net_refuses_every_game_in_one_error_line(tmp_path):
    bare = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    for path, said in ((bare, "not a gomoku net"), (str(tmp_path / "missing.onnx"), "ONNX file not found")):
        why = brain.named_files_problem(net=path)
        assert why is not None and said in why and "\n" not in why
        with Script(loader=EngineLoader(), refusal=why) as b:     # run() starts no loader then
            b.send("START 8")
            assert b.line() == f"ERROR {why}"
            b.end()


def test_a_malformed_net_command_line_is_one_stderr_line_and_status_2(net8, capsys):
    from gomoku.protocol.options import parse_brain_args
    for spelled in ([f"--net={net8}"], ["--net", net8]):                            # both spellings
        assert parse_brain_args(spelled).net == net8
    both = parse_brain_args(["--eval", "f.eval.npz", "--net", net8])                # any order, together
    assert (both.net, both.evaluator) == (net8, "f.eval.npz")
    for rest, said in (([], "--net needs a file"), ([net8, "--frob"], "unknown argument '--frob'"),
                       ([net8, "--log"], "--log needs a file")):
        with pytest.raises(SystemExit) as exc:
            brain.main(["--net", *rest])
        out, err = capsys.readouterr()
        assert exc.value.code == 2 and out == "", rest
        assert said in err and len(err.strip().splitlines()) == 1 and err.startswith("pbrain-gomoku: "), err


def _settled_threads(seconds: float = 0.6) -> int:
    """This process's OS thread count once a move's short-lived threads (thinker, watchdog)
    are gone: the smallest count seen over `seconds`."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append(len(os.listdir("/proc/self/task")))
        time.sleep(0.02)
    return min(seen)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
def test_info_thread_num_sets_the_nets_onnxruntime_threads_clamped_to_the_cores(net8, capsys):
    """onnxruntime's intra-op pool of N threads is N - 1 OS threads beside the caller: the
    thread count shows the session really was rebuilt, in both directions."""
    from gomoku.engine.base.processes import usable_cores
    cores = usable_cores()
    loader = real_loader(net=net8, fresh=True)
    assert "onnxruntime threads: 1)" in capsys.readouterr().out
    with Script(loader=loader, turn_ms=300) as b:
        b.send("START 8")
        assert b.line() == "OK"
        b.send("TURN 3,3")
        b.move(size=(8, 8))
        base = _settled_threads()
        b.send("INFO thread_num 64")           # more than any test machine has: clamped
        b.silent()                             # INFO never answers
        b.send("TURN 4,4")
        b.move(size=(8, 8))
        assert f"net threads: {cores} (asked for 64)" in capsys.readouterr().out
        assert _settled_threads() == base + cores - 1
        b.send("info THREAD_NUM 1")            # INFO keys are case-insensitive
        b.send("TURN 2,5")
        b.move(size=(8, 8))
        assert _settled_threads() == base
        for bad in ("0", "-3", "two"):         # ignored, and said so in the log only
            b.send(f"INFO thread_num {bad}")
            b.silent()
        b.send("TURN 6,1")
        b.move(size=(8, 8))
        assert _settled_threads() == base
        b.end()
    text = capsys.readouterr().out
    assert "ignored INFO thread_num '0'" in text and "ignored INFO thread_num 'two'" in text


def test_thread_num_sent_before_the_net_has_loaded_is_kept(net8, capsys):
    """c-gomoku-cli sends its INFOs right after START, while the brain is still loading."""
    from gomoku.engine.base.processes import usable_cores
    loader = EngineLoader(warmup=False, net=net8)
    with Script(loader=loader) as b:
        b.send("START 8", "INFO thread_num 2")
        assert b.line() == "OK"
        loader.start()
        assert loader.finished.wait(120) and loader.ready.is_set()
        b.end()
    assert f"onnxruntime threads: {min(2, usable_cores())})" in capsys.readouterr().out
