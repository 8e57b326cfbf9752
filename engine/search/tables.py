"""The alpha-beta search's tables and the constants its jitted code shares.

`SearchCtx` is everything one search owns (TT, killers, history, move lists, PV, evaluation
weights, parameters, the control block its watcher writes), made by `new_ctx` and passed to
every jitted function, so two searches in one process never share anything. Score bounds,
TT packing and the pruning constants live here because the jitted core (`pvs`), the move
ordering (`ordering`) and the Python driver (`alphabeta`) all read them.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gomoku.engine.game import core
from gomoku.engine.search import evaluation, threats
from gomoku.engine.search.learned import Evaluator, empty_evaluator
from gomoku.engine.search.threats import ThreatTable, new_threat_table

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
P_NET = 8                 # 1: the learned evaluator (SearchCtx.net) scores leaves, not the tables
P_NET_ORDER = 9           # policy weight in move ordering (ordering units per policy logit; 0: none)
P_NET_SHARE = 10          # percent of the leaf value the learned evaluator gives (the tables the rest)
N_PARAMS = 11


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
#: sensible moves to its answers and counter-threats, so there 8 are enough (PentaZen's quotas)
MOVE_COUNT_QUIET = _move_counts(32, 15.0, 12.0)
MOVE_COUNT_NOISY = _move_counts(8, 5.0, 2.0)
#: from this ply on, the move counts cap every move, threes and fours too (late moves of any
#: kind are searched shallower at every ply), as PentaZen does: threats are what most moves
#: make in a sharp position, so counting only quiet moves left those nodes almost unpruned.
#: Where every move searched so far loses, the search goes on past the quota (a lone defence
#: can rank low)
LATE_MOVE_PLY = 2
#: past this many candidates (by ordering) quiet moves are searched only while every move so
#: far loses; threats and blocks always are
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
    net: Evaluator        # the learned evaluator where params[P_NET] is set (a placeholder elsewhere)


#: one entry is a key and a packed word in the same 16 bytes, so a probe or a store touches one
#: cache line (five parallel arrays cost up to five misses a node: 5 % of the bench's time)
TT_ENTRY_BYTES = 16
DEFAULT_TT_BYTES = 32 << 20


def new_ctx(n_cells: int, tt_bytes: int = DEFAULT_TT_BYTES) -> SearchCtx:
    """Search tables for boards of `n_cells` padded cells; the TT takes about tt_bytes."""
    size = 1 << max(12, int(tt_bytes // TT_ENTRY_BYTES).bit_length() - 1)
    params = np.zeros(N_PARAMS, dtype=np.int64)
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
        net=empty_evaluator(n_cells),
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
