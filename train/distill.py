"""`gomoku distill`: a learned evaluator trained on searched positions (the label engine's files).

What it learns from is what Stockfish's NNUE trainers and Rapfi's learned from: positions a
search at a fixed node budget scored, each with the search's score, its best move and the
game's result (train.labelset). What it learns:

* value: the probability that the side to move wins, against the target
  lam * sigmoid(search score / K) + (1 - lam) * result (train.labelset.LabelSet.target);
* policy: the search's best move (cross-entropy over the board's cells), weighted by
  `policy_weight`.

In the **residual** form (the default) the value logit is the tables' score / K plus the net's
win logit less its loss logit, and the net's last layer starts at zero: the untrained net plays
exactly the tables, and training can only move it where the labels say the tables are wrong.
The **alone** form replaces the tables (its three logits trained on the soft target (p, 1-p, 0)),
the form `gomoku train --arch mixF` makes; the two are compared on the same held-out games.

A run folder keeps the settings (config.json), the learning curves (metrics.jsonl, one record
per evaluation: `gomoku plot RUN` draws them), a checkpoint after each evaluation (a rerun of
the same command continues from it, after Ctrl-C or kill -9) and the evaluator file
RUN/NAME.eval.npz, rewritten with each checkpoint.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch
import torch.nn.functional as F

from gomoku.engine.search.learned import DEFAULT_EVAL_SCALE
from gomoku.engine.search.learned_file import ALONE, RESIDUAL, save_evaluator

from .atomic import write_json
from .checkpoint import Checkpoint, CheckpointError, load_checkpoint, save_checkpoint
from .hardware import hardware
from .labelset import LabelSet
from .metrics import put_record
from .mixnet import MixNet
from .teacher import _planes

CHECKPOINT = "checkpoint.safetensors"
CONFIG = "config.json"
METRICS = "metrics.jsonl"


class DistillError(ValueError):
    """A run that cannot start or continue; one line."""


@dataclass(frozen=True)
class DistillConfig:
    """A distillation run's settings; a rerun must give the same ones (but `steps`, which may grow)."""
    labels: tuple[str, ...]
    rule: str = "freestyle"
    features: int = 16
    hidden: int = 32
    form: str = RESIDUAL
    lam: float = 0.7
    scale: float = DEFAULT_EVAL_SCALE
    steps: int = 4000
    batch: int = 1024
    lr: float = 2e-3
    policy_weight: float = 0.1
    holdout: float = 0.05
    eval_every: int = 250
    max_positions: Optional[int] = None
    seed: int = 1
    name: str = "distilled"

    def changed(self, other: dict[str, Any]) -> list[str]:
        """The settings (but steps) that differ from a run folder's config.json."""
        mine = json.loads(json.dumps(asdict(self)))
        return [k for k, v in mine.items() if k != "steps" and other.get(k) != v]


@dataclass
class Curves:
    """One evaluation's figures (held out: whole games the training never saw)."""
    step: int
    train_value: float
    train_policy: float
    held_value: float
    held_tables: float
    held_top1: float
    lr: float
    seconds: float

    def record(self, generation: int) -> dict[str, Any]:
        return {"generation": generation, "step": self.step,
                "distill": {"train_value": self.train_value, "train_policy": self.train_policy,
                            "held_value": self.held_value, "held_tables": self.held_tables,
                            "held_top1": self.held_top1, "lr": self.lr, "seconds": self.seconds}}


def build_net(cfg: DistillConfig) -> MixNet:
    """A mix net of the run's size; a residual one's value layer zeroed (it plays the tables)."""
    torch.manual_seed(cfg.seed)
    net = MixNet(cfg.features, 2, cfg.rule, hidden=cfg.hidden)
    if cfg.form == RESIDUAL:
        with torch.no_grad():
            net.w2.zero_()
            net.b2.zero_()
    return net


