"""Alpha-beta search through its real entry points (agent.think, EnginePlayer)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from gomoku.engine.search import ordering, pvs, tables, threats
from gomoku.engine.player.agent import EnginePlayer, level_limit, quick_move, think
from gomoku.engine.game.board import BLACK, WHITE, Board
from gomoku.engine.base.limits import Limit
from gomoku.engine.game.rules import Rule

from conftest import LOAD_SLACK_S
from positions import LONG_VCF, assert_vcf_line, position


def opp_has_vcf(b: Board) -> bool:
    """After our move: does the side to move (the opponent) win by VCF?"""
    return threats.solve(b.state, "vcf", depth=30).win


def test_takes_a_five():
    b = position([(4, 7), (5, 7), (6, 7), (7, 7)], [(3, 7), (10, 10), (11, 11)])
    r = think(b, Limit(depth=3))
    assert r.move == (8, 7) and r.info["score"] == "win"


def test_blocks_a_four():
    b = position([(4, 7), (5, 7), (6, 7), (7, 7)], [(3, 7), (10, 10), (11, 11)], to_move=WHITE)
    assert think(b, Limit(depth=4)).move == (8, 7)


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU])
def test_answers_an_open_three(rule):
    # black open three on row 7; white has nothing and must stop it
    b = position([(5, 7), (6, 7), (7, 7), (0, 0)], [(10, 3), (12, 3), (3, 12)], rule=rule, to_move=WHITE)
    r = think(b, Limit(nodes=20000))
    assert r.move in [(4, 7), (8, 7), (3, 7), (9, 7)]
    b.play(*r.move)
    assert not opp_has_vcf(b)


# positions where the opponent threatens a VCF and the static engine's move does not stop it
VCF_THREATS = [
    [(7, 7), (5, 5), (7, 5), (7, 4), (5, 7), (4, 7), (8, 4), (6, 6), (6, 5), (6, 8), (10, 4), (5, 4), (8, 6)],
    [(7, 7), (5, 5), (7, 5), (9, 8), (7, 8), (7, 6), (8, 7), (9, 6), (5, 7), (6, 7), (6, 6), (8, 4), (9, 5),
     (8, 5), (4, 9), (9, 4), (3, 11), (6, 11), (10, 3), (12, 4), (5, 8), (4, 8)],
    [(7, 7), (8, 6), (6, 6), (7, 8), (8, 8), (8, 5), (5, 5), (4, 4), (5, 2), (9, 9), (5, 0), (5, 3), (6, 4),
     (6, 7), (5, 10), (3, 5), (4, 5), (7, 12), (6, 2), (5, 6), (7, 13), (8, 2), (1, 6), (8, 4), (8, 3),
     (9, 10), (8, 9)],
]


@pytest.mark.parametrize("moves", VCF_THREATS)
def test_defends_against_a_vcf_threat(moves):
    b = Board.from_moves(15, moves)
    naive = b.copy()
    naive.play(*quick_move(b))
    assert opp_has_vcf(naive)                # the one-ply choice loses to a VCF
    r = think(b, Limit(nodes=30000))
    b.play(*r.move)
    assert not opp_has_vcf(b), r


def test_finds_the_long_vcf():
    b = Board.from_moves(15, LONG_VCF)
    r = think(b, Limit(nodes=200000))
    assert r.info["score"] == "win" and r.info.get("proof") == "vcf"
    # the shortest win here takes 11 fours; the solver is depth-first, not shortest-first
    # (with four-threes tried before plain fours it finds one of 12)
    assert assert_vcf_line(b, r.info["pv"]) >= 11


def test_instant_move_is_the_static_move():
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7)])
    r = think(b, Limit(turn_time=0))
    assert r.info["depth"] == 0 and r.info["nodes"] == 1     # no search ran: no time spent on one
    assert r.move == quick_move(b)


def test_node_and_depth_limits_are_deterministic():
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)])
    a = think(b, Limit(nodes=8000))
    c = think(b.copy(), Limit(nodes=8000))
    assert a.move == c.move and a.info["nodes"] == c.info["nodes"] and a.info["pv"] == c.info["pv"]
    assert a.info["nodes"] <= 8001
    d = think(b, Limit(depth=3))
    assert d.info["depth"] == 3
    assert think(b, Limit(depth=3)).info["nodes"] == d.info["nodes"]


@pytest.mark.slow
def test_time_limit_and_stop_event():
    """The search keeps its time and stops when told, within the slack a loaded machine needs."""
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)])
    t0 = time.perf_counter()
    r = think(b, Limit(turn_time=0.4))
    assert time.perf_counter() - t0 < 0.4 + LOAD_SLACK_S and r.move is not None and r.info["depth"] >= 2
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    t0 = time.perf_counter()
    r = think(b, Limit(turn_time=60), stop)
    assert time.perf_counter() - t0 < 0.2 + LOAD_SLACK_S
    assert b.cell(*r.move) == 0
    # stop already set: still a legal move
    r = think(b, Limit(turn_time=60), stop)
    assert b.cell(*r.move) == 0


def test_think_leaves_the_board_alone():
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7)])
    h, n = b.hash, b.move_count
    think(b, Limit(nodes=3000))
    assert b.hash == h and b.move_count == n


def test_renju_black_never_fouls():
    # black has a 3-3 point at (7,7); the engine playing both sides must never use a foul
    b = Board.from_moves(15, [(5, 7), (0, 0), (6, 7), (2, 0), (7, 5), (4, 0), (7, 6), (14, 14)],
                         rule=Rule.RENJU)
    assert b.is_forbidden(7, 7)
    for _ in range(16):
        if b.game_over:
            break
        mv = think(b, Limit(nodes=3000)).move
        if b.to_move == BLACK:
            assert not b.is_forbidden(*mv)
        b.play(*mv)


def test_levels():
    assert level_limit(1, Limit(turn_time=1.0)).turn_time == 0
    assert level_limit(3, Limit(turn_time=1.0)).nodes == 20000
    assert level_limit(None, Limit(turn_time=1.0)) == Limit(turn_time=1.0)
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7)])
    p = EnginePlayer(level=1)
    assert p.play(b, Limit(turn_time=1.0)).move == quick_move(b)
    r = EnginePlayer(level=2).play(b, Limit(turn_time=5.0))
    assert r.info["nodes"] <= 2001


def _game(black, white, opening, limit_b, limit_w) -> int:
    b = Board.from_moves(15, opening)
    while not b.game_over:
        p, lim = (black, limit_b) if b.to_move == BLACK else (white, limit_w)
        b.play(*p(b, lim))
    return b.winner


def test_search_beats_the_static_engine():
    search = lambda b, lim: think(b, lim).move          # noqa: E731
    static = lambda b, lim: quick_move(b)               # noqa: E731
    lim = Limit(nodes=20000)
    opening = [(7, 7), (8, 6), (6, 8)]
    assert _game(search, static, opening, lim, lim) == BLACK
    assert _game(static, search, opening, lim, lim) == WHITE


def test_lost_position_still_gives_a_legal_move():
    # white has an open four: black cannot stop it but must still move (and block one end)
    b = position([(0, 0), (14, 0), (0, 14), (14, 14)], [(5, 7), (6, 7), (7, 7), (8, 7)])
    r = think(b, Limit(nodes=2000))
    assert r.move in [(4, 7), (9, 7)]
    assert r.info["score"] == "loss"


# From a real game (c-gomoku-cli vs PentaZen): both sides have a five-point; the search used
# to block (11,4) instead of winning at (7,10).
FIVE_AGAINST_FIVE = [(10, 6), (7, 8), (7, 6), (6, 5), (9, 7), (8, 6), (10, 7), (8, 7), (8, 5), (9, 5), (9, 6),
                     (11, 8), (10, 4), (10, 3), (10, 8), (10, 5), (9, 9), (11, 5), (6, 3), (7, 4), (8, 9),
                     (12, 5), (13, 5), (9, 2), (12, 6), (11, 7), (9, 8), (9, 10), (11, 6), (13, 6)]


def test_own_five_beats_blocking_the_opponents_five():
    from gomoku.engine.player.agent import think
    from gomoku.engine.game.board import Board
    from gomoku.engine.base.limits import Limit
    b = Board.from_moves(15, FIVE_AGAINST_FIVE)
    assert b.would_win(7, 10) and b.would_win(11, 4, color=3 - b.to_move)
    r = think(b, Limit(turn_time=0.5))
    assert r.move == (7, 10)
    assert r.info["score"] == "win"


# a standard game against PentaZen (1 s/move), white to move, searched without root probes:
# depth 6 prefers (9, 5) (~4.2k nodes); inside iteration 7 other moves beat it in turn, (7, 10)
# from ~6.8k nodes on, and the finished depth 7 (~9.1k nodes) plays (7, 10) too. The node
# counts belong to the shipped search and tables: a change of either may move them (the
# test then says so) and the two node limits below are chosen between them.
PARTIAL_ITER = [(6, 9), (6, 8), (7, 8), (8, 7), (5, 9), (7, 9), (8, 10), (8, 5), (5, 10), (8, 6),
                (8, 8), (8, 3), (8, 4)]


def test_interrupted_iteration_keeps_a_move_that_beat_the_first():
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, PARTIAL_ITER, rule=Rule.STANDARD)
    # the iteration logic alone (no root probes, which can narrow the root moves)
    done = alphabeta.search(b.state, max_depth=5, threat_probes=False)
    deeper = alphabeta.search(b.state, max_depth=6, threat_probes=False)
    assert done.depth == 5 and b.coords(done.move) == (9, 5)
    assert deeper.depth == 6 and b.coords(deeper.move) == (7, 7)
    # stopped inside depth 6 after (7, 7) beat the completed (9, 5) (at 3,000-3,100 nodes;
    # other moves did from 2,200 on): play the better move
    cut = alphabeta.search(b.state, node_limit=3_200, threat_probes=False)
    assert cut.depth == 5 and b.coords(cut.move) == (7, 7)
    # stopped before anything beat the first move: the last completed iteration's move
    early = alphabeta.search(b.state, node_limit=2_100, threat_probes=False)
    assert early.depth == 5 and b.coords(early.move) == (9, 5)


# freestyle game 8 against PentaZen, white to move: depths 5-8 called (8, 5) a proven win
# because black's one defence (9, 5) ranked below the width of 16 and was never searched
FALSE_WIN = [(5, 6), (10, 5), (8, 8), (7, 8), (7, 7), (6, 6), (8, 7), (6, 7), (6, 5), (8, 6), (7, 6),
             (5, 4), (9, 7), (11, 7), (7, 4), (8, 3), (4, 7), (3, 8)]


def test_width_pruning_does_not_invent_a_proven_win():
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, FALSE_WIN, rule=Rule.FREESTYLE)
    res = alphabeta.search(b.state, max_depth=6)
    assert abs(res.score) < alphabeta.WIN_MIN
    b.play(8, 5)
    reply = alphabeta.search(b.state, max_depth=6)
    assert b.coords(reply.move) == (9, 5) and abs(reply.score) < alphabeta.WIN_MIN


# freestyle, from our games against PentaZen at 1 s/move: white to move wins by (8, 6), a
# threat sequence of 23 plies that PentaZen announced (an exact df-pn, reach 0, proves it in
# 749 k nodes)
LONG_ATTACK = [(7, 6), (9, 6), (8, 5), (7, 5), (7, 9), (6, 7), (8, 7), (9, 8), (8, 8), (8, 9),
               (9, 7), (10, 6), (7, 10), (7, 8), (6, 10), (5, 11), (9, 10), (8, 10), (8, 11),
               (11, 6)]


@pytest.mark.xfail(strict=True, reason="known miss: with the shipped freestyle tables the search blocks at "
                   "(12, 6) and sees no win through depth 19 (30 M nodes); the root's df-pn probe does not "
                   "reach it either. The tables before them found it in 100-150 k nodes")
def test_the_search_finds_a_long_attack_under_a_node_limit():
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, LONG_ATTACK)
    found = alphabeta.search(b.state, node_limit=300_000)
    assert b.coords(found.move) == (8, 6) and found.score > alphabeta.WIN_MIN


# standard game 1 against PentaZen (1 s/move), black to move: (9, 9) was played and lost to
# a three then a double three (white (6, 8), (8, 6)); a depth-4 VCT shows it at once
VCT_BLUNDER = [(10, 6), (7, 6), (9, 7), (8, 8), (8, 7), (7, 7), (7, 8), (6, 6), (5, 5), (6, 9)]


def test_iterative_vct_probe_finds_the_short_attack():
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, VCT_BLUNDER + [(9, 9)], rule=Rule.STANDARD)
    s = alphabeta.Searcher()
    cx = s.ctx(b.state.cells.shape[0], 1 << 20)
    win, line = alphabeta._probe(b.state, cx, s.dfpn_table(), "vct", 1, 10, 20_000, 0)
    assert win and b.coords(line[0]) == (6, 8)
    for mv in [b.coords(i) for i in line]:   # the line is legal and ends in a five or a
        b.play(*mv)                           # four the defender cannot stop
    assert b.winner == WHITE or (b.to_move == WHITE and b.state.counts[1, 10] > 0)


def test_search_uses_the_rules_evaluation_tables():
    from gomoku.engine.search import evaluation, alphabeta
    for rule, own in [(Rule.STANDARD, evaluation.STANDARD_OWN_WEIGHTS),
                      (Rule.FREESTYLE, evaluation.FREESTYLE_OWN_WEIGHTS),
                      (Rule.RENJU, evaluation.RULE_TABLES[Rule.RENJU].own), (Rule.CARO, evaluation.OWN_WEIGHTS),
                      (Rule.STANDARD, evaluation.STANDARD_OWN_WEIGHTS)]:
        b = Board.from_moves(15, [(7, 7), (8, 8), (7, 8)], rule=rule)
        s = alphabeta.Searcher()
        s.search(b.state, max_depth=2, tt_bytes=1 << 20)
        assert (s.ctx(b.state.cells.shape[0], 1 << 20).wown[:11] == own).all()


def test_search_uses_the_rules_pattern_and_pair_tables():
    from gomoku.engine.search import evaluation, alphabeta
    from gomoku.engine.game.core import NUM_PAIRS, PAIR_COUNTS, PATTERN_COUNTS
    for rule, pown, popp in [
            (Rule.FREESTYLE, evaluation.FREESTYLE_PATTERN_OWN, evaluation.FREESTYLE_PAIR_OPP),
            (Rule.RENJU, evaluation.RULE_TABLES[Rule.RENJU].pattern_own, evaluation.RULE_TABLES[Rule.RENJU].pair_opp),
            (Rule.CARO, np.zeros(11), np.zeros(NUM_PAIRS)),
            (Rule.STANDARD, evaluation.STANDARD_PATTERN_OWN, evaluation.STANDARD_PAIR_OPP)]:
        b = Board.from_moves(15, [(7, 7), (8, 8), (7, 8)], rule=rule)
        s = alphabeta.Searcher()
        s.search(b.state, max_depth=2, tt_bytes=1 << 20)
        cx = s.ctx(b.state.cells.shape[0], 1 << 20)
        assert (cx.wown[PATTERN_COUNTS:PAIR_COUNTS] == pown).all()
        assert (cx.wopp[PAIR_COUNTS:] == popp).all()


def test_the_evaluation_weighs_classes_and_line_patterns():
    """evaluate() is the tables' weighted count of the empty cells' classes and line
    patterns, the side to move's weighed by OWN, the other side's subtracted by OPP."""
    from gomoku.engine.search import evaluation
    from gomoku.engine.game.core import NUM_PAIRS, PAIR_COUNTS, PATTERN_COUNTS
    # black to move: an open two on row 7 for black, white's two diagonal stones
    b = Board.from_moves(15, [(7, 7), (8, 8), (8, 7), (9, 9)])
    tab = evaluation.tables(int(b.rule))
    cx = _fresh_ctx(b)
    st = b.state

    def expected(me: int) -> int:
        op = 1 - me
        cls = sum(int(tab.own[k]) * int(st.counts[me, k]) - int(tab.opp[k]) * int(st.counts[op, k])
                  for k in range(1, 10))
        pat = sum(int(tab.pattern_own[p]) * int(st.counts[me, PATTERN_COUNTS + p])
                  - int(tab.pattern_opp[p]) * int(st.counts[op, PATTERN_COUNTS + p]) for p in range(2, 10))
        assert pat != 0                        # freestyle weighs the patterns
        pair = sum(int(tab.pair_own[q]) * int(st.counts[me, PAIR_COUNTS + q])
                   - int(tab.pair_opp[q]) * int(st.counts[op, PAIR_COUNTS + q]) for q in range(1, NUM_PAIRS))
        assert pair != 0                       # ... and the pattern pairs
        return cls + pat + pair

    assert pvs.evaluate(st, cx) == expected(0)
    b.play(3, 3)                               # white to move: the roles swap
    assert pvs.evaluate(st, cx) == expected(1)


def test_tt_entry_packing_round_trips():
    for move, score, depth, flag in [(-1, 0, 0, 0), (0, -32000, 127, 2), (890, 32000, 1, 1),
                                     (4094, -29990, 64, 2), (123, 29987, 5, 0)]:
        word = tables._tt_pack(move, score, depth, flag)
        assert tuple(int(v) for v in tables._tt_unpack(word)) == (move, score, depth, flag)


def test_picking_moves_one_at_a_time_gives_the_stable_sort():
    rng = np.random.default_rng(4)
    for n in (0, 1, 2, 7, 60):
        vals = rng.integers(-3, 4, size=n).astype(np.int32)       # many ties
        moves = np.arange(n, dtype=np.int32)
        mv, vl = moves.copy(), vals.copy()
        for t in range(n):
            ordering.pick_move(mv, vl, t, n)
        order = sorted(range(n), key=lambda i: -vals[i])         # Python's sort is stable
        assert mv.tolist() == order and vl.tolist() == [vals[i] for i in order]
        mv2, vl2 = moves.copy(), vals.copy()
        ordering.sort_moves(mv2, vl2, n)
        assert mv2.tolist() == order


def opp_has_vct(b: Board, nodes: int = 1_000_000) -> bool:
    """After our move: does the side to move (the opponent) win by continuous threats?"""
    from gomoku.engine.search import dfpn
    return dfpn.solve_vct(b.state, node_limit=nodes).win


def test_never_plays_into_a_vct_it_can_see():
    # the same standard game, black to move: at 300k nodes the search's own choice was (5, 3),
    # which white wins by threes and fours; the root check (df-pn after the chosen move)
    # drops it for a move white has no VCT against
    b = Board.from_moves(15, VCT_BLUNDER, rule=Rule.STANDARD)
    r = think(b, Limit(nodes=300_000))
    b.play(*r.move)
    assert not opp_has_vct(b), r


def test_checked_choice_skips_a_refuted_move():
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, VCT_BLUNDER, rule=Rule.STANDARD)
    lose, hold = b.index(5, 3), b.index(9, 6)
    s = alphabeta.Searcher()
    cx, dtab = s.ctx(b.state.cells.shape[0], 1 << 20), s.dfpn_table()
    best = alphabeta.SearchResult(lose, 464, 9, 0, 0.0, [lose])
    ranked = np.array([lose, hold], dtype=np.int32)
    checked, refuted = set(), set()
    got = alphabeta._checked_choice(b.state, cx, dtab, best, ranked, checked, refuted, 0, 200_000)
    assert got.move == hold and refuted == {lose} and checked == {lose, hold}
    # a move already known to be safe is taken without another look
    again = alphabeta._checked_choice(b.state, cx, dtab, alphabeta.SearchResult(hold, 0, 9, 0, 0.0, [hold]),
                                      ranked, checked, refuted, 0, 200_000)
    assert again.move == hold and b.move_count == len(VCT_BLUNDER)


def test_checked_choice_prefers_a_move_known_safe_when_out_of_time():
    from gomoku.engine.search import alphabeta, threats as th
    b = Board.from_moves(15, VCT_BLUNDER, rule=Rule.STANDARD)
    lose, hold, other = b.index(5, 3), b.index(9, 6), b.index(1, 1)
    s = alphabeta.Searcher()
    cx, dtab = s.ctx(b.state.cells.shape[0], 1 << 20), s.dfpn_table()
    cx.ctrl[th.C_STOP] = 1                  # the clock has run out: nothing more is looked at
    best = alphabeta.SearchResult(lose, 464, 9, 0, 0.0, [lose])
    ranked = np.array([lose, other, hold], dtype=np.int32)
    got = alphabeta._checked_choice(b.state, cx, dtab, best, ranked, {hold}, set(), 0, 200_000)
    assert got.move == hold
    # nothing known safe: the search's own move stays
    got = alphabeta._checked_choice(b.state, cx, dtab, best, ranked, set(), set(), 0, 200_000)
    assert got.move == lose
    cx.ctrl[th.C_STOP] = 0


def _fresh_ctx(b: Board):
    """The search tables pvs() uses for `b`, cleared, with the rule's evaluation weights (as
    search() prepares them)."""
    from gomoku.engine.search import evaluation
    cx = tables.new_ctx(b.state.cells.shape[0], tables.DEFAULT_TT_BYTES)
    tables.set_weights(cx, evaluation.tables(int(b.rule)))
    return cx


def _run_pvs(b: Board, cx, depth: int, ply: int, alpha: int, beta: int) -> tuple[int, int]:
    """Score and node count of one pvs() call on `b` with the tables `cx`."""
    i64 = np.int64
    v = pvs.pvs(b.state, cx, i64(depth), i64(ply), i64(alpha), i64(beta))
    return int(v), int(cx.ctrl[threats.C_NODES])


def _pvs(b: Board, depth: int, ply: int, alpha: int, beta: int, stored=None) -> tuple[int, int]:
    """Score and node count of one pvs() call on `b` with fresh tables, after storing
    `stored` = (score, depth, flag) as the position's TT entry (a bound, no move)."""
    from gomoku.engine.search import alphabeta
    st = b.state
    cx = _fresh_ctx(b)
    if stored is not None:
        key = st.hashv[0] ^ tables._SIDE[b.to_move - 1]
        slot = int(key & np.uint64(cx.tt.shape[0] - 1))
        score, tdepth, flag = stored
        if score > alphabeta.WIN_MIN:
            score += ply          # a win is stored counted from the node, as pvs stores it
        cx.tt[slot, 0] = key
        cx.tt[slot, 1] = tables._tt_pack(np.int64(-1), np.int64(score), np.int64(tdepth), np.int64(flag))
    return _run_pvs(b, cx, depth, ply, alpha, beta)


