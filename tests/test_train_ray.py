"""`gomoku train --ray local`: the tiny end-to-end run with self-play on Ray actors. Its shards
hold the very games local worker processes play for the same chunks, under the same names, so a
run stopped (SIGTERM, as Ctrl-C) in the middle of a generation's self-play on Ray and resumed
without --ray continues the counts with nothing lost or played twice; the Ray processes end with
the run; the exported net loads; stdout carries only the run's own lines (nothing of Ray's)."""
from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")

from gomoku.engine.net.evaluator import NetEvaluator  # noqa: E402
from gomoku.train.config import RunConfig  # noqa: E402
from gomoku.train.loop import TrainingRun  # noqa: E402
from gomoku.train.metrics import read_metrics  # noqa: E402
from gomoku.train.replay import read_shard  # noqa: E402
from gomoku.train.view import View  # noqa: E402
from gomoku.train.workers import run_chunk  # noqa: E402

pytestmark = pytest.mark.slow

GOMOKU = str(Path(sys.executable).with_name("gomoku"))
GAMES = 6
# the tiny run of test_train_run without the classical bootstrap (generation 1 is self-play with
# the first net, which the actors receive as bytes) and without evaluation, which never runs on
# Ray and took as long as the self-play here (test_train_run covers it)
ARGS = ["train", "--board", "7", "--arch", "b1c16", "--games-per-gen", str(GAMES), "--parallel-games", "2",
        "--playouts", "24", "--full-search-prob", "0.5", "--workers", "2", "--updates", "2", "--batch", "32",
        "--eval-games", "0", "--ladder-games", "0", "--classical-games", "0", "--plain"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def _shards(run: Path) -> list[str]:
    return sorted(p.name for p in (run / "replay").glob("*.npz"))


def _descendants(pid: int) -> set[int]:
    """Live processes below `pid` (Linux /proc; empty elsewhere)."""
    parents: dict[int, int] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return set()
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p and c not in found]
        found.update(kids)
        todo.extend(kids)
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.process
def test_ray_local_run_then_resume_with_local_workers(tmp_path: Path) -> None:
    run = tmp_path / "run"
    # 1. generation 1 on a local Ray instance; SIGTERM once generation 2 has a shard
    ray_run = subprocess.Popen([GOMOKU, *ARGS, "--ray", "local", "--generations", "2", "--run", str(run)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                               start_new_session=True)
    marker = run / "replay" / "gen00002-selfplay-0000.npz"
    deadline = time.monotonic() + 300
    while not marker.exists() and ray_run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    ray_procs = _descendants(ray_run.pid)
    assert ray_procs or not Path("/proc").is_dir(), "Ray's processes should run below the driver"
    ray_run.send_signal(signal.SIGTERM)
    out, err = ray_run.communicate(timeout=120)
    assert marker.exists(), out[-3000:] + err[-3000:]
    assert ray_run.returncode == 130 and "interrupted" in out, out[-3000:] + err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    # the live view's lines only: nothing of Ray's (its log lines, colours, worker prefixes)
    assert out.startswith("new run ") and "gen 1 done: 6 selfplay games" in out
    assert not re.search(r"\x1b\[|\(raylet\)|\(pid=|\b(INFO|WARNING|ERROR)\b|Ray|^\[", out, re.M), out
    deadline = time.monotonic() + 30          # Ray's processes go with the run
    while any(_alive(p) for p in ray_procs) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p for p in ray_procs if _alive(p)], "Ray processes left running"
    assert json.loads((run / "config.json").read_text())["ray"] == "local"
    chunks = [f"gen00001-selfplay-{k:04d}.npz" for k in range(3)]
    assert _shards(run)[:3] == chunks and marker.name in _shards(run)
    [rec] = read_metrics(run / "metrics.jsonl")
    assert rec["selfplay"]["games"] == GAMES and rec["games_total"] == GAMES
    assert rec["positions_total"] == rec["selfplay"]["positions"] > 0
    assert rec["train"]["steps"] == rec["step"] > 0
    info = NetEvaluator.load(run / "nets" / "gen00001.onnx").info
    assert info.arch == "b1c16" and info.provenance["games"] == GAMES and info.provenance["steps"] == rec["step"]

    # 2. the actors played what a local worker plays for the same chunk: a fresh run of the same
    # settings (same seed, so the same first net) plans the same jobs; its first chunk, played here
    cfg = RunConfig.load(run)
    cfg.ray = None
    twin = TrainingRun(tmp_path / "twin", cfg, View(io.StringIO()))
    jobs = twin.jobs(1, 2)
    assert [j.name + ".npz" for j in jobs] == chunks
    local = run_chunk(jobs[0])
    remote = read_shard(run / "replay" / chunks[0])
    assert len(local) == len(remote) == 2
    for a, b in zip(local, remote):
        assert np.array_equal(a.moves, b.moves) and np.array_equal(a.recorded, b.recorded)
        assert a.winner == b.winner
        assert np.array_equal(a.policy[a.recorded].astype(np.float16), b.policy[b.recorded].astype(np.float16))

    # 3. the same run resumed without --ray: local workers play what generation 2 lacks and the
    # counts continue
    before = {p.name: p.stat().st_mtime_ns for p in (run / "replay").glob("*.npz")}
    second = subprocess.run([GOMOKU, *ARGS, "--generations", "2", "--run", str(run)],
                            capture_output=True, text=True, env=_env(), timeout=300)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert json.loads((run / "config.json").read_text())["ray"] is None
    assert _shards(run) == chunks + [f"gen00002-selfplay-{k:04d}.npz" for k in range(3)]
    assert all((run / "replay" / n).stat().st_mtime_ns == t for n, t in before.items())
    recs = read_metrics(run / "metrics.jsonl")
    assert [r["generation"] for r in recs] == [1, 2]
    assert recs[1]["games_total"] == 2 * GAMES and recs[1]["selfplay"]["games"] == GAMES
    assert recs[1]["positions_total"] == recs[0]["positions_total"] + recs[1]["selfplay"]["positions"]
    assert recs[1]["step"] > recs[0]["step"]
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 2 and state["games"] == 2 * GAMES and state["step"] == recs[1]["step"]
