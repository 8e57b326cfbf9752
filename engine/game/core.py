"""The numba board core: padded cells, line keys, incremental patterns, Zobrist hash.

State lives in a `BoardState` namedtuple of plain numpy arrays so every jitted function
(move/undo here, threat search and alpha-beta elsewhere) can take it as one argument and
run without Python objects. Scalars live in `meta` so they are mutable in place.

Layout: cell (x, y) has index (y + PAD) * stride + x + PAD with stride = width + PAD.
The PAD wall columns between rows and PAD wall rows above and below mean a step of up to
five cells in any direction from a board cell never leaves the array or wraps onto the
board, so hot loops need no bounds checks.

The hot entry points here and in threats, dfpn and search (those that allocate nothing) are
compiled with `_nrt=False`: numba's runtime reference-counts every array a jitted call takes,
with an atomic increment on entry and a decrement on exit, and the board and search tuples
hold about 30 arrays. perf showed 31 % of the bench's time in those two instructions (most
from the recursive `pvs` call); without the runtime the same search runs 43 % more nodes/s
(same node counts). Nothing they call may allocate either: numba compiles a callee inside
such a caller without the runtime, and an allocation there fails to compile (a cold cache
crashed `gomoku bench` when the renju foul check still used a line buffer).
`tests/test_hot_paths.py` lists the functions.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gomoku.engine.game.patterns import (B2, B3, B4, BLACK, EMPTY, F2, F3, F4, F5, NUM_PATTERNS, OL,  # noqa: F401
                                         PATTERN_NAMES, WALL, WHITE, pattern_tables)
from gomoku.engine.game.size import MAX_SIZE, MIN_SIZE  # noqa: F401 (re-exported)

PAD = 5
#: most (colour, cell) reclassifications one move makes: 40 line neighbours, two colours
UNDO_LOG_LEN = 80

# meta slots
M_WIDTH, M_HEIGHT, M_STRIDE, M_RULE, M_COUNT, M_TOMOVE, M_WINNER, M_EMPTY = range(8)
META_LEN = 8

# cell classes from the four line patterns of one colour (weakest to strongest)
C_NONE, C_WEAK, C_F2, C_B3, C_F2X2, C_F3, C_B4, C_F3X2, C_B4F3, C_F4, C_FIVE = range(11)
NUM_CLASSES = 11
#: column of counts[] where the line-pattern counts start
PATTERN_COUNTS = NUM_CLASSES
#: column of counts[] where the pattern-pair counts start (see PAIR_TABLE)
PAIR_COUNTS = PATTERN_COUNTS + NUM_PATTERNS
CLASS_NAMES = ("NONE", "WEAK", "F2", "B3", "F2X2", "F3", "B4", "F3X2", "B4F3", "F4", "FIVE")

# move-ordering / evaluation score of a single line pattern (index = pattern id)
LINE_SCORE = np.array([0, 0, 1, 3, 6, 16, 20, 60, 80, 900, 20000], dtype=np.int32)
# extra score for the combination class of a cell
CLASS_BONUS = np.array([0, 0, 0, 0, 10, 0, 0, 400, 600, 1000, 0], dtype=np.int32)


class BoardState(NamedTuple):
    cells: np.ndarray     # int8[N]: EMPTY/BLACK/WHITE/WALL
    keys: np.ndarray      # int32[4, N]: 20-bit neighbour key per direction
    pat: np.ndarray       # uint8[2, 4, N]: line pattern per colour and direction (empty cells)
    cls: np.ndarray       # uint8[2, N]: combined class per colour (empty cells)
    pidx: np.ndarray      # int32[2, N]: the four line patterns' index in CELL_TABLE (empty cells)
    score: np.ndarray     # int32[2, N]: pattern score per colour (empty cells)
    counts: np.ndarray    # int32[2, NUM_CLASSES + NUM_PATTERNS + NUM_PAIRS]: empty board cells
                          # per colour and class, then (empty cell, direction) pairs per colour
                          # and line pattern at PATTERN_COUNTS + pattern, then empty cells per
                          # colour and pattern pair at PAIR_COUNTS + pair (one array, not three:
                          # every array of this tuple costs each jitted call that passes it)
    near: np.ndarray      # int16[N]: stones within the 5x5 square around the cell
    moves: np.ndarray     # int32[max moves]: cell index of each move played
    span: np.ndarray      # int64[max moves + 1, 2]: cell range holding every cell within two
                          # rows and columns of a stone, after each move count (see scan_span)
    zobrist: np.ndarray   # uint64[3, N]
    hashv: np.ndarray     # uint64[1]
    meta: np.ndarray      # int64[META_LEN]
    steps: np.ndarray     # int64[4]: index step of each direction
    tables: np.ndarray    # uint8[2**20]: packed pattern table of the rule (black low nibble)
    undo_log: np.ndarray  # int32[max moves + 1, 1 + 2 * UNDO_LOG_LEN]: per move count, what
                          # make_move changed (count, then packed cell/direction/colour/pattern/
                          # class words and old scores), so undo_move restores instead of looking
                          # every pattern up again
    counts_log: np.ndarray  # int32[max moves + 1, 2, NCOUNTS]: counts before each move


def new_state(width: int, height: int, rule: int) -> BoardState:
    """An empty board; raises ValueError for sizes outside MIN_SIZE..MAX_SIZE."""
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise ValueError(f"board size {width}x{height} not supported (sides {MIN_SIZE}..{MAX_SIZE})")
    stride = width + PAD
    n = (height + 2 * PAD + 1) * stride
    cells = np.full(n, WALL, dtype=np.int8)
    for y in range(height):
        start = (y + PAD) * stride + PAD
        cells[start:start + width] = EMPTY
    rng = np.random.default_rng(0x5EED_600D)
    zob = rng.integers(0, np.iinfo(np.uint64).max, size=(3, n), dtype=np.uint64, endpoint=True)
    st = BoardState(
        cells=cells,
        keys=np.zeros((4, n), dtype=np.int32),
        pat=np.zeros((2, 4, n), dtype=np.uint8),
        cls=np.zeros((2, n), dtype=np.uint8),
        pidx=np.zeros((2, n), dtype=np.int32),
        score=np.zeros((2, n), dtype=np.int32),
        counts=np.zeros((2, NCOUNTS), dtype=np.int32),
        near=np.zeros(n, dtype=np.int16),
        moves=np.zeros(width * height + 1, dtype=np.int32),
        span=np.zeros((width * height + 2, 2), dtype=np.int64),
        zobrist=zob,
        hashv=np.zeros(1, dtype=np.uint64),
        meta=np.zeros(META_LEN, dtype=np.int64),
        steps=np.array([1, stride, stride + 1, stride - 1], dtype=np.int64),
        tables=pattern_tables(rule),
        undo_log=np.zeros((width * height + 1, 1 + 2 * UNDO_LOG_LEN), dtype=np.int32),
        counts_log=np.zeros((width * height + 1, 2, NCOUNTS), dtype=np.int32),
    )
    st.meta[M_WIDTH] = width
    st.meta[M_HEIGHT] = height
    st.meta[M_STRIDE] = stride
    st.meta[M_RULE] = rule
    st.meta[M_TOMOVE] = BLACK
    rebuild(st)
    return st


@njit(cache=True, inline="always")
def classify(p0: np.int64, p1: np.int64, p2: np.int64, p3: np.int64) -> int:
    """Combine four line patterns of one colour into a cell class."""
    n5 = 0
    n4 = 0
    nb4 = 0
    n3 = 0
    nb3 = 0
    n2 = 0
    weak = 0
    for p in (p0, p1, p2, p3):
        if p == F5:
            n5 += 1
        elif p == F4:
            n4 += 1
        elif p == B4:
            nb4 += 1
        elif p == F3:
            n3 += 1
        elif p == B3:
            nb3 += 1
        elif p == F2:
            n2 += 1
        elif p >= 2:
            weak += 1
    if n5 > 0:
        return 10
    if n4 > 0 or nb4 >= 2:
        return 9
    if nb4 > 0 and n3 > 0:
        return 8
    if n3 >= 2:
        return 7
    if nb4 > 0:
        return 6
    if n3 > 0:
        return 5
    if n2 >= 2:
        return 4
    if nb3 > 0:
        return 3
    if n2 > 0:
        return 2
    if weak > 0:
        return 1
    return 0


def _patterns_of(i: int) -> tuple[int, int, int, int]:
    """The four line patterns (directions 0..3) behind pattern index i (see _pattern_index)."""
    return (i // NUM_CLASSES ** 3, i // NUM_CLASSES ** 2 % NUM_CLASSES, i // NUM_CLASSES % NUM_CLASSES,
            i % NUM_CLASSES)


def _class_table() -> np.ndarray:
    """classify() of every four line patterns, flattened (11**4 bytes): the hot update does
    one lookup instead of a chain of comparisons per colour (2.2x the moves/s with the
    change-only refresh below)."""
    t = np.zeros(NUM_CLASSES ** 4, dtype=np.uint8)
    for i in range(NUM_CLASSES ** 4):
        t[i] = classify.py_func(*_patterns_of(i))
    t.setflags(write=False)
    return t


CLASS_TABLE = _class_table()


def _pair_names() -> tuple[str, ...]:
    """Names of the pattern pairs: the strongest of a cell's four line patterns and the next,
    from B2 up (a weaker second pattern is one entry, 'low'); index 0 is every cell whose
    strongest pattern is below B2 (or a five), which the evaluation does not weigh."""
    names = ["none"]
    for top in range(B2, F4 + 1):
        names.append(f"{PATTERN_NAMES[top]}+low")
        names += [f"{PATTERN_NAMES[top]}+{PATTERN_NAMES[s]}" for s in range(B2, top + 1)]
    return tuple(names)


#: the evaluation weighs a cell's two strongest lines together as well as each line alone
#: and its class: two threes at one cell are worth more, or less, than the lines' sum, and
#: the class keeps only the strongest combinations (F3X2, B4F3) apart
PAIR_NAMES = _pair_names()
NUM_PAIRS = len(PAIR_NAMES)
#: columns of counts[]: classes, line patterns, pattern pairs
NCOUNTS = PAIR_COUNTS + NUM_PAIRS


def _pair_table() -> np.ndarray:
    """Pair index of every four line patterns, flattened like CLASS_TABLE."""
    index = {n: i for i, n in enumerate(PAIR_NAMES)}
    t = np.zeros(NUM_CLASSES ** 4, dtype=np.uint8)
    for i in range(NUM_CLASSES ** 4):
        top, second = sorted(_patterns_of(i), reverse=True)[:2]
        if B2 <= top <= F4:
            t[i] = index[f"{PATTERN_NAMES[top]}+" + (PATTERN_NAMES[second] if second >= B2 else "low")]
    t.setflags(write=False)
    return t


PAIR_TABLE = _pair_table()


def _cell_table() -> np.ndarray:
    """Class (bits 0-3), pair (bits 4-8) and ordering score (bits 9 on) of every four line
    patterns, flattened like CLASS_TABLE: one lookup per reclassified cell instead of six
    (the pair counts had cost the board core 11 % of its moves/s; this wins most of it back)."""
    t = np.zeros(NUM_CLASSES ** 4, dtype=np.int32)
    for i in range(NUM_CLASSES ** 4):
        k = int(CLASS_TABLE[i])
        score = sum(int(LINE_SCORE[p]) for p in _patterns_of(i)) + int(CLASS_BONUS[k])
        t[i] = k | (int(PAIR_TABLE[i]) << 4) | (score << 9)
    t.setflags(write=False)
    return t


CELL_TABLE = _cell_table()
#: how much a cell's pattern index moves per step of its pattern in each direction
PATTERN_INDEX_STEP = np.array([11 ** 3, 11 ** 2, 11, 1], dtype=np.int64)


@njit(cache=True, inline="always")
def _pattern_index(st: BoardState, c: np.int64, j: np.int64) -> np.int64:
    """Index of cell j's four stored line patterns of colour c in CELL_TABLE (and CLASS_TABLE,
    PAIR_TABLE)."""
    return ((np.int64(st.pat[c, 0, j]) * 11 + st.pat[c, 1, j]) * 11 + st.pat[c, 2, j]) * 11 + st.pat[c, 3, j]


@njit(cache=True, inline="always")
def _pair_of(i: np.int64) -> np.int64:
    """Pair of pattern index i (PAIR_TABLE, read from CELL_TABLE as the hot update does)."""
    return (CELL_TABLE[i] >> 4) & 31


@njit(cache=True, inline="always")
def _add_cell(st: BoardState, c: np.int64, j: np.int64, i: np.int64) -> None:
    """Class and ordering score of empty cell j for colour index c from its pattern index i,
    and the cell counted in its class and pair."""
    entry = CELL_TABLE[i]
    klass = entry & 15
    st.pidx[c, j] = i
    st.cls[c, j] = klass
    st.score[c, j] = entry >> 9
    st.counts[c, klass] += 1
    st.counts[c, PAIR_COUNTS + ((entry >> 4) & 31)] += 1


@njit(cache=True, inline="always")
def _reclass_colour(st: BoardState, c: np.int64, j: np.int64, delta: np.int64) -> None:
    """Class and score of empty cell j for colour index c after one of its line patterns
    changed, moving its pattern index by `delta`; its class and pair counts move from the old
    ones to the new. The index is kept per cell (pidx) rather than rebuilt from the four
    stored patterns: make/undo 0.55 -> 0.44 µs a pair, the bench +22 % nodes/s."""
    old = np.int64(st.pidx[c, j])
    entry = CELL_TABLE[old]
    st.counts[c, entry & 15] -= 1
    st.counts[c, PAIR_COUNTS + ((entry >> 4) & 31)] -= 1
    _add_cell(st, c, j, old + delta)


@njit(cache=True, inline="always")
def _refresh_line(st: BoardState, j: np.int64, d: np.int64, row: np.int64) -> None:
    """Key of cell j in direction d changed: look its patterns up again. Patterns, classes
    and scores are kept for empty cells only (an occupied cell's stay as they were when it
    was filled, which is what they are again when it is emptied), and a colour is
    reclassified only where its pattern changed, which most updates leave alone for at
    least one colour. With row >= 0 each change is logged in undo_log[row] first."""
    if st.cells[j] == 0:
        p = st.tables[st.keys[d, j]]
        for c in range(2):
            q = (p >> (4 * c)) & 15
            was = st.pat[c, d, j]
            if q != was:
                if row >= 0:
                    n = st.undo_log[row, 0]
                    st.undo_log[row, 1 + 2 * n] = j | (d << 12) | (c << 14) | (np.int64(was) << 15) \
                        | (np.int64(st.cls[c, j]) << 19)
                    st.undo_log[row, 2 + 2 * n] = st.score[c, j]
                    st.undo_log[row, 0] = n + 1
                st.counts[c, PATTERN_COUNTS + was] -= 1
                st.counts[c, PATTERN_COUNTS + q] += 1
                st.pat[c, d, j] = q
                _reclass_colour(st, c, j, (q - np.int64(was)) * PATTERN_INDEX_STEP[d])


@njit(cache=True, inline="always")
def _refresh_cell(st: BoardState, j: np.int64) -> None:
    """All four directions of cell j, counted as a newly empty cell."""
    for d in range(4):
        p = st.tables[st.keys[d, j]]
        st.pat[0, d, j] = p & 15
        st.pat[1, d, j] = p >> 4
        st.counts[0, PATTERN_COUNTS + (p & 15)] += 1
        st.counts[1, PATTERN_COUNTS + (p >> 4)] += 1
    _add_cell(st, 0, j, _pattern_index(st, 0, j))
    _add_cell(st, 1, j, _pattern_index(st, 1, j))


@njit(cache=True, inline="always")
def _set_keys(st: BoardState, idx: np.int64, value: np.int64) -> None:
    """Put `value` (stone colour, WALL or EMPTY) on idx in the keys of its 40 line neighbours."""
    for d in range(4):
        step = st.steps[d]
        for k in range(1, 6):
            # neighbour at idx + k*step sees idx at offset -k (key position 5-k)
            j = idx + k * step
            sh = 2 * (5 - k)
            st.keys[d, j] = (st.keys[d, j] & ~(3 << sh)) | (value << sh)
            j = idx - k * step
            sh = 2 * (4 + k)
            st.keys[d, j] = (st.keys[d, j] & ~(3 << sh)) | (value << sh)


@njit(cache=True, inline="always")
def _add_near(st: BoardState, idx: np.int64, delta: np.int64) -> None:
    stride = st.meta[M_STRIDE]
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if dx != 0 or dy != 0:
                st.near[idx + dy * stride + dx] += delta


@njit(cache=True, inline="always")
def _set_cell(st: BoardState, idx: np.int64, value: np.int64, row: np.int64) -> None:
    """Put `value` (stone colour or WALL) on empty cell idx and update the 40 line neighbours
    (logging the changes in undo_log[row] when row >= 0)."""
    st.cells[idx] = value
    _set_keys(st, idx, value)
    for d in range(4):
        step = st.steps[d]
        for k in range(1, 6):
            _refresh_line(st, idx + k * step, d, row)
            _refresh_line(st, idx - k * step, d, row)
    if value == 1 or value == 2:
        _add_near(st, idx, 1)
    for c in range(2):
        st.counts[c, st.cls[c, idx]] -= 1
        st.counts[c, PAIR_COUNTS + _pair_of(st.pidx[c, idx])] -= 1
        for d in range(4):
            st.counts[c, PATTERN_COUNTS + st.pat[c, d, idx]] -= 1
    st.meta[M_EMPTY] -= 1


@njit(cache=True, inline="always")
def _widen_span(st: BoardState, src: np.int64, dst: np.int64, idx: np.int64) -> None:
    """span[dst] = span[src] grown to hold the cells within two rows and columns of a stone on
    idx."""
    reach = 2 * st.meta[M_STRIDE] + 2
    st.span[dst, 0] = min(st.span[src, 0], idx - reach)
    st.span[dst, 1] = max(st.span[src, 1], idx + reach + 1)


@njit(cache=True, inline="always")
def _copy_counts(counts: np.ndarray, log: np.ndarray, row: np.int64, save: bool) -> None:
    """log[row] = counts (save) or counts = log[row], written as loops: slicing needs numba's
    runtime, which make_move and undo_move are compiled without."""
    for k in range(counts.shape[0]):
        for q in range(counts.shape[1]):
            if save:
                log[row, k, q] = counts[k, q]
            else:
                counts[k, q] = log[row, k, q]


@njit(cache=True, _nrt=False)
def make_move(st: BoardState, idx: np.int64) -> None:
    """Play the side to move at empty cell idx (caller checks legality)."""
    color = st.meta[M_TOMOVE]
    won = st.pat[color - 1, 0, idx] == F5 or st.pat[color - 1, 1, idx] == F5 or \
        st.pat[color - 1, 2, idx] == F5 or st.pat[color - 1, 3, idx] == F5
    c = st.meta[M_COUNT]
    _copy_counts(st.counts, st.counts_log, c, True)
    st.undo_log[c, 0] = 0
    _set_cell(st, idx, color, c)
    st.hashv[0] ^= st.zobrist[color, idx]
    st.moves[c] = idx
    _widen_span(st, c, c + 1, idx)
    st.meta[M_COUNT] = c + 1
    st.meta[M_TOMOVE] = 3 - color
    st.meta[M_WINNER] = color if won else 0


@njit(cache=True, _nrt=False)
def undo_move(st: BoardState) -> np.int64:
    """Take back the last move; returns its cell index. Restores what make_move logged rather
    than looking the neighbours' patterns up again: the moves after it are undone already, so
    every logged cell is empty and as make_move left it. A make/undo pair took 1.24 µs, now
    0.54 µs (40 moves of an opening); the bench 619 k -> 727 k nodes/s."""
    c = st.meta[M_COUNT] - 1
    st.meta[M_COUNT] = c
    idx = np.int64(st.moves[c])
    color = st.cells[idx]
    st.cells[idx] = 0
    _set_keys(st, idx, 0)
    _add_near(st, idx, -1)
    for e in range(st.undo_log[c, 0]):
        w = np.int64(st.undo_log[c, 1 + 2 * e])
        j = w & 4095
        d = (w >> 12) & 3
        k = (w >> 14) & 1
        was = (w >> 15) & 15
        st.pidx[k, j] += (was - st.pat[k, d, j]) * PATTERN_INDEX_STEP[d]
        st.pat[k, d, j] = was
        st.cls[k, j] = (w >> 19) & 15
        st.score[k, j] = st.undo_log[c, 2 + 2 * e]
    _copy_counts(st.counts, st.counts_log, c, False)
    st.meta[M_EMPTY] += 1
    st.hashv[0] ^= st.zobrist[color, idx]
    st.meta[M_TOMOVE] = color
    st.meta[M_WINNER] = 0
    return idx


@njit(cache=True)
def place_wall(st: BoardState, idx: np.int64) -> None:
    """Make an empty cell unusable (Piskvork BOARD field 3)."""
    _set_cell(st, idx, 3, -1)
    st.hashv[0] ^= st.zobrist[0, idx]


@njit(cache=True)
def rebuild(st: BoardState) -> None:
    """Recompute keys, patterns, counts and neighbourhood from the cells alone."""
    n = st.cells.shape[0]
    st.counts[:, :] = 0
    st.near[:] = 0
    stride = st.meta[M_STRIDE]
    empties = 0
    for i in range(n):
        for d in range(4):
            step = st.steps[d]
            key = 0
            for k in range(1, 6):
                j = i - k * step
                v = 3 if j < 0 or j >= n else st.cells[j]
                key |= v << (2 * (5 - k))
                j = i + k * step
                v = 3 if j < 0 or j >= n else st.cells[j]
                key |= v << (2 * (4 + k))
            st.keys[d, i] = key
    st.span[st.meta[M_COUNT], 0] = n
    st.span[st.meta[M_COUNT], 1] = 0
    for i in range(n):
        v = st.cells[i]
        if v == 1 or v == 2:
            _widen_span(st, st.meta[M_COUNT], st.meta[M_COUNT], i)
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    if dx != 0 or dy != 0:
                        j = i + dy * stride + dx
                        if 0 <= j < n:
                            st.near[j] += 1
    for i in range(n):
        if st.cells[i] == 0:
            empties += 1
            _refresh_cell(st, i)
        else:
            for d in range(4):
                p = st.tables[st.keys[d, i]]
                st.pat[0, d, i] = p & 15
                st.pat[1, d, i] = p >> 4
    st.meta[M_EMPTY] = empties
    h = np.uint64(0)
    for i in range(n):
        v = st.cells[i]
        if v == 1 or v == 2:
            h ^= st.zobrist[v, i]
    st.hashv[0] = h


@njit(cache=True, inline="always")
def scan_span(st: BoardState) -> tuple[np.int64, np.int64]:
    """Start and end of the cell indices a move generator needs to scan: every cell near a
    stone (the 5x5 square, `near`) and every cell that makes an open three, a four or a five
    for either colour (all lie within two cells of a stone along a line) is in range. Empty
    when no stone is on the board. The padded board has ~520 cells; early and middle games
    need a third to a half of them (the bench runs 2 % faster: the work per candidate, not
    the scan, is what the generators spend their time on)."""
    c = st.meta[M_COUNT]
    return st.span[c, 0], st.span[c, 1]


@njit(cache=True, inline="always")
def _line_bits(cells: np.ndarray, idx: np.int64, step: np.int64) -> tuple[np.int64, np.int64]:
    """The 11 cells centred on idx along one direction as two bit masks (bit k is the cell
    k - 5 steps away): black stones, empty cells. Masks rather than a line buffer keep the
    foul check free of allocations, so it runs without numba's runtime like its callers."""
    black = np.int64(0)
    empty = np.int64(0)
    for k in range(11):
        v = cells[idx + (k - 5) * step]
        if v == 1:
            black |= np.int64(1) << k
        elif v == 0:
            empty |= np.int64(1) << k
    return black, empty


