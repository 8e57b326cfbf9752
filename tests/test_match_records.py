"""`gomoku match --sgf/--psq/--append` and the match's Elo words, through the click command.

A match's records are its own games (README: "rewritten after every game"): three runs of the
same command used to leave 2, 4 and 6 games in the SGF file, two of them GN[1]. The Elo line
after a sweep used to say "at least -113.4" for a player that won every game."""
from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku.engine.game.records import load_psq, load_sgf_all
from gomoku.tools.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "pbrain_fixture.py"
#: a brain that answers its first move request with an occupied cell: A wins every game
LOSER = "brain:" + " ".join([sys.executable, str(FIXTURE), "occupied"])


def match(*args: str):
    r = CliRunner().invoke(main, ["match", *args])
    assert r.exit_code == 0, r.output
    return r


def game_numbers(sgf: Path) -> list[str]:
    return re.findall(r"GN\[(\d+)\]", sgf.read_text())


def test_each_run_rewrites_the_sgf_and_psq_with_its_own_games_and_says_so(tmp_path):
    sgf, psq, js = tmp_path / "ap.sgf", tmp_path / "psq", tmp_path / "ap.json"
    args = ["random", "random", "-n", "2", "--seed", "1", "--sgf", str(sgf), "--psq", str(psq), "--json", str(js)]
    first = match(*args)
    assert "replaced" not in first.output           # nothing there before: nothing to say
    assert len(load_sgf_all(sgf)) == 2 and game_numbers(sgf) == ["1", "2"]
    (psq / "game_0007.psq").write_text(next(psq.glob("*.psq")).read_text())   # an older, longer match's
    (psq / "notes.psq").write_text("mine")
    for _ in range(2):
        r = match(*args)
        assert f"--sgf {sgf}: its 2 games are replaced by this match's games; --append keeps them" in r.output
        assert f"--psq {psq}: its " in r.output and "game_NNNN.psq files are replaced" in r.output
        assert len(load_sgf_all(sgf)) == 2 and game_numbers(sgf) == ["1", "2"]
        assert sorted(p.name for p in psq.iterdir()) == ["game_0001.psq", "game_0002.psq", "notes.psq"]
    data = json.loads(js.read_text())
    games = load_sgf_all(sgf)
    assert [g.moves for g in games] == [[tuple(m) for m in r["moves"]] for r in data["results"]]
    assert load_psq(psq / "game_0002.psq").moves == games[1].moves


def test_append_keeps_the_earlier_games_in_front_and_numbers_on(tmp_path):
    sgf, psq = tmp_path / "all.sgf", tmp_path / "psq"
    args = ["random", "random", "-n", "2", "--sgf", str(sgf), "--psq", str(psq)]
    match(*args, "--seed", "1")
    before = load_sgf_all(sgf)
    r = match(*args, "--seed", "2", "--append")
    assert f"--sgf {sgf}: this match's games follow its 2 earlier games (--append)" in r.output
    assert f"--psq {psq}: this match's games are numbered on from game_0003.psq (--append)" in r.output
    after = load_sgf_all(sgf)
    assert len(after) == 4 and after[:2] == before and game_numbers(sgf) == ["1", "2", "3", "4"]
    assert sorted(p.name for p in psq.iterdir()) == [f"game_000{i}.psq" for i in (1, 2, 3, 4)]
    assert load_psq(psq / "game_0004.psq").moves == after[3].moves
    new = tmp_path / "new.sgf"                       # --append to nothing yet: a plain first match
    r = match("random", "random", "-n", "2", "--sgf", str(new), "--append")
    assert "--append)" not in r.output and game_numbers(new) == ["1", "2"]


def test_append_without_records_or_onto_a_file_that_is_no_sgf_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--append"])
    assert r.exit_code == 2 and "--append needs --sgf FILE or --psq DIR" in r.output
    junk = tmp_path / "junk.sgf"
    junk.write_text("not a game record\n")
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--sgf", str(junk), "--append"])
    assert r.exit_code == 1 and "--append:" in r.output and "Started game" not in r.output
    assert len([line for line in r.output.splitlines() if line.startswith("Error")]) == 1
    assert junk.read_text() == "not a game record\n"
    r = match("random", "random", "-n", "2", "--sgf", str(junk))          # without --append: replaced
    assert f"--sgf {junk}: it is replaced by this match's games; --append keeps them" in r.output
    assert len(load_sgf_all(junk)) == 2


def test_help_and_readme_say_what_the_records_do():
    text = " ".join(CliRunner().invoke(main, ["match", "--help"]).output.split())
    assert "an existing file is replaced, unless --append" in text and "Keep the games already in" in text
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert "rewritten after every game" in readme and "unless `--append` keeps the earlier games" in readme


def test_match_outputs_get_the_mode_the_umask_gives(tmp_path):
    sgf, psq, js = tmp_path / "m.sgf", tmp_path / "psq", tmp_path / "m.json"
    old = os.umask(0o022)
    try:
        match("random", "random", "-n", "2", "--sgf", str(sgf), "--psq", str(psq), "--json", str(js))
    finally:
        os.umask(old)
    for f in (sgf, js, *psq.iterdir()):
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, f


@pytest.mark.parametrize("games, said, brief", [
    (2, "Elo difference: all 2 games won, too few for a 95 % bound (5 needed), LOS: ", "Elo: too few games"),
    (6, "Elo difference: at least +75.5 (all 6 games won; 95 % one-sided bound), LOS: ", ">= +75 Elo"),
])
def test_a_sweep_gives_a_bound_on_the_winners_side_in_report_json_and_live_view(tmp_path, games, said, brief):
    js = tmp_path / "s.json"
    r = match("random", LOSER, "-n", str(games), "--json", str(js), "--progress")
    assert said in r.output, r.output
    assert brief in r.output and "+inf" not in r.output and "-113" not in r.output, r.output
    data = json.loads(js.read_text())
    assert (data["wins"], data["elo"], data["elo_upper"]) == (games, None, None)
    assert data["elo_lower"] == (None if games < 5 else pytest.approx(75.49, abs=0.01))
    assert data["elo_text"] in said


def test_a_four_in_a_row_win_is_recorded_as_four(tmp_path):
    """The referee's code for any winning line is 'five'; the SGF said GC[five] for a game won
    with four, and now says what happened. The JSON keeps the referee's code."""
    sgf, out = tmp_path / "k4.sgf", tmp_path / "k4.json"
    r = CliRunner().invoke(main, ["match", "pure-mcts:50", "random", "--board", "6", "--win", "4", "-n", "2",
                                  "-o", "none", "--sgf", str(sgf), "--json", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    games = json.loads(out.read_text())["results"]
    won = [g for g in games if g["reason"] == "five"]
    assert won, games
    text = sgf.read_text()
    assert "GC[five]" not in text and text.count("GC[four]") == len(won)
    assert {g.reason for g in load_sgf_all(sgf)} >= {"four"}
