"""The suite's own shape: few tests start a real process, and those run serially.

Every test that starts a real brain or `gomoku` process is marked `process` (conftest's guard
fails one that is not), and their number is held here: each costs an interpreter start and a
numba cache load, and they run one at a time, so they set how long the suite takes on a busy
machine. The count needs the whole suite collected (README's command, CI); a run of a few files
skips it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import MAX_PROCESS_TESTS, PROCESS_TESTS, _in_serial_group

TESTS = Path(__file__).resolve().parent


def _whole_suite(config: pytest.Config) -> bool:
    """Whether this run collected the whole tests folder (README's command, CI): a test file
    that skips itself (the frozen brain's, without PyInstaller) still counts as collected."""
    return all(Path(arg.split("::")[0]).resolve() == TESTS for arg in config.args)


def test_at_most_forty_tests_start_a_real_process(request: pytest.FixtureRequest) -> None:
    if not _whole_suite(request.config):
        pytest.skip("counts the process tests of the whole suite; run it on the tests folder")
    assert len(PROCESS_TESTS) <= MAX_PROCESS_TESTS, f"{len(PROCESS_TESTS)} process tests:\n" + "\n".join(PROCESS_TESTS)


def test_every_process_test_is_in_the_serial_group(request: pytest.FixtureRequest) -> None:
    marked = [item for item in request.session.items if item.get_closest_marker("process") is not None]
    assert all(_in_serial_group(item) for item in marked)
