"""Classical-engine games for the first generations (the CPU bootstrap).

A random net's self-play is close to random play; on a 2-core laptop many generations go by
before its games teach anything. The classical engine (threat solver + alpha-beta) plays
sensible Gomoku from the first move, so early generations can learn its moves (one-hot policy
targets on the move it chose) and the results of its games, and self-play takes over from a
net that already knows to make and block fours. Only two-player five-in-a-row games exist
for the classical engine. This module imports no torch: it runs in self-play workers.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from gomoku.engine.game.board import Board
from gomoku.engine.base.limits import Limit
from gomoku.engine.search.learned import DEFAULT_EVAL_SCALE
from gomoku.engine.game.rules import Rule, parse_rule

from .games import TrainingGame


def classical_supported(win_length: int, players: int, width: int, height: int) -> bool:
    return win_length == 5 and players == 2 and min(width, height) >= 5


def _random_near_centre(board: Board, rng: np.random.Generator, radius: int) -> tuple[int, int]:
    cx, cy = board.width // 2, board.height // 2
    cells = [(x, y) for (x, y) in board.legal_moves() if abs(x - cx) <= radius and abs(y - cy) <= radius]
    if not cells:
        cells = board.legal_moves()
    return cells[int(rng.integers(0, len(cells)))]


def play_classical_games(width: int, height: int, rule: str, n_games: int, seed: int, nodes: int = 2000,
                         opening_moves: int = 2, explore: float = 0.05, progress=None,
                         evaluator: Optional[str] = None) -> list[TrainingGame]:
    """`n_games` games of the classical engine (`nodes` per move) against itself; with
    `evaluator` (a learned evaluator file) the alpha-beta scores its leaves with it instead of
    the tables: the learned evaluator's own games, which its next generation learns from.

    Variety comes from 1..opening_moves random stones near the centre (not recorded) and, with
    probability `explore` per move, a random move next to the stones played instead of the
    engine's (its target stays the engine's move). progress(games_done, moves) as games end."""
    from gomoku.engine.player.agent import EnginePlayer
    rng = np.random.default_rng(seed)
    r = parse_rule(rule)
    learned = None
    if evaluator is not None:
        from gomoku.engine.search.learned_file import load_evaluator
        ev = load_evaluator(evaluator)
        learned = {ev.rule_id: ev}
    player = EnginePlayer(nodes=nodes, name="classical-bootstrap", learned=learned)
    out: list[TrainingGame] = []
    total_moves = 0
    try:
        for _ in range(n_games):
            game = _one_game(player, width, height, r, nodes, int(rng.integers(1, opening_moves + 1)), explore, rng)
            total_moves += game.moves.size
            out.append(game)
            if progress is not None:
                progress(len(out), total_moves)
    finally:
        player.close()
    return out


def _one_game(player, width: int, height: int, rule: Rule, nodes: int, opening: int, explore: float,
              rng: np.random.Generator) -> TrainingGame:
    board = Board(width, height, rule)
    player.new_game(width, height, rule)
    moves: list[int] = []
    targets: list[int] = []
    recorded: list[bool] = []
    scores: list[float] = []
    limit = Limit(nodes=nodes)
    while not board.game_over:
        if len(moves) < opening:
            x, y = _random_near_centre(board, rng, 2)
            target, rec = y * width + x, False
            scores.append(float("nan"))
        else:
            out = player.play(board, limit)
            scores.append(win_probability(out.info.get("score")))
            ex, ey = out.move
            target, rec = ey * width + ex, True
            x, y = ex, ey
            if rng.random() < explore:
                near = [(a, b) for (a, b) in board.legal_moves()
                        if any(board.in_bounds(a + dx, b + dy) and board.cell(a + dx, b + dy) != 0
                               for dx in (-1, 0, 1) for dy in (-1, 0, 1))]
                if near:
                    x, y = near[int(rng.integers(0, len(near)))]
        moves.append(y * width + x)
        targets.append(target)
        recorded.append(rec)
        board.play(x, y)
    policy = np.zeros((len(moves), width * height), dtype=np.float32)
    policy[np.arange(len(moves)), targets] = 1.0
    winner = board.winner - 1 if board.winner in (1, 2) else -1     # BLACK=1 is seat 0
    return TrainingGame(width, height, rule.label, 5, 2, np.array(moves), policy, np.array(recorded), winner,
                        source="classical" if player.searcher.startswith("classical") else "learned",
                        scores=np.array(scores, dtype=np.float32))


#: search units per logit of the win probability: the learned evaluator's, which its value
#: targets are then in (about the tables' Texel scale)
SCORE_SCALE = DEFAULT_EVAL_SCALE


def win_probability(score) -> float:  # noqa: ANN001 - int, 'win', 'loss' or None
    """The mover's chance of winning that a search score stands for (NaN: no score)."""
    if score == "win":
        return 1.0
    if score == "loss":
        return 0.0
    if score is None:
        return float("nan")
    return float(1.0 / (1.0 + np.exp(-float(score) / SCORE_SCALE)))
