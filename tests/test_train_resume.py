"""Resuming inside a generation: the training phase saves its progress on a
clock (at most every CHECKPOINT_SECONDS), a resumed run continues from the saved update, not
from update 1, and ends exactly where a run that was never stopped ends; every resume says in
one line where it picks up (self-play, training or evaluation).

The fast tests drive TrainingRun in-process on an injected clock; the slow one interrupts the
real `gomoku train` during training (Ctrl-C, then kill -9) and resumes it with the same command."""
from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import pytest
import torch

from gomoku.train.checkpoint import CheckpointError, checkpoint_meta, load_checkpoint
from gomoku.train.config import RunConfig
from gomoku.train.games import TrainingGame
from gomoku.train.loop import CHECKPOINT_SECONDS, Cadence, TrainingRun
from gomoku.train.metrics import read_metrics
from gomoku.train.replay import shard_name
from gomoku.train.view import RichView, View

torch.set_num_threads(1)


# -- the cadence on an injected clock ---------------------------------------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_cadence_saves_at_most_every_interval_of_the_clock() -> None:
    clock = FakeClock()
    cadence = Cadence(30.0, clock)
    saves = []
    for update in range(1, 21):
        clock.now += 7.0                   # each update takes 7 s
        if cadence.due():
            clock.now += 0.5               # the save itself takes time; the next interval starts after it
            cadence.saved()
            saves.append(update)
    # due once 30 s have passed since the start or the last save: updates 5, 10, 15, 20
    assert saves == [5, 10, 15, 20]
    assert CHECKPOINT_SECONDS <= 60         # Ctrl-C loses at most about a minute of training


def test_cadence_with_fast_updates_saves_rarely_and_with_slow_ones_after_each() -> None:
    for step, expected in ((0.01, 0), (45.0, 10)):
        clock = FakeClock()
        cadence = Cadence(30.0, clock)
        n = 0
        for _ in range(10):
            clock.now += step
            if cadence.due():
                cadence.saved()
                n += 1
        assert n == expected, step


# -- a run's training phase, in-process ------------------------------------------------------------
def _games(seed: int, n: int = 6) -> list[TrainingGame]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        length = 20
        moves = rng.permutation(49)[:length].astype(np.int32)
        policy = np.zeros((length, 49), dtype=np.float32)
        policy[np.arange(length), moves] = 1.0
        out.append(TrainingGame(7, 7, "freestyle", 5, 2, moves, policy, np.ones(length, dtype=bool),
                                winner=int(rng.integers(-1, 2))))
    return out


class StepView(View):
    """A plain view that advances the fake clock by `seconds` per update and can raise
    KeyboardInterrupt (Ctrl-C) once update `stop_at` is reported."""

    def __init__(self, clock: Optional[FakeClock] = None, seconds: float = 10.0,
                 stop_at: Optional[int] = None) -> None:
        super().__init__(io.StringIO())
        self.clock, self.seconds, self.stop_at = clock, seconds, stop_at
        self.updates: list[int] = []
        self.phases: list[tuple[str, str, int, int]] = []

    def phase(self, gen: int, name: str, detail: str, total: int, done: int) -> None:
        super().phase(gen, name, detail, total, done)
        self.phases.append((name, detail, total, done))

    def progress(self, done: int, train: Optional[dict[str, float]] = None) -> None:
        super().progress(done, train)
        self.updates.append(done)
        if self.clock is not None:
            self.clock.now += self.seconds
        if done == self.stop_at:
            raise KeyboardInterrupt


def _config(**kw: Any) -> RunConfig:
    base: dict[str, Any] = dict(width=7, height=7, arch="b1c8", games_per_gen=6, workers=3, batch_size=32,
                                updates_per_gen=10, epochs=2)
    base.update(kw)
    return RunConfig(**base)


def _run_at_training(folder: Path, view: View, clock: Optional[FakeClock] = None) -> TrainingRun:
    """A new run whose generation 1 has played its games (6 random ones) and is about to train."""
    run = TrainingRun(folder, _config(), view)
    run.store.write(shard_name(1, "selfplay", 0), _games(5))
    run.state.phase = "train"
    run._save_state()
    if clock is not None:
        run.clock = clock
    return run


