"""A run's settings (run/config.json) and its progress (run/state.json).

The game and the net (board, rule, win length, players, architecture, seed) are fixed when a
run is created; running the same command on an existing run resumes it, and asking for a
different game on it is refused in one line. Budgets and machine settings (hours,
generations, workers, device, ray) may change from one invocation to the next.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .atomic import write_json

#: fields that define what the run trains; a resumed run must not change them
FIXED = ("width", "height", "rule", "win_length", "players", "arch", "seed")


class RunError(ValueError):
    """A run folder or option that cannot be used; one line."""


@dataclass
class RunConfig:
    width: int
    height: int
    rule: str = "freestyle"            # or several, comma-separated: self-play alternates them
    win_length: int = 5
    players: int = 2
    arch: str = "b4c32"                 # on the cpu; CUDA_ARCH where torch trains on a GPU (default_arch)
    seed: int = 1
    # self-play
    games_per_gen: int = 64
    playouts: int = 400
    parallel_games: int = 32
    c_puct: float = 2.5                 # self-play, gating and the ladder's net
    select: str = "puct"                # selection rule of those searches: puct, ucb1 or plain
    dirichlet_eps: float = 0.25
    dirichlet_alpha: float = 0.0        # 0: 10 / (cells on the board), AlphaZero's scaling
    move_noise: float = 0.0             # the UCAS Gobang paper's noise on self-play's move distribution
    temperature_moves: int = 0          # 0: the engine's default (a sixth of the cells)
    opening_stones: int = 0             # self-play games start from 0..this many random central stones
    draw_value: float = 0.0             # self-play search's value of a draw for both sides (targets stay the outcome)
    full_search_prob: float = 0.25      # KataGo's playout cap randomisation; 1.0 = every move full
    cheap_playouts: int = 0             # 0: the engine's default (a fifth of playouts)
    resign_threshold: float = 0.0       # 0: never resign
    no_resign_share: float = 0.1
    dynamic_playouts: int = 0           # +this many self-play playouts when the ladder stalls (three-player paper)
    stall_generations: int = 5
    # bootstrap from the classical engine
    bootstrap_generations: int = 0
    bootstrap_nodes: int = 2000
    # training
    batch_size: int = 512
    updates_per_gen: int = 20           # each update: up to `epochs` steps on one batch
    epochs: int = 5
    lr: float = 2e-3
    l2: float = 1e-4
    kl_target: float = 0.02
    lr_schedule: str = "kl"             # kl | plateau | constant (train.lr_schedule)
    plateau_patience: int = 3           # plateau: generations without a better loss before the rate halves
    window: int = 50_000                # positions in the sliding window
    # evaluation
    eval_games: int = 20                # 3-4 players: rounded up to whole cycles of 2 x players games
    eval_playouts: int = 200
    gate: float = 0.55                  # 0: always replace
    ladder_start: int = 1000
    ladder_step: int = 1000
    ladder_games: int = 10
    ladder_opponent: str = "pure-mcts"  # spec of the ladder's opponent; each rung appends playouts=N
    ladder_win: float = 0.7             # 2 players: score that beats a rung (draws count half)
    ladder_share: float = 0.5           # 3-4 players: share of the points to exceed (three-player paper: A's > B's)
    classical_games: int = 10           # games against the classical engine's current level (0: none)
    # machine
    workers: int = 0                    # 0: one per core
    ray: Optional[str] = None           # self-play on Ray: "local" or a cluster address
    device: str = "cpu"
    init: Optional[str] = None
    distil: Optional[str] = None        # a run folder whose newest games train the new net before self-play
    distil_updates: int = 2000
    scores: list[str] = field(default_factory=list)   # teacher-scored positions for the value head
    scores_batch: int = 256
    scores_holdout: float = 0.1          # share of the teacher's games kept out of training, to score it
    scores_decided_weight: float = 1.0   # a decided scored position's chance to be drawn against a quiet one's
    command: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rules(self) -> list[str]:
        """The rules self-play plays, in chunk order ('freestyle,standard': one net for both)."""
        return self.rule.split(",")

    @property
    def main_rule(self) -> str:
        """The rule the run is measured under (ladder, classical levels, gating): the first."""
        return self.rules[0]

    def knobs(self) -> dict[str, Any]:
        """The search and learning settings a net's provenance records: what self-play, gating
        and the ladder searched with (engine defaults made explicit) and how the rate moved, so
        a net says how it was trained even where the command left them at their defaults."""
        from gomoku.engine.mcts.selfplay import SelfPlayConfig
        engine = SelfPlayConfig(width=self.width, height=self.height, dirichlet_alpha=self.dirichlet_alpha,
                                temperature_moves=self.temperature_moves)
        out: dict[str, Any] = {
            "playouts": self.playouts, "c_puct": self.c_puct, "select": self.select,
            "dirichlet_eps": self.dirichlet_eps, "dirichlet_alpha": round(engine.alpha(), 6),
            "move_noise": self.move_noise, "temperature_moves": engine.temp_moves(),
            "lr": self.lr, "lr_schedule": self.lr_schedule, "ladder_opponent": self.ladder_opponent}
        if self.lr_schedule == "kl":
            out["kl_target"] = self.kl_target
        if self.lr_schedule == "plateau":
            out["plateau_patience"] = self.plateau_patience
        return out

    def worker_count(self) -> int:
        from gomoku.engine.base.processes import usable_cores
        return self.workers if self.workers > 0 else usable_cores()

    def save(self, run: Path) -> None:
        write_json(run / "config.json", dataclasses.asdict(self))

    @classmethod
    def load(cls, run: Path) -> "RunConfig":
        path = run / "config.json"
        try:
            data = json.loads(path.read_text())
            data.setdefault("scores_holdout", 0.0)    # runs made before the holdout trained on every scored game
            names = {f.name for f in dataclasses.fields(cls)}
            return cls(**{k: v for k, v in data.items() if k in names})
        except (OSError, ValueError, TypeError) as exc:
            raise RunError(f"{path}: unreadable run configuration ({exc})") from None


#: the architecture a new run trains on cuda when none is named (a larger net a GPU trains in time)
CUDA_ARCH = "b6c64"


def default_arch(device: str) -> str:
    """The architecture of a new run that names none: RunConfig.arch, or CUDA_ARCH on cuda."""
    return CUDA_ARCH if device == "cuda" else RunConfig.arch


@dataclass
class RunState:
    """Where the run stands. `generation` generations are complete; the next one is in `phase`."""
    generation: int = 0
    phase: str = "selfplay"             # selfplay -> train -> evaluate -> (next generation) selfplay
    best: int = 0                       # generation whose net self-play uses
    step: int = 0                       # optimiser steps so far (also in the checkpoint)
    games: int = 0
    positions: int = 0
    elapsed: float = 0.0                # seconds of work over all invocations
    playouts: int = 0                   # current self-play playouts (dynamic playouts move it)
    ladder: int = 0                     # pure-MCTS playouts the net is trying to beat next
    ladder_since: int = 0               # generation at which `ladder` was last raised
    classical_level: int = 1            # classical engine level the net is trying to beat next
    beaten: dict[str, int] = field(default_factory=dict)   # opponent -> optimiser steps when first beaten
    pending: dict[str, Any] = field(default_factory=dict)  # this generation's phase figures so far

    def save(self, run: Path) -> None:
        write_json(run / "state.json", dataclasses.asdict(self))

    @classmethod
    def load(cls, run: Path) -> "RunState":
        path = run / "state.json"
        try:
            return cls(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise RunError(f"{path}: unreadable run state ({exc})") from None


def check_same_run(old: RunConfig, new: RunConfig, run: Path) -> None:
    for key in FIXED:
        a, b = getattr(old, key), getattr(new, key)
        if a != b:
            raise RunError(f"{run}: this run trains {key}={a}, the command asks for {b} "
                           "(use another --run folder)")


#: options whose value is a run folder: recorded as runs/<its name>, the name the net's provenance gives
_RUN_FOLDER_OPTIONS = ("--run", "--distil")


def _portable(option: str, value: str) -> str:
    if option in _RUN_FOLDER_OPTIONS:
        return f"runs/{Path(value).name}"
    if option == "--init" and Path(value).parent.name == "weights":
        return f"weights/{Path(value).name}"         # a shipped checkpoint, wherever weights/ lay
    if option == "--scores" and Path(value).parent.parts[-2:] == ("tools", "data"):
        return f"tools/data/{Path(value).name}"      # the repository's teacher scores, wherever it lay
    return value


def portable_command(text: str) -> str:
    """The training command as a net's provenance and the shipped manifest record it: each run
    folder (--run, --distil) given as runs/<folder name>, since where it lay is a path of one
    machine, and the folder's own name is what `gomoku info` shows as the run; a shipped
    checkpoint given to --init as weights/<file>; the repository's teacher scores given to
    --scores as tools/data/<file>. Runs made before
    the recording was fixed wrote the subcommand twice ('gomoku train train --board ...'); the
    record says it once."""
    doubled = "gomoku train train "
    if text.startswith(doubled):
        text = "gomoku train " + text[len(doubled):]
    try:
        words = shlex.split(text)
    except ValueError:
        return text
    out: list[str] = []
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        if eq and option.startswith("--"):
            word = f"{option}={_portable(option, value)}"
        elif i:
            word = _portable(words[i - 1], word)
        out.append(word)
    return " ".join(shlex.quote(w) for w in out)
