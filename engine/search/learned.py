"""The learned evaluator in numba: a line-shape net kept up to date move by move.

Each board cell has an accumulator: the sum of the table rows its line shapes, pattern
pairs and class pair select (`shapes`), plus a bias. A move changes only the cells within
five steps along its four lines (41 at most), and each of those in one direction only, so
`mix_make` and `mix_undo` take those cells' old rows out, let the core move, and put their
new rows in. The tables are rounded to multiples of 1/QUANT and bounded (ROW_LIMIT), so
every sum the evaluator forms is such a multiple well inside float32's exact range: taking a
row out and putting it back is exact (float32, not integers: numba widens int32 arithmetic
to int64, which kept these loops from vectorising, 3x slower), after any sequence of moves and undos the
state equals a computation from scratch (`mix_rebuild`), which the tests check.

The net on top reads:

* value: the mean over the board's cells of relu(accumulator), through a two-layer MLP of
  the side to move (black and white have their own, since renju and the move order make the
  two seats different), gives win / loss / draw logits; `mix_score` turns them into the
  search's units (eval = K * logit of the expected score, the scale Texel tuning fits the
  classical tables to, so the search's margins keep their meaning);
* policy: a dot product of a cell's relu(accumulator) with the side to move's policy vector.

Everything here allocates nothing and runs without numba's runtime, like the search that
calls it. The evaluator's state belongs to the search context that owns it (one per player).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from gomoku.engine.game.core import M_COUNT, M_HEIGHT, M_RULE, M_TOMOVE, M_WIDTH, BoardState, make_move, undo_move
from gomoku.engine.game.rules import R_FREESTYLE
from gomoku.engine.numba_cache import drop_stale_cache
from gomoku.engine.search.shapes import (NUM_CLASS_ROWS, NUM_PATTERN_ROWS, NUM_SHAPES, OCCUPIED_ROW,
                                         SHAPE_OF_KEY16, SHAPES_PER_CENTRE)

# the jitted code here embeds the core's functions and the shape table (numba_cache.drop_stale_cache)
drop_stale_cache(__file__, ("game.core", "game.patterns", "search.shapes"))

#: F is a multiple of this (the vector width of the tables' rows on AVX2)
LANES = 8
#: accumulator units per unit of the float net's first layer
QUANT = 256
#: largest |entry| of a table row: nine rows and a bias per cell, 484 cells, stay below 2**16
ROW_LIMIT = 7.0
#: evaluation units per logit of the expected score (the classical tables' Texel K is ~1000)
DEFAULT_EVAL_SCALE = 1000.0
#: the evaluator's score never reaches the search's proven range (tables.WIN_MIN = 29000)
MAX_EVAL = 20000
ZERO = np.float32(0.0)


class Evaluator(NamedTuple):
    """One searcher's learned evaluator: the net's weights (read only) and its state."""
    shape: np.ndarray     # float32[NUM_SHAPES, F]: line shape rows (multiples of 1/QUANT)
    pattern: np.ndarray   # float32[NUM_PATTERN_ROWS, F]: pattern pair rows
    klass: np.ndarray     # float32[NUM_CLASS_ROWS, F]: class pair rows
    bias: np.ndarray      # float32[F]
    w1: np.ndarray        # float32[2, H, F]: value MLP of black to move (0) and white to move (1)
    b1: np.ndarray        # float32[2, H]
    w2: np.ndarray        # float32[2, 3, H]: logits win, loss, draw of the side to move
    b2: np.ndarray        # float32[2, 3]
    wp: np.ndarray        # float32[2, F]: policy vector of each side to move
    bp: np.ndarray        # float32[2]
    scale: np.ndarray     # float64[2]: evaluation units per logit; draw value
    acc: np.ndarray       # float32[N, F]: accumulator of every padded cell (board cells kept)
    pooled: np.ndarray    # float32[F]: sum over the board's cells of relu(acc)
    hidden: np.ndarray    # float32[H] scratch
    x: np.ndarray         # float32[F] scratch: the pooled mean
    out: np.ndarray       # float32[3] scratch: the last value's logits
    cell_rows: np.ndarray  # int64[2, 9] scratch: the moved cell's rows before and after the move
    line_cells: np.ndarray  # int64[64, 3] scratch: cell, direction, distance of each cell a move changes
    line_rows: np.ndarray  # int64[64, 3] scratch: their rows before the move (row 63: after)


def new_evaluator(weights: dict[str, np.ndarray], n_cells: int, eval_scale: float = DEFAULT_EVAL_SCALE,
                  draw_value: float = 0.0) -> Evaluator:
    """An evaluator for boards of `n_cells` padded cells from float weights (the names
    `learned_file` reads: shape, pattern, klass, bias, w1, b1, w2, b2, wp, bp)."""
    f = weights["bias"].shape[0]
    h = weights["b1"].shape[1]
    if f % LANES:
        raise ValueError(f"evaluator weights: {f} features, not a multiple of {LANES}")
    q = lambda a: np.ascontiguousarray(np.clip(np.rint(np.asarray(a, np.float64) * QUANT) / QUANT,
                                               -ROW_LIMIT, ROW_LIMIT).astype(np.float32))
    expect = {"shape": (NUM_SHAPES, f), "pattern": (NUM_PATTERN_ROWS, f), "klass": (NUM_CLASS_ROWS, f),
              "w1": (2, h, f), "w2": (2, 3, h), "b2": (2, 3), "wp": (2, f), "bp": (2,)}
    for name, shape in expect.items():
        if tuple(weights[name].shape) != shape:
            raise ValueError(f"evaluator weights: {name} has shape {tuple(weights[name].shape)}, expected {shape}")
    f32 = lambda a: np.ascontiguousarray(np.asarray(a, np.float32))
    return Evaluator(shape=q(weights["shape"]), pattern=q(weights["pattern"]), klass=q(weights["klass"]),
                     bias=q(weights["bias"]), w1=f32(weights["w1"]), b1=f32(weights["b1"]),
                     w2=f32(weights["w2"]), b2=f32(weights["b2"]), wp=f32(weights["wp"]),
                     bp=f32(weights["bp"]), scale=np.array([eval_scale, draw_value], dtype=np.float64),
                     acc=np.zeros((n_cells, f), dtype=np.float32), pooled=np.zeros(f, dtype=np.float32),
                     hidden=np.zeros(h, dtype=np.float32), x=np.zeros(f, dtype=np.float32),
                     out=np.zeros(3, dtype=np.float32), cell_rows=np.zeros((2, 9), dtype=np.int64),
                     line_cells=np.zeros((64, 3), dtype=np.int64), line_rows=np.zeros((64, 3), dtype=np.int64))


def empty_evaluator(n_cells: int) -> Evaluator:
    """A placeholder of the right types for a search that uses the classical tables (one
    group of features, never read)."""
    z = lambda *s: np.zeros(s, dtype=np.float32)
    f = LANES
    w = {"shape": z(NUM_SHAPES, f), "pattern": z(NUM_PATTERN_ROWS, f), "klass": z(NUM_CLASS_ROWS, f),
         "bias": z(f), "w1": z(2, 1, f), "b1": z(2, 1), "w2": z(2, 3, 1), "b2": z(2, 3), "wp": z(2, f), "bp": z(2)}
    return new_evaluator(w, 1)


@njit(cache=True, inline="always")
def _relu(a: np.float32) -> np.float32:
    """max(a, 0) as a select: the builtin max handles NaNs, which kept its loops scalar
    (measured: 28 against 14 ns a cell)."""
    return a if a > ZERO else ZERO


@njit(cache=True, inline="always")
def _shape_row(st: BoardState, d: np.int64, j: np.int64) -> np.int64:
    return st.cells[j] * SHAPES_PER_CENTRE + SHAPE_OF_KEY16[(st.keys[d, j] >> 2) & 0xFFFF]


@njit(cache=True, inline="always")
def _pattern_row(st: BoardState, d: np.int64, j: np.int64) -> np.int64:
    return np.int64(st.pat[0, d, j]) * 11 + st.pat[1, d, j]


@njit(cache=True, inline="always")
def _class_row(st: BoardState, j: np.int64) -> np.int64:
    return np.int64(st.cls[0, j]) * 11 + st.cls[1, j]


@njit(cache=True, inline="always")
def _add_row(acc: np.ndarray, j: np.int64, table: np.ndarray, row: np.int64) -> None:
    for f in range(acc.shape[1]):
        acc[j, f] += table[row, f]


@njit(cache=True, inline="always")
def _whole_cell(st: BoardState, ev: Evaluator, j: np.int64) -> None:
    """Add every row of cell j to its accumulator."""
    for d in range(4):
        _add_row(ev.acc, j, ev.shape, _shape_row(st, d, j))
    if st.cells[j] == 0:
        for d in range(4):
            _add_row(ev.acc, j, ev.pattern, _pattern_row(st, d, j))
        _add_row(ev.acc, j, ev.klass, _class_row(st, j))
    else:
        for d in range(4):
            _add_row(ev.acc, j, ev.pattern, np.int64(OCCUPIED_ROW))
        _add_row(ev.acc, j, ev.klass, np.int64(OCCUPIED_ROW))


@njit(cache=True, inline="always")
def _rows(st: BoardState, j: np.int64, d: np.int64, out: np.ndarray, t: np.int64) -> None:
    """out[t] = the rows of cell j a move along direction d can change: shape, pattern pair
    and class pair (-1 where the cell is occupied: those rows are fixed)."""
    out[t, 0] = _shape_row(st, d, j)
    if st.cells[j] == 0:
        out[t, 1] = _pattern_row(st, d, j)
        out[t, 2] = _class_row(st, j)
    else:
        out[t, 1] = -1
        out[t, 2] = -1


@njit(cache=True, inline="always")
def _cell_rows(st: BoardState, m: np.int64, out: np.ndarray, t: np.int64) -> None:
    """out[t] = all nine rows of cell m: four shapes, four pattern pairs, the class pair."""
    empty = st.cells[m] == 0
    for d in range(4):
        out[t, d] = _shape_row(st, np.int64(d), m)
        out[t, 4 + d] = _pattern_row(st, np.int64(d), m) if empty else OCCUPIED_ROW
    out[t, 8] = _class_row(st, m) if empty else OCCUPIED_ROW


@njit(cache=True, inline="always")
def _note(st: BoardState, ev: Evaluator, m: np.int64) -> np.int64:
    """Before a stone goes on or off cell m: note the rows of the cells it can change (the
    41 cells within five steps along its lines, walls and far stones left out); returns how
    many. Row 0 is cell m itself: its four shapes, four pattern pairs and class pair."""
    _cell_rows(st, m, ev.cell_rows, np.int64(0))
    n = 0
    # a pattern sees five cells either side only for the rules where six differ from five
    reach = 4 if st.meta[M_RULE] == R_FREESTYLE else 5
    for d in range(4):
        step = st.steps[d]
        for k in range(1, reach + 1):
            for side in range(2):
                j = m + k * step if side == 0 else m - k * step
                c = st.cells[j]
                if c == 3 or (k == 5 and c != 0):
                    continue
                ev.line_cells[n, 0] = j
                ev.line_cells[n, 1] = d
                ev.line_cells[n, 2] = k
                _rows(st, j, np.int64(d), ev.line_rows, np.int64(n))
                n += 1
    return n


@njit(cache=True, inline="always")
def _apply(st: BoardState, ev: Evaluator, m: np.int64, n: np.int64) -> None:
    """After the stone went on or off: each noted cell's accumulator moves from its old rows
    to its new ones, and the pool from its old relu to the new, in one pass per cell."""
    nf = ev.acc.shape[1]
    rows = ev.cell_rows
    _cell_rows(st, m, rows, np.int64(1))
    for f in range(nf):
        a0 = ev.acc[m, f]
        a = a0 + ev.klass[rows[1, 8], f] - ev.klass[rows[0, 8], f]
        for d in range(4):
            a += ev.shape[rows[1, d], f] - ev.shape[rows[0, d], f] \
                + ev.pattern[rows[1, 4 + d], f] - ev.pattern[rows[0, 4 + d], f]
        ev.acc[m, f] = a
        ev.pooled[f] += _relu(a) - _relu(a0)
    for t in range(n):
        j = np.int64(ev.line_cells[t, 0])
        _rows(st, j, np.int64(ev.line_cells[t, 1]), ev.line_rows, np.int64(63))
        s0, p0, c0 = ev.line_rows[t, 0], ev.line_rows[t, 1], ev.line_rows[t, 2]
        s1, p1, c1 = ev.line_rows[63, 0], ev.line_rows[63, 1], ev.line_rows[63, 2]
        if s0 == s1 and p0 == p1 and c0 == c1:
            continue
        if p0 < 0:                    # a stone: only its shape changed (the rest cancels)
            p0 = p1 = c0 = c1 = OCCUPIED_ROW
        for f in range(nf):
            a0 = ev.acc[j, f]
            a = a0 + (ev.shape[s1, f] - ev.shape[s0, f]) + (ev.pattern[p1, f] - ev.pattern[p0, f]) \
                + (ev.klass[c1, f] - ev.klass[c0, f])
            ev.acc[j, f] = a
            ev.pooled[f] += _relu(a) - _relu(a0)


@njit(cache=True, _nrt=False)
def mix_rebuild(st: BoardState, ev: Evaluator) -> None:
    """Every board cell's accumulator and the pool from scratch."""
    ev.acc[:, :] = 0
    ev.pooled[:] = 0
    for j in range(st.cells.shape[0]):
        if st.cells[j] == 3:
            continue
        for f in range(ev.acc.shape[1]):
            ev.acc[j, f] = ev.bias[f]
        _whole_cell(st, ev, np.int64(j))
        for f in range(ev.acc.shape[1]):
            ev.pooled[f] += _relu(ev.acc[j, f])


