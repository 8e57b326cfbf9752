"""MCTS as a Player: a net (or random rollouts) searching under the match's limits.

Before the tree search, two-player five-in-a-row games ask the threat solvers (the classical
engine's VCF, then its df-pn VCT) what a tree of a few thousand playouts may miss: a forced win
for the mover is played at once, and a move after which the opponent has a forced win is
replaced by the next most visited move without one. A tree of a few hundred playouts seldom
sees a win by threes that a solver proves in milliseconds (it did not, though, turn the 8x8
nets' draws into wins: the net rarely reaches positions that hold one; docs/training.md).
Each player owns its tree, its solver tables and its net.
"""
from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Optional

import numpy as np

from ..base.limits import Limit, PlayResult
from ..base.timeman import table_memory_bytes, time_budget
from ..game.rules import Rule
from ..base.interrupt import either
from .search import MCTS, MCTSConfig

if TYPE_CHECKING:   # the solvers load when a probe first runs
    from ..search.dfpn import DfpnTable
    from ..search.threats import ThreatTable

#: VCF nodes per probe: a few milliseconds, against a search of a second or more
VCF_NODES = 20_000
#: df-pn VCT nodes per probe without a clock (at about 300 k nodes/s on 15x15, up to 0.3 s)
VCT_NODES = 100_000
#: under a clock, a probe's nodes per second of the move's budget: at most about 3 % of the
#: budget each, and a move runs one probe or two before the search and usually two after it
PROBE_NODES_PER_S = 10_000
VCT_MIN_NODES = 1_000
#: candidates checked for an opponent VCF or VCT before the search's choice stands anyway
VETO_CANDIDATES = 4


