"""pyproject.toml installs where users are: the CPU build of onnxruntime on every platform (a
player's install downloads no GPU runtime), onnxruntime-gpu as the `gpu` extra that README's one
line swaps in, and never both in one install."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

tomllib = pytest.importorskip("tomllib")    # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"

PLATFORMS = [("linux", "x86_64"), ("win32", "AMD64"), ("linux", "aarch64"), ("darwin", "arm64"),
             ("darwin", "x86_64"), ("win32", "ARM64")]


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]


def _requirements() -> list[Requirement]:
    return [Requirement(r) for r in _project()["dependencies"]]


def _extra(name: str) -> list[Requirement]:
    return [Requirement(r) for r in _project()["optional-dependencies"][name]]


def _env(platform: str, machine: str) -> dict[str, str]:
    return {"sys_platform": platform, "platform_machine": machine, "platform_system": "",
            "os_name": "nt" if platform == "win32" else "posix"}


@pytest.mark.parametrize("platform,machine", PLATFORMS)
def test_every_platform_installs_the_cpu_build_of_onnxruntime(platform, machine):
    chosen = [r.name for r in _requirements()
              if r.name.startswith("onnxruntime") and (r.marker is None or r.marker.evaluate(_env(platform, machine)))]
    assert chosen == ["onnxruntime"]


def test_runtime_dependencies_are_the_engine_ones():
    names = {re.sub(r"[-_.]+", "-", r.name.lower()) for r in _requirements()}
    assert names == {"numpy", "numba", "onnxruntime", "click", "rich"}


def test_no_extra_but_gpu_brings_the_gpu_runtime():
    """dev (CI, no GPU), train, ray and freeze keep the base's CPU build; gpu is the GPU runtime only."""
    for name in _project()["optional-dependencies"]:
        gpu = [r for r in _extra(name) if r.name == "onnxruntime-gpu"]
        assert bool(gpu) == (name == "gpu"), name
        assert not any(r.name == "onnxruntime" for r in _extra(name)), name
    assert [r.name for r in _extra("gpu")] == ["onnxruntime-gpu"]


def test_readme_gpu_line_swaps_in_the_gpu_extra():
    """README's GPU line removes both builds, then installs exactly what the gpu extra names, with
    the venv's pip; pyproject's comment shows the same line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wanted = str(_extra("gpu")[0])
    line = (".venv/bin/pip uninstall -y onnxruntime onnxruntime-gpu && "
            f".venv/bin/pip install '{wanted}'")
    assert line in readme
    assert line.replace(".venv/bin/", "") in PYPROJECT.read_text(encoding="utf-8")


def test_every_package_folder_is_installed() -> None:
    """A folder with an __init__.py that `packages` does not list is left out of a normal
    (non-editable) install: its commands would fail only there."""
    setup = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {f"gomoku.{top}": ROOT / top for top in ("engine", "protocol", "train", "tools", "weights")}
    found = {name + "".join(f".{p}" for p in init.parent.relative_to(root).parts)
             for name, root in folders.items() for init in root.rglob("__init__.py")}
    assert found <= set(setup["packages"]), sorted(found - set(setup["packages"]))
