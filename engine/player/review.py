"""A game review: the engine's opinion of every move of a recorded game.

Each position of the game is searched once, by the classical engine (engine.player.agent.think, its
root threat probes included) at one budget, and judged from the side to move's view as a
winning chance: the search's score through the logistic the evaluation's tables were fitted
with (`CHANCE_SCALE` units a logit), 1 for a proven win, 0 for a proven loss. A move is then
what it did to its player's chance: the chance before it (its position's) against the chance
after it (one less the next position's, which is the opponent's), the difference its `drop`,
marked `?!` / `?` / `??` past `MARKS`' thresholds. Searching each position once and reading
both sides of a move off neighbouring positions costs N + 1 searches for N moves, and the
positions are independent, so they spread over worker processes (`review_game`).

Some positions need no search, and a search there would only add noise: a position where the
side to move makes five at once (won, and a move elsewhere "misses the win in one"), one where
the opponent threatens two fives (lost), one where the only move blocks the opponent's five
(worth what the position after the block is worth), and the end of the game (a five, a renju
foul, a full board).

The first move that turned its player's game from not lost into lost for good (their chance at
or below `LOST` at every later turn) is the game's losing move; with the `??` and `?` moves and
the first position of each forced win the solvers proved (VCF or VCT, with the line), it makes
the turning points. `review_json` and `sgf_annotations` give the same review to programs and
to SGF viewers; the terminal's table and the plot are the CLI's (tools.review_view).
"""
from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np

from gomoku.engine.game.board import BLACK, EMPTY, WHITE, Board, IllegalMove
from gomoku.engine.game.core import C_FIVE
from gomoku.engine.game import notation
from gomoku.engine.game.gamerecord import RESULT_BLACK, RESULT_WHITE, GameRecord, Move
from gomoku.engine.game.rules import Rule
from gomoku.engine.game.sgf import sgf_point
from gomoku.engine.base.limits import Limit

Score = Union[int, str, None]

#: evaluation units a logit of the winning chance: the logistic scale the classical tables were
#: fitted to game results with (Texel's K, ~1000; the learned evaluator's default is the same)
CHANCE_SCALE = 1000.0
#: (least drop of the mover's winning chance, mark), worst first
MARKS = ((0.30, "??"), (0.15, "?"), (0.08, "?!"))
#: a chance at or below this is a lost game (above 1 - LOST a won one)
LOST = 0.15
#: the default budget: nodes a position (deterministic, so a review reads the same every time).
#: A 60-move 15x15 game takes about a minute with it on 2 shared cores (docs/analyze.md)
DEFAULT_NODES = 400_000
#: moves of a proof line or best line kept in the review (a VCF rarely needs more)
LINE_MOVES = 15

COLOUR = {BLACK: "black", WHITE: "white"}


def win_chance(score: Score) -> float:
    """The side to move's winning chance for a search score: 'win' 1, 'loss' 0, eval units
    through the logistic of CHANCE_SCALE."""
    if score == "win":
        return 1.0
    if score == "loss":
        return 0.0
    z = float(score or 0) / CHANCE_SCALE
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def move_name(move: Optional[Move]) -> str:
    """`h8` for (7, 7) (engine.game.notation), '-' for no move."""
    return "-" if move is None else notation.move_name(*move)


def line_text(line: list[Move]) -> str:
    return " ".join(move_name(m) for m in line)


# ----------------------------------------------------------------------------- one position

@dataclass
class Position:
    """One position of the game, as the side to move sees it.

    `how`: 'search' (the engine searched it), 'five' (the side to move makes five at once),
    'block' (its only move blocks a five; worth what the next position is), 'lost' (two fives
    to block), 'end' (the game is over: five, foul or full board), 'skipped' (not reached:
    the review was interrupted). `proof` is 'vcf' or 'vct' when a threat solver proved the
    side to move's win, and `pv` the line it proved (or the search's best line)."""
    index: int                        # moves played before it
    to_move: int
    how: str = "skipped"
    chance: Optional[float] = None
    score: Score = None
    best: Optional[Move] = None
    pv: list[Move] = field(default_factory=list)
    proof: str = ""
    fives: list[Move] = field(default_factory=list)     # the side to move's winning points
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class PositionJob:
    """What a worker needs to search one position (picklable for the process pool)."""
    index: int
    width: int
    height: int
    rule: int
    moves: tuple[Move, ...]
    limit: Limit


