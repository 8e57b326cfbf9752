"""Fit the classical evaluation's weight tables to game results (Texel) or to a teacher's scores.

The leaf evaluation (engine.search.alphabeta, tables in engine.search.evaluation) is linear in the class and
line-pattern counts the board core keeps: from the side to move's view

    eval = sum_k OWN[k] * counts[me, k] - OPP[k] * counts[op, k]                k = WEAK .. F4
         + sum_p PATTERN_OWN[p] * pcounts[me, p] - PATTERN_OPP[p] * pcounts[op, p]   p = B1 .. F4
         + sum_q PAIR_OWN[q] * qcounts[me, q] - PAIR_OPP[q] * qcounts[op, q]   q = 1 .. NUM_PAIRS-1

(pcounts[c, p] being counts[c, PATTERN_COUNTS + p] in the core, qcounts[c, q] counts[c,
PAIR_COUNTS + q])

Texel's method (Peter Österlund, Texel chess engine) treats `sigmoid(eval / K)` as the
probability that the side to move wins and picks the weights that best predict real game
results: every position of a finished game is labelled with that game's outcome (1 win,
0 loss, 0.5 draw, from the side to move), which is noisy per position but unbiased over
thousands. Because the evaluation is linear in the counts this is plain logistic
regression, so Newton's method converges in a handful of steps and needs only numpy;
`gomoku tune` runs it (`read_positions`, `fit_tables`, `report`) so that the shipped tables
(engine/data/eval_tables.json) can be reproduced from a set of games. numpy only: tuning
needs no torch.
The same fit takes soft labels: a stronger engine's win probability for each position
(`load_scored`, `gomoku tune --scores`), which says far more per position than a result.

Only positions the leaf evaluation actually scores are used: when the side to move has a
five or an open four (class F4) or the opponent has a five to complete, the search decides
the position by rule before it ever calls the evaluation, so those positions would teach
the weights something the engine never asks them. For the same reason OWN[F4] and the own
F4 pattern get no data and keep their current values, and the FIVE entries stay 0.

A logistic fit gives weights in logit units; the search's margins (futility, aspiration
windows, score reports) are in evaluation units, so the fitted weights are scaled by the
K at which the CURRENT tables predict the results best. The new tables then have the same
meaning per unit as the old ones.
"""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generator, Iterable, Optional, Sequence

import numpy as np

from gomoku.engine.game.board import Board, IllegalMove
from gomoku.engine.game.core import C_F4, C_FIVE, C_WEAK, M_TOMOVE, NUM_PAIRS, PAIR_COUNTS, PAIR_NAMES, PATTERN_COUNTS
from gomoku.engine.game.patterns import B1, F4, NUM_PATTERNS
from gomoku.engine.game.records import RESULT_BLACK, RESULT_DRAW, RESULT_WHITE, GameRecord
from gomoku.engine.game.rules import Rule, parse_rule
from gomoku.engine.search.evaluation import WEIGHED_CLASSES, WEIGHED_PAIRS, WEIGHED_PATTERNS, EvalTables

#: the entries the evaluation weighs (engine.search.evaluation says why these)
CLASSES, PATTERNS, PAIRS = WEIGHED_CLASSES, WEIGHED_PATTERNS, WEIGHED_PAIRS
NCLS = CLASSES.stop - CLASSES.start        # 9 classes per side
NPAT = PATTERNS.stop - PATTERNS.start      # 8 patterns per side
NPAIR = PAIRS.stop - PAIRS.start           # 27 pairs per side
#: feature columns: own classes, opponent classes, own patterns, opponent patterns, own
#: pairs, opponent pairs
_P0 = 2 * NCLS + 2 * NPAT
NFEAT = _P0 + 2 * NPAIR
_OWN_CLS, _OPP_CLS = slice(0, NCLS), slice(NCLS, 2 * NCLS)
_OWN_PAT, _OPP_PAT = slice(2 * NCLS, 2 * NCLS + NPAT), slice(2 * NCLS + NPAT, _P0)
_OWN_PAIR, _OPP_PAIR = slice(_P0, _P0 + NPAIR), slice(_P0 + NPAIR, NFEAT)
#: every pattern and pair column (`gomoku tune --no-patterns` blanks them)
PATTERN_COLUMNS = slice(2 * NCLS, NFEAT)
#: per EvalTables field (own, opp, pattern_own, pattern_opp, pair_own, pair_opp): the table's
#: length, the entries the features weigh, and their feature columns
_LAYOUT = ((C_FIVE + 1, CLASSES, _OWN_CLS), (C_FIVE + 1, CLASSES, _OPP_CLS),
           (NUM_PATTERNS, PATTERNS, _OWN_PAT), (NUM_PATTERNS, PATTERNS, _OPP_PAT),
           (NUM_PAIRS, PAIRS, _OWN_PAIR), (NUM_PAIRS, PAIRS, _OPP_PAIR))
