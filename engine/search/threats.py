"""Threat-space solvers over the pattern state: VCF (only fours) and VCT (threes too).

Both are depth-first proof searches run in numba on the live `BoardState` (make/undo, no
copies, no Python objects per node). The attacker `a` (colour index 0 black / 1 white) is
always the side to move at an attacker node.

Exactness comes from the pattern tables, which already know each rule's idea of a five
(standard and black-in-renju: exactly five; caro: not blocked at both ends), plus:

* renju: black never plays a foul (core.is_forbidden_at), as attacker or as defender; a
  white four whose only block is a foul for black therefore wins outright;
* a defender five (counter-five) refutes an attacker four; a defender four that appears
  while blocking (counter-four) must be answered by the attacker first, and only a block
  that is itself a four keeps a VCF alive;
* VCT defender candidates: every cell where the attacker could make a four (which holds
  all blocks of an open three, near and far) plus every defender four (counter-fours are
  followed through: the attacker blocks, the defender moves again).

Failures are cached in a Zobrist-keyed table (key, proven-depth); wins end the search, so
the principal variation is always complete. `ctrl` is a small int64 array shared with
Python: ctrl[C_STOP] != 0 aborts (a timer or stop-event thread sets it while the nogil
search runs), ctrl[C_NODES] counts nodes, ctrl[C_NODE_LIMIT] > 0 caps them
deterministically. An aborted search reports "no win".

Recursive njit functions are only ever called with int64 arguments (numba issue 6061).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np
from numba import njit

from gomoku.engine.base.numba_cache import drop_stale_cache
from gomoku.engine.game.core import (C_B4, C_B4F3, C_F3, C_F3X2, C_F4, C_FIVE, M_RULE, M_TOMOVE, BoardState, is_forbidden_at,
                                     make_move as _make, scan_span, undo_move as _undo)
from gomoku.engine.game.patterns import BLACK, F5, OL
from gomoku.engine.game.rules import R_CARO, R_RENJU

drop_stale_cache(__file__, ("game.core", "game.patterns"))

# ctrl slots (shared with search.py)
C_STOP, C_NODES, C_NODE_LIMIT, C_PVLEN = 0, 1, 2, 3
CTRL_LEN = 16

MAXPLY = 160
# salts mixed into the Zobrist key: attacker colour and solver kind
_SALT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5],
                 dtype=np.uint64)


class ThreatTable(NamedTuple):
    """Failure cache: key and the depth to which 'no win' was proven (-1 = empty), plus a
    per-ply scratch buffer for defender move lists."""
    key: np.ndarray     # uint64[size]
    depth: np.ndarray   # int16[size]
    buf: np.ndarray     # int64[MAXPLY + 2, BUF_LEN]


BUF_LEN = 64


def new_threat_table(size_log2: int = 18) -> ThreatTable:
    n = 1 << size_log2
    return ThreatTable(np.zeros(n, dtype=np.uint64), np.full(n, -1, dtype=np.int16),
                       np.zeros((MAXPLY + 2, BUF_LEN), dtype=np.int64))


def new_ctrl(node_limit: int = 0) -> np.ndarray:
    ctrl = np.zeros(CTRL_LEN, dtype=np.int64)
    ctrl[C_NODE_LIMIT] = node_limit
    return ctrl


@njit(cache=True, inline="always")
def tick(ctrl: np.ndarray) -> bool:
    """Count a node; True when the search must stop (stop flag or node limit). Nothing is
    counted once stopped, so a node limit is never overshot by unwinding callers."""
    if ctrl[C_STOP] != 0:
        return True
    ctrl[C_NODES] += 1
    if ctrl[C_NODE_LIMIT] > 0 and ctrl[C_NODES] >= ctrl[C_NODE_LIMIT]:
        ctrl[C_STOP] = 1
    return ctrl[C_STOP] != 0


@njit(cache=True, inline="always")
def is_foul(st: BoardState, color: np.int64, i: np.int64) -> bool:
    """Renju: would `color` (1/2) playing empty cell i be a foul? Only black can foul, and only
    cells whose patterns hint at 3-3, 4-4 or an overline are examined."""
    if color != BLACK or st.meta[M_RULE] != R_RENJU:
        return False
    k = st.cls[0, i]
    if k == C_FIVE:
        return False
    suspect = k == C_F3X2 or k == C_B4F3 or k == C_F4     # 3-3, 4-4 or 4-3 hints
    if not suspect:
        for d in range(4):
            if st.pat[0, d, i] == OL:                     # an overline
                suspect = True
    if not suspect:
        return False
    return is_forbidden_at(st.cells, st.steps, np.int64(i), np.int64(0))


@njit(cache=True, inline="always")
def is_four_class(k: np.int64) -> bool:
    return k == C_B4 or k == C_B4F3 or k == C_F4


@njit(cache=True, inline="always")
def find_class_cell(st: BoardState, c: np.int64, k: np.int64) -> np.int64:
    """First empty cell whose class for colour index c is k (-1 if none)."""
    lo, hi = scan_span(st)
    for i in range(lo, hi):
        if st.cells[i] == 0 and st.cls[c, i] == k:
            return i
    return -1


@njit(cache=True, inline="always")
def find_five_near(st: BoardState, c: np.int64, idx: np.int64) -> np.int64:
    """A five cell of colour index c on the four lines through idx (within 4), else a global scan."""
    for d in range(4):
        step = st.steps[d]
        for k in range(1, 5):
            j = idx + k * step
            if st.cells[j] == 0 and st.cls[c, j] == C_FIVE:
                return j
            j = idx - k * step
            if st.cells[j] == 0 and st.cls[c, j] == C_FIVE:
                return j
    return find_class_cell(st, c, 10)


@njit(cache=True, _nrt=False)
def block_fives(st: BoardState, a: np.int64, last: np.int64, out: np.ndarray) -> np.int64:
    """Moves of the side to move (the defender) that leave colour index `a` without any five
    cell; written to out[], count returned (0: the attacker's five cannot be stopped). Not
    inlined (seven callers): each inlined copy was compiled on its own.

    Usually that is the single five cell (none if there are two). Under caro a five blocked
    at both ends does not win, so a stone just beyond the five also defends: there every
    empty cell within five of a five cell is tried. `last` is the attacker's last move
    (fives lie on its lines) or -1."""
    d = 1 - a
    m = st.counts[a, C_FIVE]
    if st.meta[M_RULE] < R_CARO:
        if m >= 2:
            return 0
        j = find_five_near(st, a, last) if last >= 0 else find_class_cell(st, a, np.int64(10))
        if is_foul(st, d + 1, j):
            return 0
        out[0] = j
        return 1
    # caro: collect the five cells (at most a handful) at the end of the buffer; they lie on
    # the lines through the attacker's last move when it is known
    nf = 0
    fbase = out.shape[0] - 8
    if last >= 0:
        for dd in range(4):
            step = st.steps[dd]
            for k in range(-4, 5):
                j = last + k * step
                if k != 0 and st.cells[j] == 0 and st.cls[a, j] == C_FIVE and nf < 8:
                    out[fbase + nf] = j
                    nf += 1
    if nf < m:
        nf = 0
        n = st.cells.shape[0]
        for i in range(n):
            if st.cells[i] == 0 and st.cls[a, i] == C_FIVE and nf < 8:
                out[fbase + nf] = i
                nf += 1
    cnt = 0
    if nf == 1:
        # one five cell: taking it defends; so may a stone just beyond either end of the five
        # (then blocked at both ends), which is tried by playing it
        fc = out[fbase]
        out[0] = fc
        cnt = 1
        col = a + 1
        for dd in range(4):
            if st.pat[a, dd, fc] != F5:
                continue
            step = st.steps[dd]
            for sgn in (-1, 1):
                j = fc + sgn * step
                while st.cells[j] == col:
                    j += sgn * step
                if st.cells[j] != 0 or cnt >= fbase:
                    continue
                _make(st, j)
                ok = st.counts[a, C_FIVE] == 0
                _undo(st)
                if ok:
                    out[cnt] = j
                    cnt += 1
        return cnt
    for f in range(nf):
        fc = out[fbase + f]
        for dd in range(4):
            if st.pat[a, dd, fc] != F5:
                continue            # only the line of the five: the cell or just beyond its ends
            step = st.steps[dd]
            for k in range(-5, 6):
                j = fc + k * step
                if st.cells[j] != 0:
                    continue
                dup = False
                for q in range(cnt):
                    if out[q] == j:
                        dup = True
                if dup or cnt >= fbase:
                    continue
                _make(st, j)
                ok = st.counts[a, C_FIVE] == 0
                _undo(st)
                if ok:
                    out[cnt] = j
                    cnt += 1
    return cnt


@njit(cache=True, inline="always")
def _tt_fail_depth(tt: ThreatTable, key: np.uint64) -> np.int64:
    slot = np.int64(key & np.uint64(tt.key.shape[0] - 1))
    if tt.key[slot] == key:
        return np.int64(tt.depth[slot])
    return -1


@njit(cache=True, inline="always")
def _tt_store_fail(tt: ThreatTable, key: np.uint64, depth: np.int64) -> None:
    slot = np.int64(key & np.uint64(tt.key.shape[0] - 1))
    if tt.key[slot] != key or tt.depth[slot] < depth:
        tt.key[slot] = key
        tt.depth[slot] = depth


@njit(cache=True, nogil=True, _nrt=False)
def vcf(st: BoardState, a: np.int64, depth: np.int64, ply: np.int64, ctrl: np.ndarray,
        pv: np.ndarray, tt: ThreatTable) -> np.int64:
    """Attacker a (= side to move) wins by continuous fours within `depth` fours?
    Returns 1 (win; pv[ply:ctrl[C_PVLEN]] is the line) or 0."""
    if tick(ctrl):
        return 0
    d = 1 - a
    if st.counts[a, C_FIVE] > 0:
        pv[ply] = find_class_cell(st, a, np.int64(10))
        ctrl[C_PVLEN] = ply + 1
        return 1
    if depth <= 0 or ply >= MAXPLY - 3:
        return 0
    if st.counts[d, C_FIVE] > 1:
        return 0
    key = st.hashv[0] ^ _SALT[a]
    if _tt_fail_depth(tt, key) >= depth:
        return 0
    if st.counts[a, C_B4] + st.counts[a, C_B4F3] + st.counts[a, C_F4] == 0:
        _tt_store_fail(tt, key, np.int64(100))
        return 0
    lo, n = scan_span(st)
    fl = tt.buf[ply]
    forced = st.counts[d, C_FIVE] > 0
    if forced:
        # the defender has a five cell (counter-four): only a four that also blocks it
        lo = 0
        n = block_fives(st, d, np.int64(-1), fl)
        if n == 0:
            return 0
    # pass 0: cells that make an open four / double four (usually immediate), pass 1: four-threes
    # (won unless the block makes a four), pass 2: plain fours. With four-threes and plain fours
    # in one pass, in board order, the bench took 1.98 M nodes to depth 11 instead of 1.75 M
    for pss in range(3):
        for t in range(lo, n):
            i = fl[t] if forced else t
            if st.cells[i] != 0:
                continue
            k = st.cls[a, i]
            if k != (9 if pss == 0 else 8 if pss == 1 else 6):
                continue
            if is_foul(st, a + 1, i):
                continue
            res = 0
            _make(st, i)
            if st.counts[d, C_FIVE] == 0:       # no defender five: the four must be answered
                pv[ply] = i
                out = tt.buf[ply + 1]
                nb = block_fives(st, a, i, out)
                if nb == 0:
                    # two fives, or (renju) black may not block: a five is coming
                    pv[ply + 1] = find_five_near(st, a, i)
                    ctrl[C_PVLEN] = ply + 2
                    res = 1
                else:
                    for b in range(nb):
                        j = out[b]
                        _make(st, j)
                        pv[ply + 1] = j
                        res = vcf(st, a, depth - 1, ply + 2, ctrl, pv, tt)
                        _undo(st)
                        if res == 0:
                            break
            _undo(st)
            if res:
                return 1
            if ctrl[C_STOP] != 0:
                return 0
    if ctrl[C_STOP] == 0:
        _tt_store_fail(tt, key, depth)
    return 0


@njit(cache=True, _nrt=False)
def _has_real_threat(st: BoardState, a: np.int64) -> bool:
    """Does colour index a have a cell that makes an open four / double four it may play?"""
    if st.counts[a, C_F4] == 0:
        return False
    if a != 0 or st.meta[M_RULE] != R_RENJU:
        return True
    lo, hi = scan_span(st)
    for i in range(lo, hi):
        if st.cells[i] == 0 and st.cls[0, i] == C_F4 and not is_foul(st, np.int64(1), i):
            return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def _vct(st: BoardState, a: np.int64, depth: np.int64, vcf_depth: np.int64, ply: np.int64,
         ctrl: np.ndarray, pv: np.ndarray, tt: ThreatTable, defend: np.int64) -> np.int64:
    """VCT node. defend == 0: attacker a (= side to move) wins by fours and threes within
    `depth` attacking moves? Every attacker node tries a VCF (up to vcf_depth fours) first.
    defend == 1: defender to move; 1 if every defence loses. One self-recursive function
    rather than two mutually recursive ones: numba's cache cannot reload mutual recursion."""
    if defend == 0:
        if tick(ctrl):
            return 0
        d = 1 - a
        if st.counts[a, C_FIVE] > 0:
            pv[ply] = find_class_cell(st, a, np.int64(10))
            ctrl[C_PVLEN] = ply + 1
            return 1
        if st.counts[d, C_FIVE] > 1 or ply >= MAXPLY - 4:
            return 0
        if vcf(st, a, vcf_depth, ply, ctrl, pv, tt):
            return 1
        if depth <= 0 or ctrl[C_STOP] != 0:
            return 0
        key = st.hashv[0] ^ _SALT[2 + a]
        if _tt_fail_depth(tt, key) >= depth:
            return 0
        lo, n = scan_span(st)
        fl = tt.buf[ply]
        forced = st.counts[d, C_FIVE] > 0
        if forced:
            lo = 0
            n = block_fives(st, d, np.int64(-1), fl)
            if n == 0:
                return 0
        for pss in range(2):
            for t in range(lo, n):
                i = fl[t] if forced else t
                if st.cells[i] != 0:
                    continue
                k = st.cls[a, i]
                if not forced:
                    # pass 0: double threats (F3X2, B4F3, F4), pass 1: single threes and fours
                    if pss == 0:
                        if k != C_F3X2 and k != C_B4F3 and k != C_F4:
                            continue
                    elif k != C_F3 and k != C_B4:
                        continue
                elif pss == 1:
                    continue
                if is_foul(st, a + 1, i):
                    continue
                _make(st, i)
                pv[ply] = i
                res = _vct(st, a, depth - 1, vcf_depth, ply + 1, ctrl, pv, tt, np.int64(1))
                _undo(st)
                if res:
                    return 1
                if ctrl[C_STOP] != 0:
                    return 0
        if ctrl[C_STOP] == 0:
            _tt_store_fail(tt, key, depth)
        return 0

    else:
        if tick(ctrl):
            return 0
        d = 1 - a
        if st.counts[d, C_FIVE] > 0:
            return 0                       # defender completes a five
        m = st.counts[a, C_FIVE]
        if ply >= MAXPLY - 4:
            return 0
        if m >= 1:
            out = tt.buf[ply]
            nb = block_fives(st, a, np.int64(-1), out)
            if nb == 0:
                pv[ply] = find_class_cell(st, a, np.int64(10))
                ctrl[C_PVLEN] = ply + 1
                return 1
            res = 0
            for b in range(nb):
                j = out[b]
                pv[ply] = j
                _make(st, j)
                res = _vct(st, a, depth, vcf_depth, ply + 1, ctrl, pv, tt, np.int64(0))
                _undo(st)
                if res == 0:
                    break
            return res
        if not _has_real_threat(st, a):
            return 0                       # no open-four threat: the defender has a free move
        lo, hi = scan_span(st)
        tried = 0
        for i in range(lo, hi):
            if st.cells[i] != 0:
                continue
            if not is_four_class(st.cls[a, i]) and not is_four_class(st.cls[d, i]):
                continue
            if is_foul(st, d + 1, i):
                continue
            tried += 1
            _make(st, i)
            pv[ply] = i
            res = 1
            if st.counts[d, C_FIVE] > 0:
                # counter-four: the attacker must block it first, then the defender moves again
                if st.counts[d, C_FIVE] >= 2:
                    res = 0
                else:
                    j = find_five_near(st, d, i)
                    if is_foul(st, a + 1, j):
                        res = 0
                    else:
                        _make(st, j)
                        pv[ply + 1] = j
                        res = _vct(st, a, depth, vcf_depth, ply + 2, ctrl, pv, tt, np.int64(1))
                        _undo(st)
            else:
                res = _vct(st, a, depth, vcf_depth, ply + 1, ctrl, pv, tt, np.int64(0))
            _undo(st)
            if res == 0:
                return 0
        if tried == 0:
            return 0
        return 1


@njit(cache=True, nogil=True, _nrt=False)
def vct(st: BoardState, a: np.int64, depth: np.int64, vcf_depth: np.int64, ply: np.int64,
        ctrl: np.ndarray, pv: np.ndarray, tt: ThreatTable) -> np.int64:
    """Attacker a (= side to move) wins by fours and threes within `depth` attacking moves?
    Returns 1 (win; pv[ply:ctrl[C_PVLEN]] is one line of it) or 0."""
    return _vct(st, a, depth, vcf_depth, ply, ctrl, pv, tt, np.int64(0))


# ---------------------------------------------------------------------------------------
# Python-side helpers (tests, agent, bench)

class ThreatResult(NamedTuple):
    win: bool
    pv: list[int]       # cell indices, attacker first
    nodes: int


def solve(st: BoardState, kind: str = "vcf", depth: int = 30, vcf_depth: int = 20,
          node_limit: int = 0, ctrl: Optional[np.ndarray] = None,
          tt: Optional[ThreatTable] = None) -> ThreatResult:
    """Run VCF or VCT for the side to move on `st` (restored afterwards)."""
    a = np.int64(st.meta[M_TOMOVE] - 1)
    if ctrl is None:
        ctrl = new_ctrl(node_limit)
    if tt is None:
        tt = new_threat_table()
    pv = np.zeros(MAXPLY, dtype=np.int64)
    start = int(ctrl[C_NODES])
    ctrl[C_PVLEN] = 0
    if kind == "vcf":
        r = vcf(st, a, np.int64(depth), np.int64(0), ctrl, pv, tt)
    elif kind == "vct":
        r = vct(st, a, np.int64(depth), np.int64(vcf_depth), np.int64(0), ctrl, pv, tt)
    else:
        raise ValueError(f"unknown threat search {kind!r}")
    n = int(ctrl[C_PVLEN]) if r else 0
    return ThreatResult(bool(r), [int(x) for x in pv[:n]], int(ctrl[C_NODES]) - start)


def warm_up() -> None:
    """Compile/load both solvers (engine.player.warmup hook)."""
    from gomoku.engine.game.board import Board
    b = Board.from_moves(15, [(7, 7), (0, 0), (8, 7), (0, 2), (9, 7), (0, 4)])
    solve(b.state, "vcf")
    solve(b.state, "vct", depth=3)
