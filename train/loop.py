"""`gomoku train`: generations of self-play -> replay store -> training -> export -> evaluation.

TrainingRun is the driver: it opens the run folder (train.run_folder: layout, state, resume)
and runs each generation through three stages, each testable alone, the way minigo and
KataGo keep them apart: self-play (train.selfplay_stage), training (train.training_stage)
and evaluation (train.evaluation_stage: gating, the ladders, publishing the best net).

Resuming after Ctrl-C or kill -9 is exact because every step ends in an atomic write and the
state says which step is next: a self-play chunk's shard exists or the chunk is played again
with the same seed (no game lost, none twice); training saves its progress at most every
CHECKPOINT_SECONDS of wall time and continues from the last save (or from the previous
generation's checkpoint), with the RNG state, so it takes the same samples and the same steps
as a run that was never stopped; an interrupted evaluation is played again and its metrics
record replaces the old one. A resumed run says in one line where it resumes.
"""
from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any, Callable, Optional

from .config import RunConfig
from .evaluation_stage import Evaluation
from .metrics import ladder_table, read_metrics
from .models import parameter_count
from .run_folder import RunFolder
from .selfplay_stage import SelfPlay
from .trainer import Trainer
from .training_stage import CHECKPOINT_SECONDS, Cadence, Training
from .view import View
from .workers import ChunkJob

__all__ = ["CHECKPOINT_SECONDS", "Cadence", "TrainingRun"]


