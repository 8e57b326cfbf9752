"""The referee and the match runner with in-process players (no subprocesses)."""
from __future__ import annotations

import time

import pytest

from gomoku.engine.match.arena import (BLACK, WHITE, GameSettings, Match, MatchSettings, SprtSettings, play_game,
                                 schedule)
from gomoku.engine.game.board import Board
from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.match.openings import builtin_openings
from gomoku.engine.match.players import PlayerCrashed, RandomPlayer, SpecError, make_engine_player, parse_spec
from gomoku.engine.game.rules import Rule


class Scripted:
    """Plays the given moves in order, then random ones; optional delay per move."""

    def __init__(self, moves=(), delay=0.0, name="scripted", seed=0):
        self.name = name
        self.moves = list(moves)
        self.delay = delay
        self.rand = RandomPlayer(seed)
        self.games = 0
        self.limits: list[Limit] = []

    def new_game(self, width, height, rule):
        self.games += 1

    def play(self, board, limit):
        self.limits.append(limit)
        if self.delay:
            time.sleep(self.delay)
        if self.moves:
            return PlayResult(self.moves.pop(0))
        return self.rand.play(board, limit)

    def close(self):
        pass


class Raising(Scripted):
    def play(self, board, limit):
        raise RuntimeError("boom")


class Resigning(Scripted):
    def play(self, board, limit):
        return PlayResult(None, resigned=True)


S15 = GameSettings(15, turn_time=1.0, tolerance=0.5)


def test_random_game_ends_with_five_and_consistent_record():
    res = play_game(RandomPlayer(1), RandomPlayer(2), S15, builtin_openings(15)[0])
    assert res.reason in ("five", "full")
    b = Board.from_moves(15, res.moves)
    assert b.winner == res.winner
    assert res.moves[:3] == list(builtin_openings(15)[0])
    assert len(res.times) == len(res.moves)
    rec = res.to_record()
    assert rec.result == res.result and rec.moves == res.moves


def test_five_is_detected_for_the_right_colour():
    # black builds 0..4 on row 0; white plays row 5
    black = Scripted([(i, 0) for i in range(5)])
    white = Scripted([(i, 5) for i in range(5)])
    res = play_game(black, white, S15)
    assert (res.winner, res.reason) == (BLACK, "five")
    assert len(res.moves) == 9


def test_occupied_cell_loses():
    res = play_game(Scripted([(7, 7)]), Scripted([(7, 7)]), S15)
    assert (res.winner, res.reason) == (BLACK, "illegal")
    assert "occupied" in res.detail and res.moves == [(7, 7)]


def test_off_board_loses():
    res = play_game(Scripted([(15, 3)]), Scripted(), S15)
    assert (res.winner, res.reason) == (WHITE, "illegal")
    assert "outside" in res.detail


def test_garbage_move_loses():
    res = play_game(Scripted([("a", "b")]), Scripted(), S15)
    assert (res.winner, res.reason) == (WHITE, "illegal")


def test_crash_loses():
    res = play_game(Scripted([(7, 7)]), Raising(), S15)
    assert (res.winner, res.reason) == (BLACK, "crash")
    assert "boom" in res.detail


def test_player_error_in_new_game_loses():
    class BadStart(Scripted):
        def new_game(self, w, h, r):
            raise PlayerCrashed("no start")
    res = play_game(BadStart(), Scripted(), S15)
    assert (res.winner, res.reason) == (WHITE, "crash")


def test_resign():
    res = play_game(Scripted(), Resigning(), S15)
    assert (res.winner, res.reason) == (BLACK, "resign")


def test_time_forfeit_per_move_and_tolerance():
    s = GameSettings(15, turn_time=0.05, tolerance=0.05)
    res = play_game(Scripted(delay=0.3), Scripted(), s)
    assert (res.winner, res.reason) == (WHITE, "time")
    # the same delay inside a larger tolerance is accepted
    s = GameSettings(15, turn_time=0.05, tolerance=0.5, draw_after=6)
    res = play_game(Scripted(delay=0.2), Scripted(), s)
    assert res.reason == "adjudication"


