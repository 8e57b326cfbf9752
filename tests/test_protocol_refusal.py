"""A brain started with a --net or --eval file it cannot use, over a pipe as a manager runs it.

It used to exit 2 with one stderr line before ABOUT: a Piskvork user saw a brain that did not
start, and GOMOKU_BRAIN_LOG got nothing. Now it answers ABOUT, refuses every START with
`ERROR <why>` (c-gomoku-cli and Piskvork show that line to their user), plays no game, writes
the log from its first line and ends on END like any brain. A malformed command line is still a
usage error (exit 2, one stderr line), and now lands in the log too.

The refusing session runs in this process (protocol_script) with the reason the start-up check
gives; one test runs `gomoku brain` itself, for its log and its silence on stderr."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import Brain
from gomoku.protocol import brain
from gomoku.protocol.options import parse_brain_args
from protocol_script import Script

GOMOKU = str(Path(sys.executable).parent / "gomoku")


def _session(b: "Brain | Script", why: str) -> None:
    """ABOUT, the refused START, every game command refused, INFO silent, END: exit 0."""
    b.send("ABOUT")
    about = b.line()
    assert about.startswith('name="gomoku", version="') and f'searcher="none, every game refused: {why}"' in about
    for start in ("START 15", "RECTSTART 20,15", "RESTART"):
        b.send(start)
        expected = f"ERROR {why}" if start != "RESTART" else f"ERROR RESTART refused: {why}"
        assert b.line() == expected
    b.send("INFO timeout_turn 1000", "INFO rule 1")
    b.silent() if isinstance(b, Script) else b.silent(0.2)
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
def test_a_named_file_that_cannot_be_used_answers_about_and_refuses_every_start(tmp_path, monkeypatch, capsys,
                                                                               flag, file, why):
    """Set up as the process sets itself up (brain.start_session), from the parsed line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GOMOKU_NET", raising=False)
    monkeypatch.delenv("GOMOKU_EVAL", raising=False)
    environment = dict(os.environ)
    with Script(options=parse_brain_args([flag, file])) as b:
        assert b.session.refusal == why
        assert b.loader._thread is None                  # no loader started for a refused brain
        assert dict(os.environ) == environment           # the file named nowhere but here
        _session(b, why)
    assert f"every game refused: {why}" in capsys.readouterr().out


@pytest.mark.process
def test_gomoku_brain_refuses_alike_says_why_in_its_log_and_nothing_on_stderr(tmp_path):
    from netfiles import uniform_net
    bare = uniform_net(str(tmp_path / "bare.onnx"), meta_override={})
    log = tmp_path / "new" / "brain.log"              # a missing folder is made, the log is kept
    with Brain(args=[GOMOKU, "brain", "--net", bare, "--log", str(log)]) as b:
        b.send("START 15")
        reply = b.line()
        assert reply.startswith("ERROR ") and "not a gomoku net" in reply, reply
        why = reply[len("ERROR "):]
        b.send("ABOUT")
        assert f"every game refused: {why}" in b.line()
        b.end()
        b._t_err.join(5)
    assert b.stderr == b""
    text = log.read_text()
    assert text.splitlines()[0].startswith("brain started, pid ")
    assert f"every game refused: {why}" in text.splitlines()[1]
    assert f"< ERROR {why}" in text and "Traceback" not in text


def test_a_malformed_command_line_is_still_a_usage_error_and_is_logged(tmp_path, monkeypatch, capsys):
    log = tmp_path / "brain.log"
    monkeypatch.setenv("GOMOKU_BRAIN_LOG", str(log))
    for args, said in ((["--net"], "--net needs a file"), (["--frobnicate"], "unknown argument '--frobnicate'")):
        with pytest.raises(SystemExit) as exc:
            brain.main(args)
        out, err = capsys.readouterr()
        assert exc.value.code == 2 and out == "" and said in err, err
        assert len(err.strip().splitlines()) == 1
        assert log.read_text().splitlines()[-1] == err.strip()
