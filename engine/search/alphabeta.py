"""Classical alpha-beta, the Python driver: iterative deepening over the jitted PVS (`pvs`).

The driver adds what is per move rather than per node: VCF/VCT probes at the root for both
sides (a found win is played at once; an opponent VCF restricts the root to moves that refute
it), a check of the move chosen (a df-pn VCT for the opponent after it: a refuted move is
dropped and the depth searched again), and the clock. Each iteration searches the root with
the full window unless the `aspiration` parameter asks for a window around the last score
(`_iterate`).

Time never enters the jitted code: a watcher thread sets ctrl[C_STOP] at the deadline or when
`stop` is set, and the nogil search polls it every node. Under a node or depth limit (and no
time limit) the result depends only on the position: every search starts with cleared tables
(a timed search may keep its TT: `search`).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Optional

import numpy as np

from gomoku.engine.game import core
from gomoku.engine.game.core import C_FIVE, BoardState, make_move, undo_move
from gomoku.engine.game.rules import R_RENJU
from gomoku.engine.search import dfpn, evaluation, threats
from gomoku.engine.search.params import DEFAULT as DEFAULT_PARAMS, SearchParams
from gomoku.engine.search.pvs import refutes_vcf, root_moves, root_search
from gomoku.engine.base import interrupt
from gomoku.engine.base.timeman import Deadlines, exact_deadlines
from gomoku.engine.search.threats import C_NODE_LIMIT, C_NODES, C_PVLEN, C_STOP, vcf
from gomoku.engine.search.tables import (C_EXTERNAL, DEFAULT_TT_BYTES, INF, MAXPLY, NET_ALONE, NET_OFF,
                                         NET_RESIDUAL, P_ASP_DEPTH, P_ASPIRATION, P_NET, P_NET_ORDER, P_NET_SHARE,
                                         P_RAISED, SearchCtx, WIN, WIN_MIN, apply_params, clear_ctx, new_ctx,
                                         set_weights)

if TYPE_CHECKING:
    from gomoku.engine.search.learned_file import LearnedEval


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


#: proof-number table of the root's VCT probes and move checks (2^18 entries of 24 bytes)
DFPN_TABLE_LOG2 = 18
#: the root's own threat probe: "dfpn" (engine.search.dfpn) or "vct" (depth-first, engine.search.threats)
ROOT_VCT = "dfpn"
#: a root move is played only once the opponent's VCT after it was looked for (df-pn, one
#: probe budget) and not found; iterations deeper than this many plies are checked
VERIFY_MIN_DEPTH = 2
#: moves the last safety check may look at after the search stopped (until the hard deadline)
FINAL_CHECKS = 10
#: root probes' node budgets under a clock: a tenth of the nodes the move's time buys at
#: about 250 k nodes/s
PROBE_NODES_PER_S = 25_000
#: a move check's budget, in root probe budgets (twice: measured with PROBE_REACH 5)
VERIFY_SCALE = 2.0
#: df-pn's reach (dfpn.REACH) in the root probe and the move checks: a stronger engine's wins
#: are often VCTs whose threes wander further than three rows from the last one
PROBE_REACH = 5


def _opponent_wins_after(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, move: int, me: int, budget: int,
                         node_cap: int) -> bool:
    """Does the opponent win by continuous threats once we play `move`? (df-pn, `budget`
    nodes; out of budget or time counts as no.)"""
    make_move(st, np.int64(move))
    try:
        lost, _ = _probe(st, cx, dtab, "dfpn", 1 - me, 0, budget, node_cap)
    finally:
        undo_move(st)
    return lost


def _look(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, move: int, me: int, budget: int, node_cap: int,
          checked: set[int], refuted: set[int]) -> Optional[bool]:
    """Check `move` and record it: True refuted, False safe (no VCT within the budget), None
    when the clock or the stop event ended the look first (the move stays unchecked)."""
    if _opponent_wins_after(st, cx, dtab, move, me, budget, node_cap):
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


def _probe(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, kind: str, side: int, depth: int, budget: int,
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
        tab = dtab
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
        interrupt.restop()
    if r:
        return True, [int(x) for x in cx.tpv[: int(ctrl[C_PVLEN])]]
    return False, []


class Searcher:
    """The search state of one player: its tables (TT, killers, history, move lists, PV and
    the control block its watcher writes: a `SearchCtx`), its df-pn table and its evaluation
    tables. Nothing of a search lives in the process: two players searching at once in two
    threads each use their own, and a player that is done drops its tables with it.

    `tables` maps a rule id to the evaluation tables this player uses under that rule (the
    shipped ones for every rule not named). `params`: the search parameters this player
    searches with (engine.search.params; the defaults where not given). One search at a time
    per Searcher (a second caller waits). For experiments (`gomoku study fudan-search`):
    `full_window`, plain alpha-beta (tables.FULL_WINDOW); `reductions` / `pruning` off, the
    parameters lmr=0 / prune=0 (no late-move reductions / no move quotas and futility)."""

    def __init__(self, tables: Optional[Mapping[int, evaluation.EvalTables]] = None,
                 learned: Optional[Mapping[int, "LearnedEval"]] = None, *, params: Optional[SearchParams] = None,
                 full_window: bool = False, reductions: bool = True, pruning: bool = True) -> None:
        self._tables = dict(tables or {})
        self._learned = dict(learned or {})
        params = params if params is not None else DEFAULT_PARAMS
        if not reductions:
            params = params.replace(lmr=0)
        if not pruning:
            params = params.replace(prune=0)
        self.params = params
        self._full_window = full_window
        self._net_key: Optional[tuple[int, int]] = None     # (rule, n_cells) of the context's evaluator
        self._cx: Optional[SearchCtx] = None
        self._shape = (0, 0)               # (n_cells, tt_bytes) the tables were made for
        self._rule: Optional[int] = None   # the rule the kept TT was filled under
        self._dtab: Optional[dfpn.DfpnTable] = None
        self._busy = threading.Lock()

    def learned(self, rule: int) -> Optional["LearnedEval"]:
        """The learned evaluator this player searches `rule` with (None: the tables)."""
        return self._learned.get(rule)

    def _install_evaluator(self, cx: SearchCtx, rule: int, n_cells: int) -> SearchCtx:
        """The context with the learned evaluator of `rule` switched on (made for this board size
        when it changes), or switched off where this player has none for the rule."""
        ev = self._learned.get(rule)
        if ev is None:
            cx.params[P_NET] = NET_OFF
            cx.params[P_NET_ORDER] = 0
            return cx
        if self._net_key != (rule, n_cells):
            cx = cx._replace(net=ev.evaluator(n_cells))
            self._cx = cx
            self._net_key = (rule, n_cells)
        cx.params[P_NET] = NET_RESIDUAL if ev.residual else NET_ALONE
        cx.params[P_NET_ORDER] = ev.order_weight
        cx.params[P_NET_SHARE] = ev.share
        return cx

    def eval_tables(self, rule: int) -> evaluation.EvalTables:
        """The evaluation tables this player searches `rule` with."""
        own = self._tables.get(rule)
        return own if own is not None else evaluation.tables(rule)

    def ctx(self, n_cells: int, tt_bytes: int = DEFAULT_TT_BYTES) -> SearchCtx:
        """The search tables for boards of `n_cells` padded cells (made, or remade for
        another size, on demand)."""
        if self._cx is None or self._shape != (n_cells, tt_bytes):
            self._cx = new_ctx(n_cells, tt_bytes)
            self._shape = (n_cells, tt_bytes)
            self._rule = None
            self._net_key = None
        return self._cx

    def dfpn_table(self) -> dfpn.DfpnTable:
        """The proof-number table of the root's probes and move checks (made on first use)."""
        if self._dtab is None:
            self._dtab = dfpn.new_dfpn_table(DFPN_TABLE_LOG2)
        return self._dtab

    @property
    def holds_tables(self) -> bool:
        """Whether this player holds search tables now (made by a search, dropped by release)."""
        return self._cx is not None or self._dtab is not None

    def release(self) -> None:
        """Drop the tables (the next search makes new ones): a player that is done, or the
        protocol's 'forget the hash table'."""
        with self._busy:
            self._cx = self._dtab = self._rule = self._net_key = None

    def search(self, st: BoardState, *, max_depth: Optional[int] = None, node_limit: Optional[int] = None,
               time_limit: Optional[float] = None, deadlines: Optional[Deadlines] = None,
               stop: Optional[threading.Event] = None,
               tt_bytes: int = DEFAULT_TT_BYTES, threat_probes: bool = True,
               clear: bool = True) -> SearchResult:
        """Search the position in `st` (restored afterwards) for the side to move.

        Stops at `max_depth` completed iterations, `node_limit` nodes, the soft deadline of
        `deadlines` (engine.base.timeman; `time_limit` seconds is exactly that long) or when `stop`
        is set, whichever first; always returns the best move of the last completed
        iteration (or of the root ordering if none completed). With `clear` False the TT of this
        player's last search under the same rule is kept (killers and history are not): its
        entries are facts about positions, and the positions two plies on were searched last
        move (keeping it scored clearly better against a stronger engine: docs/)."""
        with self._busy:
            t0 = time.perf_counter()
            cx = self.ctx(st.cells.shape[0], tt_bytes)
            rule = int(st.meta[core.M_RULE])
            set_weights(cx, self.eval_tables(rule))
            apply_params(cx, self.params, self._full_window)
            cx = self._install_evaluator(cx, rule, st.cells.shape[0])
            if clear or self._rule != rule:
                clear_ctx(cx)
            else:
                # the TT's entries are facts about positions (under this rule's evaluation), so
                # they hold in the next search of the game; killers and history are about the
                # last root
                cx.killers[:] = -1
                cx.history[:] = 0
                cx.ctrl[:] = 0
            interrupt.restop()          # a Ctrl-C that came while the block was cleared still stops
            self._rule = rule
            if deadlines is None:
                deadlines = exact_deadlines(t0, time_limit)
            return _search(st, cx, self.dfpn_table(), t0, max_depth, node_limit, deadlines, stop,
                           threat_probes)


