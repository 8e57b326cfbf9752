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

from gomoku.engine.search.blend import blend_words

#: Every game a Piskvork brain plays: two players, five in a row (the rules differ).
BRAIN_PLAYERS = 2
BRAIN_WIN_LENGTH = 5


class EngineLoader:
    """Holds the engine modules once loaded: `board_mod` (Board, IllegalMove) and `think`.

    What it loads is what it is given (the brain passes its parsed options, see
    protocol/options.py): `net`, `evaluator` and its `share` (None: the file's own), and
    `share_problem`, why the environment's share is not used, logged once the evaluator is."""

    def __init__(self, warmup: bool = True, net: Optional[str] = None, evaluator: Optional[str] = None,
                 share: Optional[int] = None, share_problem: Optional[str] = None) -> None:
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
        self.net_path = net or None
        # a learned evaluator for the alpha-beta (`--eval FILE` / GOMOKU_EVAL) under its rule
        self.eval_path = evaluator or None
        # its share of the leaf value (`--share P` / GOMOKU_EVAL_SHARE), None for the file's own
        self.eval_share = share
        self._share_problem = share_problem
        self.searcher: Any = None              # says which searcher plays a board (ABOUT, MESSAGE)
        # what the net and the evaluator are, once loaded (or why they were not): set before
        # `ready`, read by the session to tell the manager when a game is not theirs
        self.net_info: Any = None              # engine.net.metadata.NetInfo of the loaded net
        self.net_unused: Optional[str] = None  # why the named net is not playing at all
        self.evaluator: Any = None             # the LearnedEval loaded from eval_path
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
            from gomoku.engine.base import numba_cache
            if self._warmup and not numba_cache.cache_is_warm():
                print("numba cache looks cold: compiling in a child process")
                ok = numba_cache.compile_in_child()
                print(f"child compile {'done' if ok else 'FAILED'} after {time.monotonic() - t0:.1f} s")
            from gomoku.engine.game import board as board_mod
            from gomoku.engine.base.limits import Limit
            self.Board = board_mod.Board
            self.IllegalMove = board_mod.IllegalMove
            self.Limit = Limit
            b = self.Board(15)
            b.play(7, 7)
            b.is_forbidden(8, 8)
            self.board_ready.set()
            from gomoku.engine.player import agent
            self._thinker = agent.Thinker(learned=self._learned())   # the brain is one player: its state
            self.think = self._thinker.think
            if self.net_path:
                try:
                    thinker = agent.net_thinker(self.net_path, threads=self.threads)
                    with self._threads_lock:     # an INFO thread_num read while the net loaded
                        thinker.set_threads(self.threads)
                        self._thinker = thinker
                    self.think, self.searcher = thinker, thinker.searcher
                    print(f"net loaded: {self.net_path} ({thinker.net.info.summary()}; "
                          f"onnxruntime threads: {thinker.net.threads})")
                    self.net_info = thinker.net.info
                except Exception as exc:  # noqa: BLE001 - a bad net must not cost the classical engine
                    self.net_unused = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
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
        if self._share_problem:
            print(f"{self._share_problem}; the evaluator gives share={ev.share}")
        if self.eval_share is not None:
            ev.share = self.eval_share
        print(f"evaluator loaded: {self.eval_path} ({ev.arch}, {ev.rule}, share={ev.share})")
        self.evaluator = ev
        return {ev.rule_id: ev}

    def _announce(self, event: threading.Event) -> None:
        """Set `event` and wake whoever waits in `wait` for it."""
        event.set()
        with self._changed:
            self._changed.notify_all()

    def describe_searcher(self) -> str:
        """Which searcher plays, for ABOUT, which managers send before START (often before the
        net has loaded): the loaded net's coverage, or what is being loaded."""
        from gomoku.engine.base.limits import CLASSICAL_SEARCHER
        if not self.net_path:
            describe = getattr(self._thinker, "describe", None)
            if describe is not None:
                return describe()
            if not self.eval_path:
                return CLASSICAL_SEARCHER
            blend = blend_words(self.eval_share) if self.eval_share is not None else ""
            return f"alpha-beta + VCF/VCT, learned evaluator {os.path.basename(self.eval_path)}{blend} (loading)"
        if not self.ready.is_set() and not self.finished.is_set():
            return f"net {os.path.basename(self.net_path)} + MCTS (loading), {CLASSICAL_SEARCHER} where it does not apply"
        info = self.net_info
        if info is not None and (info.players != BRAIN_PLAYERS or info.win_length != BRAIN_WIN_LENGTH):
            # the net covers no game a Piskvork brain plays: do not claim its boards
            from gomoku.engine.net.metadata import describe_net
            return (f"{CLASSICAL_SEARCHER}; net {os.path.basename(self.net_path)} not used: "
                    f"{describe_net(info)}")
        describe = getattr(self._thinker, "describe", None)
        return describe() if describe is not None else f"{CLASSICAL_SEARCHER} (the net did not load)"

    def notices(self, width: int, height: int, rule_label: str) -> Optional[list[str]]:
        """What the manager should hear before a move of this game (a `width`x`height` board
        under `rule_label`) about the net or evaluator it named: the net was not loaded or was
        trained for another game, or the evaluator for another rule; each is one line that
        says what the file is, what the game is and who plays instead. [] when all is as
        asked; None while the engine (and so the net) is still loading, when that is not yet
        known. The documented fallback stays: the classical engine plays such games. A
        manager otherwise only sees the searcher's name in later MESSAGE lines (or nothing,
        for an opening move) and cannot tell a misnamed net from a weak one."""
        if not self.net_path and not self.eval_path:
            return []
        if not self.ready.is_set():        # loading, or it failed (the fallback moves play)
            return [] if self.finished.is_set() else None
        out: list[str] = []
        net_plays = False
        if self.net_path:
            name = f"net {os.path.basename(self.net_path)}"
            if self.net_info is None:
                out.append(f"{name} did not load ({self.net_unused or 'unknown error'}): "
                           "playing the classical engine")
            else:
                from gomoku.engine.net.metadata import net_fits_game
                why = net_fits_game(self.net_info, rule_label, width, height, BRAIN_WIN_LENGTH,
                                    BRAIN_PLAYERS, name=name)
                if why is None:
                    net_plays = True
                else:
                    out.append(f"{why}: playing the classical engine")
        ev = self.evaluator
        if ev is not None and not net_plays and ev.rule != rule_label:
            out.append(f"evaluator {os.path.basename(self.eval_path or ev.path)} is a {ev.rule} evaluator "
                       f"({ev.arch}, any board size); this game is {rule_label} {width}x{height}: "
                       "playing the alpha-beta with its tables")
        return out

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
    """The engine's warm-up, one step per `next` (see gomoku.engine.player.warmup.warm_steps)."""
    from gomoku.engine.player.warmup import warm_steps as engine_steps
    yield from engine_steps()
