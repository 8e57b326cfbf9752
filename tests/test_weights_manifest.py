"""The shipped nets: weights/manifest.json agrees with the files beside it (bytes, sha256, the
game each net's metadata claims, a weights-only checkpoint that is the same net), every net
file in weights/ has an entry, and the package installs them. `gomoku ship` end to end: a tiny
real run shipped into a temporary weights folder, its entry checked, the net playing, strength
figures kept across a second ship, and `gomoku train --init` starting a new run from the
shipped checkpoint."""
from __future__ import annotations

import fnmatch
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gomoku.tools.cli import main
from gomoku.train.hardware import hardware, trained_on
from gomoku.train.metrics import read_metrics
from gomoku.weights.manifest import (MANIFEST_NAME, check_folder, read_manifest, render, sha256_file,
                                     unlisted)

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "weights"


def _repo_entries() -> list[tuple[str, dict[str, Any]]]:
    """The repository's entries, for parametrising (an unreadable manifest fails the test below)."""
    try:
        return sorted(read_manifest(WEIGHTS).items())
    except ValueError:
        return []


def assert_shipped(folder: Path, name: str, entry: dict[str, Any]) -> None:
    """Everything a shipped net must satisfy: the manifest check (files, sha256, bytes, the engine's
    loader, metadata), and with torch: the checkpoint loads weights-only into its architecture,
    has the entry's parameter count and computes what the ONNX file computes."""
    from gomoku.train.checkpoint import load_checkpoint
    from gomoku.train.export import model_from_checkpoint, verify
    from gomoku.train.models import parameter_count

    assert check_folder(folder) == []
    ck_path = folder / entry["checkpoint"]
    ck = load_checkpoint(ck_path)
    assert ck.optimizer is None and ck.rng_torch is None and ck.rng_numpy is None
    assert (ck.arch, ck.players) == (entry["arch"], entry["players"])
    model, meta = model_from_checkpoint(ck_path)
    assert parameter_count(model) == entry["parameters"]
    assert meta["win_length"] == entry["win_length"] and meta["rules"] == entry["rules"]
    size = entry["board_sizes"][0]
    verify(str(folder / entry["file"]), model, model.players, [(size, size)])


# -- the repository's weights/ -----------------------------------------------------------------------

def test_manifest_exists_parses_and_lists_every_net() -> None:
    path = WEIGHTS / MANIFEST_NAME
    assert path.is_file(), f"{path} is missing"
    nets = read_manifest(WEIGHTS)
    assert path.read_text(encoding="utf-8") == render(nets), "manifest.json is not in `gomoku ship`'s format"
    assert unlisted(WEIGHTS, nets) == [], "net files in weights/ without a manifest entry"


@pytest.mark.parametrize("name,entry", _repo_entries(), ids=[n for n, _ in _repo_entries()])
def test_shipped_net_matches_its_entry(name: str, entry: dict[str, Any]) -> None:
    assert_shipped(WEIGHTS, name, entry)


def test_installed_package_carries_the_weights() -> None:
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = data["tool"]["setuptools"]
    assert tool["package-dir"]["gomoku.weights"] == "weights" and "gomoku.weights" in tool["packages"]
    globs = tool["package-data"]["gomoku.weights"]
    for fname in (MANIFEST_NAME, "x.onnx", "x.safetensors"):
        assert any(fnmatch.fnmatch(fname, g) for g in globs), (fname, globs)


# -- the checker itself, on a hand-made folder ----------------------------------------------------------

