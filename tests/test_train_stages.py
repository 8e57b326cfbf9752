"""The training run's stages, each alone: the run folder and its state (train.run_folder),
self-play (train.selfplay_stage) on a pool that plays nothing, the evaluation
(train.evaluation_stage) with its matches given, and training (train.training_stage)
without the driver."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest
import torch

from gomoku.train.config import RunConfig, RunError
from gomoku.train.evaluate import MatchOutcome
from gomoku.train.evaluation_stage import Evaluation
from gomoku.train.games import TrainingGame
from gomoku.train.metrics import read_metrics
from gomoku.train.models import build_model
from gomoku.train.replay import shard_name
from gomoku.train.run_folder import RunFolder, gen_name
from gomoku.train.selfplay_stage import SelfPlay
from gomoku.train.trainer import Trainer
from gomoku.train.training_stage import Training, train_settings
from gomoku.train.view import View
from gomoku.train.workers import ChunkJob

torch.set_num_threads(1)


def _config(**kw: Any) -> RunConfig:
    base: dict[str, Any] = dict(width=7, height=7, arch="b1c8", games_per_gen=6, workers=3, batch_size=16,
                                updates_per_gen=3, epochs=1)
    base.update(kw)
    return RunConfig(**base)


def _new(tmp_path: Path, **kw: Any) -> RunFolder:
    """A created run folder with its state saved (no net: the stages below that need none)."""
    folder = RunFolder.open(tmp_path / "run", _config(**kw))
    folder.create()
    folder.save_new()
    return folder


def _games(seed: int, n: int) -> list[TrainingGame]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        moves = rng.permutation(49)[:12].astype(np.int32)
        policy = np.zeros((12, 49), dtype=np.float32)
        policy[np.arange(12), moves] = 1.0
        out.append(TrainingGame(7, 7, "freestyle", 5, 2, moves, policy, np.ones(12, dtype=bool),
                                winner=int(rng.integers(-1, 2))))
    return out


# -- the run folder -------------------------------------------------------------------------------
def test_a_folder_is_new_until_its_state_is_saved_and_resumes_as_the_same_run(tmp_path: Path) -> None:
    fresh = RunFolder.open(tmp_path / "run", _config())
    assert not fresh.resumed and fresh.state is None
    fresh.create()
    assert not RunFolder.open(tmp_path / "run", _config()).resumed       # no state.json yet
    fresh.save_new()
    (fresh.dir / "ckpt" / ".tmp-left-by-a-kill").write_bytes(b"x")
    again = RunFolder.open(tmp_path / "run", _config(workers=1, games_per_gen=30, ladder_games=0))
    assert again.resumed and again.state.playouts == fresh.cfg.playouts
    # the machine and the measuring games follow the command; the games per generation stay the run's
    assert (again.cfg.workers, again.cfg.ladder_games, again.cfg.games_per_gen) == (1, 0, 6)
    assert not list(again.dir.rglob(".tmp-*"))
    assert again.ckpt(3) == again.dir / "ckpt" / "gen00003.safetensors" and gen_name(3) == "gen00003"
    assert again.partial(4).name == "gen00004.partial.safetensors"
    assert again.net(2) == again.dir / "nets" / "gen00002.onnx"
    with pytest.raises(RunError):
        RunFolder.open(tmp_path / "run", _config(width=9, height=9))


def test_partial_saves_are_read_back_and_a_damaged_or_foreign_one_is_not_used(tmp_path: Path) -> None:
    folder = _new(tmp_path)
    trainer = Trainer(build_model("b1c8", 2, "freestyle"), train_settings(folder.cfg), seed=1)
    assert folder.partial_progress(1) is None
    folder.save_partial(trainer, 1, 2, {"loss": 1.5}, 3.25)
    assert folder.partial_progress(1) == {"update": 2, "updates": 3, "sums": {"loss": 1.5}, "seconds": 3.25}
    assert folder.partial_progress(2) is None                 # generation 1's save
    folder.save_partial(trainer, 2, 1, {}, 0.0)
    folder.drop_other_partials(2)
    assert not folder.partial(1).exists() and folder.partial(2).exists()
    part = folder.partial(2)
    part.write_bytes(part.read_bytes()[:100])
    said: list[str] = []
    assert folder.partial_progress(2, log=said.append) is None
    assert len(said) == 1 and said[0].endswith("generation 2's training starts again from update 1")


# -- self-play ------------------------------------------------------------------------------------
class FakePool:
    """Plays each chunk as a few random games at once, and records what it was asked to play."""

    def __init__(self, workers: int = 3) -> None:
        self.workers = workers
        self.asked: list[str] = []

    def poll(self) -> list[tuple[str, int, int]]:
        return []

    def run(self, jobs: list[ChunkJob], tick: Callable[[], None]) -> Iterator[tuple[ChunkJob, list[TrainingGame]]]:
        for job in jobs:
            self.asked.append(job.name)
            tick()
            yield job, _games(job.seed % 1000, job.games)


def test_self_play_keeps_each_chunk_and_plays_only_what_is_missing(tmp_path: Path) -> None:
    folder = _new(tmp_path)
    stage = SelfPlay(folder, View(io.StringIO()))
    assert stage.source(1) == "selfplay"
    jobs = stage.jobs(1, 3)
    assert [j.games for j in jobs] == [2, 2, 2] and len({j.seed for j in jobs}) == 3
    # as if a kill came after the second chunk was kept
    folder.store.write(jobs[1].name, _games(7, 2))
    assert stage.kept(1) == 2
    pool = FakePool()
    stage.play(1, pool)
    assert pool.asked == [jobs[0].name, jobs[2].name]
    assert all(folder.store.has(j.name) for j in jobs)
    state = json.loads((folder.dir / "state.json").read_text())
    assert state["games"] == 6 and state["positions"] == 6 * 12
    stats = state["pending"]["selfplay"]
    assert stats["games"] == 6 and stats["source"] == "selfplay" and stats["positions"] == 72
    assert state["pending"]["plan"]["chunk"] == 2


class KilledAfter(FakePool):
    """A pool whose chunks take `seconds` each on the fake clock, and that is killed (raises)
    after `chunks` of them when `chunks` is set."""

    def __init__(self, clock: list[float], seconds: float, chunks: int | None = None) -> None:
        super().__init__()
        self.clock, self.seconds, self.chunks = clock, seconds, chunks

    def run(self, jobs: list[ChunkJob], tick: Callable[[], None]) -> Iterator[tuple[ChunkJob, list[TrainingGame]]]:
        for k, (job, games) in enumerate(super().run(jobs, tick)):
            if self.chunks is not None and k == self.chunks:
                raise KeyboardInterrupt
            self.clock[0] += self.seconds
            yield job, games


def test_a_resumed_phase_reports_the_seconds_of_both_sittings(monkeypatch, tmp_path: Path) -> None:
    """The generation's line gives the whole phase's time: a resume after one chunk in 10 s
    that plays the two others in 5 s each reports 20 s, not the second sitting's 10."""
    import types

    import gomoku.train.selfplay_stage as stage_mod
    clock = [0.0]
    monkeypatch.setattr(stage_mod, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    folder = _new(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        SelfPlay(folder, View(io.StringIO())).play(1, KilledAfter(clock, 10.0, chunks=1))
    assert json.loads((folder.dir / "state.json").read_text())["pending"]["plan"]["seconds"] == 10.0
    clock[0] = 5000.0                     # another process, another clock origin
    again = RunFolder.open(tmp_path / "run", _config())
    pool = KilledAfter(clock, 5.0)
    SelfPlay(again, View(io.StringIO())).play(1, pool)
    assert len(pool.asked) == 2
    stats = json.loads((again.dir / "state.json").read_text())["pending"]["selfplay"]
    assert stats["games"] == 6 and stats["seconds"] == 20.0


def test_bootstrap_generations_play_small_classical_chunks(tmp_path: Path) -> None:
    folder = _new(tmp_path, bootstrap_generations=1, games_per_gen=12, workers=2)
    stage = SelfPlay(folder, View(io.StringIO()))
    jobs = stage.jobs(1)
    assert {j.source for j in jobs} == {"classical"} and [j.games for j in jobs] == [2] * 6
    assert jobs[0].net is None and jobs[0].config == {"nodes": folder.cfg.bootstrap_nodes}


# -- evaluation -----------------------------------------------------------------------------------
def _evaluation(tmp_path: Path, score: float) -> tuple[RunFolder, Evaluation, list[str]]:
    folder = _new(tmp_path, eval_games=4, gate=0.55, ladder_games=0, classical_games=0)
    for g in (0, 1):
        folder.net(g).write_bytes(f"net {g}".encode())
    stage = Evaluation(folder, View(io.StringIO()))
    stage.publish(0)
    played: list[str] = []

    def match(g: int, phase: str, detail: str, a: str, b: str, games: int, seed: int, openings: bool) -> MatchOutcome:
        played.append(f"{phase}: {detail}")
        wins = int(score * games)
        return MatchOutcome(wins, games - wins, 0)

    stage._match = match  # type: ignore[method-assign]
    folder.state.phase, folder.state.pending = "evaluate", {"train": {"loss": 1.0}}
    return folder, stage, played


@pytest.mark.parametrize("score, accepted", [(0.75, True), (0.25, False)])
def test_the_gate_publishes_a_net_that_wins_and_keeps_the_best_otherwise(tmp_path: Path, score: float,
                                                                         accepted: bool) -> None:
    folder, stage, played = _evaluation(tmp_path, score)
    stage.evaluate(1)
    assert played == ["gating: gen00001 vs best gen00000"]
    best = (folder.dir / "nets" / "best.onnx").read_bytes()
    assert best == (b"net 1" if accepted else b"net 0")
    [record] = read_metrics(folder.dir / "metrics.jsonl")
    assert record["gating"]["accepted"] is accepted and record["best"] == (1 if accepted else 0)
    assert record["train"] == {"loss": 1.0} and record["generation"] == 1
    state = json.loads((folder.dir / "state.json").read_text())
    assert (state["generation"], state["phase"], state["pending"], state["best"]) == \
        (1, "selfplay", {}, 1 if accepted else 0)


# -- training -------------------------------------------------------------------------------------
def test_training_alone_makes_generation_zero_and_trains_the_next(tmp_path: Path) -> None:
    folder = RunFolder.open(tmp_path / "run", _config())
    folder.create()
    view = View(io.StringIO())
    stage = Training(folder, view)
    trainer = stage.first_trainer()
    assert stage.finish(trainer, 0) < 1e-3                 # the export matches the torch net
    assert folder.ckpt(0).is_file() and folder.net(0).is_file()
    folder.store.write(shard_name(1, "selfplay", 0), _games(3, 6))
    saves: list[int] = []
    stage.every = 0.0                                      # a save after every update but the last
    stage.train(1, save_partial=lambda tr, g, u, sums, s: saves.append(u))
    assert saves == [1, 2] and folder.ckpt(1).is_file()
    stats = folder.state.pending["train"]
    assert stats["batch"] == 16 and stats["window"] == 72 and folder.state.step == stats["steps"] > 0
    assert "gen 1 train: 3 updates of 16 from 72 positions" in view.out.getvalue()