class TrainingRun:
    """One run folder and the loop over its generations."""

    def __init__(self, folder: str | os.PathLike, config: RunConfig, view: View,
                 hours: Optional[float] = None, generations: Optional[int] = None) -> None:
        self.view = view
        self.hours = hours
        self.max_generations = generations
        self.folder = RunFolder.open(folder, config)
        # the cadence of the training saves: this module's CHECKPOINT_SECONDS when the run starts
        # (the command's tests set it), and the clock tests inject
        self.training = Training(self.folder, view, every=CHECKPOINT_SECONDS)
        self.selfplay = SelfPlay(self.folder, view)
        self.evaluation = Evaluation(self.folder, view)
        if not self.folder.resumed:
            self._create()
        self.cfg.save(self.dir)

    # -- the run folder's parts, as the view and the tests name them ------------------------------
    @property
    def dir(self) -> Path:
        return self.folder.dir

    @property
    def cfg(self) -> RunConfig:
        return self.folder.cfg

    @property
    def state(self) -> Any:
        return self.folder.state

    @property
    def store(self) -> Any:
        return self.folder.store

    @property
    def resumed(self) -> bool:
        return self.folder.resumed

    @property
    def clock(self) -> Callable[[], float]:
        """The clock of the training saves' cadence."""
        return self.training.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.training.clock = clock

    @property
    def checkpoint_seconds(self) -> float:
        return self.training.every

    @checkpoint_seconds.setter
    def checkpoint_seconds(self, seconds: float) -> None:
        self.training.every = seconds

    def ckpt(self, g: int) -> Path:
        return self.folder.ckpt(g)

    def partial(self, g: int) -> Path:
        return self.folder.partial(g)

    def net(self, g: int) -> Path:
        return self.folder.net(g)

    def elapsed(self) -> float:
        return self.folder.elapsed()

    def _save_state(self) -> None:
        self.folder.save_state()

    def _save_partial(self, trainer: Trainer, g: int, update: int, sums: dict[str, float], seconds: float) -> None:
        self.folder.save_partial(trainer, g, update, sums, seconds)

    # -- a new run --------------------------------------------------------------------------------
    def _create(self) -> None:
        """Generation 0: the first net (distilled from another run's games with --distil),
        its checkpoint and export, published as the best net; then the run's files."""
        c = self.cfg
        distil = self.training.distil_source() if c.distil else None
        self.folder.create()
        trainer = self.training.first_trainer()
        if distil is not None:
            self.training.distil(trainer, *distil, shown=self)
        self.training.finish(trainer, 0)
        self.evaluation.publish(0)
        self.folder.save_new()
        self.view.log(f"new run {self.dir}: {c.arch} ({parameter_count(trainer.model):,} parameters), "
                      f"{c.width}x{c.height} {c.rule}, {c.win_length} in a row, {c.players} players")

    # -- the loop ---------------------------------------------------------------------------------
    def budget_left(self) -> Optional[str]:
        """Why to stop now, or None."""
        if self.max_generations is not None and self.state.generation >= self.max_generations:
            return f"{self.state.generation} generations done"
        if self.hours is not None and self.elapsed() >= self.hours * 3600:
            return f"{self.hours:g} h budget spent"
        return None

    def resume_line(self) -> str:
        """Where a resumed run picks up, in one line."""
        st, c = self.state, self.cfg
        g = st.generation + 1
        head = f"resuming run {self.dir} at generation {g}"
        if st.phase == "train":
            progress = self.folder.partial_progress(g)
            done = progress["update"] if progress else 0
            return f"{head}, training update {min(done + 1, c.updates_per_gen)} of {c.updates_per_gen} (self-play done)"
        if st.phase == "evaluate":
            return f"{head}, evaluation (self-play and training done)"
        plan = st.pending.get("plan")
        if plan and plan.get("generation") == g:
            return f"{head}, self-play {self.selfplay.kept(g)} of {plan['games']} games kept"
        return f"{head}, self-play 0 of {c.games_per_gen} games kept"

    def run(self) -> int:
        if self.resumed:
            self.view.log(self.resume_line())
        pool = self.pool()
        self.view.start(self)
        previous = _stop_on_signals()
        try:
            while True:
                why = self.budget_left()
                if why is not None:
                    self.view.log(f"stopped: {why}; the same command continues the run")
                    self.view.stop()           # the table stays on the screen below the panel
                    for line in ladder_table(read_metrics(self.dir / "metrics.jsonl")):
                        self.view.log(line)
                    return 0
                self.generation(self.state.generation + 1, pool)
        except KeyboardInterrupt:
            pool.close(kill=True)
            self._save_state()
            self.view.log("interrupted; the same command resumes the run where it stopped")
            return 130
        finally:
            pool.close()
            self.view.stop()
            _restore_signals(previous)

    def generation(self, g: int, pool: Any) -> None:
        """Generation g from the phase the state names: self-play, training, evaluation."""
        if self.state.phase == "selfplay":
            self.self_play(g, pool)
            self.state.phase = "train"
            self._save_state()
        if self.state.phase == "train":
            self.train(g)
            self.state.phase = "evaluate"
            self._save_state()
            self.partial(g).unlink(missing_ok=True)
        if self.state.phase == "evaluate":
            self.evaluate(g)

    # -- the stages -------------------------------------------------------------------------------
    def pool(self) -> Any:
        return self.selfplay.pool()

    def source(self, g: int) -> str:
        return self.selfplay.source(g)

    def plan(self, g: int, workers: Optional[int] = None) -> dict[str, int]:
        return self.selfplay.plan(g, workers)

    def jobs(self, g: int, workers: Optional[int] = None) -> list[ChunkJob]:
        return self.selfplay.jobs(g, workers)

    def self_play(self, g: int, pool: Any) -> None:
        self.selfplay.play(g, pool)

    def train(self, g: int) -> None:
        # the saves go through _save_partial, so that a test can watch them
        self.training.train(g, save_partial=self._save_partial)

    def evaluate(self, g: int) -> None:
        self.evaluation.evaluate(g)


def _interrupt(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def _stop_on_signals() -> dict[int, Any]:
    """SIGTERM (kill, a scheduler's stop) and SIGINT stop a run the way Ctrl-C does: the state
    is saved and the workers go with the driver. A shell starts background jobs with SIGINT
    ignored, and Python's default for SIGTERM ends the process without cleanup, so both are set
    here (from the main thread only; elsewhere signals cannot be set). A SIGINT handler of
    Python's or of `gomoku`'s (tools.interruptible, which also stops a search in progress and
    ends a stuck process) already raises KeyboardInterrupt, and is kept."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    sigs = [signal.SIGTERM]
    if not callable(signal.getsignal(signal.SIGINT)):
        sigs.append(signal.SIGINT)
    return {sig: signal.signal(sig, _interrupt) for sig in sigs}


def _restore_signals(previous: dict[int, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
