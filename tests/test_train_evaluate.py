"""Training's evaluation of three- and four-player runs: the three-player Gobang paper's criterion for beating a
ladder rung, whole cycles of seatings, which games the n-player referee can judge, and a match
shared among worker processes adding up like one played in a single process."""
from __future__ import annotations

from gomoku.engine.match.nplayer import NGameResult, NMatchSummary, seatings
from gomoku.train.evaluate import (NMatchOutcome, beats, evaluation_blocker, nplayer_games, play_nmatch,
                                   points_share)


def _cycle(outcomes: list[str]) -> NMatchSummary:
    """One cycle of three-player seatings; outcomes[i] is 'lone', 'crowd' (a seat of the doubled
    side made the row) or 'draw' for game i."""
    summary = NMatchSummary("net", "pure", 3)
    for i, (seating, how) in enumerate(zip(seatings(3), outcomes)):
        lone = seating.lone_seat
        winner = None if how == "draw" else lone if how == "lone" else (lone + 1) % 3
        summary.results.append(NGameResult(i, ["x"] * 3, seating.sides, winner, "full" if winner is None else "five",
                                           "", [], []))
    return summary


def test_the_net_beats_a_rung_when_its_points_exceed_the_rungs() -> None:
    # 1 A vs 2 B: A alone wins, B wins, draw; 2 A vs 1 B: B alone wins, A wins twice
    out = NMatchOutcome(_cycle(["lone", "crowd", "draw", "lone", "crowd", "crowd"]))
    rec = out.to_json()
    assert rec["totals"] == {"A": 3 + 0 + 1 + 0 + 3 + 3, "B": 0 + 3 + 1 + 3 + 0 + 0}
    assert sum(rec["totals"].values()) == 3 * rec["games"] - rec["draws"]      # a draw gives 1 + 1, a win 3 + 0
    assert (rec["wins"], rec["losses"], rec["draws"]) == (3, 2, 1)
    assert rec["by_seating"] == {"1 A vs 2 B": {"a_wins": 1, "a_losses": 1, "draws": 1},
                                 "2 A vs 1 B": {"a_wins": 2, "a_losses": 1, "draws": 0}}
    assert rec["score"] == round(10 / 17, 4) and beats(out.score)
    # the paper's own reading agrees: A alone earned more than B alone (4 points to 3)
    lone_a, lone_b = rec["by_seating"]["1 A vs 2 B"], rec["by_seating"]["2 A vs 1 B"]
    assert (3 * lone_a["a_wins"] + lone_a["draws"], 3 * lone_b["a_losses"] + lone_b["draws"]) == (4, 3)
    # an even split or a match of draws beats nobody; a stricter threshold can be asked for
    assert not beats(NMatchOutcome(_cycle(["draw"] * 6)).score)
    assert not beats(NMatchOutcome(_cycle(["lone", "crowd", "crowd", "lone", "crowd", "crowd"])).score)
    assert not beats(10 / 17, threshold=0.6) and beats(0.61, threshold=0.6)
    assert points_share(0, 0) == 0.5 and points_share(3, 1) == 0.75


def test_cycles_and_what_the_referee_can_judge() -> None:
    assert [nplayer_games(n, 3) for n in (0, 1, 6, 7, 10, 20)] == [0, 6, 6, 12, 12, 24]
    assert nplayer_games(10, 4) == 16
    assert evaluation_blocker(9, 9, "renju", 5, 2) is None
    assert evaluation_blocker(6, 6, "freestyle", 4, 3) is None and evaluation_blocker(11, 11, "standard", 5, 4) is None
    assert "win length must be 4 or 5" in (evaluation_blocker(8, 8, "freestyle", 6, 3) or "")
    assert "renju is for two players" in (evaluation_blocker(8, 8, "renju", 5, 3) or "")


def test_a_match_shared_among_processes_plays_whole_cycles_with_one_opening_each() -> None:
    seen: list[int] = []
    out = play_nmatch("random:seed=1", "random:seed=2", 6, 6, "freestyle", 4, 3, 7, 11, 2, with_openings=True,
                      on_game=lambda done, total: seen.append(done))
    res = out.summary.results
    assert out.games == 12 and [r.index for r in res] == list(range(12)) and seen[-1] == 12
    assert [r.seating for r in res] == seatings(3) * 2
    assert all(r.opening == 3 for r in res) and out.openings == 2
    firsts = [tuple(r.moves[:3]) for r in res]
    assert len(set(firsts[:6])) == 1 and len(set(firsts[6:])) == 1
    rec = out.to_json()
    assert sum(rec["totals"].values()) == 3 * 12 - rec["draws"]
    assert [c["games"] for c in rec["by_seat"]["A"]] == [6, 6, 6]      # each seat: once alone, twice doubled, per cycle
