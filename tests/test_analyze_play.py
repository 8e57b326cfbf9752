"""`gomoku play`'s `review`: the game just played (here a loaded one, finished) reviewed as
`gomoku analyze` reviews it, at its default budget, offered at the end of the game."""
from __future__ import annotations

import pytest

from gomoku.engine.game.records import save
from play_pty import finish, send, spawn_play, wait
from test_analyze import vcf_game

GAME_OVER = "game over> "


@pytest.mark.process
@pytest.mark.slow
def test_review_at_the_end_of_a_game_shows_the_report(tmp_path):
    path = tmp_path / "vcf.sgf"
    save(path, vcf_game())
    child = spawn_play(["--load", str(path), "--time", "0"], tmp_path, 25, 80, 180)
    screen = wait(child, GAME_OVER, 180)
    assert "Type review to see every move judged" in screen, screen[-400:]
    out = send(child, "review", GAME_OVER)
    assert "Review of this game: 15x15 freestyle, 15 moves" in out and "1-0 (five)" in out, out
    assert "black has a VCF: i6 j6 i" in out and "the losing move" in out
    assert "15 X i5 i5 100% 100% 0 makes five" in out
    assert "Game over" in send(child, "", GAME_OVER)        # the next input brings the board back
    child.sendline("quit")
    finish(child)


@pytest.mark.process
def test_review_before_any_move_says_so(tmp_path):
    child = spawn_play(["--time", "0"], tmp_path, 25, 80, 120)
    wait(child, "Your move (X)>")
    assert "Nothing to review yet: play a move first." in send(child, "review", "Your move (X)>")
    child.sendline("quit")
    finish(child)
