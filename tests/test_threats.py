"""VCF / VCT solver on positions small enough to check by hand, under every rule.

Every win the solver claims is replayed through the public Board API by `assert_vcf_line`,
which checks independently that each attacking move is a four the defender cannot answer
with a five, that each defence is the only block, and that the line ends in a five.
"""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.search import threats
from gomoku.engine.game.board import BLACK, WHITE, Board
from gomoku.engine.game.rules import Rule

from positions import LONG_VCF, assert_vcf_line, fives_of, position  # noqa: F401

def solve(b: Board, kind="vcf", depth=30, **kw):
    r = threats.solve(b.state, kind, depth=depth, **kw)
    return r.win, [b.coords(i) for i in r.pv], r.nodes


# -- VCF found ---------------------------------------------------------------------------

def test_vcf_four_three():
    # black: row 7 x=4..6 (blocked at x=3 by white), column 7 y=5,6 -> (7,7) four, then an open four
    b = position([(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)], [(3, 7)])
    win, line, _ = solve(b)
    assert win and line[0] in [(7, 7), (8, 7)]
    assert assert_vcf_line(b, line) >= 1


def test_long_vcf_needs_eleven_fours():
    b = Board.from_moves(15, LONG_VCF)
    win, line, _ = solve(b, depth=10)
    assert not win                       # no VCF with ten fours or fewer
    win, line, nodes = solve(b, depth=11)
    assert win
    assert assert_vcf_line(b, line) == 11
    assert nodes < 5000


@pytest.mark.parametrize("rule", list(Rule))
def test_vcf_found_under_every_rule(rule):
    # an open three for black with room on both sides: the open four wins under every rule
    b = position([(5, 7), (6, 7), (7, 7), (7, 3)], [(7, 10), (9, 10), (11, 10)], rule=rule)
    win, line, _ = solve(b)
    assert win and assert_vcf_line(b, line) >= 1


def test_vcf_with_white_attacker():
    b = position([(3, 7)], [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)], to_move=WHITE)
    win, line, _ = solve(b)
    assert win and assert_vcf_line(b, line) >= 1


# -- false wins rejected -----------------------------------------------------------------

def test_counter_four_refutes_the_vcf():
    black = [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)]
    assert solve(position(black, [(3, 7)]))[0]
    # white stones on column 8: blocking at (8,7) makes white an open four -> no VCF
    b = position(black, [(3, 7), (8, 8), (8, 9), (8, 10)])
    win, line, _ = solve(b)
    assert not win, line


def test_defender_five_must_be_blocked_first():
    # white already has a four (five cell (10,1)); black's 4-3 does not count unless it blocks
    black = [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)]
    b = position(black, [(3, 7), (10, 2), (10, 3), (10, 4), (10, 5)], to_move=BLACK)
    # (10,6) is taken by black filler? no: make sure the five cell is open at (10,1)
    assert fives_of(b, WHITE)
    assert not solve(b)[0]


def test_renju_double_four_is_forbidden_for_black():
    # (7,7) makes two fours (row blocked by (3,7), column blocked by (7,3))
    black = [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)]
    white = [(3, 7), (7, 3)]
    free = position(black, white, rule=Rule.FREESTYLE)
    win, line, _ = solve(free)
    assert win and line[0] == (7, 7)
    renju = position(black, white, rule=Rule.RENJU)
    assert renju.is_forbidden(7, 7)
    win, line, _ = solve(renju)
    assert not win, line


def test_renju_white_wins_on_a_black_forbidden_block():
    # white plays (5,9): four whose only block (6,9) is a 3-3 foul for black
    black = [(1, 9), (6, 7), (6, 8), (7, 10), (8, 11)]
    white = [(2, 9), (3, 9), (4, 9)]
    renju = position(black, white, rule=Rule.RENJU, to_move=WHITE)
    free = position(black, white, rule=Rule.FREESTYLE, to_move=WHITE)
    win, line, _ = solve(renju, depth=4)
    assert win and line[0] == (5, 9)
    assert assert_vcf_line(renju, line) >= 1
    assert not solve(free, depth=4)[0]


