"""The hand-made positions of the sanity battery (`engine.match.sanity`), for any game.

Each check asks the net one question a person can check by eye, so the position must be one
where the right answers are beyond doubt on every board size, win length and seat count a net
may claim. The positions are therefore built, never typed in: the threat lines near the centre,
the few spare stones each side needs to have its share placed where they form no line, and the
cells that pass are worked out on the position by the same win test the search uses
(`engine.game.cells`). The opening's passing cells are the central region (`central_region`).

numpy and numba only: the battery's callers (the manifest's checks, the brain side) need no torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..game.rules import Rule
from ..game.cells import direction_steps, flat_to_padded, is_legal, new_cells, winning_cells, wins_at


class SanityError(ValueError):
    """A battery that cannot be run (no such net, a game it cannot describe); one line."""


# ----------------------------------------------------------------------------- the region

def central_region(width: int, height: int) -> list[tuple[int, int]]:
    """The cells an opening move may take: within a sixth of the side of the centre along each
    axis (the middle third: 5x5 cells on 15x15, 7x7 on 19x19), and never fewer than the middle
    3 (odd sides) or 4 (even sides) lines, so that on 5x5 and 6x6 it is every cell off the edge
    and on 8x8 the middle 4x4."""
    def band(n: int) -> list[int]:
        c, r = (n - 1) / 2, max(n / 6, 1.5)
        return [i for i in range(n) if abs(i - c) <= r + 1e-9]
    xs, ys = band(width), band(height)
    return [(x, y) for y in ys for x in xs]


def describe_region(width: int, height: int) -> str:
    cells = central_region(width, height)
    xs = sorted({x for x, _ in cells})
    ys = sorted({y for _, y in cells})
    return (f"the central {len(xs)}x{len(ys)} ({cell_name(xs[0], ys[0])}-{cell_name(xs[-1], ys[-1])}: "
            f"x {xs[0]}..{xs[-1]}, y {ys[0]}..{ys[-1]})")


def cell_name(x: int, y: int) -> str:
    """'h8' for (7, 7), as `gomoku play` names cells."""
    return f"{chr(ord('a') + x) if x < 26 else '?'}{y + 1}"


def describe_cell(cell: Optional[tuple[int, int]]) -> str:
    return "-" if cell is None else f"{cell_name(*cell)} ({cell[0]},{cell[1]})"


# ----------------------------------------------------------------------------- positions

class Grid:
    """A position on the search's own padded board (`engine.game.cells`), for working out which
    cells win, which are legal and which answer a threat, under any rule, length and seat count."""

    def __init__(self, width: int, height: int, players: int, win_length: int, rule: Rule) -> None:
        self.width, self.height, self.players, self.k, self.rule = width, height, players, win_length, Rule(rule)
        self.cells = new_cells(width, height, players)
        self.pad = flat_to_padded(width, height)
        self.steps = direction_steps(width)
        self._board = self.pad
        self._out = np.zeros(width * height, dtype=np.int64)
        # padded index -> (x, y), built once: the position checks ask for winning cells tens of
        # thousands of times per batch, and rebuilding this map each time was most of their cost
        self._cell_of = {int(p): (i % width, i // width) for i, p in enumerate(self.pad)}

    def _idx(self, x: int, y: int) -> np.int64:
        return np.int64(self.pad[y * self.width + x])

    def seat_at(self, x: int, y: int) -> Optional[int]:
        v = int(self.cells[self._idx(x, y)])
        return None if v == 0 else v - 1

    def empty(self) -> list[tuple[int, int]]:
        return [(x, y) for y in range(self.height) for x in range(self.width) if self.seat_at(x, y) is None]

    def put(self, x: int, y: int, seat: int) -> None:
        self.cells[self._idx(x, y)] = seat + 1

    def clear(self, x: int, y: int) -> None:
        self.cells[self._idx(x, y)] = 0

    def legal(self, x: int, y: int, seat: int) -> bool:
        return bool(is_legal(self.cells, self.steps, self._idx(x, y), np.int64(seat + 1), np.int64(int(self.rule))))

    def wins(self, x: int, y: int, seat: int) -> bool:
        """Would `seat`'s stone on the empty cell (x, y) win at once?"""
        idx = self._idx(x, y)
        self.cells[idx] = seat + 1
        try:
            return bool(wins_at(self.cells, self.steps, idx, np.int64(seat + 1), np.int64(self.k),
                                np.int64(int(self.rule)), np.int64(self.players)))
        finally:
            self.cells[idx] = 0

    def winning_cells(self, seat: int) -> list[tuple[int, int]]:
        """The empty cells where `seat` would win at once (the search's own jitted scan)."""
        n = winning_cells(self.cells, self.steps, self._board, np.int64(seat + 1), np.int64(self.k),
                          np.int64(int(self.rule)), np.int64(self.players), self._out)
        return sorted((self._cell_of[int(i)] for i in self._out[:n]), key=lambda c: (c[1], c[0]))


