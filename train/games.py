"""One finished training game, whichever player made it (neural self-play or the classical bootstrap).

The fields are those of the engine's `SelfPlayGame` plus `source`, so the replay store and the
trainer do not care who played. Positions are not stored: the planes of the position before
move t are rebuilt from the move list with the engine's `encode_game`, the one definition of
the input planes shared with play time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

#: where a game came from; stored in shards as the index into this tuple
SOURCES = ("selfplay", "classical", "learned")


@dataclass
class TrainingGame:
    """moves: int32[T] flat cells (y * width + x) in play order; policy: float32[T, H*W] search
    targets (visit shares, or one-hot for the classical engine), meaningful where recorded[t];
    winner: seat 0..P-1 (seat 0 moves first) or -1 for a draw."""
    width: int
    height: int
    rule: str                 # Rule label: freestyle, standard, renju, caro, caro5
    win_length: int
    players: int
    moves: np.ndarray
    policy: np.ndarray
    recorded: np.ndarray
    winner: int
    resigned: bool = False
    source: str = "selfplay"
    #: never-resign games (the share that checks the threshold): the first seat whose value fell
    #: below it, -1 if none; a game this seat went on to win would have been a wrong resignation
    would_resign: int = -1
    #: float32[T] or None: the search's judgement of the position before each move, as the
    #: mover's probability of winning (NaN where the move was not searched): the alpha-beta's
    #: games record it, and value targets blend it with the result (a far denser label)
    scores: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        self.moves = np.asarray(self.moves, dtype=np.int32)
        self.policy = np.asarray(self.policy, dtype=np.float32).reshape(self.moves.size, self.width * self.height)
        self.recorded = np.asarray(self.recorded, dtype=bool)
        if self.recorded.shape != self.moves.shape:
            raise ValueError("recorded must have one flag per move")
        if self.scores is not None:
            self.scores = np.asarray(self.scores, dtype=np.float32)
            if self.scores.shape != self.moves.shape:
                raise ValueError("scores must have one value per move")


def from_selfplay(game: Any, source: str = "selfplay") -> TrainingGame:
    """Convert the engine's SelfPlayGame (duck-typed, so this module imports nothing heavy)."""
    from gomoku.engine.game.rules import Rule
    label = Rule(int(game.rule)).label
    return TrainingGame(width=int(game.width), height=int(game.height), rule=label,
                        win_length=int(game.win_length), players=int(game.players), moves=game.moves,
                        policy=game.policy, recorded=game.recorded, winner=int(game.winner),
                        resigned=bool(getattr(game, "resigned", False)), source=source,
                        would_resign=int(getattr(game, "would_resign", -1)))


def value_targets(moves_len: int, winner: int, players: int) -> np.ndarray:
    """Outcome class of every position of a game from its mover's view (docs/net-format.md):
    0 = the mover wins, k = the k-th player after the mover wins, P = draw. int64[T]"""
    t = np.arange(moves_len)
    if winner < 0:
        return np.full(moves_len, players, dtype=np.int64)
    return ((winner - t % players) % players).astype(np.int64)


def outcome_class(t: int, winner: int, players: int) -> int:
    """value_targets for the position before move t alone."""
    return players if winner < 0 else (winner - t % players) % players