def test_open_three_to_move_wins_without_a_search():
    from gomoku.engine.search.tables import INF, MAXPLY, WIN, WIN_MIN
    # black to move with an open three, white with nothing: an open four next, so a win in three
    b = position([(5, 7), (6, 7), (7, 7)], [])
    assert _pvs(b, 6, 1, -INF, INF) == (WIN - 1 - 3, 1)
    # white has a four to complete first: black must block it, so the node is searched
    b = position([(5, 7), (6, 7), (7, 7), (9, 2)], [(10, 2), (11, 2), (12, 2), (13, 2)])
    score, nodes = _pvs(b, 6, 1, -INF, INF)
    assert nodes > 1
    # nor is it a win at the ply limit, where the node is scored as a leaf
    assert _pvs(b, 6, MAXPLY - 2, -INF, INF)[0] < WIN_MIN
    # renju: black's open-four cell may be a foul, so the search has to look
    b = position([(5, 7), (6, 7), (7, 7)], [], rule=Rule.RENJU)
    assert _pvs(b, 6, 1, -INF, INF)[1] > 1


def _leaf_child(b: Board, depth: int, ply: int, cx=None) -> tuple[int, int]:
    """What the parent's leaf shortcut says about `b` as a child at `ply`, and its nodes."""
    cx = _fresh_ctx(b) if cx is None else cx
    v = pvs._leaf_child(b.state, cx, np.int64(depth), np.int64(ply))
    return int(v), int(cx.ctrl[threats.C_NODES])