@dataclass
class Searched:
    """A worker's answer for one position: the side to move's view, as Position holds it."""
    index: int
    best: Optional[Move]
    score: Score
    pv: list[Move]
    proof: str
    depth: int
    nodes: int
    seconds: float


_SEARCHER: Any = None


def search_position(job: PositionJob) -> Searched:
    """Search one position with this process's searcher (made on first use): the pool's task."""
    global _SEARCHER
    from gomoku.engine.player.agent import new_searcher, think
    if _SEARCHER is None:
        _SEARCHER = new_searcher()
    board = Board.from_moves(job.width, job.moves, rule=Rule(job.rule), height=job.height)
    t0 = time.perf_counter()
    # forced blocks are played out first: the search answers a position with one sensible move
    # at once, with no score, so the position is worth what the one after the block is worth
    line: list[Move] = []
    kind = ""
    cells: list[Move] = []
    while not board.game_over:
        kind, cells = forced(board)
        if kind != "block":
            break
        line.append(cells[0])
        board.play(*cells[0])
        kind, cells = "", []
    if board.game_over or kind in ("five", "lost"):
        score: Score
        if board.game_over:
            score = "loss" if board.winner else 0      # the last block made five, or filled the board
        else:
            score = "win" if kind == "five" else "loss"
        best = line[0] if line else (cells[0] if cells else None)
        tail = cells[:1] if kind == "five" else []
        return Searched(job.index, best, _negate(score) if len(line) % 2 else score, (line + tail)[:LINE_MOVES],
                        "", 0, 0, time.perf_counter() - t0)
    res = think(board, job.limit, searcher=_SEARCHER)
    info = res.info
    score = info.get("score", 0)
    pv = line + list(info.get("pv", []))
    proof = str(info.get("proof", "") or "") if not line else ""
    return Searched(job.index, line[0] if line else res.move, _negate(score) if len(line) % 2 else score,
                    pv[:LINE_MOVES], proof, int(info.get("depth", 0) or 0), int(info.get("nodes", 0) or 0),
                    time.perf_counter() - t0)


def _worker_init() -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the parent's to handle


# ----------------------------------------------------------------------------- one move

@dataclass
class MoveReview:
    """One move: who played what, what the engine preferred, and what it cost the mover."""
    number: int                       # 1-based
    colour: int
    move: Move
    best: Optional[Move]
    before: Optional[float]           # the mover's winning chance before the move
    after: Optional[float]            # ... and after it
    score_before: Score
    score_after: Score                # from the mover's view
    mark: str = ""
    notes: list[str] = field(default_factory=list)
    foul: str = ""                    # renju: 'double-three', 'double-four', 'overline'
    proof: str = ""                   # the mover had a proven forced win before the move ('vcf'/'vct'/'five')
    proof_line: list[Move] = field(default_factory=list)
    best_line: list[Move] = field(default_factory=list)

    @property
    def drop(self) -> Optional[float]:
        if self.before is None or self.after is None:
            return None
        return max(0.0, self.before - self.after)

    @property
    def side(self) -> str:
        return COLOUR[self.colour]


@dataclass
class TurningPoint:
    number: int
    text: str


@dataclass
class GameReview:
    """The review of one game: a position per move from `first` on, a review per move."""
    record: GameRecord
    limit: Limit
    first: int                        # the first reviewed move (1-based)
    positions: list[Position]         # positions[i] is the position before move first + i
    moves: list[MoveReview] = field(default_factory=list)
    turning_points: list[TurningPoint] = field(default_factory=list)
    losing_move: Optional[int] = None
    loser: Optional[int] = None       # BLACK or WHITE: by the result, else by the last position
    ignored_moves: int = 0            # moves the record has after the game ended
    end: str = ""                     # how the reviewed game ended: five, foul, full or ''
    interrupted: bool = False
    workers: int = 1
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return all(p.chance is not None for p in self.positions)

    @property
    def searched(self) -> int:
        """Positions the engine searched (after Ctrl-C: those it finished)."""
        return sum(1 for p in self.positions if p.how == "search" and p.chance is not None)

    def black_chance(self) -> list[tuple[int, Optional[float]]]:
        """(moves played, black's winning chance) for every reviewed position: the plot's curve."""
        out = []
        for p in self.positions:
            c = p.chance
            out.append((p.index, None if c is None else (c if p.to_move == BLACK else 1.0 - c)))
        return out


