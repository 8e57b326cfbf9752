"""The scored-games file (training labels): its bytes, its reader, its writer after a kill, and
`gomoku match --labels` writing what the searches reported."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku.engine.game.labels import (LOSS, MAGIC, NO_SCORE, WIN, LabelWriter, no_cell, read_games,
                                       scored_game, symmetric)
from gomoku.tools.cli import main


def _game(width: int = 15, height: int = 15):
    # two opening stones, then black's search says +35, white's -40, black proves the win
    moves = [(7, 7), (8, 8), (7, 8), (6, 6), (0, 0)]
    return scored_game(width, height, 0, 1, moves, 2, [None, None, 35, -40, "win"])


def test_a_game_round_trips_at_four_bytes_a_position_on_15x15(tmp_path):
    path = tmp_path / "g.labels"
    with LabelWriter(path) as w:
        w.write(_game())
        w.write(scored_game(15, 15, 2, 2, [(7, 7), (1, 2)], 0, ["loss", 12]))
    assert path.stat().st_size == len(MAGIC) + (10 + 5 * 4) + (10 + 2 * 4)
    first, second = read_games(path)
    assert first.moves.tolist() == [7 * 15 + 7, 8 * 15 + 8, 8 * 15 + 7, 6 * 15 + 6, 0]
    assert first.scores.tolist() == [NO_SCORE, NO_SCORE, 35, -40, WIN]
    # a position a search chose has its own move as best; the opening's have none
    assert first.best.tolist() == [no_cell(15, 15)] * 2 + first.moves.tolist()[2:]
    assert first.scored().tolist() == [2, 3, 4]
    assert (first.result, first.opening, first.rule) == (1, 2, 0)
    assert [first.result_for_mover(p) for p in (2, 3)] == [1, -1]
    assert (second.result, second.rule, second.scores.tolist()) == (-1, 2, [LOSS, 12])


def test_the_eight_symmetries_map_moves_and_best_moves_and_keep_the_rest():
    g = _game()
    images = [symmetric(g, k) for k in range(8)]
    assert images[0].moves.tolist() == g.moves.tolist()
    assert len({im.moves.tobytes() for im in images}) == 8          # this game has no symmetry of its own
    turned = images[1]                                                # a quarter turn: (x, y) -> (14 - y, x)
    assert turned.moves.tolist()[4] == 0 * 15 + 14                   # the corner (0, 0) goes to (14, 0)
    assert turned.moves.tolist()[2] == 7 * 15 + (14 - 8)             # (7, 8) -> (6, 7)
    for im in images:
        assert im.best.tolist()[:2] == [no_cell(15, 15)] * 2       # no best move stays none
        assert (im.best[2:] == im.moves[2:]).all()
        assert im.scores.tolist() == g.scores.tolist() and im.result == g.result
    # four of a rectangle's, and a fifth is refused
    r = scored_game(20, 10, 0, 1, [(0, 0), (19, 9)], 0, [1, 2])
    assert symmetric(r, 3).moves.tolist() == [9 * 20 + 19, 0]
    with pytest.raises(ValueError, match="symmetry 4"):
        symmetric(r, 4)


def test_boards_over_254_cells_take_two_bytes_a_cell(tmp_path):
    path = tmp_path / "g.labels"
    with LabelWriter(path) as w:
        w.write(scored_game(20, 20, 0, 0, [(19, 19), (0, 19)], 0, [1, 2]))
    (g,) = read_games(path)
    assert g.moves.tolist() == [399, 380] and g.moves.dtype == np.uint16
    assert path.stat().st_size == len(MAGIC) + 10 + 2 * 6


def test_a_file_cut_by_a_kill_keeps_its_complete_games_and_appends_after_them(tmp_path):
    path = tmp_path / "g.labels"
    with LabelWriter(path) as w:
        w.write(_game())
        w.write(_game())
    whole = path.read_bytes()
    path.write_bytes(whole[:-3])            # the second game torn mid-write
    assert len(list(read_games(path))) == 1
    with LabelWriter(path) as w:
        assert w.games_before == 1
        w.write(_game())
    assert path.read_bytes() == whole
    assert len(list(read_games(path))) == 2


def test_scores_are_clipped_inside_the_proven_codes_and_a_foreign_file_is_refused(tmp_path):
    g = scored_game(15, 15, 0, 0, [(1, 1), (2, 2)], 0, [10 ** 6, -(10 ** 6)])
    assert g.scores.tolist() == [30000, -30000]
    with pytest.raises(ValueError, match="scores"):
        scored_game(15, 15, 0, 0, [(1, 1)], 0, [])
    other = tmp_path / "x.labels"
    other.write_bytes(b"not labels at all")
    with pytest.raises(ValueError, match="not a scored-games file"):
        list(read_games(other))
    with pytest.raises(ValueError, match="not a scored-games file"):
        LabelWriter(other)


def test_match_labels_hold_each_move_with_the_score_its_search_reported(tmp_path):
    """A fixed-node match writes one scored game per game; its scores are the ones the JSON
    of the same match does not show but the searches reported: proven at the end, centi-
    stones before; a second match adds its games to the file."""
    book = tmp_path / "book.txt"
    book.write_text("h8a1i8a3j8a5\nh8h9\n")
    path = tmp_path / "m.labels"
    args = ["match", "classical:nodes=3000", "classical:nodes=3000,name=other", "-n", "4", "-o", str(book),
            "-t", "0", "--json", "-", "--labels", str(path)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    results = json.loads(r.stdout)["results"]
    games = list(read_games(path))
    assert len(games) == 4
    by_moves = {tuple(g.moves.tolist()): g for g in games}
    for res in results:
        g = by_moves[tuple(y * 15 + x for x, y in res["moves"])]
        assert g.opening == len(res["opening"])
        assert g.result == {"black": 1, "white": -1, None: 0}[res["winner"]]
        assert (g.scores[:g.opening] == NO_SCORE).all() and (g.scores[g.opening:] != NO_SCORE).all()
    won = by_moves[tuple(y * 15 + x for x, y in results[0]["moves"])]
    assert won.scores[-1] == WIN                    # black's last move wins, and its search knew
    assert won.result_for_mover(won.plies - 1) == 1
    r = CliRunner().invoke(main, args[:-2] + ["-n", "2", "--labels", str(path)])
    assert r.exit_code == 0, r.output
    assert "this match's games are added to its 4 games" in r.stderr
    assert len(list(read_games(path))) == 6


def test_openings_from_starts_at_the_kth_opening_and_refuses_one_past_the_set(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("h8\nh8h9\nh8i9j7\n")
    r = CliRunner().invoke(main, ["match", "random", "random:name=b", "-n", "2", "-o", str(book), "-t", "0",
                                  "--seed", "1", "--openings-from", "3", "--json", "-"])
    assert r.exit_code == 0, r.output
    assert [len(g["opening"]) for g in json.loads(r.stdout)["results"]] == [3, 3]
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "4", "-o", str(book), "-t", "0",
                                  "--openings-from", "3"])
    assert r.exit_code != 0 and "need 2 openings and the set has 1" in r.output
    r = CliRunner().invoke(main, ["match", "random", "random", "-o", str(book), "--openings-from", "4"])
    assert r.exit_code != 0 and "the set has 3 openings" in r.output


def _labels_cmd(path, games: int) -> list[str]:
    import sys
    return [sys.executable, "-m", "gomoku.tools.cli", "labels", str(path), "-n", str(games), "--nodes", "400",
            "-c", "2", "--random-plies", "3", "--no-progress"]


@pytest.mark.slow
@pytest.mark.process
def test_the_label_engine_killed_with_sigkill_continues_to_the_file_of_a_run_never_stopped(tmp_path):
    """Games go to the file in index order, so a run killed and continued leaves exactly the
    bytes of one that ran through; the random plies keep every game's opening apart."""
    import os
    import signal
    import subprocess
    import time
    whole, killed = tmp_path / "whole.labels", tmp_path / "killed.labels"
    r = subprocess.run(_labels_cmd(whole, 8), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    games = list(read_games(whole))
    assert len(games) == 8 and len({g.moves[:g.opening].tobytes() for g in games}) == 8
    assert all(len(g.scored()) > 0 for g in games)
    proc = subprocess.Popen(_labels_cmd(killed, 8), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline and \
            (not killed.exists() or len(list(read_games(killed))) < 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 2 <= len(list(read_games(killed))) < 8
    r = subprocess.run(_labels_cmd(killed, 8), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "continuing" in r.stdout
    assert killed.read_bytes() == whole.read_bytes()
    r = subprocess.run(_labels_cmd(killed, 9)[:-3] + ["--random-plies", "5", "--no-progress"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1 and "made with other random_plies" in r.stderr