@pytest.mark.parametrize("rule", list(Rule))
def test_the_parents_leaf_shortcut_scores_as_pvs_does(rule):
    """pvs works a child with no depth left out in the parent (no call, no TT probe): it must
    give what the child's own pvs call gives, with one node counted, on every kind of leaf.
    Forty random positions a rule (each at two plies) are enough to meet every kind."""
    from gomoku.engine.search.tables import INF, MAXPLY
    from gomoku.engine.search.pvs import NOT_LEAF
    rng = np.random.default_rng(int(rule))
    seen = 0
    for _ in range(40):
        b = Board(15, rule=rule)
        for _ in range(int(rng.integers(3, 30))):
            free = [c for c in b.legal_moves() if abs(c[0] - 7) <= 4 and abs(c[1] - 7) <= 4]
            if b.game_over or not free:
                break
            b.play(*free[int(rng.integers(len(free)))])
        if b.game_over:
            continue
        for ply in (1, 5, MAXPLY - 2):
            short, nodes = _leaf_child(b, 0, ply)
            full = _pvs(b, 0, ply, -INF, INF)
            if ply >= MAXPLY - 2:
                assert short == NOT_LEAF            # pvs's own ply limit
            elif short == NOT_LEAF:
                assert b.state.counts[2 - b.to_move, 10] > 0     # a five to block: forced
            else:
                seen += 1
                assert (short, nodes) == full
    assert seen > 50
    # a child with depth left is searched, not shortcut
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)], rule=rule)
    assert _leaf_child(b, 1, 1)[0] == NOT_LEAF