# ----------------------------------------------------------------------------- the review

def replay(rec: GameRecord) -> tuple[list[Move], str, int, list[str]]:
    """The moves of `rec` up to where its game ended under its rule, how it ended ('five',
    'foul', 'full' or ''), how many moves the record has past that end, and each reviewed
    move's renju foul ('' for none). ValueError (one line) for a move no board takes."""
    board = Board(rec.width, rec.height, rule=rec.rule)
    fouls: list[str] = []
    moves: list[Move] = []
    end = ""
    for i, (x, y) in enumerate(rec.moves):
        foul = board.foul_kind(x, y) if board.to_move == BLACK else None
        try:
            board.play(x, y)
        except IllegalMove as exc:
            raise ValueError(f"move {i + 1} ({move_name((x, y))}): {exc}") from None
        moves.append((x, y))
        fouls.append(foul or "")
        if foul:
            end = "foul"
        elif board.winner:
            end = "five"
        elif board.is_full():
            end = "full"
        if end:
            break
    return moves, end, len(rec.moves) - len(moves), fouls


def _fives(board: Board, colour: int) -> list[Move]:
    """The points where `colour` makes five at once (a renju foul is none for black): the
    core's own class of each empty cell, as the engine's static move reads it."""
    st = board.state
    cells = np.flatnonzero((st.cells == EMPTY) & (st.cls[colour - 1] == C_FIVE))
    out = [board.coords(int(i)) for i in cells]
    if colour == BLACK and board.rule == Rule.RENJU:
        out = [m for m in out if not board.is_forbidden(*m)]
    return out


def forced(board: Board) -> tuple[str, list[Move]]:
    """What the side to move must do, without a search: ('five', its winning points), ('lost',
    the blocks it has: the opponent threatens two fives, or a five only a renju foul would
    block), ('block', [the one block]) or ('', [])."""
    me = board.to_move
    fives = _fives(board, me)
    if fives:
        return "five", fives
    threats = _fives(board, 3 - me)
    if not threats:
        return "", []
    legal = [m for m in threats if board.is_legal(*m)]
    if len(threats) >= 2 or not legal:
        return "lost", legal
    return "block", legal


def _classify(board: Board, played: Optional[Move], end: str, last: bool) -> Position:
    """What a position is before any search (see Position.how)."""
    me = board.to_move
    p = Position(board.move_count, me)
    if last and end:
        p.how = "end"
        if end == "full":
            p.chance, p.score = 0.5, 0
        elif end == "foul":
            p.chance, p.score = 1.0, "win"          # black fouled: white, to move, has won
        else:
            p.chance, p.score = 0.0, "loss"         # the opponent just made five
        return p
    kind, cells = forced(board)
    if kind == "five":
        p.fives = cells
        p.how, p.chance, p.score, p.proof = "five", 1.0, "win", "five"
        p.best = played if played in cells else cells[0]
        p.pv = [p.best]
    elif kind == "lost":
        p.how, p.chance, p.score = "lost", 0.0, "loss"
        p.best = played if played in cells else (cells[0] if cells else None)
    elif kind == "block" and played == cells[0]:
        p.how, p.best = "block", cells[0]
    else:
        p.how = "search"       # a free position, or a block not played: searched from the block on
    return p


