"""The settings of an ADP run (`gomoku train --arch adp|adp-er|dqn`, gomoku.train.adp), apart
from the trainer: `gomoku train` reads its options' defaults from AdpConfig's fields when the
CLI loads, and the CLI must load without torch, which gomoku.train.adp needs."""
from __future__ import annotations

from dataclasses import dataclass, field

from .config import RunConfig

#: the three agents: arch -> (hidden layers when --hidden is not given, learning rule)
ADP_ARCHS: dict[str, tuple[tuple[int, ...], str]] = {
    "adp": ((100,), "td"),
    "adp-er": ((100,), "replay"),
    "dqn": ((16, 16), "q"),
}


@dataclass
class AdpConfig:
    width: int
    height: int
    rule: str = "freestyle"
    arch: str = "adp"
    features: int = 30
    hidden: list[int] = field(default_factory=lambda: [100])
    alpha: float = 0.1
    gamma: float = 1.0
    epsilon: float = 0.1
    buffer: int = 20_000
    replay_batch: int = 5_000
    # shared with the AlphaZero runs: `gomoku train --games-per-gen` and `--seed` serve both
    games_per_gen: int = RunConfig.games_per_gen
    seed: int = RunConfig.seed
    command: str = ""

    @property
    def learning(self) -> str:
        return ADP_ARCHS[self.arch][1]

    @property
    def arch_label(self) -> str:
        """The net's name in its metadata: arch, features and hidden layers (adp-f30-h100)."""
        return f"{self.arch}-f{self.features}-h{'x'.join(str(h) for h in self.hidden)}"
