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
from gomoku.engine.base.numba_cache import drop_stale_cache
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
#: moves whose undo restores saved accumulators instead of recomputing rows (the search's
#: tree is at most tables.MAXPLY deep; deeper sequences, in tests, undo by recomputing)
STACK = 72
#: the evaluator's score never reaches the search's proven range (tables.WIN_MIN = 29000)
MAX_EVAL = 20000
ZERO = np.float32(0.0)


class Evaluator(NamedTuple):
    """One searcher's learned evaluator: the net's weights (read only) and its state."""
    shape: np.ndarray     # float32[NUM_SHAPES, F]: line shape rows (multiples of 1/QUANT)
    pattern: np.ndarray   # float32[NUM_PATTERN_ROWS, F]: pattern pair rows
    klass: np.ndarray     # float32[NUM_CLASS_ROWS, F]: class pair rows
    bias: np.ndarray      # float32[F]
    w1t: np.ndarray       # float32[2, F, H]: value MLP of black to move (0) and white to move (1), transposed
    b1: np.ndarray        # float32[2, H]
    w2: np.ndarray        # float32[2, 3, H]: logits win, loss, draw of the side to move
    b2: np.ndarray        # float32[2, 3]
    wp: np.ndarray        # float32[2, F]: policy vector of each side to move
    bp: np.ndarray        # float32[2]
    scale: np.ndarray     # float64[2]: evaluation units per logit; draw value
    acc: np.ndarray       # float32[N, F]: accumulator of every padded cell (board cells kept)
    pooled: np.ndarray    # float32[F]: sum over the board's cells of relu(acc)
    hidden: np.ndarray    # float32[H] scratch
    x: np.ndarray         # float32[LANES] scratch: partial sums
    out: np.ndarray       # float32[3] scratch: the last value's logits
    rows: np.ndarray      # int32[N, 9]: each cell's rows (four shapes, four pattern pairs, class pair)
    saved_acc: np.ndarray  # float32[STACK, 64, F]: per made move, the changed cells' accumulators before it
    saved_rows: np.ndarray  # int32[STACK, 64, 9]: and their rows
    saved_cells: np.ndarray  # int64[STACK, 65]: per made move, how many cells changed (column 0), and which
    saved_pool: np.ndarray  # float32[STACK, F]: per made move, the pool before it
    depth: np.ndarray     # int64[2]: moves made since the last rebuild (the stack's height); 1 while the
                          # last of them is pending (made on the board, not yet in the accumulators)
    peek: np.ndarray      # float32[F] scratch: the pool a pending move would give
    new_rows: np.ndarray  # int64[1, 9] scratch: the pending move's cell's rows


def new_evaluator(weights: dict[str, np.ndarray], n_cells: int, eval_scale: float = DEFAULT_EVAL_SCALE,
                  draw_value: float = 0.0, stack: int = STACK) -> Evaluator:
    """An evaluator for boards of `n_cells` padded cells from float weights (the names
    `learned_file` reads: shape, pattern, klass, bias, w1, b1, w2, b2, wp, bp)."""
    f = weights["bias"].shape[0]
    h = weights["b1"].shape[1]
    if f % LANES or h % LANES:
        raise ValueError(f"evaluator weights: {f} features and {h} hidden units, not multiples of {LANES}")
    q = lambda a: np.ascontiguousarray(np.clip(np.rint(np.asarray(a, np.float64) * QUANT) / QUANT,
                                               -ROW_LIMIT, ROW_LIMIT).astype(np.float32))
    expect = {"shape": (NUM_SHAPES, f), "pattern": (NUM_PATTERN_ROWS, f), "klass": (NUM_CLASS_ROWS, f),
              "w1": (2, h, f), "w2": (2, 3, h), "b2": (2, 3), "wp": (2, f), "bp": (2,)}
    for name, shape in expect.items():
        if tuple(weights[name].shape) != shape:
            raise ValueError(f"evaluator weights: {name} has shape {tuple(weights[name].shape)}, expected {shape}")
    f32 = lambda a: np.ascontiguousarray(np.asarray(a, np.float32))
    return Evaluator(shape=q(weights["shape"]), pattern=q(weights["pattern"]), klass=q(weights["klass"]),
                     bias=q(weights["bias"]), w1t=f32(np.transpose(weights["w1"], (0, 2, 1))), b1=f32(weights["b1"]),
                     w2=f32(weights["w2"]), b2=f32(weights["b2"]), wp=f32(weights["wp"]),
                     bp=f32(weights["bp"]), scale=np.array([eval_scale, draw_value], dtype=np.float64),
                     acc=np.zeros((n_cells, f), dtype=np.float32), pooled=np.zeros(f, dtype=np.float32),
                     hidden=np.zeros(h, dtype=np.float32), x=np.zeros(LANES, dtype=np.float32),
                     out=np.zeros(3, dtype=np.float32), rows=np.zeros((n_cells, 9), dtype=np.int32),
                     saved_acc=np.zeros((stack, 64, f), dtype=np.float32),
                     saved_rows=np.zeros((stack, 64, 9), dtype=np.int32),
                     saved_cells=np.zeros((stack, 65), dtype=np.int64),
                     saved_pool=np.zeros((stack, f), dtype=np.float32), depth=np.zeros(2, dtype=np.int64),
                     peek=np.zeros(f, dtype=np.float32), new_rows=np.zeros((1, 9), dtype=np.int64))


