"""Move generation and ordering for the alpha-beta search (jitted, inlined into `pvs`).

Candidates are forced moves when the opponent threatens (block a five; against an open three
or a four-four point: block it or counter with a four), otherwise every empty cell within two
of a stone, scored by TT move, pattern scores, killers and history; the quotas that cut late
quiet moves are here too.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomoku.engine.game.core import (C_F4, C_FIVE, M_COUNT, M_HEIGHT, M_RULE, M_STRIDE, M_TOMOVE, M_WIDTH, BoardState,
                                     scan_span)
from gomoku.engine.game.rules import R_CARO
from gomoku.engine.search import threats
from gomoku.engine.search.threats import is_four_class
from gomoku.engine.search.learned import mix_policy
from gomoku.engine.search.tables import (P_CALM_OPP, P_CALM_OWN, P_NET, P_NET_ORDER, SearchCtx)

@njit(cache=True, inline="always")
def _caro(st: BoardState) -> bool:
    return st.meta[M_RULE] >= R_CARO


@njit(cache=True, _nrt=False)
def gen_moves(st: BoardState, cx: SearchCtx, ply: np.int64, ttmove: np.int64) -> np.int64:
    """Candidate moves of the side to move into cx.moves[ply] with their ordering values in
    cx.vals[ply], unsorted (see pick_move); returns the count. Fouls are not removed here
    (checked lazily when a move is tried). Not inlined: once per expanded node, its cost is the
    loop, and inlining it would compile it again for pvs and root_search each."""
    me = st.meta[M_TOMOVE] - 1
    op = 1 - me
    n = st.cells.shape[0]
    mv = cx.moves[ply]
    vl = cx.vals[ply]
    cnt = 0
    lo, hi = scan_span(st)
    if st.counts[me, C_FIVE] > 0:
        # our own five beats everything, including blocking the opponent's
        for i in range(lo, hi):
            if st.cells[i] == 0 and st.cls[me, i] == C_FIVE:
                mv[cnt] = i
                vl[cnt] = st.score[me, i]
                cnt += 1
    elif st.counts[op, C_FIVE] > 0:
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
                if st.cells[i] == 0 and st.cls[op, i] == C_FIVE:
                    mv[cnt] = i
                    vl[cnt] = st.score[me, i]
                    cnt += 1
    else:
        mode = 2 if st.counts[op, C_F4] > 0 else 0
        if st.meta[M_COUNT] == 0:
            c = (st.meta[M_HEIGHT] // 2 + 5) * st.meta[M_STRIDE] + st.meta[M_WIDTH] // 2 + 5
            if st.cells[c] == 0:
                mv[0] = c
                vl[0] = 0
                return 1
        k0 = cx.killers[ply, 0]
        k1 = cx.killers[ply, 1]
        # the learned evaluator's policy, in ordering units per logit (0: not used)
        pw = cx.params[P_NET_ORDER] if cx.params[P_NET] != 0 else 0
        for i in range(lo, hi):
            if st.cells[i] != 0:
                continue
            if mode == 2:
                if not is_four_class(st.cls[me, i]) and not is_four_class(st.cls[op, i]):
                    continue
            elif st.near[i] == 0:
                continue
            v = 2 * st.score[me, i] + st.score[op, i] + min(cx.history[me, i] >> 4, 200)
            if pw != 0:
                v += np.int64(pw * mix_policy(st, cx.net, np.int64(i)))
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
