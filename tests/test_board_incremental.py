"""Property tests: the incremental state always equals a recomputation from the cells."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gomoku.engine.game import core
from gomoku.engine.game.board import Board
from gomoku.engine.game.core import BoardState
from gomoku.engine.game.rules import Rule


def snapshot(b: Board) -> dict:
    s = b.state
    return {f: getattr(s, f).copy() for f in BoardState._fields if f not in ("tables", "zobrist", "moves", "undo_log", "counts_log")}


def assert_same(a: dict, b: dict, empty_mask: np.ndarray):
    for k in a:
        if k in ("cls", "score", "pidx"):
            # class/score only mean something on empty cells
            assert np.array_equal(a[k][:, empty_mask], b[k][:, empty_mask]), k
        elif k == "pat":
            # so do line patterns: an occupied cell's are looked up again when it is emptied
            assert np.array_equal(a[k][:, :, empty_mask], b[k][:, :, empty_mask]), k
        elif k == "span":
            # only the row of the current move count is live (like the move list past it)
            n = a["meta"][core.M_COUNT]
            assert np.array_equal(a[k][n], b[k][n]), k
        else:
            assert np.array_equal(a[k], b[k]), k


def fresh_copy_rebuilt(b: Board) -> dict:
    c = b.copy()
    core.rebuild(c.state)
    return snapshot(c)


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(list(Rule)), size=st.sampled_from([6, 9, 15, 20]),
       seed=st.integers(0, 2**31 - 1), n=st.integers(1, 120))
def test_random_moves_then_undos_restore_everything(rule, size, seed, n):
    rng = np.random.default_rng(seed)
    b = Board(size, rule=rule)
    start = snapshot(b)
    played = 0
    for _ in range(n):
        if b.game_over:
            break
        empty = b.empty_cells()
        x, y = empty[rng.integers(len(empty))]
        b.play(x, y)
        played += 1
        if played % 7 == 0:
            mask = b.state.cells == 0
            assert_same(snapshot(b), fresh_copy_rebuilt(b), mask)
    mask = b.state.cells == 0
    assert_same(snapshot(b), fresh_copy_rebuilt(b), mask)
    for _ in range(played):
        b.undo()
    assert_same(snapshot(b), start, b.state.cells == 0)
    assert b.hash == 0 and b.move_count == 0


def test_hash_depends_on_position_not_order():
    a = Board.from_moves(15, [(7, 7), (8, 8), (6, 6), (9, 9)])
    b = Board.from_moves(15, [(6, 6), (9, 9), (7, 7), (8, 8)])
    c = Board.from_moves(15, [(8, 8), (7, 7), (9, 9), (6, 6)])
    assert a.hash == b.hash
    assert a.hash != c.hash


def test_counts_match_classes():
    b = Board.from_moves(15, [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9)])
    s = b.state
    for c in range(2):
        for k in range(core.NUM_CLASSES):
            n = int(((s.cells == 0) & (s.cls[c] == k)).sum())
            assert s.counts[c, k] == n
    for c in range(2):
        for p in range(core.NUM_PATTERNS):
            n = int(((s.cells == 0)[None, :] & (s.pat[c] == p)).sum())
            assert s.counts[c, core.PATTERN_COUNTS + p] == n
    for c in range(2):
        idx = ((s.pat[c, 0].astype(int) * 11 + s.pat[c, 1]) * 11 + s.pat[c, 2]) * 11 + s.pat[c, 3]
        pairs = core.PAIR_TABLE[idx]
        for q in range(core.NUM_PAIRS):
            assert s.counts[c, core.PAIR_COUNTS + q] == int(((s.cells == 0) & (pairs == q)).sum())
    # the open four's two cells (7,6) and (7,10) and the blocked four's (7,5) and (7,11) have
    # nothing else of black's on their other lines
    assert s.counts[0, core.PAIR_COUNTS + core.PAIR_NAMES.index("F4+low")] == 2
    assert s.counts[0, core.PAIR_COUNTS + core.PAIR_NAMES.index("B4+low")] == 2
    # black has an open three on column 7: two cells that make an open four
    assert s.counts[0, core.C_F4] >= 2


@pytest.mark.parametrize("rule", list(Rule))
def test_random_playout_kernel_restores_board(rule):
    b = Board.from_moves(15, [(7, 7), (8, 8)], rule=rule)
    before = snapshot(b)
    moves = core.random_playouts(b.state, np.int64(20), np.int64(3))
    assert moves > 20 * 5
    assert_same(snapshot(b), before, b.state.cells == 0)


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(list(Rule)), size=st.sampled_from([6, 9, 15, 20]),
       seed=st.integers(0, 2**31 - 1), n=st.integers(0, 80))
def test_scan_span_holds_every_candidate_and_threat_cell(rule, size, seed, n):
    """Move generators scan only core.scan_span: no cell near a stone, and no cell making an
    open three or more for either colour, may lie outside it (before or after undos)."""
    rng = np.random.default_rng(seed)
    b = Board(size, rule=rule)
    for _ in range(n):
        if b.game_over:
            break
        empty = b.empty_cells()
        b.play(*empty[rng.integers(len(empty))])
    for _ in range(int(rng.integers(0, b.move_count + 1))):
        b.undo()
    s = b.state
    lo, hi = core.scan_span(s)
    outside = np.ones(s.cells.shape[0], dtype=bool)
    outside[max(lo, 0):max(hi, 0)] = False
    empty = (s.cells == 0) & outside
    assert not np.any(s.near[empty] > 0)
    assert not np.any(s.cls[:, empty] >= core.C_F3)
    if b.move_count == 0:
        assert lo >= hi
