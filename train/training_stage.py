"""The training stage of a run: the first net (new, --init or distilled from another run's
games), a generation's updates with their saves on a clock, the checkpoint and the verified
ONNX export, and the teacher's scored positions beside the games.

A generation's training saves its progress (train.run_folder.RunFolder.save_partial) at most
every CHECKPOINT_SECONDS of its clock and continues from the last save, with the RNG state,
so a resumed generation takes the same samples and the same steps as one never stopped.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch

from gomoku.engine.search.learned import DEFAULT_EVAL_SCALE
from gomoku.engine.search.learned_file import evaluator_path

from .checkpoint import load_checkpoint, save_checkpoint
from .config import RunConfig, RunError
from .export import export_evaluator, export_model, info_for
from .models import build_model
from .replay import ReplayStore, shard_name
from .run_folder import RunFolder
from .teacher import TeacherSet, load_teacher
from .trainer import Trainer, TrainSettings
from .view import View

#: the training phase saves the trainer (weights, Adam, RNG, the update reached) at most this
#: often, so an interrupted generation loses at most this plus the update under way. A save
#: (with Adam's moments, fsynced) costs ~30 ms for b4c32, ~35 ms for mix16, ~50 ms for b6c64;
#: a CPU update takes seconds, but a GPU's can take less than a save, so not after every one.
CHECKPOINT_SECONDS = 30.0

#: save_partial's signature: trainer, generation, updates done, loss sums, seconds
SavePartial = Callable[[Trainer, int, int, dict[str, float], float], None]


class Cadence:
    """When the next save is due: `every` seconds of `clock` after the last one (or the start)."""

    def __init__(self, every: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self.last = clock()

    def due(self) -> bool:
        return self.clock() - self.last >= self.every

    def saved(self) -> None:
        self.last = self.clock()


def train_settings(c: RunConfig) -> TrainSettings:
    return TrainSettings(lr=c.lr, l2=c.l2, kl_target=c.kl_target, epochs=c.epochs, lr_schedule=c.lr_schedule,
                         plateau_patience=c.plateau_patience)


class Training:
    """Trains a run's nets. `clock` and `every` set the cadence of the saves inside a
    generation (tests give a clock of their own)."""

    def __init__(self, folder: RunFolder, view: View, clock: Callable[[], float] = time.monotonic,
                 every: float = CHECKPOINT_SECONDS) -> None:
        self.folder = folder
        self.view = view
        self.clock = clock
        self.every = every
        self.settings = train_settings(folder.cfg)
        self._teacher: Optional[TeacherSet] = None
        self._held: Optional[TeacherSet] = None
        self._held_tables: Optional[float] = None   # the tables' loss on the held-out games (fixed)
        self._held_quiet: Optional[np.ndarray] = None   # which of them are quiet, where some are decided
        self._held_quiet_tables: Optional[float] = None

    # -- the first net ----------------------------------------------------------------------------
    def first_trainer(self) -> Trainer:
        """Generation 0's trainer: the --init checkpoint's weights, or a new net of the run's
        architecture seeded by the run's seed; with the teacher's positions."""
        c = self.folder.cfg
        if c.init:
            ck = load_checkpoint(c.init)
            self.check_init(ck)
            trainer = Trainer.from_checkpoint(ck, self.settings, device=c.device, weights_only=True)
            c.arch = trainer.model.arch          # the run trains the net it starts from
        else:
            torch.manual_seed(c.seed)
            trainer = Trainer(build_model(c.arch, c.players, c.rules[0]), self.settings, device=c.device,
                              seed=c.seed)
        return self.teach(trainer)

    def check_init(self, ck: Any) -> None:
        """Say, before any game, what an --init net was trained for when it is not this run's
        game: a net of another player count cannot start the run (RunError); one of another
        rule, size or win length can (that is how a renju run starts from a freestyle net), and
        the log says so in one line."""
        from gomoku.engine.net.metadata import NetInfo, net_fits_game
        c = self.folder.cfg
        info = NetInfo(players=ck.players, win_length=int(ck.meta.get("win_length", 5)),
                       rules=list(ck.meta.get("rules") or ["freestyle"]),
                       board_sizes=list(ck.meta.get("board_sizes") or [c.width]), arch=ck.arch)
        for rule in c.rules:
            why = net_fits_game(info, rule, c.width, c.height, c.win_length, c.players, name=f"--init {c.init}")
            if why and ck.players != c.players:
                raise RunError(f"{why}: it cannot start a {c.players}-player run")
            if why:
                self.view.log(f"{why}: training it for this run's game")
                return

    def teach(self, trainer: Trainer) -> Trainer:
        """Give the trainer the run's teacher-scored positions (loaded once per process)."""
        c = self.folder.cfg
        if c.scores:
            if self._teacher is None:
                scored = load_teacher(c.scores, c.main_rule, c.width, c.height)
                train, self._held = scored.split(c.scores_holdout)
                self._teacher = train.weigh_decided(c.scores_decided_weight)
                line = (f"teacher: {len(scored)} scored positions ({int(scored.decided.sum())} decided) from "
                        f"{len(c.scores)} file(s)")
                if c.scores_decided_weight != 1.0:
                    line += f", decided ones drawn at {c.scores_decided_weight:g} the chance of quiet ones"
                if self._held is not None:
                    ref = self._held_tables = self._held.tables_loss(self.eval_scale)
                    line += (f"; {len(self._held)} of them ({c.scores_holdout:.0%} of the games) held out"
                             + (f", where the tables' value loss is {ref:.3f}" if ref is not None else ""))
                    quiet = ~self._held.decided
                    if quiet.any() and not quiet.all():
                        self._held_quiet = quiet
                        quiet_set = self._held.quiet()
                        assert quiet_set is not None    # some are quiet: checked just above
                        self._held_quiet_tables = quiet_set.tables_loss(self.eval_scale)
                self.view.log(line)
            trainer.teacher, trainer.teacher_batch = self._teacher, c.scores_batch
        return trainer

    #: evaluation units per logit at which the tables' scores become probabilities (their Texel K;
    #: a learned evaluator's value is put on the same scale in the search)
    eval_scale = DEFAULT_EVAL_SCALE

    def held_out(self, trainer: Trainer) -> dict[str, float]:
        """The value head's loss on the teacher's held-out games and the tables' on the same
        positions, and both on their quiet positions apart (empty without a holdout): the
        generation record's measure of the value."""
        if self._held is None:
            return {}
        losses = trainer.teacher_losses(self._held)
        out = {"teacher_held": round(float(losses.mean()), 5)}
        if self._held_tables is not None:
            out["teacher_held_tables"] = round(self._held_tables, 5)
        if self._held_quiet is not None:       # the quiet ones apart, where there are both kinds
            out["teacher_held_quiet"] = round(float(losses[self._held_quiet].mean()), 5)
            if self._held_quiet_tables is not None:
                out["teacher_held_quiet_tables"] = round(self._held_quiet_tables, 5)
        return out

    # -- distillation -----------------------------------------------------------------------------
    def distil_source(self) -> tuple[ReplayStore, list[str]]:
        """The --distil run's newest shards holding a window of positions, checked to be this
        run's game before anything is created."""
        c = self.folder.cfg
        assert c.distil is not None     # asked for only with --distil
        if not (Path(c.distil) / "replay").is_dir():
            raise RunError(f"--distil {c.distil}: not a run folder (it has no replay/)")
        source = ReplayStore(Path(c.distil) / "replay")
        shards = source.window(c.window).shards
        if not shards:
            raise RunError(f"--distil {c.distil}: that run has no games")
        for name in shards:
            for g in source.games(name):
                if (g.players, g.win_length) != (c.players, c.win_length):
                    raise RunError(f"--distil {c.distil}: its games are {g.players} players, {g.win_length} "
                                   f"in a row; this run is {c.players} players, {c.win_length} in a row")
        return source, shards

    def distil(self, trainer: Trainer, source: ReplayStore, shards: list[str], shown: Any) -> None:
        """Train the new net on another run's newest games before its first self-play, so that a
        larger architecture starts about where a smaller run got to instead of from random play.

        Those games are copied into this run's store as generation 0 (they stay in the window as
        long as its own games would, and the run never needs the other folder again), then the
        net takes `distil_updates` updates on them. A kill before state.json exists makes the
        same command create the run again: the copies are the same, the updates start over.
        `shown`: the run the view's panel shows while the updates run."""
        c, store = self.folder.cfg, self.folder.store
        for k, name in enumerate(shards):
            games = source.games(name)
            store.write(shard_name(0, games[0].source, k), games)
        window = store.window(c.window)
        batch = min(c.batch_size, len(window))
        self.view.start(shown)
        self.view.phase(0, "distil", f"{c.distil_updates} updates of {batch} from {len(window)} positions of "
                        f"{c.distil}", c.distil_updates, 0)
        t0 = time.monotonic()
        last: dict[str, float] = {}
        try:
            for u in range(c.distil_updates):
                last = trainer.update(window.sample(batch, trainer.rng))
                self.view.progress(u + 1, last)
        finally:
            self.view.stop()
        c.extra["distilled"] = {"from": str(c.distil), "games": sum(len(store.games(n)) for n in window.shards),
                                "positions": len(window), "updates": c.distil_updates, "steps": trainer.step,
                                "policy_loss": round(last["policy_loss"], 4), "value_loss": round(last["value_loss"], 4),
                                "seconds": round(time.monotonic() - t0, 1), **self.held_out(trainer)}
        held, quiet = c.extra["distilled"].get("teacher_held"), c.extra["distilled"].get("teacher_held_quiet")
        self.view.log(f"distilled from {c.distil}: {len(window)} positions, {c.distil_updates} updates, "
                      f"policy loss {last['policy_loss']:.3f}, value loss {last['value_loss']:.3f}"
                      + (f", teacher's held-out games {held:.3f}" if held is not None else "")
                      + (f" (quiet positions {quiet:.3f})" if quiet is not None else ""))

    # -- a generation -----------------------------------------------------------------------------
    def finish(self, trainer: Trainer, g: int) -> float:
        """Checkpoint, then the verified ONNX export of generation g (and the learned
        evaluator's file for a mixF run); returns the export's worst difference."""
        f = self.folder
        meta = f.meta(g)
        meta["provenance"]["settings"] = f.cfg.knobs()      # what the command left at its defaults too
        save_checkpoint(f.ckpt(g), trainer.checkpoint(meta))
        model = trainer.model.to("cpu").eval()
        info = info_for(model, meta, meta["provenance"])
        c = f.cfg
        worst = export_model(model, f.net(g), info,
                             check_sizes=[(c.width, c.height), (c.width + 2, c.height + 1)])
        if f.learned:
            export_evaluator(model, evaluator_path(f.net(g)), info.provenance)
        trainer.model.to(trainer.device)
        return worst

    def train(self, g: int, save_partial: Optional[SavePartial] = None) -> None:
        """Generation g's updates, from its last save or from generation g-1's checkpoint;
        saves on the cadence through `save_partial` (default: the folder's), then the
        checkpoint and the export; the loss averages go to the state's pending record."""
        f, c = self.folder, self.folder.cfg
        save = save_partial or f.save_partial
        f.drop_other_partials(g)
        saved = f.partial_progress(g, log=self.view.log)
        start = f.partial(g) if saved else f.ckpt(g - 1)
        trainer = self.teach(Trainer.from_checkpoint(load_checkpoint(start), self.settings, device=c.device))
        window = f.store.window(c.window)
        batch = min(c.batch_size, max(1, len(window)))
        done = int(saved["update"]) if saved else 0
        if not saved:       # a save holds the schedule as this generation left it
            trainer.schedule.start_generation()
        sums: dict[str, float] = {k: float(v) for k, v in (saved or {}).get("sums", {}).items()}
        before = float(saved.get("seconds", 0.0)) if saved else 0.0
        self.view.phase(g, "train", f"{c.updates_per_gen} updates of {batch} from {len(window)} positions"
                        + (f", {done} done before" if done else ""), c.updates_per_gen, done)
        t0 = time.monotonic()
        cadence = Cadence(self.every, self.clock)
        for u in range(done, c.updates_per_gen):
            last = trainer.update(window.sample(batch, trainer.rng))
            for k, v in last.items():
                sums[k] = sums.get(k, 0.0) + v
            self.view.progress(u + 1, last)
            if u + 1 < c.updates_per_gen and cadence.due():     # the last update's save is the checkpoint
                save(trainer, g, u + 1, sums, before + time.monotonic() - t0)
                cadence.saved()
        f.state.step = trainer.step
        n = max(1, c.updates_per_gen)
        held = self.held_out(trainer)
        trainer.schedule.end_generation((sums.get("policy_loss", 0.0) + sums.get("value_loss", 0.0)) / n)
        worst = self.finish(trainer, g)
        stats: dict[str, Any] = {k: round(v / n, 5) for k, v in sums.items() if k not in ("steps", "lr_mult")}
        stats.update(steps=trainer.step, lr_mult=round(trainer.lr_mult, 4), lr_schedule=trainer.schedule.state(),
                     batch=batch, window=len(window),
                     window_sources=window.stats(), seconds=round(before + time.monotonic() - t0, 2),
                     export_diff=worst, **held)
        f.state.pending["train"] = stats
