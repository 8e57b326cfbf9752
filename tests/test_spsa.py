"""SPSA: its schedules and update on numbers you can check by hand, and `gomoku tune --spsa`
continuing after kill -9 to the same result as a run never stopped."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gomoku.engine.search.params import BY_NAME, DEFAULT
from gomoku.engine.search.spsa import ALPHA, GAMMA, SpsaState


def test_the_perturbation_ends_at_the_tables_step_and_the_gain_at_r_end():
    st = SpsaState.new(["rfp_margin", "lmr_div"], iterations=100, r_end=0.002)
    step = BY_NAME["rfp_margin"].step
    assert st.c(100)["rfp_margin"] == pytest.approx(step)
    assert st.c(1)["rfp_margin"] == pytest.approx(step * 100 ** GAMMA)
    assert st.a(100)["rfp_margin"] / st.c(100)["rfp_margin"] ** 2 == pytest.approx(0.002)
    assert st.a(1)["rfp_margin"] == pytest.approx(0.002 * step ** 2 * (110 / 11) ** ALPHA)


def test_a_won_iteration_moves_theta_along_its_signs_by_a_over_c():
    st = SpsaState.new(["rfp_margin", "lmr_div"], iterations=10, seed=3)
    signs, a, c = st.signs(1), st.a(1), st.c(1)
    plus, minus = st.perturbed()
    # integers are rounded, reals kept; the two sides straddle theta
    assert plus["rfp_margin"] == round(120 + c["rfp_margin"] * signs["rfp_margin"])
    assert plus["lmr_div"] == pytest.approx(2.0 + c["lmr_div"] * signs["lmr_div"])
    assert minus["lmr_div"] == pytest.approx(2.0 - c["lmr_div"] * signs["lmr_div"])
    st.update(wins=2, losses=0, draws=0)
    for n, start in (("rfp_margin", 120.0), ("lmr_div", 2.0)):
        assert st.theta[n] == pytest.approx(start + a[n] / c[n] * 2 * signs[n])
    assert (st.k, st.wins, st.losses) == (1, 2, 0)
    # the directions depend on (seed, k) alone: a resumed run draws the same ones
    assert SpsaState.new(["rfp_margin", "lmr_div"], 10, seed=3).signs(1) == signs


def test_theta_stays_in_range_and_a_switch_or_unknown_name_is_one_line():
    st = SpsaState.new(["lmr_min_moves"], iterations=1, r_end=100.0)      # a huge gain
    # a result against the sign: theta falls by far more than its range
    st.update(*((0, 2, 0) if st.signs(1)["lmr_min_moves"] > 0 else (2, 0, 0)))
    assert st.theta["lmr_min_moves"] == BY_NAME["lmr_min_moves"].lo
    with pytest.raises(ValueError, match="switch"):
        SpsaState.new(["lmr"], 10)
    with pytest.raises(ValueError, match="unknown search parameter 'nope'"):
        SpsaState.new(["nope"], 10)
    again = SpsaState.from_json(json.loads(json.dumps(st.to_json())))
    assert again.to_json() == st.to_json()
    assert DEFAULT.replace(**again.values())["lmr_min_moves"] == 1


def _tune(folder: Path, iterations: int) -> list[str]:
    return [sys.executable, "-m", "gomoku.tools.cli", "tune", "--spsa", "lmr_div,futility_1", "--dir", str(folder),
            "--iterations", str(iterations), "--nodes", "400", "-c", "1", "--seed", "5", "--no-progress",
            "--plot-every", "0"]


def _state_k(folder: Path) -> int:
    try:
        return int(json.loads((folder / "state.json").read_text())["k"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow
@pytest.mark.process
def test_a_run_killed_with_sigkill_continues_to_the_result_of_one_never_stopped(tmp_path):
    """At fixed nodes the games are deterministic, so the run that was killed and continued
    must leave exactly the history and parameters of the one that ran through."""
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    r = subprocess.run(_tune(whole, 6), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    proc = subprocess.Popen(_tune(killed, 6), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while _state_k(killed) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 2 <= _state_k(killed) < 6
    r = subprocess.run(_tune(killed, 6), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "continuing" in r.stdout and "6 of 6 iterations" in r.stdout
    assert (killed / "history.csv").read_text() == (whole / "history.csv").read_text()
    assert json.loads((killed / "params.json").read_text()) == json.loads((whole / "params.json").read_text())
    assert (killed / "paths.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # other options than the run's are refused, not mixed into it
    r = subprocess.run(_tune(killed, 7), capture_output=True, text=True, timeout=600)
    assert r.returncode != 0 and "holds a run with other iterations" in r.stderr