def test_leaf_shortcut_counts_the_node_and_stops_with_the_search():
    from gomoku.engine.search.pvs import NOT_LEAF, WIN
    four = [(3, 7), (4, 7), (5, 7), (6, 7)]
    # black to move has a five to make: the shortcut scores the win at once
    assert _leaf_child(position(four, [], to_move=BLACK), 0, 3) == (WIN - 3, 1)
    # white to move must block it: a forced node, left to pvs
    assert _leaf_child(position(four, [], to_move=WHITE), 0, 3)[0] == NOT_LEAF
    # once the search is stopped, no node is counted and 0 comes back
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)])
    cx = _fresh_ctx(b)
    cx.ctrl[threats.C_STOP] = 1
    assert _leaf_child(b, 0, 2, cx) == (0, 0)


def test_prefetch_hint_changes_nothing():
    """The TT prefetch is a hint to the cache: results are those of the same loop without it."""
    from numba import njit
    from gomoku.engine.search.prefetch import prefetch_row

    @njit
    def summed(t, hint):
        s = np.uint64(0)
        mask = np.uint64(t.shape[0] - 1)
        for i in range(t.shape[0]):
            if hint:
                prefetch_row(t, (np.uint64(i) * np.uint64(2654435761)) & mask)
            s += t[i, 1]
        return s

    t = np.arange(2048, dtype=np.uint64).reshape(1024, 2)
    assert summed(t, True) == summed(t, False) == np.uint64(t[:, 1].sum())