@dataclass
class Position:
    """One question: the moves that reach it (seats in turn from seat 0), the seat to move, and
    the cells whose choice passes."""
    check: str
    width: int
    height: int
    rule: Rule
    players: int
    win_length: int
    moves: list[tuple[int, int]]
    acceptable: set[tuple[int, int]]
    what: str                       # the position in words, for the reason line

    @property
    def mover(self) -> int:
        return len(self.moves) % self.players

    def grid(self) -> Grid:
        g = Grid(self.width, self.height, self.players, self.win_length, self.rule)
        for i, (x, y) in enumerate(self.moves):
            g.put(x, y, i % self.players)
        return g


def _interleave(stones: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """Play order for equal shares of every seat: seat 0, 1, ..., each seat's stones in the
    order given (the threat last, as a game would reach it), seat 0 to move after."""
    n = len(stones[0])
    assert all(len(s) == n for s in stones), "every seat needs the same number of stones"
    return [stones[seat][i] for i in range(n) for seat in range(len(stones))]


def _spares(grid: Grid, seat: int, count: int, keep_clear: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """`count` stones for `seat` that take part in no line: no two of the seat's stones on one
    row, column or diagonal less than k cells apart (so no move joins them into a threat), none
    in `keep_clear` (the threat's lines and their ends), nearest the centre first and clear of
    every other stone where the board allows. Placed on `grid`."""
    cx, cy = (grid.width - 1) / 2, (grid.height - 1) / 2
    out: list[tuple[int, int]] = []

    def lined_up(x: int, y: int) -> bool:
        for oy in range(grid.height):
            for ox in range(grid.width):
                if grid.seat_at(ox, oy) != seat:
                    continue
                dx, dy = abs(ox - x), abs(oy - y)
                if (dx == 0 or dy == 0 or dx == dy) and max(dx, dy) < grid.k:
                    return True
        return False

    for strict in (True, False):
        for x, y in sorted(grid.empty(), key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c[1], c[0])):
            if len(out) == count:
                return out
            if (x, y) in keep_clear or grid.seat_at(x, y) is not None or lined_up(x, y):
                continue
            near = [grid.seat_at(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                    if (dx or dy) and 0 <= x + dx < grid.width and 0 <= y + dy < grid.height]
            if strict and any(s is not None for s in near):
                continue
            grid.put(x, y, seat)
            out.append((x, y))
    if len(out) == count:
        return out
    if len(out) < count:
        raise SanityError(f"no room on {grid.width}x{grid.height} for {count} spare stones of seat {seat + 1}")
    return out


def _layout(width: int, height: int, k: int) -> tuple[int, int, int]:
    """(s, ya, yb): the threat lines run over columns s..s+k (k+1 cells, centred) of rows ya and
    yb, two rows apart around the centre row."""
    s = (width - (k + 1)) // 2
    ya = (height - 1) // 2 - 1
    return s, ya, ya + 2


def room_problem(width: int, height: int, k: int) -> Optional[str]:
    """Why the threat lines do not fit on the board (None: they do), so that a check the board
    has no room for is skipped with a reason instead of built wrong."""
    if width < k + 1 or height < 4:
        return f"{width}x{height} has no room for {k} in a row with an end to spare on two rows"
    return None


def opening_position(width: int, height: int, rule: Rule, players: int, k: int) -> Position:
    return Position("opening", width, height, Rule(rule), players, k, [], set(central_region(width, height)),
                    "the empty board")


def win_position(width: int, height: int, rule: Rule, players: int, k: int) -> Position:
    """The mover (seat 0) has k-1 in a row, closed at one end, its winning cell open; the next
    seat has k-1 in a row too, closed at one end by the mover, with its winning cell open."""
    s, ya, yb = _layout(width, height, k)
    g = Grid(width, height, players, k, rule)
    own = [(x, ya) for x in range(s + 1, s + k)]
    own_block = [(s + k, yb)]
    nxt = [(x, yb) for x in range(s + 1, s + k)]
    nxt_block = [(s, ya)]
    for c in own + own_block:
        g.put(*c, 0)
    for c in nxt + nxt_block:
        g.put(*c, 1)
    keep = {(x, y) for y in (ya, yb) for x in range(width)}
    shares = [own_block + own, nxt_block + nxt]
    shares += [_spares(g, seat, k, keep) for seat in range(2, players)]
    moves = _interleave(shares)
    win = set(g.winning_cells(0))
    threat = g.winning_cells(1)
    assert win and threat, (win, threat)
    return Position("answer-win", width, height, Rule(rule), players, k, moves, win,
                    f"its own {k - 1} in a row wins at {', '.join(describe_cell(c) for c in sorted(win))} "
                    f"while the next player threatens {describe_cell(threat[0])}")


def block_position(width: int, height: int, rule: Rule, players: int, k: int) -> Position:
    """The next seat has k-1 in a row, closed at one end, one winning cell; the mover has k-2
    in a row of its own (an open three in five in a row) that a careless net would extend."""
    s, ya, yb = _layout(width, height, k)
    g = Grid(width, height, players, k, rule)
    nxt = [(x, yb) for x in range(s + 1, s + k)]
    block = [(s + k, yb)]
    own = [(x, ya) for x in range(s + 1, s + k - 1)]
    for c in own + block:
        g.put(*c, 0)
    for c in nxt:
        g.put(*c, 1)
    keep = {(x, y) for y in (ya, yb) for x in range(width)}
    shares = [block + own, nxt]
    shares += [_spares(g, seat, k - 1, keep) for seat in range(2, players)]
    moves = _interleave(shares)
    threat = g.winning_cells(1)
    assert len(threat) == 1 and not g.winning_cells(0), threat
    ok = _passing_cells(g, lambda grid: not grid.winning_cells(1))
    return Position("block-four", width, height, Rule(rule), players, k, moves, ok,
                    f"the next player's {k - 1} in a row wins at {describe_cell(threat[0])}")


def _passing_cells(g: Grid, holds: Callable[[Grid], bool]) -> set[tuple[int, int]]:
    """The mover's (seat 0) legal cells that win at once, or after which `holds` is true of the
    position: the answers a check accepts, worked out on the position itself."""
    ok = set()
    for x, y in g.empty():
        if not g.legal(x, y, 0):
            continue
        if g.wins(x, y, 0):
            ok.add((x, y))
            continue
        g.put(x, y, 0)
        if holds(g):
            ok.add((x, y))
        g.clear(x, y)
    return ok


def three_position(width: int, height: int, rule: Rule, players: int, k: int) -> Position:
    """The opponent (seat 1) has k-2 in a row, open at both ends with room to become an open
    k-1 (two winning cells, no defence); the mover's stones form no line."""
    s, ya, yb = _layout(width, height, k)
    g = Grid(width, height, players, k, rule)
    opp = [(x, yb) for x in range(s + 1, s + k - 1)]
    for c in opp:
        g.put(*c, 1)
    keep = {(x, yb) for x in range(width)} | {(x, yb + d) for x in range(s - 1, s + k + 2) for d in (-1, 1)}
    shares = [_spares(g, 0, len(opp), keep), opp]
    moves = _interleave(shares)
    assert not g.winning_cells(0) and not g.winning_cells(1)

    def opponent_double(grid: Grid) -> Optional[tuple[int, int]]:
        """An opponent reply after which it has two winning cells, if any."""
        for x, y in grid.empty():
            grid.put(x, y, 1)
            n = len(grid.winning_cells(1))
            grid.clear(x, y)
            if n >= 2:
                return x, y
        return None

    threat = opponent_double(g)
    assert threat is not None
    ok = _passing_cells(g, lambda grid: bool(grid.winning_cells(0)) or opponent_double(grid) is None)
    three = "three" if k == 5 else f"{k - 2}"
    return Position("answer-three", width, height, Rule(rule), players, k, moves, ok,
                    f"the opponent's open {three} {describe_cell(opp[0])}-{describe_cell(opp[-1])} "
                    f"(it becomes unstoppable at {describe_cell(threat)})")


BUILDERS: dict[str, Callable[..., Position]] = {
    "opening": opening_position, "answer-win": win_position, "block-four": block_position,
    "answer-three": three_position}


__all__ = ["SanityError", "central_region", "describe_region", "cell_name", "describe_cell", "Grid",
           "Position", "room_problem", "opening_position", "win_position", "block_position",
           "three_position", "BUILDERS"]