def search(st: BoardState, **kwargs: Any) -> SearchResult:
    """One search with fresh tables of its own (`Searcher.search`'s arguments): for callers that
    keep nothing between searches (bench, hints, tests)."""
    return Searcher().search(st, **kwargs)


def _search(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, t0: float, max_depth: Optional[int],
            node_limit: Optional[int], dl: Deadlines, stop: Optional[threading.Event],
            threat_probes: bool) -> SearchResult:
    """The search proper on prepared tables (see Searcher.search)."""
    n_cells = st.cells.shape[0]
    ctrl = cx.ctrl
    node_cap = int(node_limit) if node_limit else 0
    ctrl[C_NODE_LIMIT] = node_cap
    watcher = _Watcher(ctrl, dl.soft, stop)
    me = int(st.meta[core.M_TOMOVE]) - 1
    try:
        rm = np.zeros(n_cells, dtype=np.int32)
        nroot = int(root_moves(st, cx, rm))
        if nroot == 0:
            return _any_legal(st, me, ctrl, t0)
        best = SearchResult(int(rm[0]), 0, 0, 0, 0.0, [int(rm[0])])
        if nroot == 1:
            best.depth = 1
            if st.counts[me, C_FIVE] > 0:
                best.score = WIN - 1
            return _finish(best, ctrl, t0)
        probe_budget = 0
        if threat_probes:
            probe_budget = _probe_budget(node_cap, dl)
            won, nroot, best = _root_probes(st, cx, dtab, rm, nroot, best, me, probe_budget, node_cap)
            if won is not None:
                return _finish(won, ctrl, t0)
        checked: set[int] = set()      # root moves the opponent's VCT was looked for after
        refuted: set[int] = set()      # ... and found
        check_budget = int(probe_budget * VERIFY_SCALE)
        best, nroot = _deepen(st, cx, dtab, rm, nroot, best, me, max_depth, dl, check_budget, node_cap,
                              checked, refuted)
        # (a node limit is a promise: once the search has spent it, no check runs past it)
        if check_budget and abs(best.score) < WIN_MIN and best.depth > VERIFY_MIN_DEPTH \
                and best.move not in checked and not (stop is not None and stop.is_set()) \
                and not (node_cap and ctrl[C_NODES] >= node_cap):
            # the checks run past the soft deadline, up to the hard one, on a clock of their own
            watcher.close()
            ctrl[C_STOP] = ctrl[C_EXTERNAL] = 0
            interrupt.restop()
            watcher = _Watcher(ctrl, dl.hard, stop)
            best = _checked_choice(st, cx, dtab, best, rm[:nroot], checked, refuted, me, check_budget,
                                   node_cap)
        return _finish(best, ctrl, t0)
    finally:
        watcher.close()


