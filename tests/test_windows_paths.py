"""The brain and the brain client use nothing POSIX-only on the way Windows takes through them
(Gomocup runs Windows brains only): checked here by hiding the POSIX-only pieces."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gomoku.engine.match.players import split_command

LOAD_WITHOUT_FCNTL = """
import sys
sys.modules["fcntl"] = None          # import fcntl now raises ImportError, as on Windows
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.engine.base import numba_cache
loader = EngineLoader(warmup=False).start()
assert loader.wait(120), loader.failed
assert loader.failed is None, loader.failed
print("ready")
"""


@pytest.mark.process
def test_the_engine_loads_without_fcntl():
    """A fresh interpreter, where fcntl can be made unimportable before anything loads it."""
    out = subprocess.run([sys.executable, "-c", LOAD_WITHOUT_FCNTL], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.splitlines()[-1:] == ["ready"], out.stderr[-2000:]


def test_brain_client_kills_its_brain_without_process_groups(monkeypatch):
    from gomoku.protocol import client
    monkeypatch.delattr(os, "killpg")
    proc = subprocess.Popen(["sleep", "60"], **client._own_group())     # any child will do
    client._kill_tree(proc)
    assert proc.wait(10) != 0


def test_windows_command_lines_keep_their_backslashes():
    assert split_command(r'C:\brains\pbrain-x.exe', windows=True) == [r"C:\brains\pbrain-x.exe"]
    assert split_command(r'"C:\Program Files\b\pbrain-y.exe" -t 1', windows=True) == \
        [r"C:\Program Files\b\pbrain-y.exe", "-t", "1"]
    assert split_command("./pbrain-x 'a b'", windows=False) == ["./pbrain-x", "a b"]
