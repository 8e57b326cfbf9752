"""The search-parameter table (engine.search.params): one typed entry per constant and switch
of the alpha-beta, set per player from a spec or a file, read by the jitted search from the
player's own context."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku.engine.game.board import Board
from gomoku.engine.match.players import SpecError, make_engine_player, parse_spec
from gomoku.engine.search import params as sp
from gomoku.tools.cli import main

MIDGAME = [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6), (9, 9), (6, 9)]


def test_every_default_lies_in_its_range_and_has_a_meaning():
    names = [p.name for p in sp.PARAMS]
    assert len(names) == len(set(names))
    for p in sp.PARAMS:
        assert p.lo <= p.default <= p.hi, p.name
        assert p.step > 0 and p.meaning, p.name
        assert p.convert(p.default) == p.default
    assert sp.SearchParams() == sp.DEFAULT and not sp.DEFAULT.changed() and sp.DEFAULT.label() == ""


def test_values_are_typed_checked_and_named_in_one_line():
    p = sp.SearchParams({"lmr_div": "1.6", "rfp_margin": "200", "LMR-PV": 0})
    assert p["lmr_div"] == 1.6 and isinstance(p["rfp_margin"], int) and p["lmr_pv"] == 0
    assert p.changed() == {"lmr_div": 1.6, "lmr_pv": 0, "rfp_margin": 200}
    assert p.label() == "lmr_div=1.6,lmr_pv=0,rfp_margin=200"
    assert p.replace(lmr_div=2.0).changed() == {"lmr_pv": 0, "rfp_margin": 200}
    assert hash(p) == hash(sp.SearchParams(p.changed())) and p != sp.DEFAULT
    for bad, words in [({"nosuch": 1}, "unknown search parameter 'nosuch' (gomoku params lists them)"),
                       ({"rfp_margin": "1.5"}, "rfp_margin must be a whole number, got '1.5'"),
                       ({"lmr_div": "x"}, "lmr_div must be a number, got 'x'"),
                       ({"lmr_div": 99}, "lmr_div=99 is out of range (0.5..8)"),
                       ({"lmr": 2}, "lmr=2 is out of range (0..1)")]:
        with pytest.raises(ValueError) as exc:
            sp.SearchParams(bad)
        assert str(exc.value) == words and "\n" not in str(exc.value)


def test_a_spec_sets_parameters_and_a_bad_one_is_one_line_of_error(tmp_path):
    spec = parse_spec("classical:nodes=20000,lmr_div=1.6,rfp_margin=200")
    assert spec.name == "classical-n20000-lmr_div=1.6,rfp_margin=200"
    assert spec.search_params.changed() == {"lmr_div": 1.6, "rfp_margin": 200}
    f = tmp_path / "tuned.json"
    f.write_text(json.dumps({"params": {"lmr_div": 1.4, "razor_margin": 300}}))
    # the file's values, then the spec's own over them
    both = parse_spec(f"classical:params={f},lmr_div=1.8")
    assert both.search_params.changed() == {"lmr_div": 1.8, "razor_margin": 300}
    assert both.name == "classical-tuned-lmr_div=1.8"
    for text, words in [("classical:lmr_div=9", "lmr_div=9 is out of range"),
                        ("classical:nosuch=1", "unknown option 'nosuch' for classical"),
                        ("classical:params=" + str(tmp_path / "none.json"), "parameter file not found")]:
        with pytest.raises(SpecError) as exc:
            parse_spec(text)
        assert words in str(exc.value) and "\n" not in str(exc.value)
    f.write_text(json.dumps({"lmr_div": "fast"}))
    with pytest.raises(SpecError, match="lmr_div must be a number"):
        parse_spec(f"classical:params={f}")


def test_two_players_with_different_parameters_search_differently_and_share_nothing():
    """One process, two classical players: each searches with its own parameters, and the
    other's search in between changes nothing of its result."""
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    plain, wide = Searcher(), Searcher(params=sp.SearchParams({"lmr_div": 0.8, "mc_quiet_cap": 8}))
    first = plain.search(b.state, max_depth=6)
    other = wide.search(b.state, max_depth=6)
    again = plain.search(b.state, max_depth=6)
    assert (first.nodes, first.move, first.score) == (again.nodes, again.move, again.score)
    assert other.nodes < first.nodes            # larger reductions, narrower quotas: a smaller tree
    assert wide.search(b.state, max_depth=6).nodes == other.nodes
    # and through the spec, as a match makes the players
    a = make_engine_player("classical:depth=6")
    c = make_engine_player("classical:depth=6,lmr_div=0.8,mc_quiet_cap=8")
    from gomoku.engine.base.limits import Limit
    ra, rc = a.play(b, Limit()), c.play(b, Limit())
    assert ra.info["nodes"] == first.nodes and rc.info["nodes"] == other.nodes


