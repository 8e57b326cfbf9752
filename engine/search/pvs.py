"""The jitted core of the alpha-beta search: leaf evaluation and the PVS recursion.

Per node (all in numba, no Python objects, no GIL): win/loss detection from the incremental
class counts, a transposition table, the candidates of `ordering`. Depth comes from
selectivity: late moves are searched shallower by a log(depth) x log(move number) reduction
(re-searched when they beat alpha), only the first few are searched at all (fewer where no
three or four is on the board; at the root and its replies the quota counts quiet moves only,
below them every move: the late_ply parameter), and near the leaves futility, reverse futility and
razoring cut on the static evaluation, unless the opponent has a three or four to answer, and a
node with no TT move searches one ply less (internal iterative reduction).
Leaves run a short VCF probe for the side to move before the pattern evaluation
(`evaluation`). A child with no depth left and no five to block is scored in the parent
(_leaf_child): no pvs call, which passes ~30 arrays, and no TT probe, which mostly misses the
caches and can only hit a transposition searched deeper. The TT entry of any other child is
prefetched before its move is made. With the FULL_WINDOW bit in params[P_LMR] every child is
searched on the node's own window (plain alpha-beta, for the Fudan threat-space-search paper's
comparison); the default is PVS. Every margin, shape and switch is a per-search parameter in
the context (engine.search.params), never a compiled-in constant. Time never enters here: the driver's watcher thread sets
ctrl[C_STOP] and the search polls it every node (`threats.tick`).

Inlining: numba's inline="always" types and lowers a helper again at every call site, and
again inside every inlined caller, so only the small per-node helpers are inlined. The large
ones (ordering.gen_moves, threats.block_fives, the learned evaluator's mix_* entry points,
df-pn's _gen) are plain calls, which LLVM still links into the caller: the cold compile went
from 646 s of CPU and 1.76 GB to about 150 s and 0.55 GB, at the same nodes per second.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomoku.engine.game.core import (C_B4, C_B4F3, C_F4, C_FIVE, M_EMPTY, M_RULE, M_TOMOVE, BoardState, make_move,
                                    undo_move)
from gomoku.engine.game.rules import R_RENJU
from gomoku.engine.base.numba_cache import drop_stale_cache
from gomoku.engine.search.learned import mix_make, mix_rebuild, mix_residual, mix_score, mix_sync, mix_undo
from gomoku.engine.search.prefetch import prefetch_row
from gomoku.engine.search.threats import C_PVLEN, C_STOP, is_foul, tick, vcf
from gomoku.engine.search.ordering import (_calm, _caro, _drop_quiet, gen_moves, pick_move, sort_moves)
from gomoku.engine.search.tables import (EXACT, FUTILITY_DEPTH, INF, LMR_DEPTHS, LMR_MOVES, LOWER, MAXPLY,
                                         P_FUTILITY, P_LATE_PLY, P_LEAF_VCF, P_LMR, P_LMR_MIN_DEPTH, P_LMR_MIN_MOVES,
                                         P_LMR_PV, FULL_WINDOW, LMR_ON, P_HIST_MALUS, P_LMR_HIST, P_LMR_NOT_IMPROVING,
                                         P_LMR_ALPHA_RAISED, P_IIR_DEPTH, P_FH_MARGIN, P_LMR_CUT, P_LMR_DEEPER,
                                         P_LMR_DEEPER_MAX, P_LMR_ALPHA_CALM, LINE_CUT, LINE_EXT,
                                         P_MC_NOT_IMPROVING, P_RFP_IMPROVING, NET_RESIDUAL, NO_EVAL, P_NET, P_NET_SHARE, P_PRUNE, P_RAISED, P_RAZOR_DEPTH,
                                         P_RAZOR_MARGIN, P_RFP_DEPTH, P_RFP_MARGIN, P_WIDTH, SearchCtx, UPPER, WIN,
                                         WIN_MIN, _SIDE, _tt_pack, _tt_unpack)

drop_stale_cache(__file__, ("game.core", "game.patterns", "search.threats", "search.evaluation",
                            "search.prefetch", "search.tables", "search.ordering", "search.learned", "search.shapes"))


@njit(cache=True, inline="always")
def evaluate(st: BoardState, cx: SearchCtx) -> np.int64:
    """The side to move's static evaluation: the learned evaluator's where the context has one
    (a residual one's as a correction to the tables' score), else the pattern tables'. Each
    callee appears once: this is inlined at six places in pvs, and numba types every copy."""
    net = cx.params[P_NET]
    share = cx.params[P_NET_SHARE]
    if net != 0 and net != NET_RESIDUAL and share >= 100:
        return mix_score(st, cx.net)
    tables = table_eval(st, cx)
    if net == 0:
        return tables
    if net == NET_RESIDUAL:
        return tables + share * mix_residual(st, cx.net) // 100
    return (share * mix_score(st, cx.net) + (100 - share) * tables) // 100


@njit(cache=True, inline="always")
def _make(st: BoardState, cx: SearchCtx, m: np.int64) -> None:
    """make_move, keeping the learned evaluator (if any) up to date."""
    if cx.params[P_NET] != 0:
        mix_make(st, cx.net, m)
    else:
        make_move(st, m)


@njit(cache=True, inline="always")
def _undo(st: BoardState, cx: SearchCtx) -> None:
    if cx.params[P_NET] != 0:
        mix_undo(st, cx.net)
    else:
        undo_move(st)


@njit(cache=True, inline="always")
def table_eval(st: BoardState, cx: SearchCtx) -> np.int64:
    """Pattern evaluation from the side to move's view: weighted counts of the empty cells'
    classes, line patterns and pattern pairs (engine.search.evaluation). One loop over every count:
    set_weights zeroes what is not weighed, and a single straight loop runs faster than three
    over the weighed ranges (bench +5 % nodes/s)."""
    me = st.meta[M_TOMOVE] - 1
    op = 1 - me
    v = 0
    for k in range(cx.wown.shape[0]):
        v += cx.wown[k] * st.counts[me, k] - cx.wopp[k] * st.counts[op, k]
    return v


@njit(cache=True, inline="always")
def _open_four_next(st: BoardState, me: np.int64) -> bool:
    """The side to move (colour index me) wins in three: it can make an open four or a
    four-four and the opponent has no five to make first. Not for caro (a blocked five does
    not win) nor renju black (the cell may be a foul). Asked at every node, not only at the
    leaves: searching such a node costs the three plies it takes to see the five (bench: 4 %
    fewer nodes; 8 more of PentaZen's 245 announced wins proven in 0.5 s)."""
    return st.counts[me, C_F4] > 0 and st.counts[1 - me, C_FIVE] == 0 and not _caro(st) \
        and not (me == 0 and st.meta[M_RULE] == R_RENJU)


@njit(cache=True)
def _leaf(st: BoardState, cx: SearchCtx, ply: np.int64) -> np.int64:
    """Score of a node the search does not expand (pvs has already asked _open_four_next).
    A plain call, not inlined: pvs reaches it from five places, and inlined it was typed
    five times (cold compile of pvs 29 -> 18 s; nodes/s the same, LLVM links it in)."""
    me = st.meta[M_TOMOVE] - 1
    lv = cx.params[P_LEAF_VCF]
    if lv > 0 and st.counts[me, C_B4F3] > 0:
        # only where a four-three is on offer: probing every leaf with a four costs more
        # nodes than it saves (self-play at equal time: 5-14 against no probe)
        cx.ctrl[C_PVLEN] = 0
        if vcf(st, np.int64(me), lv, np.int64(0), cx.ctrl, cx.tpv, cx.ttt):
            return WIN - ply - cx.ctrl[C_PVLEN]
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
    me = st.meta[M_TOMOVE] - 1
    if st.counts[me, C_FIVE] > 0:
        return WIN - ply
    if st.meta[M_EMPTY] == 0:
        return 0
    if st.counts[1 - me, C_FIVE] >= 2 and not _caro(st):
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
    if depth > 0 or ply >= MAXPLY - 2 or st.counts[2 - st.meta[M_TOMOVE], 10] > 0:
        return NOT_LEAF
    v = _settled(st, cx, ply)
    return _leaf(st, cx, ply) if v == UNSETTLED else v


@njit(cache=True, inline="always")
def _child(st: BoardState, cx: SearchCtx, depth: np.int64, ply: np.int64, alpha: np.int64,
           beta: np.int64) -> tuple[np.int64, bool]:
    """A child's score from the parent's side, and whether the leaf shortcut gave it. Must stay
    inlined: as a separate function calling back into pvs, a search from a cold cache aborts
    with numba's 'unresolved symbol' (pvs and _child would be mutually recursive)."""
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
    me = st.meta[M_TOMOVE] - 1
    op = 1 - me
    plain = (cx.params[P_LMR] & FULL_WINDOW) != 0
    pvnode = beta - alpha > 1 and not plain
    cut = not pvnode and cx.line[ply, LINE_CUT] != 0
    ext = cx.line[ply, LINE_EXT]
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
    forced = st.counts[op, C_FIVE] > 0
    if (depth <= 0 and not forced) or ply >= MAXPLY - 2:
        return _leaf(st, cx, ply)
    if ttmove < 0 and 0 < cx.params[P_IIR_DEPTH] <= depth and not forced:
        # internal iterative reduction (Stockfish's, in place of IID): with no TT move the move
        # order is a guess, so spend less on the node now; the next iteration finds a TT move
        depth -= 1
    prune = cx.params[P_PRUNE] != 0 and not forced
    # the static evaluation drives the pruning below, where the opponent has no three to answer
    static = prune and not pvnode and st.counts[op, C_F4] == 0
    sev = evaluate(st, cx) if static else 0
    # improving: the side's static eval rose since its last move (two plies up). Where
    # either is unknown (a PV node, a four to answer) the node counts as improving: nothing
    # is pruned or reduced more on a guess
    cx.sevs[ply] = sev if static else NO_EVAL
    improving = not static or ply < 2 or cx.sevs[ply - 2] == NO_EVAL or sev > cx.sevs[ply - 2]
    if static and ttf >= 0 and (ttf == EXACT or (ttf == LOWER) == (tts > sev)):
        sev = tts                     # a searched bound says more than the static guess
    # fail-high reduction (Rapfi's): a cut node far above beta will cut on almost any move, so
    # its moves other than fours are searched a ply less
    fail_high = cut and static and cx.params[P_FH_MARGIN] > 0 and \
        sev >= beta + cx.params[P_FH_MARGIN] * depth
    # static pruning, where nothing is proven either
    if static and st.counts[me, C_F4] == 0:
        rfp_plies = depth - 1 if improving and cx.params[P_RFP_IMPROVING] != 0 else depth
        if depth <= cx.params[P_RFP_DEPTH] and sev - cx.params[P_RFP_MARGIN] * rfp_plies >= beta:
            return sev
        if depth <= cx.params[P_RAZOR_DEPTH] and sev + cx.params[P_RAZOR_MARGIN] * depth <= alpha:
            return _leaf(st, cx, ply)
    if cx.params[P_NET] != 0:
        mix_sync(st, cx.net)          # the node expands: its move joins the evaluator (policy, children)
    nm = gen_moves(st, cx, ply, np.int64(ttmove))
    if nm == 0:
        return -(WIN - ply - 1)       # cannot stop the five
    width = cx.params[P_WIDTH]
    nall = nm
    if width > 0 and nm > width and not forced:
        nm = width
    newdepth = depth if forced else depth - 1
    renju_black = me == 0 and st.meta[M_RULE] == R_RENJU
    best = -INF
    bestmove = -1
    a0 = alpha
    searched = 0
    dropped = False
    quiet_node = st.counts[0, C_F4] == 0 and st.counts[1, C_F4] == 0 and st.counts[0, C_FIVE] == 0 \
        and st.counts[1, C_FIVE] == 0
    mcount = cx.mcount[0 if quiet_node else 1, min(depth, 63)]
    if not improving:
        mcount = max(1, mcount * cx.params[P_MC_NOT_IMPROVING] // 100)
    # futility: quiet moves cannot lift a node this far below alpha
    futile = False
    if static and 1 <= depth <= FUTILITY_DEPTH:
        margin = cx.params[P_FUTILITY + depth]
        if sev + margin <= alpha:
            futile = True
            best = sev + margin
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
        mdepth = newdepth - 1 if fail_high and st.cls[me, m] < C_B4 else newdepth
        # lmr_alpha_raised reduces this move (unless lmr_alpha_calm spares the moves that are
        # not calm: read on the board before the move)
        alpha_term = cx.params[P_LMR_ALPHA_CALM] == 0 or _calm(st.cls, cx.params, me, m)
        _make(st, cx, m)
        # the child's node type as the parent expects it (Stockfish's and Rapfi's cutNode):
        # a non-PV node's first child is the other kind, a reduced search's a cut node; and
        # the line's deeper re-searches so far
        cx.line[ply + 1, LINE_EXT] = ext
        if searched == 0:
            cx.line[ply + 1, LINE_CUT] = 0 if pvnode or cut else 1
            v, _ = _child(st, cx, mdepth, ply + 1, alpha, beta)
        else:
            red = 0
            if (cx.params[P_LMR] & LMR_ON) != 0 and searched >= cx.params[P_LMR_MIN_MOVES] \
                    and depth >= cx.params[P_LMR_MIN_DEPTH] and not forced:
                red = cx.lmr[min(depth, LMR_DEPTHS - 1), min(searched, LMR_MOVES - 1)]
                if pvnode:
                    red = max(0, red - cx.params[P_LMR_PV])
                elif not improving:
                    red += cx.params[P_LMR_NOT_IMPROVING]
                if alpha > a0 and alpha_term:
                    # a move already raised alpha here (a PV node: elsewhere that is a cut-off):
                    # the later ones are less likely to beat it (Stockfish's and Rapfi's term)
                    red += cx.params[P_LMR_ALPHA_RAISED]
                if cut and m != k0 and m != k1:
                    red += cx.params[P_LMR_CUT]     # a cut node's late moves other than killers
                if cx.params[P_LMR_HIST] > 0:
                    # a move that cut off often elsewhere is reduced less (a negative history more)
                    red = max(0, red - cx.history[me, m] // cx.params[P_LMR_HIST])
                red = min(red, mdepth)
            cx.line[ply + 1, LINE_CUT] = 1 if red > 0 or not cut else 0
            v, leaf = _child(st, cx, mdepth - red, ply + 1, alpha, beta if plain else alpha + 1)
            # (a leaf's value does not depend on the window: at full depth it stays; nor does a
            # full-window search's)
            if v > alpha and (red > 0 or (v < beta and not plain)) and not (leaf and red == 0):
                cx.line[ply + 1, LINE_CUT] = 0 if cut else 1
                deeper = 0
                if red > 0 and cx.params[P_LMR_DEEPER] > 0 and alpha + cx.params[P_LMR_DEEPER] < v < WIN_MIN \
                        and ext < cx.params[P_LMR_DEEPER_MAX]:
                    # the reduced search beat alpha by far: the move may be much better than
                    # the order said, so look one ply past the unreduced depth (Rapfi's)
                    deeper = 1
                    cx.line[ply + 1, LINE_EXT] = ext + 1
                v, _ = _child(st, cx, mdepth + deeper, ply + 1, alpha, beta)
        _undo(st, cx)
        searched += 1
        if cx.ctrl[C_STOP] != 0:
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
                    if _calm(st.cls, cx.params, me, m):
                        if cx.killers[ply, 0] != m:
                            cx.killers[ply, 1] = cx.killers[ply, 0]
                            cx.killers[ply, 0] = m
                        if cx.params[P_HIST_MALUS] != 0:
                            # the quiet moves tried before the one that cut failed here: order
                            # them later elsewhere (mvs[:t] are the moves picked before it)
                            for q in range(t):
                                mq = np.int64(mvs[q])
                                if _calm(st.cls, cx.params, me, mq):
                                    cx.history[me, mq] -= depth * depth
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
                nroot: np.int64, alpha: np.int64, beta: np.int64) -> np.int64:
    """One iteration over the root moves on the window (alpha, beta) (-INF, INF: the full
    window; narrower: an aspiration window, fail-soft: a score at or below alpha is an upper
    bound, at or above beta a lower bound and the iteration stops there). PVS: each move
    after the first is tried on a null window at the best score so far; with FULL_WINDOW, at
    once on (best, beta). The best is moved to rmoves[0] and its line is left in
    cx.pv[0, :cx.pvlen[0]]."""
    best = -INF
    plain = (cx.params[P_LMR] & FULL_WINDOW) != 0
    cx.pvlen[0] = 0
    cx.params[P_RAISED] = -1
    cx.sevs[0] = NO_EVAL          # the root has no static evaluation of its own
    if cx.params[P_NET] != 0:
        mix_rebuild(st, cx.net)
    for r in range(nroot):
        m = np.int64(rmoves[r])
        _make(st, cx, m)
        lo = max(best, alpha)
        cx.line[1, LINE_CUT] = 0
        cx.line[1, LINE_EXT] = 0
        if r == 0:
            v = -pvs(st, cx, depth - 1, np.int64(1), -beta, -alpha)
        elif plain:
            v = -pvs(st, cx, depth - 1, np.int64(1), -beta, -lo)
        else:
            cx.line[1, LINE_CUT] = 1
            v = -pvs(st, cx, depth - 1, np.int64(1), -lo - 1, -lo)
            if v > lo:
                cx.line[1, LINE_CUT] = 0
                v = -pvs(st, cx, depth - 1, np.int64(1), -beta, -lo)
        _undo(st, cx)
        if cx.ctrl[C_STOP] != 0:
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
            if v > alpha:
                cx.params[P_RAISED] = m      # a searched score, not a bound below the window
            if v >= beta:
                break
    return best


@njit(cache=True, nogil=True, _nrt=False)
def root_moves(st: BoardState, cx: SearchCtx, out: np.ndarray) -> np.int64:
    """Legal candidate moves at the root (fouls removed), best first."""
    if cx.params[P_NET] != 0:
        mix_rebuild(st, cx.net)       # the evaluator's policy orders them: this position's
    n = gen_moves(st, cx, np.int64(0), np.int64(-1))
    sort_moves(cx.moves[0], cx.vals[0], n)
    me = st.meta[M_TOMOVE] - 1
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
        op = st.meta[M_TOMOVE] - 1
        r = vcf(st, np.int64(op), depth, np.int64(0), cx.ctrl, cx.tpv, cx.ttt)
        undo_move(st)
        if cx.ctrl[C_STOP] != 0:
            return -1
        keep[t] = 1 - r
        cnt += 1 - r
    return cnt