def _symmetry(stones: np.ndarray, best: np.ndarray, k: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Stones and best-move cells under the k-th of the square's eight symmetries."""
    t = np.rot90(stones, k % 4, axes=(1, 2))
    x, y = best % width, best // width
    for _ in range(k % 4):                    # np.rot90's turn (counter-clockwise): (x, y) -> (y, W-1-x)
        x, y = y, width - 1 - x
    if k >= 4:
        t = t[:, :, ::-1]
        x = width - 1 - x
    return np.ascontiguousarray(t), (y * width + x).astype(np.int64)


def value_logit(net: MixNet, value: torch.Tensor, tables: torch.Tensor, cfg: DistillConfig) -> torch.Tensor:
    """The side to move's win logit as the search reads the net: the tables' score / K plus
    win less loss (residual), or the logit of the expected score (alone: engine.search.learned's
    mix_score, draws at 1/2)."""
    if cfg.form == RESIDUAL:
        return tables / cfg.scale + value[:, 0] - value[:, 1]
    p = torch.softmax(value, dim=1)
    e = ((p[:, 0] - p[:, 1]) / p.sum(dim=1)).clamp(-0.9999, 0.9999)
    return torch.log1p(e) - torch.log1p(-e)


def _losses(net: MixNet, data: LabelSet, rows: np.ndarray, target: np.ndarray, cfg: DistillConfig,
            k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Value loss and policy loss of the rows under symmetry k."""
    width = data.stones.shape[2]
    stones, best = _symmetry(data.stones[rows], data.best[rows].astype(np.int64), k, width)
    planes = torch.from_numpy(_planes(stones, data.mover[rows].astype(np.int64)))
    policy, value = net(planes)
    t = torch.from_numpy(target[rows])
    if cfg.form == RESIDUAL:
        z = value_logit(net, value, torch.from_numpy(data.tables[rows]), cfg)
        value_loss = F.binary_cross_entropy_with_logits(z, t)
    else:
        soft = torch.stack([t, 1.0 - t, torch.zeros_like(t)], dim=1)
        value_loss = -(soft * F.log_softmax(value, dim=1)).sum(dim=1).mean()
    policy_loss = F.cross_entropy(policy.reshape(policy.shape[0], -1), torch.from_numpy(best))
    return value_loss, policy_loss


def _held_figures(net: MixNet, held: LabelSet, target: np.ndarray, cfg: DistillConfig) -> tuple[float, float, float]:
    """Held-out value cross-entropy as the search reads the net, the tables' on the same
    positions, and the policy's top-1 agreement with the search's move."""
    if not len(held):
        return math.nan, math.nan, math.nan
    ce = tab = hits = 0.0
    net.eval()
    with torch.no_grad():
        for a in range(0, len(held), 2048):
            rows = np.arange(a, min(len(held), a + 2048))
            stones = torch.from_numpy(_planes(held.stones[rows], held.mover[rows].astype(np.int64)))
            policy, value = net(stones)
            t = torch.from_numpy(target[rows])
            tables = torch.from_numpy(held.tables[rows])
            z = value_logit(net, value, tables, cfg)
            ce += float(F.binary_cross_entropy_with_logits(z, t, reduction="sum"))
            tab += float(F.binary_cross_entropy_with_logits(tables / cfg.scale, t, reduction="sum"))
            flat = policy.reshape(policy.shape[0], -1)
            hits += float((flat.argmax(dim=1) == torch.from_numpy(held.best[rows].astype(np.int64))).sum())
    net.train()
    n = float(len(held))
    return ce / n, tab / n, hits / n


def _lr_at(cfg: DistillConfig, step: int) -> float:
    """Cosine decay from lr to lr / 20 over the run's steps."""
    frac = min(1.0, step / max(1, cfg.steps))
    return cfg.lr * (0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * frac)))


def evaluator_file(run: Path, cfg: DistillConfig) -> Path:
    return run / f"{cfg.name}.eval.npz"


