"""`gomoku match --players 3`: the three-player Gobang paper's seatings and scoring through the real command (in this process),
and the n-player referee's judging of forfeits."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.match.nplayer import NGameSettings, NMatch, play_ngame, seatings
from gomoku.engine.game.nboard import NBoard, NBoardError
from cli_runner import Ran, gomoku
from netfiles import uniform_net


def run_match(*args: str, cwd: Path) -> Ran:
    return gomoku(["match", "--players", "3", *args], cwd=cwd)


def test_a_tiny_match_scores_and_seats_as_designed(tmp_path):
    p = run_match("pure-mcts:200", "pure-mcts:20", "--size", "6", "--win", "4", "-n", "12", "--seed", "3",
                  "--json", "out/r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "out" / "r.json").read_text())
    assert data["games"] == 12 and data["players"] == 3
    assert data["settings"]["width"] == 6 and data["settings"]["win_length"] == 4
    results = data["results"]
    # every seating twice: the lone player in each seat, A alone and B alone
    seat_sets = Counter(tuple(r["sides"]) for r in results)
    assert seat_sets == Counter({s: 2 for s in [("A", "B", "B"), ("B", "A", "B"), ("B", "B", "A"),
                                                ("B", "A", "A"), ("A", "B", "A"), ("A", "A", "B")]})
    assert Counter(r["seating"] for r in results) == {"1 A vs 2 B": 6, "2 A vs 1 B": 6}
    # win 3 / draw 1 / loss 0 per side and game; the totals add them up
    for r in results:
        pts = r["points"]
        if r["reason"] == "full":
            assert pts == {"A": 1, "B": 1} and r["winner_seat"] is None
        else:
            assert r["reason"] == "five"
            side = r["sides"][r["winner_seat"] - 1]
            assert r["winning_side"] == side and pts[side] == 3 and pts["B" if side == "A" else "A"] == 0
            assert r["names"][r["winner_seat"] - 1] == ("pure-mcts-200" if side == "A" else "pure-mcts-20")
    assert data["totals"] == {"A": sum(r["points"]["A"] for r in results),
                              "B": sum(r["points"]["B"] for r in results)}
    # each player sat in each seat six times (alone twice, doubled four times)
    for side in ("A", "B"):
        assert [c["games"] for c in data["by_seat"][side]] == [6, 6, 6]
        assert all(c["wins"] + c["draws"] + c["losses"] == 6 for c in data["by_seat"][side])
    assert sum(data["wins_by_seat"]) == sum(r["winner_seat"] is not None for r in results)
    # ten times the playouts: A scores more than B
    assert data["totals"]["A"] > data["totals"]["B"]
    out = p.stdout
    assert f"Score of pure-mcts-200 vs pure-mcts-20 (3 players; win 3, draw 1, loss 0): " \
           f"{data['totals']['A']} - {data['totals']['B']}  (12 games)" in out
    assert "1 A vs 2 B: pure-mcts-200" in out and "2 A vs 1 B: pure-mcts-200" in out
    assert out.count("Finished game") == 12 and "by seat" in out


def test_three_player_nets_play_and_two_player_nets_are_refused(tmp_path):
    net3 = uniform_net(str(tmp_path / "flat3.onnx"), players=3, win_length=4, sizes=(6,))
    p = run_match(f"{net3}:playouts=32", "pure-mcts:20", "--size", "6", "--win", "4", "--json", "-", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)                       # --json -: stdout carries only the JSON
    assert data["games"] == 6 and data["player_a"] == "flat3"
    assert "Score of flat3 vs pure-mcts-20" in p.stderr
    net2 = uniform_net(str(tmp_path / "flat2.onnx"), players=2, win_length=4, sizes=(6,))
    p = run_match(net2, "pure-mcts:20", "--size", "6", "--win", "4", cwd=tmp_path)
    assert p.returncode == 1 and "is a freestyle net (two players, four in a row" in p.stderr
    assert "this game is 3 players, 4 in a row" in p.stderr


@pytest.mark.parametrize("args,message", [
    (["pure-mcts:20", "pure-mcts:10", "-n", "4"], "must be a multiple of 6"),
    (["classical", "pure-mcts:10"], "classical plays two-player games only"),
    (["pure-mcts:20", "brain:/bin/true"], "plays two-player games only"),
    (["pure-mcts:20", "pure-mcts:10", "--sgf", "x.sgf"], "--sgf is for two-player matches"),
    (["pure-mcts:20", "pure-mcts:10", "--rule", "renju"], "rule renju is for two players"),
    (["pure-mcts:20"], "expected two players, got 1"),
])
def test_bad_matches_get_one_line(tmp_path, args, message):
    p = run_match(*args, cwd=tmp_path)
    assert p.returncode != 0 and message in p.stderr, p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("Error:")]
    assert "Traceback" not in p.stderr and len(errors) == 1 and message in errors[0]


class _Scripted:
    """Plays the given moves in turn (a cell outside the board when they run out)."""

    def __init__(self, name: str, moves: list[tuple[int, int]]) -> None:
        self.name, self.moves = name, list(moves)

    def new_game(self, width: int, height: int, rule) -> None:
        pass

    def play(self, board: NBoard, limit: Limit) -> PlayResult:
        return PlayResult(self.moves.pop(0) if self.moves else (99, 99))

    def close(self) -> None:
        pass


def test_the_referee_judges_a_win_and_a_forfeit():
    s = NGameSettings(width=6, players=3, win_length=4)
    a = _Scripted("a", [(0, 0), (0, 1), (0, 2), (0, 3)])
    b = _Scripted("b", [(1, 0), (1, 1), (1, 2)])
    c = _Scripted("c", [(2, 0), (2, 1), (2, 2)])
    r = play_ngame([a, b, c], s, sides=("A", "B", "B"))
    assert r.reason == "five" and r.winner == 0 and r.points("A") == 3 and r.points("B") == 0
    assert len(r.moves) == 10
    # seat 2 plays on a stone: its side (B) forfeits, A wins without making four
    a = _Scripted("a", [(0, 0), (0, 1)])
    b = _Scripted("b", [(0, 0)])
    c = _Scripted("c", [])
    r = play_ngame([a, b, c], s, sides=("A", "B", "B"))
    assert r.reason == "illegal" and r.loser == 1 and r.winner is None and "0,0 is taken" in r.detail
    assert r.winning_side == "A" and r.points("A") == 3 and r.seat_outcome(2) == "loss"


def test_seatings_cover_every_seat_for_each_player():
    cyc = seatings(3)
    assert len(cyc) == 6 and len(set(cyc)) == 6
    assert sorted(s.lone_seat for s in cyc) == [0, 0, 1, 1, 2, 2]
    assert [s.label for s in cyc] == ["1 A vs 2 B"] * 3 + ["2 A vs 1 B"] * 3


def test_the_board_refuses_bad_moves_and_calls_a_full_board():
    b = NBoard(5, players=3, win_length=5)
    with pytest.raises(NBoardError, match="outside"):
        b.play(5, 0)
    order = "0,2 0,4 4,4 1,4 3,4 0,1 2,4 3,2 1,3 4,1 1,2 2,3 0,0 2,1 1,0 1,1 2,2 4,3 4,2 0,3 3,0 3,1 2,0 3,3 4,0"
    for i, mv in enumerate(order.split()):
        assert b.to_move == i % 3
        assert not b.play(*map(int, mv.split(",")))
    assert b.is_full() and b.winner is None and b.game_over
    with pytest.raises(NBoardError, match="taken by seat 1"):
        b.play(0, 2)


def test_mcts_player_plays_three_seats_without_the_two_player_solver():
    """The VCF probes of MCTSPlayer read the two-player core's state, which an NBoard does not
    have: for three players they must stay off even when the player asks for them."""
    from gomoku.engine.mcts.player import MCTSPlayer
    from gomoku.engine.mcts.search import MCTSConfig
    p = MCTSPlayer(MCTSConfig.pure(200), None, players=3, win_length=4, use_solver=True)
    # seat 1 (X, to move) has three in a row on row 0 and wins at 3,0; the others have gapped stones
    b = NBoard.from_moves(8, 8, 3, 4, 0, [(0, 0), (0, 3), (0, 5), (1, 0), (2, 3), (2, 5), (2, 0), (4, 3), (4, 5)])
    p.new_game(8, 8, b.rule)
    res = p.play(b, Limit(playouts=200))
    assert res.move == (3, 0) and "proof" not in res.info


def test_each_cycle_starts_from_its_opening_and_a_game_ending_opening_is_refused():
    s = NGameSettings(width=6, players=3, win_length=4)
    openings = [((2, 2), (3, 3), (2, 3)), ((1, 1), (4, 4), (1, 4))]
    m = NMatch("random:seed=1", "random:seed=2", s, 12, seed=4, openings=openings)
    summary = m.run()
    m.close()
    for r in summary.results:
        assert r.opening == 3 and tuple(r.moves[:3]) == openings[r.index // 6]
        # the opening's stones are the seats' in turn order: seat 1 moves next, as on an empty board
        assert len(r.times) == len(r.moves) - 3
        assert r.to_json()["opening"] == 3
    assert len({tuple(r.sides) for r in summary.results[:6]}) == 6     # every seating meets each opening
    with pytest.raises(NBoardError, match="taken"):
        NMatch("random", "random", s, 6, openings=[((0, 0), (0, 0))])
    four = ((0, 0), (5, 5), (4, 5), (0, 1), (5, 4), (4, 4), (0, 2), (5, 3), (4, 3), (0, 3))
    with pytest.raises(NBoardError, match="ends the game"):
        NMatch("random", "random", s, 6, openings=[four])
