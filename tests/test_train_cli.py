"""CLI edges of training: torch stays out of everything but train/export/plot, and bad input
(unknown architecture, another game on an existing run, damaged checkpoint, --ray without Ray)
is one line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli_runner import gomoku as run_gomoku


@pytest.mark.process
def test_torch_is_imported_by_training_only() -> None:
    """The CLI, the brain, self-play and the evaluation tables' fitting (tune) load no torch; a
    fresh interpreter, since this one may have imported it already."""
    code = ("import sys\n"
            "import gomoku.tools.cli, gomoku.tools.train_cmd, gomoku.tools.export_cmd, gomoku.tools.plot_cmd\n"
            "import gomoku.train.workers, gomoku.train.bootstrap, gomoku.train.evaluate, gomoku.train.games\n"
            "import gomoku.train.raypool\n"
            "import gomoku.engine.mcts.selfplay, gomoku.protocol.brain\n"
            "import gomoku.engine.fit.tuning, gomoku.tools.tune_cmd\n"
            "assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules, 'torch imported'\n"
            "assert 'ray' not in sys.modules, 'ray imported without --ray'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def _run(*args: str) -> Any:
    return run_gomoku(args)


def _ok(*args: str) -> Any:
    """`gomoku ARGS` on one thread, required to succeed (the failure shows the output's tails)."""
    out = run_gomoku(args, env={"OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    bad = _run("train", "--board", "7", "--arch", "resnet", "--run", str(tmp_path / "r"))
    assert bad.returncode != 0 and "unknown architecture 'resnet'" in bad.stderr and "Traceback" not in bad.stderr
    bad = _run("train", "--board", "30", "--run", str(tmp_path / "r"))
    assert bad.returncode != 0 and "5..22" in bad.stderr
    ckpt = tmp_path / "broken.safetensors"
    ckpt.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    bad = _run("export", str(ckpt), str(tmp_path / "out.onnx"))
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert str(ckpt) in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.onnx").exists()


def test_ray_without_the_extra_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)       # as if the ray extra were not installed
    out = run_gomoku(["train", "--board", "7", "--ray", "local", "--run", str(tmp_path / "r")])
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "pip install" in out.stderr and "[ray]" in out.stderr
    assert not (tmp_path / "r").exists()


def test_one_net_for_two_rules(tmp_path: Path) -> None:
    """`--rule freestyle,standard`: self-play chunks alternate the rules, the exported net claims
    both, and the brain's coverage says so; a rule named twice or an unknown one is one line."""
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.train.replay import ReplayStore
    run = tmp_path / "two"
    _ok("train", "--board", "7", "--rule", "freestyle, standard", "--arch", "b1c8",
        "--generations", "1", "--games-per-gen", "4", "--parallel-games", "2", "--workers", "1",
        "--playouts", "16", "--updates", "1", "--batch", "16", "--eval-games", "0",
        "--ladder-games", "0", "--classical-games", "0", "--opening-stones", "2", "--full-search-prob", "1",
        "--draw-value", "-0.2", "--run", str(run), "--plain")
    store = ReplayStore(run / "replay")
    rules = {name: {g.rule for g in store.games(name)} for name in store.names()}
    assert rules == {"gen00001-selfplay-0000": {"freestyle"}, "gen00001-selfplay-0001": {"standard"}}, rules
    # --opening-stones 2: some games start with stones that carry no policy target
    leading = [int(g.recorded.argmax()) for name in store.names() for g in store.games(name)]
    assert max(leading) > 0 and max(leading) <= 2, leading
    assert json.loads((run / "config.json").read_text())["draw_value"] == -0.2
    info = NetEvaluator.load(run / "nets" / "best.onnx").info
    assert info.rules == ["freestyle", "standard"] and info.coverage() == "7x7 freestyle/standard"
    for bad, needle in (("freestyle,freestyle", "names a rule twice"), ("freestyle,chess", "unknown rule")):
        err = _run("train", "--board", "7", "--rule", bad, "--run", str(tmp_path / "r"))
        assert err.returncode != 0 and needle in err.stderr and "Traceback" not in err.stderr, err.stderr
    assert not (tmp_path / "r").exists()


def test_distil_starts_a_new_net_from_another_runs_games(tmp_path: Path) -> None:
    """`--distil RUN --generations 0`: the new run copies RUN's games as generation 0 and its first
    net is trained on them (lower loss on those games than the same net undistilled); another
    game's run or a folder that is no run is refused in one line, before anything is made."""
    import torch
    from gomoku.train.checkpoint import load_checkpoint
    from gomoku.train.models import build_model
    from gomoku.train.replay import ReplayStore
    from gomoku.train.trainer import Trainer
    small = ["--eval-games", "0", "--ladder-games", "0", "--classical-games", "0", "--plain"]
    src = tmp_path / "small"
    _ok("train", "--board", "7", "--arch", "b1c8", "--generations", "1", "--games-per-gen", "4",
        "--parallel-games", "4", "--workers", "1", "--playouts", "16", "--updates", "1", "--batch", "16",
        "--full-search-prob", "1", "--run", str(src), *small)
    big = tmp_path / "big"
    grow = ["train", "--board", "7", "--arch", "b1c16", "--distil", str(src), "--distil-updates", "12",
            "--batch", "64", "--games-per-gen", "2", "--parallel-games", "2", "--workers", "1", "--playouts", "16",
            "--updates", "1", "--run", str(big), *small]
    assert "distilled from" in _ok(*grow, "--generations", "0").stdout
    copied, source = ReplayStore(big / "replay"), ReplayStore(src / "replay")
    assert copied.names() == ["gen00000-selfplay-0000"] and len(copied.games(copied.names()[0])) == 4
    assert [g.moves.tolist() for g in copied.games(copied.names()[0])] == \
        [g.moves.tolist() for g in source.games(source.names()[0])]
    extra = json.loads((big / "config.json").read_text())["extra"]["distilled"]
    assert extra["games"] == 4 and extra["updates"] == 12 and extra["steps"] >= 12
    state = json.loads((big / "state.json").read_text())
    assert state["generation"] == 0 and (big / "nets" / "best.onnx").is_file()
    # the distilled net fits those games better than the same architecture and seed untrained
    window = copied.window(10_000)
    batch = window.sample(len(window), np.random.default_rng(0), augment=False)
    torch.manual_seed(1)
    fresh = Trainer(build_model("b1c16", 2), seed=1).evaluate(batch)["loss"]
    trained = Trainer.from_checkpoint(load_checkpoint(big / "ckpt" / "gen00000.safetensors")).evaluate(batch)["loss"]
    assert trained < fresh - 0.05, (trained, fresh)
    # the same command with a generation continues the run, and its shipped entry names the games
    # it started from beside its own (ship_run, the entry without `gomoku ship`'s sanity battery,
    # which a 7x7 net of one update cannot pass)
    _ok(*grow, "--generations", "1")
    from gomoku.train.ship import ship_run
    ship_run(big, "grown", tmp_path / "w")
    training = json.loads((tmp_path / "w" / "manifest.json").read_text())["nets"]["grown"]["training"]
    assert training["games"] == 2 and training["distilled"]["games"] == 4, training
    for args, needle in ((["--win", "4", "--distil", str(src)], "4 in a row"),
                         (["--distil", str(tmp_path)], "not a run folder")):
        err = _run("train", "--board", "7", "--arch", "b1c8", *args, "--generations", "0",
                   "--run", str(tmp_path / "bad"), *small)
        assert err.returncode != 0 and needle in err.stderr and "Traceback" not in err.stderr, err.stderr
        assert len(err.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "bad" / "ckpt").exists()
