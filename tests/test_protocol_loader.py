"""The brain's engine loader: usable before its warm-up is over, warm-up one step at a time."""
from __future__ import annotations

import threading

from gomoku.protocol import engine_loader
from gomoku.protocol.engine_loader import EngineLoader


def test_ready_before_the_warm_up_ends_and_a_move_goes_before_the_next_step(monkeypatch):
    in_second = threading.Event()
    release = threading.Event()
    done = []

    def steps():
        done.append("one")
        yield "one"
        in_second.set()
        release.wait(30)
        done.append("two")
        yield "two"
        done.append("three")
        yield "three"

    monkeypatch.setattr(engine_loader, "warm_steps", steps)
    monkeypatch.setattr("gomoku.engine.base.numba_cache.cache_is_warm", lambda *a, **k: True)
    loader = EngineLoader(warmup=True).start()
    assert loader.wait(60)                       # usable ...
    assert in_second.wait(30)
    assert not loader.warmed.is_set()            # ... while the warm-up still runs
    threading.Timer(0.2, release.set).start()
    # a move asked for during a step gets the engine when that step ends, before the next one
    assert loader.acquire(30)
    held_at = list(done)
    loader.release()
    assert held_at == ["one", "two"]
    assert loader.warmed.wait(30) and loader.finished.is_set()
    assert done == ["one", "two", "three"]


def test_wait_returns_false_on_timeout_while_loading(monkeypatch):
    loader = EngineLoader(warmup=False)           # never started: nothing becomes ready
    assert loader.wait(0.05) is False
    assert loader.wait(0) is False


def test_mark_warm_makes_a_cache_with_older_indexes_count_as_warm(tmp_path, monkeypatch):
    """A source restored with the same contents (git revert) is newer than the indexes numba
    goes on using: after a warm-up the brain's check must agree with numba."""
    import os

    from gomoku.engine.base import numba_cache
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    src = tmp_path / "engine"
    (src / "__pycache__").mkdir(parents=True)
    (src / "core.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f():\n    return 1\n")
    index = src / "__pycache__" / "core.f-3.py311.nbi"
    index.write_bytes(b"")
    other = src / "__pycache__" / "unrelated.g-1.py311.nbi"
    other.write_bytes(b"")
    os.utime(index, (1000, 1000))
    os.utime(other, (1000, 1000))
    assert not numba_cache.cache_is_warm(src)
    numba_cache.mark_warm(src)
    assert numba_cache.cache_is_warm(src)
    assert os.stat(other).st_mtime == 1000          # only the folder's own modules' indexes


def test_a_move_asked_for_while_loading_goes_before_the_first_warm_up_step(monkeypatch):
    """A move asked for right after START waits for the engine as a move: once the engine is
    usable it gets it before any warm-up step (a step takes a few hundred ms on a busy machine,
    which used to push that move past its soft deadline to the watchdog's cheap answer)."""
    done = []

    def steps():
        done.append("one")
        yield "one"
        done.append("two")
        yield "two"

    monkeypatch.setattr(engine_loader, "warm_steps", steps)
    monkeypatch.setattr("gomoku.engine.base.numba_cache.cache_is_warm", lambda *a, **k: True)
    loader = EngineLoader(warmup=True)
    got = []

    def move() -> None:
        ok = loader.acquire(60)
        got.append((ok, loader.ready.is_set(), list(done)))
        if ok:
            threading.Event().wait(0.2)      # the warm-up must not start while we hold it
            got.append(list(done))
            loader.release()

    t = threading.Thread(target=move)
    t.start()
    threading.Event().wait(0.05)             # the move is waiting before loading starts
    loader.start()
    t.join(60)
    assert got[0] == (True, True, [])
    assert got[1] == []
    assert loader.warmed.wait(30)
    assert done == ["one", "two"]


def test_acquire_gives_up_when_the_engine_is_not_ready_in_time():
    loader = EngineLoader(warmup=False)           # never started
    assert loader.acquire(1.0, ready_timeout=0.05) is False
    assert loader._want == 0


def test_a_module_of_inlined_functions_only_needs_no_index_of_its_own(tmp_path, monkeypatch):
    """numba compiles inline="always" functions into their callers and writes no index file for
    their module: such a module must not make the cache look cold for ever (the brain would
    compile in a child and play fallback moves at every start)."""
    from gomoku.engine.base import numba_cache
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    src = tmp_path / "engine"
    (src / "__pycache__").mkdir(parents=True)
    (src / "core.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f():\n    return 1\n")
    (src / "tables.py").write_text('from numba import njit\n\n@njit(cache=True, inline="always")\ndef g():\n'
                                   '    return 1\n')
    (src / "__pycache__" / "core.f-3.py311.nbi").write_bytes(b"")
    assert numba_cache.cache_is_warm(src)
    (src / "tables.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef g():\n    return 1\n")
    assert not numba_cache.cache_is_warm(src)       # a function with a file of its own: needed
