"""The serial group's scheduler (serial_group): one worker gets every serial test, first, and
the others get the rest a test at a time. Driven on xdist's own scheduler with stand-in
worker nodes, the way xdist tests its schedulers."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("xdist")

import serial_group  # noqa: E402


class _Node:
    """What the scheduler sees of a worker: the indexes it is sent, and a shutdown flag."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent += indexes

    def shutdown(self) -> None:
        self.shutting_down = True


def _config(tmp_path: Path, dist: str = "load") -> Any:
    values = {"dist": dist, "tx": ["2*popen"]}
    return SimpleNamespace(getvalue=values.__getitem__, option=SimpleNamespace(loadscopereorder=True),
                           _tmp_path_factory=SimpleNamespace(getbasetemp=lambda: tmp_path))


COLLECTION = [f"tests/test_a.py::test_{i}" for i in range(6)] + \
    ["tests/test_b.py::test_slow_start", "tests/test_b.py::test_ctrl_c"] + \
    [f"tests/test_c.py::test_{i}" for i in range(6)]
SERIAL = {"tests/test_b.py::test_slow_start", "tests/test_b.py::test_ctrl_c", "tests/test_a.py::test_5"}


def _schedule(tmp_path: Path, serial: set[str]) -> tuple[_Node, _Node]:
    worker_dir = tmp_path / "popen-gw0"
    worker_dir.mkdir()
    config = _config(tmp_path)
    worker_config = SimpleNamespace(_tmp_path_factory=SimpleNamespace(getbasetemp=lambda: worker_dir))
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_XDIST_WORKER", "gw0")
    try:
        serial_group.write_serial_ids(worker_config, serial)
    finally:
        mp.undo()
    sched = serial_group.make_scheduler(config, None)
    first, second = _Node("gw0"), _Node("gw1")
    for node in (first, second):
        sched.add_node(node)
        sched.add_node_collection(node, COLLECTION)
    sched.schedule()
    return first, second


def test_the_serial_tests_go_to_one_worker_first_and_nowhere_else(tmp_path: Path) -> None:
    first, second = _schedule(tmp_path, SERIAL)
    serial_indexes = sorted(COLLECTION.index(n) for n in SERIAL)
    assert sorted(first.sent) == serial_indexes          # the group, as one unit, handed out first
    assert len(second.sent) == 2                         # the rest: a test at a time, two ahead
    assert not set(second.sent) & set(serial_indexes)


def test_without_serial_ids_every_test_is_a_unit_of_its_own(tmp_path: Path) -> None:
    first, second = _schedule(tmp_path, set())
    assert len(first.sent) == len(second.sent) == 2


def test_another_dist_mode_keeps_its_own_scheduler(tmp_path: Path) -> None:
    assert serial_group.make_scheduler(_config(tmp_path, dist="loadfile"), None) is None
