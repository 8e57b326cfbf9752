"""The alpha-beta search's tables and the constants its jitted code shares.

`SearchCtx` is everything one search owns (TT, killers, history, move lists, PV, evaluation
weights, parameters, the control block its watcher writes), made by `new_ctx` and passed to
every jitted function, so two searches in one process never share anything. Score bounds,
TT packing and the slots of the search parameters live here because the jitted core (`pvs`),
the move ordering (`ordering`) and the Python driver (`alphabeta`) all read them; the
parameters' values and meanings are engine.search.params's table.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from gomoku.engine.game import core
from gomoku.engine.search import evaluation, threats
from gomoku.engine.search.learned import Evaluator, empty_evaluator
from gomoku.engine.search.params import DEFAULT, SearchParams
from gomoku.engine.search.threats import ThreatTable, new_threat_table

WIN = 30000
WIN_MIN = 29000           # |score| above this is a proven result
INF = 32000
MAXPLY = 64
EXACT, LOWER, UPPER = 0, 1, 2
C_EXTERNAL = 5            # ctrl slot: the stop came from the clock / stop event

# params slots
P_LEAF_VCF, P_WIDTH, P_LMR, P_PRUNE = 0, 1, 2, 3
P_LATE_PLY = 4            # late_ply: from this ply the quotas count every move
P_RAISED = 5              # out: last root move that improved on the best in root_search (-1: none)
P_CALM_OWN, P_CALM_OPP = 6, 7
P_NET = 8                 # the learned evaluator (SearchCtx.net): NET_OFF, NET_ALONE or NET_RESIDUAL
P_NET_ORDER = 9           # policy weight in move ordering (ordering units per policy logit; 0: none)
P_NET_SHARE = 10          # percent of the leaf value the learned evaluator gives (the tables the rest)

#: P_NET's values: the tables score leaves; the evaluator scores them (its share of the value, the
#: tables the rest); the evaluator corrects the tables' score (its share of its correction)
NET_OFF, NET_ALONE, NET_RESIDUAL = 0, 1, 2

# params slots of the search parameters (engine.search.params; written by apply_params)
P_LMR_MIN_MOVES, P_LMR_MIN_DEPTH, P_LMR_PV = 11, 12, 13
P_RFP_MARGIN, P_RFP_DEPTH, P_RAZOR_MARGIN, P_RAZOR_DEPTH = 14, 15, 16, 17
P_FUTILITY = 18           # 18, 19, 20, 21: the futility margin by remaining depth 0..3 (0 at depth 0)
P_HIST_MALUS, P_LMR_HIST = 22, 23
P_ASPIRATION, P_ASP_DEPTH = 24, 25      # read by the driver (alphabeta._iterate), not the jitted code
P_RFP_IMPROVING, P_MC_NOT_IMPROVING, P_LMR_NOT_IMPROVING = 26, 27, 28
P_LMR_ALPHA_RAISED, P_IIR_DEPTH = 29, 30
P_FH_MARGIN, P_LMR_CUT, P_LMR_DEEPER, P_LMR_DEEPER_MAX, P_LMR_ALPHA_CALM = 31, 32, 33, 34, 35
N_PARAMS = 36
#: SearchCtx.line's columns: 1 where the parent expects the node to fail high (a cut node);
#: the plies the line's reduced moves were re-searched deeper above it (lmr_deeper)
LINE_CUT, LINE_EXT = 0, 1
#: SearchCtx.sevs' mark for a ply whose node had no static evaluation (a PV node, a four to answer)
NO_EVAL = -(1 << 40)
#: futility pruning looks this many plies from the leaves (its margins: futility_1..3)
FUTILITY_DEPTH = 3
#: the LMR table's shape (remaining depth and moves searched are capped to its last row / column)
LMR_DEPTHS, LMR_MOVES = 32, 64


def lmr_table(divisor: float) -> np.ndarray:
    """Plies a late move is searched shallower, by [depth, moves searched before it]:
    the usual log-log shape (deeper nodes and later moves are cut more; larger divisor,
    smaller reductions)."""
    t = np.zeros((LMR_DEPTHS, LMR_MOVES), dtype=np.int64)
    for d in range(1, LMR_DEPTHS):
        for n in range(1, LMR_MOVES):
            t[d, n] = int(0.5 + np.log(d) * np.log(n) / divisor)
    return t


def move_counts(cap: int, a: float, b: float) -> np.ndarray:
    """Moves searched per node by remaining depth: a * sqrt(depth) - b, at most cap. Where
    neither side has a three or a four on the board the quota is wide (its moves differ little
    in score, and the right one is often not among the first few); a threat narrows the
    sensible moves to its answers and counter-threats (PentaZen's quotas)."""
    return np.array([0] + [min(cap, int(round(a * np.sqrt(d) - b))) for d in range(1, 64)], dtype=np.int64)


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
    params: np.ndarray    # int64[N_PARAMS]: switches and margins (apply_params)
    tpv: np.ndarray       # int64[threats.MAXPLY]
    ttt: ThreatTable
    net: Evaluator        # the learned evaluator where params[P_NET] is set (a placeholder elsewhere)
    lmr: np.ndarray       # int64[LMR_DEPTHS, LMR_MOVES]: plies of reduction (lmr_table)
    mcount: np.ndarray    # int64[2, 64]: move quotas by remaining depth, quiet nodes then noisy
    sevs: np.ndarray      # int64[MAXPLY + 1]: each ply's static evaluation on the current line (or NO_EVAL)
    line: np.ndarray      # int8[MAXPLY + 1, 2]: per ply of the current line, LINE_CUT and LINE_EXT


#: one entry is a key and a packed word in the same 16 bytes, so a probe or a store touches one
#: cache line (five parallel arrays cost up to five misses a node: 5 % of the bench's time)
TT_ENTRY_BYTES = 16
DEFAULT_TT_BYTES = 32 << 20


def new_ctx(n_cells: int, tt_bytes: int = DEFAULT_TT_BYTES) -> SearchCtx:
    """Search tables for boards of `n_cells` padded cells; the TT takes about tt_bytes."""
    size = 1 << max(12, int(tt_bytes // TT_ENTRY_BYTES).bit_length() - 1)
    params = np.zeros(N_PARAMS, dtype=np.int64)
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
        lmr=np.zeros((LMR_DEPTHS, LMR_MOVES), dtype=np.int64),
        mcount=np.zeros((2, 64), dtype=np.int64),
        sevs=np.full(MAXPLY + 1, NO_EVAL, dtype=np.int64),
        line=np.zeros((MAXPLY + 1, 2), dtype=np.int8),
    )
    set_weights(cx, evaluation.tables())
    apply_params(cx, DEFAULT)
    return cx


#: bits of params[P_LMR], the slot that decides how a late move's child is searched:
#: LMR_ON reduces late moves' depth; FULL_WINDOW searches every child on the node's full
#: window instead of a null window first (plain alpha-beta, where no node is a PV node, so the
#: TT bounds and the pruning apply wherever they hold, as in a textbook alpha-beta)
LMR_ON = 1
FULL_WINDOW = 2


def apply_params(cx: SearchCtx, params: SearchParams, full_window: bool = False) -> None:
    """Load a player's search parameters (engine.search.params) into its context: switches
    and margins into params' slots, the LMR and move-count shapes into their tables. Cheap
    (a few thousand numbers), so every search applies its player's own."""
    p = cx.params
    p[P_LMR] = (LMR_ON if params["lmr"] else 0) | (FULL_WINDOW if full_window else 0)
    p[P_PRUNE] = int(params["prune"])
    p[P_LEAF_VCF] = int(params["leaf_vcf"])
    p[P_WIDTH] = int(params["width"])
    p[P_LATE_PLY] = int(params["late_ply"])
    p[P_LMR_MIN_MOVES] = int(params["lmr_min_moves"])
    p[P_LMR_MIN_DEPTH] = int(params["lmr_min_depth"])
    p[P_LMR_PV] = int(params["lmr_pv"])
    p[P_RFP_MARGIN], p[P_RFP_DEPTH] = int(params["rfp_margin"]), int(params["rfp_depth"])
    p[P_RAZOR_MARGIN], p[P_RAZOR_DEPTH] = int(params["razor_margin"]), int(params["razor_depth"])
    p[P_FUTILITY] = 0
    for d in range(1, FUTILITY_DEPTH + 1):
        p[P_FUTILITY + d] = int(params[f"futility_{d}"])
    p[P_ASPIRATION], p[P_ASP_DEPTH] = int(params["aspiration"]), int(params["asp_depth"])
    p[P_HIST_MALUS] = int(params["hist_malus"])
    p[P_LMR_HIST] = int(params["lmr_hist"])
    p[P_RFP_IMPROVING] = int(params["rfp_improving"])
    p[P_MC_NOT_IMPROVING] = int(params["mc_not_improving"])
    p[P_LMR_NOT_IMPROVING] = int(params["lmr_not_improving"])
    p[P_LMR_ALPHA_RAISED] = int(params["lmr_alpha_raised"])
    p[P_IIR_DEPTH] = int(params["iir_depth"])
    p[P_FH_MARGIN], p[P_LMR_CUT] = int(params["fh_margin"]), int(params["lmr_cut"])
    p[P_LMR_DEEPER], p[P_LMR_DEEPER_MAX] = int(params["lmr_deeper"]), int(params["lmr_deeper_max"])
    p[P_LMR_ALPHA_CALM] = int(params["lmr_alpha_calm"])
    cx.lmr[:, :] = _lmr_cached(float(params["lmr_div"]))
    cx.mcount[0, :] = move_counts(int(params["mc_quiet_cap"]), float(params["mc_quiet_a"]), float(params["mc_quiet_b"]))
    cx.mcount[1, :] = move_counts(int(params["mc_noisy_cap"]), float(params["mc_noisy_a"]), float(params["mc_noisy_b"]))


_LMR_TABLES: dict[float, np.ndarray] = {}


def _lmr_cached(divisor: float) -> np.ndarray:
    t = _LMR_TABLES.get(divisor)
    if t is None:
        t = _LMR_TABLES[divisor] = lmr_table(divisor)
    return t


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