def test_standard_overline_is_not_a_five():
    # x: 1 O, 2-4 X, 5 ., 6-7 X, 8 O on row 7: (5,7) makes six in a row
    black = [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)]
    white = [(1, 7), (8, 7)]
    assert solve(position(black, white, rule=Rule.FREESTYLE))[0]
    for rule in (Rule.STANDARD, Rule.RENJU):
        b = position(black, white, rule=rule)
        assert not b.would_win(5, 7)
        assert not solve(b)[0]


def test_caro_blocked_five_is_not_a_win():
    black = [(2, 7), (3, 7), (4, 7), (5, 7)]
    white = [(1, 7), (7, 7)]
    assert solve(position(black, white, rule=Rule.FREESTYLE))[0]
    for rule in (Rule.CARO, Rule.CARO_EXACT):
        assert not solve(position(black, white, rule=rule))[0]


def test_caro_four_can_be_stopped_beyond_its_end():
    # black x=3..6 on row 7 with white at x=2: under caro the five at (7,7) would be blocked at
    # both ends once white stands on (8,7), so the four has two defences
    b = position([(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7)], rule=Rule.CARO, to_move=WHITE)
    st = b.state
    buf = np.zeros(threats.BUF_LEN, dtype=np.int64)
    n = threats.block_fives(st, np.int64(0), np.int64(-1), buf)
    assert sorted(b.coords(int(i)) for i in buf[:n]) == [(7, 7), (8, 7)]


# -- VCT ---------------------------------------------------------------------------------

def test_vct_double_three():
    # (8,7) makes two open threes for black: no VCF, but a VCT
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    b = position(black, [(0, 7), (14, 7), (7, 0), (7, 14)])
    assert not solve(b, "vcf")[0]
    win, line, _ = solve(b, "vct", depth=4)
    assert win
    assert line[0] in [(8, 7), (5, 7), (9, 7), (8, 4), (8, 8)]


def test_vct_refuted_by_counter_four():
    # same double three, but white has three stones that make fours against it
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    white = [(2, 2), (3, 3), (4, 4), (12, 2)]
    b = position(black, white)
    # white's fours would not stop a plain double three; make them a real counter: white
    # completing (5,5) gets an open four -> black's threes come too late
    win, line, _ = solve(b, "vct", depth=4)
    assert not win, line


def test_renju_vct_avoids_forbidden_double_three():
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    b = position(black, [(0, 7), (14, 7), (7, 0), (7, 14)], rule=Rule.RENJU)
    assert b.is_forbidden(8, 7)
    win, line, _ = solve(b, "vct", depth=4)
    if win:
        assert line[0] != (8, 7)


# -- limits ------------------------------------------------------------------------------

def test_node_limit_and_stop_flag():
    b = Board.from_moves(15, LONG_VCF)
    win, _, nodes = solve(b, depth=11, node_limit=20)
    assert not win and nodes <= 21
    ctrl = threats.new_ctrl()
    ctrl[threats.C_STOP] = 1
    assert not threats.solve(b.state, "vcf", depth=11, ctrl=ctrl).win
    assert b.move_count == len(LONG_VCF)


def test_recursive_solvers_have_one_signature():
    b = Board.from_moves(15, LONG_VCF)
    solve(b, "vct", depth=2)
    for f in (threats.vcf, threats._vct):
        assert len(f.signatures) <= 1


# -- proof-number VCT (engine.search.dfpn) -----------------------------------------------

from gomoku.engine.search import dfpn  # noqa: E402


def pn_solve(b: Board, node_limit: int = 200_000):
    r = dfpn.solve_vct(b.state, node_limit=node_limit)
    return r.win, [b.coords(i) for i in r.pv], r.nodes


def assert_every_defence_loses(b: Board, first: tuple) -> int:
    """After the attacker's `first`, try EVERY empty cell as the defence (not the solver's
    candidate list): the attacker must still win each time, by a five, by an open four the
    defender cannot meet, or by a fresh df-pn proof. Returns the defences tried."""
    att = b.to_move
    after = b.copy()
    after.play(*first)
    tried = 0
    for cell in after.empty_cells():
        if after.to_move == BLACK and after.rule == Rule.RENJU and after.is_forbidden(*cell):
            continue
        d = after.copy()
        d.play(*cell)
        tried += 1
        assert d.winner != BLACK + WHITE - att, f"defence {cell} makes a five"
        if fives_of(d, att):
            continue
        assert dfpn.solve_vct(d.state, node_limit=200_000).win, f"defence {cell} holds"
    return tried


