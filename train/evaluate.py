"""Evaluation through the engine's match runner: gating against the best net and a ladder of
pure MCTS opponents (seed 000: rollout MCTS at 1000, 2000, ... playouts).

Games go through `engine.arena` (referee, colour swaps, worker processes), the same code
`gomoku match` uses, with players named by spec strings (`net.onnx:playouts=N`,
`pure-mcts:playouts=N`). The referee judges two-player games (five, or k in a row for the
MCTS players); games of more players are not evaluated (the caller then always replaces the
best net). No torch here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from gomoku.engine.game.rules import parse_rule


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


def can_evaluate(win_length: int, players: int) -> bool:
    return players == 2


def random_openings(width: int, height: int, count: int, seed: int, stones: int = 2) -> tuple[tuple, ...]:
    """`count` openings of `stones` random stones in the central 5x5 square (3x3 on boards under 9).

    Two nets searching an empty board with fixed playouts play the same game every time, so a
    gating match without openings is one game per colour repeated; each opening here is played
    twice with colours swapped, which keeps the match fair."""
    rng = np.random.default_rng(seed)
    r = 2 if min(width, height) >= 9 else 1
    cx, cy = width // 2, height // 2
    cells = [(x, y) for y in range(cy - r, cy + r + 1) for x in range(cx - r, cx + r + 1)]
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


def net_spec(path: str, playouts: int, name: str) -> str:
    return f"{path}:playouts={playouts},name={name}"


def pure_spec(playouts: int) -> str:
    return f"pure-mcts:playouts={playouts}"