class MCTSPlayer:
    """Neural MCTS (evaluator given) or pure rollout MCTS (evaluator None)."""

    def __init__(self, config: MCTSConfig, evaluator=None, name: Optional[str] = None, seed: int = 0,
                 win_length: int = 5, players: int = 2, use_solver: bool = True):
        self.config = config
        self.evaluator = evaluator
        self.name = name or ("mcts" if evaluator is None else "net")
        self.seed = seed
        self.win_length = win_length
        self.players = players
        self.use_solver = use_solver
        self._mcts: Optional[MCTS] = None
        self._game: Optional[tuple[int, int, Rule]] = None
        self._threat_table: Optional[ThreatTable] = None
        self._dfpn_table: Optional[DfpnTable] = None

    @property
    def searcher(self) -> str:
        """What plays, for people: 'net b6c64 + MCTS' or 'rollout MCTS'."""
        if self.evaluator is not None:
            return f"net {self.evaluator.info.arch} + MCTS"
        return "flat Monte Carlo" if self.config.select == "flat" else "rollout MCTS"

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self._mcts = None

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        self._game = (width, height, Rule(rule))
        self._mcts = None

    def _searcher(self, board, max_memory: Optional[int]) -> MCTS:
        key = (board.width, board.height, Rule(board.rule))
        if self._mcts is None or self._game != key:
            self._game = key
            config = self.config
            if max_memory and max_memory > 0:
                # the tree gets what the process budget leaves beside the brain's own memory
                # (timeman's one figure), and never less than a tree that still searches
                spare = table_memory_bytes(max_memory)
                config = dataclasses.replace(config, tree_bytes=int(min(config.tree_bytes, max(8 << 20, spare))))
            self._mcts = MCTS(board.width, board.height, key[2], self.win_length, self.players, config,
                              evaluator=self.evaluator, seed=self.seed)
        return self._mcts

    def play(self, board, limit: Limit, stop=None) -> PlayResult:
        """stop: an Event that ends the search early (the brain's YXSTOP / STOP)."""
        t0 = time.perf_counter()
        budget = time_budget(limit)
        playouts = limit.playouts or self.config.playouts
        if limit.nodes:
            playouts = min(playouts, limit.nodes)
        solver = self.use_solver and self.players == 2 and self.win_length == 5
        vct_nodes = VCT_NODES if budget is None else int(min(VCT_NODES, max(VCT_MIN_NODES, budget * PROBE_NODES_PER_S)))
        if solver:
            for proof, probe in (("vcf", lambda: self._vcf(board)), ("vct", lambda: self._vct(board, vct_nodes))):
                win = probe()
                if win is not None:
                    return PlayResult((win % board.width, win // board.width),
                                      {"searcher": self.searcher, "score": "win", "proof": proof, "nodes": 0,
                                       "time": time.perf_counter() - t0})
        mcts = self._searcher(board, limit.max_memory)
        w = board.width
        mcts.sync([y * w + x for x, y in board.moves])
        deadline = None if budget is None else t0 + max(0.0, budget - (time.perf_counter() - t0))
        if budget is not None and budget <= 0:
            playouts = 1
        # Ctrl-C ends the search too once a command armed it (engine.base.interrupt): `gomoku play`
        # thinks on a worker thread, which the main thread's KeyboardInterrupt does not reach
        res = mcts.search(playouts=playouts, deadline=deadline, stop=either(stop))
        move = res.move
        if solver and res.proven != 1:
            move = self._avoid_forced_loss(board, res, vct_nodes)
        elapsed = time.perf_counter() - t0
        info = {"searcher": self.searcher, "depth": len(res.pv), "playouts": res.playouts, "nodes": res.playouts, "visits": int(res.visits.sum()),
                "score": "win" if res.proven == 1 else "loss" if res.proven == -1 else int(round(res.value * 100)),
                "winrate": round((res.value + 1) / 2, 3), "time": elapsed,
                "nps": int(res.playouts / elapsed) if elapsed > 0 else 0,
                "pv": [(m % w, m // w) for m in res.pv], "evals": res.evals}
        if move != res.move:
            info["vetoed"] = (res.move % w, res.move // w)
        return PlayResult((move % w, move // w), info)

    # -- threat solver --------------------------------------------------------------------
    def _table(self):
        from ..search.threats import new_threat_table
        if self._threat_table is None:
            self._threat_table = new_threat_table(16)
        return self._threat_table

    def _vcf(self, board) -> Optional[int]:
        """Flat cell of the first move of a VCF for the mover, if the solver finds one."""
        from ..search.threats import solve
        if board.move_count < 6:
            return None
        return _first_cell(board, solve(board.copy().state, "vcf", node_limit=VCF_NODES, tt=self._table()))

    def _vct(self, board, nodes: int) -> Optional[int]:
        """Flat cell of the first move of a df-pn VCT for the mover, if one is proven in `nodes`."""
        from ..search.dfpn import new_dfpn_table, solve_vct
        if board.move_count < 6:
            return None
        if self._dfpn_table is None:
            self._dfpn_table = new_dfpn_table(16)
        return _first_cell(board, solve_vct(board.copy().state, node_limit=nodes, tab=self._dfpn_table))

    def _avoid_forced_loss(self, board, res, vct_nodes: int) -> int:
        """The most visited of the first few candidates after which the opponent has neither a
        VCF nor a VCT; the search's choice when every one of them loses by force."""
        order = np.argsort(-res.visits, kind="stable")[:VETO_CANDIDATES]
        w = board.width
        for cell in order:
            if res.visits[cell] <= 0:
                break
            after = board.copy()
            after.play(int(cell) % w, int(cell) // w)
            if after.game_over or (self._vcf(after) is None and self._vct(after, vct_nodes) is None):
                return int(cell)
        return res.move

    def close(self) -> None:
        self._mcts = None
        self._threat_table = None
        self._dfpn_table = None


def _first_cell(board, proof) -> Optional[int]:
    """Flat cell of a solver's first winning move (a ThreatResult), None without a proven line."""
    if not proof.win or not proof.pv:
        return None
    x, y = board.coords(proof.pv[0])
    return y * board.width + x
