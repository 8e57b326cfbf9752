"""`gomoku freeze`: the one-folder brain for Gomocup, built with PyInstaller from this install,
plays over a pipe with its shipped numba cache: its first move is searched, nothing compiles."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MOVE_RE, Brain

pytest.importorskip("PyInstaller")
GOMOKU = str(Path(sys.executable).parent / "gomoku")


@pytest.mark.slow
@pytest.mark.process
def test_frozen_brain_plays_a_searched_first_move_from_its_shipped_cache(tmp_path):
    out = subprocess.run([GOMOKU, "freeze", str(tmp_path / "dist"), "--name", "pbrain-test"],
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    exe = tmp_path / "dist" / "pbrain-test" / ("pbrain-test" + (".exe" if os.name == "nt" else ""))
    assert exe.exists() and not (tmp_path / "dist" / "build").exists()
    log = tmp_path / "brain.log"
    with Brain(args=[str(exe)], env={"GOMOKU_BRAIN_LOG": str(log)}) as b:
        b.send("ABOUT")
        assert b.line().startswith('name="gomoku"')
        b.send("START 15", "INFO timeout_turn 5000", "INFO timeout_match 0")
        assert b.line() == "OK"
        b.send("BOARD", "6,6,2", "6,8,1", "7,7,2", "DONE")
        lines: list[str] = []
        while not lines or not MOVE_RE.match(lines[-1]):
            lines.append(b.line(timeout=10))
        assert b.last_at - b.sent_at < 5.0
        b.send("TURN 9,9")
        b.move(size=(15, 15))
        b.end()
    text = log.read_text()
    assert "looks cold" not in text and "child compile" not in text, text[-2000:]
    assert any(t.startswith("MESSAGE classical alpha-beta + VCF/VCT depth ") for t in lines), (lines, text[-2000:])
