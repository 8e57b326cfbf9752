"""What a new user meets first, through the real console script: nets checked against the game
before any game, the board a match plays said up front, output paths checked before any work,
and the same option names, wording and exit codes in every command."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from cli_runner import Ran
from cli_runner import gomoku as run_gomoku
from conftest import CTRL_C_MARGIN_S, CTRL_C_S, Interrupted, ctrl_c_at
from gomoku.tools.cli import _COMMANDS, main

GOMOKU = Path(sys.executable).parent / "gomoku"
WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
NET15 = WEIGHTS / "15x15k5-b4c32.onnx"
NET8 = WEIGHTS / "8x8k5-b4c32.onnx"
NET8_R3 = WEIGHTS / "8x8k5-b4c32-r3.onnx"
NET8_B6 = WEIGHTS / "8x8k5-b6c64.onnx"
NET3P = WEIGHTS / "3p-8x8k4-cnn3.onnx"


def gomoku(*args: str, stdin: str = "", cwd: Path | None = None) -> Ran:
    """The real command, run in this process: these tests read its output and exit status."""
    return run_gomoku(args, input=stdin, cwd=cwd)


def gomoku_process(*args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([str(GOMOKU), *args], input="", capture_output=True, text=True, timeout=300)


def error_lines(p: "Ran | subprocess.CompletedProcess[str]") -> list[str]:
    return [ln for ln in p.stderr.splitlines() if ln.startswith("Error:")]


# ------------------------------------------------------------------ nets against the game

def test_play_refuses_a_net_of_another_rule_before_drawing_the_board():
    p = gomoku("play", "--opponent", str(NET15), "--rule", "renju", "--color", "white", stdin="quit\n")
    assert p.returncode == 1, p.stdout + p.stderr
    assert error_lines(p) == [f"Error: {NET15} is a freestyle net (two players, five in a row, trained on 15x15); "
                              "this game is renju 15x15"]
    assert "Traceback" not in p.stderr and "Move 1" not in p.stdout


def test_match_refuses_a_net_of_another_rule_before_any_game():
    p = gomoku("match", str(NET8), "classical", "--size", "8", "--rule", "renju", "-n", "2")
    assert p.returncode == 1
    assert error_lines(p) == [f"Error: {NET8} is a freestyle net (two players, five in a row, trained on 8x8); "
                              "this game is renju 8x8"]
    assert "Started game" not in p.stdout and "crashed" not in p.stdout


def test_match_names_a_three_player_net_as_one():
    p = gomoku("match", str(NET3P), "classical", "-n", "2")
    assert p.returncode == 1
    assert "is a freestyle net (three players, four in a row, trained on 8x8)" in p.stderr
    assert "this game is freestyle 8x8, two players, five in a row" in p.stderr


def test_match_takes_the_nets_board_and_says_what_it_plays():
    p = gomoku("match", f"{NET8_R3}:playouts=16", f"{NET8_B6}:playouts=16", "-n", "2", "-t", "0")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "Match: 2 games of freestyle on 8x8, 5 in a row, no clock"
    assert "warning" not in p.stderr


def test_a_net_on_a_size_it_never_saw_plays_with_one_warning():
    p = gomoku("match", f"{NET8}:playouts=16", "random", "--size", "9", "-n", "2", "-t", "0")
    assert p.returncode == 0, p.stderr
    assert "Match: 2 games of freestyle on 9x9" in p.stdout
    warnings = [ln for ln in p.stderr.splitlines() if ln.startswith("warning:")]
    assert warnings == ["warning: 8x8k5-b4c32 is a freestyle net (two players, five in a row, trained on 8x8); "
                        "it plays 9x9, likely weaker"]


def test_nets_of_different_sizes_need_a_size():
    p = gomoku("match", str(NET8), str(NET15), "-n", "2")
    assert p.returncode == 1
    assert error_lines(p) == ["Error: the nets were trained on different board sizes; choose one with --size"]


def test_the_match_header_names_the_default_board():
    p = gomoku("match", "random", "random:seed=2", "-n", "2", "--rule", "standard")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "Match: 2 games of standard on 15x15, 5 in a row, 1 s a move"


# ------------------------------------------------------------------ output paths

@pytest.mark.parametrize("args", [
    ["plot", "{run}", "--out", "{file}/d/plots"],
    ["export", "{ckpt}", "{file}/d/x.onnx"],
    ["train", "--board", "9", "--run", "{file}/d/run"],
    ["match", "random", "random", "--sgf", "{file}/d/g.sgf"],
    ["play", "--save", "{file}/d/g.sgf"],
    ["brain", "--log", "{file}/d/brain.log"],
])
def test_an_output_path_through_a_file_is_one_line(tmp_path, args):
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("x")
    run = tmp_path / "run"
    run.mkdir()
    ckpt = tmp_path / "c.safetensors"
    ckpt.write_bytes(b"not read: the output is checked first")
    argv = [a.format(file=in_the_way, run=run, ckpt=ckpt) for a in args]
    p = gomoku(*argv, stdin="quit\n")
    assert p.returncode == 2, p.stdout + p.stderr
    assert error_lines(p)[-1].endswith(f"{in_the_way} is a file, not a folder"), p.stderr
    assert "Traceback" not in p.stderr


def test_a_missing_output_folder_is_made(tmp_path):
    sgf = tmp_path / "new" / "deeper" / "games.sgf"
    p = gomoku("match", "random", "random:seed=1", "-n", "2", "--sgf", str(sgf))
    assert p.returncode == 0, p.stderr
    assert sgf.is_file()


# ------------------------------------------------------------------ the same options everywhere

@pytest.mark.parametrize("command", ["play", "match", "train"])
def test_board_and_size_are_one_option_with_one_wording(command):
    extra = {"match": ["random", "random"], "play": [], "train": []}[command]
    for flag in ("--board", "--size"):
        p = gomoku(command, *extra, flag, "4", stdin="quit\n")
        assert p.returncode == 2, p.stderr
        assert error_lines(p) == ["Error: Invalid value for '-s' / '--board' / '--size': '4' is not a board size: "
                                  "use N or WxH with sides 5..22, e.g. 15 or 20x15"]


@pytest.mark.parametrize("command", ["play", "match", "train", "tune"])
def test_an_unknown_rule_is_a_usage_error_everywhere(command):
    extra = {"match": ["random", "random"], "play": [], "train": ["--board", "9"], "tune": ["x.sgf"]}[command]
    p = gomoku(command, *extra, "--rule", "chess", stdin="quit\n")
    assert p.returncode == 2, p.stderr
    assert error_lines(p) == ["Error: Invalid value for '-r' / '--rule': unknown rule 'chess': use freestyle, "
                              "standard, renju, caro, caro5 or 0/1/4/8/9"]


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(main)
    return {name: main.get_command(ctx, name) for name in main.list_commands(ctx)}


def test_every_option_of_every_command_says_what_it_does():
    missing = [f"{name} {param.opts[0]}" for name, cmd in _commands().items() for param in cmd.params
               if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()]
    assert missing == []


def test_help_text_has_no_printf_escapes():
    for name, cmd in _commands().items():
        for param in cmd.params:
            assert "%%" not in (getattr(param, "help", None) or ""), (name, param.opts)


def test_a_missing_net_is_one_line_worded_alike_in_every_command(tmp_path):
    """info, match and play said 'net file not found', 'ONNX file not found' and 'Invalid value';
    the brain answers with the same words (tests/test_protocol_refusal.py)."""
    from click.testing import CliRunner
    missing = str(tmp_path / "nosuch.onnx")
    want = f"ONNX file not found: {missing}"
    for args in (["info", missing], ["match", missing, "random", "-n", "2"], ["play", "--opponent", missing]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code != 0 and r.output.strip().splitlines()[-1].endswith(want), (args, r.output)


def test_the_live_view_switch_has_one_name():
    for name in ("match", "tune", "train"):
        opts = {o for p in _commands()[name].params if not getattr(p, "hidden", False) for o in p.opts + p.secondary_opts}
        assert {"--progress", "--no-progress"} <= opts, name


def test_the_top_level_help_lists_every_command():
    p = gomoku("--help")
    listed = {ln.split()[0] for ln in p.stdout.split("Commands:")[1].splitlines()
              if ln.startswith("  ") and not ln.startswith("   ")}     # not a summary's wrapped rest
    assert listed == set(_COMMANDS)
    for name in _COMMANDS:
        assert name in p.stdout.split("Options:")[0], name     # the summary names it too


def _stopped_at_once(r: Interrupted, reason: str) -> None:
    assert r.code == 130, r.out
    assert r.after < CTRL_C_S + CTRL_C_MARGIN_S, f"stopped {r.after:.2f} s after Ctrl-C ({reason}):\n{r.out}"
    assert "Traceback" not in r.out


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_exits_130_in_match_with_the_score_so_far():
    """Ctrl-C as game 1 starts (the players' warm-up search or the first 2 s move, in jitted
    calls on the main thread): the search stops, the score so far is printed."""
    r = ctrl_c_at([str(GOMOKU), "match", "classical", "classical", "-n", "20", "-t", "2", "--no-progress"],
                  "Started game 1")
    _stopped_at_once(r, "match")
    assert "Match stopped early: interrupted" in r.out


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_exits_130_in_train(tmp_path):
    pytest.importorskip("torch")
    r = ctrl_c_at([str(GOMOKU), "train", "--board", "7", "--run", str(tmp_path / "run"), "--win", "4",
                   "--games-per-gen", "400", "--playouts", "400", "--parallel-games", "1", "--workers", "1",
                   "--eval-games", "0", "--ladder-games", "0", "--classical-games", "0", "--no-progress"],
                  "selfplay")
    _stopped_at_once(r, "train")
    assert "the same command resumes the run" in r.out


@pytest.mark.process
def test_train_says_what_an_init_net_is_before_any_game(tmp_path):
    """A real process: train's plain view writes to the sys.stdout of its import, which click's
    runner does not capture."""
    pytest.importorskip("torch")
    args = ["train", "--board", "9", "--rule", "renju", "--generations", "0", "--no-progress"]
    p = gomoku_process(*args, "--run", str(tmp_path / "a"), "--init", str(WEIGHTS / "8x8k5-b4c32.safetensors"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert (f"--init {WEIGHTS / '8x8k5-b4c32.safetensors'} is a freestyle net (two players, five in a row, "
            "trained on 8x8); this game is renju 9x9: training it for this run's game") in p.stdout
    p = gomoku(*args, "--run", str(tmp_path / "b"), "--init", str(WEIGHTS / "3p-8x8k4-cnn3.safetensors"))
    assert p.returncode == 1
    assert error_lines(p) == [f"Error: --init {WEIGHTS / '3p-8x8k4-cnn3.safetensors'} is a freestyle net (three "
                              "players, four in a row, trained on 8x8); this game is renju 9x9, two players, "
                              "five in a row: it cannot start a 2-player run"]


def test_no_help_names_a_file_of_the_source_tree():
    """Help is for people who installed the program: a path inside the package (ship's
    'engine/match/sanity.py') tells them nothing they can use."""
    import re
    from click.testing import CliRunner
    for name in _COMMANDS:
        out = CliRunner().invoke(main, [name, "--help"], terminal_width=200).output
        found = re.findall(r"\b(?:engine|tools|train|protocol)/[\w/]+\.(?:py|json)\b", out)
        assert found == [], (name, found)
