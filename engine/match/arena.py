"""Matches of many two-player games with colour swaps, run one after another or in worker
processes.

Used by `gomoku match` and by training (gating, evaluation ladder), so it prints nothing:
progress goes through callbacks, results come back as data. One game and its reason codes:
`engine.match.games` (re-exported here: GameSettings, GameResult, play_game, the colours);
the players a process keeps between games: `engine.match.pool`.

Matches: game 2k and 2k+1 play the same opening with colours swapped (A is black in the
even game). With concurrency > 1 games run in worker processes (spawn context).
"""
from __future__ import annotations

import multiprocessing as mp
import random
import threading
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from gomoku.engine.base.processes import KillablePool
from gomoku.engine.game.rules import Rule
from gomoku.engine.match import stats
from gomoku.engine.match.games import BLACK, WHITE, GameResult, GameSettings, play_game
from gomoku.engine.match.openings import Opening
from gomoku.engine.match.players import PlayerSpec, parse_spec
from gomoku.engine.match.pool import GameJob, PlayerLike, PlayerPool, worker_init, worker_play

# ----------------------------------------------------------------------------- matches

@dataclass(frozen=True)
class SprtSettings:
    """An SPRT's hypotheses. A match of game pairs (an even number of games: each opening
    twice, colours swapped) tests on the pairs' pentanomial counts; one with a lone game
    on the games' trinomial counts (cutechess's model). `model`: what elo0/elo1 are, logistic
    or normalised Elo (stats.Pentanomial.llr; pairs only)."""
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"


@dataclass(frozen=True)
class MatchSettings:
    game: GameSettings = field(default_factory=GameSettings)
    games: int = 2
    openings: tuple[Opening, ...] = ()       # empty: every game starts on an empty board
    random_order: bool = False               # shuffle the openings (with seed)
    seed: Optional[int] = None
    concurrency: int = 1                     # games at once; with `ray`, actors (0: every CPU of the cluster)
    sprt: Optional[SprtSettings] = None
    # the pentanomial counts of the earlier runs of the same test that this one continues
    # (`gomoku match --continue`): the SPRT decides on them and this run's pairs together
    earlier_pairs: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    # how parallel games are played: None for local worker processes, else a factory
    # (workers, spec a, spec b, game) -> an object with `workers`, play(job) -> Future, close(kill);
    # `gomoku match --ray` gives train.raygames' (the engine itself never imports Ray)
    runner: Optional[Callable[[int, str, str, GameSettings], Any]] = None


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
    sprt_basis: str = ""                  # "pairs" or "games": what the SPRT counted
    earlier: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)   # MatchSettings.earlier_pairs

    def pentanomial_all(self) -> stats.Pentanomial:
        """This run's pairs and those of the earlier runs it continues: what the SPRT counts."""
        now = self.pentanomial().counts
        c = [a + b for a, b in zip(now, self.earlier)]
        return stats.Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    def pentanomial(self) -> stats.Pentanomial:
        """The complete game pairs (games 2k and 2k+1: one opening, colours swapped) by the
        points A took from each; a game whose partner is not in yet is left out."""
        by_index = {r.index: r.a_score for r in self.results}
        points = [s + by_index[i + 1] for i, s in by_index.items() if i % 2 == 0 and i + 1 in by_index]
        return stats.Pentanomial.of_pairs(points)

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
        penta = self.pentanomial()
        if penta.pairs:
            lines.append(penta.line())
        if any(self.earlier):
            lines.append("With the earlier runs: " + self.pentanomial_all().line())
        if self.sprt is not None:
            lines.append(stats.sprt_line(self.sprt, self.sprt_basis))
        return lines

    def to_json(self) -> dict[str, Any]:
        w, l, d = self.wld()
        lower, upper = stats.elo_bounds(w, l, d)     # the report's 95 % bounds, null where none
        out: dict[str, Any] = {
            "player_a": self.name_a, "player_b": self.name_b, "games": len(self.results),
            "wins": w, "losses": l, "draws": d, "score": stats.score(w, l, d),
            "elo": _finite(stats.elo_diff(w, l, d)), "elo_error": _finite(stats.elo_error(w, l, d)),
            "elo_lower": lower, "elo_upper": upper, "elo_text": stats.elo_text(w, l, d),
            "los": stats.los(w, l), "draw_ratio": stats.draw_ratio(w, l, d),
            "a_as_black": dict(zip(("wins", "losses", "draws"), self.wld(BLACK))),
            "a_as_white": dict(zip(("wins", "losses", "draws"), self.wld(WHITE))),
            "black_vs_white": dict(zip(("black_wins", "white_wins", "draws"), self.black_white())),
            "reasons": self.reasons(), "stopped": self.stopped or None,
            "results": [r.to_json() for r in self.results],
        }
        penta = self.pentanomial()
        nelo, nelo_error = penta.normalized_elo()
        out["pairs"] = {"pentanomial": list(penta.counts), "count": penta.pairs, "elo": _finite(penta.elo()),
                        "elo_error": _finite(penta.elo_error()), "nelo": _finite(nelo),
                        "nelo_error": _finite(nelo_error)}
        if any(self.earlier):
            total = self.pentanomial_all()
            out["pairs_all"] = {"pentanomial": list(total.counts), "count": total.pairs,
                                "earlier": list(self.earlier), "elo": _finite(total.elo()),
                                "elo_error": _finite(total.elo_error())}
        if self.sprt is not None:
            out["sprt"] = {"llr": self.sprt.llr, "lower": self.sprt.lower, "upper": self.sprt.upper,
                           "decision": self.sprt.decision, "basis": self.sprt_basis}
        return out


