"""The first engine's forced choices, checked on positions small enough to read."""
from gomoku.engine.player.agent import quick_move, think
from gomoku.engine.game.board import BLACK, Board
from gomoku.engine.base.limits import Limit
from gomoku.engine.game.rules import Rule


def test_takes_the_win():
    # black x x x x . on row 7, white scattered; black to move wins at (3,7) or (8,7)
    b = Board.from_moves(15, [(4, 7), (0, 0), (5, 7), (0, 2), (6, 7), (0, 4), (7, 7), (0, 6)])
    assert quick_move(b) in [(3, 7), (8, 7)]


def test_blocks_a_four():
    # white has four in column 10 (blocked at the top by black), white to move? no: black to move
    b = Board.from_moves(15, [(7, 7), (10, 3), (10, 2), (10, 4), (3, 3), (10, 5), (3, 12), (10, 6)])
    assert b.to_move == BLACK
    assert quick_move(b) == (10, 7)


def test_win_beats_block():
    b = Board.from_moves(15, [(4, 7), (10, 3), (5, 7), (10, 4), (6, 7), (10, 5), (7, 7), (10, 6)])
    assert quick_move(b) in [(3, 7), (8, 7)]


def test_first_move_is_the_centre():
    assert quick_move(Board(15)) == (7, 7)
    assert quick_move(Board(20)) == (10, 10)


def test_static_engine_never_commits_a_renju_foul():
    b = Board.from_moves(15, [(5, 7), (0, 0), (6, 7), (2, 0), (7, 5), (4, 0), (7, 6), (14, 14)], rule=Rule.RENJU)
    assert b.is_forbidden(7, 7)
    for _ in range(60):
        if b.game_over:
            break
        mv = think(b, Limit(turn_time=0)).move
        if b.to_move == BLACK:
            assert not b.is_forbidden(*mv)
        b.play(*mv)


def test_think_does_not_touch_the_board():
    b = Board.from_moves(15, [(7, 7), (8, 8)])
    h = b.hash
    think(b, Limit(turn_time=0.1))
    assert b.hash == h and b.move_count == 2
