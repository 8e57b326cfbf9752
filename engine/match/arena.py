"""Games between Players under a referee, and matches of many games with colour swaps.

Used by `gomoku match` and by training (gating, evaluation ladder), so it prints nothing:
progress goes through callbacks, results come back as data.

Referee: our rules engine judges every move. A game ends with one of these `reason` codes
(the same words `engine.records` maps to SGF results):

    five          the last move made a winning line under the rule
    foul          renju: black played a forbidden point (the move is kept in the record)
    illegal       off-board or occupied cell, or an answer that is not a move
    time          over min(turn time, time left) + tolerance (wall time, measured here for
                  in-process players; enforced with a kill by the brain client)
    crash         the brain died / could not start / an in-process player raised
    resign        the player returned no move and said it resigns
    full          board full: draw
    adjudication  draw by move count (`draw_after` stones on the board)

Matches: game 2k and 2k+1 play the same opening with colours swapped (A is black in the
even game). With concurrency > 1 games run in worker processes (spawn context); each worker
creates its own players from the spec strings, keeps them for later games (a brain gets
START again, as c-gomoku-cli does) and replaces one that crashed or timed out.
"""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
import random
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from gomoku.engine.limits import Limit, PlayResult
from gomoku.engine.match.openings import Opening
from gomoku.engine.match.players import (Player, PlayerError, PlayerFactory, PlayerSpec, PlayerTimeout,
                                         make_player, parse_spec)
from gomoku.engine.game.rules import Rule
from gomoku.engine.match import stats

EMPTY, BLACK, WHITE = 0, 1, 2
DECISIVE = ("five", "foul", "illegal", "time", "crash", "resign")


@dataclass(frozen=True)
class GameSettings:
    """Everything the referee needs for one game; picklable so workers get a copy."""
    width: int = 15
    height: Optional[int] = None
    rule: Rule = Rule.FREESTYLE
    turn_time: Optional[float] = None    # s per move; 0 = as fast as possible; None = no cap
    match_time: Optional[float] = None   # s per player per game; None = unlimited
    nodes: Optional[int] = None
    depth: Optional[int] = None
    playouts: Optional[int] = None
    max_memory: Optional[int] = None
    tolerance: float = 1.0               # s added to every time limit before a forfeit
    draw_after: Optional[int] = None     # stones on the board (opening included) -> draw
    start_timeout: float = 10.0          # s for a brain to answer ABOUT / START
    brain_info: tuple[tuple[str, str], ...] = ()   # extra `INFO key value` lines for brains
    win_length: int = 5                  # stones in a row that win (4: MCTS players only)
    # spec -> Player in the playing process; a module-level function (pickled by reference).
    # The engine's own knows in-process kinds; gomoku.protocol.players.make_player adds brains.
    factory: PlayerFactory = make_player

    @property
    def board_height(self) -> int:
        return self.width if self.height is None else self.height

    def base_limit(self) -> Limit:
        return Limit(turn_time=self.turn_time, match_time=self.match_time, nodes=self.nodes,
                     depth=self.depth, playouts=self.playouts, max_memory=self.max_memory)


@dataclass
class GameResult:
    """One finished game. `winner` is EMPTY/BLACK/WHITE; `reason` a code from the module
    docstring, `detail` the sentence for people ("white played 7,7, an occupied cell")."""
    index: int
    black: str
    white: str
    winner: int
    reason: str
    detail: str
    moves: list[tuple[int, int]]
    times: list[float]                  # seconds per move (0 for opening stones)
    opening: Opening = ()
    a_is_black: Optional[bool] = None
    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE

    @property
    def result(self) -> str:
        return {BLACK: "1-0", WHITE: "0-1", EMPTY: "1/2-1/2"}[self.winner]

    @property
    def a_score(self) -> float:
        """1 / 0.5 / 0 from player A's point of view (needs a_is_black)."""
        if self.winner == EMPTY:
            return 0.5
        return 1.0 if (self.winner == BLACK) == bool(self.a_is_black) else 0.0

    def text(self) -> str:
        """cutechess-style result text: `1-0 {Black wins by five}`."""
        return f"{self.result} {{{self.detail}}}"

    def to_record(self) -> Any:
        """A gomoku.engine.game.records.GameRecord of this game."""
        from gomoku.engine.game.records import GameRecord
        rec = GameRecord(width=self.width, height=self.height, rule=self.rule, moves=list(self.moves),
                         black=self.black, white=self.white,
                         times=[int(round(t * 1000)) for t in self.times])
        rec.finish(self.winner, self.reason)
        rec.extra["GN"] = str(self.index + 1)
        if self.opening:
            rec.extra["OP"] = str(len(self.opening))
        return rec

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "black": self.black, "white": self.white, "result": self.result,
                "winner": {BLACK: "black", WHITE: "white", EMPTY: None}[self.winner],
                "reason": self.reason, "detail": self.detail, "a_is_black": self.a_is_black,
                "opening": [list(m) for m in self.opening], "moves": [list(m) for m in self.moves],
                "times": [round(t, 4) for t in self.times]}


