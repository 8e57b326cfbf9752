"""The sanity battery a net passes before it ships (`gomoku ship`, `gomoku ship --check NAME`).

A net can win its strength figures from the positions those matches start from and still play
nonsense a user meets at once: the first shipped 15x15 net had only ever seen games that began
from openings, and on the empty board it played b2. The battery asks the net, on its own game
(rule, board size, win length and players from its metadata), four questions a person can
check by eye:

opening       the first move on the empty board lies in the central region (`central_region`):
              the player's move at PLAYOUTS and at the player's default playouts (what
              `gomoku play --opponent FILE.onnx` searches), and the raw policy's top cell
answer-win    the mover has k-1 in a row with the winning cell open while the next player also
              has k-1 (a win for them next move): the mover must win now
block-four    the next player has k-1 in a row with one winning cell, the mover has an open
              k-2 of its own to tempt it: the mover must block that cell
answer-three  the opponent has an open k-2 (an open three in five in a row, an open two in four
              in a row): the mover must answer it, with a move after which no reply of the
              opponent makes two winning cells, or with a move that makes a winning threat of
              its own (its own four). Two-player games only: with three or more players the
              seats after the mover get their moves before the threat can win, so leaving it is
              no mistake (the check says "skip" and why)

The positions are built for any board size and win length (stones near the centre, the few
spare stones each side needs to have its share placed where they form no line), and the cells
that pass are worked out on the position by the same win test the search uses, never typed in.
The move judged is the one the net's own MCTS player plays (`engine.match.players.make_player`,
the player `gomoku play --opponent FILE.onnx` and `gomoku match FILE.onnx` make, with its
default settings and a fixed seed, so the battery gives the same moves run after run); the raw
policy's top cell is reported beside it (and is judged as well for the opening). For two-player
five in a row that player asks the classical VCF/VCT solvers first, which find the win and see
the four as the user's player does.

numpy, numba and onnxruntime only (no torch): the manifest's checks and the brain side can run it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..game.rules import Rule, parse_rule
from ..game.cells import direction_steps, flat_to_padded, is_legal, new_cells, winning_cells, wins_at
from ..mcts.search import MCTSConfig

#: bump when a position, a pass rule or a playout count changes: records of older batteries
#: then say which battery they came from
BATTERY_VERSION = 1
#: the small fixed search every check is played at
PLAYOUTS = 200
#: the opening is also played at the default search of a FILE.onnx player (what `gomoku play
#: --opponent FILE.onnx` and the brain's --net search when no clock runs short)
DEFAULT_PLAYOUTS = MCTSConfig.playouts
SEED = 0
CHECKS = ("opening", "answer-win", "block-four", "answer-three")
PASS, FAIL, SKIP = "pass", "fail", "skip"


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
        back = {int(p): i for i, p in enumerate(self.pad)}
        return sorted(((back[int(i)] % self.width, back[int(i)] // self.width) for i in self._out[:n]),
                      key=lambda c: (c[1], c[0]))

    def run_length(self, x: int, y: int, seat: int) -> int:
        """The longest line of `seat`'s stones through (x, y) (which holds one)."""
        best = 1
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                i = 1
                while True:
                    cx, cy = x + sign * i * dx, y + sign * i * dy
                    if not (0 <= cx < self.width and 0 <= cy < self.height) or self.seat_at(cx, cy) != seat:
                        break
                    n += 1
                    i += 1
            best = max(best, n)
        return best


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


def _fits(width: int, height: int, k: int) -> Optional[str]:
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
    ok = set()
    for x, y in g.empty():
        if not g.legal(x, y, 0):
            continue
        if g.wins(x, y, 0):
            ok.add((x, y))
            continue
        g.put(x, y, 0)
        if not g.winning_cells(1):
            ok.add((x, y))
        g.clear(x, y)
    return Position("block-four", width, height, Rule(rule), players, k, moves, ok,
                    f"the next player's {k - 1} in a row wins at {describe_cell(threat[0])}")


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
    ok = set()
    for x, y in g.empty():
        if not g.legal(x, y, 0):
            continue
        if g.wins(x, y, 0):
            ok.add((x, y))
            continue
        g.put(x, y, 0)
        if g.winning_cells(0) or opponent_double(g) is None:
            ok.add((x, y))
        g.clear(x, y)
    three = "three" if k == 5 else f"{k - 2}"
    return Position("answer-three", width, height, Rule(rule), players, k, moves, ok,
                    f"the opponent's open {three} {describe_cell(opp[0])}-{describe_cell(opp[-1])} "
                    f"(it becomes unstoppable at {describe_cell(threat)})")


BUILDERS: dict[str, Callable[..., Position]] = {
    "opening": opening_position, "answer-win": win_position, "block-four": block_position,
    "answer-three": three_position}


# ----------------------------------------------------------------------------- results