def review_game(rec: GameRecord, limit: Optional[Limit] = None, first: int = 1, workers: Optional[int] = None,
                on_progress: Optional[Callable[[int, int], None]] = None) -> GameReview:
    """Review `rec` from move `first` (1-based) on, searching each position under `limit`
    (default DEFAULT_NODES nodes) on `workers` processes (1: in this one; None: one a core this
    process may use, at most one a position to search). `on_progress(done,
    total)` after each position. Ctrl-C (KeyboardInterrupt) ends the searching: the review
    keeps the positions done and says `interrupted`. ValueError (one line) for a record no
    board replays, or a `first` past its moves."""
    limit = limit or Limit(nodes=DEFAULT_NODES)
    t0 = time.perf_counter()
    moves, end, ignored, fouls = replay(rec)
    if not moves:
        raise ValueError("the record has no moves to review")
    if not 1 <= first <= len(moves):
        raise ValueError(f"no move {first} to review from: the game has {len(moves)} moves")
    board = Board(rec.width, rec.height, rule=rec.rule)
    positions: list[Position] = []
    for i in range(len(moves) + 1):
        if i >= first - 1:
            positions.append(_classify(board, moves[i] if i < len(moves) else None, end, i == len(moves)))
        if i < len(moves):
            board.play(*moves[i])
    review = GameReview(rec, limit, first, positions, ignored_moves=ignored, end=end)
    jobs = [PositionJob(p.index, rec.width, rec.height, int(rec.rule), tuple(moves[:p.index]), limit)
            for p in positions if p.how == "search"]
    by_index = {p.index: p for p in positions}
    if workers is None:
        from gomoku.engine.player.agent import clamp_threads
        workers = clamp_threads(os.cpu_count() or 1)
    workers = max(1, min(workers, len(jobs)))
    review.workers = workers
    done = len(positions) - len(jobs)
    if on_progress is not None:
        on_progress(done, len(positions))

    def take(s: Searched) -> None:
        nonlocal done
        _take(by_index[s.index], s)
        done += 1
        if on_progress is not None:
            on_progress(done, len(positions))

    try:
        if workers == 1:
            from gomoku.engine.base import interrupt
            for job in jobs:
                s = search_position(job)
                if interrupt.CTRL_C.is_set():
                    raise KeyboardInterrupt      # a search Ctrl-C stopped is no verdict
                take(s)
        else:
            _search_in_pool(jobs, workers, take)
    except KeyboardInterrupt:
        review.interrupted = True
    _fill_blocks(positions)
    _judge_moves(review, moves, fouls)
    review.seconds = time.perf_counter() - t0
    return review


def _search_in_pool(jobs: list[PositionJob], workers: int, take: Callable[[Searched], None]) -> None:
    """The searches on `workers` spawned processes, in game order (after Ctrl-C the positions
    done are mostly the first ones), a few queued per worker."""
    from gomoku.engine.base.processes import KillablePool
    pool = KillablePool(workers, mp_context=mp.get_context("spawn"), initializer=_worker_init)
    pending: set[Future] = set()
    queue = list(reversed(jobs))
    try:
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                pending.add(pool.submit(search_position, queue.pop()))
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in finished:
                take(fut.result())
    finally:
        pool.close(kill=True)


def _take(p: Position, s: Searched) -> None:
    p.best, p.score, p.pv, p.proof = s.best, s.score, s.pv, s.proof
    p.chance = win_chance(s.score)
    p.depth, p.nodes, p.seconds = s.depth, s.nodes, s.seconds


def _negate(score: Score) -> Score:
    if score == "win":
        return "loss"
    if score == "loss":
        return "win"
    return None if score is None else -int(score)


def _fill_blocks(positions: list[Position]) -> None:
    """A forced block is worth what the position after it is worth (to the other side):
    filled from the end back, so a run of blocks (a VCF's defence) takes the value at its end."""
    for i in range(len(positions) - 2, -1, -1):
        p, nxt = positions[i], positions[i + 1]
        if p.how == "block" and nxt.chance is not None:
            p.chance, p.score = 1.0 - nxt.chance, _negate(nxt.score)
            p.pv = [m for m in [p.best] + nxt.pv[:LINE_MOVES - 1] if m is not None]


def mark_for(drop: float) -> str:
    for least, mark in MARKS:
        if drop >= least:
            return mark
    return ""