def empty_evaluator(n_cells: int) -> Evaluator:
    """A placeholder of the right types for a search that uses the classical tables (one
    group of features, never read)."""
    z = lambda *s: np.zeros(s, dtype=np.float32)
    f = LANES
    w = {"shape": z(NUM_SHAPES, f), "pattern": z(NUM_PATTERN_ROWS, f), "klass": z(NUM_CLASS_ROWS, f),
         "bias": z(f), "w1": z(2, f, f), "b1": z(2, f), "w2": z(2, 3, f), "b2": z(2, 3), "wp": z(2, f), "bp": z(2)}
    return new_evaluator(w, 1, stack=1)


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
def _cell_rows(st: BoardState, j: np.int64, out: np.ndarray, t: np.int64) -> None:
    """out[t] = all nine rows of cell j as the board stands: four shapes, four pattern
    pairs, the class pair (OCCUPIED_ROW for the last five on a stone)."""
    empty = st.cells[j] == 0
    for d in range(4):
        out[t, d] = _shape_row(st, np.int64(d), j)
        out[t, 4 + d] = _pattern_row(st, np.int64(d), j) if empty else OCCUPIED_ROW
    out[t, 8] = _class_row(st, j) if empty else OCCUPIED_ROW


@njit(cache=True, inline="always")
def _save(ev: Evaluator, level: np.int64, t: np.int64, j: np.int64) -> None:
    """Cell j's accumulator and rows, as before the move, into slot t of the stack's level."""
    for f in range(ev.acc.shape[1]):
        ev.saved_acc[level, t, f] = ev.acc[j, f]
    for r in range(9):
        ev.saved_rows[level, t, r] = ev.rows[j, r]
    ev.saved_cells[level, t + 1] = j


@njit(cache=True, inline="always")
def _move_rows(ev: Evaluator, j: np.int64, s1: np.int64, p1: np.int64, c1: np.int64, d: np.int64) -> None:
    """Cell j's accumulator from its rows of direction d and its class row to the new ones
    given, and the pool from its old relu to the new, in one pass."""
    s0 = np.int64(ev.rows[j, d])
    p0 = np.int64(ev.rows[j, 4 + d])
    c0 = np.int64(ev.rows[j, 8])
    for f in range(ev.acc.shape[1]):
        a0 = ev.acc[j, f]
        a = a0 + (ev.shape[s1, f] - ev.shape[s0, f]) + (ev.pattern[p1, f] - ev.pattern[p0, f]) \
            + (ev.klass[c1, f] - ev.klass[c0, f])
        ev.acc[j, f] = a
        ev.pooled[f] += _relu(a) - _relu(a0)
    ev.rows[j, d] = s1
    ev.rows[j, 4 + d] = p1
    ev.rows[j, 8] = c1


@njit(cache=True, inline="always")
def _reach(st: BoardState) -> np.int64:
    """How far along a line a stone changes other cells' rows: four steps (every five through
    a cell), five where a sixth stone matters (the patterns see overlines and blocked fives)."""
    return np.int64(4 if st.meta[M_RULE] == R_FREESTYLE else 5)


@njit(cache=True, inline="always")
def _line_cell(st: BoardState, ev: Evaluator, m: np.int64, d: np.int64,
               t: np.int64) -> tuple[np.int64, np.int64, np.int64, np.int64]:
    """The t-th cell along direction d from a stone just put on or taken off cell m (steps
    1, 1, 2, 2 ... alternating sides) and its rows of that direction and class as the board
    now stands, or j = -1 where its rows stay as kept (a wall, a stone past four steps, no
    change)."""
    k = t // 2 + 1
    j = m + k * st.steps[d] if t % 2 == 0 else m - k * st.steps[d]
    c = st.cells[j]
    if c == 3 or (k == 5 and c != 0):
        return np.int64(-1), np.int64(0), np.int64(0), np.int64(0)
    s1 = _shape_row(st, d, j)
    if c == 0:
        p1 = _pattern_row(st, d, j)
        c1 = _class_row(st, j)
    else:
        p1 = c1 = np.int64(OCCUPIED_ROW)
    if s1 == ev.rows[j, d] and p1 == ev.rows[j, 4 + d] and c1 == ev.rows[j, 8]:
        return np.int64(-1), s1, p1, c1
    return np.int64(j), s1, p1, c1