def _same_checkpoint(a: Path, b: Path) -> None:
    x, y = load_checkpoint(a), load_checkpoint(b)
    assert x.meta["step"] == y.meta["step"] and x.meta["lr_mult"] == y.meta["lr_mult"]
    assert x.model.keys() == y.model.keys()
    assert all(torch.equal(x.model[k], y.model[k]) for k in x.model), "weights differ"
    assert x.optimizer is not None and y.optimizer is not None
    for idx, state in x.optimizer["state"].items():
        for key, value in state.items():
            other = y.optimizer["state"][idx][key]
            assert torch.equal(value, other) if isinstance(value, torch.Tensor) else value == other, (idx, key)
    assert torch.equal(x.rng_torch, y.rng_torch) and x.rng_numpy == y.rng_numpy


def test_training_resumes_from_the_last_save_and_ends_as_an_unbroken_run(tmp_path: Path) -> None:
    # the reference: generation 1's 10 updates without a stop
    ref = _run_at_training(tmp_path / "ref", StepView())
    ref.train(1)
    assert not ref.partial(1).exists()       # no save was due on the real clock (updates take ms)

    # 10 s per update on the fake clock, a save due every 30 s: after updates 3 and 6; Ctrl-C after 8
    clock = FakeClock()
    run = _run_at_training(tmp_path / "run", StepView(clock, 10.0, stop_at=8), clock)
    run.checkpoint_seconds = 30.0
    saved: list[int] = []
    save = run._save_partial
    run._save_partial = lambda tr, g, u, sums, s: (saved.append(u), save(tr, g, u, sums, s))[1]
    with pytest.raises(KeyboardInterrupt):
        run.train(1)
    assert saved == [3, 6]
    meta = checkpoint_meta(run.partial(1))
    assert meta["generation"] == 1 and meta["training"]["update"] == 6 and meta["training"]["updates"] == 10
    assert not run.ckpt(1).exists()

    # the same run again: it says where it resumes and trains updates 7..10 only
    view = StepView()
    again = TrainingRun(tmp_path / "run", _config(), view)
    assert again.resumed
    assert again.resume_line() == f"resuming run {tmp_path / 'run'} at generation 1, training update 7 of 10 " \
                                  "(self-play done)"
    again.train(1)
    assert view.updates == [7, 8, 9, 10]
    assert view.phases[0][2:] == (10, 6) and view.phases[0][1].endswith(", 6 done before")
    # the same weights, Adam moments, RNG and step count as the unbroken run; the same loss averages
    _same_checkpoint(again.ckpt(1), ref.ckpt(1))
    a, b = dict(again.state.pending["train"]), dict(ref.state.pending["train"])
    assert a.pop("seconds") >= 0 and b.pop("seconds") >= 0
    assert a == b and again.state.step == ref.state.step > 0


def test_a_damaged_save_starts_the_generation_over(tmp_path: Path) -> None:
    clock = FakeClock()
    run = _run_at_training(tmp_path / "run", StepView(clock, 40.0, stop_at=4), clock)
    with pytest.raises(KeyboardInterrupt):
        run.train(1)
    part = run.partial(1)
    part.write_bytes(part.read_bytes()[:200])
    with pytest.raises(CheckpointError):
        checkpoint_meta(part)
    view = StepView()
    again = TrainingRun(tmp_path / "run", _config(), view)
    assert again.resume_line().endswith("training update 1 of 10 (self-play done)")
    again.train(1)
    assert view.updates == list(range(1, 11))
    assert any("not a readable checkpoint" in line and "starts again from update 1" in line
               for line in view.out.getvalue().splitlines())
    ref = _run_at_training(tmp_path / "ref", StepView())
    ref.train(1)
    _same_checkpoint(again.ckpt(1), ref.ckpt(1))