def _judge_moves(review: GameReview, moves: list[Move], fouls: list[str]) -> None:
    """Each reviewed move's verdict, notes and mark, then the turning points."""
    pos = review.positions
    for k in range(len(pos) - 1):
        p, nxt = pos[k], pos[k + 1]
        i = p.index
        move = moves[i]
        mr = MoveReview(i + 1, p.to_move, move, p.best, p.chance,
                        None if nxt.chance is None else 1.0 - nxt.chance, p.score, _negate(nxt.score),
                        best_line=list(p.pv))
        colour = mr.side
        if p.proof in ("vcf", "vct", "five"):
            mr.proof, mr.proof_line = p.proof, list(p.pv)
        if fouls[i]:
            mr.foul = fouls[i]
            mr.mark = "??"
            mr.notes.append(f"a {fouls[i]} foul: black loses")
        elif p.how == "five" and move not in p.fives:
            mr.mark = "??"
            mr.notes.append(f"misses the win in one at {line_text(p.fives)}")
        elif p.how == "five":
            mr.notes.append("makes five")
        elif mr.drop is not None and move != p.best:
            mr.mark = mark_for(mr.drop)
            if mr.score_after == "loss" and mr.before is not None and mr.before > LOST:
                mr.mark = "??"             # a game not lost, lost by force in one move
            if mr.mark and nxt.how == "five":
                mr.notes.append(f"lets {COLOUR[nxt.to_move]} make five at {line_text(nxt.fives)}")
            elif mr.mark and p.proof in ("vcf", "vct"):
                mr.notes.append(f"misses the {p.proof.upper()}: {line_text(p.pv)}")
            elif mr.mark and p.best is not None:
                mr.notes.append(f"{move_name(p.best)} was better")
        if p.how == "lost":
            mr.notes.append(f"{colour} cannot stop two fives")
        review.moves.append(mr)
    _turning_points(review)


def _loser(review: GameReview) -> Optional[int]:
    """Who lost: as the record's result says, else as the last reviewed position stands."""
    rec = review.record
    if review.end == "foul":
        return BLACK
    if rec.result == RESULT_BLACK:
        return WHITE
    if rec.result == RESULT_WHITE:
        return BLACK
    last = review.positions[-1]
    if last.chance is None:
        return None
    if last.chance <= LOST:
        return last.to_move
    if last.chance >= 1.0 - LOST:
        return 3 - last.to_move
    return None


def _turning_points(review: GameReview) -> None:
    """The losing move, the first position of each proven forced win, and the `?`/`??` moves."""
    loser = review.loser = _loser(review)
    theirs = [m for m in review.moves if m.colour == loser and m.before is not None and m.after is not None]
    for j in range(len(theirs) - 1, -1, -1):
        m = theirs[j]
        later = theirs[j + 1:]
        assert m.before is not None and m.after is not None
        if m.before > LOST and m.after <= LOST and all(
                (n.before or 0.0) <= LOST and (n.after or 0.0) <= LOST for n in later):
            review.losing_move = m.number
            break
    points: list[TurningPoint] = []
    proving: dict[int, str] = {BLACK: "", WHITE: ""}       # the proof each side's last position had
    for m in review.moves:
        words = []
        if m.mark in ("?", "??") or m.foul or m.number == review.losing_move:
            notes = list(m.notes) if m.mark else []
            if m.number == review.losing_move:
                notes.append("the losing move")
            words.append(f"{m.side} {move_name(m.move)}{m.mark} ({percent(m.before)} -> {percent(m.after)}): "
                         + "; ".join(notes))
        proof = m.proof if m.proof in ("vcf", "vct") else ""
        if proof and proof != proving[m.colour]:       # a forced win found, or a VCT become a VCF
            words.append(f"{m.side} has a {proof.upper()}: {line_text(m.proof_line)}")
        proving[m.colour] = proof
        if words:
            points.append(TurningPoint(m.number, "; ".join(words)))
    review.turning_points = points


def percent(chance: Optional[float]) -> str:
    return "-" if chance is None else f"{round(100 * chance)}%"


def score_text(score: Score) -> str:
    if score is None:
        return "-"
    return f"{score:+d}" if isinstance(score, int) else str(score)


# ----------------------------------------------------------------------------- for programs

