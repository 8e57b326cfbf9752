"""Matches of three (or more) seats between two players, judged on the n-player board.

The three-player Gobang paper's protocol: a three-player game seats one player alone against two copies of the
other ("1 A vs 2 B") or the mirror ("2 A vs 1 B"). A cycle of six games runs every seating
once: the lone player in seat 1, 2 and 3 (seat 1 moves first), first A alone, then B alone,
so both players sit in every seat equally often, alone and doubled. Each game is scored per
player, as a game between two sides: the side whose seat makes the row gets 3, the other 0,
both 1 on a draw (a full board). The report gives A's and B's totals and the results by seat.

Openings (optional): a match may start its games from given stones instead of the empty
board; every game of one cycle plays the same opening, so each seating meets it once. The
opening's stones belong to the seats in turn order (stone i to seat i % players). Training
gates two nets this way: two nets at temperature 0 would otherwise replay the same six games
in every cycle.

Forfeits: a seat that crashes, runs out of time, returns no move or an illegal one loses the
game for its side (reason crash / time / resign / illegal); with two sides that is a win for
the other one. The games are judged by the referee of two-player games too
(`engine.match.referee`), whose reason codes these are.

Like the arena this prints nothing: progress goes through callbacks, results come back as data.
Games are played one after another in this process; each side's seats are separate Player
objects (two copies of B keep two trees), created once and reseeded per game.
"""
from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from gomoku.engine.game.rules import Rule
from gomoku.engine.game.seats import Game, NBoardError, SeatBoard
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.openings import Opening
from gomoku.engine.match.players import Player, PlayerSpec, SpecError, make_engine_player, parse_spec
from gomoku.engine.match.specs import MANY_SEAT_KINDS
from gomoku.engine.match.referee import SeatWords, referee

WIN_POINTS, DRAW_POINTS, LOSS_POINTS = 3, 1, 0
#: player kinds that can sit at an n-player board (the classical engine and brains know two
#: colours): the spec table's (engine.match.specs)
NPLAYER_KINDS = MANY_SEAT_KINDS


@dataclass(frozen=True)
class NGameSettings:
    """One n-player game's board and limits."""
    width: int = 8
    height: Optional[int] = None
    players: int = 3
    win_length: int = 5
    rule: Rule = Rule.FREESTYLE
    turn_time: Optional[float] = None    # s per move; None = no cap
    playouts: Optional[int] = None       # per move, overrides each spec's own
    tolerance: float = 1.0

    @property
    def board_height(self) -> int:
        return self.width if self.height is None else self.height

    def base_limit(self) -> Limit:
        return Limit(turn_time=self.turn_time, playouts=self.playouts)

    def game(self) -> Game:
        return Game(self.width, self.board_height, self.players, self.win_length, Rule(self.rule))

    def check(self) -> None:
        """NBoardError (one line) when the board cannot be played."""
        self.game().check()


@dataclass(frozen=True)
class Seating:
    """Who sits where: `sides[s]` is "A" or "B" for seat s (0-based, seat 0 moves first)."""
    sides: tuple[str, ...]

    @property
    def lone(self) -> str:
        """The side with one seat ("A" in 1 A vs 2 B)."""
        return "A" if self.sides.count("A") == 1 else "B"

    @property
    def lone_seat(self) -> int:
        return self.sides.index(self.lone)

    @property
    def label(self) -> str:
        """'1 A vs 2 B' or '2 A vs 1 B' (three seats)."""
        n = len(self.sides)
        return f"1 A vs {n - 1} B" if self.lone == "A" else f"{n - 1} A vs 1 B"


def seating_labels(players: int = 3) -> tuple[str, str]:
    return f"1 A vs {players - 1} B", f"{players - 1} A vs 1 B"


def seatings(players: int = 3) -> list[Seating]:
    """The cycle of seatings: the lone A in each seat, then the lone B in each seat."""
    out = []
    for lone, crowd in (("A", "B"), ("B", "A")):
        for s in range(players):
            out.append(Seating(tuple(lone if i == s else crowd for i in range(players))))
    return out