@dataclass
class CheckResult:
    """One check on one game: pass, fail or skip, the move the player made, the policy's top
    cell, and a line that says why."""
    check: str
    rule: str
    size: int
    status: str
    reason: str
    move: Optional[tuple[int, int]] = None
    policy: Optional[tuple[int, int]] = None
    moves: dict[str, Optional[tuple[int, int]]] = field(default_factory=dict)   # playouts -> move

    @property
    def passed(self) -> bool:
        return self.status != FAIL

    def label(self) -> str:
        return f"{self.check} ({self.rule}, {self.size}x{self.size})"

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "rule": self.rule, "size": self.size, "status": self.status,
                               "reason": self.reason}
        if self.move is not None:
            out["move"] = describe_cell(self.move)
        if self.policy is not None:
            out["policy"] = describe_cell(self.policy)
        if len(self.moves) > 1:
            out["moves"] = {n: describe_cell(m) for n, m in self.moves.items()}
        return out


@dataclass
class SanityReport:
    net: str
    results: list[CheckResult]
    playouts: int = PLAYOUTS
    seed: int = SEED

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if not r.passed]

    def summary(self) -> str:
        """One line: 'passed 9 checks (1 skipped)' or the first failure and how many failed."""
        if self.passed:
            skipped = sum(r.status == SKIP for r in self.results)
            done = len(self.results) - skipped
            return f"passed all {done} checks" + (f" ({skipped} skipped)" if skipped else "")
        bad = self.failed
        more = f" (and {len(bad) - 1} more: {', '.join(r.label() for r in bad[1:])})" if len(bad) > 1 else ""
        return f"fails {bad[0].label()}: {bad[0].reason}{more}"

    def to_record(self, **extra: Any) -> dict[str, Any]:
        """What the manifest keeps: the battery's version and settings, the verdict and each check."""
        return {"battery": BATTERY_VERSION, "playouts": [self.playouts, DEFAULT_PLAYOUTS], "seed": self.seed,
                "passed": self.passed, "checks": [r.to_record() for r in self.results], **extra}


# ----------------------------------------------------------------------------- the battery

def _board(pos: Position):
    """The board a player is handed: the two-player Board (whose fouls and solvers the player
    uses) or the seats' NBoard."""
    if pos.players == 2:
        from ..game.board import Board
        b = Board(pos.width, pos.height, pos.rule)
    else:
        from ..game.nboard import NBoard
        b = NBoard(pos.width, pos.height, pos.players, pos.win_length, pos.rule)
    for x, y in pos.moves:
        b.play(x, y)
    return b


def policy_top(evaluator, pos: Position) -> tuple[int, int]:
    """The raw policy's most likely legal cell for the mover."""
    from ..net.planes import fill_planes, plane_count
    w, h, p = pos.width, pos.height, pos.players
    flat = np.zeros(w * h, dtype=np.int8)
    for i, (x, y) in enumerate(pos.moves):
        flat[y * w + x] = 1 + i % p
    cell = lambda m: m[1] * w + m[0]  # noqa: E731
    last1 = cell(pos.moves[-1]) if pos.moves else -1
    last2 = cell(pos.moves[-2]) if len(pos.moves) > 1 else -1
    planes = np.zeros((1, plane_count(p), h, w), dtype=np.float32)
    fill_planes(flat, np.int64(w), np.int64(h), np.int64(p), np.int64(pos.mover), np.int64(last1),
                np.int64(last2), planes[0])
    logits, _ = evaluator.evaluate(planes)
    scores = np.asarray(logits[0], dtype=np.float64).reshape(-1).copy()
    grid = pos.grid()
    for i in range(w * h):
        x, y = i % w, i // w
        if flat[i] or not grid.legal(x, y, pos.mover):
            scores[i] = -np.inf
    best = int(np.argmax(scores))
    return best % w, best // w


def player_move(path: str, pos: Position, playouts: int, seed: int = SEED) -> tuple[int, int]:
    """The move the net's MCTS player makes: the player `gomoku play --opponent FILE.onnx` makes,
    at `playouts`, seeded, no clock."""
    from ..limits import Limit
    from .players import make_player
    player = make_player(f"{path}:playouts={playouts},seed={seed}", win_length=pos.win_length, players=pos.players)
    try:
        player.new_game(pos.width, pos.height, pos.rule)
        res = player.play(_board(pos), Limit(playouts=playouts))
    finally:
        player.close()
    if res.move is None:
        raise SanityError(f"{path}: the player returned no move on {pos.what}")
    return int(res.move[0]), int(res.move[1])


def skip_reason(check: str, size: int, players: int, k: int) -> Optional[str]:
    """Why `check` is not asked of this game (None: it is)."""
    if check == "answer-three" and players != 2:
        return (f"not asked of a {players}-player net: the {players - 1} seats after the mover each "
                "move before an open three can win, so leaving it to them is no mistake")
    if check != "opening":
        return _fits(size, size, k)
    return None


