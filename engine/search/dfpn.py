"""Depth-first proof-number search (df-pn) for victory by continuous threats (VCT).

The depth-first VCT in engine.search.threats deepens one attacking move at a time and walks every
three on the board at every level, so a long win behind a wide first move is out of reach:
on 77 positions where PentaZen announced a win of 13+ plies it proved 54 in 300 k nodes.
Proof numbers steer the work instead to where the defender has the fewest answers (a four
has one, a three three or four), which is how threat sequences are found in practice
(Allis's proof of freestyle Gomoku used the same idea).

The tree is the depth-first solver's AND/OR tree, with the same exactness rules:
* attacker (OR) nodes: a five wins; a defender five cell must be blocked (only the blocks
  are tried); otherwise every cell where the attacker makes a three or a four, which after
  its first move must lie within REACH rows and columns of its previous one unless it makes
  a double threat (threat sequences stay local: on those 77 positions this proved 51 at
  25 k nodes against 35 over the whole board);
* defender (AND) nodes: a defender five cell refutes; an attacker five cell must be blocked
  (no block: lost); an attacker with no open-four cell left has no threat (refuted);
  otherwise every cell where either side makes a four (all blocks of an open three, and
  every counter-four: the attacker then has to block it at its next node);
* renju fouls are never played, by either side.

Only the attacker's moves are ever limited, never the defender's answers, so a proof is a
proof; "no win" means none in the tree searched (an exact disproof with reach 0).

Proof and disproof numbers live in a Zobrist-keyed table of two-entry buckets. No position
repeats (stones are only added), so the table's hazards cost nodes or wins found, never a
false proof: transpositions overcount, and with REACH a node's moves depend on the path to it
(the attacker's previous move), so a "no win" read back may hold for one path only.
Thresholds use the 1 + 1/4 trick (a child is searched until its numbers pass the
second-best sibling's by a quarter), which saves most of the re-expansions of plain df-pn.

One self-recursive function (numba's cache cannot reload mutual recursion), called with
int64 arguments only (numba issue 6061).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np
from numba import njit

from gomoku.engine.game.core import C_B4, C_B4F3, C_F3, C_F3X2, C_F4, C_FIVE, M_COUNT, M_STRIDE, M_TOMOVE, BoardState, make_move, scan_span, undo_move
from gomoku.engine.search.threats import (C_NODES, C_STOP, MAXPLY, ThreatResult, _has_real_threat,
                      block_fives, find_class_cell, is_foul, is_four_class,
                      new_ctrl, tick)

INF_PN = np.int64(1 << 40)
#: children kept per node (the attacker's further threes are dropped; a defender with more
#: answers counts as safe)
MAX_CHILDREN = 160
#: how far (rows and columns) from its previous move the attacker's threes and fours are
#: looked for after its first move (double threats: anywhere); 0 = the whole board
REACH = 3
_SALT = np.array([0x5851F42D4C957F2D, 0x14057B7EF767814F], dtype=np.uint64)


class DfpnTable(NamedTuple):
    """Proof table plus the per-ply child lists the recursion works in."""
    key: np.ndarray     # uint64[size]
    pn: np.ndarray      # int64[size]
    dn: np.ndarray      # int64[size]
    kids: np.ndarray    # int64[MAXPLY + 2, MAX_CHILDREN]
    kpn: np.ndarray     # int64[MAXPLY + 2, MAX_CHILDREN]
    kdn: np.ndarray     # int64[MAXPLY + 2, MAX_CHILDREN]
    out: np.ndarray     # int64[MAXPLY + 2, 2]: (pn, dn) a node leaves for its parent
    blocks: np.ndarray  # int64[MAXPLY + 2, 64]: scratch for block_fives


def new_dfpn_table(size_log2: int = 20) -> DfpnTable:
    n = 1 << size_log2
    rows = MAXPLY + 2
    return DfpnTable(np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.int64),
                     np.zeros(n, dtype=np.int64),
                     np.zeros((rows, MAX_CHILDREN), dtype=np.int64),
                     np.zeros((rows, MAX_CHILDREN), dtype=np.int64),
                     np.zeros((rows, MAX_CHILDREN), dtype=np.int64),
                     np.zeros((rows, 2), dtype=np.int64),
                     np.zeros((rows, 64), dtype=np.int64))


def clear_dfpn_table(tab: DfpnTable) -> None:
    tab.key[:] = 0


@njit(cache=True, inline="always")
def _lookup(tab: DfpnTable, key: np.uint64, pn0: np.int64, dn0: np.int64) -> tuple[np.int64, np.int64]:
    slot = np.int64(key & np.uint64(tab.key.shape[0] - 2))
    if tab.key[slot] == key:
        return tab.pn[slot], tab.dn[slot]
    if tab.key[slot + 1] == key:
        return tab.pn[slot + 1], tab.dn[slot + 1]
    return pn0, dn0


@njit(cache=True, inline="always")
def _solved(tab: DfpnTable, slot: np.int64) -> bool:
    return tab.pn[slot] == 0 or tab.dn[slot] == 0


@njit(cache=True, inline="always")
def _store(tab: DfpnTable, key: np.uint64, pn: np.int64, dn: np.int64) -> None:
    """Two entries per bucket: the key's own, else an empty one, else rather an open one than
    a solved one (solved entries are what proofs are read back from)."""
    slot = np.int64(key & np.uint64(tab.key.shape[0] - 2))
    if tab.key[slot] != key:
        if tab.key[slot + 1] == key:
            slot += 1
        elif tab.key[slot] != 0 and (tab.key[slot + 1] == 0
                                     or _solved(tab, slot) and not _solved(tab, slot + 1)):
            slot += 1
    tab.key[slot] = key
    tab.pn[slot] = pn
    tab.dn[slot] = dn


@njit(cache=True, inline="always")
def _key(st: BoardState, a: np.int64) -> np.uint64:
    return st.hashv[0] ^ _SALT[a]


@njit(cache=True, inline="always")
def _child_key(st: BoardState, a: np.int64, i: np.int64) -> np.uint64:
    """_key of the position after the side to move plays i, without playing it."""
    return (st.hashv[0] ^ st.zobrist[st.meta[M_TOMOVE], i]) ^ _SALT[a]


@njit(cache=True, _nrt=False)
def _gen(st: BoardState, a: np.int64, attacker: bool, ply: np.int64, tab: DfpnTable,
         reach: np.int64) -> np.int64:
    """Children of the node into tab.kids[ply], their count returned; or -1: the side to move
    wins here (OR node: the attacker's five; AND node: the defender's five, or no threat left
    to answer, or more answers than a list holds), -2 (AND node): no block stops a five."""
    d = 1 - a
    kids = tab.kids[ply]
    cnt = 0
    if attacker:
        if st.counts[a, C_FIVE] > 0:
            return -1
        if st.counts[d, C_FIVE] > 0:
            nb = block_fives(st, d, np.int64(-1), tab.blocks[ply])
            for t in range(nb):
                kids[cnt] = tab.blocks[ply, t]
                cnt += 1
            return cnt
        lo, hi = scan_span(st)
        stride = st.meta[M_STRIDE]
        last = np.int64(st.moves[st.meta[M_COUNT] - 2]) if ply >= 2 and reach > 0 else np.int64(-1)
        lx = last % stride
        ly = last // stride
        for i in range(lo, hi):
            if st.cells[i] != 0:
                continue
            k = st.cls[a, i]
            if k < C_F3 or k > C_F4 or cnt >= MAX_CHILDREN:
                continue
            if last >= 0 and k < C_F3X2:
                if abs(i % stride - lx) > reach or abs(i // stride - ly) > reach:
                    continue
            if is_foul(st, a + 1, np.int64(i)):
                continue
            kids[cnt] = i
            cnt += 1
        return cnt
    if st.counts[d, C_FIVE] > 0:
        return -1                           # the defender completes a five
    if st.counts[a, C_FIVE] > 0:
        nb = block_fives(st, a, np.int64(-1), tab.blocks[ply])
        if nb == 0:
            return -2
        for t in range(nb):
            kids[cnt] = tab.blocks[ply, t]
            cnt += 1
        return cnt
    if not _has_real_threat(st, a):
        return -1                           # nothing to answer: the defender is free
    lo, hi = scan_span(st)
    for i in range(lo, hi):
        if st.cells[i] != 0:
            continue
        # the depth-first VCT's answer list (threats._vct), written out: the same test as a
        # shared helper taking the state made this solver 2.7x slower, taking the arrays 18 %
        if not is_four_class(st.cls[a, i]) and not is_four_class(st.cls[d, i]):
            continue
        if is_foul(st, d + 1, np.int64(i)):
            continue
        if cnt >= MAX_CHILDREN:
            return -1                       # never prove a win over a cut list of answers
        kids[cnt] = i
        cnt += 1
    return cnt


@njit(cache=True, inline="always")
def _child_guess(st: BoardState, a: np.int64, attacker: bool, i: np.int64) -> tuple[np.int64, np.int64]:
    """Proof and disproof numbers of a child not in the table: a four leaves one answer, a
    double threat few, a three three or four."""
    if not attacker:
        return np.int64(1), np.int64(1)
    k = st.cls[a, i]
    if k == C_B4 or k == C_B4F3 or k == C_F4:
        return np.int64(1), np.int64(1)
    if k == C_F3X2:
        return np.int64(2), np.int64(1)
    return np.int64(3), np.int64(1)


@njit(cache=True, nogil=True, _nrt=False)
def _mid(st: BoardState, a: np.int64, ply: np.int64, thpn: np.int64, thdn: np.int64,
         ctrl: np.ndarray, tab: DfpnTable, attacker: np.int64, reach: np.int64) -> None:
    """Expand the node until its proof number reaches thpn or its disproof number thdn (or
    it is solved); leaves its final (pn, dn) in tab.out[ply]. Numbers are from the
    attacker's side at both node kinds: pn = 0 means the attacker wins."""
    tab.out[ply, 0] = 1
    tab.out[ply, 1] = 1
    if tick(ctrl):
        return
    atk = attacker != 0
    key = _key(st, a)
    if ply >= MAXPLY - 4:
        tab.out[ply, 0] = INF_PN
        tab.out[ply, 1] = 0
        return
    n = _gen(st, a, atk, ply, tab, reach)
    if n == -1 or n == -2 or n == 0:
        # -1: the side to move wins (attacker five / defender five or free defender);
        # -2: the side to move (defender) cannot stop a five; 0: no move left for that side
        win = (n == -1 and atk) or n == -2 or (n == 0 and not atk)
        pn = np.int64(0) if win else INF_PN
        dn = INF_PN if win else np.int64(0)
        _store(tab, key, pn, dn)
        tab.out[ply, 0] = pn
        tab.out[ply, 1] = dn
        return
    kids = tab.kids[ply]
    kpn = tab.kpn[ply]
    kdn = tab.kdn[ply]
    for t in range(n):
        i = kids[t]
        g0, g1 = _child_guess(st, a, atk, i)
        kpn[t], kdn[t] = _lookup(tab, _child_key(st, a, i), g0, g1)
    child_attacker = np.int64(0) if atk else np.int64(1)
    # an OR node takes the smallest proof number of its children and the sum of their
    # disproof numbers; an AND node the other way round
    mins = kpn if atk else kdn
    sums = kdn if atk else kpn
    th_min = thpn if atk else thdn
    th_sum = thdn if atk else thpn
    while True:
        # the node's numbers from its children's, and the child to search with its runner-up
        best = 0
        second = INF_PN
        mn = INF_PN
        sm = np.int64(0)
        for t in range(n):
            sm = min(sm + sums[t], INF_PN)
            if mins[t] < mn:
                second = mn
                mn = mins[t]
                best = t
            elif mins[t] < second:
                second = mins[t]
        pn = mn if atk else sm
        dn = sm if atk else mn
        if mn >= th_min or sm >= th_sum or mn == 0 or sm == 0 or ctrl[C_STOP] != 0:
            break
        c_min = min(th_min, max(second + 1, second + second // 4))
        c_sum = min(th_sum - sm + sums[best], INF_PN)
        cth_pn = c_min if atk else c_sum
        cth_dn = c_sum if atk else c_min
        i = kids[best]
        make_move(st, i)
        _mid(st, a, ply + 1, cth_pn, cth_dn, ctrl, tab, child_attacker, reach)
        undo_move(st)
        # the recursion reused deeper rows only: this node's lists are intact
        kpn[best] = tab.out[ply + 1, 0]
        kdn[best] = tab.out[ply + 1, 1]
    if ctrl[C_STOP] == 0:
        _store(tab, key, pn, dn)
    tab.out[ply, 0] = pn
    tab.out[ply, 1] = dn


@njit(cache=True, nogil=True, _nrt=False)
def dfpn(st: BoardState, a: np.int64, ctrl: np.ndarray, tab: DfpnTable, reach: np.int64) -> np.int64:
    """Does attacker a (= side to move) win by continuous threats? 1 proven, 0 no win in the
    tree searched (disproven when reach is 0), -1 undecided (node limit or stop)."""
    _mid(st, a, np.int64(0), INF_PN, INF_PN, ctrl, tab, np.int64(1), reach)
    if tab.out[0, 0] == 0:
        return 1
    if tab.out[0, 1] == 0 and ctrl[C_STOP] == 0:
        return 0
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def proof_line(st: BoardState, a: np.int64, tab: DfpnTable, pv: np.ndarray, reach: np.int64) -> np.int64:
    """Walk a proven tree from the table: the attacker's proving move at each of its nodes,
    the defender's first answer at each of its; returns the line's length (it stops early
    where the table lost the proof). The board is restored."""
    ply = 0
    made = 0
    atk = True
    while ply < pv.shape[0] - 2:
        n = _gen(st, a, atk, np.int64(ply), tab, reach)
        if n <= 0:
            if atk and n == -1 and st.counts[a, C_FIVE] > 0:
                pv[ply] = find_class_cell(st, a, np.int64(10))
                ply += 1
            elif not atk and n == -2 and st.counts[a, C_FIVE] >= 2:
                # two five cells: the defender blocks one, the attacker plays the other
                j = find_class_cell(st, a, np.int64(10))
                pv[ply] = j
                make_move(st, j)
                made += 1
                pv[ply + 1] = find_class_cell(st, a, np.int64(10))
                ply += 2
            break
        pick = -1
        for t in range(n):
            i = tab.kids[ply, t]
            cpn, cdn = _lookup(tab, _child_key(st, a, i), np.int64(1), np.int64(1))
            if cpn == 0:
                pick = i
                break
        if pick < 0:
            break
        pv[ply] = pick
        make_move(st, pick)
        made += 1
        ply += 1
        atk = not atk
    for _ in range(made):
        undo_move(st)
    return ply


def solve_vct(st: BoardState, node_limit: int = 0, ctrl: Optional[np.ndarray] = None,
              tab: Optional[DfpnTable] = None, reach: int = REACH) -> ThreatResult:
    """Run df-pn VCT for the side to move on `st` (restored afterwards)."""
    a = np.int64(st.meta[M_TOMOVE] - 1)
    if ctrl is None:
        ctrl = new_ctrl(node_limit)
    if tab is None:
        tab = new_dfpn_table()
    start = int(ctrl[C_NODES])
    r = int(dfpn(st, a, ctrl, tab, np.int64(reach)))
    line: list[int] = []
    if r == 1:
        pv = np.zeros(MAXPLY, dtype=np.int64)
        k = int(proof_line(st, a, tab, pv, np.int64(reach)))
        line = [int(x) for x in pv[:k]]
    return ThreatResult(r == 1, line, int(ctrl[C_NODES]) - start)


def warm_up() -> None:
    """Compile/load the solver and its proof walk (engine.player.warmup hook): the root probe finds
    no win in the search's own warm-up position, so nothing else reaches them."""
    from gomoku.engine.game.board import Board
    b = Board.from_moves(15, [(7, 7), (0, 0), (8, 7), (0, 2), (7, 8), (0, 4), (8, 9), (14, 14)])
    solve_vct(b.state, node_limit=20_000)
