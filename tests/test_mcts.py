"""The MCTS searcher on positions small enough to reason about by hand.

Cells are flat (y * width + x). Black (seat 0) moves first."""
from __future__ import annotations

import numpy as np
import pytest

from gomoku.engine.mcts import tree as T
from gomoku.engine.game.cells import direction_steps, flat_to_padded, new_cells, wins_at
from gomoku.engine.mcts.search import MCTS, MCTSConfig
from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.engine.game.rules import Rule

from netfiles import uniform_net


def cell(x: int, y: int, w: int = 8) -> int:
    return y * w + x


@pytest.fixture(scope="module")
def uniform8(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "u8.onnx"
    uniform_net(str(path), sizes=(8,))
    return NetEvaluator.load(path)


# black a1 b1 c1 d1 on the top row, white on the second row: black to move wins at e1
BLACK_FOUR = [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1), cell(2, 0), cell(2, 1), cell(3, 0), cell(5, 5)]
# the same without white's last move: white to move must block at e1
WHITE_MUST_BLOCK = BLACK_FOUR[:-1]


@pytest.mark.parametrize("net", [False, True])
def test_takes_the_immediate_win_and_proves_it(net, uniform8):
    m = MCTS(8, 8, config=MCTSConfig(playouts=300) if net else MCTSConfig.pure(300),
             evaluator=uniform8 if net else None, seed=1)
    m.sync(BLACK_FOUR)
    r = m.search()
    assert r.move == cell(4, 0)
    assert r.proven == 1 and r.playouts < 5      # decided at the root's expansion


@pytest.mark.parametrize("net", [False, True])
def test_makes_the_only_block(net, uniform8):
    m = MCTS(8, 8, config=MCTSConfig(playouts=300) if net else MCTSConfig.pure(300),
             evaluator=uniform8 if net else None, seed=1)
    m.sync(WHITE_MUST_BLOCK)
    r = m.search()
    assert r.move == cell(4, 0)
    assert np.count_nonzero(r.visits) == 1        # the block is the root's only child


def test_two_threats_are_a_proven_loss():
    # black b1 c1 d1 e1 with a1 and f1 both empty: white cannot block both ends
    moves = [cell(1, 0), cell(1, 3), cell(2, 0), cell(2, 3), cell(3, 0), cell(3, 3), cell(4, 0)]
    m = MCTS(8, 8, config=MCTSConfig.pure(200), seed=2)
    m.sync(moves)
    r = m.search()
    assert r.proven == -1 and r.value == -1.0


def test_a_forced_win_two_plies_deep_propagates_to_the_root():
    # four in a row on 6x6: black c3 d3, all else open; black e3 makes an open three
    # (b3 and f3 both win next), so the root is a proven win after a handful of playouts
    w = 6
    moves = [cell(2, 2, w), cell(0, 5, w), cell(3, 2, w), cell(5, 5, w)]
    m = MCTS(w, w, win_length=4, config=MCTSConfig.pure(3000), seed=3)
    m.sync(moves)
    r = m.search()
    assert r.proven == 1
    assert r.move in (cell(1, 2, w), cell(4, 2, w))


def test_tree_reuse_keeps_the_subtree_visits(uniform8):
    m = MCTS(8, 8, config=MCTSConfig(playouts=400, batch=8), evaluator=uniform8, seed=4)
    start = [cell(3, 3), cell(4, 4)]
    m.sync(start)
    r = m.search()
    f = m.forest
    root = int(f.root[0])
    kids = range(int(f.first[root]), int(f.first[root]) + int(f.nchild[root]))
    child = max(kids, key=lambda c: f.visits[c])
    kept = int(f.visits[child])
    move = int(f.flat[f.move[child]])
    assert move == r.move and kept > 1
    m.sync(start + [move])
    assert int(f.visits[f.root[0]]) == kept
    m.sync(start)                                   # a takeback returns to the old root
    assert int(f.visits[f.root[0]]) == r.playouts


def test_virtual_loss_and_pending_marks_leave_no_residue(uniform8):
    m = MCTS(8, 8, config=MCTSConfig(playouts=500, batch=16), evaluator=uniform8, seed=5)
    m.sync([cell(3, 3)])
    m.search()
    f = m.forest
    used = slice(0, int(f.used[0]))
    assert f.vloss[used].sum() == 0 and f.pending[used].sum() == 0
    root = int(f.root[0])
    first, n = int(f.first[root]), int(f.nchild[root])
    assert f.visits[first:first + n].sum() == f.visits[root] - 1    # the root's own visit expanded it