def test_a_proven_tt_score_cuts_at_any_depth():
    from gomoku.engine.search.tables import LOWER, WIN
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)])
    # a win stored by a depth-1 search still answers a depth-8 question
    assert _pvs(b, 8, 2, 0, 1, stored=(WIN - 20, 1, LOWER)) == (WIN - 20, 1)
    # a heuristic score from depth 1 does not
    assert _pvs(b, 8, 2, 0, 1, stored=(500, 1, LOWER))[1] > 1


def test_a_tt_bound_refines_the_static_evaluation():
    from gomoku.engine.search.tables import LOWER, UPPER
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)])
    # the static evaluation (white to move, about -510) is too close to the window to prune:
    # searched
    assert _pvs(b, 2, 2, -540, -539)[1] > 1
    # a lower bound of 5000 from a shallower search lifts it past beta: reverse futility cuts
    assert _pvs(b, 2, 2, -540, -539, stored=(5000, 0, LOWER)) == (5000, 1)
    # an upper bound above the static evaluation says nothing new
    assert _pvs(b, 2, 2, -540, -539, stored=(5000, 0, UPPER))[1] > 1


# freestyle, black to move, from our games against PentaZen: a VCT of 19 plies whose threes
# wander more than three rows from the last one. df-pn with reach 5 proves it in ~5 k nodes;
# reach 3 has not in 300 k
WANDERING_VCT = [(9, 9), (9, 7), (7, 7), (6, 9), (7, 5), (8, 8), (6, 8), (7, 9), (6, 10), (8, 7),
                 (8, 6), (5, 9), (4, 9), (9, 5), (9, 6), (10, 6), (11, 5), (10, 7), (11, 7), (10, 8),
                 (10, 9), (7, 10), (7, 6), (10, 4), (10, 5), (7, 8), (11, 8), (11, 6), (8, 11),
                 (9, 10), (8, 9), (12, 5), (13, 4), (5, 6), (5, 10), (7, 4), (3, 8), (6, 11), (4, 8),
                 (6, 7), (5, 7), (4, 5), (3, 4), (6, 6)]