def test_time_forfeit_on_game_clock_and_time_left_is_passed():
    s = GameSettings(15, turn_time=None, match_time=0.2, tolerance=0.0)
    slow = Scripted(delay=0.06)
    res = play_game(slow, Scripted(), s)
    assert (res.winner, res.reason) == (WHITE, "time")
    lefts = [lim.time_left for lim in slow.limits]
    assert lefts[0] == pytest.approx(0.2) and all(a > b for a, b in zip(lefts, lefts[1:]))
    assert all(lim.match_time == 0.2 for lim in slow.limits)


def test_renju_foul_loses_and_is_recorded():
    # protocol doc case 37: 6,8 is forbidden for black in this position
    opening = ((7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11))
    b = Board.from_moves(15, opening, rule=Rule.RENJU)
    assert b.is_forbidden(6, 8)
    s = GameSettings(15, rule=Rule.RENJU, turn_time=1.0)
    res = play_game(Scripted([(6, 8)]), Scripted(), s, opening)
    assert (res.winner, res.reason) == (WHITE, "foul")
    assert res.moves[-1] == (6, 8)
    # the same move is fine under freestyle
    s = GameSettings(15, rule=Rule.FREESTYLE, turn_time=1.0, draw_after=10)
    res = play_game(Scripted([(6, 8)]), Scripted(), s, opening)
    assert res.reason != "foul"


def test_draw_adjudication_and_full_board():
    s = GameSettings(15, turn_time=1.0, draw_after=10)
    res = play_game(RandomPlayer(3), RandomPlayer(4), s)
    assert res.reason in ("adjudication", "five")
    if res.reason == "adjudication":
        assert len(res.moves) == 10 and res.winner == 0


def test_schedule_pairs_openings_and_alternates_colours():
    ops = tuple(builtin_openings(15)[:3])
    jobs = schedule(MatchSettings(GameSettings(15), games=7, openings=ops, seed=5))
    assert [j.a_is_black for j in jobs] == [True, False] * 3 + [True]
    assert [j.opening for j in jobs] == [ops[0], ops[0], ops[1], ops[1], ops[2], ops[2], ops[0]]
    shuffled = schedule(MatchSettings(GameSettings(15), games=6, openings=ops, seed=5, random_order=True))
    assert {j.opening for j in shuffled} == set(ops)
    assert all(shuffled[i].opening == shuffled[i + 1].opening for i in (0, 2, 4))


def test_match_colour_alternation_and_summary():
    settings = MatchSettings(GameSettings(15, turn_time=1.0), games=6, openings=tuple(builtin_openings(15)),
                             seed=11)
    summary = Match("random", "random:name=other", settings).run()
    assert len(summary.results) == 6
    for r in summary.results:
        assert r.black == ("random" if r.a_is_black else "other")
        assert r.white == ("other" if r.a_is_black else "random")
    assert [r.a_is_black for r in summary.results] == [True, False] * 3
    w, l, d = summary.wld()
    assert w + l + d == 6
    bw, ww, dd = summary.black_white()
    assert bw + ww + dd == 6
    aw = summary.wld(BLACK)
    assert sum(aw) == 3
    lines = summary.report_lines()
    assert lines[0].startswith(f"Score of random vs other: {w} - {l} - {d}")
    assert lines[-2].startswith("Elo difference: ")
    # the three colour-swapped pairs, by the points A took from each
    penta = summary.pentanomial()
    assert penta.pairs == 3 and lines[-1].startswith(f"Ptnml(0-2): {', '.join(map(str, penta.counts))}  (3 pairs)")
    scores = [r.a_score for r in summary.results]
    assert sorted(int(2 * (scores[2 * k] + scores[2 * k + 1])) for k in range(3)) == \
        sorted(i for i, c in enumerate(penta.counts) for _ in range(c))
    # same seed, same games: results do not depend on timing
    again = Match("random", "random:name=other", settings).run()
    assert [r.moves for r in again.results] == [r.moves for r in summary.results]


