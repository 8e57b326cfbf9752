"""Classical alpha-beta: iterative deepening PVS over the numba board core.

Per node (all in numba, no Python objects): win/loss detection from the incremental class
counts, a transposition table, forced-move generation (block a five; against an open three
or a four-four point: block it or counter with a four), otherwise every empty cell within
two of a stone, ordered by TT move, pattern scores, killers and history. Depth comes from
selectivity: late moves are searched shallower by a log(depth) x log(move number) reduction
(re-searched when they beat alpha), only the first few are searched at all (fewer where no
three or four is on the board; at the root and its replies the quota counts quiet moves
only, below them every move: LATE_MOVE_PLY), and near the leaves futility, reverse futility
and razoring cut on the static evaluation, unless the opponent has a three or four to
answer. Self-play at 0.3 s/move against the previous search (one ply of reduction, width
16, no static pruning): 60-40, with depth 9 costing a tenth of the nodes. Leaves run a
short VCF probe for the side to move before the pattern evaluation (engine.evaluation).
A child with no depth left and no five to block is scored in the parent (_leaf_child): no
pvs call, which passes ~30 arrays, and no TT probe, which mostly misses the caches and can
only hit a transposition searched deeper (PentaZen probes no TT at its leaves either). The
TT entry of any other child is prefetched before its move is made. Bench +8 % nodes/s, 3 %
more nodes; on 40 positions of our games against PentaZen at 0.75 s, 11.6 % more nodes.

The Python driver (`search`) adds what is per move rather than per node: VCF/VCT probes at
the root for both sides (a found win is played at once; an opponent VCF restricts the root
to moves that refute it), a check of the move chosen (a df-pn VCT for the opponent after
it: a refuted move is dropped and the depth searched again), and the clock. Each iteration
searches the root with the full window, as PentaZen does: aspiration windows (the last
iteration's score +-80, widened to the full window on a fail) lost to it in self-play
(39-58-3 at 0.3 s/move; +-250: 52-44-4), the scores of successive iterations differ by more
than any narrow window in these positions. Time never enters the jitted code: a watcher
thread sets ctrl[C_STOP] at the deadline or when `stop` is set, and the nogil search polls
it every node. Under a node or depth limit (and no time limit) the result depends only on
the position: every search starts with cleared tables (a timed search may keep its TT: `search`).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Hashable, NamedTuple, Optional

import numpy as np
from numba import njit

from gomoku.engine.game import core
from gomoku.engine.search import dfpn, evaluation, threats
from gomoku.engine.numba_cache import drop_stale_cache
from gomoku.engine.search.prefetch import prefetch_row
from gomoku.engine.game.core import BoardState, make_move, scan_span, undo_move
from gomoku.engine.search.threats import (C_NODE_LIMIT, C_NODES, C_PVLEN, C_STOP, ThreatTable, is_foul,
                      is_four_class, new_threat_table, tick, vcf)

drop_stale_cache(__file__, ("game.core", "game.patterns", "search.threats", "search.evaluation",
                            "search.dfpn", "search.prefetch"))

WIN = 30000
WIN_MIN = 29000           # |score| above this is a proven result
INF = 32000
MAXPLY = 64
EXACT, LOWER, UPPER = 0, 1, 2
C_EXTERNAL = 5            # ctrl slot: the stop came from the clock / stop event

# params slots
P_LEAF_VCF, P_WIDTH, P_LMR, P_PRUNE = 0, 1, 2, 3
P_LATE_PLY = 4            # LATE_MOVE_PLY
P_RAISED = 5              # out: last root move that improved on the best in root_search (-1: none)
P_CALM_OWN, P_CALM_OPP = 6, 7

#: start another iteration only when the time left covers this share of its predicted cost
#: (an interrupted iteration still counts where its first move finished and was beaten; the
#: first move of an iteration takes about half of it). At 1 s/move against PentaZen (80 games)
#: the brain's moves that searched took 654 ms on average at 0.25, 593 ms at 0.5
NEXT_ITER_SHARE = 0.25
#: bounds on the predicted growth of one iteration over the previous one
ITER_GROWTH_MIN, ITER_GROWTH_MAX = 1.5, 6.0


def _lmr_table() -> np.ndarray:
    """Plies a late move is searched shallower, by [depth, moves searched before it]:
    the usual log-log shape (deeper nodes and later moves are cut more)."""
    t = np.zeros((32, 64), dtype=np.int64)
    for d in range(1, 32):
        for n in range(1, 64):
            t[d, n] = int(0.5 + np.log(d) * np.log(n) / LMR_DIVISOR)
    return t


#: larger: smaller reductions
LMR_DIVISOR = 2.0
LMR = _lmr_table()
#: futility margins (eval units) by remaining depth: a quiet move at a node whose static
#: evaluation is this far below alpha is not searched (an open three's worth is ~2 x 2500)
FUTILITY = np.array([0, 150, 350, 600], dtype=np.int64)
#: reverse futility: a node whose static evaluation beats beta by this much per remaining ply
#: (up to RFP_DEPTH) returns it; razoring: one this far below alpha (up to RAZOR_DEPTH) drops
#: to the leaf evaluation
RFP_MARGIN, RFP_DEPTH = 120, 6
RAZOR_MARGIN, RAZOR_DEPTH = 150, 4


def _move_counts(cap: int, a: float, b: float) -> np.ndarray:
    return np.array([0] + [min(cap, int(round(a * np.sqrt(d) - b))) for d in range(1, 64)],
                    dtype=np.int64)


#: moves searched per node by remaining depth, where neither side has a three or a four on
#: the board and elsewhere; at the root and its replies only quiet moves are counted. A quiet
#: node gets the wide quota (up to 32, as wide as WIDTH): its moves differ little in score,
#: and the right one is often not among the first few. A threat on the board narrows the
#: sensible moves to its answers and counter-threats, so there 8 are enough. These are
#: PentaZen's quotas; until stop 11 ours were the other way round (8 in quiet nodes, 16
#: elsewhere). Self-play against that at 0.3 s/move: freestyle 57-43, standard 55-44-1 (+44
#: Elo together); against PentaZen at 1 s/move neutral (freestyle 19-79-2 against 9-91,
#: standard 7-91-2 against 16-84)
MOVE_COUNT_QUIET = _move_counts(32, 15.0, 12.0)
MOVE_COUNT_NOISY = _move_counts(8, 5.0, 2.0)
#: from this ply on, the move counts cap every move, threes and fours too (late moves of any
#: kind are searched shallower at every ply), as PentaZen does: its search reaches 12-20
#: plies in a second where ours reached 9-13 (11-16 now). Threats are what most moves make in
#: a sharp position, so counting only quiet moves left those nodes almost unpruned. Self-play
#: against the quiet-only cap: 38-21-1 at 0.3 s/move, 30-30 at 0.5 s; PentaZen's announced
#: wins (245 positions from our games against it) proven in 0.5 s: 104 against 78; against
#: PentaZen at 1 s/move 17-143 against 4-116. Where every move searched so far loses,
#: the search goes on past the quota (a lone defence can rank low): capping those nodes too
#: proved 139 of the 245 but lost 40-59-1 in self-play to this.
LATE_MOVE_PLY = 2
#: past this many candidates (by ordering) quiet moves are searched only while every move so
#: far loses; threats and blocks always are. 32 against 16: self-play at 0.3 s/move 57-42-1
#: (freestyle); with full-window iterations 56-42-2 (freestyle) and 64-33-3 (standard)
#: against both at once
WIDTH = 32

_SIDE = np.array([0x0123456789ABCDEF, 0x7EDCBA9876543210], dtype=np.uint64)


class SearchCtx(NamedTuple):
    ctrl: np.ndarray      # int64[CTRL_LEN] shared with the watcher thread
    tt: np.ndarray        # uint64[S, 2]: key, packed entry (see _tt_pack)
    killers: np.ndarray   # int32[MAXPLY, 2]
    history: np.ndarray   # int32[2, N]
    moves: np.ndarray     # int32[MAXPLY, N]
    vals: np.ndarray      # int32[MAXPLY, N]
    pv: np.ndarray        # int32[MAXPLY + 1, MAXPLY + 1]
    pvlen: np.ndarray     # int32[MAXPLY + 1]
    wown: np.ndarray      # int32[50]: class, line-pattern and pair weights (as counts)
    wopp: np.ndarray      # int32[50]
    params: np.ndarray    # int64[8]
    tpv: np.ndarray       # int64[threats.MAXPLY]
    ttt: ThreatTable


#: one entry is a key and a packed word in the same 16 bytes, so a probe or a store touches one
#: cache line (five parallel arrays cost up to five misses a node: 5 % of the bench's time)
TT_ENTRY_BYTES = 16
DEFAULT_TT_BYTES = 32 << 20


def new_ctx(n_cells: int, tt_bytes: int = DEFAULT_TT_BYTES) -> SearchCtx:
    """Search tables for boards of `n_cells` padded cells; the TT takes about tt_bytes."""
    size = 1 << max(12, int(tt_bytes // TT_ENTRY_BYTES).bit_length() - 1)
    params = np.zeros(8, dtype=np.int64)
    params[P_LEAF_VCF] = 3
    params[P_WIDTH] = WIDTH
    params[P_LMR] = 1
    params[P_PRUNE] = 1
    params[P_LATE_PLY] = LATE_MOVE_PLY
    params[P_CALM_OWN] = core.C_F3      # quiet moves make less than an open three ...
    params[P_CALM_OPP] = core.C_B4      # ... and stop less than a four
    n_weights = _WEIGHED.shape[0]
    cx = SearchCtx(
        ctrl=threats.new_ctrl(),
        tt=np.zeros((size, 2), dtype=np.uint64),
        killers=np.full((MAXPLY + 1, 2), -1, dtype=np.int32),
        history=np.zeros((2, n_cells), dtype=np.int32),
        moves=np.zeros((MAXPLY + 1, n_cells), dtype=np.int32),
        vals=np.zeros((MAXPLY + 1, n_cells), dtype=np.int32),
        pv=np.zeros((MAXPLY + 1, MAXPLY + 1), dtype=np.int32),
        pvlen=np.zeros(MAXPLY + 1, dtype=np.int32),
        wown=np.zeros(n_weights, dtype=np.int32), wopp=np.zeros(n_weights, dtype=np.int32),
        params=params,
        tpv=np.zeros(threats.MAXPLY, dtype=np.int64),
        ttt=new_threat_table(16),
    )
    set_weights(cx, evaluation.tables())
    return cx


def _weighed_mask() -> np.ndarray:
    """The weight slots, in the core's counts layout, the evaluation weighs
    (evaluation.WEIGHED_*)."""
    m = np.zeros(core.PAIR_COUNTS + core.NUM_PAIRS, dtype=np.bool_)     # one per count
    for base, cut in ((0, evaluation.WEIGHED_CLASSES), (core.PATTERN_COUNTS, evaluation.WEIGHED_PATTERNS),
                      (core.PAIR_COUNTS, evaluation.WEIGHED_PAIRS)):
        m[base + cut.start:base + cut.stop] = True
    return m


_WEIGHED = _weighed_mask()


def set_weights(cx: SearchCtx, tables: evaluation.EvalTables) -> None:
    """Load a rule's evaluation tables into the context: classes, then line patterns from
    PATTERN_COUNTS on and pattern pairs from PAIR_COUNTS on, the layout of the core's counts;
    the entries the evaluation does not weigh are zeroed, whatever the tables say, so that
    `evaluate` can sum over every count."""
    p, q = core.PATTERN_COUNTS, core.PAIR_COUNTS
    cx.wown[:p], cx.wown[p:q], cx.wown[q:] = tables.own, tables.pattern_own, tables.pair_own
    cx.wopp[:p], cx.wopp[p:q], cx.wopp[q:] = tables.opp, tables.pattern_opp, tables.pair_opp
    cx.wown[~_WEIGHED] = 0
    cx.wopp[~_WEIGHED] = 0


def clear_ctx(cx: SearchCtx) -> None:
    """Forget everything learnt (makes a search depend only on its position)."""
    cx.tt[:, :] = 0
    cx.killers[:] = -1
    cx.history[:] = 0
    cx.ttt.key[:] = 0
    cx.ttt.depth[:] = -1
    cx.ctrl[:] = 0


@njit(cache=True, inline="always")
def _tt_pack(move: np.int64, score: np.int64, depth: np.int64, flag: np.int64) -> np.uint64:
    """move + 1 in bits 0-11 (boards have < 4095 padded cells), score + 32768 in 12-27,
    depth (0..127) in 28-35, flag in 36-37."""
    return np.uint64(move + 1) | (np.uint64(score + 32768) << np.uint64(12)) \
        | (np.uint64(depth) << np.uint64(28)) | (np.uint64(flag) << np.uint64(36))


@njit(cache=True, inline="always")
def _tt_unpack(data: np.uint64) -> tuple[np.int64, np.int64, np.int64, np.int64]:
    """(move, score, depth, flag) of a word written by _tt_pack."""
    return (np.int64(data & np.uint64(4095)) - 1,
            np.int64((data >> np.uint64(12)) & np.uint64(65535)) - 32768,
            np.int64((data >> np.uint64(28)) & np.uint64(255)),
            np.int64(data >> np.uint64(36)))


@njit(cache=True, inline="always")
def evaluate(st: BoardState, cx: SearchCtx) -> np.int64:
    """Pattern evaluation from the side to move's view: weighted counts of the empty cells'
    classes, line patterns and pattern pairs (engine.evaluation). One loop over every count:
    set_weights zeroes what is not weighed, and a single straight loop runs faster than three
    over the weighed ranges (bench +5 % nodes/s)."""
    me = st.meta[5] - 1
    op = 1 - me
    v = 0
    for k in range(cx.wown.shape[0]):
        v += cx.wown[k] * st.counts[me, k] - cx.wopp[k] * st.counts[op, k]
    return v


@njit(cache=True, inline="always")
def _caro(st: BoardState) -> bool:
    return st.meta[3] >= 3


@njit(cache=True, inline="always")
def gen_moves(st: BoardState, cx: SearchCtx, ply: np.int64, ttmove: np.int64) -> np.int64:
    """Candidate moves of the side to move into cx.moves[ply] with their ordering values in
    cx.vals[ply], unsorted (see pick_move); returns the count. Fouls are not removed here
    (checked lazily when a move is tried)."""
    me = st.meta[5] - 1
    op = 1 - me
    n = st.cells.shape[0]
    mv = cx.moves[ply]
    vl = cx.vals[ply]
    cnt = 0
    lo, hi = scan_span(st)
    if st.counts[me, 10] > 0:
        # our own five beats everything, including blocking the opponent's
        for i in range(lo, hi):
            if st.cells[i] == 0 and st.cls[me, i] == 10:
                mv[cnt] = i
                vl[cnt] = st.score[me, i]
                cnt += 1
    elif st.counts[op, 10] > 0:
        # must stop the opponent's five
        buf = cx.ttt.buf[ply]
        nb = threats.block_fives(st, np.int64(op), np.int64(-1), buf)
        for t in range(nb):
            mv[cnt] = buf[t]
            vl[cnt] = st.score[me, buf[t]]
            cnt += 1
        if nb == 0 and ply == 0:
            # lost (two fives): at the root still block one of them, the opponent may err
            for i in range(n):
                if st.cells[i] == 0 and st.cls[op, i] == 10:
                    mv[cnt] = i
                    vl[cnt] = st.score[me, i]
                    cnt += 1
    else:
        mode = 2 if st.counts[op, 9] > 0 else 0
        if st.meta[4] == 0:
            c = (st.meta[1] // 2 + 5) * st.meta[2] + st.meta[0] // 2 + 5
            if st.cells[c] == 0:
                mv[0] = c
                vl[0] = 0
                return 1
        k0 = cx.killers[ply, 0]
        k1 = cx.killers[ply, 1]
        for i in range(lo, hi):
            if st.cells[i] != 0:
                continue
            if mode == 2:
                if not is_four_class(st.cls[me, i]) and not is_four_class(st.cls[op, i]):
                    continue
            elif st.near[i] == 0:
                continue
            v = 2 * st.score[me, i] + st.score[op, i] + min(cx.history[me, i] >> 4, 200)
            if i == ttmove:
                v = 1 << 30
            elif i == k0:
                v += 300
            elif i == k1:
                v += 200
            mv[cnt] = i
            vl[cnt] = v
            cnt += 1
        if cnt == 0:
            for i in range(n):
                if st.cells[i] == 0:
                    mv[cnt] = i
                    vl[cnt] = 0
                    cnt += 1
    return cnt


@njit(cache=True, inline="always")
def pick_move(mv: np.ndarray, vl: np.ndarray, t: np.int64, cnt: np.int64) -> None:
    """Bring the best of mv[t:cnt] (the first of equals) to position t, keeping the others in
    their order: picking this way one move at a time yields exactly a stable sort, but most
    nodes cut off after a move or two and never pay for sorting ~60 candidates (5 % of the
    bench's time)."""
    b = t
    bv = vl[t]
    for a in range(t + 1, cnt):
        if vl[a] > bv:
            b = a
            bv = vl[a]
    if b != t:
        m = mv[b]
        for a in range(b, t, -1):
            mv[a] = mv[a - 1]
            vl[a] = vl[a - 1]
        mv[t] = m
        vl[t] = bv


@njit(cache=True, inline="always")
def _calm(cls: np.ndarray, params: np.ndarray, me: np.int64, m: np.int64) -> bool:
    """Move m of colour index me makes no three or four and stops none (the class bounds are
    the P_CALM_* params). Takes the arrays, not the state and context tuples: the same helpers
    taking the tuples made the bench search 25 % slower."""
    return cls[me, m] < params[P_CALM_OWN] and cls[1 - me, m] < params[P_CALM_OPP]


@njit(cache=True, inline="always")
def _quiet(cls: np.ndarray, params: np.ndarray, me: np.int64, m: np.int64, ttmove: np.int64,
           k0: np.int64, k1: np.int64) -> bool:
    """Calm, and no hash or killer move: what the quota at the root and its replies drops
    (below them the quota takes every move; reductions take late moves of any kind)."""
    return _calm(cls, params, me, m) and m != ttmove and m != k0 and m != k1


@njit(cache=True, inline="always")
def _drop_quiet(cls: np.ndarray, params: np.ndarray, me: np.int64, mv: np.ndarray, vl: np.ndarray,
                t: np.int64, cnt: np.int64, ttmove: np.int64, k0: np.int64, k1: np.int64) -> np.int64:
    """Remove the quiet moves from mv[t:cnt] (the others keep their order); returns the new
    count."""
    k = t
    for a in range(t, cnt):
        q = np.int64(mv[a])
        if not _quiet(cls, params, me, q, ttmove, k0, k1):
            mv[k] = mv[a]
            vl[k] = vl[a]
            k += 1
    return k


@njit(cache=True, inline="always")
def sort_moves(mv: np.ndarray, vl: np.ndarray, cnt: np.int64) -> None:
    """Stable sort, best first (insertion sort: used where every move is wanted in order)."""
    for a in range(1, cnt):
        m = mv[a]
        v = vl[a]
        b = a - 1
        while b >= 0 and vl[b] < v:
            mv[b + 1] = mv[b]
            vl[b + 1] = vl[b]
            b -= 1
        mv[b + 1] = m
        vl[b + 1] = v


@njit(cache=True, inline="always")
def _open_four_next(st: BoardState, me: np.int64) -> bool:
    """The side to move (colour index me) wins in three: it can make an open four or a
    four-four and the opponent has no five to make first. Not for caro (a blocked five does
    not win) nor renju black (the cell may be a foul). Asked at every node, not only at the
    leaves: searching such a node costs the three plies it takes to see the five (bench: 4 %
    fewer nodes; 8 more of PentaZen's 245 announced wins proven in 0.5 s)."""
    return st.counts[me, 9] > 0 and st.counts[1 - me, 10] == 0 and not _caro(st) \
        and not (me == 0 and st.meta[3] == 2)


@njit(cache=True, inline="always")
def _leaf(st: BoardState, cx: SearchCtx, ply: np.int64) -> np.int64:
    """Score of a node the search does not expand (pvs has already asked _open_four_next)."""
    me = st.meta[5] - 1
    lv = cx.params[P_LEAF_VCF]
    if lv > 0 and st.counts[me, 8] > 0:
        # only where a four-three is on offer: probing every leaf with a four costs more
        # nodes than it saves (self-play at equal time: 5-14 against no probe)
        cx.ctrl[3] = 0
        if vcf(st, np.int64(me), lv, np.int64(0), cx.ctrl, cx.tpv, cx.ttt):
            return WIN - ply - cx.ctrl[3]
    return evaluate(st, cx)


#: _leaf_child's answer for a child that needs the full node, and _settled's for a node whose
#: value is not settled before a search (both outside every score)
NOT_LEAF = INF + 1
UNSETTLED = INF + 2


@njit(cache=True, inline="always")
def _settled(st: BoardState, cx: SearchCtx, ply: np.int64) -> np.int64:
    """What every node asks first: count it (0 once the search is stopped), then its value
    where the board settles it without a search (a five to make, a full board, two fives to
    stop, an open four to make), else UNSETTLED."""
    cx.pvlen[ply] = ply
    if tick(cx.ctrl):
        return 0
    me = st.meta[5] - 1
    if st.counts[me, 10] > 0:
        return WIN - ply
    if st.meta[7] == 0:
        return 0
    if st.counts[1 - me, 10] >= 2 and not _caro(st):
        return -(WIN - ply - 1)
    if _open_four_next(st, me):
        return WIN - ply - 3
    return UNSETTLED


@njit(cache=True, inline="always")
def _leaf_child(st: BoardState, cx: SearchCtx, depth: np.int64, ply: np.int64) -> np.int64:
    """The value of a child that pvs would only evaluate (no depth left, no five to block),
    worked out in the parent, or NOT_LEAF. Most nodes are such leaves; a pvs call costs them
    the ~30 arrays of the two tuples passed in and out, and a TT probe, a likely cache miss,
    that can only hit where a transposition was searched deeper."""
    if depth > 0 or ply >= MAXPLY - 2 or st.counts[2 - st.meta[5], 10] > 0:
        return NOT_LEAF
    v = _settled(st, cx, ply)
    return _leaf(st, cx, ply) if v == UNSETTLED else v


@njit(cache=True, inline="always")
def _child(st: BoardState, cx: SearchCtx, depth: np.int64, ply: np.int64, alpha: np.int64,
           beta: np.int64) -> tuple[np.int64, bool]:
    """A child's score from the parent's side, and whether the leaf shortcut gave it."""
    v = _leaf_child(st, cx, depth, ply)
    if v != NOT_LEAF:
        return -v, True
    return -pvs(st, cx, depth, ply, -beta, -alpha), False


@njit(cache=True, nogil=True, _nrt=False)
def pvs(st: BoardState, cx: SearchCtx, depth: np.int64, ply: np.int64, alpha: np.int64,
        beta: np.int64) -> np.int64:
    """Score of the position for the side to move (fail-soft PVS)."""
    v = _settled(st, cx, ply)
    if v != UNSETTLED:
        return v
    me = st.meta[5] - 1
    op = 1 - me
    pvnode = beta - alpha > 1
    # killers are kept per ply; the grandchildren's come from another part of the tree, which
    # is what PentaZen clears them for (with the history credit for PV nodes at the end:
    # self-play 58-36-6 at 0.3 s/move and 61-38-1 at 0.5 s; bench 10 % fewer nodes). Nodes
    # below MAXPLY - 2 are leaves, so the guard only keeps an unchecked write in bounds
    if ply + 2 <= MAXPLY:
        cx.killers[ply + 2, 0] = -1
        cx.killers[ply + 2, 1] = -1
    key = st.hashv[0] ^ _SIDE[me]
    slot = np.int64(key & np.uint64(cx.tt.shape[0] - 1))
    ttmove = -1
    tts = 0
    ttf = -1                          # bound of a stored heuristic score (-1: none)
    if cx.tt[slot, 0] == key:
        ttmove, s, tdepth, f = _tt_unpack(cx.tt[slot, 1])
        # a proven win (or loss) holds whatever the depth that found it
        proven = (s > WIN_MIN and f != UPPER) or (s < -WIN_MIN and f != LOWER)
        if abs(s) < WIN_MIN:
            tts = s
            ttf = f
        if (tdepth >= depth or proven) and not pvnode:
            if s > WIN_MIN:
                s -= ply
            elif s < -WIN_MIN:
                s += ply
            if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
                return s
    forced = st.counts[op, 10] > 0
    if (depth <= 0 and not forced) or ply >= MAXPLY - 2:
        return _leaf(st, cx, ply)
    prune = cx.params[P_PRUNE] != 0 and not forced
    # the static evaluation drives the pruning below, where the opponent has no three to answer
    static = prune and not pvnode and st.counts[op, 9] == 0
    sev = evaluate(st, cx) if static else 0
    if static and ttf >= 0 and (ttf == EXACT or (ttf == LOWER) == (tts > sev)):
        sev = tts                     # a searched bound says more than the static guess
    # static pruning, where nothing is proven either
    if static and st.counts[me, 9] == 0:
        if depth <= RFP_DEPTH and sev - RFP_MARGIN * depth >= beta:
            return sev
        if depth <= RAZOR_DEPTH and sev + RAZOR_MARGIN * depth <= alpha:
            return _leaf(st, cx, ply)
    nm = gen_moves(st, cx, ply, np.int64(ttmove))
    if nm == 0:
        return -(WIN - ply - 1)       # cannot stop the five
    width = cx.params[P_WIDTH]
    nall = nm
    if width > 0 and nm > width and not forced:
        nm = width
    newdepth = depth if forced else depth - 1
    renju_black = me == 0 and st.meta[3] == 2
    best = -INF
    bestmove = -1
    a0 = alpha
    searched = 0
    dropped = False
    quiet_node = st.counts[0, 9] == 0 and st.counts[1, 9] == 0 and st.counts[0, 10] == 0 \
        and st.counts[1, 10] == 0
    dd = min(depth, 63)
    mcount = MOVE_COUNT_QUIET[dd] if quiet_node else MOVE_COUNT_NOISY[dd]
    # futility: quiet moves cannot lift a node this far below alpha
    futile = False
    if static and depth <= 3:
        if sev + FUTILITY[depth] <= alpha:
            futile = True
            best = sev + FUTILITY[depth]
    k0 = cx.killers[ply, 0]
    k1 = cx.killers[ply, 1]
    mvs = cx.moves[ply]
    vls = cx.vals[ply]
    # below the root's replies every kind of move counts towards the node's quota
    capped = prune and ply >= cx.params[P_LATE_PLY]
    t = -1
    while t + 1 < nall:
        t += 1
        if capped and searched >= mcount and best > -WIN_MIN:
            break
        # past the width: threats and blocks still, quiet moves only while every move so far
        # loses (a lone defence can rank low: freestyle game 8 vs PentaZen, a false proven win;
        # an attacking three ranked below 16 hid a three-then-double-three loss in standard game 1).
        # With pruning, quiet moves stop once enough were searched. Both conditions, once
        # true, stay true for the rest of the node: then the quiet moves left are dropped
        # in one pass (order kept) and only the others are picked from there on.
        if not dropped and best > -WIN_MIN and \
                (t >= nm or (prune and searched > 0 and (futile or searched >= mcount))):
            dropped = True
            nall = _drop_quiet(st.cls, cx.params, me, mvs, vls, t, nall, ttmove, k0, k1)
            if t >= nall:
                break
        pick_move(mvs, vls, t, nall)
        m = np.int64(mvs[t])
        if renju_black and is_foul(st, np.int64(1), m):
            continue
        if newdepth > 0:
            # the child probes the TT unless it is a leaf: start that memory access now
            prefetch_row(cx.tt, (st.hashv[0] ^ st.zobrist[me + 1, m] ^ _SIDE[op])
                         & np.uint64(cx.tt.shape[0] - 1))
        make_move(st, m)
        if searched == 0:
            v, _ = _child(st, cx, newdepth, ply + 1, alpha, beta)
        else:
            red = 0
            if cx.params[P_LMR] != 0 and searched >= 2 and depth >= 2 and not forced:
                red = LMR[min(depth, 31), min(searched, 63)]
                if pvnode and red > 0:
                    red -= 1
                red = min(red, newdepth)
            v, leaf = _child(st, cx, newdepth - red, ply + 1, alpha, alpha + 1)
            # (a leaf's value does not depend on the window: at full depth it stays)
            if v > alpha and (red > 0 or v < beta) and not (leaf and red == 0):
                v, _ = _child(st, cx, newdepth, ply + 1, alpha, beta)
        undo_move(st)
        searched += 1
        if cx.ctrl[0] != 0:
            return 0
        if v > best:
            best = v
            bestmove = m
            if v > alpha:
                alpha = v
                cx.pv[ply, ply] = m
                e = cx.pvlen[ply + 1]
                for q in range(ply + 1, e):
                    cx.pv[ply, q] = cx.pv[ply + 1, q]
                cx.pvlen[ply] = max(e, ply + 1)
                if v >= beta:
                    if _calm(st.cls, cx.params, me, m) and cx.killers[ply, 0] != m:
                        cx.killers[ply, 1] = cx.killers[ply, 0]
                        cx.killers[ply, 0] = m
                    break
    if searched == 0:
        if futile:
            return best               # quiet moves pruned: the futility bound
        return -(WIN - ply - 1)       # every move is a foul
    if best > a0 and _calm(st.cls, cx.params, me, bestmove):
        # the best quiet move of a node that raised alpha, cut-off or not (PV nodes too)
        cx.history[me, bestmove] += depth * depth
    flag = EXACT
    if best <= a0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    s = best
    if s > WIN_MIN:
        s += ply
    elif s < -WIN_MIN:
        s -= ply
    cx.tt[slot, 0] = key
    cx.tt[slot, 1] = _tt_pack(bestmove, s, min(max(depth, 0), 127), flag)
    return best


@njit(cache=True, nogil=True, _nrt=False)
def root_search(st: BoardState, cx: SearchCtx, depth: np.int64, rmoves: np.ndarray,
                nroot: np.int64) -> np.int64:
    """One full-window iteration over the root moves (PVS: each move after the first is tried
    on a null window at the best score so far); the best is moved to rmoves[0] and its line
    is left in cx.pv[0, :cx.pvlen[0]]."""
    best = -INF
    cx.pvlen[0] = 0
    cx.params[P_RAISED] = -1
    for r in range(nroot):
        m = np.int64(rmoves[r])
        make_move(st, m)
        if r == 0:
            v = -pvs(st, cx, depth - 1, np.int64(1), np.int64(-INF), np.int64(INF))
        else:
            v = -pvs(st, cx, depth - 1, np.int64(1), -best - 1, -best)
            if v > best:
                v = -pvs(st, cx, depth - 1, np.int64(1), np.int64(-INF), -best)
        undo_move(st)
        if cx.ctrl[0] != 0:
            break
        if v > best:
            best = v
            for q in range(r, 0, -1):
                rmoves[q] = rmoves[q - 1]
            rmoves[0] = m
            cx.pv[0, 0] = m
            e = cx.pvlen[1]
            for q in range(1, e):
                cx.pv[0, q] = cx.pv[1, q]
            cx.pvlen[0] = max(e, 1)
            cx.params[P_RAISED] = m          # a searched score, not a null-window bound
    return best


@njit(cache=True, nogil=True, _nrt=False)
def root_moves(st: BoardState, cx: SearchCtx, out: np.ndarray) -> np.int64:
    """Legal candidate moves at the root (fouls removed), best first."""
    n = gen_moves(st, cx, np.int64(0), np.int64(-1))
    sort_moves(cx.moves[0], cx.vals[0], n)
    me = st.meta[5] - 1
    k = 0
    for t in range(n):
        m = np.int64(cx.moves[0, t])
        if me == 0 and is_foul(st, np.int64(1), m):
            continue
        out[k] = m
        k += 1
    return k


@njit(cache=True, nogil=True, _nrt=False)
def refutes_vcf(st: BoardState, cx: SearchCtx, cand: np.ndarray, n: np.int64, depth: np.int64,
                keep: np.ndarray) -> np.int64:
    """keep[i] = 1 where playing cand[i] leaves the opponent without a VCF (of `depth` fours)."""
    cnt = 0
    for t in range(n):
        m = np.int64(cand[t])
        make_move(st, m)
        op = st.meta[5] - 1
        r = vcf(st, np.int64(op), depth, np.int64(0), cx.ctrl, cx.tpv, cx.ttt)
        undo_move(st)
        if cx.ctrl[0] != 0:
            return -1
        keep[t] = 1 - r
        cnt += 1 - r
    return cnt


# ---------------------------------------------------------------------------------------
# driver

@dataclass
class SearchResult:
    move: int                     # cell index (-1: no move)
    score: int
    depth: int
    nodes: int
    time: float
    pv: list[int] = field(default_factory=list)
    proven: str = ""              # "vcf", "vct" when a threat solver proved the win


class _Watcher:
    """Sets ctrl[C_STOP] (and ctrl[C_EXTERNAL]) at the deadline or when `stop` is set."""

    def __init__(self, ctrl: np.ndarray, deadline: Optional[float], stop: Optional[threading.Event]):
        self.ctrl, self.deadline, self.stop = ctrl, deadline, stop
        self.done = threading.Event()
        self.thread: Optional[threading.Thread] = None
        if deadline is not None or stop is not None:
            self.thread = threading.Thread(target=self._run, name="search-watch", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            if (self.stop is not None and self.stop.is_set()) or \
                    (self.deadline is not None and time.perf_counter() >= self.deadline):
                self.ctrl[C_EXTERNAL] = 1
                self.ctrl[C_STOP] = 1
                return
            self.done.wait(0.002)

    def close(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()


_CTX_CACHE: dict[tuple[int, int, Hashable], SearchCtx] = {}
#: search tables kept at once (a TT is 32 MiB by default)
MAX_CONTEXTS = 4
_CTX_LOCK = threading.Lock()


def get_ctx(n_cells: int, tt_bytes: int, owner: Hashable = None) -> SearchCtx:
    """The search tables of `owner` (one per player in a process: a timed search keeps its
    TT for the player's next move, which another player must not read) for boards of
    `n_cells`; an owner's tables of another size are dropped, and at most MAX_CONTEXTS are
    kept (the least recently used goes)."""
    key = (n_cells, tt_bytes, owner)
    with _CTX_LOCK:
        cx = _CTX_CACHE.pop(key, None)
        if cx is None:
            _drop_owner(owner)
            while len(_CTX_CACHE) >= MAX_CONTEXTS:
                _drop_ctx(next(iter(_CTX_CACHE)))
            cx = new_ctx(n_cells, tt_bytes)
        _CTX_CACHE[key] = cx          # (re)inserted last: the most recently used
    return cx


def release_ctx(owner: Hashable) -> None:
    """Drop the tables of `owner` (a player that is done)."""
    with _CTX_LOCK:
        _drop_owner(owner)


def _drop_owner(owner: Hashable) -> None:
    """Forget every set of tables of `owner` (caller holds _CTX_LOCK)."""
    for k in [k for k in _CTX_CACHE if k[2] == owner]:
        _drop_ctx(k)


def _drop_ctx(key: tuple[int, int, Hashable]) -> None:
    """Forget one set of tables and the rule it was filled under (caller holds _CTX_LOCK)."""
    _CTX_RULE.pop(id(_CTX_CACHE.pop(key)), None)


#: proof-number table of the root's VCT probes and move checks (2^18 entries of 24 bytes)
DFPN_TABLE_LOG2 = 18
#: the root's own threat probe: "dfpn" (engine.dfpn) or "vct" (depth-first, engine.threats)
ROOT_VCT = "dfpn"
#: a root move is played only once the opponent's VCT after it was looked for (df-pn, one
#: probe budget) and not found; iterations deeper than this many plies are checked
VERIFY_MIN_DEPTH = 2
#: moves the last safety check may look at after the search stopped, and the share of the
#: time limit it may run past the deadline
FINAL_CHECKS = 10
FINAL_GRACE = 0.04
#: a move check's budget, in root probe budgets. The checks cost time the search would have
#: had and did not move the results beyond the noise: against PentaZen at time odds (60 games)
#: 14-42-4 and 12-46-2 (local df-pn), 17-43 (whole-board), 11-46-3 (twice the budget), 16-44 without;
#: self-play against the search without them 47-53 and 51-47-2 (100 games each). Those runs
#: used df-pn's reach 3; with PROBE_REACH 5 twice the budget is what was measured (below)
VERIFY_SCALE = 2.0
#: df-pn's reach (engine.dfpn.REACH) in the root probe and the move checks. PentaZen's wins
#: are often VCTs whose threes wander further than three rows from the last one: on 245 positions
#: where it announced a win, df-pn at 200 k nodes proves 79 with reach 5 and 54 with reach 3.
#: Reach 5 and twice the check budget against reach 3 and the old budget: self-play 54-45-1 at
#: 0.5 s/move (100 games)
PROBE_REACH = 5


def _opponent_wins_after(st: BoardState, cx: SearchCtx, move: int, me: int, budget: int,
                         node_cap: int) -> bool:
    """Does the opponent win by continuous threats once we play `move`? (df-pn, `budget`
    nodes; out of budget or time counts as no.)"""
    make_move(st, np.int64(move))
    try:
        lost, _ = _probe(st, cx, "dfpn", 1 - me, 0, budget, node_cap)
    finally:
        undo_move(st)
    return lost


def _look(st: BoardState, cx: SearchCtx, move: int, me: int, budget: int, node_cap: int,
          checked: set[int], refuted: set[int]) -> Optional[bool]:
    """Check `move` and record it: True refuted, False safe (no VCT within the budget), None
    when the clock or the stop event ended the look first (the move stays unchecked)."""
    if _opponent_wins_after(st, cx, move, me, budget, node_cap):
        checked.add(move)
        refuted.add(move)
        return True
    if cx.ctrl[C_STOP]:
        return None
    checked.add(move)
    return False


def _with_move(best: SearchResult, move: int) -> SearchResult:
    """`best` with another move in its place (the line is only that move)."""
    return replace(best, move=move, pv=[move])


_DFPN_TABLES: list[dfpn.DfpnTable] = []


def _dfpn_table() -> dfpn.DfpnTable:
    """The proof-number table the root probes share (made on first use)."""
    with _CTX_LOCK:
        if not _DFPN_TABLES:
            _DFPN_TABLES.append(dfpn.new_dfpn_table(DFPN_TABLE_LOG2))
        return _DFPN_TABLES[0]


def _probe(st: BoardState, cx: SearchCtx, kind: str, side: int, depth: int, budget: int,
           node_cap: int) -> tuple[bool, list[int]]:
    """Threat probe for colour index `side` to move, with its own node budget; the global stop
    (clock, stop event, overall node cap) still applies."""
    ctrl = cx.ctrl
    if ctrl[C_STOP]:
        return False, []
    saved = int(ctrl[C_NODE_LIMIT])
    lim = int(ctrl[C_NODES]) + budget
    if node_cap > 0:
        lim = min(lim, node_cap)
    ctrl[C_NODE_LIMIT] = lim
    ctrl[C_PVLEN] = 0
    if kind != "dfpn":
        cx.ttt.key[:] = 0      # solver failures depend on depth/budget: start clean
        cx.ttt.depth[:] = -1
    a = np.int64(side)
    if kind == "vcf":
        r = vcf(st, a, np.int64(depth), np.int64(0), ctrl, cx.tpv, cx.ttt)
    elif kind == "dfpn":
        tab = _dfpn_table()
        dfpn.clear_dfpn_table(tab)
        reach = np.int64(PROBE_REACH)
        r = int(dfpn.dfpn(st, a, ctrl, tab, reach)) == 1
        if r:
            ctrl[C_PVLEN] = dfpn.proof_line(st, a, tab, cx.tpv, reach)
    else:
        # iterative deepening: the solver is depth-first, and a deep limit sends it down long
        # hopeless lines first (standard game 1 vs PentaZen: a 4-threat VCT found in 8k nodes at
        # depth 4 was not found in 300k at depth 6); failures stored per depth carry over
        r = 0
        for d in range(1, depth + 1):
            r = threats.vct(st, a, np.int64(d), np.int64(12), np.int64(0), ctrl, cx.tpv, cx.ttt)
            if r or ctrl[C_STOP]:
                break
    ctrl[C_NODE_LIMIT] = saved
    if ctrl[C_STOP] and not ctrl[C_EXTERNAL] and not (node_cap > 0 and ctrl[C_NODES] >= node_cap):
        ctrl[C_STOP] = 0       # only the probe's own budget ran out
    if r:
        return True, [int(x) for x in cx.tpv[: int(ctrl[C_PVLEN])]]
    return False, []


#: the rule each context's TT was last filled under (a kept TT is cleared when it changes)
_CTX_RULE: dict[int, int] = {}


def search(st: BoardState, *, max_depth: Optional[int] = None, node_limit: Optional[int] = None,
           time_limit: Optional[float] = None, stop: Optional[threading.Event] = None,
           tt_bytes: int = DEFAULT_TT_BYTES, threat_probes: bool = True, clear: bool = True,
           owner: Hashable = None) -> SearchResult:
    """Search the position in `st` (restored afterwards) for the side to move.

    Stops at `max_depth` completed iterations, `node_limit` nodes, `time_limit` seconds or
    when `stop` is set, whichever first; always returns the best move of the last completed
    iteration (or of the root ordering if none completed). With `clear` False the TT of
    `owner`'s last search under the same rule is kept (killers and history are not): its
    entries are facts about positions, and the positions two plies on were searched last
    move. Against PentaZen at 1 s/move (freestyle, 100 games) 36 - 57 - 7 against 31 - 65 - 4
    for the same search clearing it."""
    t0 = time.perf_counter()
    n_cells = st.cells.shape[0]
    cx = get_ctx(n_cells, tt_bytes, owner)
    rule = int(st.meta[core.M_RULE])
    set_weights(cx, evaluation.tables(rule))
    if clear or _CTX_RULE.get(id(cx)) != rule:
        clear_ctx(cx)
    else:
        # the TT's entries are facts about positions (under this rule's evaluation), so they
        # hold in the next search of the game; killers and history are about the last root
        cx.killers[:] = -1
        cx.history[:] = 0
        cx.ctrl[:] = 0
    _CTX_RULE[id(cx)] = rule
    ctrl = cx.ctrl
    node_cap = int(node_limit) if node_limit else 0
    ctrl[C_NODE_LIMIT] = node_cap
    deadline = t0 + time_limit if time_limit is not None else None
    watcher = _Watcher(ctrl, deadline, stop)
    me = int(st.meta[core.M_TOMOVE]) - 1
    try:
        rm = np.zeros(n_cells, dtype=np.int32)
        nroot = int(root_moves(st, cx, rm))
        if nroot == 0:
            # nothing sensible (or only fouls) left: any legal cell, else -1 (board full)
            mask = np.zeros(n_cells, dtype=np.int8)
            if me == 0 and int(st.meta[core.M_RULE]) == 2:
                core.forbidden_mask(st, mask)
            free = np.flatnonzero((st.cells == 0) & (mask == 0))
            mv = int(free[0]) if len(free) else -1
            return SearchResult(mv, -WIN, 0, int(ctrl[C_NODES]), time.perf_counter() - t0, [mv] if mv >= 0 else [])
        best = SearchResult(int(rm[0]), 0, 0, 0, 0.0, [int(rm[0])])
        if nroot == 1:
            best.depth = 1
            if st.counts[me, 10] > 0:
                best.score = WIN - 1
            return _finish(best, ctrl, t0)
        # -- threat probes at the root
        if threat_probes:
            # each probe may use about a tenth of the move (nodes, or time at ~250k nodes/s)
            if node_cap:
                probe_budget = max(1000, node_cap // 10)
            elif time_limit is not None:
                probe_budget = max(2000, int(time_limit * 25_000))
            else:
                probe_budget = 20_000
            win, line = _probe(st, cx, "vcf", me, 40, probe_budget, node_cap)
            if win:
                return _finish(SearchResult(line[0], WIN - len(line), len(line), 0, 0.0, line, "vcf"),
                               ctrl, t0)
            # does the opponent threaten a VCF if we pass?
            st.meta[core.M_TOMOVE] = 2 - me
            try:
                opp_win, _ = _probe(st, cx, "vcf", 1 - me, 40, probe_budget, node_cap)
            finally:
                st.meta[core.M_TOMOVE] = me + 1
            if opp_win and st.counts[1 - me, 10] == 0:
                keep = np.zeros(nroot, dtype=np.int8)
                saved = int(ctrl[C_NODE_LIMIT])
                lim = int(ctrl[C_NODES]) + 2 * probe_budget
                ctrl[C_NODE_LIMIT] = min(lim, node_cap) if node_cap else lim
                cx.ttt.key[:] = 0
                cx.ttt.depth[:] = -1
                k = int(refutes_vcf(st, cx, rm, np.int64(nroot), np.int64(40), keep))
                ctrl[C_NODE_LIMIT] = saved
                if ctrl[C_STOP] and not ctrl[C_EXTERNAL] and not (node_cap and ctrl[C_NODES] >= node_cap):
                    ctrl[C_STOP] = 0     # out of budget: search all moves instead
                if k > 0:
                    sel = rm[:nroot][keep.astype(bool)]
                    nroot = len(sel)
                    rm[:nroot] = sel
                    best = SearchResult(int(rm[0]), 0, 0, 0, 0.0, [int(rm[0])])
            if not ctrl[C_STOP]:
                win, line = _probe(st, cx, ROOT_VCT, me, 10, probe_budget, node_cap)
                if win and line and line[0] in set(int(x) for x in rm[:nroot]):
                    return _finish(SearchResult(line[0], WIN - len(line), len(line), 0, 0.0, line, "vct"),
                                   ctrl, t0)
        else:
            probe_budget = 0
        # -- iterative deepening
        maxd = max_depth if max_depth is not None else MAXPLY - 4
        t_prev = t_last = 0.0
        checked: set[int] = set()      # root moves the opponent's VCT was looked for after
        refuted: set[int] = set()      # ... and found
        check_budget = int(probe_budget * VERIFY_SCALE)
        depth = 0
        while depth < maxd:
            depth += 1
            t_iter = time.perf_counter()
            if ctrl[C_STOP]:
                break
            v = int(root_search(st, cx, np.int64(depth), rm, np.int64(nroot)))
            if ctrl[C_STOP]:
                # an interrupted iteration keeps only a move that beat the (completed) first
                # move's score at this depth: the usual rule, and the time it bought is not lost
                raised = int(cx.params[P_RAISED])
                if depth > 1 and raised >= 0 and raised != best.move:
                    best = _with_move(best, raised)
                break
            if check_budget and depth > VERIFY_MIN_DEPTH and nroot > 1 and abs(v) < WIN_MIN \
                    and int(rm[0]) not in checked:
                if _look(st, cx, int(rm[0]), me, check_budget, node_cap, checked, refuted):
                    # lost to a threat sequence the search did not see: drop the move and
                    # search this depth again without it
                    rm[: nroot - 1] = rm[1:nroot].copy()
                    nroot -= 1
                    best = _with_move(best, int(rm[0]))
                    depth -= 1
                    continue
            pv = [int(x) for x in cx.pv[0, : int(cx.pvlen[0])]] or [int(rm[0])]
            best = SearchResult(int(rm[0]), v, depth, 0, 0.0, pv)
            if abs(v) > WIN_MIN and depth >= WIN - abs(v) + 1:
                break               # proven result no deeper search can change
            t_prev, t_last = t_last, time.perf_counter() - t_iter
            if deadline is not None and not _worth_another(t_prev, t_last, deadline - time.perf_counter()):
                break               # the next iteration would not get far
        # (a node limit is a promise: once the search has spent it, no check runs past it)
        if check_budget and abs(best.score) < WIN_MIN and best.depth > VERIFY_MIN_DEPTH \
                and best.move not in checked and not (stop is not None and stop.is_set()) \
                and not (node_cap and ctrl[C_NODES] >= node_cap):
            # the checks may run a little past the deadline (the brain keeps a gap of 5 % of
            # the turn between its soft and hard deadlines), on a clock of their own
            watcher.close()
            final = None if deadline is None else max(deadline, time.perf_counter()) + FINAL_GRACE * time_limit
            ctrl[C_STOP] = ctrl[C_EXTERNAL] = 0
            watcher = _Watcher(ctrl, final, stop)
            best = _checked_choice(st, cx, best, rm[:nroot], checked, refuted, me, check_budget,
                                   node_cap)
        return _finish(best, ctrl, t0)
    finally:
        watcher.close()


def _checked_choice(st: BoardState, cx: SearchCtx, best: SearchResult, ranked: np.ndarray,
                    checked: set[int], refuted: set[int], me: int, budget: int,
                    node_cap: int = 0) -> SearchResult:
    """The search's move, unless the opponent has a VCT after it: then the best-ranked move
    known to have none. Unchecked moves are checked on the way, best first (on `budget` nodes
    each, at most FINAL_CHECKS, until ctrl[C_STOP] or the search's `node_cap`); once no more
    can be checked, a move found safe earlier (each was some iteration's best) beats one
    nobody looked at (or whose look the clock cut short). Where no move passes, the search's
    move stays unless refuted: the opponent may still miss the win."""
    order = [best.move] + [int(m) for m in ranked if int(m) != best.move]
    looked = 0
    unchecked = -1
    for m in order:
        if m in refuted:
            continue
        if m not in checked:
            verdict = None
            if looked < FINAL_CHECKS and not cx.ctrl[C_STOP]:
                looked += 1
                verdict = _look(st, cx, m, me, budget, node_cap, checked, refuted)
            if verdict is None and unchecked < 0:
                unchecked = m
            if verdict is not False:
                continue
        return best if m == best.move else _with_move(best, m)
    if unchecked >= 0 and unchecked != best.move:
        return _with_move(best, unchecked)
    return best


def _worth_another(t_prev: float, t_last: float, left: float) -> bool:
    """Start the next iteration? Its cost is predicted from the growth of the last two."""
    growth = t_last / t_prev if t_prev > 1e-4 else 3.0
    growth = min(max(growth, ITER_GROWTH_MIN), ITER_GROWTH_MAX)
    return left > NEXT_ITER_SHARE * growth * t_last


def _finish(res: SearchResult, ctrl: np.ndarray, t0: float) -> SearchResult:
    res.nodes = int(ctrl[C_NODES])
    res.time = time.perf_counter() - t0
    return res


def warm_up() -> None:
    """Compile/load the search for the argument types the agent uses (engine.warmup hook)."""
    from gomoku.engine.game.board import Board
    from gomoku.engine.game.rules import Rule
    for rule in Rule:
        b = Board(15, rule=rule)
        for mv in [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9), (9, 9)]:
            b.play(*mv)
        search(b.state, max_depth=2)
        # that position is won by a threat probe before any iteration: compile the PVS too
        search(b.state, max_depth=2, threat_probes=False)
    # the root's refutation scan runs only when the opponent threatens: compile it here,
    # not in the middle of a game's first sharp position
    cx = get_ctx(b.state.cells.shape[0], DEFAULT_TT_BYTES)
    clear_ctx(cx)
    rm = np.zeros(b.state.cells.shape[0], dtype=np.int32)
    n = int(root_moves(b.state, cx, rm))
    keep = np.zeros(n, dtype=np.int8)
    refutes_vcf(b.state, cx, rm, np.int64(n), np.int64(4), keep)
