"""The `gomoku` entry point itself: help lists the commands, warmup works from a shell."""
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import gomoku

GOMOKU = str(Path(sys.executable).parent / "gomoku")


@pytest.mark.process
def test_installed_script_runs_and_lists_commands():
    """The one smoke test of the installed script: the rest run the command in this process."""
    out = subprocess.run([GOMOKU, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for name in ("play", "match", "bench", "brain", "warmup"):
        assert f"  {name}" in out.stdout


def test_unknown_command_is_one_clear_error():
    out = gomoku(["fly"])
    assert out.returncode != 0
    assert "No such command" in out.stderr and "Traceback" not in out.stderr
    assert "Did you mean" not in out.stderr          # nothing is near "fly"


def test_warmup_reports_ready():
    out = gomoku(["warmup"])
    assert out.returncode == 0, out.stderr
    assert "engine ready: loaded from numba's cache" in out.stderr


def test_the_engine_refuses_its_folder_name_from_the_repository_root(monkeypatch):
    """From the root, `engine` is importable as a folder; under that name numba would write
    cache entries that every `gomoku` command then fails to load (seen once: a script's
    `from engine.board import Board` broke `gomoku tune` with a traceback). The import fails
    at once instead, naming the right one. The folder's `__init__` raises before it runs
    anything else, so trying it in this process loads nothing under the wrong name."""
    import importlib
    root = Path(__file__).resolve().parent.parent
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(ImportError) as refused:
        importlib.import_module("engine.board")
    assert str(refused.value) == (
        "import gomoku.engine, not engine: this folder installs as gomoku.engine "
        "(pip install -e .), and a second name would corrupt its numba caches")
    assert not [name for name in sys.modules if name == "engine" or name.startswith("engine.")]
    assert importlib.import_module("gomoku.engine.game.rules").__name__ == "gomoku.engine.game.rules"





def test_pbrain_help_and_version_answer_without_waiting_for_protocol_input(capsys):
    from gomoku.protocol.brain import main as pbrain

    def run(arg: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as stop:
            pbrain([arg])
        out = capsys.readouterr()
        return stop.value.code or 0, out.out, out.err
    code, out, err = run("--help")
    assert code == 0 and out.startswith("usage: pbrain-gomoku") and "GOMOKU_BRAIN_LOG" in out
    code, out, err = run("--version")
    assert code == 0 and out.startswith("pbrain-gomoku ")
    code, out, err = run("--frobnicate")
    assert code == 2 and out == "" and "unknown argument '--frobnicate'" in err
    assert len(err.strip().splitlines()) == 1


def test_pbrain_and_gomoku_brain_list_the_same_options(capsys):
    """One table of brain options (protocol/options.py) for both front ends: the same help,
    but for the name, and the same usage errors (worded as each front end words its own)."""
    import re

    from gomoku.protocol.brain import main as pbrain
    with pytest.raises(SystemExit):
        pbrain(["--help"])
    direct = capsys.readouterr().out
    through_click = gomoku(["brain", "--help"])
    assert through_click.returncode == 0
    assert through_click.stdout.replace("usage: gomoku brain", "usage: pbrain-gomoku") == direct
    listed = set(re.findall(r"^  (--[a-z-]+)", direct, re.M))
    assert {"--net", "--eval", "--share", "--log", "--turn-ms", "--warmup", "--version", "--help"} <= listed
    assert all(len(line) <= 80 for line in direct.splitlines())
    bad = gomoku(["brain", "--frobnicate"])
    assert bad.returncode == 2 and "Error: unknown argument '--frobnicate'" in bad.stderr    # as gomoku words it


def test_brain_log_that_cannot_be_written_is_refused(tmp_path):
    """Before any session starts: a usage error, exit 2, naming the file in the way. (That a
    log in a missing folder is made and kept: the refusing brain's test in
    test_protocol_refusal.py, a real process.)"""
    (tmp_path / "f").write_text("")
    out = gomoku(["brain", "--log", str(tmp_path / "f" / "x.log")])
    assert out.returncode == 2 and "is a file, not a folder" in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_board_is_a_name_for_size():
    import json
    out = gomoku(["match", "random", "random", "-n", "1", "--board", "9", "--json", "-"])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["settings"]["width"] == 9
    out = gomoku(["play", "--help"])
    assert "-s, --board, --size" in out.stdout


def test_a_mistyped_command_gets_the_nearest_name():
    from click.testing import CliRunner

    from gomoku.tools.cli import main
    r = CliRunner().invoke(main, ["paly"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1] == "Error: No such command 'paly'. Did you mean play?"
    r = CliRunner().invoke(main, ["play", "--levl", "3"])
    assert r.exit_code == 2 and "Did you mean" in r.output and "--level" in r.output


def test_top_level_help_gives_every_summary_whole():
    """click cut each command's first docstring sentence at the terminal's width with '...';
    the list is the summaries in tools.cli, wrapped, never cut."""
    from click.testing import CliRunner

    from gomoku.tools.cli import _COMMANDS, main
    out = CliRunner().invoke(main, ["--help"], terminal_width=80).output.split("Commands:")[1]
    assert "..." not in out
    flat = " ".join(out.split())
    for name, (_, _, summary) in _COMMANDS.items():
        assert f"{name} {summary}" in flat