def _hand_shipped(folder: Path) -> dict[str, Any]:
    """A b1c8 net and its weights-only checkpoint in `folder` as NAME 'n', with a correct entry."""
    from gomoku.engine.net.metadata import NetInfo
    from gomoku.train.checkpoint import Checkpoint, save_checkpoint
    from gomoku.train.export import export_model
    from gomoku.train.models import build_model, parameter_count

    model = build_model("b1c8", 2)
    export_model(model, folder / "n.onnx", NetInfo(players=2, win_length=5, rules=["freestyle"], board_sizes=[7],
                                                   arch="b1c8"))
    save_checkpoint(folder / "n.safetensors",
                    Checkpoint("b1c8", 2, model.state_dict(), meta={"win_length": 5, "rules": ["freestyle"]}))
    return {"file": "n.onnx", "bytes": (folder / "n.onnx").stat().st_size, "sha256": sha256_file(folder / "n.onnx"),
            "checkpoint": "n.safetensors", "checkpoint_bytes": (folder / "n.safetensors").stat().st_size,
            "checkpoint_sha256": sha256_file(folder / "n.safetensors"), "arch": "b1c8",
            "parameters": parameter_count(model), "players": 2, "win_length": 5, "rules": ["freestyle"],
            "board_sizes": [7], "strength": [],
            "training": {"command": "gomoku train --board 7", "generations": 1, "best_generation": 1, "games": 2,
                         "positions": 9, "steps": 5, "wall_seconds": 3, "hardware": "cpu, 2 cores",
                         "device": "cpu"}}


def test_checker_reports_each_disagreement(tmp_path: Path) -> None:
    from gomoku.train.checkpoint import load_checkpoint, save_checkpoint
    from gomoku.weights.manifest import write_manifest

    entry = _hand_shipped(tmp_path)
    write_manifest(tmp_path, {"n": entry})
    assert_shipped(tmp_path, "n", entry)

    def problems(**change: Any) -> str:
        write_manifest(tmp_path, {"n": {**entry, **change}})
        return "\n".join(check_folder(tmp_path))

    assert "bytes" in problems(bytes=entry["bytes"] + 1)
    assert "sha256 differs" in problems(sha256="0" * 64)
    assert "players is 3" in problems(players=3)
    assert "win_length is 4" in problems(win_length=4)
    assert "rules is ['renju']" in problems(rules=["renju"])
    assert "board_sizes is [15]" in problems(board_sizes=[15])
    assert "training lacks command" in problems(training={})
    assert "strength must be" in problems(strength=[{"opponent": "random"}])
    write_manifest(tmp_path, {"n": entry})
    (tmp_path / "stray.onnx").write_bytes(b"x")
    assert "stray.onnx: not in manifest.json" in "\n".join(check_folder(tmp_path))
    (tmp_path / "stray.onnx").unlink()
    # a full training checkpoint (optimiser and RNG state) is not a weights-only one
    ck = load_checkpoint(tmp_path / "n.safetensors")
    import torch
    ck.rng_torch = torch.get_rng_state()
    save_checkpoint(tmp_path / "n.safetensors", ck)
    got = problems(checkpoint_bytes=(tmp_path / "n.safetensors").stat().st_size,
                   checkpoint_sha256=sha256_file(tmp_path / "n.safetensors"))
    assert "not weights-only (holds rng.torch)" in got
    (tmp_path / "n.onnx").unlink()
    assert "n.onnx: listed in the manifest but missing" in problems()
    (tmp_path / MANIFEST_NAME).write_text("{}")
    assert "not a weights manifest" in "\n".join(check_folder(tmp_path))


# -- gomoku ship end to end ---------------------------------------------------------------------------

TINY = ["--board", "7", "--generations", "1", "--games-per-gen", "2", "--parallel-games", "2", "--playouts", "8",
        "--workers", "1", "--updates", "1", "--batch", "16", "--eval-games", "0", "--ladder-games", "0",
        "--classical-games", "0", "--plain"]
#: a tiny run that continues the shipped 5x5 net for one small update, so its net still passes
#: the sanity battery that `gomoku ship` runs
TINY5 = ["--board", "5", "--win", "4", "--generations", "1", "--games-per-gen", "2", "--parallel-games", "2",
         "--playouts", "8", "--workers", "1", "--updates", "1", "--batch", "16", "--eval-games", "0",
         "--ladder-games", "0", "--classical-games", "0", "--plain",
         "--init", str(Path(__file__).resolve().parents[1] / "weights" / "5x5k4-skip3.safetensors")]


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _gomoku(*args: str, timeout: float = 300) -> Any:
    """`gomoku ARGS` through click's runner, with the argv the console script would have (a
    run records its command from it), the result read like a finished process's."""
    from types import SimpleNamespace
    from unittest import mock
    with mock.patch.object(sys, "argv", ["gomoku", *args]):
        r = CliRunner().invoke(main, list(args), env=_env())
    return SimpleNamespace(returncode=r.exit_code, stdout=r.stdout, stderr=r.stderr + (
        "" if r.exception is None or isinstance(r.exception, SystemExit) else repr(r.exception)))