def review_json(review: GameReview, source: str = "", game: int = 1) -> dict[str, Any]:
    """The review as JSON data (`gomoku analyze --json`): moves in both notations."""
    rec = review.record

    def mv(m: Optional[Move]) -> Optional[list[int]]:
        return None if m is None else [int(m[0]), int(m[1])]

    limit = {k: v for k, v in vars(review.limit).items() if v is not None}
    return {
        "format": "gomoku-review", "version": 1, "source": source, "game": game,
        "width": rec.width, "height": rec.height, "rule": Rule(rec.rule).label,
        "black": rec.black, "white": rec.white, "result": rec.result, "reason": rec.reason,
        "limit": limit, "first": review.first, "complete": review.complete, "interrupted": review.interrupted,
        "end": review.end, "ignored_moves": review.ignored_moves, "losing_move": review.losing_move,
        "workers": review.workers, "seconds": round(review.seconds, 2),
        "chance_scale": CHANCE_SCALE, "marks": {mark: least for least, mark in MARKS},
        "moves": [{
            "number": m.number, "colour": m.side, "move": mv(m.move), "name": move_name(m.move),
            "best": mv(m.best), "best_name": move_name(m.best) if m.best else None,
            "before": None if m.before is None else round(m.before, 4),
            "after": None if m.after is None else round(m.after, 4),
            "drop": None if m.drop is None else round(m.drop, 4),
            "score_before": m.score_before, "score_after": m.score_after, "mark": m.mark, "notes": m.notes,
            "foul": m.foul or None, "proof": m.proof or None,
            "proof_line": [mv(x) for x in m.proof_line], "best_line": [mv(x) for x in m.best_line],
        } for m in review.moves],
        "positions": [{
            "moves_played": p.index, "to_move": COLOUR[p.to_move], "how": p.how,
            "chance": None if p.chance is None else round(p.chance, 4), "score": p.score,
            "best": mv(p.best), "depth": p.depth, "nodes": p.nodes, "seconds": round(p.seconds, 3),
        } for p in review.positions],
        "turning_points": [{"number": t.number, "text": t.text} for t in review.turning_points],
    }


#: SGF's move-quality properties for the marks (FF[4]: BM bad move, DO doubtful), which Sabaki
#: and other viewers show as the move's annotation
_SGF_MARK = {"??": ("BM", "2"), "?": ("BM", "1"), "?!": ("DO", "")}


def sgf_annotations(review: GameReview) -> list[list[tuple[str, str]]]:
    """Per move of the record, the SGF properties of its node: a comment (the chances, the
    engine's move and line, the proof), the engine's move marked with a triangle where it
    differs from the move played, and the mark as BM/DO. Moves outside the review get none."""
    out: list[list[tuple[str, str]]] = [[] for _ in review.record.moves]
    for m in review.moves:
        lines = [f"{m.number}. {m.side} {move_name(m.move)}{m.mark}: chance {percent(m.before)} -> "
                 f"{percent(m.after)} (scores {score_text(m.score_before)} / {score_text(m.score_after)})"]
        if m.best is not None:
            lines.append(f"engine: {move_name(m.best)}" + (f", line {line_text(m.best_line)}" if m.best_line else ""))
        if m.proof in ("vcf", "vct"):
            lines.append(f"{m.side} has a {m.proof.upper()}: {line_text(m.proof_line)}")
        lines += m.notes
        if m.number == review.losing_move:
            lines.append("the losing move")
        props = [("C", "\n".join(lines))]
        if m.best is not None and m.best != m.move:
            props.append(("TR", sgf_point(*m.best)))
        if m.mark:
            props.append(_SGF_MARK[m.mark])
        out[m.number - 1] = props
    return out


def summary_lines(review: GameReview) -> list[str]:
    """Per side: how many moves of each mark, and the mean drop (how much a move cost)."""
    out = []
    for colour in (BLACK, WHITE):
        ms = [m for m in review.moves if m.colour == colour]
        drops = [m.drop for m in ms if m.drop is not None]
        if not ms:
            continue
        counts = ", ".join(f"{sum(1 for m in ms if m.mark == mark)} {mark}" for _least, mark in MARKS)
        mean = f"{100 * sum(drops) / len(drops):.1f}" if drops else "-"
        out.append(f"{COLOUR[colour]}: {len(ms)} moves, {counts}; mean drop {mean} points")
    return out