_COLOUR = {BLACK: "Black", WHITE: "White"}


def _other(c: int) -> int:
    return WHITE if c == BLACK else BLACK


def play_game(black: Player, white: Player, settings: GameSettings, opening: Opening = (),
              limits: Optional[tuple[Limit, Limit]] = None, index: int = 0,
              stop: Optional[threading.Event] = None) -> GameResult:
    """Play one game and judge it. Player errors never escape: they lose the game.

    `limits` = (black's, white's) Limit when the players have different budgets; default
    is settings.base_limit() for both. `time_left` is filled in per move from the game clock.
    """
    from gomoku.engine.game.board import Board, IllegalMove

    width, height, rule = settings.width, settings.board_height, Rule(settings.rule)
    board = Board(width, height, rule)
    for x, y in opening:
        board.play(x, y)
    base = {BLACK: (limits or (settings.base_limit(),) * 2)[0],
            WHITE: (limits or (settings.base_limit(),) * 2)[1]}
    players = {BLACK: black, WHITE: white}
    times: list[float] = [0.0] * len(opening)
    used = {BLACK: 0.0, WHITE: 0.0}

    def finish(winner: int, reason: str, detail: str) -> GameResult:
        return GameResult(index, black.name, white.name, winner, reason, detail, list(board.moves),
                          times, tuple(opening), None, width, height, rule)

    for colour in (BLACK, WHITE):
        try:
            players[colour].new_game(width, height, rule)
        except PlayerError as exc:
            return finish(_other(colour), "crash",
                          f"{_COLOUR[_other(colour)]} wins, {_COLOUR[colour].lower()} failed to start: {exc}")
        except Exception as exc:  # an in-process player's bug is its loss, not the match's
            return finish(_other(colour), "crash", f"{_COLOUR[_other(colour)]} wins, {_COLOUR[colour].lower()} "
                                                   f"crashed: {type(exc).__name__}: {exc}")

    while True:
        if board.winner:
            w = board.winner
            return finish(w, "five", f"{_COLOUR[w]} wins by five")
        if board.is_full():
            return finish(EMPTY, "full", "Draw by full board")
        if settings.draw_after and board.move_count >= settings.draw_after:
            return finish(EMPTY, "adjudication", f"Draw by adjudication after {board.move_count} moves")
        if stop is not None and stop.is_set():
            return finish(EMPTY, "adjudication", "Draw: match stopped")
        side = board.to_move
        name = _COLOUR[side]
        lim = base[side]
        time_left = None if not lim.match_time else lim.match_time - used[side]
        limit = dataclasses.replace(lim, time_left=time_left)
        t0 = time.perf_counter()
        try:
            res: PlayResult = players[side].play(board.copy(), limit)
        except PlayerTimeout as exc:
            used[side] += time.perf_counter() - t0
            return finish(_other(side), "time", f"{_COLOUR[_other(side)]} wins on time: {exc}")
        except PlayerError as exc:
            return finish(_other(side), "crash", f"{_COLOUR[_other(side)]} wins, {name.lower()} crashed: {exc}")
        except Exception as exc:
            return finish(_other(side), "crash",
                          f"{_COLOUR[_other(side)]} wins, {name.lower()} crashed: {type(exc).__name__}: {exc}")
        elapsed = time.perf_counter() - t0
        used[side] += elapsed
        budgets = [b for b in (lim.turn_time, time_left) if b is not None]
        if budgets and elapsed > max(0.0, min(budgets)) + settings.tolerance:
            return finish(_other(side), "time",
                          f"{_COLOUR[_other(side)]} wins on time: {name.lower()} took {elapsed:.2f} s "
                          f"(limit {max(0.0, min(budgets)):.2f} s + {settings.tolerance:g} s tolerance)")
        if res.move is None:
            if res.resigned:
                return finish(_other(side), "resign", f"{_COLOUR[_other(side)]} wins by resignation")
            return finish(_other(side), "illegal", f"{_COLOUR[_other(side)]} wins, {name.lower()} returned no move")
        try:
            x, y = (int(res.move[0]), int(res.move[1]))
        except (TypeError, ValueError, IndexError):
            return finish(_other(side), "illegal",
                          f"{_COLOUR[_other(side)]} wins, {name.lower()} returned {res.move!r}, not a move")
        if not board.in_bounds(x, y):
            return finish(_other(side), "illegal",
                          f"{_COLOUR[_other(side)]} wins, {name.lower()} played {x},{y} outside the board")
        if board.cell(x, y) != EMPTY:
            return finish(_other(side), "illegal",
                          f"{_COLOUR[_other(side)]} wins, {name.lower()} played {x},{y}, an occupied cell")
        foul = rule == Rule.RENJU and side == BLACK and board.is_forbidden(x, y)
        try:
            board.play(x, y)
        except IllegalMove as exc:
            return finish(_other(side), "illegal", f"{_COLOUR[_other(side)]} wins, {name.lower()}: {exc}")
        times.append(elapsed)
        if foul:
            return finish(WHITE, "foul", f"White wins, black played the forbidden point {x},{y}")
        if settings.win_length != 5 and _makes_row(board, x, y, settings.win_length):
            return finish(side, "five", f"{name} wins by {settings.win_length} in a row")


