"""pyproject.toml installs where users are: one onnxruntime build per platform, and only one."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

tomllib = pytest.importorskip("tomllib")    # Python 3.11+

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

# (sys_platform, platform_machine) -> the onnxruntime distribution that has wheels there
PLATFORMS = {
    ("linux", "x86_64"): "onnxruntime-gpu",
    ("win32", "AMD64"): "onnxruntime-gpu",
    ("linux", "aarch64"): "onnxruntime",
    ("darwin", "arm64"): "onnxruntime",
    ("darwin", "x86_64"): "onnxruntime",
    ("win32", "ARM64"): "onnxruntime",
}


def _requirements() -> list[Requirement]:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return [Requirement(r) for r in data["project"]["dependencies"]]


@pytest.mark.parametrize("platform,machine", sorted(PLATFORMS))
def test_exactly_one_onnxruntime_build_per_platform(platform, machine):
    env = {"sys_platform": platform, "platform_machine": machine, "platform_system": "",
           "os_name": "nt" if platform == "win32" else "posix"}
    chosen = [r.name for r in _requirements()
              if r.name.startswith("onnxruntime") and (r.marker is None or r.marker.evaluate(env))]
    assert chosen == [PLATFORMS[(platform, machine)]]


def test_runtime_dependencies_are_the_engine_ones():
    names = {re.sub(r"[-_.]+", "-", r.name.lower()) for r in _requirements()}
    assert names == {"numpy", "numba", "onnxruntime", "onnxruntime-gpu", "click", "rich"}
