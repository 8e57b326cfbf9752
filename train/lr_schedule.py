"""Learning-rate schedules of a run (`gomoku train --lr-schedule kl|plateau|constant`).

Each schedule is a multiplier on the run's --lr that the trainer reads before every update.
It hears about each update's KL divergence (the policy before and after it) and about each
generation's start and mean loss, and keeps its whole state in a small dict that goes into
every checkpoint and partial save, so a resumed run continues with the multiplier it had.

- `kl`: the UCAS Gobang paper's rule as junxiaosong/AlphaZero_Gomoku implements it ("if the
  change is too large, the learning rate should be decreased ... if the change is too small,
  increase the learning rate"), with two changes measured on small runs: the rate rises
  whenever the KL is below its target (AlphaZero_Gomoku: below half of it), and every
  generation starts halfway (geometrically) back towards 1x. With the old rule a burst of
  one-hot or new targets drove the multiplier to its floor within a few updates, and the
  quiet updates after it, their KL between half the target and the target, never raised it
  again: every 15x15 run sat at 0.09x.
- `plateau`: the same paper's other rule, "if the loss does not decrease after continuous
  multi-turn, then the learning rate should be reduced": a generation whose mean loss is not
  1 % below the best so far is a bad one, and after `patience` bad generations in a row the
  multiplier is multiplied by `factor`. The paper adds that a decreasing loss "can" raise the
  rate; that half is left to `kl`, so a plateau run's rate only falls.
- `constant`: the rate stays --lr; every update takes all its steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

SCHEDULES = ("kl", "plateau", "constant")

#: a generation improves on the best mean loss when it is this share below it
PLATEAU_THRESHOLD = 0.01
#: the plateau rule's lowest multiplier (a hundredth of --lr)
PLATEAU_MIN_MULT = 0.01


@dataclass
class ScheduleSettings:
    """What a run's schedule is built from (train.trainer.TrainSettings carries these)."""
    name: str = "kl"
    kl_target: float = 0.02
    mult_min: float = 0.1
    mult_max: float = 10.0
    patience: int = 3
    factor: float = 0.5


class Schedule:
    """A learning-rate multiplier and the rule that moves it."""

    name = "constant"

    def __init__(self, settings: ScheduleSettings) -> None:
        self.s = settings
        self.mult = 1.0

    def stop_early(self, kl: float) -> bool:
        """Whether an update stops taking steps on its batch after one with this KL."""
        return False

    def after_update(self, kl: float) -> None:
        """An update ended with this KL between the policy before and after it."""

    def start_generation(self) -> None:
        """A generation's training begins (not called again when it resumes from a save)."""

    def end_generation(self, loss: float) -> None:
        """A generation's training ended with this mean loss (policy + value) over its updates."""

    def state(self) -> dict[str, Any]:
        return {"name": self.name, "mult": self.mult}

    def load(self, state: dict[str, Any]) -> None:
        self.mult = float(state.get("mult", 1.0))


class KLSchedule(Schedule):
    """The KL-adaptive multiplier (module docstring): x1.5 or /1.5 per update within
    [mult_min, mult_max], halfway back to 1x at each generation."""

    name = "kl"

    def stop_early(self, kl: float) -> bool:
        return kl > 4 * self.s.kl_target

    def after_update(self, kl: float) -> None:
        if kl > 2 * self.s.kl_target:
            self.mult = max(self.s.mult_min, self.mult / 1.5)
        elif kl < self.s.kl_target:
            self.mult = min(self.s.mult_max, self.mult * 1.5)

    def start_generation(self) -> None:
        self.mult = math.sqrt(self.mult)


class PlateauSchedule(Schedule):
    """The loss-plateau drop (module docstring)."""

    name = "plateau"

    def __init__(self, settings: ScheduleSettings) -> None:
        super().__init__(settings)
        self.best: Optional[float] = None
        self.bad = 0

    def end_generation(self, loss: float) -> None:
        if self.best is None or loss < self.best * (1.0 - PLATEAU_THRESHOLD):
            self.best, self.bad = loss, 0
            return
        self.best = min(self.best, loss)
        self.bad += 1
        if self.bad >= self.s.patience:
            self.mult = max(PLATEAU_MIN_MULT, self.mult * self.s.factor)
            self.bad = 0

    def state(self) -> dict[str, Any]:
        return {**super().state(), "best": self.best, "bad": self.bad}

    def load(self, state: dict[str, Any]) -> None:
        super().load(state)
        self.best = None if state.get("best") is None else float(state["best"])
        self.bad = int(state.get("bad", 0))


def make_schedule(settings: ScheduleSettings) -> Schedule:
    """The schedule a run's settings name; ValueError for another name."""
    kinds = {"kl": KLSchedule, "plateau": PlateauSchedule, "constant": Schedule}
    if settings.name not in kinds:
        raise ValueError(f"unknown learning-rate schedule {settings.name!r} (use {', '.join(SCHEDULES)})")
    return kinds[settings.name](settings)