#: columns of the own side's open-four cells (class F4, pattern F4, every F4+ pair): never
#: a leaf position, so no data
_F4_COLS = [C_F4 - C_WEAK, 2 * NCLS + F4 - B1] + \
    [_P0 + i - 1 for i, n in enumerate(PAIR_NAMES) if n.startswith("F4+")]

_LABELS = {RESULT_BLACK: (1.0, 0.0), RESULT_WHITE: (0.0, 1.0), RESULT_DRAW: (0.5, 0.5)}


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -500.0, 500.0)))


def teacher_cross_entropy(p: np.ndarray, score: np.ndarray, scale: float) -> float:
    """Mean cross-entropy of evaluations `score` (side to move's view, read as the probability
    sigmoid(score / scale)) against a teacher's probabilities `p`: how the learned evaluator's
    checks (`gomoku tune --eval`, a training run's held-out games) compare evaluations."""
    q = np.clip(_sigmoid(np.asarray(score, dtype=np.float64) / float(scale)), 1e-7, 1.0 - 1e-7)
    p = np.asarray(p, dtype=np.float64)
    return float(np.mean(-(p * np.log(q) + (1.0 - p) * np.log(1.0 - q))))


def decided(p: np.ndarray) -> np.ndarray:
    """bool[n]: the teacher's probabilities that announce a win or a loss (exactly 1 or 0), the
    positions a search settles with its threat solvers; the rest are the quiet ones."""
    p = np.asarray(p)
    return (p == 0.0) | (p == 1.0)


# ----------------------------------------------------------------------------- positions

def leaf_row(board: Board) -> Optional[np.ndarray]:
    """The NFEAT features of the board's position (counts[me, WEAK..F4], counts[op,
    WEAK..F4], pcounts[me, B1..F4], pcounts[op, B1..F4], qcounts[me, 1..], qcounts[op, 1..]),
    or None where the search decides the position by rule before its leaf evaluation would
    be asked: the side to move has a five or an open-four cell, or the
    opponent has a five to complete. (Renju black's and caro's open-four cells are left
    out too, though the search's leaf does score those: few positions, and the shipped
    common tables were fitted this way.)"""
    st = board.state
    me = int(st.meta[M_TOMOVE]) - 1
    op = 1 - me
    c = st.counts
    if c[me, C_F4] or c[me, C_FIVE] or c[op, C_FIVE]:
        return None
    pc = c[:, PATTERN_COUNTS:]
    pr = c[:, PAIR_COUNTS:]
    return np.concatenate([c[me, CLASSES], c[op, CLASSES], pc[me, PATTERNS], pc[op, PATTERNS],
                           pr[me, PAIRS], pr[op, PAIRS]]).astype(np.float64)