@dataclass
class NGameResult:
    """One finished game. `winner` is the winning seat (0-based) or None for a draw;
    `loser` the seat that forfeited (crash, time, illegal, resign), else None."""
    index: int
    names: list[str]                    # per seat
    sides: tuple[str, ...]              # per seat: "A" / "B"
    winner: Optional[int]
    reason: str                         # five | full | crash | time | illegal | resign | adjudication
    detail: str
    moves: list[tuple[int, int]]
    times: list[float]
    loser: Optional[int] = None
    opening: int = 0                    # stones of `moves` placed before the first move was asked

    @property
    def seating(self) -> Seating:
        return Seating(self.sides)

    @property
    def winning_side(self) -> Optional[str]:
        """"A", "B" or None (draw)."""
        if self.winner is not None:
            return self.sides[self.winner]
        if self.loser is not None:
            return "B" if self.sides[self.loser] == "A" else "A"
        return None

    def points(self, side: str) -> int:
        w = self.winning_side
        return DRAW_POINTS if w is None else WIN_POINTS if w == side else LOSS_POINTS

    def seat_outcome(self, seat: int) -> str:
        """'win' for the seat that made the row (or, on a forfeit, each seat of the other
        side), 'draw', else 'loss'."""
        w = self.winning_side
        if w is None:
            return "draw"
        if self.winner is not None:
            return "win" if seat == self.winner else "loss"
        return "win" if self.sides[seat] == w else "loss"

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seating": self.seating.label, "sides": list(self.sides),
                "names": list(self.names),
                "winner_seat": None if self.winner is None else self.winner + 1,
                "forfeit_seat": None if self.loser is None else self.loser + 1,
                "winning_side": self.winning_side, "reason": self.reason, "detail": self.detail,
                "points": {"A": self.points("A"), "B": self.points("B")}, "opening": self.opening,
                "moves": [list(m) for m in self.moves], "times": [round(t, 4) for t in self.times]}


def opening_board(settings: NGameSettings, opening: Opening = ()) -> SeatBoard:
    """The board with `opening`'s stones placed in turn order; NBoardError (one line) for a
    stone the board refuses or an opening that already ends the game."""
    board = settings.game().board(opening)
    if board.game_over:
        raise NBoardError(f"opening {list(opening)} ends the game before anyone moves")
    return board


def play_ngame(seated: list[Player], settings: NGameSettings, limits: Optional[list[Limit]] = None,
               index: int = 0, sides: Optional[tuple[str, ...]] = None,
               stop: Optional[threading.Event] = None,
               opening: Opening = ()) -> NGameResult:
    """Play one game with `seated[s]` at seat s, judged by `engine.match.referee`, after
    `opening`'s stones (see `opening_board`). Player errors never escape: the seat that made
    one forfeits the game for its side."""
    n = settings.players
    if len(seated) != n:
        raise ValueError(f"{n} seats need {n} players, got {len(seated)}")
    sides = sides or tuple("A" if s == 0 else "B" for s in range(n))
    board = opening_board(settings, opening)
    names = [p.name for p in seated]
    words = SeatWords(names, settings.width, settings.board_height)
    v = referee(seated, board, limits or [settings.base_limit()] * n, words, settings.tolerance, stop=stop)
    return NGameResult(index, names, tuple(sides), v.winner, v.reason, v.detail, v.moves, v.times, v.loser,
                       len(opening))


# ----------------------------------------------------------------------------- matches

