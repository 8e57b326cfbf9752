"""Start-up and board set-up (START, RECTSTART, RESTART, ABOUT, the first move). The commands
run on the real session in this process (protocol_script); what only a process can show (how
soon a fresh pbrain-gomoku answers, its first move while the engine loads, what its main thread
imports) runs the real brain."""
from __future__ import annotations

import re

import pytest

from conftest import EXIT_S, MOVE_RE, Brain
from protocol_script import Script


def test_start_20_answers_ok():
    with Script() as b:
        b.send("START 20")
        assert b.line() == "OK"
        b.end()


def test_start_15_then_begin_plays_a_move():
    with Script() as b:
        b.send("INFO max_depth 4", "START 15")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move(size=(15, 15))
        b.end()


def test_start_4_is_refused_then_start_15_works():
    with Script() as b:
        b.send("START 4")
        assert b.line().startswith("ERROR ")
        b.send("START 15")
        assert b.line() == "OK"
        b.end()


def test_start_99_is_refused():
    with Script() as b:
        b.send("START 99")
        assert b.line().startswith("ERROR ")
        b.send("START 22")
        assert b.line() == "OK"
        b.end()


def test_start_without_or_with_a_bad_size_is_refused():
    with Script() as b:
        b.send("START")
        assert b.line().startswith("ERROR ")
        b.send("START abc")
        assert b.line().startswith("ERROR ")
        b.silent()
        b.end()


def test_start_again_clears_the_board():
    with Script() as b:
        b.send("START 15")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move()
        b.send("START 15")
        assert b.line() == "OK"
        b.send("BEGIN")          # would be ERROR (board not empty) if START had not cleared it
        b.move(size=(15, 15))
        b.end()


def test_rectstart_of_an_unsupported_size_is_refused():
    with Script() as b:
        b.send("RECTSTART 30,20")
        assert b.line().startswith("ERROR ")
        b.send("RECTSTART 20,12")      # a supported rectangle: later moves satisfy X<20, Y<12
        assert b.line() == "OK"
        b.send("BEGIN")
        x, y = b.move(size=(20, 12))
        b.send(f"TURN {(x + 5) % 20},{(y + 3) % 12}")
        b.move(size=(20, 12))
        b.end()


def test_rectstart_square_board():
    with Script() as b:
        b.send("RECTSTART 15,15")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move(size=(15, 15))
        b.end()


def test_restart_clears_the_board():
    with Script() as b:
        b.send("START 15")
        assert b.line() == "OK"
        b.send("TURN 7,7")
        assert b.move() != (7, 7)
        b.send("RESTART")
        assert b.line() == "OK"
        b.send("BEGIN")
        b.move()
        b.send("RESTART")
        assert b.line() == "OK"
        b.send("TURN 7,7")            # 7,7 is legal again
        b.move()
        b.end()


def test_restart_before_start_is_an_error():
    with Script() as b:
        b.send("RESTART")
        assert b.line().startswith("ERROR ")
        b.end()


def test_about_before_start_answers():
    with Script() as b:
        b.send("ABOUT")
        line = b.line()
        assert re.fullmatch(r'name="[^"]+", version="[^"]+", author="[^"]+", country="[^"]+", searcher="[^"]+"',
                            line), line
        b.silent()
        b.end()


def _move_after(b: "Brain | Script", lines: list[str]) -> tuple[int, int]:
    """Read up to the move line, keeping every line read in `lines`."""
    while True:
        text = b.line()
        lines.append(text)
        if MOVE_RE.match(text):
            return tuple(map(int, text.split(",")))   # type: ignore[return-value]


POSITION = ("BOARD", "6,6,2", "6,8,1", "7,7,2", "DONE")