def test_a_save_from_another_generation_is_not_used(tmp_path: Path) -> None:
    clock = FakeClock()
    run = _run_at_training(tmp_path / "run", StepView(clock, 40.0, stop_at=4), clock)
    with pytest.raises(KeyboardInterrupt):
        run.train(1)
    stale = run.partial(1)
    # as if generation 1 had ended and a kill came before its save was removed: generation 2 trains
    run.state.generation, run.state.phase = 1, "train"
    run._save_state()
    shutil.copyfile(run.ckpt(0), run.ckpt(1))
    again = TrainingRun(tmp_path / "run", _config(), StepView())
    assert again.resume_line().endswith("at generation 2, training update 1 of 10 (self-play done)")
    again.train(2)
    assert not stale.exists() and again.ckpt(2).is_file()


def test_the_resume_line_names_every_phase(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    first = TrainingRun(folder, _config(), View(io.StringIO()))
    assert not first.resumed
    line = TrainingRun(folder, _config(), View(io.StringIO())).resume_line()
    assert line == f"resuming run {folder} at generation 1, self-play 0 of 6 games kept"
    # generation 1's plan: 3 chunks of 2 games; one chunk is on disk
    jobs = first.jobs(1)
    assert [j.games for j in jobs] == [2, 2, 2]
    first.store.write(jobs[1].name, _games(1, 2))
    run = TrainingRun(folder, _config(workers=1), View(io.StringIO()))
    assert run.resume_line() == f"resuming run {folder} at generation 1, self-play 2 of 6 games kept"
    run.state.phase = "evaluate"
    run._save_state()
    assert TrainingRun(folder, _config(), View(io.StringIO())).resume_line() == \
        f"resuming run {folder} at generation 1, evaluation (self-play and training done)"


@pytest.mark.parametrize("live", [False, True])
def test_run_prints_the_resume_line_first_in_the_plain_and_the_live_view(tmp_path: Path, live: bool) -> None:
    folder = tmp_path / "run"
    _run_at_training(folder, View(io.StringIO()))
    out = io.StringIO()
    if live:
        from rich.console import Console
        view: View = RichView()
        view.console = Console(file=out, force_terminal=True, color_system=None, width=160)
    else:
        view = View(out)
    run = TrainingRun(folder, _config(), view, generations=0)      # the budget is spent: it only says so
    assert run.run() == 0
    lines = [ln for ln in out.getvalue().splitlines() if "resuming" in ln]
    want = f"resuming run {folder} at generation 1, training update 1 of 10 (self-play done)"
    assert lines and lines[0].strip() == want, out.getvalue()
    if not live:
        assert out.getvalue().splitlines()[0] == want and len(lines) == 1


# -- the real command: Ctrl-C and kill -9 during training, the same command resumes -------------------
# The checkpoint interval is set to 0 (a save after every update) in the subprocess, so that a
# tiny net's training, which takes seconds, is saved often enough to be caught part-way; the
# cadence itself is tested above on an injected clock. The stops come 3 saves apart, each seen
# within a poll of 10 ms, so 60 updates leave room for dozens of updates' lag on a loaded machine.
UPDATES = 60
ARGS = ["train", "--board", "7", "--arch", "b1c16", "--generations", "1", "--games-per-gen", "2",
        "--parallel-games", "2", "--playouts", "16", "--workers", "1", "--updates", str(UPDATES), "--batch", "64",
        "--eval-games", "0", "--ladder-games", "0", "--classical-games", "0"]      # a pipe gets the plain view
WRAPPER = ("import sys, gomoku.train.loop as loop; loop.CHECKPOINT_SECONDS = 0.0; "
           "from gomoku.tools.cli import main; sys.exit(main())")


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _saved_update(path: Path) -> int:
    try:
        return int(checkpoint_meta(path)["training"]["update"])
    except (CheckpointError, KeyError):
        return 0


def _stop_when(proc: subprocess.Popen, ready: Callable[[], bool], sig: int, timeout: float = 180) -> str:
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run ended before it could be stopped in training:\n" + proc.communicate()[0][-3000:])
        time.sleep(0.01)
    proc.send_signal(sig)
    return proc.communicate(timeout=120)[0]


def _lines(out: str, start: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith(start)]


@pytest.mark.slow
@pytest.mark.process
def test_ctrl_c_and_kill_during_training_resume_at_the_saved_update(tmp_path: Path) -> None:
    run, ref = tmp_path / "run", tmp_path / "ref"
    cmd = [sys.executable, "-c", WRAPPER, *ARGS, "--run", str(run)]
    part = run / "ckpt" / "gen00001.partial.safetensors"
    popen = dict(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env())

    # 1. Ctrl-C once a few updates are saved
    first = subprocess.Popen(cmd, **popen)
    out = _stop_when(first, lambda: _saved_update(part) >= 3, signal.SIGINT)
    assert first.returncode == 130 and "interrupted" in out, out[-2000:]
    assert not _lines(out, "resuming"), out               # a new run does not say it resumes
    k1 = _saved_update(part)
    assert 3 <= k1 < UPDATES
    state = json.loads((run / "state.json").read_text())
    assert (state["generation"], state["phase"]) == (0, "train"), state
    shards = {p.name: p.read_bytes() for p in (run / "replay").glob("*.npz")}
    assert len(shards) == 1
    # the reference: the same run folder without the save trains all of generation 1 in one go
    shutil.copytree(run, ref)
    (ref / "ckpt" / part.name).unlink()

    # 2. the same command resumes at update k1 + 1; kill -9 it a few saves later
    second = subprocess.Popen(cmd, **popen)
    out = _stop_when(second, lambda: _saved_update(part) >= k1 + 3, signal.SIGKILL)
    assert _lines(out, "resuming") == [f"resuming run {run} at generation 1, training update {k1 + 1} of "
                                       f"{UPDATES} (self-play done)"], out[-2000:]
    assert f"gen 1 train: {UPDATES} updates of " in out and f", {k1} done before" in out, out[-2000:]
    assert "gen 1 selfplay" not in out                     # self-play is not played again
    k2 = _saved_update(part)
    assert k1 + 3 <= k2 < UPDATES

    # 3. and again, to the end
    third = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=300)
    assert third.returncode == 0, third.stdout[-3000:] + third.stderr[-3000:]
    assert _lines(third.stdout, "resuming") == [f"resuming run {run} at generation 1, training update {k2 + 1} of "
                                                f"{UPDATES} (self-play done)"], third.stdout[-2000:]
    assert f", {k2} done before" in third.stdout

    # 4. the reference, from update 1 (its resume line says so)
    plain = subprocess.run([sys.executable, "-c", WRAPPER, *ARGS, "--run", str(ref)], capture_output=True,
                           text=True, env=_env(), timeout=300)
    assert plain.returncode == 0, plain.stdout[-3000:] + plain.stderr[-3000:]
    assert _lines(plain.stdout, "resuming") == [f"resuming run {ref} at generation 1, training update 1 of "
                                                f"{UPDATES} (self-play done)"]

    # nothing lost, nothing twice: the interrupted run's net, Adam state, RNG and step count are
    # the unbroken run's, its loss averages too; the games are those played before the first stop
    _same_checkpoint(run / "ckpt" / "gen00001.safetensors", ref / "ckpt" / "gen00001.safetensors")
    got, want = read_metrics(run / "metrics.jsonl"), read_metrics(ref / "metrics.jsonl")
    assert [r["generation"] for r in got] == [1] and [r["generation"] for r in want] == [1]
    a, b = dict(got[0]["train"]), dict(want[0]["train"])
    assert a.pop("seconds") > 0 and b.pop("seconds") > 0
    assert a == b and got[0]["step"] == want[0]["step"] == a["steps"] > 0
    assert {p.name: p.read_bytes() for p in (run / "replay").glob("*.npz")} == shards
    state = json.loads((run / "state.json").read_text())
    assert (state["generation"], state["phase"], state["games"]) == (1, "selfplay", 2)
    assert not part.exists() and not list(run.rglob(".tmp-*"))
