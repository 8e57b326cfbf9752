"""The `gomoku` entry point itself: help lists the commands, warmup works from a shell."""
import subprocess
import sys
from pathlib import Path

GOMOKU = str(Path(sys.executable).parent / "gomoku")


def test_help_lists_commands():
    out = subprocess.run([GOMOKU, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for name in ("play", "match", "bench", "brain", "warmup"):
        assert f"  {name}" in out.stdout


def test_unknown_command_is_one_clear_error():
    out = subprocess.run([GOMOKU, "fly"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "No such command" in out.stderr and "Traceback" not in out.stderr


def test_warmup_reports_ready():
    out = subprocess.run([GOMOKU, "warmup"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "numba core ready" in out.stderr
