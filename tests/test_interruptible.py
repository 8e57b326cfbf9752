"""tools.interruptible's last resorts, in child processes (the handler and the process-wide
Ctrl-C flag it sets must not touch the test process): a main thread stuck in a C call that
never looks at signals is ended GRACE_S after Ctrl-C, a second Ctrl-C ends a process at once,
and a solver's ctrl registered with engine.base.interrupt.stopping is stopped by the signal itself."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import CTRL_C_MARGIN_S, ctrl_c_at, popen_with_sigint_ignored
from gomoku.tools.interruptible import GRACE_S

# hashlib's PBKDF2 runs in OpenSSL with the GIL released and checks no signal: a stand-in for
# a compiled call nothing stops (a compile step, a search without a stop), minutes long here.
# "ready" comes from a second thread once the main thread's frame stands on the CALL of it, so
# the signal cannot land before the call (where the handler would run at once)
STUCK = """
import dis, hashlib, sys, threading, time
from gomoku.tools.interruptible import install

def stuck():
    hashlib.pbkdf2_hmac("sha256", b"x", b"y", 500_000_000)

def announce(main):
    call = max(i.offset for i in dis.get_instructions(stuck) if i.opname == "CALL")
    while True:
        frame = sys._current_frames().get(main)
        if frame is not None and frame.f_code is stuck.__code__ and frame.f_lasti == call:
            print("ready", flush=True)
            return
        time.sleep(0.001)

install()
threading.Thread(target=announce, args=(threading.get_ident(),), daemon=True).start()
stuck()
print("returned", flush=True)
"""

# a clean-up that never ends: only a second Ctrl-C gets the process out
HANGS = """
import time
from gomoku.tools.interruptible import install
install()
try:
    print("ready", flush=True)
    time.sleep(600)
except KeyboardInterrupt:
    print("cleaning up", flush=True)
    time.sleep(600)
"""

# a VCT with no node limit on an open position (depth 6 alone took 11 s), on the main thread,
# its ctrl registered; "ready" comes from a second thread once the jitted solver has counted
# nodes, so the signal lands inside it: it returns as soon as the signal's thread sets the slot
SOLVER = """
import threading, time
from gomoku.engine.game.board import Board
from gomoku.engine.base.interrupt import stopping
from gomoku.engine.search import threats
from gomoku.tools.interruptible import install

def announce(ctrl):
    while ctrl[threats.C_NODES] < 10_000:
        time.sleep(0.001)
    print("ready", flush=True)

install()
b = Board.from_moves(15, [(7, 7), (7, 8), (8, 7), (6, 8), (9, 9), (8, 9)])
threats.solve(b.state, "vct", depth=3)                  # loads the cache before the timed part
ctrl = threats.new_ctrl(0)
threading.Thread(target=announce, args=(ctrl,), daemon=True).start()
try:
    with stopping(ctrl, threats.C_STOP):
        threats.solve(b.state, "vct", depth=40, vcf_depth=40, ctrl=ctrl)
    print("returned", flush=True)
except KeyboardInterrupt:
    print("stopped after", int(ctrl[threats.C_NODES]), "nodes", flush=True)
    raise SystemExit(130)
"""


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_a_main_thread_stuck_in_c_is_ended_after_the_grace():
    r = ctrl_c_at([sys.executable, "-c", STUCK], "ready", seconds=60)
    assert r.code == 130, r.out
    assert f"interrupted: the main thread did not stop within {GRACE_S:g} s, exiting now" in r.out
    assert "returned" not in r.out and "Traceback" not in r.out
    assert GRACE_S <= r.after < GRACE_S + CTRL_C_MARGIN_S, f"{r.after:.2f} s"


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_a_second_ctrl_c_ends_a_clean_up_that_hangs():
    """The first Ctrl-C was handled (the clean-up runs, so no forced exit after the grace); the
    second one ends the process at once."""
    proc = popen_with_sigint_ignored([sys.executable, "-c", HANGS], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.stdout.readline() == "cleaning up\n"
        # the one wait that is not on a line: that nothing happens for longer than the grace
        time.sleep(GRACE_S + 0.5)
        assert proc.poll() is None
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=30)
        after = time.monotonic() - sent
        rest = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 130 and "interrupted again: exiting now" in rest, rest
    assert after < CTRL_C_MARGIN_S, f"{after:.2f} s"


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_stops_a_registered_solver_at_once():
    r = ctrl_c_at([sys.executable, "-c", SOLVER], "ready", seconds=120)
    assert r.code == 130, r.out
    assert "stopped" in r.out and "returned" not in r.out and "did not stop" not in r.out, r.out
    assert r.after < GRACE_S, f"{r.after:.2f} s"


def test_a_ctrl_c_before_the_search_clears_its_block_still_stops_it(monkeypatch):
    """`gomoku play`'s engine move: the block is registered (`stopping`), Ctrl-C trips, and only
    then does the search clear the block on its way in. The stop must survive the clearing, or
    the move runs to its time limit."""
    from gomoku.engine.base import interrupt
    from gomoku.engine.game.board import Board
    from gomoku.engine.search.alphabeta import Searcher
    from gomoku.engine.search.tables import C_EXTERNAL
    from gomoku.engine.search.threats import C_STOP
    monkeypatch.setattr(interrupt, "CTRL_C", interrupt.threading.Event())
    board = Board.from_moves(15, [(7, 7), (8, 8)])
    searcher = Searcher()
    with interrupt.stopping(searcher.ctx(board.state.cells.shape[0]).ctrl, C_EXTERNAL, C_STOP):
        interrupt.trip()
        t0 = time.monotonic()
        result = searcher.search(board.state, time_limit=20.0)
    assert time.monotonic() - t0 < 2.0 and result.move >= 0