def game_positions(rec: GameRecord, min_ply: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of one finished game (see `extract`); empty if it has no result."""
    labels = _LABELS.get(rec.result)
    rows: list[np.ndarray] = []
    ys: list[float] = []
    if labels is None:
        return np.zeros((0, NFEAT)), np.zeros(0)
    try:
        board = Board(rec.width, rec.height, rule=rec.rule)
    except (ValueError, IndexError):      # a size the core does not support
        return np.zeros((0, NFEAT)), np.zeros(0)
    for ply, (x, y) in enumerate(rec.moves):
        if ply >= min_ply:
            row = leaf_row(board)
            if row is not None:
                rows.append(row)
                ys.append(labels[int(board.state.meta[M_TOMOVE]) - 1])
        try:
            board.play(x, y)
        except IllegalMove:
            break            # a record that runs past its end (or a broken one): keep what came before
    if not rows:
        return np.zeros((0, NFEAT)), np.zeros(0)
    return np.array(rows), np.array(ys)


def extract(records: Iterable[GameRecord], min_ply: int = 6,
            on_game: Optional[Callable[[GameRecord], None]] = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of every game that has a result, as Texel training data.

    Each game is replayed; from ply `min_ply` on (the opening is book-like and says little
    about the weights), every position the leaf evaluation would score -- side to move has
    no F4 or FIVE cell, opponent has no FIVE cell -- gives one row of features (`leaf_row`).
    Its label is the game result from the side to move: 1 win, 0 loss,
    0.5 draw. Replay stops at the first illegal move. `on_game` is called after each record
    (progress bars).

    Returns X float64[n, NFEAT], y float64[n] and game_index int[n] (the record each row came
    from, counting every record given, so holdout splits can be made by game).
    """
    xs, ys, gs = [], [], []
    for i, rec in enumerate(records):
        x, y = game_positions(rec, min_ply)
        if len(y):
            xs.append(x)
            ys.append(y)
            gs.append(np.full(len(y), i, dtype=np.int64))
        if on_game is not None:
            on_game(rec)
    if not xs:
        return np.zeros((0, NFEAT)), np.zeros(0), np.zeros(0, dtype=np.int64)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


def scored_header(path: str, line: Optional[str]) -> tuple[Rule, int, int]:
    """Rule, width and height from a scored-positions file's first line."""
    if line is None:
        raise ValueError(f"{path}: empty file")
    head = line.strip().lstrip("#").replace(":", " ").split()
    try:
        if head[:2] != ["scored", "positions"] or head[2] != "rule" or head[4] != "size":
            raise ValueError
        rule = parse_rule(head[3])
        w, _, h = head[5].partition("x")
        width, height = int(w), int(h or w)
        Board(width, height, rule=rule)          # a size the core supports
    except (ValueError, IndexError):
        raise ValueError(f"{path}:1: the first line must be "
                         f"'# scored positions: rule RULE size W[xH]'") from None
    return rule, width, height


def scored_positions(path: str) -> tuple[Rule, int, int, Generator[tuple[str, float, Board], None, None]]:
    """A scored-positions file (the format `load_scored` describes) read once for everyone who
    reads it (tuning here, the trainer's teacher): its rule and size from the header, and the
    positions as (game, P, board), one per line; ValueError (one line, naming the file and the
    line) for a bad header or line."""
    opener = gzip.open if str(path).endswith(".gz") else open
    fh = opener(path, "rt")
    try:
        rule, width, height = scored_header(str(path), next(fh, None))
    except BaseException:
        fh.close()
        raise

    def positions() -> Generator[tuple[str, float, Board], None, None]:
        with fh:
            for lineno, line in enumerate(fh, 2):
                parts = line.split()
                if not parts or parts[0].startswith("#"):
                    continue
                try:
                    p = float(parts[1])
                    if not 0.0 <= p <= 1.0:
                        raise ValueError
                    board = Board(width, height, rule=rule)
                    for m in parts[2:]:
                        x, y = (int(v) for v in m.split(","))
                        board.play(x, y)
                except (ValueError, IndexError, IllegalMove):
                    raise ValueError(f"{path}:{lineno}: not 'GAME P x,y x,y ...' with P in [0, 1] "
                                     f"and legal moves") from None
                yield parts[0], p, board
    return rule, width, height, positions()


def load_scored(path: str) -> tuple[Rule, np.ndarray, np.ndarray, np.ndarray]:
    """Positions labelled by a teacher engine, as training data (`gomoku tune --scores`).

    Game results label every position of a game alike, so most of their signal is noise;
    a stronger engine's judgement of each position is a far denser label (distillation).
    The file (plain text, or gzip when the name ends in .gz) starts with a header
    `# scored positions: rule RULE size W[xH]`; every other line that is not blank or a
    `#` comment is `GAME P x,y x,y ...`: the moves from the empty board, and P in [0, 1],
    the teacher's probability that the side to move after them wins. GAME names the game
    the position came from, so that holdout splits keep a game's positions together.
    Positions the leaf evaluation never scores (see `leaf_row`) are skipped.

    Returns the rule, X float64[n, NFEAT], y float64[n] and game_index int[n]; a malformed
    file raises ValueError naming the line.
    """
    xs, ys, gs = [], [], []
    games: dict[str, int] = {}
    rule, _, _, positions = scored_positions(path)
    for game, p, board in positions:
        row = leaf_row(board)
        if row is not None:
            xs.append(row)
            ys.append(p)
            gs.append(games.setdefault(game, len(games)))
    return (rule, np.array(xs, dtype=np.float64).reshape(-1, NFEAT), np.array(ys, dtype=np.float64),
            np.array(gs, dtype=np.int64))


def game_key(path: str, game: str) -> float:
    """A scored game's number in [0, 1): a hash of its file's name and its name in the file.
    Holdouts by it (`gomoku train --scores-holdout`) keep a game out whatever other files come
    with it, so a run that adds a file holds out the same old games."""
    return zlib.crc32(f"{Path(path).name}:{game}".encode()) / 2.0 ** 32


def split_by_game(game_index: np.ndarray, holdout: float, seed: int = 0) -> np.ndarray:
    """Boolean mask of training rows: a share `holdout` of the games (at least one when
    holdout > 0 and there are two or more games) is held out whole, because positions of
    one game are strongly correlated and a split by position would flatter the fit."""
    games = np.unique(game_index)
    n_out = int(round(holdout * len(games)))
    if holdout > 0 and len(games) >= 2:
        n_out = min(max(n_out, 1), len(games) - 1)
    else:
        n_out = 0
    rng = np.random.default_rng(seed)
    held = rng.permutation(games)[:n_out]
    return ~np.isin(game_index, held)


# ----------------------------------------------------------------------------- fit

def _signed(X: np.ndarray) -> np.ndarray:
    """Own columns as they are, opponent columns negated: eval = Z @ weight_vector(tables)."""
    Z = np.asarray(X, dtype=np.float64).copy()
    Z[:, _OPP_CLS] *= -1.0
    Z[:, _OPP_PAT] *= -1.0
    Z[:, _OPP_PAIR] *= -1.0
    return Z


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50, tol: float = 1e-10) -> np.ndarray:
    """Weights w[NFEAT] of `P(side to move wins) = sigmoid(eval)`, eval being the own
    columns of X times their weights less the opponent columns times theirs.

    L2-regularised logistic regression (cross-entropy, which accepts the 0.5 draw labels)
    solved by Newton's method. Features are scaled to unit standard deviation first, so the
    penalty `l2` treats every class alike however common it is, and Newton's Hessian stays
    well conditioned. No intercept: the evaluation has none (the side-to-move advantage is
    already in OWN vs OPP). A class that never occurs gets weight 0.

    The result is in logit units per cell; `to_tables` turns it into evaluation units.
    """
    Z = _signed(X)
    y = np.asarray(y, dtype=np.float64)
    n = Z.shape[0]
    if n == 0:
        raise ValueError("no positions to fit")
    sd = Z.std(axis=0)
    active = sd > 0                         # a constant column (absent class) keeps weight 0:
    Zs = Z[:, active] / sd[active]          # without an intercept it could only stand in for one
    m = Zs.shape[1]
    w = np.zeros(m)

    def loss(v: np.ndarray) -> float:
        z = Zs @ v
        # log(1 + e^z) - y z, written to stay finite for large |z|
        return float(np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * v @ v)

    cur = loss(w)
    for _ in range(iters):
        p = _sigmoid(Zs @ w)
        g = Zs.T @ (p - y) / n + l2 * w
        H = (Zs * (p * (1.0 - p))[:, None]).T @ Zs / n + l2 * np.eye(m)
        step = np.linalg.solve(H, g)
        t = 1.0
        while True:                           # damped Newton: halve until the loss drops
            nxt = loss(w - t * step)
            if nxt <= cur or t < 1e-4:
                break
            t *= 0.5
        w = w - t * step
        done = cur - nxt < tol
        cur = nxt
        if done:
            break
    out = np.zeros(Z.shape[1])
    out[active] = w / sd[active]
    return out