def _any_legal(st: BoardState, me: int, ctrl: np.ndarray, t0: float) -> SearchResult:
    """Nothing sensible (or only fouls) left: any legal cell, else -1 (board full), so the
    caller always has a move to play while one exists."""
    n_cells = st.cells.shape[0]
    mask = np.zeros(n_cells, dtype=np.int8)
    if me == 0 and int(st.meta[core.M_RULE]) == R_RENJU:
        core.forbidden_mask(st, mask)
    free = np.flatnonzero((st.cells == 0) & (mask == 0))
    mv = int(free[0]) if len(free) else -1
    return SearchResult(mv, -WIN, 0, int(ctrl[C_NODES]), time.perf_counter() - t0, [mv] if mv >= 0 else [])


def _probe_budget(node_cap: int, dl: Deadlines) -> int:
    """Nodes each root threat probe may use: about a tenth of the move (nodes, or time at
    PROBE_NODES_PER_S), so the probes never starve the search itself."""
    if node_cap:
        return max(1000, node_cap // 10)
    if dl.seconds is not None:     # timed
        return max(2000, int(dl.seconds * PROBE_NODES_PER_S))
    return 20_000


def _root_probes(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, rm: np.ndarray, nroot: int,
                 best: SearchResult, me: int, budget: int,
                 node_cap: int) -> tuple[Optional[SearchResult], int, SearchResult]:
    """The threat probes at the root: our VCF (a win played at once), the opponent's VCF if we
    passed (the root keeps only moves that refute it), then our VCT. Returns the proven win
    (or None), the root's move count and the best move so far."""
    win, line = _probe(st, cx, dtab, "vcf", me, 40, budget, node_cap)
    if win:
        return SearchResult(line[0], WIN - len(line), len(line), 0, 0.0, line, "vcf"), nroot, best
    # does the opponent threaten a VCF if we pass?
    st.meta[core.M_TOMOVE] = 2 - me
    try:
        opp_win, _ = _probe(st, cx, dtab, "vcf", 1 - me, 40, budget, node_cap)
    finally:
        st.meta[core.M_TOMOVE] = me + 1
    if opp_win and st.counts[1 - me, C_FIVE] == 0:
        nroot, best = _keep_refutations(st, cx, rm, nroot, best, budget, node_cap)
    if not cx.ctrl[C_STOP]:
        win, line = _probe(st, cx, dtab, ROOT_VCT, me, 10, budget, node_cap)
        if win and line and line[0] in set(int(x) for x in rm[:nroot]):
            return SearchResult(line[0], WIN - len(line), len(line), 0, 0.0, line, "vct"), nroot, best
    return None, nroot, best


def _keep_refutations(st: BoardState, cx: SearchCtx, rm: np.ndarray, nroot: int, best: SearchResult,
                      budget: int, node_cap: int) -> tuple[int, SearchResult]:
    """Restrict the root moves (in place) to those that refute the opponent's VCF, found on
    two probes' budget; where none is found in it, all moves stay (the search decides)."""
    ctrl = cx.ctrl
    keep = np.zeros(nroot, dtype=np.int8)
    saved = int(ctrl[C_NODE_LIMIT])
    lim = int(ctrl[C_NODES]) + 2 * budget
    ctrl[C_NODE_LIMIT] = min(lim, node_cap) if node_cap else lim
    cx.ttt.key[:] = 0
    cx.ttt.depth[:] = -1
    k = int(refutes_vcf(st, cx, rm, np.int64(nroot), np.int64(40), keep))
    ctrl[C_NODE_LIMIT] = saved
    if ctrl[C_STOP] and not ctrl[C_EXTERNAL] and not (node_cap and ctrl[C_NODES] >= node_cap):
        ctrl[C_STOP] = 0     # out of budget: search all moves instead
        interrupt.restop()
    if k > 0:
        sel = rm[:nroot][keep.astype(bool)]
        nroot = len(sel)
        rm[:nroot] = sel
        best = SearchResult(int(rm[0]), 0, 0, 0, 0.0, [int(rm[0])])
    return nroot, best


def _deepen(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, rm: np.ndarray, nroot: int, best: SearchResult,
            me: int, max_depth: Optional[int], dl: Deadlines, check_budget: int, node_cap: int,
            checked: set[int], refuted: set[int]) -> tuple[SearchResult, int]:
    """Iterative deepening over the jitted root search until the depth, the clock or a proven
    result ends it; each iteration's best move is checked for an opponent VCT (a refuted move
    is dropped from `rm` and the depth searched again). Returns the best move and the root's
    move count."""
    ctrl = cx.ctrl
    maxd = max_depth if max_depth is not None else MAXPLY - 4
    t_prev = t_last = 0.0
    depth = 0
    while depth < maxd:
        depth += 1
        t_iter = time.perf_counter()
        if ctrl[C_STOP]:
            break
        v = _iterate(st, cx, depth, rm, nroot, best.score if depth > 1 else None)
        if ctrl[C_STOP]:
            # an interrupted iteration keeps only a move that beat the (completed) first
            # move's score at this depth: the usual rule, and the time it bought is not lost
            raised = int(cx.params[P_RAISED])
            if depth > 1 and raised >= 0 and raised != best.move:
                best = _with_move(best, raised)
            break
        if check_budget and depth > VERIFY_MIN_DEPTH and nroot > 1 and abs(v) < WIN_MIN \
                and int(rm[0]) not in checked:
            if _look(st, cx, dtab, int(rm[0]), me, check_budget, node_cap, checked, refuted):
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
        if not dl.another_iteration(t_prev, t_last, time.perf_counter()):
            break               # the next iteration would not get far
    return best, nroot


def _iterate(st: BoardState, cx: SearchCtx, depth: int, rm: np.ndarray, nroot: int, last: Optional[int]) -> int:
    """One iteration's score: on the full window, or with the `aspiration` parameter from
    iteration `asp_depth` on, first on a window around the last iteration's score `last`,
    widened (doubling) on the side it failed until the score falls inside. A proven score
    opens that side fully: no window near a mate means anything."""
    window = int(cx.params[P_ASPIRATION])
    if window <= 0 or last is None or depth < int(cx.params[P_ASP_DEPTH]) or abs(last) >= WIN_MIN:
        return int(root_search(st, cx, np.int64(depth), rm, np.int64(nroot), np.int64(-INF), np.int64(INF)))
    alpha, beta = max(-INF, last - window), min(INF, last + window)
    while True:
        v = int(root_search(st, cx, np.int64(depth), rm, np.int64(nroot), np.int64(alpha), np.int64(beta)))
        if cx.ctrl[C_STOP] or alpha < v < beta:
            return v
        window *= 2
        if v <= alpha:
            alpha = -INF if v <= -WIN_MIN else max(-INF, v - window)
        else:
            beta = INF if v >= WIN_MIN else min(INF, v + window)


def _checked_choice(st: BoardState, cx: SearchCtx, dtab: dfpn.DfpnTable, best: SearchResult, ranked: np.ndarray,
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
                verdict = _look(st, cx, dtab, m, me, budget, node_cap, checked, refuted)
            if verdict is None and unchecked < 0:
                unchecked = m
            if verdict is not False:
                continue
        return best if m == best.move else _with_move(best, m)
    if unchecked >= 0 and unchecked != best.move:
        return _with_move(best, unchecked)
    return best


def _finish(res: SearchResult, ctrl: np.ndarray, t0: float) -> SearchResult:
    res.nodes = int(ctrl[C_NODES])
    res.time = time.perf_counter() - t0
    return res


def warm_up() -> None:
    """Compile/load the search for the argument types the agent uses (engine.player.warmup hook)."""
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
    cx = Searcher().ctx(b.state.cells.shape[0], DEFAULT_TT_BYTES)
    rm = np.zeros(b.state.cells.shape[0], dtype=np.int32)
    n = int(root_moves(b.state, cx, rm))
    keep = np.zeros(n, dtype=np.int8)
    refutes_vcf(b.state, cx, rm, np.int64(n), np.int64(4), keep)


def _warm_types() -> tuple[Any, Any, Any]:
    """numba's types of the board state, the search context and its evaluator, as the agent's
    searches pass them."""
    import numba

    from gomoku.engine.game.board import Board
    st = Board(15).state
    cx = Searcher().ctx(st.cells.shape[0], 1 << 16)      # the types do not depend on the TT's size
    return numba.typeof(st), numba.typeof(cx), numba.typeof(cx.net)


def warm_up_helpers() -> None:
    """Compile the search's plain-call helpers (the learned evaluator's entry points, move
    generation, the leaf) by signature, without running them: a warm-up step of its own, so
    the process that compiles `pvs` next links them from the cache (engine.player.warmup)."""
    from numba import types

    from gomoku.engine.search import learned, ordering, pvs
    s, c, e = _warm_types()
    i = types.int64
    for f in (learned.mix_rebuild, learned.mix_sync, learned.mix_undo, learned.mix_logits, learned.mix_score,
              learned.mix_residual):
        f.compile((s, e))
    learned.mix_make.compile((s, e, i))
    learned.mix_policy.compile((s, e, i))
    ordering.gen_moves.compile((s, c, i, i))
    pvs._leaf.compile((s, c, i))


def warm_up_pvs() -> None:
    """Compile the PVS recursion by signature, its helpers loaded (warm_up_helpers)."""
    from numba import types

    from gomoku.engine.search import pvs
    s, c, _ = _warm_types()
    i = types.int64
    pvs.pvs.compile((s, c, i, i, i, i))
