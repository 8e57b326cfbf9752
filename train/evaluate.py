"""Evaluation through the engine's match runners: gating against the best net and a ladder of
pure MCTS opponents (the UCAS Gobang paper: rollout MCTS at 1000, 2000, ... playouts).

Two players: games go through `engine.match.arena` (referee, colour swaps, worker processes),
the same code `gomoku match` uses, with players named by spec strings (`net.onnx:playouts=N`,
`pure-mcts:playouts=N`, or the run's --ladder-opponent with playouts=N appended), from random
openings each played with both colours.

Three or four players: games go through `engine.match.nplayer`, the same code as `gomoku match
--players 3`: the three-player Gobang paper's protocol, every seating of one A against the other side's copies and
the mirror, win 3 / draw 1 / loss 0 per side. A match is whole cycles of 2 x players games
(`nplayer_games` rounds a requested count up). A's score is its share of all points, which for
two players is the usual (wins + draws / 2) / games. The ladder plays from the empty board, as
the paper does (rollouts make every game different); gating two nets plays each cycle from
its own random opening, one stone per seat, because two nets at temperature 0 would repeat the
same six games in every cycle. No torch here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from gomoku.engine.game.rules import parse_rule
from gomoku.engine.match.nplayer import (DRAW_POINTS, LOSS_POINTS, WIN_POINTS, NGameResult, NGameSettings, NMatch,
                                         NMatchSummary)
from gomoku.engine.game.nboard import NBoardError, check_game
from gomoku.engine.mcts.selfplay import central_cells

#: the three-player Gobang paper: "the higher one is regarded as having higher performance": A beats B when A's
#: points exceed B's, i.e. its share of the points is above one half
PAPER_BEAT_SHARE = 0.5


@dataclass
class MatchOutcome:
    """Wins, losses, draws of player A (the candidate) and its score (draws count half)."""
    wins: int
    losses: int
    draws: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def to_json(self) -> dict[str, float]:
        return {"wins": self.wins, "losses": self.losses, "draws": self.draws, "score": round(self.score, 4)}


def evaluation_blocker(width: int, height: int, rule: str, win_length: int, players: int) -> Optional[str]:
    """Why a run's games cannot be judged by a match runner (one line), or None when they can.

    Two-player games are judged by the arena's referee; games of more players by the n-player
    board, which knows four or five in a row and the rules without fouls."""
    if players == 2:
        return None
    try:
        check_game(width, height, players, win_length, parse_rule(rule))
    except (NBoardError, ValueError) as exc:
        return f"{players}-player games of this run cannot be judged ({exc})"
    return None


def nplayer_games(games: int, players: int) -> int:
    """`games` rounded up to whole cycles of the three-player Gobang paper's seatings (2 x players games; 0 stays 0),
    so both players sit alone and doubled in every seat equally often."""
    cycle = 2 * players
    return cycle * math.ceil(max(0, games) / cycle)


def points_share(a: float, b: float) -> float:
    """A's share of the points; 0.5 when nobody scored (no game played)."""
    return a / (a + b) if a + b > 0 else 0.5


def beats(share: float, threshold: float = PAPER_BEAT_SHARE) -> bool:
    """Whether a share of the points beats the opponent: strictly above `threshold`, so with
    the paper's 0.5 a match of draws (or an even split) beats nobody."""
    return share > threshold


