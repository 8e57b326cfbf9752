"""`gomoku ship RUN NAME`: a run's best net into weights/ with the facts of how it was made.

What is shipped is the generation the run's state.json names as best: its ONNX file as
NAME.onnx and its checkpoint, stripped to weights and game metadata (no Adam moments, no RNG
state: a third of the size, and all `gomoku train --init` needs), as NAME.safetensors. Before
anything is written the two are run side by side (onnxruntime against torch) so the checkpoint
beside a net is that net. The manifest entry takes the game the net claims from the ONNX
metadata, the training figures from the run's files as they stood when that generation was
accepted (metrics.jsonl), with the machine that generation was trained on. Strength figures
already recorded for NAME are kept.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable

from gomoku.weights.manifest import (CHECKPOINT_SUFFIX, NET_SUFFIX, add_figures, check_entry, check_name,
                                     parse_strength, read_manifest, write_manifest)

from .atomic import write_bytes
from .checkpoint import Checkpoint, CheckpointError, encode, load_checkpoint
from .config import RunConfig, RunError, RunState, portable_command
from .hardware import trained_on
from .export import ExportError, model_from_checkpoint, verify
from .metrics import read_metrics
from .models import parameter_count

#: checkpoint meta that only resuming the same run uses (the optimiser's learning-rate multiplier)
RUN_ONLY_META = ("lr_mult",)


class ShipError(ValueError):
    """A run or weights folder that cannot be shipped from or to; one line."""


def _run_files(run: Path) -> tuple[RunConfig, RunState, dict[str, Any], Path, Path]:
    """The run's config, state, the metrics record of its best generation, and that
    generation's net and checkpoint; ShipError naming what is missing."""
    if not run.is_dir():
        raise ShipError(f"{run}: no such run folder")
    if not (run / "config.json").is_file() or not (run / "state.json").is_file():
        raise ShipError(f"{run}: not a training run (no config.json and state.json)")
    try:
        cfg, state = RunConfig.load(run), RunState.load(run)
    except RunError as exc:
        raise ShipError(str(exc)) from None
    g = state.best
    net = run / "nets" / f"gen{g:05d}{NET_SUFFIX}"
    if not net.is_file():
        raise ShipError(f"{run}: no best net ({net.relative_to(run)} is missing; has `gomoku train` run on it?)")
    if g == 0:
        raise ShipError(f"{run}: the best net is still generation 0, the one the run started from "
                        "(no trained generation has been accepted yet)")
    ckpt = run / "ckpt" / f"gen{g:05d}{CHECKPOINT_SUFFIX}"
    if not ckpt.is_file():
        raise ShipError(f"{run}: the best generation {g} has no checkpoint ({ckpt.relative_to(run)})")
    record = next((r for r in read_metrics(run / "metrics.jsonl") if r.get("generation") == g), None)
    if record is None:
        raise ShipError(f"{run}: metrics.jsonl has no record of the best generation {g}")
    return cfg, state, record, net, ckpt


def ship_run(run_dir: str | os.PathLike, name: str, folder: str | os.PathLike,
             strength: Iterable[str] = ()) -> dict[str, Any]:
    """Copy the run's best net and its weights-only checkpoint to folder/NAME.onnx and
    NAME.safetensors (each atomically) and write NAME's manifest entry, keeping the strength
    figures it had and adding `strength` ('OPPONENT|RESULT|COMMAND' texts). Returns the entry.
    ShipError or ManifestError (one line) before anything is written when the run cannot be shipped."""
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError

    check_name(name)
    figures = [parse_strength(t) for t in strength]
    run, folder = Path(run_dir), Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ShipError(f"{folder}: not a folder")
    nets = read_manifest(folder, missing_ok=True)
    cfg, state, record, net_src, ckpt_src = _run_files(run)
    try:
        info = NetEvaluator.load(net_src).info
        ck = load_checkpoint(ckpt_src)
        model, _ = model_from_checkpoint(ckpt_src)
        verify(str(net_src), model, model.players, [(cfg.width, cfg.height)])
    except (NetFormatError, CheckpointError) as exc:
        raise ShipError(str(exc)) from None
    except ExportError as exc:
        raise ShipError(f"{net_src.name} and {ckpt_src.name} are not the same net ({exc})") from None
    if (info.arch, info.players) != (ck.arch, ck.players):
        raise ShipError(f"{net_src}: {info.arch}, {info.players} players, but {ckpt_src.name} holds "
                        f"{ck.arch}, {ck.players} players")

    net_out, ck_out = folder / (name + NET_SUFFIX), folder / (name + CHECKPOINT_SUFFIX)
    slim = Checkpoint(arch=ck.arch, players=ck.players, model=ck.model,
                      meta={k: v for k, v in ck.meta.items() if k not in RUN_ONLY_META})
    net_bytes, ck_bytes = net_src.read_bytes(), encode(slim)
    training: dict[str, Any] = {
        "command": portable_command(cfg.command),
        "generations": state.generation,
        "best_generation": state.best,
        "games": int(record.get("games_total", 0)),
        "positions": int(record.get("positions_total", 0)),
        "steps": int(record.get("step", 0)),
        "wall_seconds": round(float(record.get("elapsed", 0.0))),
        "hardware": trained_on(record, ck.meta.get("provenance", {})),
        "device": cfg.device,
    }
    if cfg.init:
        training["init"] = cfg.init
    if cfg.distil:        # the other run's games the net started from, beside the run's own counts
        training["distilled"] = dict(cfg.extra.get("distilled", {"from": cfg.distil}))
    old = nets.get(name, {})
    entry: dict[str, Any] = {
        "file": net_out.name, "bytes": len(net_bytes), "sha256": hashlib.sha256(net_bytes).hexdigest(),
        "checkpoint": ck_out.name, "checkpoint_bytes": len(ck_bytes),
        "checkpoint_sha256": hashlib.sha256(ck_bytes).hexdigest(),
        "arch": info.arch, "parameters": parameter_count(model),
        "players": info.players, "win_length": info.win_length, "rules": info.rules,
        "board_sizes": info.board_sizes,
        "training": training,
        "strength": list(old.get("strength", [])),
    }
    add_figures(entry, figures)

    write_bytes(net_out, net_bytes)
    write_bytes(ck_out, ck_bytes)
    nets[name] = entry
    write_manifest(folder, nets)
    problems = check_entry(folder, name, entry)
    if problems:                      # what was written does not read back as written
        raise ShipError(problems[0])
    return entry

