"""`gomoku train`: generations of self-play -> replay store -> training -> export -> evaluation.

Run folder:
    config.json  state.json  metrics.jsonl
    replay/gen00003-selfplay-0001.npz    one shard per finished chunk of games
    ckpt/gen00003.safetensors            weights, Adam and RNG state after generation 3's training
    ckpt/gen00004.partial.safetensors    the same partway through generation 4's training (its
                                         update count and loss sums in the meta); gone once it ends
    nets/gen00003.onnx, nets/best.onnx   verified exports; best.onnx is what self-play uses

Resuming after Ctrl-C or kill -9 is exact because every step ends in an atomic write and the
state says which step is next: a self-play chunk's shard exists or the chunk is played again
with the same seed (no game lost, none twice); training saves its progress at most every
CHECKPOINT_SECONDS of wall time and continues from the last save (or from the previous
generation's checkpoint), with the RNG state, so it takes the same samples and the same steps
as a run that was never stopped; an interrupted evaluation is played again and its metrics
record replaces the old one. A resumed run says in one line where it resumes.
"""
from __future__ import annotations

import math
import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch

from gomoku.engine.search.learned_file import EVAL_SUFFIX, evaluator_path

from .atomic import clean_temporaries, write_with
from .bootstrap import classical_supported
from .checkpoint import CheckpointError, checkpoint_meta, load_checkpoint, save_checkpoint
from .config import RunConfig, RunError, RunState, check_same_run, portable_command
from .evaluate import (MatchOutcome, NMatchOutcome, beats, evaluation_blocker, net_spec, nplayer_games, play_match,
                       play_nmatch, pure_spec)
from .export import export_evaluator, export_model, info_for
from .games import TrainingGame
from .hardware import hardware
from .metrics import ladder_table, put_record, read_metrics
from .models import build_model, is_learned_arch, parameter_count
from .replay import ReplayStore, shard_name
from .teacher import load_teacher
from .trainer import Trainer, TrainSettings
from .view import View
from .workers import ChunkJob, WorkerPool, job_config


#: the training phase saves the trainer (weights, Adam, RNG, the update reached) at most this
#: often, so an interrupted generation loses at most this plus the update under way. A save
#: (with Adam's moments, fsynced) costs ~30 ms for b4c32, ~35 ms for mix16, ~50 ms for b6c64;
#: a CPU update takes seconds, but a GPU's can take less than a save, so not after every one.
CHECKPOINT_SECONDS = 30.0


def _gen(g: int) -> str:
    return f"gen{g:05d}"


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


