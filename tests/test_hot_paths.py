"""The per-node functions compile without numba's reference counting (see engine/game/core.py's
docstring: it cost 31 % of the search's time). Losing the flag in a refactor changes no
result, only the speed, so nothing else would notice."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from gomoku.engine.game import core
from gomoku.engine.search import dfpn, learned, ordering, pvs, threats

HOT = [core.make_move, core.undo_move, core.is_forbidden_at, threats.vcf, threats.vct, threats._vct, dfpn._mid,
       dfpn.dfpn, dfpn.proof_line, pvs.pvs, pvs.root_search, pvs.root_moves,
       pvs.refutes_vcf, learned.mix_rebuild,
       # called, not inlined, from the functions above: a callee compiled first from Python
       # would otherwise keep the runtime in the cache
       ordering.gen_moves, threats.block_fives, threats._has_real_threat, dfpn._gen, learned.mix_sync,
       learned.mix_make, learned.mix_undo, learned.mix_score, learned.mix_policy, learned.mix_logits]


@pytest.mark.parametrize("fn", HOT, ids=lambda f: f"{f.py_func.__module__}.{f.__name__}")
def test_hot_function_runs_without_refcounting(fn) -> None:
    assert fn.targetoptions.get("_nrt") is False


_LEAK_CHECK = """
from numba.core.runtime import rtsys
from gomoku.engine.search import alphabeta
from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import parse_rule
b = Board.from_moves(15, [(7, 7), (7, 6), (8, 8), (6, 6), (9, 6), (8, 7)], rule=parse_rule("renju"))
alphabeta.search(b.state, max_depth=3)
s0 = rtsys.get_allocation_stats()
alphabeta.search(b.state, max_depth=8)
s1 = rtsys.get_allocation_stats()
print(s1.alloc - s0.alloc, (s1.alloc - s1.free) - (s0.alloc - s0.free))
"""


@pytest.mark.process
def test_a_search_over_the_hot_paths_allocates_nothing() -> None:
    """Without the runtime, an array allocated in a hot function would never be freed (and
    would not compile: see the cold-cache test below). A renju search, foul
    checks included, allocates nothing through the runtime. NRT statistics have to be on
    before numba loads, hence the child process."""
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    out = subprocess.run([sys.executable, "-c", _LEAK_CHECK], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout.split()
    allocated, live_growth = int(out[0]), int(out[1])
    assert allocated == 0
    assert live_growth == 0


_SEARCH_FIRST = """
from gomoku.engine.search import alphabeta
from gomoku.engine.game.board import Board
b = Board.from_moves(15, [(7, 7), (7, 6), (8, 8)])
print(alphabeta.search(b.state, max_depth=2).move)
"""


class ColdSearchCompile:
    """A child that compiles a search first on an empty numba cache of its own.

    It is the serial group's longest test (a whole cold compile on one core) and has nothing to
    time, so conftest starts it when the serial group starts (`start_cold_compile`) and the test,
    the group's last, collects the result; alone, the test starts it itself."""

    def __init__(self) -> None:
        self.cache = tempfile.mkdtemp(prefix="cold-numba-")
        # LLVM's optimisation level changes neither typing nor lowering, where these failures
        # arise (and linking, where an unresolved symbol would): level 1 spares about a fifth of
        # the compile (`NUMBA_OPT=1 gomoku bench --compile`: 123 s of CPU against 150)
        env = dict(os.environ, NUMBA_CACHE_DIR=self.cache, NUMBA_OPT="1")
        self.proc = subprocess.Popen([sys.executable, "-c", _SEARCH_FIRST], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def result(self, timeout: float) -> tuple[int, str, str]:
        """(exit status, stdout, stderr) once the child ends; its cache is removed."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        finally:
            self.stop()
        return self.proc.returncode, out, err

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.cache, ignore_errors=True)


_STARTED: list[ColdSearchCompile] = []


def start_cold_compile() -> None:
    """Start the cold compile ahead of its test (once)."""
    if not _STARTED:
        _STARTED.append(ColdSearchCompile())


def stop_cold_compile() -> None:
    """End a child whose test did not run (the session was cut short)."""
    while _STARTED:
        _STARTED.pop().stop()


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.timeout(1200)      # a whole cold compile: about 90 s quiet, over 300 s on a loaded machine
def test_search_compiles_first_on_a_cold_cache() -> None:
    """A callee compiled from inside a function without the runtime inherits that, and an
    allocation in it fails to compile (TypingError). The renju foul check once allocated a
    line buffer: a cold cache whose first compile was a search (`gomoku bench` did that)
    crashed, while any path that compiled the board core first hid it."""
    child = _STARTED.pop() if _STARTED else ColdSearchCompile()
    code, out, err = child.result(timeout=900)
    assert code == 0, err[-2000:]
    assert int(out.split()[-1]) >= 0
