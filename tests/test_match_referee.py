"""The one referee (`engine.match.referee`) behind the two-player and the n-seat games, and
the parallel match's workers."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from gomoku.engine.game.rules import Rule
from gomoku.engine.game.seats import Game
from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.match.arena import BLACK, WHITE, GameSettings, Match, MatchSettings, play_game
from gomoku.engine.match.nplayer import NGameSettings, play_ngame
from gomoku.engine.match.referee import ColourWords, SeatWords, referee


class _Moves:
    """Plays the given moves in order."""

    def __init__(self, moves, name="m"):
        self.moves, self.name, self.seen = list(moves), name, []

    def new_game(self, width, height, rule):
        pass

    def play(self, board, limit):
        self.seen.append(board)
        return PlayResult(self.moves.pop(0))

    def close(self):
        pass


def test_two_players_win_by_four_in_a_row_when_four_wins():
    black = _Moves([(0, 0), (1, 0), (2, 0), (3, 0)])
    white = _Moves([(0, 8), (1, 8), (2, 8)])
    res = play_game(black, white, GameSettings(9, win_length=4))
    assert (res.winner, res.reason, res.detail) == (BLACK, "five", "Black wins by 4 in a row")
    assert len(res.moves) == 7
    # the players were handed the core board (the classical engine and the threat probes read it)
    from gomoku.engine.game.board import Board
    assert all(isinstance(b, Board) for b in black.seen + white.seen)


def test_five_in_a_row_is_still_no_win_while_four_wins_at_five():
    black = _Moves([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)])
    white = _Moves([(0, 8), (1, 8), (2, 8), (3, 8)])
    res = play_game(black, white, GameSettings(9))
    assert (res.winner, res.detail, len(res.moves)) == (BLACK, "Black wins by five", 9)


def test_one_referee_two_wordings():
    """The same forfeit, judged once, told in colours for two players and in seats for more."""
    for words, detail in ((ColourWords(["a", "b"], 6, 6), "White wins, black played 9,9 outside the board"),
                          (SeatWords(["a", "b"], 6, 6),
                           "seat 1 (a) played an illegal move: 9,9 is outside the 6x6 board")):
        board = Game(6, 6, 2, 4).board()
        v = referee([_Moves([(9, 9)]), _Moves([])], board, [Limit()] * 2, words)
        assert (v.reason, v.winner, v.loser, v.detail, v.moves) == ("illegal", None, 0, detail, [])


def test_renju_foul_is_judged_after_the_stone_is_placed():
    opening = [(6, 8), (0, 0), (7, 8), (0, 2), (8, 6), (0, 4), (8, 7), (0, 6)]
    res = play_game(_Moves([(8, 8)]), _Moves([]), GameSettings(15, rule=Rule.RENJU), opening)
    assert (res.winner, res.reason) == (WHITE, "foul") and res.moves[-1] == (8, 8)
    assert res.times == [0.0] * len(opening) + [res.times[-1]]


def test_n_seat_game_counts_its_opening_apart():
    s = NGameSettings(width=6, players=3, win_length=4)
    seated = [_Moves([(0, 1), (0, 2), (0, 3)], "a"), _Moves([(1, 1), (1, 2)], "b"), _Moves([(2, 1), (2, 2)], "c")]
    r = play_ngame(seated, s, opening=((0, 0), (1, 0), (2, 0)))
    assert (r.winner, r.reason, r.opening, len(r.times)) == (0, "five", 3, 7)
    assert r.detail == "seat 1 (a) wins by 4 in a row"


class _Sleeper:
    """Thinks ten minutes over the first move of a game (the warm-up's position has stones)."""
    name = "sleeper"

    def new_game(self, width, height, rule):
        pass

    def play(self, board, limit):
        if board.move_count == 0:
            time.sleep(600)
        return PlayResult((0, 0))

    def close(self):
        pass


def sleeper_factory(spec, **_):
    """A GameSettings.factory: module level, so a worker process unpickles it by reference."""
    return _Sleeper()


def test_an_interrupted_parallel_match_ends_its_workers_at_once():
    """Ctrl-C or an error in the caller ends the worker processes (public API: the children
    started since the pool was made) rather than waiting for their games to end."""
    before = set(mp.active_children())
    calls = []

    def start(job):
        calls.append(job.index)
        if len(calls) == 2:
            raise RuntimeError("caller stops")

    settings = MatchSettings(GameSettings(15, factory=sleeper_factory), games=4, seed=1, concurrency=2)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="caller stops"):
        Match("random", "random", settings).run(on_game_start=start)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alive = [p for p in mp.active_children() if p not in before and p.is_alive()]
        if not alive:
            break
        time.sleep(0.2)
    assert not alive and time.monotonic() - t0 < 60
