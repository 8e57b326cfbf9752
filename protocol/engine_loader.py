"""Loads the numba-backed engine in a background thread, so the brain answers at once.

Importing numba and loading (or, with a cold cache, compiling) the board and search costs from
half a second to a minute. The brain starts this loader before reading its first line; ABOUT and
START are answered meanwhile, and moves fall back to a cheap legal move until `ready` is set.
The warm-up also runs one tiny search so the first real move does not pay the cache load.
"""
from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Optional


class EngineLoader:
    """Holds the engine modules once loaded: `board_mod` (Board, IllegalMove) and `think`."""

    def __init__(self, warmup: bool = True) -> None:
        self.board_ready = threading.Event()   # Board usable (forbidden checks for fallbacks)
        self.ready = threading.Event()         # think() usable and warmed up
        self.finished = threading.Event()      # loading ended, with success or failure
        self.failed: Optional[str] = None
        self.load_seconds: Optional[float] = None
        self.Board: Any = None
        self.IllegalMove: type[BaseException] = Exception
        self.think: Any = None
        self.quick_move: Any = None
        self.Limit: Any = None
        self._warmup = warmup
        self._thread: Optional[threading.Thread] = None
        self.lock = threading.Lock()           # one think() at a time (warm-up included)

    def start(self) -> "EngineLoader":
        self._thread = threading.Thread(target=self._load, name="engine-loader", daemon=True)
        self._thread.start()
        return self

    def _load(self) -> None:
        t0 = time.monotonic()
        try:
            from gomoku.protocol import numba_cache
            if self._warmup and not numba_cache.cache_is_warm():
                print("numba cache looks cold: compiling in a child process")
                ok = numba_cache.compile_in_child()
                print(f"child compile {'done' if ok else 'FAILED'} after {time.monotonic() - t0:.1f} s")
            from gomoku.engine import board as board_mod
            from gomoku.engine.limits import Limit
            self.Board = board_mod.Board
            self.IllegalMove = board_mod.IllegalMove
            self.Limit = Limit
            b = self.Board(15)
            b.play(7, 7)
            b.is_forbidden(8, 8)
            self.board_ready.set()
            from gomoku.engine import agent
            self.think = agent.think
            self.quick_move = getattr(agent, "quick_move", None)
            if self._warmup:
                with self.lock:
                    self._warm(agent)
            self.load_seconds = time.monotonic() - t0
            print(f"engine ready after {self.load_seconds:.2f} s")
            self.ready.set()
        except BaseException as exc:  # noqa: BLE001 - any failure means: play fallback moves
            self.failed = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()     # goes to the brain's log, never to the manager
        finally:
            self.finished.set()

    def _warm(self, agent: Any) -> None:
        warm_all()

    def wait(self, timeout: Optional[float]) -> bool:
        """Wait until think() is usable; False on timeout, or at once if loading failed."""
        if timeout is not None and timeout <= 0:
            return self.ready.is_set()
        self.finished.wait(timeout)
        return self.ready.is_set()


def warm_all() -> None:
    """Load (or compile) every numba function: the engine's own warm-up over all rules, then
    one short search, so no timed move pays a cache load or a compile. Also run in a child
    process when the cache is cold (see protocol.numba_cache)."""
    from gomoku.engine import agent
    from gomoku.engine.board import Board
    from gomoku.engine.limits import Limit
    try:
        from gomoku.engine import warmup
        warmup.warm_up()
    except ImportError:
        pass
    b = Board(15)
    for m in ((7, 7), (8, 8), (8, 7)):
        b.play(*m)
    stop = threading.Event()
    agent.think(b, Limit(turn_time=0), stop)
    agent.think(b, Limit(turn_time=0.05, depth=2), stop)
