"""Test session set-up: make sure numba's cache is built before any timed subprocess test."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def _numba_warm():
    from gomoku.engine.warmup import warm_up
    warm_up()
    yield
