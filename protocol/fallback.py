"""A cheap legal move in pure Python, for when the engine cannot answer in time.

Used by the watchdog (the search overran its hard deadline), before the numba core has loaded
(cold cache) and for instant moves. It takes an immediate win, blocks an immediate loss, and
otherwise plays next to the longest own/opponent runs near the stones. Runs in well under a
millisecond on 22x22, so it can be computed when the request arrives.
"""
from __future__ import annotations

from typing import Callable, Optional

from gomoku.engine.game.rules import Rule
from gomoku.protocol.position import BLACK, EMPTY, WHITE, Position

_DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _run(pos: Position, x: int, y: int, dx: int, dy: int, colour: int) -> tuple[int, int, int]:
    """Stones of `colour` in a row through (x, y) along (dx, dy), counting (x, y) itself, the
    number of open ends (empty cell beyond the run) and of ends closed by the other colour."""
    n, open_ends, opp_ends = 1, 0, 0
    for s in (1, -1):
        cx, cy = x + s * dx, y + s * dy
        while pos.in_bounds(cx, cy) and pos.cells.get((cx, cy)) == colour:
            n += 1
            cx += s * dx
            cy += s * dy
        if pos.in_bounds(cx, cy):
            c = pos.cells.get((cx, cy), EMPTY)
            if c == EMPTY:
                open_ends += 1
            elif c in (BLACK, WHITE):
                opp_ends += 1
    return n, open_ends, opp_ends


def _exact(rule: Rule, colour: int) -> bool:
    return rule in (Rule.STANDARD, Rule.CARO_EXACT) or (rule == Rule.RENJU and colour == BLACK)


def _wins(pos: Position, x: int, y: int, colour: int, rule: Rule) -> bool:
    """Would `colour` win by playing (x, y)? Exact-five rules refuse overlines; caro refuses a
    five closed at both ends by opponent stones (the board edge does not close)."""
    exact = _exact(rule, colour)
    caro = rule in (Rule.CARO, Rule.CARO_EXACT)
    for dx, dy in _DIRS:
        n, _, closed = _run(pos, x, y, dx, dy, colour)
        if n == 5 or (n > 5 and not exact):
            if not (caro and closed == 2):
                return True
    return False


def _shape(pos: Position, x: int, y: int, colour: int, rule: Rule) -> float:
    """How much a stone of `colour` at (x, y) builds: longer runs and open ends count, dead
    runs (no open end) and overlines that do not win under this rule count nothing."""
    total = 0.0
    for dx, dy in _DIRS:
        n, open_ends, _ = _run(pos, x, y, dx, dy, colour)
        if n > 5 and _exact(rule, colour):
            continue
        if open_ends == 0:
            continue
        total += 4.0 ** (min(n, 5) - 1) * open_ends
    return total


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
            score = 1.1 * _shape(pos, x, y, me, rule) + _shape(pos, x, y, opp, rule)
            score -= 0.01 * (abs(x - cx) + abs(y - cy))
        scored.append((score, -y, -x, (x, y)))
    scored.sort(reverse=True)
    return [m for *_, m in scored[:limit]]


def _line(pos: Position, x: int, y: int, dx: int, dy: int) -> list[int]:
    """Cells at offsets -5..5 along a direction, with black placed at offset 0 (index 5);
    off-board cells read as 3 (a wall)."""
    out = []
    for k in range(-5, 6):
        cx, cy = x + k * dx, y + k * dy
        out.append(pos.cells.get((cx, cy), EMPTY) if pos.in_bounds(cx, cy) else 3)
    out[5] = BLACK
    return out


def _run_at(line: list[int], i: int) -> tuple[int, int]:
    """(start, end) indices of the black run containing index i."""
    a = b = i
    while a > 0 and line[a - 1] == BLACK:
        a -= 1
    while b < len(line) - 1 and line[b + 1] == BLACK:
        b += 1
    return a, b


def maybe_renju_foul(pos: Position, x: int, y: int) -> bool:
    """Conservative renju foul test for black at (x, y) in pure Python: overline, two fours,
    or two (possibly false) open threes. It may call a legal move a foul (no false-three
    recursion), never the reverse for these shapes; fine for a fallback that only must not
    lose by a foul."""
    fours = threes = 0
    for dx, dy in _DIRS:
        line = _line(pos, x, y, dx, dy)
        a, b = _run_at(line, 5)
        if b - a + 1 == 5:
            return False                       # an exact five wins outright
        if b - a + 1 > 5:
            return True                        # overline
        run_len = b - a + 1
        four_points = 0
        three = False
        for e in range(1, 10):
            if line[e] != EMPTY:
                continue
            line[e] = BLACK
            a, b = _run_at(line, 5)
            if a <= e <= b:
                n = b - a + 1
                if n == 5:
                    four_points += 1
                elif n == 4 and line[a - 1] == EMPTY and line[b + 1] == EMPTY:
                    three = True
            line[e] = EMPTY
        # A straight four (run of 4 through x,y) has two completion points but is one four;
        # otherwise each completion point is its own four (X.XXX.X, XX.XX.XX: double fours).
        fours += min(four_points, 1) if run_len == 4 else four_points
        threes += three and not four_points
    return fours >= 2 or threes >= 2


def cheap_move(pos: Position, rule: Rule,
               forbidden: Optional[Callable[[int, int], bool]] = None) -> Optional[tuple[int, int]]:
    """One legal move: the best of `ranked_moves` that `forbidden` (renju check) allows.

    Falls back to any empty cell; None only if no empty cell is left.
    """
    if forbidden is None and rule == Rule.RENJU and pos.to_move == BLACK:
        forbidden = lambda x, y: maybe_renju_foul(pos, x, y)  # noqa: E731
    moves = ranked_moves(pos, rule, limit=30)
    for m in moves:
        if forbidden is None or not forbidden(*m):
            return m
    for y in range(pos.height):
        for x in range(pos.width):
            if pos.cell(x, y) == EMPTY and (forbidden is None or not forbidden(x, y)):
                return (x, y)
    return moves[0] if moves else None