def random_openings(width: int, height: int, count: int, seed: int, stones: int = 2) -> tuple[tuple, ...]:
    """`count` openings of `stones` random stones in the central 5x5 square (3x3 on boards under 9).

    Two nets searching an empty board with fixed playouts play the same game every time, so a
    gating match without openings is one game per colour repeated; each opening here is played
    twice with colours swapped, which keeps the match fair."""
    rng = np.random.default_rng(seed)
    r = 2 if min(width, height) >= 9 else 1
    cells = [(int(c) % width, int(c) // width) for c in central_cells(width, height, r)]
    out = []
    for _ in range(count):
        pick = rng.choice(len(cells), size=min(stones, len(cells)), replace=False)
        out.append(tuple(cells[int(i)] for i in pick))
    return tuple(out)


def play_match(a: str, b: str, width: int, height: int, rule: str, win_length: int, games: int, seed: int,
               concurrency: int, on_game: Optional[Callable[[int, int], None]] = None) -> MatchOutcome:
    """`games` games of spec `a` against spec `b` from random openings, each played twice with
    colours swapped; A's outcome."""
    from gomoku.engine.match.arena import GameSettings, Match, MatchSettings
    settings = MatchSettings(game=GameSettings(width=width, height=height, rule=parse_rule(rule),
                                               win_length=win_length, tolerance=60.0),
                             games=games, seed=seed, concurrency=max(1, min(concurrency, games)),
                             openings=random_openings(width, height, (games + 1) // 2, seed))
    done = [0]

    def ended(_res, summary) -> None:
        done[0] += 1
        if on_game is not None:
            on_game(done[0], games)

    summary = Match(a, b, settings).run(on_game_end=ended)
    w, l, d = summary.wld()
    return MatchOutcome(w, l, d)


@dataclass
class NMatchOutcome:
    """Player A's side of an n-player match under the three-player Gobang paper's protocol (A is the net)."""
    summary: NMatchSummary
    openings: int = 0                   # random openings the games started from (0: empty board)

    @property
    def games(self) -> int:
        return len(self.summary.results)

    @property
    def totals(self) -> dict[str, int]:
        return self.summary.totals()

    @property
    def score(self) -> float:
        """A's share of the points (the two-player score's counterpart)."""
        t = self.totals
        return points_share(t["A"], t["B"])

    def to_json(self) -> dict[str, Any]:
        """Games A's side won, lost and drew, totals, share, and the per-seating and per-seat
        results the match report prints. Points: per game WIN_POINTS to the winning side and
        LOSS_POINTS to the other, DRAW_POINTS to each on a draw, so A + B = 3 x games - draws."""
        s = self.summary.to_json()
        w, l, d = self.summary.wld("A")
        return {"players": self.summary.players, "games": self.games, "wins": w, "losses": l, "draws": d,
                "score": round(self.score, 4), "totals": s["totals"],
                "points": {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS},
                "by_seating": s["by_seating"], "by_seat": s["by_seat"], "wins_by_seat": s["wins_by_seat"],
                "openings": self.openings}


def _play_cycles(a: str, b: str, settings: NGameSettings, games: int, seed: int,
                 openings: tuple, names: tuple[str, str]) -> list[NGameResult]:
    """One worker's share of an n-player match: an NMatch over whole cycles (any process)."""
    m = NMatch(a, b, settings, games, seed=seed, names=names, openings=openings)
    try:
        return m.run().results
    finally:
        m.close()


def _ignore_sigint() -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the training loop's to handle


def play_nmatch(a: str, b: str, width: int, height: int, rule: str, win_length: int, players: int, games: int,
                seed: int, concurrency: int, with_openings: bool = False,
                on_game: Optional[Callable[[int, int], None]] = None) -> NMatchOutcome:
    """`games` (rounded up to whole cycles) games of the three-player Gobang paper's protocol between specs `a` and
    `b`; A's outcome. With `with_openings` each cycle starts from its own random opening of
    one stone per seat. With concurrency > 1 the cycles are shared among that many spawn
    processes, each playing its part as an NMatch; progress then comes per finished part."""
    from gomoku.engine.match.players import parse_spec
    settings = NGameSettings(width=width, height=height, players=players, win_length=win_length,
                             rule=parse_rule(rule))
    total = nplayer_games(games, players)
    cycle = 2 * players
    cycles = total // cycle
    names = (parse_spec(a).name, parse_spec(b).name)
    if names[0] == names[1]:
        names = (names[0], names[1] + "-2")
    ops = random_openings(width, height, cycles, seed, stones=players) if with_openings else ()
    summary = NMatchSummary(names[0], names[1], players)
    parts = max(1, min(concurrency, cycles))
    # part k plays cycles [bounds[k], bounds[k + 1]) with its own seed and its cycles' openings
    bounds = [cycles * k // parts for k in range(parts + 1)]
    jobs = [(a, b, settings, (bounds[k + 1] - bounds[k]) * cycle, seed * 1_000_003 + k,
             tuple(ops[bounds[k]:bounds[k + 1]]), names) for k in range(parts) if bounds[k + 1] > bounds[k]]

    def add(k: int, results: list[NGameResult]) -> None:
        offset = bounds[k] * cycle
        for r in results:
            r.index += offset
        summary.results.extend(results)
        if on_game is not None:
            on_game(len(summary.results), total)

    if len(jobs) == 1:
        m = NMatch(a, b, settings, total, seed=jobs[0][4], names=names, openings=jobs[0][5])
        try:
            m.run(on_game_end=lambda res, s: on_game(len(s.results), total) if on_game is not None else None)
        finally:
            m.close()
        summary.results = m.summary.results
    elif jobs:
        import multiprocessing as mp
        from concurrent.futures import as_completed

        from gomoku.engine.base.processes import KillablePool
        ex = KillablePool(len(jobs), mp_context=mp.get_context("spawn"), initializer=_ignore_sigint)
        clean = False
        try:
            futures = {ex.submit(_play_cycles, *job): k for k, job in enumerate(jobs)}
            for fut in as_completed(futures):
                add(futures[fut], fut.result())     # a worker's error surfaces here
            clean = True
        finally:
            ex.close(kill=not clean)    # Ctrl-C or a failure: do not wait for the other parts
        summary.results.sort(key=lambda r: r.index)
    return NMatchOutcome(summary, openings=len(ops))


def net_spec(path: str, playouts: int, name: str, c_puct: Optional[float] = None,
             select: Optional[str] = None) -> str:
    """A run's net as a match player. Gating and the ladder pass the run's c_puct and selection
    rule: a net is measured searching the way its self-play searched."""
    extra = (f",c_puct={c_puct:g}" if c_puct is not None else "") + (f",select={select}" if select else "")
    return f"{path}:playouts={playouts}{extra},name={name}"


def pure_spec(playouts: int, opponent: str = "pure-mcts") -> str:
    """The ladder's rung at `playouts`: the run's --ladder-opponent spec with playouts=N appended
    (`pure-mcts:tactics=0` -> `pure-mcts:tactics=0,playouts=1000`)."""
    if ":" not in opponent:
        return f"{opponent}:playouts={playouts}"
    return f"{opponent}{'' if opponent.endswith(':') else ','}playouts={playouts}"


def check_ladder_opponent(opponent: str, playouts: int) -> None:
    """Refuse, in one line (ValueError), a --ladder-opponent the match runner could not play
    or one that names its own playouts (each rung sets them)."""
    from gomoku.engine.match.players import SpecError, parse_spec
    spec = opponent.strip()
    if not spec:
        raise ValueError("--ladder-opponent: give a player spec, e.g. pure-mcts or 'pure-mcts:tactics=0'")
    try:
        bare = parse_spec(spec)
        parsed = parse_spec(pure_spec(playouts, spec))
    except SpecError as exc:
        raise ValueError(f"--ladder-opponent {opponent!r}: {exc}") from None
    if "playouts" in bare.options:
        raise ValueError(f"--ladder-opponent {opponent!r}: leave playouts out (each rung of the ladder sets them)")
    if parsed.options.get("playouts") != playouts:
        raise ValueError(f"--ladder-opponent {opponent!r}: this player takes no playouts, so it cannot be a ladder")