def test_the_context_holds_the_parameters_the_search_reads():
    from gomoku.engine.search import tables
    cx = tables.new_ctx(Board(15).state.cells.shape[0])
    tables.apply_params(cx, sp.SearchParams({"lmr_div": 1.0, "futility_2": 400, "mc_noisy_cap": 4}))
    assert cx.params[tables.P_FUTILITY + 2] == 400
    assert cx.lmr[8, 8] == int(0.5 + np.log(8) ** 2 / 1.0)
    assert cx.mcount[1].max() == 4
    tables.apply_params(cx, sp.DEFAULT, full_window=True)
    assert cx.params[tables.P_LMR] == tables.LMR_ON | tables.FULL_WINDOW
    assert cx.mcount[0, 9] == min(32, round(15 * 3 - 12))


def test_gomoku_params_lists_the_table_and_checks_a_file(tmp_path):
    r = CliRunner().invoke(main, ["params"])
    assert r.exit_code == 0
    for p in sp.PARAMS:
        assert p.name in r.output
    r = CliRunner().invoke(main, ["params", "--json"])
    assert [row["name"] for row in json.loads(r.output)] == [p.name for p in sp.PARAMS]
    f = tmp_path / "p.json"
    f.write_text('{"lmr_div": 1.5}')
    r = CliRunner().invoke(main, ["params", "--check", str(f)])
    assert r.exit_code == 0 and r.output.strip() == f"{f}: lmr_div=1.5"
    f.write_text('{"lmr_div": 0}')
    r = CliRunner().invoke(main, ["params", "--check", str(f)])
    assert r.exit_code == 1 and "lmr_div=0 is out of range" in r.output


def test_saved_parameters_load_back(tmp_path):
    f = tmp_path / "out.json"
    sp.save_params(f, sp.SearchParams({"rfp_depth": 8}), {"iterations": 3})
    assert json.loads(f.read_text()) == {"params": {"rfp_depth": 8}, "iterations": 3}
    assert sp.load_params(f) == {"rfp_depth": 8}


def test_an_aspiration_window_fails_soft_on_the_side_the_score_lies():
    """root_search on a window far above the position's score returns an upper bound at or
    below it, on one far below a lower bound at or above it; the driver then widens it."""
    from gomoku.engine.search import pvs, tables
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    s = Searcher()
    full = s.search(b.state, max_depth=3)
    cx = s.ctx(b.state.cells.shape[0])
    rm = np.zeros(b.state.cells.shape[0], dtype=np.int32)
    n = int(pvs.root_moves(b.state, cx, rm))
    i64 = np.int64
    tables.clear_ctx(cx)
    high = int(pvs.root_search(b.state, cx, i64(3), rm, i64(n), i64(full.score + 1000), i64(full.score + 2000)))
    assert high <= full.score + 1000
    tables.clear_ctx(cx)
    low = int(pvs.root_search(b.state, cx, i64(3), rm, i64(n), i64(full.score - 2000), i64(full.score - 1000)))
    assert low >= full.score - 1000
    # through the driver: a window from iteration 2 on changes the tree, not the outcome here
    asp = Searcher(params=sp.SearchParams({"aspiration": 30, "asp_depth": 2})).search(b.state, max_depth=6)
    plain = Searcher().search(b.state, max_depth=6)
    assert asp.depth == plain.depth == 6 and asp.nodes != plain.nodes
    assert asp.move >= 0 and abs(asp.score - plain.score) < 500


def test_the_history_malus_marks_the_quiet_moves_that_failed():
    """Depth 13: on this position, with the default reductions, no such cut-off comes earlier."""
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    on, off = Searcher(params=sp.SearchParams({"hist_malus": 1})), Searcher()
    on.search(b.state, max_depth=13, threat_probes=False)
    off.search(b.state, max_depth=13, threat_probes=False)
    n = b.state.cells.shape[0]
    assert (on.ctx(n).history < 0).any() and not (off.ctx(n).history < 0).any()


