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


def test_the_engine_refuses_its_folder_name_from_the_repository_root():
    """From the root, `engine` is importable as a folder; under that name numba would write
    cache entries that every `gomoku` command then fails to load (seen in stop 16: a script's
    `from engine.board import Board` broke `gomoku tune` with a traceback). The import fails
    at once instead, naming the right one, and the installed name still works there."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", "from engine.board import Board"], cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: import gomoku.engine, not engine: this folder installs as gomoku.engine "
        "(pip install -e .), and a second name would corrupt its numba caches")
    ok = subprocess.run([sys.executable, "-c", "import gomoku.engine.game.rules"], cwd=root,
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
