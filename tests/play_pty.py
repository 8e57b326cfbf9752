"""Driving `gomoku play` through a pseudo-terminal, for the two-player and the n-player tests.

The screen is read as a person sees it: colour codes dropped, every run of whitespace (line
wrapping included) one space. `expect` timeouts default to the one given to `spawn`. Test
modules import these with `from play_pty import ...` (pytest puts tests/ on the path).
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect

GOMOKU = str(Path(sys.executable).parent / "gomoku")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn_play(args: list[str], cwd: Path, rows: int, columns: int, timeout: float) -> pexpect.spawn:
    """`gomoku play ARGS` in a terminal of rows x columns (LINES and COLUMNS say so too)."""
    env = dict(os.environ, COLUMNS=str(columns), LINES=str(rows))
    return pexpect.spawn(GOMOKU, ["play", *args], cwd=str(cwd), env=env, encoding="utf-8",
                         dimensions=(rows, columns), timeout=timeout)


def clean(raw: str) -> str:
    """Screen text without colour codes, every run of whitespace (incl. wrapping) as one space."""
    return " ".join(ANSI.sub("", raw or "").split())


def wait(child: pexpect.spawn, prompt: str, timeout: float = -1) -> str:
    """Everything printed up to the next prompt, cleaned (timeout -1: the spawn's)."""
    child.expect_exact(prompt, timeout=timeout)
    return clean(child.before)


def send(child: pexpect.spawn, line: str, prompt: str) -> str:
    child.sendline(line)
    return wait(child, prompt)


def send_eof(child: pexpect.spawn) -> None:
    """Ctrl-D at the prompt, once readline holds the terminal. rich prints the prompt before
    input() starts, and a Ctrl-D that reaches the terminal while it still edits lines itself
    is eaten there (it would end an empty line); readline turns echo off when it takes over."""
    assert child.waitnoecho(timeout=30), "the prompt never started reading"
    child.sendeof()


def finish(child: pexpect.spawn, status: int = 0) -> str:
    """Wait for the program to end; check its exit status and that it printed no traceback."""
    child.expect(pexpect.EOF, timeout=120)     # a quit during a cold compile waits for it to finish
    child.close()
    out = clean(child.before)
    assert child.exitstatus == status, f"exit status {child.exitstatus}, signal {child.signalstatus}: {out[-300:]}"
    assert "Traceback" not in out
    return out