@njit(cache=True, inline="always")
def _run_bits(black: np.int64) -> int:
    """Length of the black run through the centre (bit 5, assumed set)."""
    n = 1
    k = 4
    while k >= 0 and (black >> k) & 1:
        n += 1
        k -= 1
    k = 6
    while k <= 10 and (black >> k) & 1:
        n += 1
        k += 1
    return n


@njit(cache=True, inline="always")
def _five_bits(black: np.int64, empty: np.int64) -> tuple[int, int]:
    """Black stone at the centre: how many empty cells within 4 would make an exact five
    through the centre, and the position of the lowest one (-1 if none)."""
    cnt = 0
    first = -1
    for p in range(1, 10):
        if p == 5 or not (empty >> p) & 1:
            continue
        if _run_bits(black | (np.int64(1) << p)) == 5:
            if cnt == 0:
                first = p
            cnt += 1
    return cnt, first


@njit(cache=True, _nrt=False)
def is_forbidden_at(cells: np.ndarray, steps: np.ndarray, idx: np.int64, depth: np.int64) -> bool:
    """Renju: would a black stone on empty idx be a foul (overline, 4-4, or 3-3 with two real
    threes)? A three is real only if some completion to a straight four is itself not a foul,
    which is why this recurses (bounded by depth)."""
    if cells[idx] != 0:
        return False
    cells[idx] = 1
    overline = False
    for d in range(4):
        black, _ = _line_bits(cells, idx, steps[d])
        run = _run_bits(black)
        if run == 5:
            cells[idx] = 0
            return False          # a five wins, whatever else it makes
        if run > 5:
            overline = True
    if overline:
        cells[idx] = 0
        return True
    fours = 0
    four_dirs = 0
    for d in range(4):
        black, empty = _line_bits(cells, idx, steps[d])
        n, first = _five_bits(black, empty)
        if n == 2:
            # two completion points 5 apart belong to one straight four
            second = 0
            for p in range(first + 1, 10):
                if p != 5 and (empty >> p) & 1 and _run_bits(black | (np.int64(1) << p)) == 5:
                    second = p
                    break
            if second - first == 5:
                n = 1
        if n > 0:
            four_dirs |= 1 << d
        fours += n
    if fours >= 2:
        cells[idx] = 0
        return True
    threes = 0
    if depth < 6:
        for d in range(4):
            if (four_dirs >> d) & 1:
                continue
            black, empty = _line_bits(cells, idx, steps[d])
            real = False
            for p in range(1, 10):
                if p == 5 or not (empty >> p) & 1:
                    continue
                bp = black | (np.int64(1) << p)
                ep = empty & ~(np.int64(1) << p)
                n, a = _five_bits(bp, ep)
                # straight four: two completion points exactly 5 apart
                if n >= 2 and a + 5 <= 9 and (ep >> (a + 5)) & 1 \
                        and _run_bits(bp | (np.int64(1) << (a + 5))) == 5:
                    e = idx + (p - 5) * steps[d]
                    if not is_forbidden_at(cells, steps, e, depth + 1):
                        real = True
                        break
            if real:
                threes += 1
                if threes >= 2:
                    break
    cells[idx] = 0
    return threes >= 2


