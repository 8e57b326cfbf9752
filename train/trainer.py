"""One optimiser over one net: the loss, Adam, the KL-adaptive learning rate, checkpoints.

loss = value cross-entropy (outcome class from the mover's view) + policy cross-entropy
(search visit shares, or one-hot moves) + L2 on the weights. The policy softmax runs over the
empty cells only, as the engine's search takes it.

Learning rate: each update runs `epochs` steps on one batch and measures the KL divergence
between the policy before and after; the run's schedule (train.lr_schedule: the UCAS Gobang
paper's KL rule as junxiaosong/AlphaZero_Gomoku does it, its loss-plateau drop, or a constant
rate) sets the multiplier on --lr and, for the KL rule, stops the steps early once the KL
passes 4x the target. Policy entropy is tracked as the Columbia paper does: it falls as the
net becomes sure of its moves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, cast

import numpy as np
import torch
import torch.nn.functional as F

from .checkpoint import Checkpoint
from .lr_schedule import Schedule, ScheduleSettings, make_schedule
from .models import OFF_BOARD, PolicyValueNet, build_model
from .paper_models import tanh_value_loss
from .replay import Batch


@dataclass
class TrainSettings:
    lr: float = 2e-3
    l2: float = 1e-4
    kl_target: float = 0.02
    epochs: int = 5
    lr_mult_min: float = 0.1
    lr_mult_max: float = 10.0
    lr_schedule: str = "kl"             # kl | plateau | constant (train.lr_schedule)
    plateau_patience: int = 3           # plateau: bad generations in a row before the rate falls
    plateau_factor: float = 0.5

    def schedule(self) -> Schedule:
        return make_schedule(ScheduleSettings(name=self.lr_schedule, kl_target=self.kl_target,
                                              mult_min=self.lr_mult_min, mult_max=self.lr_mult_max,
                                              patience=self.plateau_patience, factor=self.plateau_factor))


def masked_log_softmax(logits: torch.Tensor, planes: torch.Tensor, players: int) -> torch.Tensor:
    """log p over the empty on-board cells. logits: N,H,W; planes: N,C,H,W -> N,H*W"""
    occupied = planes[:, :players].sum(dim=1) + (1.0 - planes[:, -1])        # N,H,W (>0: not playable)
    masked = logits - (occupied > 0).float() * OFF_BOARD
    return F.log_softmax(masked.flatten(1), dim=1)


def l2_penalty(model: torch.nn.Module) -> torch.Tensor:
    """Sum of squared weights of convolutions and linear layers (not biases or norms)."""
    # a tensor, not sum()'s start value 0: every net has a weight matrix
    return cast(torch.Tensor, sum((p * p).sum() for n, p in model.named_parameters() if p.dim() > 1))


def value_loss(model: PolicyValueNet, vlogits: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """Cross-entropy on the outcome class; for a net with the papers' tanh value (an -fc net),
    their MSE on the outcome, which a tanh trained by cross-entropy on its derived logits is not."""
    if getattr(model, "value_kind", "outcome") == "tanh":
        return tanh_value_loss(vlogits, value, model.players)
    return F.cross_entropy(vlogits, value)


class Trainer:
    """Owns a model, its Adam optimiser, the learning-rate schedule, the step counter and a numpy
    RNG (for sampling) so that a checkpoint captures everything a resumed run needs."""

    def __init__(self, model: PolicyValueNet, settings: Optional[TrainSettings] = None,
                 device: str = "cpu", seed: int = 0) -> None:
        self.settings = settings or TrainSettings()
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=self.settings.lr)
        self.schedule = self.settings.schedule()
        self.step = 0
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        # scored positions whose value targets join every update (train.teacher), and how many
        self.teacher: Optional[Any] = None
        self.teacher_batch = 0

    @property
    def lr_mult(self) -> float:
        """The schedule's multiplier on --lr for the next update."""
        return self.schedule.mult

    @lr_mult.setter
    def lr_mult(self, value: float) -> None:
        self.schedule.mult = float(value)

    # -- the loss ---------------------------------------------------------------------------------
    def losses(self, planes: torch.Tensor, policy: torch.Tensor, value: torch.Tensor
               ) -> tuple[torch.Tensor, dict[str, torch.Tensor], torch.Tensor]:
        """planes: N,C,H,W; policy: N,H,W targets; value: N classes ->
        (total loss, parts, log p N,H*W)"""
        logits, vlogits = self.model(planes)
        logp = masked_log_softmax(logits, planes, self.model.players)
        p_loss = -(policy.flatten(1) * logp).sum(dim=1).mean()
        v_loss = value_loss(self.model, vlogits, value)
        l2 = self.settings.l2 * l2_penalty(self.model)
        parts = {"policy_loss": p_loss, "value_loss": v_loss, "l2": l2}
        return p_loss + v_loss + l2, parts, logp

    def _tensors(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return (torch.from_numpy(batch.planes).to(self.device), torch.from_numpy(batch.policy).to(self.device),
                torch.from_numpy(batch.value).to(self.device))

    def update(self, batch: Batch) -> dict[str, float]:
        """Up to `epochs` Adam steps on one batch, then the schedule hears the update's KL.
        Returns loss parts, entropy, KL, the LR used and the steps taken."""
        s = self.settings
        planes, policy, value = self._tensors(batch)
        taught = None
        if self.teacher is not None and self.teacher_batch > 0:
            tp, tv = self.teacher.sample(self.teacher_batch, self.rng)
            taught = (torch.from_numpy(tp).to(self.device), torch.from_numpy(tv).to(self.device))
        self.model.train()
        with torch.no_grad():
            self.model.eval()
            old_logp = masked_log_softmax(self.model(planes)[0], planes, self.model.players)
            self.model.train()
        lr = s.lr * self.lr_mult
        for group in self.opt.param_groups:
            group["lr"] = lr
        kl = 0.0
        taken = 0
        for _ in range(s.epochs):
            self.opt.zero_grad(set_to_none=True)
            loss, parts, _ = self.losses(planes, policy, value)
            if taught is not None:
                t_loss = -(taught[1] * F.log_softmax(self.model(taught[0])[1], dim=1)).sum(dim=1).mean()
                parts["teacher_loss"] = t_loss
                loss = loss + t_loss
            loss.backward()
            self.opt.step()
            self.step += 1
            taken += 1
            with torch.no_grad():
                self.model.eval()
                new_logp = masked_log_softmax(self.model(planes)[0], planes, self.model.players)
                self.model.train()
                kl = float((old_logp.exp() * (old_logp - new_logp)).sum(dim=1).mean())
            if self.schedule.stop_early(kl):
                break
        self.schedule.after_update(kl)
        with torch.no_grad():
            p = new_logp.exp()
            entropy = float(-(p * new_logp.clamp(min=-1e3)).sum(dim=1).mean())
        out = {k: float(v.detach()) for k, v in parts.items()}
        out.update(loss=float(loss.detach()), entropy=entropy, kl=kl, lr=lr, lr_mult=self.lr_mult, steps=taken)
        return out

    @torch.no_grad()
    def evaluate(self, batch: Batch) -> dict[str, float]:
        """Loss parts on a batch without training (held-out figures)."""
        self.model.eval()
        planes, policy, value = self._tensors(batch)
        loss, parts, logp = self.losses(planes, policy, value)
        return {"loss": float(loss), **{k: float(v) for k, v in parts.items()}}

    @torch.no_grad()
    def teacher_losses(self, held: Any) -> np.ndarray:
        """float64[n]: the value head's cross-entropy against a teacher's soft target at every
        position of `held` (a train.teacher.TeacherSet kept out of training), without training;
        per position, so that one pass serves the mean of any part of them."""
        self.model.eval()
        parts = []
        for planes, target in held.batches():
            v = self.model(torch.from_numpy(planes).to(self.device))[1]
            t = torch.from_numpy(target).to(self.device)
            parts.append((-(t * F.log_softmax(v, dim=1)).sum(dim=1)).double().cpu().numpy())
        return np.concatenate(parts) if parts else np.zeros(0)

    # -- checkpoints ------------------------------------------------------------------------------
    def checkpoint(self, meta: dict[str, Any]) -> Checkpoint:
        """Weights, Adam state and both RNG states, plus `meta` (game settings, generation, ...)."""
        full = dict(meta)
        full.update(step=self.step, lr_mult=self.lr_mult, lr_schedule=self.schedule.state())
        return Checkpoint(arch=self.model.arch, players=self.model.players,
                          model={k: v.detach().cpu() for k, v in self.model.state_dict().items()},
                          meta=full, optimizer=self.opt.state_dict(), rng_torch=torch.get_rng_state(),
                          rng_numpy=dict(self.rng.bit_generator.state))

    @classmethod
    def from_checkpoint(cls, ck: Checkpoint, settings: Optional[TrainSettings] = None, device: str = "cpu",
                        weights_only: bool = False) -> "Trainer":
        """Resume a trainer exactly (weights_only=False) or start a new run's trainer from a net's
        weights (--init: fresh optimiser, counters at zero)."""
        model = build_model(ck.arch, ck.players)
        model.load_state_dict(ck.model)
        tr = cls(model, settings, device=device, seed=int(ck.meta.get("seed", 0)))
        if weights_only:
            return tr
        if ck.optimizer is not None:
            tr.opt.load_state_dict(ck.optimizer)
        tr.step = int(ck.meta.get("step", 0))
        saved = ck.meta.get("lr_schedule")
        if isinstance(saved, dict) and saved.get("name") == tr.schedule.name:
            tr.schedule.load(saved)
        else:       # a checkpoint of another schedule, or from before schedules were saved
            tr.lr_mult = float(ck.meta.get("lr_mult", 1.0))
        if ck.rng_torch is not None:
            torch.set_rng_state(ck.rng_torch)
        if ck.rng_numpy is not None:
            tr.rng.bit_generator.state = ck.rng_numpy
        return tr
