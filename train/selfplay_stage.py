"""The self-play stage of a run: which games a generation plays (its plan, fixed when it
starts), the chunks they are played in, and keeping each finished chunk as a shard.

A resume is exact because a chunk's shard exists or the chunk is played again with the same
seed (no game lost, none twice), and the totals are counted from the shards on disk.
"""
from __future__ import annotations

import math
import time
from typing import Any, Optional

from gomoku.engine.search.learned_file import EVAL_SUFFIX

from .bootstrap import classical_supported
from .games import TrainingGame
from .replay import shard_name
from .run_folder import RunFolder
from .view import View
from .workers import ChunkJob, WorkerPool, job_config


class SelfPlay:
    """Plans and plays a run's generations of games."""

    def __init__(self, folder: RunFolder, view: View) -> None:
        self.folder = folder
        self.view = view

    def pool(self) -> Any:
        """Where chunks are played: local worker processes, or Ray actors with --ray."""
        c = self.folder.cfg
        if c.ray:
            from .raypool import RayPool
            return RayPool(c.ray, c.workers)
        return WorkerPool(c.worker_count())

    def source(self, g: int) -> str:
        """Who plays generation g's games: the classical engine (bootstrap generations), the
        alpha-beta with the learned evaluator (mixF runs), or MCTS with the best net."""
        c = self.folder.cfg
        if g <= c.bootstrap_generations and classical_supported(c.win_length, c.players, c.width, c.height):
            return "classical"
        return "learned" if self.folder.learned else "selfplay"

    def plan(self, g: int, workers: Optional[int] = None) -> dict[str, int]:
        """Games and chunk size of generation g's self-play, fixed (in state.json) when it starts:
        a resume with other --workers, --ray or --games-per-gen must find the same chunks on disk.
        `workers`: chunks played at once (default: --workers, or one per core)."""
        f, c = self.folder, self.folder.cfg
        got = f.state.pending.get("plan")
        if got and got.get("generation") == g:
            return got
        workers = workers or c.worker_count()
        if self.source(g) in ("classical", "learned"):   # one game at a time: small chunks lose little
            size = max(1, math.ceil(c.games_per_gen / (workers * 4)))
        else:
            size = max(1, min(c.parallel_games, math.ceil(c.games_per_gen / workers)))
        plan = {"generation": g, "games": c.games_per_gen, "chunk": size, "playouts": f.state.playouts,
                "games_before": f.state.games, "positions_before": f.state.positions}
        f.state.pending = {"plan": plan}
        f.save_state()
        return plan

    def jobs(self, g: int, workers: Optional[int] = None) -> list[ChunkJob]:
        """Generation g's chunks, each with its shard's name and its own seed."""
        c = self.folder.cfg
        src = self.source(g)
        plan = self.plan(g, workers)
        size = plan["chunk"]
        if src in ("classical", "learned"):
            conf: dict[str, Any] = {"nodes": c.bootstrap_nodes}
        else:
            conf = job_config(win_length=c.win_length, players=c.players, playouts=plan["playouts"],
                              c_puct=c.c_puct, select=c.select, dirichlet_eps=c.dirichlet_eps,
                              dirichlet_alpha=c.dirichlet_alpha or None, move_noise=c.move_noise or None,
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

    def kept(self, g: int) -> int:
        """Games of generation g already kept as shards (what a resume does not play again)."""
        return sum(j.games for j in self.jobs(g) if self.folder.store.has(j.name))

    def _job_net(self, source: str) -> Optional[str]:
        """The file a chunk of `source` plays with: the best net, or the best learned evaluator."""
        if source == "selfplay":
            return str(self.folder.dir / "nets" / "best.onnx")
        if source == "learned":
            return str(self.folder.dir / "nets" / ("best" + EVAL_SUFFIX))
        return None

    def play(self, g: int, pool: Any) -> None:
        """Play generation g's chunks that have no shard yet on `pool`, keep each as it ends,
        and put the generation's figures in the state's pending record."""
        f = self.folder
        store = f.store
        jobs = self.jobs(g, pool.workers)
        todo = [j for j in jobs if not store.has(j.name)]
        done_games = sum(j.games for j in jobs if j not in todo)
        total = sum(j.games for j in jobs)
        plan = f.state.pending["plan"]
        self.view.phase(g, "selfplay", f"{total} games by {self.players_text(jobs[0].source, plan)}"
                        + (f", {done_games} kept from before" if done_games else ""), total, done_games)
        t0 = time.monotonic()
        # the seconds of the chunks a resume keeps: the figure is the whole phase's, not this sitting's
        before = float(plan.get("seconds", 0.0))
        running: dict[str, int] = {}

        def tick() -> None:
            for name, n, _moves in pool.poll():
                running[name] = n
            self.view.progress(done_games + sum(running.values()))

        def count() -> None:
            # totals from the shards on disk, never incremented: a kill between a shard's rename
            # and the next state.json would otherwise lose that chunk from the count
            kept = [x for j in jobs if store.has(j.name) for x in store.games(j.name)]
            f.state.games = plan["games_before"] + len(kept)
            f.state.positions = plan["positions_before"] + sum(int(x.recorded.sum()) for x in kept)

        for job, games in pool.run(todo, tick):
            store.write(job.name, games)
            running.pop(job.name, None)
            done_games += len(games)
            count()
            plan["seconds"] = round(before + time.monotonic() - t0, 2)
            f.save_state()
            self.view.progress(done_games + sum(running.values()))
        count()
        games = [x for j in jobs for x in store.games(j.name)]
        f.state.pending["selfplay"] = self._stats(games, jobs[0].source, before + time.monotonic() - t0)
        f.save_state()

    def players_text(self, source: str, plan: dict[str, Any]) -> str:
        """Who plays a generation's games, for the phase line: 'the best net's MCTS at 400
        playouts' (the line said 'selfplay: selfplay, 32 games' before)."""
        if source == "classical":
            return f"the classical engine at {self.folder.cfg.bootstrap_nodes:,} nodes"
        if source == "learned":
            return f"the alpha-beta with the best learned evaluator at {self.folder.cfg.bootstrap_nodes:,} nodes"
        return f"the best net's MCTS at {plan['playouts']} playouts"

    def _stats(self, games: list[TrainingGame], source: str, seconds: float) -> dict[str, Any]:
        n = len(games)
        checked = [x for x in games if x.would_resign >= 0]
        return {"source": source, "games": n, "seconds": round(seconds, 2),
                "moves": int(sum(x.moves.size for x in games)),
                "positions": int(sum(x.recorded.sum() for x in games)),
                "playouts": self.folder.state.pending["plan"]["playouts"] if source == "selfplay" else None,
                "first_player_wins": sum(x.winner == 0 for x in games), "draws": sum(x.winner < 0 for x in games),
                "resigned": sum(x.resigned for x in games),
                "resign_checked": len(checked),
                "resign_wrong": sum(x.winner == x.would_resign for x in checked)}