def weight_vector(tables: EvalTables) -> np.ndarray:
    """The NFEAT weights of a set of tables, in the feature columns' order."""
    return np.concatenate([_checked(t, size)[cut].astype(np.float64)
                           for t, (size, cut, _cols) in zip(tables, _LAYOUT)])


def _checked(table: Sequence[float], size: int) -> np.ndarray:
    a = np.asarray(table)
    if a.shape != (size,):
        raise ValueError(f"a weight table needs {size} entries, not {a.shape}")
    return a


def evaluate(X: np.ndarray, tables: EvalTables) -> np.ndarray:
    """The leaf evaluation of every row for the given tables (side to move's view)."""
    return _signed(X) @ weight_vector(tables)


def mse(X: np.ndarray, y: np.ndarray, tables: EvalTables, scale: float) -> float:
    """Texel's error: mean of (result - sigmoid(eval / scale))^2 over the positions."""
    p = _sigmoid(evaluate(X, tables) / float(scale))
    return float(np.mean((p - np.asarray(y, dtype=np.float64)) ** 2))


#: K candidates of `best_scale`: 60 log-spaced points from 10 to 10000 (steps of 12 %).
#: The shipped tables were scaled with this grid; the MSE is flat near its minimum, and a
#: fixed grid makes the printed tables reproducible to the unit (the shipped tables' own
#: best K is the grid point they were scaled with, so re-tuning on the same games returns
#: them unchanged).
SCALE_GRID = np.geomspace(10.0, 10000.0, 60)