def _finite(x: float) -> Optional[float]:
    return x if x == x and abs(x) != float("inf") else None


def _spec_text(p: PlayerLike) -> Optional[str]:
    if isinstance(p, PlayerSpec):
        return p.text
    if isinstance(p, str):
        return p
    return None


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
        self.summary = MatchSummary(*names, earlier=settings.earlier_pairs)

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
            if self.settings.games % 2 == 0:
                self.summary.sprt_basis = "pairs"
                self.summary.sprt = self.summary.pentanomial_all().sprt(sp.elo0, sp.elo1, sp.alpha, sp.beta,
                                                                        sp.model)
            else:
                self.summary.sprt_basis = "games"
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
        if self.settings.concurrency <= 1 and self.settings.runner is None:
            pool = PlayerPool(self.a, self.b, self.settings.game)
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
        ex = self._games()
        n = ex.workers
        todo = list(jobs)
        todo.reverse()
        pending: dict[Future, GameJob] = {}
        decided = False
        interrupted = False
        try:
            while todo or pending:
                while todo and len(pending) < n and not decided and not (stop is not None and stop.is_set()):
                    job = todo.pop()
                    if on_game_start is not None:
                        on_game_start(job)
                    pending[ex.play(job)] = job
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
            # Ctrl-C or an error: do not wait for running games; their brains see EOF and exit
            ex.close(kill=interrupted)


    def _games(self) -> "LocalGames | Any":
        a, b = _spec_text(self.a), _spec_text(self.b)
        assert a is not None and b is not None
        if self.settings.runner is not None:
            return self.settings.runner(self.settings.concurrency, a, b, self.settings.game)
        return LocalGames(self.settings.concurrency, a, b, self.settings.game)


class LocalGames:
    """The match's worker processes (spawn context): each keeps its two players between games."""

    def __init__(self, workers: int, a: str, b: str, game: GameSettings) -> None:
        self.workers = workers
        self._pool = KillablePool(workers, mp_context=mp.get_context("spawn"), initializer=worker_init,
                                  initargs=(a, b, game))

    def play(self, job: GameJob) -> "Future[GameResult]":
        return self._pool.submit(worker_play, job)

    def close(self, kill: bool = False) -> None:
        self._pool.close(kill=kill)


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
