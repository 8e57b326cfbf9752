"""PlayResult.info is a typed SearchInfo with one wording for the brain and the terminal."""
from __future__ import annotations

import pytest

from gomoku.engine.base.limits import PlayResult, SearchInfo


def _xy(m: tuple[int, int]) -> str:
    return f"{m[0]},{m[1]}"


def test_a_dict_becomes_the_record_and_reads_as_the_dict_did():
    r = PlayResult((7, 7), {"depth": 7, "score": "win", "nodes": 10, "proof": "vcf", "visits": 40})
    assert isinstance(r.info, SearchInfo)
    assert (r.info.depth, r.info.score, r.info.proof, r.info.extra) == (7, "win", "vcf", {"visits": 40})
    assert r.info["score"] == "win" and r.info.get("visits") == 40 and r.info.get("pv", []) == []
    assert "proof" in r.info and "winrate" not in r.info and "messages" not in r.info
    with pytest.raises(KeyError):
        r.info["time"]
    r.info["messages"] = ["hi"]
    r.info["time"] = 0.5
    assert r.info.extra["messages"] == ["hi"] and r.info.time == 0.5
    assert PlayResult(None).info == SearchInfo()
    assert SearchInfo.of(r.info) is r.info


def test_the_brain_message_names_every_field_and_is_silent_without_a_search():
    info = SearchInfo(searcher="rollout MCTS", depth=7, score=-35, winrate=0.41, nodes=12345, time=0.5,
                      pv=[(7, 7), (8, 8)])
    assert info.message(_xy) == "rollout MCTS depth 7 eval -35 winrate 0.41 nodes 12345 time 0.50 pv 7,7 8,8"
    assert SearchInfo(depth=0, nodes=1).message(_xy) is None
    assert SearchInfo(depth=3, nodes=0).message(_xy) is None
    assert SearchInfo(depth=2, nodes=9, pv=[(i, i) for i in range(12)]).message(_xy).count(",") == 10


def test_the_terminal_summary_says_whose_score_and_counts_playouts_for_mcts():
    assert SearchInfo(depth=9, score=35).summary("its") == ", depth 9, its score +35"
    assert SearchInfo(depth=9, score="win", nodes=12345).summary() == ", depth 9, score win, 12k nodes"
    mcts = SearchInfo(depth=4, score=-12, nodes=800, playouts=800, winrate=0.44)
    assert mcts.summary("your") == ", depth 4, your score -12, 800 playouts, value 0.44"
    assert SearchInfo(nodes=0).summary() == ""
    # node counts in four characters at most, so the engine's line fits 80 columns
    assert [SearchInfo(depth=1, nodes=n).summary() for n in (950, 9_949, 9_950, 799_123, 999_499, 999_500,
                                                             12_345_678)] == \
        [f", depth 1, {c} nodes" for c in ("950", "9.9k", "10k", "799k", "999k", "1.0M", "12.3M")]