def test_root_probe_reaches_a_wandering_vct(monkeypatch):
    from gomoku.engine.search import alphabeta
    b = Board.from_moves(15, WANDERING_VCT)
    res = alphabeta.search(b.state, node_limit=60_000)
    assert res.proven == "vct" and res.score > alphabeta.WIN_MIN and res.nodes < 10_000
    assert b.coords(res.move) == (2, 7)
    monkeypatch.setattr(alphabeta, "PROBE_REACH", 3)
    assert alphabeta.search(b.state, node_limit=60_000).proven != "vct"


def test_a_node_clears_its_grandchildren_killers():
    from gomoku.engine.search.tables import INF
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)])
    cx = _fresh_ctx(b)
    # killers left at ply 4 by another part of the tree; a depth-1 search from ply 2 never
    # reaches ply 4, so only the node's own clearing can remove them
    cx.killers[4, :] = (b.index(3, 3), b.index(11, 11))
    _run_pvs(b, cx, 1, 2, -INF, INF)
    assert list(cx.killers[4]) == [-1, -1]


def test_a_pv_node_credits_its_best_quiet_move_in_the_history():
    from gomoku.engine.search.tables import INF
    b = Board.from_moves(15, [(7, 7), (7, 8), (8, 8)])
    cx = _fresh_ctx(b)
    # a full window at depth 1: the best move raises alpha but cannot cut
    _run_pvs(b, cx, 1, 2, -INF, INF)
    white = b.to_move - 1
    assert cx.history[white].sum() == 1 and cx.history[1 - white].sum() == 0
    assert cx.history[white, cx.pv[2, 2]] == 1


