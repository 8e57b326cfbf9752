"""`gomoku match` through the real command, run in this process by click's runner; the tests
with a `brain:` player start that brain, a real process (marked `process`)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku.engine.game.records import load_psq, load_sgf_all
from cli_runner import Ran, gomoku
from gomoku.tools.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "pbrain_fixture.py"


def brain(mode: str = "random", *args: str) -> str:
    return "brain:" + " ".join([sys.executable, str(FIXTURE), mode, *args])


def run_cli(*args: str) -> Ran:
    return gomoku(["match", *args])


@pytest.mark.process
def test_match_with_a_brain_writes_records_and_json(tmp_path):
    sgf, psq, js = tmp_path / "games.sgf", tmp_path / "psq", tmp_path / "out.json"
    p = run_cli("random", brain("random", "9"), "-n", "4", "-t", "1", "--seed", "3",
                "--sgf", str(sgf), "--psq", str(psq), "--json", str(js))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "Score of random vs pbrain_fixture: " in out
    assert "...      random playing Black: " in out and "...      Black vs White: " in out
    assert "Elo difference: " in out and "LOS: " in out and "DrawRatio: " in out
    assert out.count("Finished game") == 4
    data = json.loads(js.read_text())
    assert data["games"] == 4 and data["wins"] + data["losses"] + data["draws"] == 4
    assert [r["a_is_black"] for r in data["results"]] == [True, False, True, False]
    assert data["settings"]["players"] == ["random", brain("random", "9")]
    games = load_sgf_all(sgf)
    assert len(games) == 4
    for g, r in zip(games, data["results"]):
        assert g.moves == [tuple(m) for m in r["moves"]]
        assert g.black == r["black"] and g.result == r["result"]
    files = sorted(psq.glob("*.psq"))
    assert len(files) == 4
    assert load_psq(files[0]).moves == games[0].moves


@pytest.mark.process
def test_brain_verdicts_forfeits_and_start_failures_reach_the_report(tmp_path):
    """Real brain processes (the fixture): an occupied cell, a late move, a brain that dies or
    refuses START, each as the referee and the report tell it."""
    js = tmp_path / "o.json"
    r = CliRunner().invoke(main, ["match", "random", brain("occupied"), "-n", "2", "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["reasons"] == {"illegal": 2} and data["wins"] == 2
    assert "occupied cell" in r.output
    r = CliRunner().invoke(main, ["match", "random", brain("late", "0.6"), "-n", "2", "-t", "0.1",
                                  "--tolerance", "0.1", "--json", "-"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["reasons"] == {"time": 2}
    r = CliRunner().invoke(main, ["match", "random", brain("late", "0.3"), "-n", "2", "-t", "0.1",
                                  "--tolerance", "2", "--draw-after", "6", "--json", "-"])
    data = json.loads(r.stdout)
    assert data["reasons"] == {"adjudication": 2}
    _one_line_error(run_cli("random", brain("dead")), "did not start")
    _one_line_error(run_cli("random", brain("refuse")), "refused START 15")


def test_concurrency_and_opening_files(tmp_path):
    pos = tmp_path / "pos.txt"
    pos.write_text("# two openings\nh8i9j7\n\nh8h9\n")
    off = tmp_path / "off.txt"
    off.write_text("0,0, 1,1, -1,2\n")
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "4", "-c", "2", "-o", str(pos),
                                  "--json", "-"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [r_["opening"] for r_ in data["results"]] == [[[7, 7], [8, 8], [9, 6]]] * 2 + [[[7, 7], [7, 8]]] * 2
    assert data["player_b"] == "random-2"
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "-s", "20", "-o", str(off),
                                  "--json", "-"])
    data = json.loads(r.stdout)
    assert data["results"][0]["opening"] == [[10, 10], [11, 11], [9, 12]]


def test_default_openings_are_the_balanced_set_on_15x15():
    from gomoku.engine.match.openings import balanced_openings, builtin_openings
    from gomoku.engine.game.rules import Rule
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--rule", "standard", "--json", "-"])
    assert r.exit_code == 0, r.output
    first = tuple(tuple(m) for m in json.loads(r.stdout)["results"][0]["opening"])
    assert first == balanced_openings(15, 15, Rule.STANDARD)[0]
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "-o", "builtin", "--json", "-"])
    first = tuple(tuple(m) for m in json.loads(r.stdout)["results"][0]["opening"])
    assert first == builtin_openings(15)[0]


def test_sprt_option_forms():
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "4", "--sprt", "elo0=0", "elo1=10",
                                  "alpha=0.1", "beta=0.1"])
    assert r.exit_code == 0, r.output
    assert "SPRT: llr " in r.output and "lbound -2.20, ubound 2.20" in r.output
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--sprt", "elo0=5 elo1=0"])
    assert r.exit_code != 0 and "elo1 > elo0" in r.output


def test_game_pairs_are_reported_and_tested_as_pairs():
    """Each opening twice with colours swapped is a pair: the report prints the pentanomial
    counts of the complete pairs, the JSON carries them, and the SPRT counts pairs; with an
    odd number of games it counts games (cutechess's model) and says so."""
    r = CliRunner().invoke(main, ["match", "random", "random:seed=5", "-n", "10", "--seed", "2", "--json", "-",
                                  "--sprt", "elo0=0", "elo1=10", "model=normalized"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    counts = data["pairs"]["pentanomial"]
    assert sum(counts) == data["pairs"]["count"] == 5
    # the counts are the pairs' points, game 2k with game 2k+1
    res = {g["index"]: g for g in data["results"]}
    points = [0.0] * 5

    def a_score(g):
        won = {"black": g["a_is_black"], "white": not g["a_is_black"], None: None}[g["winner"]]
        return 0.5 if won is None else float(won)
    for k in range(5):
        points[int(2 * (a_score(res[2 * k]) + a_score(res[2 * k + 1])))] += 1
    assert counts == points
    assert f"Ptnml(0-2): {', '.join(str(c) for c in counts)}  (5 pairs)" in r.stderr
    assert data["sprt"]["basis"] == "pairs" and "on pairs" in r.stderr
    r = CliRunner().invoke(main, ["match", "random", "random:seed=5", "-n", "3", "--sprt", "elo0=0", "elo1=10"])
    assert r.exit_code == 0, r.output
    assert "on games" in r.output and "(1 pairs)" in r.output
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--sprt", "elo0=0", "elo1=5", "model=bayes"])
    assert r.exit_code != 0 and "model must be logistic or normalized" in r.output


def test_live_view_runs():
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "--progress"])
    assert r.exit_code == 0, r.output
    assert "Score of random vs random-2" in r.output


@pytest.mark.parametrize("args,msg", [
    (["missing.onnx", "random"], "ONNX file not found"),
    (["BAD_ONNX", "random"], "not a usable ONNX model"),
    (["pure-mcts:100,select=best", "random"], "select must be puct, ucb1, plain or flat"),
    (["random", "brain:/no/such/pbrain"], "brain executable not found"),
    (["random", "random", "-o", "OFFBOARD_OPENINGS"], "does not fit the 15x15 board"),
    (["random", "random", "-o", "/no/such/file"], "openings file not found"),
    (["random", "random", "-o", "balanced", "--rule", "renju"], "balanced openings exist for 15x15"),
    (["random", "random", "--rule", "go"], "unknown rule"),
    (["random", "random", "-s", "40"], "5..22"),
    (["random", "chess-engine"], "unknown player"),
])
def test_bad_input_is_one_line_and_non_zero(tmp_path, args, msg):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00garbage")
    offboard = tmp_path / "ops.txt"
    offboard.write_text("0,0\n-8,0, 0,1\n")
    subst = {"BAD_ONNX": str(bad), "OFFBOARD_OPENINGS": str(offboard)}
    _one_line_error(run_cli(*[subst.get(a, a) for a in args]), msg)


def _one_line_error(p: Ran, msg: str) -> None:
    assert p.returncode != 0
    assert msg in p.stderr
    assert "Traceback" not in p.stderr + p.stdout
    assert len([l for l in p.stderr.splitlines() if l.startswith("Error")]) == 1


@pytest.mark.process
def test_brain_info_and_memory_are_sent(tmp_path):
    log = tmp_path / "cmds.txt"
    r = CliRunner().invoke(main, ["match", "random", brain("log", str(log)), "-n", "1", "--brain-info",
                                  "thread_num=1", "--max-memory", "350", "--rule", "renju"])
    assert r.exit_code == 0, r.output
    lines = log.read_text().splitlines()
    assert "INFO thread_num 1" in lines and "INFO max_memory 367001600" in lines and "INFO rule 4" in lines
    r = CliRunner().invoke(main, ["match", "random", "random", "--brain-info", "oops"])
    assert r.exit_code != 0 and "KEY=VALUE" in r.output


def test_output_folders_are_made_and_json_is_written_as_games_finish(tmp_path, monkeypatch):
    from gomoku.tools import match_cmd
    calls = []
    real = match_cmd.write_json

    def spy(path, summary, settings, finished):
        real(path, summary, settings, finished)
        calls.append((len(json.loads(Path(path).read_text())["results"]), finished))

    monkeypatch.setattr(match_cmd, "write_json", spy)
    sgf, psq, js = tmp_path / "sub" / "g.sgf", tmp_path / "deep" / "er" / "psq", tmp_path / "sub2" / "r.json"
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "3", "--sgf", str(sgf), "--psq", str(psq),
                                  "--json", str(js)])
    assert r.exit_code == 0, r.output
    assert len(load_sgf_all(sgf)) == 3 and len(list(psq.glob("*.psq"))) == 3
    assert calls == [(1, False), (2, False), (3, False), (3, True)]
    assert json.loads(js.read_text())["finished"] is True
    assert not [p for p in js.parent.iterdir() if p.name != "r.json"]      # no temp file left
    # the final score line is printed once, after the last game, not again in the report
    last = [line for line in r.output.splitlines() if line.startswith("Score of")][-1]
    assert r.output.count(last) == 1


