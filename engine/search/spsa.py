"""SPSA: tune search parameters by self-play, as fishtest and Rapfi tune theirs.

Each iteration k perturbs every tuned parameter at once by +-c_k (a random sign each), plays
the two perturbed engines against each other (theta + c_k delta against theta - c_k delta, an
opening with colours swapped), and moves theta along the sign vector by how much the plus side
won. The gradient is never measured, only its projection on a random direction, which costs
the same two games however many parameters are tuned (Spall's simultaneous perturbation).

Schedules are fishtest's: c_k = c_end * (N / k)^gamma with gamma 0.101, so the perturbation
shrinks to `c_end` (the table's SPSA step, engine.search.params) at the last iteration N; the
gain a_k = a / (A + k)^alpha with alpha 0.602, A = N / 10, and a fixed by r_end, the learning
rate a_N / c_N^2 at the end (fishtest's default 0.002). An iteration's update is
theta_i += a_k / c_k * result * delta_i, where result = wins - losses of the plus side.

This module is arithmetic and state only (no games, no numba): `tools.spsa_cmd` plays the
games and keeps the state on disk. The perturbation's signs come from (seed, k) alone, so a
run resumed after a kill replays nothing and draws the same directions it would have drawn.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gomoku.engine.search.params import BY_NAME, DEFAULT, Number, Param, SearchParams

ALPHA = 0.602
GAMMA = 0.101
R_END = 0.002


def tunable(names: Sequence[str]) -> list[Param]:
    """The table's entries of `names`; switches (0/1) cannot be tuned by small steps.
    ValueError with one line for a name that is unknown, repeated or a switch."""
    out: list[Param] = []
    for raw in names:
        name = raw.strip().lower().replace("-", "_")
        p = BY_NAME.get(name)
        if p is None:
            raise ValueError(f"unknown search parameter {raw!r} (gomoku params lists them)")
        if p.kind is bool:
            raise ValueError(f"{name} is a switch: test it with an SPRT, not SPSA")
        if p in out:
            raise ValueError(f"{name} is named twice")
        out.append(p)
    if not out:
        raise ValueError("name at least one search parameter to tune")
    return out


@dataclass
class SpsaState:
    """One run: what is tuned (`names`, from `start`), for how long (`iterations`), and where
    it stands (`k` iterations done, `theta` the current real-valued point)."""
    names: list[str]
    iterations: int
    start: dict[str, float]
    theta: dict[str, float]
    seed: int = 0
    r_end: float = R_END
    k: int = 0
    wins: int = 0          # the plus side's, over all iterations
    losses: int = 0
    draws: int = 0
    settings: dict[str, Any] = field(default_factory=dict)   # what the games are (nodes, rule, ...)

    @classmethod
    def new(cls, names: Sequence[str], iterations: int, base: SearchParams = DEFAULT, seed: int = 0,
            r_end: float = R_END, settings: Mapping[str, Any] | None = None) -> "SpsaState":
        params = tunable(names)
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        start = {p.name: float(base[p.name]) for p in params}
        return cls([p.name for p in params], iterations, start, dict(start), seed, r_end,
                   settings=dict(settings or {}))

    @property
    def params(self) -> list[Param]:
        return [BY_NAME[n] for n in self.names]

    @property
    def done(self) -> bool:
        return self.k >= self.iterations

    def c(self, k: int) -> dict[str, float]:
        """Each parameter's perturbation at iteration k (1-based)."""
        return {p.name: p.step * (self.iterations / k) ** GAMMA for p in self.params}

    def a(self, k: int) -> dict[str, float]:
        """Each parameter's gain at iteration k: fixed by r_end at the last iteration."""
        big_a = 0.1 * self.iterations
        return {p.name: self.r_end * p.step ** 2 * (big_a + self.iterations) ** ALPHA / (big_a + k) ** ALPHA
                for p in self.params}

    def signs(self, k: int) -> dict[str, int]:
        """Iteration k's random direction: +1 or -1 per parameter, from (seed, k) alone."""
        rng = random.Random(self.seed * 1_000_003 + k)
        return {n: rng.choice((-1, 1)) for n in self.names}

    def perturbed(self, base: SearchParams = DEFAULT) -> tuple[SearchParams, SearchParams]:
        """The next iteration's two players' parameters: theta + c delta and theta - c delta,
        each clipped to the parameter's range and rounded where it is a whole number."""
        k = self.k + 1
        c, s = self.c(k), self.signs(k)
        plus = {n: self.theta[n] + c[n] * s[n] for n in self.names}
        minus = {n: self.theta[n] - c[n] * s[n] for n in self.names}
        return base.replace(**_typed(self.params, plus)), base.replace(**_typed(self.params, minus))

    def update(self, wins: int, losses: int, draws: int) -> None:
        """Iteration k+1's result from the plus side's view: move theta, count it."""
        k = self.k + 1
        c, a, s = self.c(k), self.a(k), self.signs(k)
        result = wins - losses
        for p in self.params:
            n = p.name
            self.theta[n] = min(float(p.hi), max(float(p.lo), self.theta[n] + a[n] / c[n] * result * s[n]))
        self.k = k
        self.wins += wins
        self.losses += losses
        self.draws += draws

    def values(self) -> dict[str, Number]:
        """theta as the table's typed values (the parameter file's content)."""
        return _typed(self.params, self.theta)

    def to_json(self) -> dict[str, Any]:
        return {"names": self.names, "iterations": self.iterations, "start": self.start, "theta": self.theta,
                "seed": self.seed, "r_end": self.r_end, "k": self.k, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "settings": self.settings}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SpsaState":
        try:
            state = cls(list(data["names"]), int(data["iterations"]), dict(data["start"]), dict(data["theta"]),
                        int(data["seed"]), float(data["r_end"]), int(data["k"]), int(data["wins"]),
                        int(data["losses"]), int(data["draws"]), dict(data.get("settings", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not an SPSA state ({exc})") from None
        tunable(state.names)
        return state


def _typed(params: Sequence[Param], values: Mapping[str, float]) -> dict[str, Number]:
    out: dict[str, Number] = {}
    for p in params:
        v = min(float(p.hi), max(float(p.lo), values[p.name]))
        out[p.name] = v if p.kind is float else int(round(v))
    return out


__all__ = ["SpsaState", "tunable", "ALPHA", "GAMMA", "R_END"]
