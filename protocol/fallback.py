"""A cheap legal move in pure Python, for when the engine cannot answer in time.

Used by the watchdog (the search overran its hard deadline), before the numba core has loaded
(cold cache) and for instant moves. It takes an immediate win, blocks an immediate loss, and
otherwise plays next to the longest own/opponent runs near the stones. Runs in well under a
millisecond on 22x22, so it can be computed when the request arrives.
"""
from __future__ import annotations

from typing import Callable, Optional

from gomoku.engine.rules import Rule
from gomoku.protocol.position import BLACK, EMPTY, WHITE, Position

_DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _run(pos: Position, x: int, y: int, dx: int, dy: int, colour: int) -> int:
    """Stones of `colour` in a row through (x, y) along (dx, dy), counting (x, y) itself."""
    n = 1
    for s in (1, -1):
        cx, cy = x + s * dx, y + s * dy
        while pos.in_bounds(cx, cy) and pos.cells.get((cx, cy)) == colour:
            n += 1
            cx += s * dx
            cy += s * dy
    return n


def _wins(pos: Position, x: int, y: int, colour: int, rule: Rule) -> bool:
    """Would `colour` win by playing (x, y)? Exact-five rules refuse overlines; caro's
    blocked-ends condition is ignored (a fallback only needs to be legal and sensible)."""
    exact = rule in (Rule.STANDARD, Rule.CARO_EXACT) or (rule == Rule.RENJU and colour == BLACK)
    for dx, dy in _DIRS:
        n = _run(pos, x, y, dx, dy, colour)
        if n == 5 or (n > 5 and not exact):
            return True
    return False


def ranked_moves(pos: Position, rule: Rule, limit: int = 8) -> list[tuple[int, int]]:
    """The best few cheap moves, best first (empty list only when the board is full)."""
    me = pos.to_move
    opp = WHITE if me == BLACK else BLACK
    cx, cy = (pos.width - 1) / 2.0, (pos.height - 1) / 2.0
    stones = [p for p, c in pos.cells.items() if c in (BLACK, WHITE)]
    if not stones:
        centre = (pos.width // 2, pos.height // 2)
        if pos.cell(*centre) == EMPTY:
            return [centre]
    cand: set[tuple[int, int]] = set()
    for sx, sy in stones:
        for ddx in range(-2, 3):
            for ddy in range(-2, 3):
                p = (sx + ddx, sy + ddy)
                if pos.in_bounds(*p) and pos.cell(*p) == EMPTY:
                    cand.add(p)
    if not cand:
        cand = {(x, y) for x in range(pos.width) for y in range(pos.height) if pos.cell(x, y) == EMPTY}
    scored = []
    for x, y in cand:
        if _wins(pos, x, y, me, rule):
            score = 1e9
        elif _wins(pos, x, y, opp, rule):
            score = 1e8
        else:
            score = 0.0
            for dx, dy in _DIRS:
                a = _run(pos, x, y, dx, dy, me) - 1
                b = _run(pos, x, y, dx, dy, opp) - 1
                score += 4 ** a * 1.1 + 4 ** b
            score -= 0.01 * (abs(x - cx) + abs(y - cy))
        scored.append((score, -y, -x, (x, y)))
    scored.sort(reverse=True)
    return [m for *_, m in scored[:limit]]


def cheap_move(pos: Position, rule: Rule,
               forbidden: Optional[Callable[[int, int], bool]] = None) -> Optional[tuple[int, int]]:
    """One legal move: the best of `ranked_moves` that `forbidden` (renju check) allows.

    Falls back to any empty cell; None only if no empty cell is left.
    """
    moves = ranked_moves(pos, rule)
    for m in moves:
        if forbidden is None or not forbidden(*m):
            return m
    for y in range(pos.height):
        for x in range(pos.width):
            if pos.cell(x, y) == EMPTY and (forbidden is None or not forbidden(x, y)):
                return (x, y)
    return moves[0] if moves else None