def test_compaction_keeps_the_root_subtree():
    m = MCTS(8, 8, config=MCTSConfig.pure(2000), seed=6)
    m.sync([cell(3, 3)])
    m.search()
    f = m.forest
    root = int(f.root[0])
    first, n = int(f.first[root]), int(f.nchild[root])
    before = sorted(zip(f.move[first:first + n].tolist(), f.visits[first:first + n].tolist()))
    total = int(f.visits[root])
    T.compact(f, 0)
    root = int(f.root[0])
    first, n = int(f.first[root]), int(f.nchild[root])
    assert root == 0 and int(f.visits[root]) == total
    assert sorted(zip(f.move[first:first + n].tolist(), f.visits[first:first + n].tolist())) == before
    assert all(int(f.parent[c]) == root for c in range(first, first + n))


def test_selection_rules_and_bad_config():
    for rule in ("puct", "ucb1", "plain"):
        m = MCTS(8, 8, config=MCTSConfig.pure(200, select=rule), seed=7)
        m.sync(WHITE_MUST_BLOCK)
        assert m.search().move == cell(4, 0)
    with pytest.raises(ValueError, match="selection rule"):
        MCTS(8, 8, config=MCTSConfig.pure(10, select="best"))


# 5x5, five in a row: every line of this full board holds both colours. With the top-left
# corner (an X) and the cell right of it (an O) left empty and X to move, the game ends in a
# draw whichever cell X takes, and any order of these moves stays free of fives on the way.
DRAWN_5X5 = ["XOXOX",
             "XOOXX",
             "OOXXX",
             "OXXOX",
             "OXOOO"]


def _drawn_moves() -> list[int]:
    xs = [y * 5 + x for y in range(5) for x in range(5) if DRAWN_5X5[y][x] == "X" and (x, y) != (0, 0)]
    os_ = [y * 5 + x for y in range(5) for x in range(5) if DRAWN_5X5[y][x] == "O" and (x, y) != (1, 0)]
    return [c for pair in zip(xs, os_) for c in pair] + xs[len(os_):]


@pytest.mark.parametrize("draw", [0.0, -0.4])
def test_a_forced_draw_is_worth_the_draw_value(draw):
    m = MCTS(5, 5, config=MCTSConfig.pure(50, draw_value=draw), seed=3)
    m.sync(_drawn_moves())
    r = m.search()
    assert r.move in (0, 1)
    assert r.value == pytest.approx(draw)


def test_the_draw_value_weighs_the_nets_draw_probability(uniform8):
    # the uniform net gives win, loss and draw a third each everywhere, and no playout of 40
    # reaches a decided game from this open position: the root's value is the draw value / 3
    for draw in (0.0, -0.6):
        m = MCTS(8, 8, config=MCTSConfig(playouts=40, draw_value=draw), evaluator=uniform8, seed=1)
        m.sync([cell(3, 3), cell(4, 4)])
        assert m.search().value == pytest.approx(draw / 3, abs=1e-5)
    with pytest.raises(ValueError, match="draw_value"):
        MCTS(8, 8, config=MCTSConfig(draw_value=1.5), evaluator=uniform8)


@pytest.mark.parametrize("rule,length,wins", [
    (Rule.FREESTYLE, 5, True), (Rule.FREESTYLE, 6, True),
    (Rule.STANDARD, 5, True), (Rule.STANDARD, 6, False),
    (Rule.RENJU, 6, False),                                      # black overline
    (Rule.CARO, 5, True),
])
def test_wins_at_follows_the_rule(rule, length, wins):
    w = 9
    cells = new_cells(w, w, 2)
    pad = flat_to_padded(w, w)
    for x in range(length):
        cells[pad[cell(x, 4, w)]] = 1
    assert wins_at(cells, direction_steps(w), pad[cell(0, 4, w)], 1, 5, int(rule), 2) == wins


def test_caro_five_closed_at_both_ends_does_not_win():
    w = 9
    cells = new_cells(w, w, 2)
    pad = flat_to_padded(w, w)
    for x in range(1, 6):
        cells[pad[cell(x, 4, w)]] = 1
    cells[pad[cell(0, 4, w)]] = cells[pad[cell(6, 4, w)]] = 2
    steps = direction_steps(w)
    assert not wins_at(cells, steps, pad[cell(3, 4, w)], 1, 5, int(Rule.CARO), 2)
    assert wins_at(cells, steps, pad[cell(3, 4, w)], 1, 5, int(Rule.FREESTYLE), 2)


def _renju_search(black, white):
    """A 15x15 renju board with these stones played in turn (black first), and 50 rollout
    playouts' search of it."""
    from gomoku.engine.game.board import Board
    b = Board.from_moves(15, [m for pair in zip(black, white) for m in pair], rule=Rule.RENJU)
    m = MCTS(15, 15, rule=Rule.RENJU, config=MCTSConfig.pure(50), seed=8)
    m.sync([y * 15 + x for x, y in b.moves])
    return b, m.search()