def test_a_kept_tt_serves_its_owners_next_search_under_the_same_rule():
    from gomoku.engine.search import alphabeta
    moves = [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)]
    b = Board.from_moves(15, moves)
    mine = alphabeta.Searcher()
    fresh = mine.search(b.state, max_depth=7)
    kept = mine.search(b.state, max_depth=7, clear=False)
    # the last search's entries answer many nodes (a TT move also undoes internal iterative
    # reduction where it would have cut, so the saving is less than half)
    assert kept.nodes < 0.8 * fresh.nodes
    # another player's tables start empty: the search is the fresh one, node for node
    other = alphabeta.Searcher()
    again = other.search(b.state, max_depth=7, clear=False)
    assert (again.nodes, again.move, again.score) == (fresh.nodes, fresh.move, fresh.score)
    other.release()
    assert not other.holds_tables and mine.holds_tables
    # the same stones under another rule: a TT filled under freestyle is not used
    s = Board.from_moves(15, moves, rule=Rule.STANDARD)
    assert mine.search(s.state, max_depth=7, clear=False).nodes == alphabeta.search(s.state, max_depth=7).nodes


def test_think_keeps_the_tt_only_for_timed_searches(monkeypatch):
    from gomoku.engine.search import alphabeta
    seen = []
    real = alphabeta.Searcher.search

    def spy(self, *args, **kw):
        seen.append((kw["clear"], self))
        return real(self, *args, **kw)

    monkeypatch.setattr(alphabeta.Searcher, "search", spy)
    b = Board.from_moves(15, [(7, 7), (8, 8)])
    think(b, Limit(turn_time=0.05))
    think(b, Limit(turn_time=5, nodes=2000))
    think(b, Limit(turn_time=5, depth=2))
    assert [c for c, _ in seen] == [False, True, True]
    # each classical player searches with tables of its own, kept between its moves and
    # dropped when it closes
    a, c = EnginePlayer(), EnginePlayer()
    a.play(b, Limit(turn_time=0.05))
    c.play(b, Limit(turn_time=0.05))
    a.play(b, Limit(turn_time=0.05))
    sa, sc = seen[-3][1], seen[-2][1]
    assert sa is not sc and seen[-1][1] is sa
    assert sa.holds_tables and sc.holds_tables
    a.close()
    c.close()
    assert not sa.holds_tables and not sc.holds_tables