def save_outputs(run: Path, net: MixNet, opt: torch.optim.Optimizer, cfg: DistillConfig, step: int,
                 rng: np.random.Generator, data: LabelSet) -> None:
    """The checkpoint, then the evaluator file of the same weights (each written atomically)."""
    save_checkpoint(run / CHECKPOINT, Checkpoint(arch=net.arch, players=2, model=net.state_dict(),
                                                 meta={"step": step, "rule": cfg.rule, "form": cfg.form},
                                                 optimizer=opt.state_dict(), rng_torch=torch.get_rng_state(),
                                                 rng_numpy=dict(rng.bit_generator.state)))
    provenance = {"command": "gomoku distill", "labels": [Path(p).name for p in cfg.labels], "positions": len(data),
                  "games": data.games, "step": step, "lam": cfg.lam, "hardware": hardware()}
    save_evaluator(evaluator_file(run, cfg), net.evaluator_weights(), net.arch, cfg.rule, cfg.scale, provenance,
                   form=cfg.form)


def prepare_run(run: Path, cfg: DistillConfig) -> None:
    """A new run folder with config.json, or the check that a rerun gives its settings."""
    if cfg.form not in (ALONE, RESIDUAL):
        raise DistillError(f"form {cfg.form!r}: {ALONE} or {RESIDUAL}")
    run.mkdir(parents=True, exist_ok=True)
    path = run / CONFIG
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DistillError(f"{path}: not readable ({exc})") from None
        differ = cfg.changed(old)
        if differ:
            raise DistillError(f"{run} was started with other {', '.join(differ)} ({path}): give the same options "
                               "to continue it, or another folder")
    write_json(path, asdict(cfg))


def distill(run: Path, cfg: DistillConfig, data: LabelSet,
            report: Callable[[Curves], None] = lambda c: None,
            tick: Callable[[int], None] = lambda s: None) -> Optional[Curves]:
    """Train (or continue) the run on `data` up to cfg.steps; returns the last evaluation's
    figures (None when the run had already reached its steps). `report` gets each evaluation,
    `tick` each step."""
    train, held = data.split(cfg.holdout)
    if not len(train):
        raise DistillError(f"every game is held out (--holdout {cfg.holdout} of {data.games} games)")
    net = build_net(cfg)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    step = 0
    ck_path = run / CHECKPOINT
    if ck_path.is_file():
        try:
            ck = load_checkpoint(ck_path)
            net.load_state_dict(ck.model)
            if ck.optimizer is not None:
                opt.load_state_dict(ck.optimizer)
            if ck.rng_torch is not None:
                torch.set_rng_state(ck.rng_torch)
            if ck.rng_numpy is not None:
                rng.bit_generator.state = ck.rng_numpy
            step = int(ck.meta.get("step", 0))
        except (CheckpointError, RuntimeError, KeyError, ValueError) as exc:
            raise DistillError(f"{ck_path}: cannot continue from it ({str(exc).splitlines()[0]})") from None
    if step >= cfg.steps:
        return None
    target_train = train.target(cfg.scale, cfg.lam)
    target_held = held.target(cfg.scale, cfg.lam)
    sums = [0.0, 0.0, 0]
    started = time.monotonic()
    last: Optional[Curves] = None
    net.train()
    while step < cfg.steps:
        for group in opt.param_groups:
            group["lr"] = _lr_at(cfg, step)
        rows = rng.integers(0, len(train), size=min(cfg.batch, len(train)))
        value_loss, policy_loss = _losses(net, train, rows, target_train, cfg, int(rng.integers(0, 8)))
        loss = value_loss + cfg.policy_weight * policy_loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        sums[0] += value_loss.item()
        sums[1] += policy_loss.item()
        sums[2] += 1
        tick(step)
        if step % cfg.eval_every == 0 or step == cfg.steps:
            held_value, held_tables, top1 = _held_figures(net, held, target_held, cfg)
            generation = math.ceil(step / cfg.eval_every)     # the same record after a rerun
            last = Curves(step, sums[0] / sums[2], sums[1] / sums[2], held_value, held_tables, top1,
                          _lr_at(cfg, step), time.monotonic() - started)
            save_outputs(run, net, opt, cfg, step, rng, data)
            put_record(run / METRICS, last.record(generation))
            report(last)
            sums = [0.0, 0.0, 0]
    return last
