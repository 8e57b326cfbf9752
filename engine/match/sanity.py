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

The positions are built for any board size and win length, and the cells that pass worked out
on them, in `engine.match.sanity_positions`; this module plays them and gives the verdicts.
The move judged is the one the net's own MCTS player plays (`engine.match.players.make_engine_player`,
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
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..game.rules import Rule, parse_rule
from ..mcts.search import MCTSConfig
from .sanity_positions import (BUILDERS, Grid, Position, SanityError, block_position, cell_name, central_region,
                               describe_cell, describe_region, opening_position, room_problem, three_position,
                               win_position)

if TYPE_CHECKING:   # the boards pull in numba, which only a battery that runs needs
    from ..game.seats import PlayerBoard


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
    b: PlayerBoard
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
    from ..base.limits import Limit
    from .players import make_engine_player
    player = make_engine_player(f"{path}:playouts={playouts},seed={seed}", win_length=pos.win_length, players=pos.players)
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
        return room_problem(size, size, k)
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


__all__ = ["BATTERY_VERSION", "CHECKS", "PLAYOUTS", "DEFAULT_PLAYOUTS", "SEED", "PASS", "FAIL", "SKIP",
           "CheckResult", "SanityReport", "SanityError", "central_region", "describe_region", "cell_name",
           "describe_cell", "run_battery", "run_check", "battery_games", "judge", "skip_reason",
           "policy_top", "player_move", "parse_cell", "result_from_record", "BUILDERS", "Position", "Grid",
           "opening_position", "win_position", "block_position", "three_position"]
