"""A brain started with a --net or --eval file it cannot use, over a pipe as a manager runs it.

It used to exit 2 with one stderr line before ABOUT: a Piskvork user saw a brain that did not
start, and GOMOKU_BRAIN_LOG got nothing. Now it answers ABOUT, refuses every START with
`ERROR <why>` (c-gomoku-cli and Piskvork show that line to their user), plays no game, writes
the log from its first line and ends on END like any brain. A malformed command line is still a
usage error (exit 2, one stderr line), and now lands in the log too."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Brain, brain_exe

GOMOKU = str(Path(sys.executable).parent / "gomoku")


def _session(b: Brain, why: str) -> None:
    """ABOUT, the refused START, every game command refused, INFO silent, END: exit 0."""
    b.send("ABOUT")
    about = b.line()
    assert about.startswith('name="gomoku", version="') and f'searcher="none, every game refused: {why}"' in about
    for start in ("START 15", "RECTSTART 20,15", "RESTART"):
        b.send(start)
        expected = f"ERROR {why}" if start != "RESTART" else f"ERROR RESTART refused: {why}"
        assert b.line() == expected
    b.send("INFO timeout_turn 1000", "INFO rule 1")
    b.silent(0.2)
    for command in ("BEGIN", "TURN 7,7", "TAKEBACK 7,7", "PLAY 3,3"):
        b.send(command)
        assert b.line() == f"ERROR {command.split()[0]} refused: {why}"
    b.send("BOARD", "7,7,1", "8,8,2", "DONE")        # read through DONE, then one line
    assert b.line() == f"ERROR BOARD refused: {why}"
    b.send("FROBNICATE")
    assert b.line().startswith("UNKNOWN ")
    b.end()


@pytest.mark.parametrize("flag, file, why", [
    ("--net", "nosuch.onnx", "ONNX file not found: nosuch.onnx"),
    ("--eval", "nosuch.eval.npz", "evaluator file not found: nosuch.eval.npz"),
])
def test_a_named_file_that_cannot_be_used_answers_about_and_refuses_every_start(tmp_path, flag, file, why):
    log = tmp_path / "brain.log"
    with Brain(args=[brain_exe(), flag, file], env={"GOMOKU_BRAIN_LOG": str(log)}, cwd=str(tmp_path)) as b:
        _session(b, why)
    assert b.stderr == b""
    text = log.read_text()
    assert text.splitlines()[0].startswith("brain started, pid ")
    assert f"every game refused: {why}" in text.splitlines()[1]
    assert f"< ERROR {why}" in text and "Traceback" not in text


def test_gomoku_brain_refuses_alike_and_a_bad_net_file_is_named(tmp_path):
    from netfiles import uniform_net
    bare = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    with Brain(args=[GOMOKU, "brain", "--net", bare]) as b:
        b.send("START 15")
        reply = b.line()
        assert reply.startswith("ERROR ") and "not a gomoku net" in reply, reply
        b.send("ABOUT")
        assert "every game refused: " in b.line()
        b.end()


def test_a_malformed_command_line_is_still_a_usage_error_and_is_logged(tmp_path):
    log = tmp_path / "brain.log"
    for args, said in ((["--net"], "--net needs a file"), (["--frobnicate"], "unknown argument '--frobnicate'")):
        p = subprocess.run([brain_exe(), *args], input="ABOUT\n", capture_output=True, text=True, timeout=60,
                           env={**os.environ, "GOMOKU_BRAIN_LOG": str(log)})
        assert p.returncode == 2 and p.stdout == "" and said in p.stderr, p
        assert len(p.stderr.strip().splitlines()) == 1
        assert log.read_text().splitlines()[-1] == p.stderr.strip()