@njit(cache=True)
def forbidden_mask(st: BoardState, out: np.ndarray) -> int:
    """Mark in out[] every empty cell that is a renju foul for black; returns the count.
    Only cells whose black class hints at 3-3, 4-4 or an overline are examined."""
    n = st.cells.shape[0]
    cnt = 0
    zero = np.int64(0)
    for i in range(n):
        out[i] = 0
        if st.cells[i] != 0:
            continue
        k = st.cls[0, i]
        suspect = k == C_F4 or k == C_B4F3 or k == C_F3X2
        if not suspect:
            for d in range(4):
                if st.pat[0, d, i] == OL:
                    suspect = True
        if suspect and is_forbidden_at(st.cells, st.steps, np.int64(i), zero):
            out[i] = 1
            cnt += 1
    return cnt


@njit(cache=True)
def random_playouts(st: BoardState, games: np.int64, seed: np.int64) -> int:
    """Benchmark kernel: random games to a win or a full board, maintaining all patterns.
    Returns the number of moves made (the board is restored afterwards)."""
    np.random.seed(seed)
    n = st.cells.shape[0]
    empties = np.empty(n, dtype=np.int64)
    total = 0
    base = st.meta[M_COUNT]
    for g in range(games):
        m = 0
        for i in range(n):
            if st.cells[i] == 0:
                empties[m] = i
                m += 1
        while m > 0 and st.meta[M_WINNER] == 0:
            r = np.random.randint(0, m)
            idx = empties[r]
            empties[r] = empties[m - 1]
            m -= 1
            make_move(st, idx)
            total += 1
        while st.meta[M_COUNT] > base:
            undo_move(st)
    return total
