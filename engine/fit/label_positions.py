"""The positions of scored-games files (engine.game.labels) that the leaf evaluation is asked about.

One definition for both users of searched labels: the learned evaluator's trainer
(train.labelset keeps the stones of each) and the tables' fit (`gomoku tune --labels`, which
needs only the counts the tables weigh). A position is kept where a search scored it with a
score short of a proven result, chose a move in it, and the board does not settle it by rule
(tuning.leaf_row's test, the one the tables were fitted under).

Its value target blends the two labels Stockfish's NNUE trainers blend (lambda): the search's
score turned into a win probability at the evaluation's scale, and the game's result. Fitting
the tables to their own search's scores is Texel tuning with the search as the teacher: a
20,000-node search sees the tactics a static count cannot, and the fit moves the counts'
weights towards what those tactics made of such positions.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

import numpy as np

from gomoku.engine.fit.tuning import leaf_row
from gomoku.engine.game.board import Board
from gomoku.engine.game.labels import NO_SCORE, ScoredGame, no_cell, read_games
from gomoku.engine.game.rules import Rule
from gomoku.engine.search.tables import WIN_MIN

#: scores at or beyond this are the search's proven results, which no evaluation is asked for
PROVEN = WIN_MIN


class LabelFileError(ValueError):
    """Labels that cannot be used; one line naming the file."""


def leaf_plies(game: ScoredGame) -> Iterator[tuple[int, Board, np.ndarray]]:
    """(ply, the board before that ply's move, its leaf_row features) of each kept position of
    the game, in order. The board is the generator's own and moves on after each yield."""
    w, h = game.width, game.height
    none = no_cell(w, h)
    board = Board(w, h, rule=game.rule)
    for ply in range(game.plies):
        s, b = int(game.scores[ply]), int(game.best[ply])
        if s != NO_SCORE and b != none and abs(s) < PROVEN and not board.game_over:
            row = leaf_row(board)
            if row is not None:
                yield ply, board, row
        m = int(game.moves[ply])
        board.play(m % w, m // w)


def label_target(score: np.ndarray, result: np.ndarray, scale: float, lam: float) -> np.ndarray:
    """float32[n]: lam * sigmoid(score / scale) + (1 - lam) * the result (+1 / 0 / -1 for the
    side to move) as 1 / 1/2 / 0."""
    search = 1.0 / (1.0 + np.exp(-np.asarray(score, dtype=np.float64) / scale))
    won = (np.asarray(result, dtype=np.float64) + 1.0) / 2.0
    return (lam * search + (1.0 - lam) * won).astype(np.float32)


def checked_games(path: Path, rule: Optional[Rule], width: int = 15,
                  height: int = 15) -> Iterator[tuple[int, ScoredGame]]:
    """(index, game) of a labels file, LabelFileError (one line) for a missing or unreadable
    file, or a game of another size or (with `rule` given) another rule."""
    try:
        for index, game in enumerate(read_games(path)):
            if (game.width, game.height) != (width, height) or (rule is not None and game.rule != int(rule)):
                want = f"{rule.label} " if rule is not None else ""
                raise LabelFileError(f"{path}: game {index} is {Rule(game.rule).label} {game.width}x{game.height}, "
                                     f"the training is {want}{width}x{height}")
            yield index, game
    except FileNotFoundError:
        raise LabelFileError(f"labels file not found: {path}") from None
    except OSError as exc:
        raise LabelFileError(f"{path}: {exc.strerror or exc}") from None
    except LabelFileError:
        raise
    except ValueError as exc:
        raise LabelFileError(f"{path}: {exc}") from None


def read_label_rows(paths: Sequence[str | Path], rule: Optional[Rule], lam: float, scale: float,
                    on_game: Optional[Callable[[int], None]] = None
                    ) -> tuple[Rule, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The kept positions of 15x15 labels files as the tables' fit takes them: the rule (`rule`,
    or when None the first game's) and per file (X, y, game_index), X the leaf_row features and
    y `label_target`; `on_game(positions so far)` after each game. LabelFileError for what
    `checked_games` refuses or a file of no position."""
    total = 0
    parts = []
    for path in map(Path, paths):
        rows: list[np.ndarray] = []
        scores: list[int] = []
        results: list[int] = []
        games: list[int] = []
        for index, game in checked_games(path, rule):
            if rule is None:
                rule = Rule(game.rule)
            for ply, _board, row in leaf_plies(game):
                rows.append(row)
                scores.append(int(game.scores[ply]))
                results.append(game.result_for_mover(ply))
                games.append(index)
                total += 1
            if on_game is not None:
                on_game(total)
        if not rows:
            raise LabelFileError(f"{path}: no position the leaf evaluation scores")
        parts.append((np.stack(rows), label_target(np.array(scores), np.array(results), scale, lam),
                      np.array(games, dtype=np.int64)))
    if rule is None:
        raise LabelFileError("no labels file given")
    return rule, parts