def best_scale(X: np.ndarray, y: np.ndarray, tables: EvalTables,
               grid: Optional[Sequence[float]] = None) -> float:
    """The logistic scale K (eval units per logit) at which given tables predict best.

    Integer tables carry an arbitrary unit; K is that unit, the point of `grid` (default
    SCALE_GRID) with the least MSE.
    """
    e = evaluate(X, tables)
    y = np.asarray(y, dtype=np.float64)
    grid = SCALE_GRID if grid is None else np.asarray(grid, dtype=np.float64)
    errs = [float(np.mean((_sigmoid(e / k) - y) ** 2)) for k in grid]
    return float(grid[int(np.argmin(errs))])


def to_tables(w: np.ndarray, scale: float, current: EvalTables,
              seen: Optional[np.ndarray] = None) -> EvalTables:
    """Fitted logit weights -> int32 tables in evaluation units (11 entries, NUM_PAIRS for
    the pair tables).

    Multiplying by `scale` (the best K of the current tables) keeps one evaluation unit
    worth what it was, so the search's margins keep their meaning. The entries no feature
    covers stay 0 (classes NONE and FIVE, patterns DEAD, OL and F5, pair 0). Where `seen`
    (bool[NFEAT], e.g. `X.any(axis=0)`) says a column never occurred, the current entry is
    kept: in particular the own F4 class and pattern, which the training positions exclude
    by design (and the own F4+ pairs).
    """
    w = np.asarray(w, dtype=np.float64)
    if seen is None:
        seen = np.ones(NFEAT, dtype=bool)
    seen = np.asarray(seen, dtype=bool).copy()
    seen[_F4_COLS] = False                     # own open four: never a leaf position
    out = []
    for t_now, (size, cut, cols) in zip(current, _LAYOUT):
        now = _checked(t_now, size)
        t = np.zeros(size, dtype=np.int32)
        t[cut] = np.where(seen[cols], np.rint(w[cols] * scale), now[cut])
        out.append(t)
    return EvalTables(*out)


def table_line(name: str, table: Sequence[int]) -> str:
    """One table as `gomoku tune` prints it: its name, then its entries."""
    return f"{name:<11} {' '.join(str(int(v)) for v in table)}"


# ----------------------------------------------------------------------------- `gomoku tune`

#: fewer positions than this cannot pin down the weights
MIN_POSITIONS = 200


