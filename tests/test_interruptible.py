"""tools.interruptible and engine.interrupt, in child processes (the handler and the
process-wide Ctrl-C flag it sets must not touch the test process): a solver's ctrl registered
with engine.interrupt.stopping is stopped by the signal itself."""
from __future__ import annotations

import sys

import pytest

from conftest import ctrl_c_at

# a VCT with no node limit on an open position (depth 6 alone took 11 s), on the main thread,
# its ctrl registered; "ready" comes from a second thread once the jitted solver has counted
# nodes, so the signal lands inside it: it returns as soon as the signal's thread sets the slot
SOLVER = """
import threading, time
from gomoku.engine.game.board import Board
from gomoku.engine.interrupt import stopping
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
def test_ctrl_c_stops_a_registered_solver_at_once():
    r = ctrl_c_at([sys.executable, "-c", SOLVER], "ready", seconds=120)
    assert r.code == 130, r.out
    assert "stopped" in r.out and "returned" not in r.out and "did not stop" not in r.out, r.out
    assert r.after < 1.0, f"{r.after:.2f} s"
