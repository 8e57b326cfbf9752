"""The loop's pieces without the CLI: a generation's chunk plan survives a change of workers,
and worker processes (the default path) return whole chunks with progress messages."""
from __future__ import annotations

import io
from pathlib import Path

import torch

from gomoku.train.config import RunConfig
from gomoku.train.loop import TrainingRun
from gomoku.train.view import View
from gomoku.train.workers import ChunkJob, WorkerPool

torch.set_num_threads(1)


def test_chunk_plan_is_fixed_when_a_generation_starts(tmp_path: Path) -> None:
    cfg = RunConfig(width=7, height=7, arch="b1c8", games_per_gen=12, parallel_games=32, workers=2)
    run = TrainingRun(tmp_path / "run", cfg, View(io.StringIO()))
    first = run.jobs(1)
    assert [j.games for j in first] == [6, 6]
    assert len({j.seed for j in first}) == len(first) and len({j.name for j in first}) == len(first)
    # resumed with 3 workers and more games per generation: generation 1 keeps its plan
    again = TrainingRun(tmp_path / "run", RunConfig(width=7, height=7, arch="b1c8", games_per_gen=30, workers=3),
                        View(io.StringIO()))
    assert again.resumed and again.jobs(1) == first
    assert again.cfg.games_per_gen == 12              # the run's own, not the command's
    # the measuring games follow the command: a stuck ladder can be stopped on resume
    third = TrainingRun(tmp_path / "run", RunConfig(width=7, height=7, arch="b1c8", ladder_games=0, classical_games=2),
                        View(io.StringIO()))
    assert (third.cfg.ladder_games, third.cfg.classical_games) == (0, 2)
    assert (tmp_path / "run" / "nets" / "best.onnx").is_file()


def test_self_play_jobs_carry_the_draw_value(tmp_path: Path) -> None:
    plain = TrainingRun(tmp_path / "a", RunConfig(width=7, height=7, arch="b1c8", workers=1), View(io.StringIO()))
    assert "draw_value" not in plain.jobs(1)[0].config          # the engine's own default (0)
    cfg = RunConfig(width=7, height=7, arch="b1c8", workers=1, draw_value=-0.25)
    run = TrainingRun(tmp_path / "b", cfg, View(io.StringIO()))
    assert run.jobs(1)[0].config["draw_value"] == -0.25


def test_worker_processes_return_whole_chunks() -> None:
    jobs = [ChunkJob(f"gen00001-classical-{k:04d}", "classical", 1, 10 + k, 7, 7, "freestyle", None,
                     {"nodes": 100}) for k in range(2)]
    pool = WorkerPool(2)
    seen: list[tuple[str, int, int]] = []
    try:
        got = {job.name: games for job, games in pool.run(jobs, tick=lambda: seen.extend(pool.poll()))}
    finally:
        pool.close()             # workers exit: their queue feeders have flushed
    seen.extend(pool.poll())
    assert sorted(got) == [j.name for j in jobs]
    for games in got.values():
        assert len(games) == 1 and games[0].source == "classical" and games[0].moves.size >= 9
    assert {name for name, done, _ in seen if done == 1} == set(got)      # one progress message per game


def test_cuda_self_play_asks_onnxruntime_only_for_providers_it_has(monkeypatch) -> None:
    """--device cuda with a CPU build of onnxruntime, or no GPU, evaluates on the CPU without
    asking for the CUDA provider (which makes every worker warn); with both, CUDA comes first."""
    import gomoku.engine.net.evaluator as ev
    from gomoku.train.workers import _providers
    monkeypatch.setattr(ev, "available_providers", lambda: ["CPUExecutionProvider"])
    assert _providers("cuda") == ["CPUExecutionProvider"]
    monkeypatch.setattr(ev, "available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ev, "_gpu_present", lambda: True)
    assert _providers("cuda") == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert _providers("cpu") == ["CPUExecutionProvider"]
