"""What `gomoku train`'s view says: who plays the self-play games, how many workers the run
really starts, and a terminal that keeps the panel's frames whole at Ctrl-C."""
from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from gomoku.train.config import RunConfig
from gomoku.train.selfplay_stage import SelfPlay
from gomoku.train.view import keep_output_at_ctrl_c, restore_terminal, workers_label


def test_the_selfplay_phase_says_who_plays_not_selfplay_twice():
    stage = SelfPlay(SimpleNamespace(cfg=SimpleNamespace(bootstrap_nodes=2000)), view=None)  # type: ignore[arg-type]
    assert stage.players_text("selfplay", {"playouts": 400}) == "the best net's MCTS at 400 playouts"
    assert stage.players_text("classical", {"playouts": 400}) == "the classical engine at 2,000 nodes"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity call here")
def test_a_process_pinned_to_one_core_starts_one_worker():
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})
        cfg = RunConfig(width=6, height=6)
        assert cfg.worker_count() == 1 and workers_label(cfg) == "1 worker"
    finally:
        os.sched_setaffinity(0, before)


def test_the_panel_keeps_its_output_and_no_echo_at_ctrl_c_then_restores_the_terminal():
    termios = pytest.importorskip("termios")
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as stream:
            lflag = termios.tcgetattr(slave)[3]
            kept = keep_output_at_ctrl_c(stream)
            assert kept is not None
            now = termios.tcgetattr(slave)[3]
            assert now & termios.NOFLSH and not now & termios.ECHOCTL
            restore_terminal(*kept)
            assert termios.tcgetattr(slave)[3] == lflag
        with open(os.devnull, "w") as null:
            assert keep_output_at_ctrl_c(null) is None          # not a terminal: nothing changed
    finally:
        os.close(master)
        os.close(slave)
