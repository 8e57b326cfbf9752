"""Positions and checks the search and threat tests share: a board built from stone lists,
the replay of a claimed VCF, and a long VCF whose solution needs eleven fours."""
from __future__ import annotations

from gomoku.engine.game.board import BLACK, WHITE, Board
from gomoku.engine.game.rules import Rule

# corner cells used as harmless filler stones (far from every test pattern)
FILLER = [(0, 0), (14, 0), (0, 14), (14, 14), (0, 13), (14, 13)]


def position(black, white, rule=Rule.FREESTYLE, to_move=BLACK, size=15) -> Board:
    """A board with these stones and `to_move` to play; filler stones in the corners even
    out the counts (black moves first, so black == white or black == white + 1)."""
    black, white = list(black), list(white)
    fill = iter(FILLER)
    want_black = len(white) if to_move == BLACK else len(white) + 1
    while len(black) < want_black:
        black.append(next(fill))
    while len(black) > (len(white) if to_move == BLACK else len(white) + 1):
        white.append(next(fill))
    moves = []
    for i in range(max(len(black), len(white))):
        if i < len(black):
            moves.append(black[i])
        if i < len(white):
            moves.append(white[i])
    b = Board.from_moves(size, moves, rule=rule)
    assert b.to_move == to_move and b.winner == 0
    return b


def fives_of(b: Board, color: int) -> list:
    return [c for c in b.empty_cells() if b.would_win(*c, color)]


def assert_vcf_line(b: Board, line: list) -> int:
    """Replay a claimed VCF; returns the number of fours it uses."""
    b = b.copy()
    att = b.to_move
    dfd = BLACK + WHITE - att
    fours = 0
    for i in range(0, len(line), 2):
        x, y = line[i]
        assert b.to_move == att
        if att == BLACK:
            assert not b.is_forbidden(x, y), f"attacker foul at {line[i]}"
        if b.would_win(x, y):
            b.play(x, y)
            assert b.winner == att
            return fours
        b.play(x, y)
        fours += 1
        assert not fives_of(b, dfd), f"defender has a five after {line[i]}"
        threat = fives_of(b, att)
        assert threat, f"{line[i]} is not a four"
        blocks = [c for c in threat if not (dfd == BLACK and b.is_forbidden(*c))]
        if len(threat) >= 2 or not blocks:
            return fours                 # two fives, or black may not block: won
        assert i + 1 < len(line) and line[i + 1] == blocks[0], "defence is not the forced block"
        b.play(*line[i + 1])
    raise AssertionError("line ends without a win")


LONG_VCF = [(7, 7), (5, 5), (7, 5), (3, 7), (5, 7), (7, 3), (6, 4), (5, 3), (7, 9), (2, 5), (3, 5),
            (9, 2), (5, 11), (7, 1)]