def _ship(*args: str) -> Any:
    return CliRunner().invoke(main, ["ship", *args])


def _one_line_error(result: Any, text: str) -> None:
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    assert "Traceback" not in result.output and text in lines[-1], result.output


@pytest.mark.slow
def test_ship_a_tiny_run_end_to_end(tmp_path: Path) -> None:
    """Two tiny runs through the CLI: an untrained 7x7 net is refused (it fails the sanity
    battery), a 5x5 run that continues the shipped 5x5 net for one update ships."""
    raw, weights = tmp_path / "raw", tmp_path / "weights"
    made = _gomoku("train", *TINY, "--arch", "b1c8", "--run", str(raw))
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    _one_line_error(_ship(str(raw), "x", "--weights", str(weights)), "refused to ship")
    assert not weights.exists()

    run = tmp_path / "run"
    made = _gomoku("train", *TINY5, "--run", str(run))
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    config = json.loads((run / "config.json").read_text())
    state = json.loads((run / "state.json").read_text())
    assert config["command"].startswith("gomoku train --board 5 "), config["command"]

    # refusals, one line each, before anything is written
    _one_line_error(_ship(str(tmp_path / "nowhere"), "x", "--weights", str(weights)), "no such run folder")
    _one_line_error(_ship(str(tmp_path), "x", "--weights", str(weights)), "not a training run")
    _one_line_error(_ship(str(run), "../x", "--weights", str(weights)), "plain file stem")
    _one_line_error(_ship(str(run), "x.onnx", "--weights", str(weights)), "without .onnx")
    _one_line_error(_ship(str(run), "x", "--weights", str(weights), "--strength", "random|1-0-0"),
                    "OPPONENT|RESULT|COMMAND")
    _one_line_error(_ship("x", "--weights", str(weights), "--strength", "random|1-0-0 (100 %)|gomoku match"),
                    "no manifest")
    best = run / "nets" / "gen00001.onnx"
    best.rename(tmp_path / "aside.onnx")
    _one_line_error(_ship(str(run), "x", "--weights", str(weights)), "no best net")
    (tmp_path / "aside.onnx").rename(best)
    assert not weights.exists()

    # ship with a figure
    fig = "random|2-0-0 (100 %)|gomoku match weights/tiny5.onnx random -n 2 --size 5 --win 4"
    out = _ship(str(run), "tiny5", "--weights", str(weights), "--strength", fig)
    assert out.exit_code == 0, out.output
    assert "shipped" in out.output and "skip3" in out.output
    nets = read_manifest(weights)
    entry = nets["tiny5"]
    assert (entry["arch"], entry["players"], entry["win_length"], entry["rules"], entry["board_sizes"]) == \
        ("skip3", 2, 4, ["freestyle"], [5])
    assert entry["sanity"]["passed"] is True
    t = entry["training"]
    # the run's command, with the machine's run folder written as runs/NAME
    assert t["command"] == config["command"].replace(f"--run {run}", "--run runs/run").replace(
        TINY5[-1], "weights/5x5k4-skip3.safetensors"), (t, config)
    assert str(run) not in t["command"] and t["device"] == "cpu" and "cores" in t["hardware"]
    # the hardware is what the run recorded for that generation, the machine that trained it
    assert t["hardware"] == read_metrics(run / "metrics.jsonl")[-1]["hardware"] == hardware()
    assert (t["generations"], t["best_generation"], t["games"], t["steps"]) == (1, 1, 2, state["step"])
    assert t["positions"] == state["positions"] > 0 and 0 <= t["wall_seconds"] <= state["elapsed"] + 1
    assert entry["strength"] == [{"opponent": "random", "result": "2-0-0 (100 %)",
                                  "command": "gomoku match weights/tiny5.onnx random -n 2 --size 5 --win 4",
                                  "sha256": entry["sha256"]}]
    assert_shipped(weights, "tiny5", entry)
    assert entry["checkpoint_bytes"] < (run / "ckpt" / "gen00001.safetensors").stat().st_size / 2

    # a figure alone, then the same run shipped again: same bytes, figures kept, stable text
    more = _ship("tiny5", "--weights", str(weights), "--strength", "pure-mcts:8|1-1-0 (50 %)|gomoku match a b")
    assert more.exit_code == 0, more.output
    text = (weights / MANIFEST_NAME).read_text()
    again = _ship(str(run), "tiny5", "--weights", str(weights))
    assert again.exit_code == 0, again.output
    assert (weights / MANIFEST_NAME).read_text() == text
    assert len(read_manifest(weights)["tiny5"]["strength"]) == 2

    # the shipped net loads and plays
    info = _gomoku("info", "--json", str(weights / "tiny5.onnx"), timeout=120)
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["board_sizes"] == "5"
    game = _gomoku("match", f"{weights / 'tiny5.onnx'}:playouts=8", "random", "-n", "1", "--size", "5", "--win", "4",
                   "-o", "none", "--seed", "1", "--json", str(tmp_path / "m.json"), timeout=200)
    assert game.returncode == 0, game.stderr
    assert json.loads((tmp_path / "m.json").read_text())["games"] == 1

    # gomoku train --init continues from the weights-only checkpoint: a new run of the shipped net
    from gomoku.train.checkpoint import load_checkpoint
    run2 = tmp_path / "run2"
    cont = _gomoku("train", *TINY5[:-2], "--init", str(weights / "tiny5.safetensors"), "--run", str(run2))
    assert cont.returncode == 0, cont.stdout[-2000:] + cont.stderr[-2000:]
    assert json.loads((run2 / "config.json").read_text())["arch"] == "skip3"
    start = load_checkpoint(run2 / "ckpt" / "gen00000.safetensors").model
    shipped = load_checkpoint(weights / "tiny5.safetensors").model
    assert start.keys() == shipped.keys() and all(bool((start[k] == shipped[k]).all()) for k in start)
    assert json.loads((run2 / "state.json").read_text())["generation"] == 1