def test_sprt_stops_the_match_early():
    """A wins most games (B resigns), some draws (move-count adjudication), few losses."""
    plan = "WWDWWLWWDW" * 40

    class Planned(Scripted):
        def __init__(self, lose_on, name):
            super().__init__(name=name)
            self.lose_on = lose_on

        def play(self, board, limit):
            if plan[self.games - 1] == self.lose_on:
                return PlayResult(None, resigned=True)
            return self.rand.play(board, limit)

    a, b = Planned("L", "A"), Planned("W", "B")
    settings = MatchSettings(GameSettings(15, turn_time=1.0, draw_after=12), games=400, seed=1,
                             sprt=SprtSettings(0, 10, 0.05, 0.05))
    summary = Match(a, b, settings).run()
    assert summary.sprt is not None and summary.sprt.decision == "H1"
    assert len(summary.results) < 400
    assert summary.stopped.startswith("SPRT")
    assert summary.sprt.llr >= summary.sprt.upper


def test_parallel_match_uses_worker_processes():
    settings = MatchSettings(GameSettings(15, turn_time=1.0), games=4, openings=tuple(builtin_openings(15)),
                             seed=3, concurrency=2)
    summary = Match("random", "random:name=r2", settings).run()
    assert sorted(r.index for r in summary.results) == [0, 1, 2, 3]
    sequential = Match("random", "random:name=r2",
                       MatchSettings(GameSettings(15, turn_time=1.0), games=4,
                                     openings=tuple(builtin_openings(15)), seed=3)).run()
    assert [r.moves for r in summary.results] == [r.moves for r in sequential.results]


@pytest.mark.parametrize("spec,kind,name", [
    ("random", "random", "random"),
    ("random:7", "random", "random"),
    ("classical", "classical", "classical"),
    ("classical:3", "classical", "classical-L3"),
    ("classical:depth=6", "classical", "classical-d6"),
    ("classical:nodes=2000,name=cn", "classical", "cn"),
    ("pure-mcts:5000", "pure-mcts", "pure-mcts-5000"),
])
def test_spec_grammar(spec, kind, name):
    s = parse_spec(spec)
    assert (s.kind, s.name) == (kind, name)


def test_spec_limit_overrides():
    s = parse_spec("classical:depth=4,time=0.25,nodes=100")
    lim = s.limit_for(Limit(turn_time=1.0, match_time=30))
    assert (lim.turn_time, lim.depth, lim.nodes, lim.match_time) == (0.25, 4, 100, 30)


@pytest.mark.parametrize("spec,msg", [
    ("", "empty"),
    ("alphazero", "unknown player"),
    ("classical:speed=3", "unknown option"),
    ("classical:depth=x", "must be a number"),
    ("classical:depth=0", "out of range"),
    ("brain:", "needs a command"),
    ("brain:/nonexistent/pbrain-x", "not found"),
    ("brain:no-such-brain-on-path-xyz", "not found on PATH"),
    ("missing.onnx", "not found"),
])
def test_bad_specs_are_one_line_errors(spec, msg):
    with pytest.raises(SpecError) as err:
        parse_spec(spec)
    assert msg in str(err.value) and "\n" not in str(err.value)


def test_mcts_specs_make_players_and_refuse_bad_nets(tmp_path):
    assert make_engine_player("pure-mcts:100").name == "pure-mcts-100"
    with pytest.raises(SpecError, match="radius=9 is out of range"):
        make_engine_player("pure-mcts:100,radius=9")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(SpecError, match="not a usable ONNX model"):
        make_engine_player(str(bad))


def test_zero_turn_time_uncaps_players_with_a_search_size_only():
    from gomoku.engine.base.limits import Limit
    from gomoku.engine.match.players import parse_spec
    zero = Limit(turn_time=0)
    assert parse_spec("pure-mcts:500").limit_for(zero).turn_time is None
    assert parse_spec("classical:depth=3").limit_for(zero).turn_time is None
    assert parse_spec("classical").limit_for(zero).turn_time == 0          # static reply at once
    assert parse_spec("random").limit_for(zero).turn_time == 0
    assert parse_spec("pure-mcts:500,time=0").limit_for(zero).turn_time == 0   # asked for by name
    assert parse_spec("pure-mcts:500").limit_for(Limit(turn_time=2.0)).turn_time == 2.0