@dataclass
class NMatchSummary:
    """Results so far and the protocol's statistics over them."""
    name_a: str
    name_b: str
    players: int = 3
    results: list[NGameResult] = field(default_factory=list)
    stopped: str = ""

    def totals(self) -> dict[str, int]:
        return {side: sum(r.points(side) for r in self.results) for side in ("A", "B")}

    def wld(self, side: str, label: Optional[str] = None) -> tuple[int, int, int]:
        """Games won, lost and drawn by `side` (optionally only those of one seating label)."""
        rs = [r for r in self.results if label is None or r.seating.label == label]
        won = sum(r.winning_side == side for r in rs)
        drawn = sum(r.winning_side is None for r in rs)
        return won, len(rs) - won - drawn, drawn

    def by_seat(self) -> dict[str, list[dict[str, int]]]:
        """Per side, per seat: wins / draws / losses of that seat (a seat wins only when it
        made the row itself or the other side forfeited) and the games it sat there."""
        out: dict[str, list[dict[str, int]]] = {}
        for side in ("A", "B"):
            rows = []
            for s in range(self.players):
                rs = [r for r in self.results if r.sides[s] == side]
                cnt = {"games": len(rs), "wins": 0, "draws": 0, "losses": 0}
                for r in rs:
                    cnt[{"win": "wins", "draw": "draws", "loss": "losses"}[r.seat_outcome(s)]] += 1
                rows.append(cnt)
            out[side] = rows
        return out

    def wins_by_seat(self) -> list[int]:
        """How often each seat made the winning row, whoever sat there."""
        counts = [0] * self.players
        for r in self.results:
            if r.winner is not None:
                counts[r.winner] += 1
        return counts

    def report_lines(self) -> list[str]:
        a, b = self.name_a, self.name_b
        t = self.totals()
        n = len(self.results)
        lines = [f"Score of {a} vs {b} ({self.players} players; win {WIN_POINTS}, draw {DRAW_POINTS}, "
                 f"loss {LOSS_POINTS}): {t['A']} - {t['B']}  ({n} games)"]
        for label in seating_labels(self.players):
            w, l, d = self.wld("A", label)
            pa = WIN_POINTS * w + DRAW_POINTS * d
            pb = WIN_POINTS * l + DRAW_POINTS * d
            lines.append(f"...      {label}: {a} {pa} - {b} {pb}  ({a} {w} won, {l} lost, {d} drawn of {w + l + d})")
        lines.append("...      by seat (seat 1 moves first), wins - draws - losses of the seat:")
        lines.append("         " + "".join(f"{'seat ' + str(s + 1):>16}" for s in range(self.players)))
        seats = self.by_seat()
        for side, name in (("A", a), ("B", b)):
            cells = "".join(f"{str(c['wins']) + ' - ' + str(c['draws']) + ' - ' + str(c['losses']):>16}"
                            for c in seats[side])
            lines.append(f"         {cells}  {name}")
        lines.append("         " + "".join(f"{str(c) + ' wins':>16}" for c in self.wins_by_seat()) + "  any side")
        return lines

    def to_json(self) -> dict[str, Any]:
        t = self.totals()
        out: dict[str, Any] = {
            "players": self.players, "player_a": self.name_a, "player_b": self.name_b,
            "games": len(self.results),
            "points": {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS},
            "totals": {"A": t["A"], "B": t["B"]},
            "by_seating": {label: dict(zip(("a_wins", "a_losses", "draws"), self.wld("A", label)))
                           for label in seating_labels(self.players)},
            "by_seat": self.by_seat(), "wins_by_seat": self.wins_by_seat(),
            "stopped": self.stopped or None, "results": [r.to_json() for r in self.results],
        }
        return out


def check_spec(spec: PlayerSpec, players: int) -> None:
    """SpecError (one line) for a player that cannot sit at an n-player board."""
    if spec.kind not in NPLAYER_KINDS:
        raise SpecError(f"{spec.name} plays two-player games only; {players} players need "
                        f"pure-mcts:N, random or a {players}-player FILE.onnx")