def test_renju_black_is_never_offered_a_foul():
    # black double-four at the centre of 15x15 is a foul: MCTS must not list it as a child
    b, r = _renju_search([(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
                         [(0, 0), (0, 2), (0, 4), (14, 0), (14, 2), (14, 4)])
    assert b.is_forbidden(7, 7)
    assert r.visits[cell(7, 7, 15)] == 0


def test_renju_black_whose_only_block_is_a_foul_still_has_moves():
    # 15x15 renju, black to move: white's four d4-d7 wins at d8 (4,7), and black's block there
    # would make six in a row with b8 c8 d8 ... g8, a foul. The position is lost, yet black must
    # move: the search (and self-play, which once crashed here) gets every legal move, not none
    w = 15
    b, r = _renju_search([(1, 7), (2, 7), (3, 7), (5, 7), (6, 7), (4, 2)],
                         [(4, 3), (4, 4), (4, 5), (4, 6), (10, 12), (12, 12)])
    assert b.is_forbidden(4, 7)
    assert r.value == -1.0 and r.move != cell(4, 7, w) and b.is_legal(r.move % w, r.move // w)


def test_the_player_plays_the_solvers_forced_win_at_its_coordinates():
    # 15x15: black a broken four c8 d8 e8 _ g8 (f8 wins), white scattered; the VCF probe answers
    from gomoku.engine.game.board import Board
    from gomoku.engine.base.limits import Limit
    from gomoku.engine.mcts.player import MCTSPlayer
    b = Board(15)
    for (x, y), (wx, wy) in zip([(2, 7), (3, 7), (4, 7), (6, 7)], [(0, 0), (14, 0), (0, 14), (14, 14)]):
        b.play(x, y)
        b.play(wx, wy)
    player = MCTSPlayer(MCTSConfig.pure(50), None, use_solver=True)
    r = player.play(b, Limit(playouts=50))
    assert r.move == (5, 7) and r.info.get("proof") == "vcf"


def _double_three_threat():
    """15x15, black to move: (6,7) (7,7) and (8,5) (8,6) meet at (8,7), two open threes at once:
    a VCT and no VCF."""
    from gomoku.engine.game.board import Board
    return Board.from_moves(15, [(6, 7), (0, 7), (7, 7), (14, 7), (8, 5), (7, 0), (8, 6), (7, 14)])


def test_the_player_plays_a_vct_that_a_small_tree_misses():
    from gomoku.engine.base.limits import Limit
    from gomoku.engine.mcts.player import MCTSPlayer
    b = _double_three_threat()
    r = MCTSPlayer(MCTSConfig.pure(20), None, use_solver=True).play(b, Limit(playouts=20))
    assert r.info.get("proof") == "vct" and r.move in [(8, 7), (5, 7), (9, 7), (8, 4), (8, 8)]
    assert r.info["searcher"] == "rollout MCTS"


def test_a_move_that_lets_the_opponent_win_by_threes_is_replaced():
    """White to move; black's x=5 stones (5,4) (5,6) (5,8) and its diagonal (5,8) _ (7,10) give
    it a VCT unless white takes (6,9) or (8,11). The search's favourite (a far corner) allows
    no VCF, only the VCT; the next candidate, (6,9), holds and is played."""
    from types import SimpleNamespace
    from gomoku.engine.game.board import Board
    from gomoku.engine.mcts.player import VCT_NODES, MCTSPlayer
    from gomoku.engine.search.dfpn import solve_vct
    from gomoku.engine.search.threats import solve
    b = Board.from_moves(15, [(5, 8), (7, 6), (5, 4), (8, 8), (7, 10), (10, 5), (5, 6)])
    w = b.width
    after = b.copy()
    after.play(14, 14)
    assert not solve(after.copy().state, "vcf").win and solve_vct(after.copy().state, node_limit=VCT_NODES).win
    visits = np.zeros(w * w, dtype=np.int64)
    visits[cell(14, 14, w)] = 50
    visits[cell(6, 9, w)] = 30
    res = SimpleNamespace(visits=visits, move=cell(14, 14, w))
    player = MCTSPlayer(MCTSConfig.pure(20), None, use_solver=True)
    assert player._avoid_forced_loss(b, res, VCT_NODES) == cell(6, 9, w)


def test_the_warm_up_searches_small_trees_only(monkeypatch):
    """The brain runs the warm-up in its own process, where a tree's memory stays with the
    allocator once freed: default-sized trees there cost the brain 75-115 MB of its 350."""
    from gomoku.engine.mcts import search
    made = []
    real = T.new_forest

    def recording(width, height, players, trees, nodes_per_tree, seed=1):
        made.append(trees * nodes_per_tree * T.node_bytes(players))
        return real(width, height, players, trees, nodes_per_tree, seed)

    monkeypatch.setattr(T, "new_forest", recording)
    search.warm_up()
    assert len(made) == 4 and max(made) <= search.WARM_TREE_BYTES
