"""The MCTS part of `gomoku bench`: playouts/s of rollout MCTS and of net + MCTS, and a
net's raw evaluations/s by batch size, on fixed positions.

Rollout playouts/s measures the tree code and the k-in-a-row board (no net); net playouts/s
is what a player gets, bounded by the net's evals/s at the batch the search reaches."""
from __future__ import annotations

import time
from typing import Callable, Optional

import numpy as np

#: empty 8x8 (the seeds' board) and the first classical bench position (15x15)
MCTS_POSITIONS = [(8, []), (15, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)])]


def _moves(size: int, moves: list[tuple[int, int]]) -> list[int]:
    return [y * size + x for x, y in moves]


def _timed_search(label: str, size: int, moves: list[tuple[int, int]], config, evaluator=None) -> str:
    """One search from the position; its playouts/s as a line (and leaves per net call)."""
    from gomoku.engine.mcts.search import MCTS
    m = MCTS(size, size, config=config, evaluator=evaluator, seed=1)
    m.sync(_moves(size, moves))
    t0 = time.perf_counter()
    r = m.search()
    dt = time.perf_counter() - t0
    line = f"mcts {label} {size}x{size}: {r.playouts:,} playouts in {dt * 1000:.0f} ms, {r.playouts / dt:,.0f} playouts/s"
    if evaluator is not None:
        line += f", {r.evals / max(r.batches, 1):.1f} leaves per batch"
    return line


def run_pure(playouts: int, say: Callable[[str], None]) -> None:
    from gomoku.engine.mcts.search import MCTSConfig
    for size, moves in MCTS_POSITIONS:
        say(_timed_search("rollouts", size, moves, MCTSConfig.pure(playouts)))


def run_net(path: str, playouts: int, threads: int, batch: int, say: Callable[[str], None]) -> None:
    from gomoku.engine.mcts.search import MCTSConfig
    from gomoku.engine.net.evaluator import NetEvaluator
    net = NetEvaluator.load(path, threads=threads)
    c = len(net.info.planes)
    for size, moves in MCTS_POSITIONS:
        if size not in net.info.board_sizes and size != 15:
            continue
        rates = []
        for b in (1, 16, 64):
            x = np.zeros((b, c, size, size), np.float32)
            net.evaluate(x)
            n = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 0.5:
                net.evaluate(x)
                n += b
            rates.append(f"batch {b} {n / (time.perf_counter() - t0):,.0f}")
        say(f"net {net.info.arch} {size}x{size} evals/s ({net.provider}, {threads} threads): " + ", ".join(rates))
        say(_timed_search(f"net {net.info.arch}", size, moves, MCTSConfig(playouts=playouts, batch=batch), net))


def run(playouts: int, nets: tuple[str, ...], threads: int, batch: int,
        say: Optional[Callable[[str], None]] = None) -> None:
    say = say or print
    run_pure(playouts, say)
    for path in nets:
        run_net(path, max(200, playouts // 10), threads, batch, say)
