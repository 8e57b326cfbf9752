"""Loads the numba-backed engine in a background thread, so the brain answers at once.

Importing numba and loading (or, with a cold cache, compiling) the board and search costs from
half a second to a minute. The brain starts this loader before reading its first line; ABOUT and
START are answered meanwhile, and moves fall back to a cheap legal move until `ready` is set.

`ready` is set as soon as the engine is imported and its board works (about 0.3 s with a warm
cache); the warm-up (every rule, the threat solvers, one tiny search) runs afterwards, one step
at a time under `lock`, so a move asked for meanwhile waits for one step, not the whole of it.
GomocupJudge starts a brain for every game, c-gomoku-cli one per worker, and both may ask for a
move right after START: with the warm-up ahead of `ready` (0.8-1 s on a loaded 2-core machine),
that move was the watchdog's cheap move at 1 s/move (seen in the first game of each
c-gomoku-cli worker against PentaZen). A search started before the warm-up finished loads what
it needs from numba's cache on first use (a search of 0.3 s still reaches depth 12).
"""
from __future__ import annotations

import os
import threading
import time
import traceback
from typing import Any, Iterator, Optional


class EngineLoader:
    """Holds the engine modules once loaded: `board_mod` (Board, IllegalMove) and `think`."""

    def __init__(self, warmup: bool = True, net: Optional[str] = None, evaluator: Optional[str] = None) -> None:
        self.board_ready = threading.Event()   # Board usable (forbidden checks for fallbacks)
        self.ready = threading.Event()         # think() usable (the warm-up may still run)
        self.warmed = threading.Event()        # warm-up done: nothing left to load
        self.finished = threading.Event()      # loading ended, with success or failure
        self.failed: Optional[str] = None
        self.load_seconds: Optional[float] = None
        self.Board: Any = None
        self.IllegalMove: type[BaseException] = Exception
        self.think: Any = None
        self._thinker: Any = None
        self.quick_move: Any = None
        self.Limit: Any = None
        self._warmup = warmup
        # a policy-value net for MCTS (`--net FILE` / GOMOKU_NET); the classical search otherwise
        self.net_path = net if net is not None else (os.environ.get("GOMOKU_NET") or None)
        # a learned evaluator for the alpha-beta (`--eval FILE` / GOMOKU_EVAL) under its rule
        self.eval_path = evaluator if evaluator is not None else (os.environ.get("GOMOKU_EVAL") or None)
        self.searcher: Any = None              # says which searcher plays a board (ABOUT, MESSAGE)
        # the net's onnxruntime threads (INFO thread_num); may come before the net is loaded
        self.threads = 1
        self._threads_lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self.lock = threading.Lock()           # one think() at a time (warm-up included)
        self._want = 0                         # moves waiting for or holding `lock`
        # guards _want; notified when _want drops to 0, when `ready` is set and when loading ends
        self._changed = threading.Condition()

    def start(self) -> "EngineLoader":
        self._thread = threading.Thread(target=self._load, name="engine-loader", daemon=True)
        self._thread.start()
        return self

    def _load(self) -> None:
        t0 = time.monotonic()
        try:
            from gomoku.engine import numba_cache
            if self._warmup and not numba_cache.cache_is_warm():
                print("numba cache looks cold: compiling in a child process")
                ok = numba_cache.compile_in_child()
                print(f"child compile {'done' if ok else 'FAILED'} after {time.monotonic() - t0:.1f} s")
            from gomoku.engine.game import board as board_mod
            from gomoku.engine.limits import Limit
            self.Board = board_mod.Board
            self.IllegalMove = board_mod.IllegalMove
            self.Limit = Limit
            b = self.Board(15)
            b.play(7, 7)
            b.is_forbidden(8, 8)
            self.board_ready.set()
            from gomoku.engine import agent
            self._thinker = agent.Thinker(learned=self._learned())   # the brain is one player: its state
            self.think = self._thinker.think
            if self.net_path:
                try:
                    thinker = agent.NetThinker(self.net_path, threads=self.threads)
                    with self._threads_lock:     # an INFO thread_num read while the net loaded
                        thinker.set_threads(self.threads)
                        self._thinker = thinker
                    self.think, self.searcher = thinker, thinker.searcher
                    print(f"net loaded: {self.net_path} ({thinker.net.info.summary()}; "
                          f"onnxruntime threads: {thinker.net.threads})")
                except Exception as exc:  # noqa: BLE001 - a bad net must not cost the classical engine
                    print(f"net not used ({exc}); playing with the classical engine")
            self.quick_move = getattr(agent, "quick_move", None)
            self.load_seconds = time.monotonic() - t0
            print(f"engine ready after {self.load_seconds:.2f} s")
            self._announce(self.ready)
            if self._warmup:
                steps = warm_steps()
                while True:
                    with self._changed:       # a move asked for goes first ...
                        self._changed.wait_for(lambda: self._want == 0)
                    with self.lock:           # ... and one in progress finishes first
                        if next(steps, None) is None:
                            break
                print(f"engine warmed up after {time.monotonic() - t0:.2f} s")
            self.warmed.set()
        except BaseException as exc:  # noqa: BLE001 - any failure means: play fallback moves
            self.failed = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()     # goes to the brain's log, never to the manager
        finally:
            self._announce(self.finished)

    def _learned(self) -> dict:
        """The learned evaluator by rule id, or {} (a file that does not load is logged and the
        tables play: the brain must answer whatever happens)."""
        if not self.eval_path:
            return {}
        from gomoku.engine.search.learned_file import EvalFileError, load_evaluator
        try:
            ev = load_evaluator(self.eval_path)
        except EvalFileError as exc:
            print(f"evaluator not used ({exc}); playing with the tables")
            return {}
        print(f"evaluator loaded: {self.eval_path} ({ev.arch}, {ev.rule})")
        return {ev.rule_id: ev}

    def _announce(self, event: threading.Event) -> None:
        """Set `event` and wake whoever waits in `wait` for it."""
        event.set()
        with self._changed:
            self._changed.notify_all()

    def describe_searcher(self) -> str:
        """Which searcher plays, for ABOUT, which managers send before START (often before the
        net has loaded): the loaded net's coverage, or what is being loaded."""
        from gomoku.engine.limits import CLASSICAL_SEARCHER
        if not self.net_path:
            describe = getattr(self._thinker, "describe", None)
            if describe is not None:
                return describe()
            return CLASSICAL_SEARCHER if not self.eval_path else \
                f"alpha-beta + VCF/VCT, learned evaluator {os.path.basename(self.eval_path)} (loading)"
        if not self.ready.is_set() and not self.finished.is_set():
            return f"net {os.path.basename(self.net_path)} + MCTS (loading), {CLASSICAL_SEARCHER} where it does not apply"
        describe = getattr(self._thinker, "describe", None)
        return describe() if describe is not None else f"{CLASSICAL_SEARCHER} (the net did not load)"

    def set_threads(self, threads: int) -> None:
        """The protocol's `INFO thread_num`: how many threads the net may use. The classical
        search is single-threaded and ignores it; a net brain passes it to its NetThinker (now,
        or when the net is loaded), which rebuilds the net's session before its next search."""
        with self._threads_lock:
            self.threads = threads
            setter = getattr(self._thinker, "set_threads", None)
            if setter is not None:
                kept = setter(threads)
                print(f"net threads: {kept} (asked for {threads}), from the next searched move")

    def forget(self) -> None:
        """Drop what the search learnt (its TT, kept from one move to the next); nothing to do
        before the engine is loaded. A search running now keeps its tables to the end."""
        if self._thinker is not None:
            self._thinker.forget()

    def acquire(self, timeout: float, ready_timeout: Optional[float] = None) -> bool:
        """Take the engine for a move (False after `timeout` seconds): the warm-up steps aside
        at its next step. A plain lock would not do: the warm-up thread takes it back the
        moment it lets go, so a waiting move got it only once the whole warm-up was over.

        The move counts as waiting from this call on, also while the engine is still loading
        (it waits up to `ready_timeout`, default `timeout`, for `ready`): a move asked for
        right after START must go before the first warm-up step. Waiting for `ready` first
        and registering afterwards lost that race under load, as the loader thread went on
        into a warm-up step (a few hundred ms on a busy machine) before the move registered,
        and the move fell back to the watchdog's cheap answer."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._changed:
            self._want += 1
        ready_by = deadline if ready_timeout is None else \
            min(deadline, time.monotonic() + max(0.0, ready_timeout))
        if self.wait(ready_by - time.monotonic()) and \
                self.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            return True
        self._unwant()
        return False

    def release(self) -> None:
        """Give the engine back after `acquire`."""
        self.lock.release()
        self._unwant()

    def _unwant(self) -> None:
        with self._changed:
            self._want -= 1
            if self._want == 0:
                self._changed.notify_all()

    def wait(self, timeout: Optional[float]) -> bool:
        """Wait until think() is usable; False on timeout, or at once if loading failed."""
        with self._changed:
            self._changed.wait_for(lambda: self.ready.is_set() or self.finished.is_set(),
                                   None if timeout is None else max(0.0, timeout))
        return self.ready.is_set()


def warm_steps() -> Iterator[str]:
    """The engine's warm-up, one step per `next` (see gomoku.engine.warmup.warm_steps)."""
    from gomoku.engine.warmup import warm_steps as engine_steps
    yield from engine_steps()