@pytest.mark.parametrize("option", ["--sgf", "--json", "--psq"])
def test_unwritable_output_is_refused_before_the_first_game(tmp_path, option):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "out.sgf"               # a folder cannot be made inside a file
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", option, str(target)])
    assert r.exit_code != 0
    assert "Started game" not in r.output and "Finished game" not in r.output
    assert "a-file is a file, not a folder" in r.output and option in r.output


def test_adjudicate_ends_a_game_both_searches_see_decided(tmp_path):
    """Black to move with an open three: it makes the open four (a proven win), white's
    search sees the loss, and with --adjudicate the game ends there, at white's move, counted
    for black; without it the five is played out."""
    book = tmp_path / "won.txt"
    book.write_text("h8a1i8a3j8a5\n")
    args = ["match", "classical:nodes=5000", "classical:nodes=5000,name=other", "-n", "2", "-o", str(book),
            "-t", "0", "--json", "-"]
    r = CliRunner().invoke(main, args + ["--adjudicate"])
    assert r.exit_code == 0, r.output
    games = json.loads(r.stdout)["results"]
    assert [g["reason"] for g in games] == ["proven", "proven"]
    assert all(g["winner"] == "black" and len(g["moves"]) == 6 + 2 for g in games)
    assert "wins by adjudication: both searches see the win forced" in games[0]["detail"]
    r = CliRunner().invoke(main, args)
    assert [g["reason"] for g in json.loads(r.stdout)["results"]] == ["five", "five"]