def test_shipped_command_names_no_machine_path():
    """The manifest's training command gives each run folder as runs/<its name>, the name the
    net's own provenance gives, not where it lay."""
    from gomoku.train.config import portable_command
    got = portable_command("gomoku train train --board 6 --run ../far/away/r6 --win 4 --distil old/r5")
    assert got == "gomoku train --board 6 --run runs/r6 --win 4 --distil runs/r5"
    assert portable_command("gomoku train --board 8 --run=/tmp/x") == "gomoku train --board 8 --run=runs/x"
    assert portable_command("gomoku train --board 8 --init /home/me/gomoku/weights/a.safetensors --seed 2") == \
        "gomoku train --board 8 --init weights/a.safetensors --seed 2"
    assert portable_command("gomoku train --board 15 --scores /srv/gomoku/tools/data/s.txt.gz --scores mine.txt") == \
        "gomoku train --board 15 --scores tools/data/s.txt.gz --scores mine.txt"


def test_a_net_trained_elsewhere_ships_with_that_machine() -> None:
    """A run carried home from another machine (a GPU burst) must not ship with the hardware of
    the machine that ships it: the generation's own record says where it trained; runs from
    before records kept it fall back to the checkpoint's coarse line when that names another
    core count, and to this machine when it names this one's."""
    here = f"x86_64 {os.cpu_count()} cores, cpu"
    elsewhere = f"x86_64 {(os.cpu_count() or 1) + 14} cores, cuda"
    assert trained_on({"hardware": "Some CPU, 16 cores, NVIDIA H200"}, {"hardware": here}) == \
        "Some CPU, 16 cores, NVIDIA H200"
    assert trained_on({}, {"hardware": elsewhere}) == elsewhere
    assert trained_on({}, {"hardware": here}) == hardware()
    assert trained_on({}, {}) == hardware()