def stack(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of several sources (X, y, game_index each) as one set. Each source numbers its
    games from 0, so each one's games are numbered on after the ones before it: a holdout split
    must never put two sources' games together as one."""
    xs, ys, gis = [], [], []
    for X, y, gi in parts:
        xs.append(X)
        ys.append(y)
        gis.append(gi + max((int(g.max()) + 1 for g in gis if len(g)), default=0))
    if not xs:
        return np.zeros((0, NFEAT)), np.zeros(0), np.zeros(0, dtype=np.int64)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gis)


def read_scored(paths: Sequence[str], rule: Optional[Rule]
                ) -> tuple[Optional[Rule], list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The positions of teacher files (`load_scored`), all of one rule: `rule`, or when None
    the first file's. Returns that rule and each file's (X, y, game_index); ValueError (one
    line) for a file of another rule, OSError or ValueError for one that cannot be read."""
    parts = []
    for path in paths:
        file_rule, X, y, gi = load_scored(path)
        if rule is None:
            rule = file_rule
        elif file_rule != rule:
            raise ValueError(f"{path} holds {file_rule.label} positions, not {rule.label}")
        parts.append((X, y, gi))
    return rule, parts


@dataclass
class TexelFit:
    """What `fit_tables` found: the positions, the training mask (the rest is held out), the
    current tables and the fitted ones with their logistic scales."""
    X: np.ndarray
    y: np.ndarray
    game_index: np.ndarray
    train: np.ndarray
    current: EvalTables
    k_now: float
    fitted: EvalTables
    k_out: float
    k_fit: float

    def errors(self, tables: EvalTables, k: float) -> str:
        """Texel's error of `tables` at scale k on the training positions and on the held-out ones."""
        test = ~self.train
        text = f"MSE {'train' if test.any() else 'all'} {mse(self.X[self.train], self.y[self.train], tables, k):.4f}"
        if test.any():
            text += f"  holdout {mse(self.X[test], self.y[test], tables, k):.4f}"
        return text


def fit_tables(X: np.ndarray, y: np.ndarray, game_index: np.ndarray, current: EvalTables, l2: float = 1e-3,
               holdout: float = 0.2, seed: int = 0, scale: Optional[float] = None,
               patterns: bool = True) -> TexelFit:
    """Fit new tables on a share of the games (`split_by_game`) and measure the current ones.

    The fitted logit weights are put in the units of `current` (their best K) unless `scale`
    pins the unit. Without `patterns` the pattern and pair columns are blanked: with no data
    `to_tables` keeps those tables as they are and the class tables alone are fitted."""
    X = np.array(X, dtype=np.float64)
    if not patterns:
        X[:, PATTERN_COLUMNS] = 0.0
    train = split_by_game(game_index, holdout, seed)
    Xt, yt = X[train], y[train]
    k_now = best_scale(Xt, yt, current)
    k_out = k_now if scale is None else scale
    fitted = to_tables(fit(Xt, yt, l2=l2), k_out, current, seen=Xt.any(axis=0))
    return TexelFit(X, y, game_index, train, current, k_now, fitted, k_out, best_scale(Xt, yt, fitted))


def report(result: TexelFit, min_ply: int, skipped: int = 0) -> list[str]:
    """`gomoku tune`'s lines: games and positions used, the error of the current and of the
    fitted tables, then the fitted tables one per line (`table_line`)."""
    gi, train = result.game_index, result.train
    n_games, g_train = len(np.unique(gi)), len(np.unique(gi[train]))
    fitted_on = f"the {g_train} training games" if (~train).any() else f"all {g_train} games"
    return [f"games: {n_games} used (train {g_train}, holdout {n_games - g_train})"
            + (f", {skipped} without a result skipped" if skipped else ""),
            f"positions: {len(result.y)} (train {int(train.sum())}, holdout {int((~train).sum())}), "
            f"from ply {min_ply}, mean label for the side to move {np.mean(result.y):.3f}",
            f"current tables: K={result.k_now:.1f}  {result.errors(result.current, result.k_now)}",
            f"fitted tables:  K={result.k_out:.1f}  {result.errors(result.fitted, result.k_out)}  "
            f"(own best K={result.k_fit:.1f})",
            f"# fitted on {fitted_on}:",
            *(table_line(name, table) for name, table in zip(EvalTables._fields, result.fitted))]
