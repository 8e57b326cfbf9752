"""Compile (or load from numba's on-disk cache) every jitted function the engine uses.

Numba compiles on first call; a cold compile takes ~10-20 s and ~280 MB, which a brain
cannot afford during a timed move. `gomoku warmup` (run once after install) and the test
session call `warm_up()` so later processes only load the cache (well under a second).
Each call below uses the same argument types as the real callers, so the cached
signatures are the ones that will be looked up.
"""
from __future__ import annotations

import importlib
import time
from typing import Callable, Iterator, Optional

from gomoku.engine.game.rules import Rule

# extra warm-up hooks registered by other engine modules (search, threats, mcts ...):
# module path -> function name; each is called with no arguments.
EXTRA_HOOKS = [
    ("gomoku.engine.search.alphabeta", "warm_up"),
    ("gomoku.engine.search.threats", "warm_up"),
    ("gomoku.engine.search.dfpn", "warm_up"),
    ("gomoku.engine.mcts.search", "warm_up"),
]


def warm_up(progress: Optional[Callable[[str], None]] = None) -> float:
    """Exercise the core on every rule; returns the seconds it took."""
    t0 = time.perf_counter()
    say = progress or (lambda _msg: None)
    for label in warm_up_steps():
        say(label)
    return time.perf_counter() - t0


def warm_steps() -> Iterator[str]:
    """Load (or compile) every numba function, one step per `next`: the warm-up over all
    rules, then two short searches through the agent, so no later move pays a cache load or
    a compile. The brain runs these between moves."""
    import threading

    from gomoku.engine import agent
    from gomoku.engine.game.board import Board
    from gomoku.engine.limits import Limit
    yield from warm_up_steps()
    b = Board(15)
    for m in ((7, 7), (8, 8), (8, 7)):
        b.play(*m)
    stop = threading.Event()
    agent.think(b, Limit(turn_time=0), stop)
    yield "think"
    agent.think(b, Limit(turn_time=0.05, depth=2), stop)
    yield "short search"


def warm_all() -> None:
    """Every warm-up step at once, then mark the cache warm. This is what the brain's compile
    child runs when it finds the cache cold (see numba_cache)."""
    from gomoku.engine.numba_cache import mark_warm
    for _ in warm_steps():
        pass
    mark_warm()


def warm_up_steps() -> Iterator[str]:
    """The warm-up one piece at a time (a rule's board core, a module's hook), yielding the
    label of what was just done: the brain runs the steps between moves, so a move asked for
    during the warm-up waits for one step only."""
    from gomoku.engine.agent import quick_move, think
    from gomoku.engine.game.board import Board
    from gomoku.engine.limits import Limit

    for rule in Rule:
        b = Board(15, rule=rule)
        for mv in [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9), (9, 9)]:
            b.play(*mv)
        b.legal_moves()
        b.is_forbidden(7, 10)
        b.forbidden_points()
        quick_move(b)
        think(b, Limit(turn_time=0))
        b.undo()
        b.copy()
        Board(6, rule=rule).play(2, 2)
        yield f"board core ({rule.label})"
    import numpy as np
    from gomoku.engine.game import core
    core.random_playouts(Board(9).state, np.int64(1), np.int64(0))
    yield "playouts"
    for module, name in EXTRA_HOOKS:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        hook = getattr(mod, name, None)
        if hook is not None:
            hook()
            yield module.rsplit(".", 1)[-1]