def _makes_row(board: Any, x: int, y: int, k: int) -> bool:
    """Does the stone just played at x,y complete k in a row under the board's rule? The
    board core judges five in a row itself; other lengths are judged here, once per move."""
    from gomoku.engine.mcts.board import direction_steps, flat_to_padded, new_cells, wins_at
    w, h = board.width, board.height
    cells = new_cells(w, h, 2)
    pad = flat_to_padded(w, h)
    for i, (mx, my) in enumerate(board.moves):
        cells[pad[my * w + mx]] = 1 + i % 2
    colour = int(cells[pad[y * w + x]])
    return bool(wins_at(cells, direction_steps(w), pad[y * w + x], colour, k, int(board.rule), 2))


# ----------------------------------------------------------------------------- matches

@dataclass(frozen=True)
class SprtSettings:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True)
class MatchSettings:
    game: GameSettings = field(default_factory=GameSettings)
    games: int = 2
    openings: tuple[Opening, ...] = ()       # empty: every game starts on an empty board
    random_order: bool = False               # shuffle the openings (with seed)
    seed: Optional[int] = None
    concurrency: int = 1
    sprt: Optional[SprtSettings] = None


@dataclass(frozen=True)
class GameJob:
    index: int
    opening: Opening
    a_is_black: bool
    seed: int