class TrainingRun:
    """One run folder and the loop over its generations."""

    def __init__(self, folder: str | os.PathLike, config: RunConfig, view: View,
                 hours: Optional[float] = None, generations: Optional[int] = None) -> None:
        self.dir = Path(folder)
        self.view = view
        self.hours = hours
        self.max_generations = generations
        self.store = ReplayStore(self.dir / "replay")
        self._teacher: Optional[Any] = None
        self._t0 = time.monotonic()
        self._elapsed0 = 0.0
        self.clock: Callable[[], float] = time.monotonic     # the training saves' cadence (tests inject one)
        self.checkpoint_seconds = CHECKPOINT_SECONDS
        self.hardware = hardware()          # this process's machine: each generation records it
        if (self.dir / "config.json").is_file() and (self.dir / "state.json").is_file():
            old = RunConfig.load(self.dir)
            check_same_run(old, config, self.dir)
            # machine and budget settings follow the command, and so do the measuring games that
            # choose no net (ladder, classical levels); the game, the net and the gate stay the run's
            for key in ("workers", "device", "ray", "command", "ladder_games", "classical_games"):
                setattr(old, key, getattr(config, key))
            self.cfg = old
            self.settings = _train_settings(old)
            self.state = RunState.load(self.dir)
            self._elapsed0 = self.state.elapsed
            for sub in ("replay", "ckpt", "nets", ""):
                clean_temporaries(self.dir / sub)
            self.resumed = True
        else:
            self.cfg = config
            self.settings = _train_settings(config)
            self.resumed = False
            self._create()
        self.cfg.save(self.dir)

    # -- files ------------------------------------------------------------------------------------
    def ckpt(self, g: int) -> Path:
        return self.dir / "ckpt" / f"{_gen(g)}.safetensors"

    def partial(self, g: int) -> Path:
        """Generation g's training so far (while it runs)."""
        return self.dir / "ckpt" / f"{_gen(g)}.partial.safetensors"

    def net(self, g: int) -> Path:
        return self.dir / "nets" / f"{_gen(g)}.onnx"

    @property
    def learned(self) -> bool:
        """A run of the learned evaluator (mixF): its games and its matches are the alpha-beta's."""
        return is_learned_arch(self.cfg.arch)

    def _meta(self, g: int) -> dict[str, Any]:
        c = self.cfg
        return {"generation": g, "rules": c.rules, "board_sizes": sorted({c.width, c.height}),
                "win_length": c.win_length, "seed": c.seed,
                "provenance": {"command": portable_command(c.command), "run": self.dir.name, "generation": g,
                               "games": self.state.games, "steps": self.state.step,
                               "hours": round(self.elapsed() / 3600, 3),
                               "hardware": f"{self.hardware} ({c.device})"}}

    def _save_state(self) -> None:
        self.state.elapsed = self.elapsed()
        self.state.save(self.dir)

    def elapsed(self) -> float:
        return self._elapsed0 + time.monotonic() - self._t0

    def _create(self) -> None:
        c = self.cfg
        distil = self._distil_source() if c.distil else None
        for sub in ("replay", "ckpt", "nets"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.state = RunState(playouts=c.playouts, ladder=c.ladder_start)
        if c.init:
            ck = load_checkpoint(c.init)
            self._check_init(ck)
            trainer = Trainer.from_checkpoint(ck, self.settings, device=c.device, weights_only=True)
            c.arch = trainer.model.arch          # the run trains the net it starts from
        else:
            torch.manual_seed(c.seed)
            trainer = Trainer(build_model(c.arch, c.players, c.rules[0]), self.settings, device=c.device,
                              seed=c.seed)
        self._teach(trainer)
        if distil is not None:
            self._distil(trainer, *distil)
        self._finish_training(trainer, 0)
        self.cfg.save(self.dir)
        self.state.save(self.dir)      # last: a run without state.json is created again
        self.view.log(f"new run {self.dir}: {c.arch} ({parameter_count(trainer.model):,} parameters), "
                      f"{c.width}x{c.height} {c.rule}, {c.win_length} in a row, {c.players} players")

    def _check_init(self, ck: Any) -> None:
        """Say, before any game, what an --init net was trained for when it is not this run's
        game: a net of another player count cannot start the run (RunError); one of another
        rule, size or win length can (that is how a renju run starts from a freestyle net), and
        the log says so in one line."""
        from gomoku.engine.net.metadata import NetInfo, net_fits_game
        c = self.cfg
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

    def _distil_source(self) -> tuple[ReplayStore, list[str]]:
        """The --distil run's newest shards holding a window of positions, checked to be this
        run's game before anything is created."""
        c = self.cfg
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

    def _teach(self, trainer: Trainer) -> Trainer:
        """Give the trainer the run's teacher-scored positions (loaded once per process)."""
        c = self.cfg
        if c.scores:
            if self._teacher is None:
                self._teacher = load_teacher(c.scores, c.main_rule, c.width, c.height)
                self.view.log(f"teacher: {len(self._teacher)} scored positions from {len(c.scores)} file(s)")
            trainer.teacher, trainer.teacher_batch = self._teacher, c.scores_batch
        return trainer

    def _distil(self, trainer: Trainer, source: ReplayStore, shards: list[str]) -> None:
        """Train the new net on another run's newest games before its first self-play, so that a
        larger architecture starts about where a smaller run got to instead of from random play.

        Those games are copied into this run's store as generation 0 (they stay in the window as
        long as its own games would, and the run never needs the other folder again), then the
        net takes `distil_updates` updates on them. A kill before state.json exists makes the
        same command create the run again: the copies are the same, the updates start over."""
        c = self.cfg
        for k, name in enumerate(shards):
            games = source.games(name)
            self.store.write(shard_name(0, games[0].source, k), games)
        window = self.store.window(c.window)
        batch = min(c.batch_size, len(window))
        self.view.start(self)
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
        c.extra["distilled"] = {"from": str(c.distil), "games": sum(len(self.store.games(n)) for n in window.shards),
                                "positions": len(window), "updates": c.distil_updates, "steps": trainer.step,
                                "policy_loss": round(last["policy_loss"], 4), "value_loss": round(last["value_loss"], 4),
                                "seconds": round(time.monotonic() - t0, 1)}
        self.view.log(f"distilled from {c.distil}: {len(window)} positions, {c.distil_updates} updates, "
                      f"policy loss {last['policy_loss']:.3f}, value loss {last['value_loss']:.3f}")

    def _finish_training(self, trainer: Trainer, g: int) -> float:
        """Checkpoint, then the verified ONNX export of generation g."""
        save_checkpoint(self.ckpt(g), trainer.checkpoint(self._meta(g)))
        model = trainer.model.to("cpu").eval()
        info = info_for(model, self._meta(g), self._meta(g)["provenance"])
        c = self.cfg
        worst = export_model(model, self.net(g), info,
                             check_sizes=[(c.width, c.height), (c.width + 2, c.height + 1)])
        if self.learned:
            export_evaluator(model, evaluator_path(self.net(g)), info.provenance)
        if g == 0:
            self._publish_best(0)
        trainer.model.to(trainer.device)
        return worst

    def _publish_best(self, g: int) -> None:
        for src, name in ((self.net(g), "best.onnx"), (evaluator_path(self.net(g)), "best" + EVAL_SUFFIX)):
            if src.is_file():
                write_with(self.dir / "nets" / name, lambda tmp, src=src: shutil.copyfile(src, tmp))

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
            done = self._partial_progress(g, quiet=True)
            done = done["update"] if done else 0
            return f"{head}, training update {min(done + 1, c.updates_per_gen)} of {c.updates_per_gen} (self-play done)"
        if st.phase == "evaluate":
            return f"{head}, evaluation (self-play and training done)"
        plan = st.pending.get("plan")
        if plan and plan.get("generation") == g:
            kept = sum(j.games for j in self.jobs(g) if self.store.has(j.name))
            return f"{head}, self-play {kept} of {plan['games']} games kept"
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
                g = self.state.generation + 1
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
        except KeyboardInterrupt:
            pool.close(kill=True)
            self._save_state()
            self.view.log("interrupted; the same command resumes the run where it stopped")
            return 130
        finally:
            pool.close()
            self.view.stop()
            _restore_signals(previous)

    # -- self-play --------------------------------------------------------------------------------
    def pool(self) -> Any:
        """Where chunks are played: local worker processes, or Ray actors with --ray."""
        if self.cfg.ray:
            from .raypool import RayPool
            return RayPool(self.cfg.ray, self.cfg.workers)
        return WorkerPool(self.cfg.worker_count())

    def source(self, g: int) -> str:
        c = self.cfg
        if g <= c.bootstrap_generations and classical_supported(c.win_length, c.players, c.width, c.height):
            return "classical"
        return "learned" if self.learned else "selfplay"

    def plan(self, g: int, workers: Optional[int] = None) -> dict[str, int]:
        """Games and chunk size of generation g's self-play, fixed (in state.json) when it starts:
        a resume with other --workers, --ray or --games-per-gen must find the same chunks on disk.
        `workers`: chunks played at once (default: --workers, or one per core)."""
        c = self.cfg
        got = self.state.pending.get("plan")
        if got and got.get("generation") == g:
            return got
        workers = workers or c.worker_count()
        if self.source(g) in ("classical", "learned"):   # one game at a time: small chunks lose little
            size = max(1, math.ceil(c.games_per_gen / (workers * 4)))
        else:
            size = max(1, min(c.parallel_games, math.ceil(c.games_per_gen / workers)))
        plan = {"generation": g, "games": c.games_per_gen, "chunk": size, "playouts": self.state.playouts,
                "games_before": self.state.games, "positions_before": self.state.positions}
        self.state.pending = {"plan": plan}
        self._save_state()
        return plan

    def jobs(self, g: int, workers: Optional[int] = None) -> list[ChunkJob]:
        c = self.cfg
        src = self.source(g)
        plan = self.plan(g, workers)
        size = plan["chunk"]
        if src in ("classical", "learned"):
            conf: dict[str, Any] = {"nodes": c.bootstrap_nodes}
        else:
            conf = job_config(win_length=c.win_length, players=c.players, playouts=plan["playouts"],
                              c_puct=c.c_puct, dirichlet_eps=c.dirichlet_eps,
                              temperature_moves=c.temperature_moves or None,
                              opening_stones=c.opening_stones or None, draw_value=c.draw_value or None,
                              full_search_prob=c.full_search_prob, cheap_playouts=c.cheap_playouts or None,
                              resign_threshold=c.resign_threshold, no_resign_share=c.no_resign_share,
                              parallel_games=size)
        out = []
        rules = c.rules
        left, k = plan["games"], 0
        while left > 0:
            n = min(size, left)
            out.append(ChunkJob(shard_name(g, src, k), src, n, c.seed * 1_000_003 + g * 10_007 + k, c.width,
                                c.height, rules[k % len(rules)],
                                self._job_net(src), conf, c.device))
            left -= n
            k += 1
        return out

    def _job_net(self, source: str) -> Optional[str]:
        """The file a chunk of `source` plays with: the best net, or the best learned evaluator."""
        if source == "selfplay":
            return str(self.dir / "nets" / "best.onnx")
        if source == "learned":
            return str(self.dir / "nets" / ("best" + EVAL_SUFFIX))
        return None

    def self_play(self, g: int, pool: Any) -> None:
        jobs = self.jobs(g, pool.workers)
        todo = [j for j in jobs if not self.store.has(j.name)]
        done_games = sum(j.games for j in jobs if j not in todo)
        total = sum(j.games for j in jobs)
        self.view.phase(g, "selfplay", f"{jobs[0].source}, {total} games"
                        + (f", {done_games} kept from before" if done_games else ""), total, done_games)
        t0 = time.monotonic()
        running: dict[str, int] = {}

        def tick() -> None:
            for name, n, _moves in pool.poll():
                running[name] = n
            self.view.progress(done_games + sum(running.values()))

        plan = self.state.pending["plan"]

        def count() -> None:
            # totals from the shards on disk, never incremented: a kill between a shard's rename
            # and the next state.json would otherwise lose that chunk from the count
            kept = [x for j in jobs if self.store.has(j.name) for x in self.store.games(j.name)]
            self.state.games = plan["games_before"] + len(kept)
            self.state.positions = plan["positions_before"] + sum(int(x.recorded.sum()) for x in kept)

        for job, games in pool.run(todo, tick):
            self.store.write(job.name, games)
            running.pop(job.name, None)
            done_games += len(games)
            count()
            self._save_state()
            self.view.progress(done_games + sum(running.values()))
        count()
        games = [x for j in jobs for x in self.store.games(j.name)]
        self.state.pending["selfplay"] = self._selfplay_stats(games, jobs[0].source, time.monotonic() - t0)
        self._save_state()

    def _selfplay_stats(self, games: list[TrainingGame], source: str, seconds: float) -> dict[str, Any]:
        n = len(games)
        checked = [x for x in games if x.would_resign >= 0]
        return {"source": source, "games": n, "seconds": round(seconds, 2),
                "moves": int(sum(x.moves.size for x in games)),
                "positions": int(sum(x.recorded.sum() for x in games)),
                "playouts": self.state.pending["plan"]["playouts"] if source == "selfplay" else None,
                "first_player_wins": sum(x.winner == 0 for x in games), "draws": sum(x.winner < 0 for x in games),
                "resigned": sum(x.resigned for x in games),
                "resign_checked": len(checked),
                "resign_wrong": sum(x.winner == x.would_resign for x in checked)}

    # -- training ---------------------------------------------------------------------------------
    def _partial_progress(self, g: int, quiet: bool = False) -> Optional[dict[str, Any]]:
        """What generation g's saved training progress holds (update, updates, sums, seconds),
        or None when there is none to continue from."""
        path = self.partial(g)
        if not path.is_file():
            return None
        try:
            meta = checkpoint_meta(path)
        except CheckpointError as exc:          # atomic writes make this unlikely; start over
            if not quiet:
                self.view.log(f"{exc}; generation {g}'s training starts again from update 1")
            return None
        got = meta.get("training")
        if meta.get("generation") != g or not isinstance(got, dict) \
                or not 0 < int(got.get("update", 0)) <= self.cfg.updates_per_gen:
            return None
        return got

    def _save_partial(self, trainer: Trainer, g: int, update: int, sums: dict[str, float],
                      seconds: float) -> None:
        meta = self._meta(g)
        meta["training"] = {"update": update, "updates": self.cfg.updates_per_gen, "sums": dict(sums),
                            "seconds": round(seconds, 3)}
        save_checkpoint(self.partial(g), trainer.checkpoint(meta))

    def train(self, g: int) -> None:
        c = self.cfg
        for old in (self.dir / "ckpt").glob("*.partial.safetensors"):     # another generation's, left by a kill
            if old != self.partial(g):
                old.unlink(missing_ok=True)
        saved = self._partial_progress(g)
        start = self.partial(g) if saved else self.ckpt(g - 1)
        trainer = self._teach(Trainer.from_checkpoint(load_checkpoint(start), self.settings, device=c.device))
        window = self.store.window(c.window)
        batch = min(c.batch_size, max(1, len(window)))
        done = int(saved["update"]) if saved else 0
        sums: dict[str, float] = {k: float(v) for k, v in (saved or {}).get("sums", {}).items()}
        before = float(saved.get("seconds", 0.0)) if saved else 0.0
        self.view.phase(g, "train", f"{c.updates_per_gen} updates of {batch} from {len(window)} positions"
                        + (f", {done} done before" if done else ""), c.updates_per_gen, done)
        t0 = time.monotonic()
        cadence = Cadence(self.checkpoint_seconds, self.clock)
        for u in range(done, c.updates_per_gen):
            last = trainer.update(window.sample(batch, trainer.rng))
            for k, v in last.items():
                sums[k] = sums.get(k, 0.0) + v
            self.view.progress(u + 1, last)
            if u + 1 < c.updates_per_gen and cadence.due():     # the last update's save is the checkpoint
                self._save_partial(trainer, g, u + 1, sums, before + time.monotonic() - t0)
                cadence.saved()
        self.state.step = trainer.step
        worst = self._finish_training(trainer, g)
        n = max(1, c.updates_per_gen)
        stats = {k: round(v / n, 5) for k, v in sums.items() if k not in ("steps", "lr_mult")}
        stats.update(steps=trainer.step, lr_mult=round(trainer.lr_mult, 4), batch=batch, window=len(window),
                     window_sources=window.stats(), seconds=round(before + time.monotonic() - t0, 2),
                     export_diff=worst)
        self.state.pending["train"] = stats

    # -- evaluation -------------------------------------------------------------------------------
    def _match(self, g: int, phase: str, detail: str, a: str, b: str, games: int, seed: int,
               openings: bool) -> MatchOutcome | NMatchOutcome:
        """A match of spec `a` (a net) against `b` through the runner for the run's players:
        the arena for two (always from random openings), seed 004's protocol for more."""
        c = self.cfg
        if c.players == 2:
            self.view.phase(g, phase, f"{detail}, {games} games", games, 0)
            return play_match(a, b, c.width, c.height, c.main_rule, c.win_length, games, seed, c.worker_count(),
                              lambda d, n: self.view.progress(d))
        total = nplayer_games(games, c.players)
        self.view.phase(g, phase, f"{detail}, {total} games of {c.players} seats", total, 0)
        return play_nmatch(a, b, c.width, c.height, c.main_rule, c.win_length, c.players, total, seed, c.worker_count(),
                           with_openings=openings, on_game=lambda d, n: self.view.progress(d))

    def _spec(self, g: int, name: str, level: Optional[int] = None) -> str:
        """The player spec of generation g's net in the run's matches: MCTS with the net, or for
        a learned evaluator the alpha-beta with it, at the classical level it is measured
        against (same nodes on both sides) or at the bootstrap's nodes."""
        if not self.learned:
            return net_spec(str(self.net(g)), self.cfg.eval_playouts, name)
        budget = f"{level}" if level is not None else f"nodes={self.cfg.bootstrap_nodes}"
        return f"classical:{budget},eval={evaluator_path(self.net(g))},name={name}"

    def evaluate(self, g: int) -> None:
        c = self.cfg
        st = self.state
        t0 = time.monotonic()
        record: dict[str, Any] = {"generation": g, "step": st.step, "games_total": st.games,
                                  "positions_total": st.positions}
        record.update({k: v for k, v in st.pending.items() if k != "plan"})
        accepted = True
        blocked = evaluation_blocker(c.width, c.height, c.main_rule, c.win_length, c.players)
        if blocked is not None:
            record["gating"] = {"skipped": f"{blocked}; always replace"}
        elif c.eval_games > 0 and c.gate > 0:
            out = self._match(g, "gating", f"{_gen(g)} vs best {_gen(st.best)}",
                              self._spec(g, _gen(g)), self._spec(st.best, f"best-{_gen(st.best)}"),
                              c.eval_games, c.seed * 7919 + g, openings=True)
            accepted = out.score >= c.gate
            record["gating"] = {**out.to_json(), "against": st.best, "accepted": accepted,
                                "accept_if": f"score >= {c.gate:g}"}
        else:
            record["gating"] = {"accepted": True, "always_replace": True}
        best = g if accepted else st.best
        if blocked is None and c.ladder_games > 0 and not self.learned:
            out = self._match(g, "ladder", f"best {_gen(best)} vs pure MCTS {st.ladder}",
                              net_spec(str(self.net(best)), c.eval_playouts, _gen(best)), pure_spec(st.ladder),
                              c.ladder_games, c.seed * 104729 + g, openings=False)
            if c.players == 2:
                beat, rule = out.score >= c.ladder_win, f"score >= {c.ladder_win:g}"
            else:       # seed 004: the net beats the rung when it out-scores it over every seating
                beat, rule = beats(out.score, c.ladder_share), f"score > {c.ladder_share:g}"
            record["ladder"] = {**out.to_json(), "net": best, "playouts": st.ladder, "beaten": beat,
                                "beat_if": rule}
            if beat:
                st.beaten[pure_spec(st.ladder)] = st.step
                st.ladder += c.ladder_step
                st.ladder_since = g
        if classical_supported(c.win_length, c.players, c.width, c.height) and c.classical_games > 0 \
                and st.classical_level <= 5:
            level = st.classical_level
            out = self._match(g, "classical", f"best {_gen(best)} vs classical level {level}",
                              self._spec(best, _gen(best), level), f"classical:{level}",
                              c.classical_games, c.seed * 15485863 + g, openings=True)
            beat = out.score >= c.ladder_win
            record["classical"] = {**out.to_json(), "net": best, "level": level, "beaten": beat,
                                   "beat_if": f"score >= {c.ladder_win:g}"}
            if beat:
                st.beaten[f"classical:{level}"] = st.step
                st.classical_level += 1
        record["beaten"] = dict(st.beaten)
        if c.dynamic_playouts > 0 and g - st.ladder_since >= c.stall_generations:
            st.playouts += c.dynamic_playouts
            st.ladder_since = g
            record["playouts_raised_to"] = st.playouts
        record["hardware"] = self.hardware
        record["eval_seconds"] = round(time.monotonic() - t0, 2)
        record["elapsed"] = round(self.elapsed(), 1)
        if accepted:
            self._publish_best(g)
            st.best = g
        record["best"] = st.best
        put_record(self.dir / "metrics.jsonl", record)
        st.generation = g
        st.phase = "selfplay"
        st.pending = {}
        self._save_state()
        self.view.generation_done(record)


def _train_settings(c: RunConfig) -> TrainSettings:
    return TrainSettings(lr=c.lr, l2=c.l2, kl_target=c.kl_target, epochs=c.epochs)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _stop_on_signals() -> dict[int, Any]:
    """SIGTERM (kill, a scheduler's stop) and SIGINT stop a run the way Ctrl-C does: the state
    is saved and the workers go with the driver. A shell starts background jobs with SIGINT
    ignored, and Python's default for SIGTERM ends the process without cleanup, so both are set
    here (from the main thread only; elsewhere signals cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}


def _restore_signals(previous: dict[int, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
