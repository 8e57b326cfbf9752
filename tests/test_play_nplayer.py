"""`gomoku play --players 3`: turn order, undo and save driven through a pseudo-terminal; a
full board, a win and the one-line errors through the real command in this process, the
moves on its stdin."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pexpect
import pytest
from cli_runner import Ran, gomoku
from play_pty import clean, finish, send, send_eof, spawn_play, wait

FIRST_PROMPT_TIMEOUT = 180     # a cold numba cache compiles the tree search on first use
TIMEOUT = 60


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    return spawn_play(["--players", "3", *args], cwd, 30, 100, TIMEOUT)


SEAT2 = "Your move, seat 2 (O)>"


def play_free(child: pexpect.spawn, prompt: str, candidates: list[str]) -> tuple[str, str]:
    """Play the first candidate that is free; (move, screen up to the next prompt)."""
    for mv in candidates:
        out = send(child, mv, prompt)
        if "is taken by" not in out:
            return mv, out
    raise AssertionError("no free candidate")


PROMPT = re.compile(r"Your move, seat \d \([XOV]\)>|game over>")


def replies(*args: str, moves: list[str], cwd: Path) -> tuple[list[str], list[str]]:
    """`gomoku play --players 3 ARGS` in this process with `moves` then quit typed, once it
    exited 0: what it printed before the first prompt, then after each line typed (cleaned);
    and the prompts, in order."""
    p = gomoku(["play", "--players", "3", *args], input="".join(f"{m}\n" for m in [*moves, "quit"]), cwd=cwd)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stdout[-500:] + p.stderr
    return [clean(part) for part in PROMPT.split(p.stdout)], PROMPT.findall(p.stdout)


@pytest.mark.process
def test_turn_order_after_undo_and_save(tmp_path):
    # an engine at seat 1 moves first; the person sits at seat 2; seat 3 is another engine
    child = spawn("--size", "6", "--win", "4", "--seats", "pure-mcts:40,human,pure-mcts:40", cwd=tmp_path)
    out = wait(child, SEAT2, FIRST_PROMPT_TIMEOUT)
    assert "Order: seat 1 X pure-mcts-40-1 -> >seat 2 O human (you)< -> seat 3 V pure-mcts-40-3" in out
    assert "Move 2: seat 2 O human (your move)" in out
    first_engine = re.search(r"seat 1 X pure-mcts-40-1 played ([a-f]\d)", out)
    assert first_engine, out[-500:]

    mine, out = play_free(child, SEAT2, ["a1", "f6", "a6"])
    # seats 3 and 1 answered, in that order, and it is seat 2's turn again at move 5
    assert "Move 5: seat 2 O human (your move)" in out
    assert out.index("seat 3 V pure-mcts-40-3 played") < out.rindex("seat 1 X pure-mcts-40-1 played")

    out = send(child, "undo", SEAT2)
    assert re.search(rf"Took back {mine} \(\d,\d\), [a-f]\d \(\d,\d\), [a-f]\d \(\d,\d\)\. seat 2 O human to move",
                     out), out[-400:]
    assert "Move 2: seat 2 O human (your move)" in out
    assert ">seat 2 O human (you)<" in out

    _, out = play_free(child, SEAT2, ["b2", "e5", "b5"])
    assert "Move 5: seat 2 O human (your move)" in out
    assert out.index("seat 3 V pure-mcts-40-3 played") < out.rindex("seat 1 X pure-mcts-40-1 played")

    out = send(child, "save out/game.json", SEAT2)
    assert "Saved 4 moves to out/game.json" in out
    assert "saved as JSON records" in send(child, "save g.sgf", SEAT2) and not (tmp_path / "g.sgf").exists()
    child.sendline("quit")
    finish(child)
    rec = json.loads((tmp_path / "out" / "game.json").read_text())
    assert rec["format"] == "gomoku-nplayer" and rec["players"] == 3 and rec["win_length"] == 4
    assert [s["player"] for s in rec["seats"]] == ["pure-mcts:40", "human", "pure-mcts:40"]
    assert [s["symbol"] for s in rec["seats"]] == ["X", "O", "V"]
    assert len(rec["moves"]) == 4 and rec["result"] is None


# 25 moves on 5x5 after which nobody has five (move i is seat i % 3's)
DRAW_5X5 = ("0,2 0,4 4,4 1,4 3,4 0,1 2,4 3,2 1,3 4,1 1,2 2,3 0,0 2,1 1,0 1,1 2,2 4,3 4,2 0,3 3,0 3,1 2,0 "
            "3,3 4,0").split()


def test_three_people_fill_the_board_to_a_draw(tmp_path):
    out = replies("--size", "5", "--seats", "human,human,human", "--name", "p", "--save", "draw.json",
                  moves=[*DRAW_5X5[:-1], "0,2", DRAW_5X5[-1]], cwd=tmp_path)[0]
    for i, mv in enumerate(DRAW_5X5[:-1]):
        nxt = (i + 1) % 3
        assert f"Move {i + 2}: seat {nxt + 1}" in out[i + 1]
    assert "is taken by seat 1 X p1" in out[25]
    assert "Game over: Draw: the board is full." in out[26]
    assert "Auto-saved 25 moves to draw.json" in out[26]
    rec = json.loads((tmp_path / "draw.json").read_text())
    assert rec["result"] == {"winner_seat": None, "reason": "full", "text": "Draw: the board is full."}
    assert [s["name"] for s in rec["seats"]] == ["p1", "p2", "p3"]


def test_a_win_is_announced_for_the_seat_that_made_it(tmp_path):
    # seat 2 (O) makes four down column b while the others play elsewhere
    moves = ["a1", "b1", "f1", "a3", "b2", "f3", "a5", "b3", "f5", "c6"]
    prompts = [f"Your move, seat {(i + 1) % 3 + 1} ({'XOV'[(i + 1) % 3]})>" for i in range(len(moves))]
    out, shown = replies("--size", "6", "--win", "4", "--seats", "human,human,human",
                         moves=[*moves, "b4", "undo"], cwd=tmp_path)
    assert shown[:len(moves) + 3] == ["Your move, seat 1 (X)>", *prompts, "game over>", "Your move, seat 2 (O)>"]
    assert "Game over: seat 2 O human2 wins with 4 in a row." in out[len(moves) + 1]
    assert "Took back b4 (1,3). seat 2 O human2 to move" in out[len(moves) + 2]   # the win taken back


def run_play(*args: str, cwd: Path) -> Ran:
    return gomoku(["play", *args], input="", cwd=cwd)


def test_bad_seats_and_boards_get_one_line(tmp_path):
    p = run_play("--players", "3", "--seats", "human,classical,human", cwd=tmp_path)
    assert p.returncode == 2 and "plays two-player games only" in p.stderr and "Traceback" not in p.stderr
    p = run_play("--players", "3", "--seats", "human,human", cwd=tmp_path)
    assert p.returncode == 2 and "2 seats given for 3 players" in p.stderr
    p = run_play("--players", "3", "--rule", "renju", cwd=tmp_path)
    assert p.returncode == 2 and "rule renju is for two players" in p.stderr
    p = run_play("--players", "3", "--color", "white", cwd=tmp_path)
    assert p.returncode == 2 and "--color is for two-player games" in p.stderr
    p = run_play("--players", "3", "--seats", "human,human,human", "--save", "x.sgf", cwd=tmp_path)
    assert p.returncode == 2 and "saved as JSON records" in p.stderr
    p = run_play("--seats", "human,human", cwd=tmp_path)
    assert p.returncode == 2 and "--seats and --win are for --players 3 or 4" in p.stderr


@pytest.mark.process
def test_ctrl_c_saves_and_exits_130_and_eof_exits_0(tmp_path):
    """The ending both seat counts share (tools.play_session.run_session): Ctrl-C at the
    prompt of a real terminal."""
    child = spawn("--size", "5", "--seats", "human,human,human", "--save", "g.json", cwd=tmp_path)
    wait(child, "Your move, seat 1 (X)>", FIRST_PROMPT_TIMEOUT)
    send(child, "c3", "Your move, seat 2 (O)>")
    child.sendintr()
    out = finish(child, status=130)
    assert "Bye" in out and "Auto-saved 1 move to g.json" in out
    assert json.loads((tmp_path / "g.json").read_text())["moves"] == [[2, 2]]
    child = spawn("--size", "5", "--seats", "human,human,human", cwd=tmp_path)
    wait(child, "Your move, seat 1 (X)>", FIRST_PROMPT_TIMEOUT)
    send_eof(child)
    assert "Bye" in finish(child)


def test_two_player_options_are_refused_by_their_own_flag(tmp_path):
    """tools.handoff names the option as the command declares it (--load, not load_path)."""
    p = run_play("--players", "3", "--load", "g.sgf", cwd=tmp_path)
    assert p.returncode == 2 and "--load is for two-player games; with --players 3 use --seats" in p.stderr
    assert "Traceback" not in p.stderr


def test_two_engines_of_one_spec_both_carry_their_seat():
    """Naming only the second copy ('pure-mcts-2000' beside 'pure-mcts-2000-3') made one seat
    look like a different player; every copy now says its seat, a lone engine keeps its name."""
    from gomoku.tools.play_nplayer import make_seats
    seats = make_seats(None, 3, 5, "human")
    try:
        assert [s.name for s in seats] == ["human", "pure-mcts-2000-2", "pure-mcts-2000-3"]
    finally:
        for s in seats:
            if s.player is not None:
                s.player.close()
    seats = make_seats("human,pure-mcts:500,random", 3, 5, "human")
    assert [s.name for s in seats][1:] == ["pure-mcts-500", "random"]