def test_the_improving_terms_prune_and_reduce_only_where_the_eval_fell():
    """With the three `improving` terms at their defaults nothing changes; a narrower quota or
    more reduction where the side's static eval fell since its last move makes a smaller tree
    at the same depth (11 here: at 9 and 10 the narrower quota's re-searches grow it), and the
    line's static evaluations are kept per ply in the context."""
    from gomoku.engine.search import tables
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    base = Searcher().search(b.state, max_depth=11, threat_probes=False)
    same = Searcher(params=sp.SearchParams({"mc_not_improving": 100, "lmr_not_improving": 0})).search(
        b.state, max_depth=11, threat_probes=False)
    assert (same.nodes, same.move, same.score) == (base.nodes, base.move, base.score)
    for values in ({"mc_not_improving": 50}, {"lmr_not_improving": 1}):
        s = Searcher(params=sp.SearchParams(values))
        assert s.search(b.state, max_depth=11, threat_probes=False).nodes < base.nodes, values
        sevs = s.ctx(b.state.cells.shape[0]).sevs
        assert sevs[0] == tables.NO_EVAL and (sevs[2:] != tables.NO_EVAL).any()
    rfp = Searcher(params=sp.SearchParams({"rfp_improving": 1})).search(b.state, max_depth=11, threat_probes=False)
    assert rfp.nodes != base.nodes          # one ply less margin where the eval rose: other cuts


@pytest.mark.parametrize("name, on", [("lmr_alpha_raised", 1), ("iir_depth", 4), ("fh_margin", 30),
                                      ("lmr_cut", 2)])
def test_a_reduction_switch_is_off_at_zero_and_cuts_the_tree_when_on(name: str, on: int):
    """lmr_alpha_raised: the late moves of a PV node whose alpha an earlier move raised are
    searched shallower; iir_depth: a node with no TT move and at least that much depth left
    searches one ply less; fh_margin: a cut node far above beta searches its moves other than
    fours a ply less; lmr_cut: a cut node's late moves other than killers are reduced more.
    Its default is the default search; on, this position's tree at depth 9 is smaller than
    off. (Not at every depth: with the refitted freestyle tables lmr_cut's re-searches grow
    the tree at depth 10 and 11 here.)"""
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    base = Searcher().search(b.state, max_depth=9, threat_probes=False)
    same = Searcher(params=sp.SearchParams({name: sp.BY_NAME[name].default})).search(
        b.state, max_depth=9, threat_probes=False)
    assert (same.nodes, same.move, same.score) == (base.nodes, base.move, base.score)
    off = Searcher(params=sp.SearchParams({name: 0})).search(b.state, max_depth=9, threat_probes=False)
    cut = Searcher(params=sp.SearchParams({name: on})).search(b.state, max_depth=9, threat_probes=False)
    assert cut.nodes < off.nodes


def test_a_reduced_move_that_beats_alpha_by_far_is_searched_deeper_within_its_cap():
    """lmr_deeper re-searches such a move a ply past its unreduced depth: a larger tree at the
    same depth here; with its cap lmr_deeper_max at 0 the search is the default one."""
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    base = Searcher().search(b.state, max_depth=10, threat_probes=False)
    deeper = Searcher(params=sp.SearchParams({"lmr_deeper": 100})).search(b.state, max_depth=10, threat_probes=False)
    capped = Searcher(params=sp.SearchParams({"lmr_deeper": 100, "lmr_deeper_max": 0})).search(
        b.state, max_depth=10, threat_probes=False)
    assert deeper.nodes > base.nodes
    assert (capped.nodes, capped.move, capped.score) == (base.nodes, base.move, base.score)


def test_lmr_alpha_calm_spares_the_threats_the_alpha_term_would_reduce():
    """Off is the default search; on, the moves that make or stop a three or four keep their
    depth where alpha was raised: a different tree at depth 10, never a smaller one here."""
    from gomoku.engine.search.alphabeta import Searcher
    b = Board.from_moves(15, MIDGAME)
    base = Searcher().search(b.state, max_depth=10, threat_probes=False)
    off = Searcher(params=sp.SearchParams({"lmr_alpha_calm": 0})).search(b.state, max_depth=10, threat_probes=False)
    on = Searcher(params=sp.SearchParams({"lmr_alpha_calm": 1})).search(b.state, max_depth=10, threat_probes=False)
    assert (off.nodes, off.move, off.score) == (base.nodes, base.move, base.score)
    assert on.nodes > base.nodes
