"""The one facade everyone calls: position + limits -> move (+ info).

`think` returns the static choice when told to move at once and otherwise asks the
classical searcher (engine.search), which answers forced cases (win now, block a five,
VCF wins and defences) before its alpha-beta. The `Player` protocol (engine.match.players) is
what the match runner, the brain and `gomoku play` all speak, whether the player is this
engine, a net or an external brain over a pipe.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, ContextManager, Mapping, Optional

import numpy as np
from numba import njit

from gomoku.engine.game.board import BLACK, Board
from gomoku.engine.game.core import C_FIVE, M_COUNT, M_HEIGHT, M_STRIDE, M_TOMOVE, M_WIDTH, BoardState
from gomoku.engine.base.limits import CLASSICAL_SEARCHER, Limit, PlayResult
from gomoku.engine.game.rules import Rule
from gomoku.engine.base import interrupt
from gomoku.engine.base.numba_cache import drop_stale_cache
from gomoku.engine.base.timeman import search_deadlines

if TYPE_CHECKING:
    from gomoku.engine.search.alphabeta import Searcher
    from gomoku.engine.search.params import SearchParams
    from gomoku.engine.search.evaluation import EvalTables
    from gomoku.engine.search.learned_file import LearnedEval

drop_stale_cache(__file__, ("game.core", "game.patterns"))

# weight of the opponent's pattern score when choosing a static move: blocking his
# shapes is worth a little less than building our own of the same size
DEFENCE_PERCENT = 85


@njit(cache=True)
def static_move(st: BoardState, forbid: np.ndarray) -> int:
    """Best move by one-ply pattern scores: win, block a five, else attack + defence.

    `forbid` marks cells the side to move may not use (renju fouls for black).
    Returns -1 when no empty cell is left."""
    me = st.meta[M_TOMOVE] - 1
    op = 1 - me
    n = st.cells.shape[0]
    best = -1
    best_val = -1
    centre = -1
    any_near = st.meta[M_COUNT] > 0
    if not any_near:
        w = st.meta[M_WIDTH]
        h = st.meta[M_HEIGHT]
        centre = (h // 2 + 5) * st.meta[M_STRIDE] + w // 2 + 5
        if st.cells[centre] == 0:
            return centre
    for phase in range(3):
        for i in range(n):
            if st.cells[i] != 0 or forbid[i] != 0:
                continue
            if phase == 0:
                if st.cls[me, i] == C_FIVE:
                    return i
                continue
            if phase == 1:
                if st.cls[op, i] == C_FIVE:
                    return i
                continue
            if any_near and st.near[i] == 0:
                continue
            val = st.score[me, i] * 100 + st.score[op, i] * DEFENCE_PERCENT + st.near[i]
            if val > best_val:
                best_val = val
                best = i
    if best < 0:
        for i in range(n):
            if st.cells[i] == 0 and forbid[i] == 0:
                return i
        for i in range(n):
            if st.cells[i] == 0:
                return i
    return best


def _forbid_mask(board: Board) -> np.ndarray:
    """Cells the side to move may not use: renju fouls for black (the board's cached mask)."""
    if board.rule == Rule.RENJU and board.to_move == BLACK:
        return board.forbidden_mask()
    return np.zeros(board.state.cells.shape[0], dtype=np.int8)


def quick_move(board: Board) -> tuple[int, int]:
    """A sensible legal move in well under a millisecond: the fallback when time is short."""
    idx = int(static_move(board.state, _forbid_mask(board)))
    if idx < 0:
        raise ValueError("no legal move: the board is full")
    return board.coords(idx)


def think(board: Board, limit: Limit, stop: Optional[threading.Event] = None,
          searcher: Optional["Searcher"] = None, threat_probes: bool = True) -> PlayResult:
    """Choose a move for the side to move without changing `board`.

    `limit.turn_time == 0` returns the static choice at once. Otherwise the classical search
    (engine.search: root VCF/VCT probes, then iterative-deepening PVS) runs until the first of
    `limit.depth` iterations, `limit.nodes` nodes, the deadlines engine.base.timeman makes of the
    limit's clocks (`search_deadlines`), `stop`, or Ctrl-C in a `gomoku` command.
    info: depth, score (eval units from the mover's view, or 'win'/'loss' when proven),
    nodes, nps, pv (list of (x, y)), time (s), and 'proof' ('vcf'/'vct') for solver wins.
    `searcher` is the search state of the player thinking (its tables, kept from one move to
    the next by a timed search); without one the search gets fresh tables of its own.
    `threat_probes` False leaves out the root's VCF / VCT probes (the Fudan paper's Minimax
    without threat-space search)."""
    if board.game_over:
        raise ValueError("the game is over")
    t0 = time.perf_counter()
    deadlines = search_deadlines(limit, t0)
    if deadlines.instant:
        move = quick_move(board)
        return PlayResult(move, {"depth": 0, "nodes": 1, "time": time.perf_counter() - t0})
    if searcher is None:
        searcher = new_searcher()
    work = board.copy()
    # a search under a node or depth limit depends on its position alone; a timed one keeps
    # the TT of this player's previous search, as PentaZen and Rapfi keep theirs
    timed = limit.nodes is None and limit.depth is None
    tt_bytes = _table_bytes(limit.max_memory)
    with _ctrl_c_stops(searcher, work.state.cells.shape[0], tt_bytes):
        res = searcher.search(work.state, max_depth=limit.depth, node_limit=limit.nodes, deadlines=deadlines,
                              stop=stop, tt_bytes=tt_bytes, clear=not timed, threat_probes=threat_probes)
    if res.move < 0:
        move = quick_move(board)
        return PlayResult(move, {"depth": 0, "nodes": res.nodes, "time": time.perf_counter() - t0})
    elapsed = time.perf_counter() - t0
    info = {
        "searcher": searcher_name(searcher.learned(int(board.rule))),
        "depth": res.depth,
        "score": _score_text(res.score),
        "nodes": res.nodes,
        "nps": int(res.nodes / elapsed) if elapsed > 0 else 0,
        "pv": [board.coords(i) for i in res.pv],
        "time": elapsed,
    }
    if res.proven:
        info["proof"] = res.proven
    return PlayResult(board.coords(res.move), info)


def _ctrl_c_stops(searcher: "Searcher", n_cells: int, tt_bytes: int) -> ContextManager[None]:
    """Once a `gomoku` command armed Ctrl-C (engine.base.interrupt), the search's control block is
    stopped by the signal itself: its handler would wait for the jitted search to return,
    which can be the whole move. The block is the one `searcher.search` takes for the same
    board size and table bytes. Unarmed (the brain, library callers), nothing is registered."""
    if not interrupt.armed():
        return nullcontext()
    from gomoku.engine.search.tables import C_EXTERNAL
    from gomoku.engine.search.threats import C_STOP
    return interrupt.stopping(searcher.ctx(n_cells, tt_bytes).ctrl, C_EXTERNAL, C_STOP)


def new_searcher(tables: Optional[Mapping[int, "EvalTables"]] = None,
                 learned: Optional[Mapping[int, "LearnedEval"]] = None,
                 params: Optional["SearchParams"] = None) -> "Searcher":
    """Fresh search state for one player (`tables`: evaluation tables by rule id, the shipped
    ones for the rest; `learned`: learned evaluators by rule id, which take the place of the
    tables under their rule; `params`: its search parameters, the defaults where None). The
    search modules are imported here, late: `import agent` and the brain's start stay light."""
    from gomoku.engine.search.alphabeta import Searcher
    return Searcher(tables, learned, params=params)


def searcher_name(learned: Optional["LearnedEval"]) -> str:
    """How ABOUT, MESSAGE and match reports name the alpha-beta: with the evaluator it uses."""
    if learned is None:
        return CLASSICAL_SEARCHER
    return f"alpha-beta + VCF/VCT, learned evaluator {learned.name}{learned.blend}"


class Thinker:
    """One player's thinking with its state kept from move to move: the brain holds one, so its
    timed searches keep their TT; `forget` drops it (the protocol's 'forget the hash table')."""

    def __init__(self, tables: Optional[Mapping[int, "EvalTables"]] = None,
                 learned: Optional[Mapping[int, "LearnedEval"]] = None,
                 params: Optional["SearchParams"] = None) -> None:
        self._tables = tables
        self._learned = dict(learned or {})
        self._params = params
        self._searcher: Optional["Searcher"] = None
        self._lock = threading.Lock()

    @property
    def searcher(self) -> "Searcher":
        with self._lock:
            if self._searcher is None:
                self._searcher = new_searcher(self._tables, self._learned, self._params)
            return self._searcher

    def think(self, board: Board, limit: Limit, stop: Optional[threading.Event] = None,
              threat_probes: bool = True) -> PlayResult:
        return think(board, limit, stop, searcher=self.searcher, threat_probes=threat_probes)

    def forget(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.release()

    def describe(self, rule: Optional[int] = None) -> str:
        """The searcher that plays `rule` (or, with None, every rule this player covers)."""
        if rule is not None:
            return searcher_name(self._learned.get(rule))
        if not self._learned:
            return CLASSICAL_SEARCHER
        parts = [f"{searcher_name(ev)} under {ev.rule}" for ev in self._learned.values()]
        return "; ".join(parts) + f"; {CLASSICAL_SEARCHER} under the other rules"


def clamp_threads(threads: int) -> int:
    """A thread count a caller asked for, within 1..the cores this process may use."""
    from ..base.processes import usable_cores
    return max(1, min(int(threads), usable_cores()))


def _spent(limit: Limit, seconds: float) -> Limit:
    """`limit` for a search that starts `seconds` after the move began: the brain's per-move
    times (`turn_time`, `hard_time`) count from the start of the move, so work done before
    the search comes off them."""
    changes = {}
    for key in ("turn_time", "hard_time"):
        value = getattr(limit, key)
        if value is not None and value > 0:
            changes[key] = max(0.001, value - seconds)
    return dataclasses.replace(limit, **changes) if changes else limit


def _table_bytes(max_memory: Optional[int]) -> int:
    """Transposition-table size: 32 MiB, or less when the protocol's max_memory says so.

    Deliberately not derived from the current resident size: the same Limit must give the
    same table (and so the same nodes and move) in every process."""
    size = 32 << 20
    if max_memory and max_memory > 0:
        from gomoku.engine.base.timeman import table_memory_bytes
        cap = table_memory_bytes(max_memory) // 2
        while size > (1 << 20) and size > cap:
            size >>= 1
    return size


def _score_text(score: int):
    from gomoku.engine.search.alphabeta import WIN, WIN_MIN
    if score > WIN_MIN:
        return "win"
    if score < -WIN_MIN:
        return "loss"
    return int(score)


#: Strength levels of EnginePlayer / `gomoku play --level N`:
#:   1      static one-ply pattern choice (the first engine)
#:   2..5   search with a node budget (deterministic): 2k, 20k, 100k, 400k nodes
#:   6+     full strength: the move's time budget decides (default when no level is given)
LEVEL_NODES = {2: 2_000, 3: 20_000, 4: 100_000, 5: 400_000}


def level_limit(level: Optional[int], limit: Limit) -> Limit:
    """The Limit one level adds to a game's Limit (the game's own node/depth caps win)."""
    if level is None or level >= 6:
        return limit
    if level <= 1:
        return Limit(**{**vars(limit), "turn_time": 0})
    nodes = LEVEL_NODES[level]
    if limit.nodes:
        nodes = min(nodes, limit.nodes)
    return Limit(**{**vars(limit), "nodes": nodes})


class EnginePlayer:
    """The classical engine as a Player.

    level: 1 static, 2..5 node budgets of 2k/20k/100k/400k nodes (same move every time for
    the same position, unless the game's time limit runs out first), None or 6+ full
    strength by the game's time limit.
    depth / nodes: explicit caps, applied when the game's Limit has none.
    tables: evaluation tables by rule id (the shipped ones for the rules not named).
    learned: learned evaluators by rule id (they replace the tables under their rule).
    params: search parameters (engine.search.params; the defaults where None).
    Each player has its own search state: two engines in one process never share a table."""

    def __init__(self, level: Optional[int] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
                 name: Optional[str] = None, tables: Optional[Mapping[int, "EvalTables"]] = None,
                 learned: Optional[Mapping[int, "LearnedEval"]] = None, params: Optional["SearchParams"] = None,
                 threat_probes: bool = True):
        self.level = level
        self.threat_probes = threat_probes
        self.depth = depth
        self.nodes = nodes
        self.name = name or ("classical" if level is None else f"classical:{level}")
        self._thinker = Thinker(tables, learned, params)
        self.searcher = self._thinker.describe()

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        pass

    def play(self, board: Board, limit: Limit) -> PlayResult:
        if self.depth is not None and limit.depth is None:
            limit = Limit(**{**limit.__dict__, "depth": self.depth})
        if self.nodes is not None and limit.nodes is None:
            limit = Limit(**{**limit.__dict__, "nodes": self.nodes})
        limit = level_limit(self.level, limit)
        return self._thinker.think(board, limit, threat_probes=self.threat_probes)

    def close(self) -> None:
        self._thinker.forget()


def net_thinker(net_path: str, threads: int = 1) -> Any:
    """The brain's searcher for a net file: an ADP critic's one-ply player
    (engine.net.critic.CriticThinker) for a critic, net + MCTS (NetThinker) for any other."""
    from ..net.critic_file import is_critic
    if is_critic(net_path):
        return CriticThinker(net_path, threads=clamp_threads(threads))
    return NetThinker(net_path, threads=threads)


class _NetOnItsGames:
    """What both net thinkers share: the net plays the games its metadata names, the
    classical search (with its own TT) every other board, rule or win length; the manager's
    thread count is recorded and applied by the next move that uses the net."""

    net: Any
    classical: "Thinker"
    _threads: int

    def set_threads(self, threads: int) -> int:
        """The net's onnxruntime thread count from the next searched move on (the protocol's
        `INFO thread_num`), clamped to 1..the usable cores; returns the count kept. Only
        recorded here: the INFO arrives on the brain's reader thread, possibly while a search
        evaluates with the current session, so the session is rebuilt by the next move that
        uses the net, on the thinking thread, and that move's clock pays for it."""
        self._threads = clamp_threads(threads)
        return self._threads

    def covers(self, board: Board) -> bool:
        from ..net.metadata import NetFormatError
        try:
            self.net.info.check_game(board.width, board.height, board.rule.label)
        except NetFormatError:
            return False
        return True

    def forget(self) -> None:
        """Drop the classical search's tables (the protocol's 'forget the hash table')."""
        self.classical.forget()


class CriticThinker(_NetOnItsGames):
    """The brain's searcher with an ADP critic (`gomoku brain --net CRITIC.onnx`): the critic
    one ply deep (engine.net.critic) on the games it was trained for, the classical search on
    every other board size or rule."""

    def __init__(self, net_path: str, threads: int = 1) -> None:
        from ..net.critic_file import CriticNet
        self.net = CriticNet.load(net_path, threads=threads)
        self._threads = self.net.threads
        self.name = f"ADP critic {self.net.info.arch}, one ply"
        self.classical = Thinker()

    def searcher(self, board: Board) -> str:
        return self.name if self.covers(board) else CLASSICAL_SEARCHER

    def describe(self) -> str:
        """Which searcher plays which boards, for the brain's ABOUT line."""
        return f"{self.name} on {self.net.info.coverage()}, {CLASSICAL_SEARCHER} elsewhere"

    def __call__(self, board: Board, limit: Limit, stop: Optional[threading.Event] = None) -> PlayResult:
        if not self.covers(board):
            return self.classical.think(board, limit, stop)
        from ..net.critic import critic_move
        if self._threads != self.net.threads:
            self.net.set_threads(self._threads)
        move, info = critic_move(self.net, board)
        info["searcher"] = self.name
        return PlayResult(move, info)


class NetThinker(_NetOnItsGames):
    """The brain's searcher with a net: net + MCTS on the games the net was trained for, the
    classical search on every other board size, rule or win length.

    Called like `think` (board, limit, stop) by the Piskvork session; the MCTS player inside
    keeps its tree from move to move (and across TAKEBACK), as the classical search keeps its TT."""

    def __init__(self, net_path: str, threads: int = 1, playouts: int = 1_000_000):
        from ..mcts.player import MCTSPlayer
        from ..mcts.search import MCTSConfig
        from ..net.evaluator import NetEvaluator
        self.net = NetEvaluator.load(net_path, threads=clamp_threads(threads))
        self._threads = self.net.threads  # what the manager asked for last (INFO thread_num)
        self.player = MCTSPlayer(MCTSConfig(playouts=playouts), self.net, name="net")
        self.classical = Thinker()     # the boards the net does not cover keep their TT too

    def searcher(self, board: Board) -> str:
        return self.player.searcher if self.covers(board) else CLASSICAL_SEARCHER

    def describe(self) -> str:
        """Which searcher plays which boards, for the brain's ABOUT line."""
        return f"{self.player.searcher} on {self.net.info.coverage()}, {CLASSICAL_SEARCHER} elsewhere"

    def __call__(self, board: Board, limit: Limit, stop: Optional[threading.Event] = None) -> PlayResult:
        if not self.covers(board):
            return self.classical.think(board, limit, stop)
        if search_deadlines(limit, 0.0).instant:
            return PlayResult(quick_move(board), {"depth": 0, "nodes": 1})
        wanted = self._threads
        if wanted != self.net.threads:
            t0 = time.perf_counter()
            self.net.set_threads(wanted)
            limit = _spent(limit, time.perf_counter() - t0)
        return self.player.play(board, limit, stop=stop)
