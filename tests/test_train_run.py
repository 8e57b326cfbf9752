"""`gomoku train` end to end through the CLI: classical bootstrap and self-play -> store -> train
-> export -> gating and ladder through the arena; kill -9 in the middle and the same command
resumes the run (shards written before the kill are kept, no game twice, the step count follows
the checkpoints); `gomoku export` and `gomoku plot`; the brain plays legal games with the net;
another game on the run and a damaged shard are refused in one line. One run serves all of
these because every invocation pays for importing torch and loading the numba caches; only the
kill -9 and the brain need a process of their own, the other commands run in this one
(cli_runner)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gomoku.engine.match.arena import GameSettings, MatchSettings, run_match
from gomoku.engine.net.evaluator import NetEvaluator
from gomoku.protocol.players import make_player
from gomoku.train.checkpoint import load_checkpoint
from gomoku.train.metrics import read_metrics

from cli_runner import gomoku

pytestmark = pytest.mark.slow

GOMOKU = str(Path(sys.executable).with_name("gomoku"))
GENS, GAMES = 3, 6
ARGS = ["train", "--board", "7", "--arch", "b1c16", "--generations", str(GENS), "--games-per-gen", str(GAMES),
        "--parallel-games", "2", "--playouts", "24", "--full-search-prob", "0.5", "--workers", "1",
        "--updates", "2", "--batch", "32", "--eval-games", "2", "--eval-playouts", "16", "--ladder-games", "2",
        "--ladder-start", "16", "--classical-games", "2", "--bootstrap", "1", "--bootstrap-nodes", "200", "--plain"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


@pytest.mark.process
def test_train_kill_resume_export_and_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    cmd = [GOMOKU, *ARGS, "--run", str(run)]
    # 1. start, and kill -9 as soon as generation 2 has written its first self-play shard
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env())
    marker = run / "replay" / "gen00002-selfplay-0000.npz"
    deadline = time.monotonic() + 120
    while not marker.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists(), first.communicate()[0].decode()[-2000:]
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = {p.name: p.stat().st_mtime_ns for p in (run / "replay").glob("*.npz")}
    state = json.loads((run / "state.json").read_text())
    assert 1 <= state["generation"] < GENS, state

    # 2. the same command resumes and finishes
    done = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == GENS and state["phase"] == "selfplay", (state, done.stdout[-2000:])
    assert "batches to beat N playouts (optimiser steps; 2 players, beaten when score >= 0.7):" in done.stdout
    # shards from before the kill were kept as they were, not played again
    after = {p.name: p.stat().st_mtime_ns for p in (run / "replay").glob("*.npz")}
    assert all(after[name] == mtime for name, mtime in before.items()), (before, after)
    # every generation has its chunks exactly once: 3 chunks of 2 games, classical first
    expected = {f"gen{g:05d}-{'classical' if g == 1 else 'selfplay'}-{k:04d}.npz" for g in range(1, GENS + 1)
                for k in range(3)}
    assert set(after) == expected, sorted(after)
    assert state["games"] == GENS * GAMES
    assert not [p for p in run.rglob(".tmp-*")]
    # one metrics record per generation; the step count continues checkpoint to checkpoint
    recs = read_metrics(run / "metrics.jsonl")
    assert [r["generation"] for r in recs] == list(range(1, GENS + 1))
    assert recs[0]["selfplay"]["source"] == "classical" and recs[1]["selfplay"]["source"] == "selfplay"
    steps = [load_checkpoint(run / "ckpt" / f"gen{g:05d}.safetensors").meta["step"] for g in range(GENS + 1)]
    assert steps[0] == 0 and all(b > a for a, b in zip(steps, steps[1:]))
    assert [r["train"]["steps"] for r in recs] == steps[1:] and state["step"] == steps[-1], (recs, steps)
    for r in recs:
        assert r["train"]["steps"] - 2 * 5 <= steps[r["generation"] - 1] < r["train"]["steps"], (r, steps)
        assert {"wins", "losses", "draws", "accepted"} <= set(r["gating"]) and "playouts" in r["ladder"]
        assert r["classical"]["level"] >= 1 and r["classical"]["wins"] + r["classical"]["losses"] \
            + r["classical"]["draws"] == 2

    # 3. gomoku export: a checkpoint to a verified net the engine loads
    out = tmp_path / "exported.onnx"
    exp = gomoku(["export", run / "ckpt" / f"gen{GENS:05d}.safetensors", out])
    assert exp.returncode == 0, exp.stderr
    info = NetEvaluator.load(out).info
    assert info.arch == "b1c16" and info.board_sizes == [7] and info.rules == ["freestyle"]
    assert info.provenance["generation"] == GENS

    # 4. gomoku plot writes the PNGs
    plot = gomoku(["plot", run])
    assert plot.returncode == 0, plot.stderr
    pngs = sorted(p.name for p in (run / "plots").glob("*.png"))
    assert pngs == ["entropy.png", "evaluation.png", "ladder.png", "loss.png", "lr.png", "selfplay.png"]
    assert all((run / "plots" / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)

    # 5. the brain loads the best net and plays legal games through the referee
    best = run / "nets" / "best.onnx"
    log = tmp_path / "brain.log"
    monkeypatch.setenv("GOMOKU_BRAIN_LOG", str(log))
    summary = run_match(f"brain:{GOMOKU} brain --net {best}", "random:seed=3",
                        MatchSettings(game=GameSettings(width=7, turn_time=1.0, tolerance=10.0, start_timeout=60.0,
                                                        factory=make_player),
                                      games=2, seed=5))
    assert len(summary.results) == 2, log.read_text()[-3000:] if log.exists() else "no brain log"
    assert all(r.reason in ("five", "full") for r in summary.results), ([r.detail for r in summary.results],
                                                                        log.read_text()[-3000:])
    assert f"net loaded: {best} (b1c16" in log.read_text()

    # 6. the run keeps its game: another board on it is refused in one line
    bad = gomoku([*ARGS[:2], "9", *ARGS[3:], "--run", run])
    assert bad.returncode != 0 and "width=7" in bad.stderr and "another --run" in bad.stderr

    # 7. a damaged shard stops the next generation with one line naming it (no traceback)
    shard = run / "replay" / "gen00002-selfplay-0001.npz"
    shard.write_bytes(shard.read_bytes()[:100])
    bad = gomoku([*ARGS, "--run", run, "--generations", str(GENS + 1)])
    lines = [ln for ln in bad.stderr.splitlines() if ln.strip()]
    assert bad.returncode != 0 and "Traceback" not in bad.stderr, bad.stderr[-2000:]
    assert str(shard) in lines[-1] and "corrupt replay shard" in lines[-1]


def _children(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.process
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["term", "kill"])
def test_stopping_the_driver_takes_its_workers_along(tmp_path: Path, how: str) -> None:
    """SIGTERM stops a run as Ctrl-C does (exit 130, state saved, resumable); after SIGKILL the
    worker processes notice their parent is gone and end instead of waiting forever."""
    args = [a if a != "1" or i == 0 or ARGS[i - 1] != "--workers" else "2" for i, a in enumerate(ARGS)]
    assert args[args.index("--workers") + 1] == "2"
    run = tmp_path / "run"
    proc = subprocess.Popen([GOMOKU, *args, "--run", str(run)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=_env(), start_new_session=True)
    deadline = time.monotonic() + 120
    while not (run / "replay").is_dir() or not list((run / "replay").glob("*.npz")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0].decode()[-2000:]
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert workers, "the run should have worker processes"
    proc.send_signal(signal.SIGTERM if how == "term" else signal.SIGKILL)
    out = proc.communicate(timeout=60)[0].decode()
    if how == "term":
        assert proc.returncode == 130 and "interrupted" in out, out[-2000:]
        assert json.loads((run / "state.json").read_text())["generation"] >= 0
    deadline = time.monotonic() + 15
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], f"workers left running after {how}"