@njit(cache=True, inline="always")
def mix_make(st: BoardState, ev: Evaluator, m: np.int64) -> None:
    """make_move with the evaluator kept up to date."""
    n = _note(st, ev, m)
    make_move(st, m)
    _apply(st, ev, m, n)


@njit(cache=True, inline="always")
def mix_undo(st: BoardState, ev: Evaluator) -> np.int64:
    """undo_move with the evaluator kept up to date; returns the cell taken back."""
    m = np.int64(st.moves[st.meta[M_COUNT] - 1])
    n = _note(st, ev, m)
    undo_move(st)
    _apply(st, ev, m, n)
    return m


@njit(cache=True, inline="always")
def mix_logits(st: BoardState, ev: Evaluator) -> None:
    """Value logits (win, loss, draw of the side to move) into ev.out."""
    me = st.meta[M_TOMOVE] - 1
    inv = np.float32(1.0 / (st.meta[M_WIDTH] * st.meta[M_HEIGHT]))
    nf = ev.pooled.shape[0]
    for f in range(nf):
        ev.x[f] = ev.pooled[f] * inv
    for i in range(ev.hidden.shape[0]):
        s = ev.b1[me, i]
        for f in range(nf):
            s += ev.w1[me, i, f] * ev.x[f]
        ev.hidden[i] = _relu(s)
    for o in range(3):
        s = ev.b2[me, o]
        for i in range(ev.hidden.shape[0]):
            s += ev.w2[me, o, i] * ev.hidden[i]
        ev.out[o] = s


@njit(cache=True, inline="always")
def mix_score(st: BoardState, ev: Evaluator) -> np.int64:
    """The side to move's evaluation in search units: K * logit of its expected score (win 1,
    draw 1/2 + draw_value / 2, loss 0)."""
    mix_logits(st, ev)
    top = max(ev.out[0], max(ev.out[1], ev.out[2]))
    pw = math.exp(ev.out[0] - top)
    pl = math.exp(ev.out[1] - top)
    pd = math.exp(ev.out[2] - top)
    e = (pw - pl + ev.scale[1] * pd) / (pw + pl + pd)     # expected outcome in -1..1
    e = min(max(e, -0.9999), 0.9999)
    v = ev.scale[0] * math.log((1.0 + e) / (1.0 - e))
    return np.int64(min(max(v, -MAX_EVAL), MAX_EVAL))


@njit(cache=True, inline="always")
def mix_policy(st: BoardState, ev: Evaluator, j: np.int64) -> np.float32:
    """Policy logit of cell j for the side to move."""
    me = st.meta[M_TOMOVE] - 1
    s = ev.bp[me]
    for f in range(ev.acc.shape[1]):
        s += ev.wp[me, f] * _relu(ev.acc[j, f])
    return s