class NMatch:
    """A match between two players over cycles of every seating (see the module docstring).
    `games` must be a multiple of the cycle (2 x players). `openings`: cycle k starts its
    games from openings[k % len(openings)]; none, from the empty board."""

    def __init__(self, a: str | PlayerSpec, b: str | PlayerSpec, settings: NGameSettings, games: int,
                 seed: Optional[int] = None, names: Optional[tuple[str, str]] = None,
                 factory: Callable[..., Player] = make_engine_player,
                 openings: Sequence[Opening] = ()) -> None:
        settings.check()
        self.specs = {"A": parse_spec(a) if isinstance(a, str) else a,
                      "B": parse_spec(b) if isinstance(b, str) else b}
        for spec in self.specs.values():
            check_spec(spec, settings.players)
        cycle = 2 * settings.players
        if games < cycle or games % cycle:
            raise ValueError(f"{settings.players} players: the number of games must be a multiple of {cycle} "
                             f"(every seating of 1 A vs 2 B and 2 A vs 1 B), got {games}")
        self.settings, self.games, self.factory = settings, games, factory
        self.openings = [tuple((int(x), int(y)) for x, y in o) for o in openings]
        for o in self.openings:
            opening_board(settings, o)          # a bad opening fails here, before any game
        self.seed = seed if seed is not None else random.randrange(1 << 30)
        names = names or (self.specs["A"].name, self.specs["B"].name)
        self.summary = NMatchSummary(names[0], names[1], settings.players)
        # one Player per side and seat-copy: the doubled side's two seats keep separate trees
        self._pool: dict[tuple[str, int], Player] = {}

    def schedule(self) -> list[Seating]:
        cyc = seatings(self.settings.players)
        return [cyc[i % len(cyc)] for i in range(self.games)]

    def opening(self, index: int) -> Opening:
        """The stones game `index` starts from: one opening per cycle of seatings."""
        if not self.openings:
            return ()
        return self.openings[(index // (2 * self.settings.players)) % len(self.openings)]

    def _player(self, side: str, copy: int) -> Player:
        key = (side, copy)
        p = self._pool.get(key)
        if p is None:
            s = self.settings
            p = self.factory(self.specs[side], win_length=s.win_length, players=s.players)
            self._pool[key] = p
        return p

    def _limit(self, side: str) -> Limit:
        return self.specs[side].limit_for(self.settings.base_limit())

    def probe(self) -> None:
        """Create each side's player once (SpecError / PlayerError for one that cannot play),
        and run one short search so loading caches is not charged to a timed move."""
        s = self.settings
        for side in ("A", "B"):
            p = self._player(side, 0)
            p.new_game(s.width, s.board_height, s.rule)
            board = s.game().board([(s.width // 2, s.board_height // 2)])
            p.play(board.view(), Limit(playouts=16))  # type: ignore[arg-type]  # an NBoard: see referee._ask

    def run(self, on_game_start: Optional[Callable[[int, Seating], None]] = None,
            on_game_end: Optional[Callable[[NGameResult, NMatchSummary], None]] = None,
            stop: Optional[threading.Event] = None) -> NMatchSummary:
        for i, seating in enumerate(self.schedule()):
            if stop is not None and stop.is_set():
                self.summary.stopped = "interrupted"
                break
            if on_game_start is not None:
                on_game_start(i, seating)
            seated, limits, copies = [], [], {"A": 0, "B": 0}
            for seat, side in enumerate(seating.sides):
                p = self._player(side, copies[side])
                reseed = getattr(p, "reseed", None)
                if callable(reseed):
                    reseed((self.seed * 1009 + i) * 8 + seat)
                copies[side] += 1
                seated.append(p)
                limits.append(self._limit(side))
            res = play_ngame(seated, self.settings, limits, i, seating.sides, stop, self.opening(i))
            res.names = [self.summary.name_a if side == "A" else self.summary.name_b for side in seating.sides]
            self.summary.results.append(res)
            if res.reason in ("crash", "time") and res.loser is not None:
                self._drop(seating.sides[res.loser])
            if on_game_end is not None:
                on_game_end(res, self.summary)
        return self.summary

    def _drop(self, side: str) -> None:
        """A player that crashed or ran out of time is replaced before the next game."""
        for key in [k for k in self._pool if k[0] == side]:
            try:
                self._pool.pop(key).close()
            except Exception:   # noqa: BLE001 - a broken player's close must not end the match
                pass

    def close(self) -> None:
        for key in list(self._pool):
            try:
                self._pool.pop(key).close()
            except Exception:  # noqa: BLE001
                pass


__all__ = ["NGameSettings", "NGameResult", "NMatch", "NMatchSummary", "Seating", "check_spec", "opening_board",
           "play_ngame", "seatings", "seating_labels", "WIN_POINTS", "DRAW_POINTS", "LOSS_POINTS"]