def test_dfpn_double_three_and_every_defence_checked():
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    b = position(black, [(0, 7), (14, 7), (7, 0), (7, 14)])
    win, line, _ = pn_solve(b)
    assert win
    assert line[0] in [(8, 7), (5, 7), (9, 7), (8, 4), (8, 8)]
    assert assert_every_defence_loses(b, line[0]) > 200


def test_dfpn_finds_the_eleven_four_vcf():
    b = Board.from_moves(15, LONG_VCF)
    win, line, nodes = pn_solve(b)
    assert win and nodes < 200_000
    # the line alternates attacker and defender moves on empty cells and ends in a five
    r = b.copy()
    for cell in line:
        r.play(*cell)
    assert r.winner == BLACK


def test_dfpn_counter_four_refutes():
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    white = [(2, 2), (3, 3), (4, 4), (12, 2)]
    b = position(black, white)
    r = dfpn.solve_vct(b.state, node_limit=200_000)
    assert not r.win
    # disproven, not just out of nodes
    assert int(dfpn.dfpn(b.state, np.int64(0), threats.new_ctrl(200_000), dfpn.new_dfpn_table(16),
                          np.int64(0))) == 0


def test_dfpn_renju_black_never_uses_the_forbidden_double_three():
    black = [(6, 7), (7, 7), (8, 5), (8, 6)]
    b = position(black, [(0, 7), (14, 7), (7, 0), (7, 14)], rule=Rule.RENJU)
    assert b.is_forbidden(8, 7)
    win, line, _ = pn_solve(b)
    if win:
        assert line[0] != (8, 7)
        assert assert_every_defence_loses(b, line[0]) > 0


def test_dfpn_standard_overline_is_not_a_five():
    # black x=2..5 and 7 on row 7, white blocks x=1: (6,7) joins six stones. Freestyle: a
    # five (won at once); standard: an overline, and black has no other threat at all
    black, white = [(2, 7), (3, 7), (4, 7), (5, 7), (7, 7)], [(1, 7), (9, 12), (12, 9)]
    win, line, _ = pn_solve(position(black, white, rule=Rule.FREESTYLE))
    assert win and line == [(6, 7)]
    b = position(black, white, rule=Rule.STANDARD)
    assert not b.would_win(6, 7, BLACK)
    assert int(dfpn.dfpn(b.state, np.int64(0), threats.new_ctrl(100_000), dfpn.new_dfpn_table(16),
                          np.int64(0))) == 0


def test_dfpn_agrees_with_the_depth_first_vct():
    """Random middle games: every win the depth-first VCT proves within 3 threats, df-pn
    proves too, and df-pn never disproves one. Twenty games hold nine such wins and several
    disproofs: enough, where forty doubled the time for more of the same."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(20):
        b = Board(15)
        for _ in range(int(rng.integers(8, 20))):
            cells = [c for c in b.empty_cells() if abs(c[0] - 7) <= 4 and abs(c[1] - 7) <= 4]
            b.play(*cells[int(rng.integers(len(cells)))])
            if b.winner:
                break
        if b.winner:
            continue
        ref = threats.solve(b.state, "vct", depth=3, vcf_depth=12, node_limit=300_000)
        r = int(dfpn.dfpn(b.state, np.int64(b.to_move - 1), threats.new_ctrl(300_000),
                          dfpn.new_dfpn_table(18), np.int64(0)))
        if ref.win:
            assert r == 1
            checked += 1
        if r == 0:
            assert not ref.win
    assert checked >= 3


def test_dfpn_node_limit_stop_and_board_restored():
    b = Board.from_moves(15, LONG_VCF)
    before = b.state.hashv[0]
    ctrl = threats.new_ctrl(50)
    assert int(dfpn.dfpn(b.state, np.int64(0), ctrl, dfpn.new_dfpn_table(12), np.int64(dfpn.REACH))) == -1
    assert int(ctrl[threats.C_NODES]) <= 50
    ctrl = threats.new_ctrl()
    ctrl[threats.C_STOP] = 1
    assert not dfpn.solve_vct(b.state, ctrl=ctrl).win
    assert b.state.hashv[0] == before and b.move_count == len(LONG_VCF)


def test_dfpn_recursion_has_one_signature():
    b = Board.from_moves(15, LONG_VCF)
    pn_solve(b, 5_000)
    assert len(dfpn._mid.signatures) <= 1
