"""A training run's folder and state: the layout, the config and state files, the run's clock,
resuming, and the saves of a generation's training in progress.

Every stage of the loop (train.selfplay_stage, train.training_stage, train.evaluation_stage)
reads and writes the run through this one object, so the file layout and what a resume
finds are decided here and nowhere else:

    config.json  state.json  metrics.jsonl
    replay/gen00003-selfplay-0001.npz    one shard per finished chunk of games
    ckpt/gen00003.safetensors            weights, Adam and RNG state after generation 3's training
    ckpt/gen00004.partial.safetensors    the same partway through generation 4's training (its
                                         update count and loss sums in the meta); gone once it ends
    nets/gen00003.onnx, nets/best.onnx   verified exports; best.onnx is what self-play uses
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Optional

from .atomic import clean_temporaries
from .checkpoint import CheckpointError, checkpoint_meta, save_checkpoint
from .config import RunConfig, RunState, check_same_run, portable_command
from .hardware import hardware
from .models import is_learned_arch
from .replay import ReplayStore

#: settings a resumed run takes from the command rather than from its folder: the machine and
#: budget, and the measuring games that choose no net (ladder, classical levels); the game,
#: the net and the gate stay the run's
COMMAND_SETTINGS = ("workers", "device", "ray", "command", "ladder_games", "classical_games")


def gen_name(g: int) -> str:
    """Generation g's name in the folder's files: gen00003."""
    return f"gen{g:05d}"


class RunFolder:
    """One run folder: its config, its state, its replay store and where each file lives.

    `open` finds a run to resume (config.json and state.json both there) or a folder to
    create; `state` is None until `create` (the caller trains generation 0 and then calls
    `save_new`, so a kill before state.json exists makes the same command create the run again)."""

    def __init__(self, folder: str | os.PathLike, cfg: RunConfig, state: Optional[RunState] = None,
                 elapsed: float = 0.0) -> None:
        self.dir = Path(folder)
        self.cfg = cfg
        self.state: Any = state
        self.resumed = state is not None
        self.store = ReplayStore(self.dir / "replay")
        self.hardware = hardware()          # this process's machine: each generation records it
        self._t0 = time.monotonic()
        self._elapsed0 = elapsed

    @classmethod
    def open(cls, folder: str | os.PathLike, config: RunConfig) -> "RunFolder":
        """The run in `folder` to resume, checked to be the same run as `config` (RunError
        otherwise), or a new one to create with `config`."""
        folder = Path(folder)
        if not ((folder / "config.json").is_file() and (folder / "state.json").is_file()):
            return cls(folder, config)
        old = RunConfig.load(folder)
        check_same_run(old, config, folder)
        for key in COMMAND_SETTINGS:
            setattr(old, key, getattr(config, key))
        state = RunState.load(folder)
        for sub in ("replay", "ckpt", "nets", ""):
            clean_temporaries(folder / sub)
        return cls(folder, old, state, state.elapsed)

    def create(self) -> None:
        """The folders and the first state of a new run (not saved yet: see `save_new`)."""
        for sub in ("replay", "ckpt", "nets"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.state = RunState(playouts=self.cfg.playouts, ladder=self.cfg.ladder_start)

    def save_new(self) -> None:
        """A new run's config, then its state: last, because a run without state.json is
        created again."""
        self.cfg.save(self.dir)
        self.state.save(self.dir)

    # -- where things are -------------------------------------------------------------------------
    def ckpt(self, g: int) -> Path:
        return self.dir / "ckpt" / f"{gen_name(g)}.safetensors"

    def partial(self, g: int) -> Path:
        """Generation g's training so far (while it runs)."""
        return self.dir / "ckpt" / f"{gen_name(g)}.partial.safetensors"

    def net(self, g: int) -> Path:
        return self.dir / "nets" / f"{gen_name(g)}.onnx"

    @property
    def learned(self) -> bool:
        """A run of the learned evaluator (mixF): its games and its matches are the alpha-beta's."""
        return is_learned_arch(self.cfg.arch)

    # -- the clock and the state ------------------------------------------------------------------
    def elapsed(self) -> float:
        """Seconds the run has run, over all its processes."""
        return self._elapsed0 + time.monotonic() - self._t0

    def save_state(self) -> None:
        self.state.elapsed = self.elapsed()
        self.state.save(self.dir)

    def meta(self, g: int) -> dict[str, Any]:
        """What generation g's checkpoint and net say about themselves, provenance included."""
        c = self.cfg
        return {"generation": g, "rules": c.rules, "board_sizes": sorted({c.width, c.height}),
                "win_length": c.win_length, "seed": c.seed,
                "provenance": {"command": portable_command(c.command), "run": self.dir.name, "generation": g,
                               "games": self.state.games, "steps": self.state.step,
                               "hours": round(self.elapsed() / 3600, 3),
                               "hardware": f"{self.hardware} ({c.device})"}}

    # -- training in progress ---------------------------------------------------------------------
    def partial_progress(self, g: int, log: Optional[Callable[[str], None]] = None) -> Optional[dict[str, Any]]:
        """What generation g's saved training progress holds (update, updates, sums, seconds),
        or None when there is none to continue from. A damaged save is said through `log`
        (when given) and not used: the generation's training starts over."""
        path = self.partial(g)
        if not path.is_file():
            return None
        try:
            meta = checkpoint_meta(path)
        except CheckpointError as exc:          # atomic writes make this unlikely; start over
            if log is not None:
                log(f"{exc}; generation {g}'s training starts again from update 1")
            return None
        got = meta.get("training")
        if meta.get("generation") != g or not isinstance(got, dict) \
                or not 0 < int(got.get("update", 0)) <= self.cfg.updates_per_gen:
            return None
        return got

    def save_partial(self, trainer: Any, g: int, update: int, sums: dict[str, float], seconds: float) -> None:
        """Save generation g's trainer after `update` updates, with the loss sums and the
        seconds so far, for `partial_progress` to continue from."""
        meta = self.meta(g)
        meta["training"] = {"update": update, "updates": self.cfg.updates_per_gen, "sums": dict(sums),
                            "seconds": round(seconds, 3)}
        save_checkpoint(self.partial(g), trainer.checkpoint(meta))

    def drop_other_partials(self, g: int) -> None:
        """Another generation's training save, left by a kill, is of no use to generation g."""
        for old in (self.dir / "ckpt").glob("*.partial.safetensors"):
            if old != self.partial(g):
                old.unlink(missing_ok=True)