def judge(pos: Position, moves: dict[str, tuple[int, int]], top: tuple[int, int]) -> CheckResult:
    """The verdict on one position: `moves` the player's move by playout count (the first is
    the one reported), `top` the raw policy's top cell. Every move must be in
    `pos.acceptable`; for the opening the policy's top cell must be too."""
    label, size = pos.rule.label, pos.width
    first = next(iter(moves.values()))
    if pos.check == "opening":
        region = describe_region(pos.width, pos.height)
        off = [(n, m) for n, m in moves.items() if m not in pos.acceptable]
        played = ", ".join(f"{describe_cell(m)} at {n} playouts" for n, m in moves.items())
        if off:
            n, m = off[0]
            return CheckResult(pos.check, label, size, FAIL,
                               f"first move {describe_cell(m)} at {n} playouts lies outside {region} "
                               f"(played {played}; the policy's top cell is {describe_cell(top)})",
                               move=m, policy=top, moves=dict(moves))
        if top not in pos.acceptable:
            return CheckResult(pos.check, label, size, FAIL,
                               f"the policy's top cell on the empty board, {describe_cell(top)}, lies outside "
                               f"{region} (the search played {played})", move=first, policy=top,
                               moves=dict(moves))
        return CheckResult(pos.check, label, size, PASS,
                           f"played {played}, policy top {describe_cell(top)}: all in {region}",
                           move=first, policy=top, moves=dict(moves))
    policy_note = f"policy top {describe_cell(top)}{'' if top in pos.acceptable else ' (not an answer)'}"
    bad = [(n, m) for n, m in moves.items() if m not in pos.acceptable]
    if not bad:
        return CheckResult(pos.check, label, size, PASS, f"{describe_cell(first)} on {pos.what}; {policy_note}",
                           move=first, policy=top, moves=dict(moves))
    good = ", ".join(describe_cell(c) for c in sorted(pos.acceptable, key=lambda c: (c[1], c[0]))[:4])
    if len(pos.acceptable) > 4:
        good += f" and {len(pos.acceptable) - 4} more"
    n, m = bad[0]
    return CheckResult(pos.check, label, size, FAIL,
                       f"played {describe_cell(m)} at {n} playouts on {pos.what}; passing moves: "
                       f"{good or 'none'}; {policy_note}", move=m, policy=top, moves=dict(moves))


def run_check(path: str, evaluator, check: str, size: int, rule: Rule, players: int, k: int,
              playouts: int = PLAYOUTS, seed: int = SEED) -> CheckResult:
    """One check of the net at `path` (loaded as `evaluator` for its raw policy) on one game."""
    why = skip_reason(check, size, players, k)
    if why:
        return CheckResult(check, Rule(rule).label, size, SKIP, why)
    pos = BUILDERS[check](size, size, rule, players, k)
    counts = sorted({playouts, DEFAULT_PLAYOUTS}) if check == "opening" else [playouts]
    moves = {str(n): player_move(path, pos, n, seed) for n in counts}
    return judge(pos, moves, policy_top(evaluator, pos))


def battery_games(info) -> list[tuple[Rule, int]]:
    """The games a net is checked on: every rule it claims, on the smallest and the largest
    board size it claims."""
    sizes = sorted({min(info.board_sizes), max(info.board_sizes)})
    return [(parse_rule(r), n) for r in info.rules for n in sizes]


def run_battery(path: str | os.PathLike, playouts: int = PLAYOUTS, seed: int = SEED,
                checks: Sequence[str] = CHECKS) -> SanityReport:
    """Every check on every game the net claims (`battery_games`). SanityError (one line) for a
    file that is not a usable net."""
    from ..net.evaluator import NetEvaluator
    from ..net.metadata import NetFormatError
    path = str(path)
    if not os.path.isfile(path):
        raise SanityError(f"{path}: no such net file")
    try:
        evaluator = NetEvaluator.load(path)
    except NetFormatError as exc:
        raise SanityError(str(exc)) from None
    info = evaluator.info
    results = []
    for rule, size in battery_games(info):
        for check in checks:
            results.append(run_check(path, evaluator, check, size, rule, info.players, info.win_length,
                                     playouts, seed))
    return SanityReport(path, results, playouts, seed)


def parse_cell(text: Optional[str]) -> Optional[tuple[int, int]]:
    """'b2 (1,1)' (a record's move) -> (1, 1); None for None or '-'."""
    if text is None or text == "-":
        return None
    inner = text[text.index("(") + 1:text.index(")")]
    x, y = (int(v) for v in inner.split(","))
    return x, y


def result_from_record(record: dict[str, Any]) -> CheckResult:
    """A manifest check record back as a CheckResult (for tables and comparisons)."""
    return CheckResult(record["check"], record["rule"], int(record["size"]), record["status"], record["reason"],
                       parse_cell(record.get("move")), parse_cell(record.get("policy")),
                       {n: parse_cell(m) for n, m in record.get("moves", {}).items()})


__all__ = ["BATTERY_VERSION", "CHECKS", "PLAYOUTS", "DEFAULT_PLAYOUTS", "SEED", "CheckResult", "SanityReport",
           "SanityError", "central_region", "run_battery", "run_check", "battery_games", "Position", "Grid",
           "opening_position", "win_position", "block_position", "three_position"]
