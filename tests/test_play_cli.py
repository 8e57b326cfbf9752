"""`gomoku play` driven through a pseudo-terminal, plus the rendering and notation it uses."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from gomoku.engine.game.board import Board
from gomoku.engine.game.records import GameRecord, load, save
from gomoku.engine.game.rules import Rule
from gomoku.tools import render
from cli_runner import Ran, gomoku
from conftest import CTRL_C_MARGIN_S, CTRL_C_S
from play_pty import ANSI, clean, finish, send, send_eof, spawn_play, wait

FIRST_PROMPT_TIMEOUT = 120     # a cold numba cache compiles the core on first use
TIMEOUT = 30


def play(*args: str, input: str, cwd: Path) -> Ran:
    """`gomoku play ARGS` in this process, `input` typed at its prompts: the session's text
    and files, which need no terminal."""
    return gomoku(["play", *args], input=input, cwd=cwd)


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    return spawn_play(list(args), cwd, 25, 80, TIMEOUT)


X, O = "Your move (X)>", "Your move (O)>"


# ------------------------------------------------------------------ the acceptance game

@pytest.mark.process
def test_play_short_game_and_save(tmp_path):
    """The acceptance game in a real terminal (25x80), its first move typed with line editing
    (type 5, Left, e: readline makes it e5 instead of landing the arrow in the move text)."""
    child = spawn("--size", "9", "--time", "0.1", "--color", "black", "--name", "tester", cwd=tmp_path)
    child.expect_exact(X, timeout=FIRST_PROMPT_TIMEOUT)
    raw = ANSI.sub("", child.before)
    # rulers: x indices, letters, y indices and row numbers are all on screen
    assert re.search(r"x\s+0\s+1\s+2", raw) and re.search(r"y\s+a\s+b\s+c", raw)
    assert re.search(r"^\s+8\s+9 ", raw, re.M)

    child.send("5\x1b[De\r")                              # centre (4,4), edited to e5
    out = wait(child, X)
    assert "not a move" not in out.lower(), out[-400:]
    reply = re.search(r"played ([a-i]\d) \((\d),(\d)\)", out)
    assert reply, out[-400:]
    engine_move = (int(reply.group(2)), int(reply.group(3)))

    assert "e5 (4,4) is taken by black" in send(child, "e5", X)
    assert "column 'k' is off the board (columns a..i)" in send(child, "k3", X)
    assert "4,99 is off the board" in send(child, "4,99", X)
    assert "Unknown command 'flurb'" in send(child, "flurb", X)
    assert "cannot read 'h 8 9' as a move" in send(child, "h 8 9", X)

    second = next(p for p in [(3, 3), (5, 3), (3, 5)] if p != engine_move)
    assert "played" in send(child, f"{second[0]},{second[1]}", X)
    assert "Took back" in send(child, "undo", X)
    assert "played" in send(child, render.move_name(*second), X)   # same point, letter notation
    assert "undo take back the engine's reply" in send(child, "help", X)

    target = tmp_path / "game.sgf"
    assert f"Saved 4 moves to {target}" in send(child, f"save {target}", X)
    child.sendline("quit")
    finish(child)

    rec = load(target)
    assert (rec.width, rec.height, rec.rule) == (9, 9, Rule.FREESTYLE)
    assert rec.moves[0] == (4, 4) and rec.moves[1] == engine_move and rec.moves[2] == second
    assert len(rec.moves) == 4
    assert rec.black == "tester" and rec.white.startswith("classical")
    assert rec.result is None
    assert rec.times is not None and len(rec.times) == 4

    # continue the saved game: it is black's turn again
    child = spawn("--load", str(target), "--time", "0.1", cwd=tmp_path)
    assert "Loaded 4 moves" in wait(child, X, FIRST_PROMPT_TIMEOUT)
    assert re.search(r"Hint: [a-i]\d \(\d,\d\)", send(child, "hint", X))
    send_eof(child)
    assert "Bye" in finish(child)


def test_play_as_white_resign_autosaves_psq(tmp_path):
    auto = tmp_path / "games" / "auto.psq"          # a folder that does not exist yet
    p = play("--size", "9", "--time", "0", "--color", "white", "--save", str(auto),
             input="undo\nresign\na1\nquit\n", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    steps = clean(p.stdout).split(O)
    assert "played" in steps[0]                                        # engine (black) opens
    assert "Nothing to undo" in steps[1]
    over = steps[2].split("game over>")
    assert "wins (X black): by resignation" in over[0] and "Auto-saved 1 move to" in over[0]
    assert "The game is over" in over[1]
    rec = load(auto)
    assert len(rec.moves) == 1 and rec.black.startswith("classical") and rec.white == "human"


def test_renju_forbidden_move_is_refused(tmp_path):
    # black to move; h8 = (7,7) would make two open threes (a double-three)
    moves = [(5, 7), (0, 0), (6, 7), (0, 14), (7, 5), (14, 0), (7, 6), (14, 14)]
    assert Board.from_moves(15, moves, rule=Rule.RENJU).is_forbidden(7, 7)
    start = tmp_path / "renju.sgf"
    save(start, GameRecord(width=15, height=15, rule=Rule.RENJU, moves=moves))
    p = play("--load", str(start), "--time", "0", input="h8\nquit\n", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    first, out = ANSI.sub("", p.stdout).split(X)[:2]
    row8 = [ln for ln in first.splitlines() if re.match(r"\s+7\s+8 ", ln)]
    assert row8 and row8[0][7 + 3 * 7 + 1] == "!"          # the forbidden point is marked
    out = clean(out)
    assert "h8 (7,7) is forbidden for black under renju" in out and "would make a double-three" in out
    assert "Bye" in clean(p.stdout)


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_while_the_engine_thinks_exits_at_once(tmp_path):
    """Ctrl-C during a 30 s engine move: its search (on a worker thread, in one jitted call)
    stops with the game, which is saved and left with 130 within the Ctrl-C bound, not after
    the move."""
    child = spawn("--size", "15", "--time", "30", "--color", "black", "--save", "g.sgf", cwd=tmp_path)
    child.expect_exact(X, timeout=FIRST_PROMPT_TIMEOUT)
    child.sendline("h8")
    child.expect_exact("is thinking (up to 30 s)")
    sent = time.monotonic()
    child.sendintr()
    out = finish(child, status=130)
    after = time.monotonic() - sent
    assert after < CTRL_C_S + CTRL_C_MARGIN_S, f"stopped {after:.2f} s after Ctrl-C: {out[-300:]}"
    assert "Bye" in out and "Auto-saved 1 move to g.sgf" in out


def test_the_screen_says_which_searcher_plays(tmp_path):
    """The shipped 8x8 net as the opponent: its name and 'net b4c32 + MCTS' in the title."""
    net = Path(__file__).resolve().parents[1] / "weights" / "8x8k5-b4c32.onnx"
    p = play("--size", "8", "--time", "0.2", "--opponent", f"{net}:playouts=50", input="d4\nquit\n", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    screen, after = clean(p.stdout).split(X)[:2]
    assert "vs 8x8k5-b4c32 (net b4c32 + MCTS)" in screen, screen[-600:]
    assert "played" in after
    p = play("--size", "8", "--time", "0", input="quit\n", cwd=tmp_path)    # the default: classical
    assert p.returncode == 0 and "vs classical" in clean(p.stdout).split(X)[0]


@pytest.mark.process
def test_screen_fits_80x25(tmp_path):
    """The largest board (22x22, the most lines and columns) in a real 25x80 terminal."""
    size = "22"
    child = spawn("--size", size, "--time", "0", cwd=tmp_path)
    wait(child, X, FIRST_PROMPT_TIMEOUT)
    send(child, "e5", X)
    child.sendline("e5")                                  # a message on top of board and status
    child.expect_exact(X)
    screen = (child.before + child.after).split("\x1b[2J")[-1]    # since the last clear-screen
    lines = ANSI.sub("", screen).replace("\r", "").split("\n")
    assert "taken by black" in " ".join(lines)
    assert len(lines) <= 25 and max(len(ln) for ln in lines) <= 80, "\n".join(lines)
    child.sendline("h1")                                  # no message: the game is named on screen
    child.expect_exact(X)
    screen = ANSI.sub("", (child.before + child.after).split("\x1b[2J")[-1]).replace("\r", "")
    lines = screen.split("\n")
    assert f"freestyle {size}x{size}" in screen and "vs classical" in screen, screen
    assert len(lines) <= 25 and max(len(ln) for ln in lines) <= 80, screen
    child.sendline("quit")
    finish(child)


@pytest.mark.parametrize("args, needle", [
    (["--size", "4"], "with sides 5..22"),
    (["--size", "big"], "is not a board size"),
    (["--rule", "chess"], "unknown rule"),
    (["--opponent", "gnugo"], "unknown player"),
    (["--load", "missing.sgf"], "record file not found"),
    (["--save", "game.txt"], "must end in .sgf or .psq"),
])
def test_bad_options_are_one_line_errors(tmp_path, args, needle):
    p = play(*args, input="", cwd=tmp_path)
    out = ANSI.sub("", p.stdout + p.stderr)
    assert p.returncode == (1 if needle == "record file not found" else 2), out
    assert needle in " ".join(out.split()) and "Traceback" not in out


def test_engine_score_says_whose_it_is():
    from gomoku.engine.base.limits import SearchInfo
    assert SearchInfo.of({"depth": 9, "score": 35}).summary("its") == ", depth 9, its score +35"


def test_unwritable_save_path_is_refused_before_the_game(tmp_path):
    (tmp_path / "a-file").write_text("x")
    p = play("--save", "a-file/mine.sgf", input="", cwd=tmp_path)
    out = clean(p.stdout + p.stderr)
    assert p.returncode == 2 and "a-file is a file, not a folder" in out and "--save" in out, out
    assert "Your move" not in out and "Traceback" not in out


# ------------------------------------------------------------------ rendering and notation

@pytest.mark.parametrize("text, expected", [
    ("h8", (7, 7)), ("H8", (7, 7)), ("a1", (0, 0)), ("o15", (14, 14)), ("7,7", (7, 7)),
    (" 0, 14 ", (0, 14)), ("(3,4)", (3, 4)), ("3 4", (3, 4)),
])
def test_parse_move(text, expected):
    assert render.parse_move(text, 15, 15) == expected


@pytest.mark.parametrize("text, needle", [
    ("p1", "column 'p' is off the board"), ("a0", "row 0 is off the board"), ("a16", "row 16"),
    ("15,0", "off the board"), ("-1,3", "off the board"), ("", "cannot read"), ("hello", "cannot read"),
])
def test_parse_move_errors(text, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        render.parse_move(text, 15, 15)


def test_notation_matches_rulers():
    assert render.move_name(7, 7) == "h8" and render.describe_move((21, 0)) == "v1 (21,0)"
    for x in range(22):
        for y in range(22):
            assert render.parse_move(render.move_name(x, y), 22, 22) == (x, y)


@pytest.mark.parametrize("side, max_lines", [(15, 17), (20, 22), (22, 23)])
def test_board_fits_80_columns(side, max_lines):
    b = Board(side, rule=Rule.RENJU)
    for m in [(5, 7), (0, 0), (6, 7), (0, side - 1), (7, 5), (side - 1, 0), (7, 6)]:
        b.play(*m)
    console = Console(width=80, record=True, color_system=None)
    console.print(render.render_board(b, forbidden=[(7, 7)], hint=(3, 3)))
    lines = console.export_text().rstrip("\n").split("\n")
    assert len(lines) == render.board_lines(side) <= max_lines
    assert max(len(ln) for ln in lines) <= 80
    body = lines[-side:]
    assert body[6].split()[:2] == ["6", "7"]              # y index and row number
    assert "[X]" in body[6]                               # last move (7,6) highlighted without colour
    assert body[7][7 + 3 * 7 + 1] == "!"                  # forbidden mark at (7,7)
    assert body[3][7 + 3 * 3 + 1] == "*"                  # hint at (3,3)
    assert body[7][7 + 3 * 5 + 1] == "X" and body[0][7 + 3 * 0 + 1] == "O"


def test_the_end_reads_in_order_and_the_exit_names_the_saved_file(tmp_path):
    """The engine's winning move is told above the 'Game over' it made (the status line came
    first before), the save counts '1 move'/'N moves' as written, and Ctrl-C after the game
    says where --save keeps it before 'Bye.'.
    (Ctrl-C at the prompt, exit 130, is the n-player session's process test.)"""
    moves = [(0, 8), (1, 1), (2, 8), (2, 1), (4, 8), (3, 1), (6, 8), (4, 1)]   # white has an open four
    start = tmp_path / "four.sgf"
    save(start, GameRecord(width=9, height=9, rule=Rule.FREESTYLE, moves=moves))
    p = play("--load", str(start), "--time", "0.2", "--save", "g.sgf", input="i1\nquit\n", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    out, end = clean(p.stdout).split(X, 1)[1].split("game over>", 1)
    played = out.rfind("played")
    assert 0 <= played < out.rfind("Game over:"), out[-400:]
    assert "Auto-saved 10 moves to g.sgf" in out
    assert end.endswith("Auto-saved 10 moves to g.sgf. Bye."), end[-200:]


def test_level_outside_1_to_6_is_refused(tmp_path):
    from click.testing import CliRunner

    from gomoku.tools.play_cmd import play
    r = CliRunner().invoke(play, ["--level", "9"])
    assert r.exit_code == 2 and "'--level': 9 is not in the range 1<=x<=6" in r.output
