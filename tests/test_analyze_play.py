"""`gomoku play`'s `review`: the game just played (here a loaded one, finished) reviewed as
`gomoku analyze` reviews it, at its default budget, offered at the end of the game. The
session runs in this process on typed input: the review is text, and needs no terminal."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import gomoku
from gomoku.engine.game.records import save
from play_pty import clean
from test_analyze import vcf_game


@pytest.mark.slow
def test_review_at_the_end_of_a_game_shows_the_report(tmp_path: Path) -> None:
    path = tmp_path / "vcf.sgf"
    save(path, vcf_game())
    out = gomoku(["play", "--load", str(path), "--time", "0"], input="review\n\nquit\n", cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    screen = clean(out.stdout)
    offer = screen.index("Type review to see every move judged")
    report = screen.index("Review of this game: 15x15 freestyle, 15 moves")
    assert offer < report, screen[-600:]
    review = screen[report:]
    assert "1-0 (five)" in review
    assert "black has a VCF: i6 j6 i" in review and "the losing move" in review
    assert "15 X i5 i5 100% 100% 0 makes five" in review
    assert "Game over" in review[review.index("makes five"):]     # the next input brings the board back
    assert "Traceback" not in out.stderr


def test_review_before_any_move_says_so(tmp_path: Path) -> None:
    out = gomoku(["play", "--time", "0"], input="review\nquit\n", cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Nothing to review yet: play a move first." in clean(out.stdout)