def schedule(settings: MatchSettings) -> list[GameJob]:
    """Game i plays opening pair i//2; A is black in even games, so each opening is played
    twice with colours swapped."""
    base_seed = settings.seed if settings.seed is not None else random.randrange(1 << 30)
    ops = list(settings.openings) or [()]
    order = list(range(len(ops)))
    if settings.random_order:
        random.Random(base_seed).shuffle(order)
    return [GameJob(i, ops[order[(i // 2) % len(ops)]], i % 2 == 0, base_seed * 1009 + i)
            for i in range(settings.games)]


@dataclass
class MatchSummary:
    name_a: str
    name_b: str
    results: list[GameResult] = field(default_factory=list)
    sprt: Optional[stats.SprtResult] = None
    stopped: str = ""                     # why the match ended early ("" if it did not)

    def wld(self, as_colour: Optional[int] = None) -> tuple[int, int, int]:
        """A's wins, losses, draws (optionally only the games A played as BLACK/WHITE)."""
        w = l = d = 0
        for r in self.results:
            if as_colour is not None and (r.a_is_black != (as_colour == BLACK)):
                continue
            s = r.a_score
            w += s == 1.0
            l += s == 0.0
            d += s == 0.5
        return w, l, d

    def black_white(self) -> tuple[int, int, int]:
        """First player (black) vs second player (white): black wins, white wins, draws."""
        b = sum(r.winner == BLACK for r in self.results)
        w = sum(r.winner == WHITE for r in self.results)
        return b, w, len(self.results) - b - w

    def reasons(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.results:
            out[r.reason] = out.get(r.reason, 0) + 1
        return out

    def report_lines(self) -> list[str]:
        a, b = self.name_a, self.name_b
        w, l, d = self.wld()
        lines = [stats.score_line(a, b, w, l, d)]
        for colour, label in ((BLACK, "Black"), (WHITE, "White")):
            cw, cl, cd = self.wld(colour)
            n = cw + cl + cd
            lines.append(f"...      {a} playing {label}: {cw} - {cl} - {cd}  [{stats.score(cw, cl, cd):.3f}] {n}")
        bw, ww, dd = self.black_white()
        lines.append(f"...      Black vs White: {bw} - {ww} - {dd}  [{stats.score(bw, ww, dd):.3f}] {bw + ww + dd}")
        lines.append(stats.elo_line(w, l, d))
        if self.sprt is not None:
            lines.append(stats.sprt_line(self.sprt))
        return lines

    def to_json(self) -> dict[str, Any]:
        w, l, d = self.wld()
        out: dict[str, Any] = {
            "player_a": self.name_a, "player_b": self.name_b, "games": len(self.results),
            "wins": w, "losses": l, "draws": d, "score": stats.score(w, l, d),
            "elo": _finite(stats.elo_diff(w, l, d)), "elo_error": _finite(stats.elo_error(w, l, d)),
            "los": stats.los(w, l), "draw_ratio": stats.draw_ratio(w, l, d),
            "a_as_black": dict(zip(("wins", "losses", "draws"), self.wld(BLACK))),
            "a_as_white": dict(zip(("wins", "losses", "draws"), self.wld(WHITE))),
            "black_vs_white": dict(zip(("black_wins", "white_wins", "draws"), self.black_white())),
            "reasons": self.reasons(), "stopped": self.stopped or None,
            "results": [r.to_json() for r in self.results],
        }
        if self.sprt is not None:
            out["sprt"] = {"llr": self.sprt.llr, "lower": self.sprt.lower, "upper": self.sprt.upper,
                           "decision": self.sprt.decision}
        return out


def _finite(x: float) -> Optional[float]:
    return x if x == x and abs(x) != float("inf") else None


PlayerLike = Union[str, PlayerSpec, Player]


def _spec_text(p: PlayerLike) -> Optional[str]:
    if isinstance(p, PlayerSpec):
        return p.text
    if isinstance(p, str):
        return p
    return None


# -- the part that runs in whichever process plays the game ---------------------------------

class _PlayerPool:
    """Players of one process, created on first use from their specs and reused; replaced
    after a crash or time forfeit so the next game starts with a fresh process."""

    def __init__(self, a: PlayerLike, b: PlayerLike, game: GameSettings) -> None:
        self.sources = {"A": a, "B": b}
        self.specs = {k: (parse_spec(v) if isinstance(v, str) else v if isinstance(v, PlayerSpec) else None)
                      for k, v in self.sources.items()}
        self.game = game
        self.players: dict[str, Player] = {}
        for k, v in self.sources.items():
            if not isinstance(v, (str, PlayerSpec)):
                self.players[k] = v  # a Player object given by the caller (in-process only)

    def get(self, key: str) -> Player:
        p = self.players.get(key)
        if p is None:
            spec = self.specs[key]
            assert spec is not None
            p = self.game.factory(spec, tolerance=self.game.tolerance, start_timeout=self.game.start_timeout,
                                  info=self.game.brain_info, win_length=self.game.win_length)
            self.players[key] = p
            if spec.kind != "brain":
                _warm_up(p, self.game)
        return p

    def limit(self, key: str) -> Limit:
        spec = self.specs[key]
        base = self.game.base_limit()
        return spec.limit_for(base) if spec is not None else base

    def drop(self, key: str) -> None:
        p = self.players.get(key)
        if p is not None and self.specs[key] is not None:
            try:
                p.close()
            finally:
                del self.players[key]

    def close(self) -> None:
        for key in list(self.players):
            if self.specs[key] is not None:   # caller-owned players are the caller's to close
                self.drop(key)

    def play(self, job: GameJob) -> GameResult:
        roles = ("A", "B") if job.a_is_black else ("B", "A")
        got: dict[str, Player] = {}
        for i, key in enumerate(roles):
            try:
                got[key] = self.get(key)
            except PlayerError as exc:
                # a brain that no longer starts loses this game; the match goes on
                colour = BLACK if i == 0 else WHITE
                return GameResult(job.index, "", "", _other(colour), "crash",
                                  f"{_COLOUR[_other(colour)]} wins, {_COLOUR[colour].lower()} failed to start: {exc}",
                                  list(job.opening), [0.0] * len(job.opening), job.opening, job.a_is_black,
                                  self.game.width, self.game.board_height, self.game.rule)
        for key in roles:
            reseed = getattr(got[key], "reseed", None)
            if callable(reseed):
                reseed(job.seed * 2 + (key == "B"))
        res = play_game(got[roles[0]], got[roles[1]], self.game, job.opening,
                        (self.limit(roles[0]), self.limit(roles[1])), job.index)
        res.a_is_black = job.a_is_black
        for key in roles:
            # a dead brain (crashed, or killed at its time limit) is replaced next game
            if res.reason == "crash" or getattr(got[key], "alive", True) is False:
                self.drop(key)
        return res


def _warm_up(p: Player, game: GameSettings) -> None:
    """One short untimed search before the first game, so loading numba caches (search and
    threat solver functions load on first use) or an ONNX session is not charged to the
    first timed move of the match."""
    from gomoku.engine.game.board import Board
    try:
        w, h, rule = game.width, game.board_height, Rule(game.rule)
        p.new_game(w, h, rule)
        cx, cy = w // 2, h // 2
        board = Board.from_moves(w, [(cx, cy), (cx, cy - 1), (cx + 1, cy + 1)], rule=rule, height=h)
        p.play(board, Limit(turn_time=0.2, nodes=game.nodes, depth=min(game.depth or 4, 4),
                            playouts=min(game.playouts or 64, 64)))
    except Exception:
        pass   # a broken player shows itself in its first real game, where it is judged


_WORKER: Optional[_PlayerPool] = None


def _worker_init(a: str, b: str, game: GameSettings) -> None:
    global _WORKER
    import signal
    from multiprocessing import util
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    _WORKER = _PlayerPool(a, b, game)
    # worker processes leave through os._exit: multiprocessing finalizers run, atexit does not
    util.Finalize(None, _WORKER.close, exitpriority=100)


def _worker_play(job: GameJob) -> GameResult:
    assert _WORKER is not None
    return _WORKER.play(job)


# -- the driver ---------------------------------------------------------------------------

class Match:
    """A match between two players. `a` and `b` are spec strings (any concurrency) or
    Player objects (concurrency 1 only, e.g. nets held in memory by training)."""

    def __init__(self, a: PlayerLike, b: PlayerLike, settings: MatchSettings,
                 names: Optional[tuple[str, str]] = None) -> None:
        self.a, self.b = a, b
        self.settings = settings
        if settings.concurrency > 1 and (_spec_text(a) is None or _spec_text(b) is None):
            raise ValueError("concurrency > 1 needs players given as spec strings")
        if names is None:
            names = (self._name(a), self._name(b))
        self.summary = MatchSummary(*names)

    @staticmethod
    def _name(p: PlayerLike) -> str:
        if isinstance(p, str):
            return parse_spec(p).name
        if isinstance(p, PlayerSpec):
            return p.name
        return p.name

    def _record(self, res: GameResult, on_game_end: Optional[Callable[[GameResult, MatchSummary], None]]) -> bool:
        """Store a result; True when the SPRT has decided."""
        res.black, res.white = ((self.summary.name_a, self.summary.name_b) if res.a_is_black
                                else (self.summary.name_b, self.summary.name_a))
        self.summary.results.append(res)
        sp = self.settings.sprt
        if sp is not None:
            w, l, d = self.summary.wld()
            self.summary.sprt = stats.sprt(w, l, d, sp.elo0, sp.elo1, sp.alpha, sp.beta)
        if on_game_end is not None:
            on_game_end(res, self.summary)
        if self.summary.sprt is not None and self.summary.sprt.decision:
            self.summary.stopped = f"SPRT: {self.summary.sprt.decision} accepted"
            return True
        return False

    def run(self, on_game_start: Optional[Callable[[GameJob], None]] = None,
            on_game_end: Optional[Callable[[GameResult, MatchSummary], None]] = None,
            stop: Optional[threading.Event] = None) -> MatchSummary:
        jobs = schedule(self.settings)
        if self.settings.concurrency <= 1:
            pool = _PlayerPool(self.a, self.b, self.settings.game)
            try:
                for job in jobs:
                    if stop is not None and stop.is_set():
                        self.summary.stopped = "interrupted"
                        break
                    if on_game_start is not None:
                        on_game_start(job)
                    if self._record(pool.play(job), on_game_end):
                        break
            finally:
                pool.close()
        else:
            self._run_parallel(jobs, on_game_start, on_game_end, stop)
        self.summary.results.sort(key=lambda r: r.index)
        return self.summary

    def _run_parallel(self, jobs: list[GameJob], on_game_start: Optional[Callable[[GameJob], None]],
                      on_game_end: Optional[Callable[[GameResult, MatchSummary], None]],
                      stop: Optional[threading.Event]) -> None:
        ctx = mp.get_context("spawn")
        n = self.settings.concurrency
        todo = list(jobs)
        todo.reverse()
        pending: dict[Future, GameJob] = {}
        ex = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init,
                                 initargs=(_spec_text(self.a), _spec_text(self.b), self.settings.game))
        decided = False
        interrupted = False
        try:
            while todo or pending:
                while todo and len(pending) < n and not decided and not (stop is not None and stop.is_set()):
                    job = todo.pop()
                    if on_game_start is not None:
                        on_game_start(job)
                    pending[ex.submit(_worker_play, job)] = job
                if not pending:
                    break
                done, _ = wait(list(pending), timeout=0.25, return_when=FIRST_COMPLETED)
                for fut in done:
                    pending.pop(fut)
                    res = fut.result()   # a worker bug surfaces here and ends the match
                    if self._record(res, on_game_end):
                        decided = True
                if stop is not None and stop.is_set() and not self.summary.stopped:
                    self.summary.stopped = "interrupted"
                    todo.clear()
                if decided:
                    todo.clear()   # games already running are finished and counted
        except BaseException:
            interrupted = True
            raise
        finally:
            if interrupted:
                # Ctrl-C or an error: do not wait for running games; their brains see EOF and exit
                for proc in list(getattr(ex, "_processes", {}).values()):
                    proc.terminate()
            ex.shutdown(wait=not interrupted, cancel_futures=True)


def probe_player(spec: PlayerLike, game: GameSettings) -> str:
    """Create a player, start one game and close it: a spec that cannot play fails here, once,
    with one line (SpecError / PlayerError), before any game of a match starts. Returns the
    name the player reports (ABOUT name for brains)."""
    if not isinstance(spec, (str, PlayerSpec)):
        return spec.name
    p = game.factory(spec, tolerance=game.tolerance, start_timeout=game.start_timeout, info=game.brain_info,
                     win_length=game.win_length)
    try:
        p.new_game(game.width, game.board_height, Rule(game.rule))
        about = getattr(p, "about", None) or {}
        return str(about.get("name") or p.name)
    finally:
        p.close()


def run_match(a: PlayerLike, b: PlayerLike, settings: MatchSettings, **callbacks: Any) -> MatchSummary:
    """Convenience wrapper: Match(a, b, settings).run(**callbacks)."""
    return Match(a, b, settings).run(**callbacks)