@njit(cache=True, inline="always")
def _update(st: BoardState, ev: Evaluator, m: np.int64, level: np.int64) -> None:
    """After a stone went on or off cell m: every cell whose rows it changed (m's nine, and
    along its four lines the cells within reach, one direction each) moves from the rows it
    had (ev.rows) to the new. With level >= 0 the cells' accumulators and rows and the pool
    as they were go to that level of the stack, for the undo."""
    saved = 0
    if level >= 0:
        for f in range(ev.acc.shape[1]):
            ev.saved_pool[level, f] = ev.pooled[f]
        _save(ev, level, np.int64(0), m)
        saved = 1
    # cell m: its four directions one after the other (the class and the patterns change together)
    empty = st.cells[m] == 0
    c1 = _class_row(st, m) if empty else np.int64(OCCUPIED_ROW)
    for d in range(4):
        p1 = _pattern_row(st, np.int64(d), m) if empty else np.int64(OCCUPIED_ROW)
        _move_rows(ev, m, _shape_row(st, np.int64(d), m), p1, c1, np.int64(d))
    for d in range(4):
        for t in range(2 * _reach(st)):
            j, s1, p1, c1 = _line_cell(st, ev, m, np.int64(d), np.int64(t))
            if j >= 0:
                if level >= 0:
                    _save(ev, level, np.int64(saved), j)
                    saved += 1
                _move_rows(ev, j, s1, p1, c1, np.int64(d))
    if level >= 0:
        ev.saved_cells[level, 0] = saved


@njit(cache=True, _nrt=False)
def mix_rebuild(st: BoardState, ev: Evaluator) -> None:
    """Every board cell's rows, accumulator and the pool from scratch."""
    ev.pooled[:] = 0
    ev.depth[0] = 0
    ev.depth[1] = 0
    nf = ev.acc.shape[1]
    for j in range(st.cells.shape[0]):
        if st.cells[j] == 3:
            continue
        _cell_rows(st, np.int64(j), ev.rows, np.int64(j))
        for f in range(nf):
            a = ev.bias[f] + ev.klass[ev.rows[j, 8], f]
            for d in range(4):
                a += ev.shape[ev.rows[j, d], f] + ev.pattern[ev.rows[j, 4 + d], f]
            ev.acc[j, f] = a
            ev.pooled[f] += _relu(a)


# The mix_* entry points the search calls are not inlined (their small helpers are): each
# inlined copy in pvs (evaluate alone has six) was typed and lowered again in a cold compile.


@njit(cache=True, _nrt=False)
def mix_sync(st: BoardState, ev: Evaluator) -> None:
    """Bring a pending move into the accumulators (saving what it changes for its undo while
    the stack has room). Needed before the position's policy is read or a move is made from it."""
    if ev.depth[1] != 0:
        level = ev.depth[0] - 1
        _update(st, ev, np.int64(st.moves[st.meta[M_COUNT] - 1]),
                level if level < ev.saved_pool.shape[0] else np.int64(-1))
        ev.depth[1] = 0


@njit(cache=True, _nrt=False)
def mix_make(st: BoardState, ev: Evaluator, m: np.int64) -> None:
    """make_move, the evaluator following lazily: the move stays pending until the position is
    expanded (mix_sync, or a move made from it). Most positions a search makes are leaves,
    scored once (mix_score reads a pending move's pool without writing anything) or not at
    all, and then undone: for them nothing is written, saved or restored."""
    mix_sync(st, ev)
    make_move(st, m)
    ev.depth[0] += 1
    ev.depth[1] = 1


@njit(cache=True, _nrt=False)
def mix_undo(st: BoardState, ev: Evaluator) -> np.int64:
    """undo_move with the evaluator put back: nothing to do for a pending move; from the stack
    where the move saved its cells (a copy, no table row read), else by recomputing their rows."""
    level = ev.depth[0] - 1
    m = undo_move(st)
    if ev.depth[1] != 0:
        ev.depth[1] = 0
    elif 0 <= level < ev.saved_pool.shape[0]:
        nf = ev.acc.shape[1]
        for t in range(ev.saved_cells[level, 0]):
            j = ev.saved_cells[level, t + 1]
            for f in range(nf):
                ev.acc[j, f] = ev.saved_acc[level, t, f]
            for r in range(9):
                ev.rows[j, r] = ev.saved_rows[level, t, r]
        for f in range(nf):
            ev.pooled[f] = ev.saved_pool[level, f]
    else:
        _update(st, ev, m, np.int64(-1))
    ev.depth[0] = max(level, np.int64(0))
    return m