@pytest.mark.process
def test_a_fresh_brain_answers_at_once_and_its_first_move_is_on_time(tmp_path):
    """c-gomoku-cli sends ABOUT at spawn and kills a brain whose START OK is later than 3 s; we
    aim for well under 1 s with a warm numba cache (warmed by the suite's set-up).

    GomocupJudge starts a brain per game (c-gomoku-cli one per worker) and may ask for a move
    right after START. The move must be legal and on time (1 s/move) whatever the machine's
    load, and come from the search unless the engine was still loading: the log tells why not
    (loading took ~0.6 s of CPU here, more than a second of wall time on a busy 2-core
    machine). A search that started with ~0.2 s left may, on a loaded machine, spend it on
    its first call's code and end no iteration: that too is in the log ('search: depth 0').
    A move that waited for a warm-up step ('busy') or a search that missed the deadline fails.
    END then exits 0 at once, nothing printed after it and nothing on stderr."""
    log = tmp_path / "brain.log"
    with Brain(env={"GOMOKU_BRAIN_LOG": str(log)}) as b:
        b.send("ABOUT")
        assert b.line().startswith('name="gomoku"')
        about_s = b.last_at - b.spawned
        b.send("START 15")
        assert b.line() == "OK"
        start_s = b.last_at - b.spawned
        assert about_s < 3.0 and start_s < 3.0
        assert start_s < 1.0, f"START answered {start_s:.2f} s after spawn"
        b.send("INFO rule 0", "INFO timeout_turn 1000", "INFO timeout_match 0", *POSITION)
        lines: list[str] = []
        move = _move_after(b, lines)
        took = b.last_at - b.sent_at
        b.end()                           # exit 0 within EXIT_S, no output after END
        b._t_err.join(EXIT_S)
    assert b.stderr == b""
    assert move not in ((6, 6), (6, 8), (7, 7)) and 0 <= min(move) and max(move) < 15, move
    assert took < 1.0, f"answered {took:.2f} s after the position (limit 1 s)"
    text = log.read_text()
    if not any(t.startswith("MESSAGE classical alpha-beta + VCF/VCT depth ") for t in lines):
        # (the log's "answer ... by fallback" line may be cut off by END: the brain exits at once)
        assert ("no search: the engine is still loading" in text
                or "no search: the engine got ready" in text
                or "search: depth 0 " in text), text[-1500:]


def test_move_asked_for_once_the_engine_is_ready_is_searched():
    """Once the engine is usable a move gets it (a fresh loader, as in a new process): searched,
    with its depth in a MESSAGE, and its deadlines those of a first move at 2 s/move."""
    from protocol_script import real_loader
    with Script(loader=real_loader(fresh=True)) as b:
        b.send("ABOUT", "START 15", "INFO rule 0", "INFO timeout_turn 2000", "INFO timeout_match 0",
               "INFO max_depth 4")
        b.send(*POSITION)
        t = b.sent_at
        assert b.session.request.budget.hard <= t + 2.0
        lines: list[str] = [b.line(), b.line()]           # ABOUT, OK
        _move_after(b, lines)
        b.end()
    assert any(t.startswith("MESSAGE classical alpha-beta + VCF/VCT depth ") for t in lines), lines


@pytest.mark.process
def test_what_runs_before_the_first_reply_imports_no_numba_numpy_or_onnxruntime():
    """The brain answers ABOUT and START while the engine loads in the background: the modules
    that serve the protocol, the parse of the options (the net, evaluator and share settings
    read from the environment) and the loader's set-up must not import numba, numpy or
    onnxruntime on the main thread (importing the learned evaluator's file module there once
    cost every first reply 0.2 s)."""
    import os
    import subprocess
    import sys
    code = ("import sys\nfrom gomoku.protocol import brain, session\n"
            "from gomoku.protocol.engine_loader import EngineLoader\n"
            "from gomoku.protocol.options import parse_brain_args\no = parse_brain_args([])\n"
            "assert (o.net, o.evaluator, o.share) == ('some.onnx', 'some.eval.npz', 50), o\n"
            "EngineLoader(net=o.net, evaluator=o.evaluator, share=o.share)\n"
            "print(sorted(m for m in ('numba', 'numpy', 'onnxruntime') if m in sys.modules))")
    env = {**os.environ, "GOMOKU_EVAL": "some.eval.npz", "GOMOKU_EVAL_SHARE": "50", "GOMOKU_NET": "some.onnx"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr
