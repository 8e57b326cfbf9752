"""Making opening books: thousands of balanced openings spread over the whole board.

At a fixed node count the search is deterministic, so a match replays the same two games for
an opening: 100 openings give 200 distinct games, and a 10,000-game test needs 5,000 openings
that no one has tuned on. A candidate is a few stones (3 to 5, black first, alternating)
dropped near one another around an anchor drawn uniformly over the board, so openings near the
edges and in the corners come in their natural share; it is kept when the classical search,
given `nodes` for the side to move, scores it within `margin` of even and finds no proven
result. Duplicates under the board's symmetries are dropped.

A centre book (`centre=k`) draws 3 to 6 stones anywhere in the central k x k square instead:
the shape of the shipped Rapfi-judged balanced sets, whose 100 openings give only 200 games.
Results on those openings and on the spread book can differ (a change tuned on one kind of
position can lose on the other), so both kinds are worth a test.

The worker functions run in pool processes; this module prints nothing (`gomoku openings`
shows progress and writes the file).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Optional

from gomoku.engine.game.rules import Rule
from gomoku.engine.match.openings import Move, Opening

#: stones an opening has: short enough that the game is still open, long enough to differ
STONES = (3, 4, 5)
#: stones of a centre-book opening (as the Rapfi-judged balanced sets have)
CENTRE_STONES = (3, 4, 5, 6)
#: how far (Chebyshev) a stone may lie from the anchor, and from an earlier stone
SPREAD, REACH = 3, 2
#: batch k of a book made with seed s draws its candidates from seed s * STRIDE + k
BATCH_SEED_STRIDE = 1_000_003


@dataclass(frozen=True)
class BookSettings:
    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    nodes: int = 20_000          # the search that judges a candidate (deterministic)
    margin: int = 300            # |score| at most this (evaluation units, about 5 x Rapfi's: its +-60)
    centre: int = 0              # k > 0: stones only in the central k x k square (0: the whole board)


def centre_candidate(rng: random.Random, width: int, height: int, side: int) -> Opening:
    """3 to 6 distinct stones drawn uniformly in the central side x side square (black first)."""
    side_x, side_y = min(side, width), min(side, height)
    x0, y0 = (width - side_x) // 2, (height - side_y) // 2
    cells = [(x0 + i, y0 + j) for j in range(side_y) for i in range(side_x)]
    k = min(rng.choice(CENTRE_STONES), len(cells))
    return tuple(rng.sample(cells, k))


def candidate(rng: random.Random, width: int, height: int) -> Opening:
    """A few stones near one another around a uniformly drawn anchor (black first)."""
    ax, ay = rng.randrange(width), rng.randrange(height)
    k = rng.choice(STONES)
    stones: list[Move] = []
    taken: set[Move] = set()
    while len(stones) < k:
        x = min(width - 1, max(0, ax + rng.randint(-SPREAD, SPREAD)))
        y = min(height - 1, max(0, ay + rng.randint(-SPREAD, SPREAD)))
        if (x, y) in taken:
            continue
        if stones and min(max(abs(x - sx), abs(y - sy)) for sx, sy in stones) > REACH:
            continue
        stones.append((x, y))
        taken.add((x, y))
    return tuple(stones)


def canonical(opening: Opening, width: int, height: int) -> tuple[frozenset, frozenset]:
    """One key for the opening and its mirror images (8 on a square board, 4 elsewhere):
    the black and the white stones as sets, the least of the images."""
    images = []
    syms = [(False, False, False), (True, False, False), (False, True, False), (True, True, False)]
    if width == height:
        syms += [(fx, fy, True) for fx, fy, _ in syms]
    for fx, fy, tr in syms:
        def f(m: Move) -> Move:
            x, y = m
            if tr:
                x, y = y, x
            return (width - 1 - x if fx else x, height - 1 - y if fy else y)
        black = tuple(sorted(f(m) for m in opening[0::2]))
        white = tuple(sorted(f(m) for m in opening[1::2]))
        images.append((black, white))
    b, w = min(images)
    return frozenset(b), frozenset(w)


def judge(opening: Opening, settings: BookSettings, searcher: Optional[object] = None) -> Optional[int]:
    """The search's score of the opening for the side to move, or None when it is no opening
    (a stone lies on a renju foul, a line is already made) or the search proves a result."""
    from gomoku.engine.game.board import Board, IllegalMove
    from gomoku.engine.search.alphabeta import Searcher, WIN_MIN
    board = Board(settings.width, settings.height, rule=settings.rule)
    try:
        for x, y in opening:
            board.play(x, y)
    except IllegalMove:
        return None
    if board.game_over:
        return None
    s = searcher if isinstance(searcher, Searcher) else Searcher()
    res = s.search(board.state, node_limit=settings.nodes)
    if res.proven or abs(res.score) >= WIN_MIN:
        return None
    return int(res.score)


def find_balanced(seed: int, attempts: int, settings: BookSettings) -> list[tuple[Opening, int]]:
    """`attempts` candidates from `seed`, judged; the balanced ones with their scores (a pool
    worker's unit of work: deterministic for its seed)."""
    from gomoku.engine.search.alphabeta import Searcher
    rng = random.Random(seed)
    searcher = Searcher()
    out = []
    for _ in range(attempts):
        op = (centre_candidate(rng, settings.width, settings.height, settings.centre) if settings.centre
              else candidate(rng, settings.width, settings.height))
        score = judge(op, settings, searcher)
        if score is not None and abs(score) <= settings.margin:
            out.append((op, score))
    return out


def edge_share(openings: Iterable[Opening], width: int, height: int, within: int = 2) -> float:
    """The share of openings with a stone within `within` cells of an edge."""
    ops = list(openings)
    if not ops:
        return 0.0
    near = sum(any(min(x, y, width - 1 - x, height - 1 - y) < within for x, y in op) for op in ops)
    return near / len(ops)
