"""Search state belongs to the player that searches: two players in two threads of one process
play as each would alone, and each can search with evaluation tables of its own."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from gomoku.engine.player.agent import EnginePlayer, think
from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.players import SpecError, make_engine_player, parse_spec
from gomoku.engine.search import evaluation

#: middle-game positions of several rules and sizes (sharp and quiet ones)
POSITIONS = [
    (Rule.FREESTYLE, 15, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)]),
    (Rule.STANDARD, 15, [(7, 7), (8, 7), (7, 8), (8, 8), (8, 6), (6, 8), (9, 7), (6, 5)]),
    (Rule.RENJU, 15, [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9), (9, 9)]),
    (Rule.FREESTYLE, 20, [(10, 10), (11, 11), (11, 10), (9, 10), (10, 11), (10, 9)]),
]


def _boards() -> list[Board]:
    return [Board.from_moves(w, moves, rule=rule) for rule, w, moves in POSITIONS]


def _games(player: EnginePlayer, nodes: int, rounds: int = 2) -> list[tuple]:
    """The player's choices over the positions, twice over (its tables are reused between
    searches, as in a game)."""
    out = []
    for _ in range(rounds):
        for b in _boards():
            res = player.play(b, Limit(nodes=nodes))
            out.append((res.move, res.info["nodes"], res.info["score"], res.info["depth"]))
    return out


def test_two_players_in_two_threads_choose_as_each_alone():
    alone_a = _games(EnginePlayer(name="a"), 30_000)
    alone_b = _games(EnginePlayer(name="b"), 45_000)
    got: dict[str, list] = {}
    start = threading.Barrier(2)

    def run(key: str, nodes: int) -> None:
        p = EnginePlayer(name=key)
        start.wait()
        got[key] = _games(p, nodes)
        p.close()

    threads = [threading.Thread(target=run, args=("a", 30_000)), threading.Thread(target=run, args=("b", 45_000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert got["a"] == alone_a
    assert got["b"] == alone_b


def test_two_searches_without_a_player_in_two_threads_are_independent():
    """think() without a searcher (hints, warm-up, bench) gets fresh tables: no shared stop flag
    or node counter between two at once."""
    boards = _boards()
    alone = [think(b, Limit(nodes=40_000)).info["nodes"] for b in boards]
    got: dict[int, list[int]] = {}
    start = threading.Barrier(2)

    def run(k: int) -> None:
        start.wait()
        got[k] = [think(b, Limit(nodes=40_000)).info["nodes"] for b in boards]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert got == {0: alone, 1: alone}


def _shipped(rule: Rule) -> evaluation.EvalTables:
    return evaluation.tables(int(rule))


def test_tables_file_round_trips(tmp_path):
    path = tmp_path / "t.json"
    by_rule = {int(Rule.FREESTYLE): _shipped(Rule.FREESTYLE), int(Rule.RENJU): _shipped(Rule.RENJU)}
    evaluation.save_tables(path, by_rule)
    back = evaluation.load_tables(path)
    assert set(back) == set(by_rule)
    for r, t in by_rule.items():
        assert all((a == b).all() for a, b in zip(back[r], t))
    assert not list(tmp_path.glob("*.tmp"))      # written through a temp file, renamed


@pytest.mark.parametrize("text,needle", [
    ("{", "not JSON"),
    ('{"format": "x"}', "not a tables file"),
    ('{"format": "gomoku-eval-tables", "version": 9, "rules": {}}', "version 9"),
    ('{"format": "gomoku-eval-tables", "version": 1, "rules": {"go": {}}}', "unknown rule"),
    ('{"format": "gomoku-eval-tables", "version": 1, "rules": {"freestyle": {"own": [1]}}}', "needs the tables"),
])
def test_a_bad_tables_file_is_refused_in_one_line(tmp_path, text, needle):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        parse_spec(f"classical:tables={path}")
    assert needle in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(SpecError, match="tables file not found"):
        parse_spec(f"classical:tables={tmp_path / 'missing.json'}")


def test_a_player_searches_with_the_tables_its_spec_names(tmp_path):
    b = Board.from_moves(15, POSITIONS[0][2], rule=Rule.FREESTYLE)
    same, other = tmp_path / "same.json", tmp_path / "other.json"
    evaluation.save_tables(same, {int(Rule.FREESTYLE): _shipped(Rule.FREESTYLE)})
    flat = _shipped(Rule.FREESTYLE)._replace(pattern_own=np.zeros_like(_shipped(Rule.FREESTYLE).pattern_own),
                                             pair_own=np.zeros_like(_shipped(Rule.FREESTYLE).pair_own))
    evaluation.save_tables(other, {int(Rule.FREESTYLE): flat})
    lim = Limit(nodes=5000)

    def play(spec: str) -> tuple:
        p = make_engine_player(spec)
        try:
            r = p.play(b, lim)
            return r.move, r.info["nodes"], r.info["score"]
        finally:
            p.close()

    shipped = play("classical")
    assert play(f"classical:tables={same}") == shipped
    assert play(f"classical:tables={other}") != shipped
    # a file without this rule's tables leaves the shipped ones in place for it
    assert parse_spec(f"classical:tables={other}").name == "classical-other"
    s = Board.from_moves(15, POSITIONS[1][2], rule=Rule.STANDARD)
    p, q = make_engine_player(f"classical:tables={other}"), make_engine_player("classical")
    assert p.play(s, lim).info["nodes"] == q.play(s, lim).info["nodes"]


def test_a_tables_ab_is_one_match(tmp_path):
    """Two evaluation tables against each other in one `gomoku match` (one process per game,
    several players per process)."""
    from click.testing import CliRunner

    from gomoku.tools.cli import main
    path, js = tmp_path / "flat.json", tmp_path / "m.json"
    flat = _shipped(Rule.FREESTYLE)._replace(pair_own=np.zeros_like(_shipped(Rule.FREESTYLE).pair_own))
    evaluation.save_tables(path, {int(Rule.FREESTYLE): flat})
    r = CliRunner().invoke(main, ["match", f"classical:tables={path}", "classical", "-n", "2", "--nodes", "1500",
                                  "--draw-after", "30", "--seed", "1", "--json", str(js), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "Score of classical-flat vs classical: " in r.output
    assert len(json.loads(js.read_text())["results"]) == 2