@njit(cache=True, inline="always")
def _peek_cell(ev: Evaluator, j: np.int64, s1: np.int64, p1: np.int64, c1: np.int64, d: np.int64) -> None:
    """ev.peek += what moving cell j's rows of direction d and class row to the new ones would
    change in the pool (nothing written to the cell)."""
    s0 = np.int64(ev.rows[j, d])
    p0 = np.int64(ev.rows[j, 4 + d])
    c0 = np.int64(ev.rows[j, 8])
    for f in range(ev.acc.shape[1]):
        a0 = ev.acc[j, f]
        a = a0 + (ev.shape[s1, f] - ev.shape[s0, f]) + (ev.pattern[p1, f] - ev.pattern[p0, f]) \
            + (ev.klass[c1, f] - ev.klass[c0, f])
        ev.peek[f] += _relu(a) - _relu(a0)


@njit(cache=True, inline="always")
def _peek(st: BoardState, ev: Evaluator) -> None:
    """ev.peek = the pool after the pending move, from the accumulators before it and the board
    after it (the cells _update would visit; exact, as every sum here is)."""
    m = np.int64(st.moves[st.meta[M_COUNT] - 1])
    nf = ev.acc.shape[1]
    for f in range(nf):
        ev.peek[f] = ev.pooled[f]
    # cell m: its nine rows at once
    _cell_rows(st, m, ev.new_rows, np.int64(0))
    for f in range(nf):
        a0 = ev.acc[m, f]
        a = a0 + ev.klass[ev.new_rows[0, 8], f] - ev.klass[ev.rows[m, 8], f]
        for d in range(4):
            a += ev.shape[ev.new_rows[0, d], f] - ev.shape[ev.rows[m, d], f] \
                + ev.pattern[ev.new_rows[0, 4 + d], f] - ev.pattern[ev.rows[m, 4 + d], f]
        ev.peek[f] += _relu(a) - _relu(a0)
    for d in range(4):
        for t in range(2 * _reach(st)):
            j, s1, p1, c1 = _line_cell(st, ev, m, np.int64(d), np.int64(t))
            if j >= 0:
                _peek_cell(ev, j, s1, p1, c1, np.int64(d))


@njit(cache=True, _nrt=False)
def mix_logits(st: BoardState, ev: Evaluator) -> None:
    """Value logits (win, loss, draw of the side to move) into ev.out (of a pending move's
    position too, without bringing it in). The loops run along
    the hidden units (w1 is kept transposed) and in LANES partial sums: a dot product summed
    in one float chain cannot vectorise without reordering the adds (measured 0.5 us a leaf
    that way, most of it waiting on the chain)."""
    me = st.meta[M_TOMOVE] - 1
    inv = np.float32(1.0 / (st.meta[M_WIDTH] * st.meta[M_HEIGHT]))
    nh = ev.hidden.shape[0]
    for i in range(nh):
        ev.hidden[i] = ev.b1[me, i]
    pool = ev.pooled
    if ev.depth[1] != 0:
        _peek(st, ev)
        pool = ev.peek
    for f in range(pool.shape[0]):
        xf = pool[f] * inv
        for i in range(nh):
            ev.hidden[i] += ev.w1t[me, f, i] * xf
    for i in range(nh):
        ev.hidden[i] = _relu(ev.hidden[i])
    for o in range(3):
        for lane in range(LANES):
            ev.x[lane] = ZERO
        for i0 in range(0, nh, LANES):
            for lane in range(LANES):
                ev.x[lane] += ev.w2[me, o, i0 + lane] * ev.hidden[i0 + lane]
        s = ev.b2[me, o]
        for lane in range(LANES):
            s += ev.x[lane]
        ev.out[o] = s


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def mix_residual(st: BoardState, ev: Evaluator) -> np.int64:
    """A residual evaluator's correction to the tables' score, in search units: K times its win
    logit less its loss logit (the draw logit is not used). Zero last-layer weights give zero,
    so an untrained residual file searches exactly as the tables do."""
    mix_logits(st, ev)
    v = ev.scale[0] * (ev.out[0] - ev.out[1])
    return np.int64(min(max(v, -MAX_EVAL), MAX_EVAL))


@njit(cache=True, _nrt=False)
def mix_policy(st: BoardState, ev: Evaluator, j: np.int64) -> np.float32:
    """Policy logit of cell j for the side to move (after mix_sync)."""
    me = st.meta[M_TOMOVE] - 1
    s = ev.bp[me]
    for f in range(ev.acc.shape[1]):
        s += ev.wp[me, f] * _relu(ev.acc[j, f])
    return s
