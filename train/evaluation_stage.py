"""The evaluation stage of a run: gating a generation's net against the best one, the ladders
(pure MCTS rungs, classical levels) that measure the best net, publishing the net self-play
uses, and the generation's metrics record.

An interrupted evaluation is played again and its metrics record replaces the old one: the
state moves on to the next generation only after the record is written.
"""
from __future__ import annotations

import functools
import shutil
import time
from typing import Any, Optional

from gomoku.engine.search.learned_file import EVAL_SUFFIX, evaluator_path

from .atomic import write_with
from .bootstrap import classical_supported
from .evaluate import (MatchOutcome, NMatchOutcome, beats, evaluation_blocker, net_spec, nplayer_games, play_match,
                       play_nmatch, pure_spec)
from .metrics import put_record
from .run_folder import RunFolder, gen_name
from .view import View


class Evaluation:
    """Judges a run's generations and publishes the nets that pass."""

    def __init__(self, folder: RunFolder, view: View) -> None:
        self.folder = folder
        self.view = view

    def publish(self, g: int) -> None:
        """Generation g's net (and learned evaluator) become nets/best.*, what self-play uses."""
        f = self.folder
        for src, name in ((f.net(g), "best.onnx"), (evaluator_path(f.net(g)), "best" + EVAL_SUFFIX)):
            if src.is_file():
                write_with(f.dir / "nets" / name, functools.partial(shutil.copyfile, src))

    def _match(self, g: int, phase: str, detail: str, a: str, b: str, games: int, seed: int,
               openings: bool) -> MatchOutcome | NMatchOutcome:
        """A match of spec `a` (a net) against `b` through the runner for the run's players:
        the arena for two (always from random openings), the three-player Gobang paper's
        protocol for more."""
        c = self.folder.cfg
        if c.players == 2:
            self.view.phase(g, phase, f"{detail}, {games} games", games, 0)
            return play_match(a, b, c.width, c.height, c.main_rule, c.win_length, games, seed, c.worker_count(),
                              lambda d, n: self.view.progress(d))
        total = nplayer_games(games, c.players)
        self.view.phase(g, phase, f"{detail}, {total} games of {c.players} seats", total, 0)
        return play_nmatch(a, b, c.width, c.height, c.main_rule, c.win_length, c.players, total, seed, c.worker_count(),
                           with_openings=openings, on_game=lambda d, n: self.view.progress(d))

    def spec(self, g: int, name: str, level: Optional[int] = None) -> str:
        """The player spec of generation g's net in the run's matches: MCTS with the net, or for
        a learned evaluator the alpha-beta with it, at the classical level it is measured
        against (same nodes on both sides) or at the bootstrap's nodes."""
        f = self.folder
        if not f.learned:
            return net_spec(str(f.net(g)), f.cfg.eval_playouts, name, f.cfg.c_puct, f.cfg.select)
        budget = f"{level}" if level is not None else f"nodes={f.cfg.bootstrap_nodes}"
        return f"classical:{budget},eval={evaluator_path(f.net(g))},name={name}"

    def evaluate(self, g: int) -> None:
        """Gate generation g, climb the ladders with the best net, raise the playouts of a
        stalled run, publish an accepted net, write the metrics record and move the state to
        the next generation's self-play."""
        f, c, st = self.folder, self.folder.cfg, self.folder.state
        t0 = time.monotonic()
        record: dict[str, Any] = {"generation": g, "step": st.step, "games_total": st.games,
                                  "positions_total": st.positions}
        record.update({k: v for k, v in st.pending.items() if k != "plan"})
        blocked = evaluation_blocker(c.width, c.height, c.main_rule, c.win_length, c.players)
        accepted = self._gate(g, blocked, record)
        best = g if accepted else st.best
        if blocked is None and c.ladder_games > 0 and not f.learned:
            self._ladder(g, best, record)
        if classical_supported(c.win_length, c.players, c.width, c.height) and c.classical_games > 0 \
                and st.classical_level <= 5:
            self._classical(g, best, record)
        record["beaten"] = dict(st.beaten)
        if c.dynamic_playouts > 0 and g - st.ladder_since >= c.stall_generations:
            st.playouts += c.dynamic_playouts
            st.ladder_since = g
            record["playouts_raised_to"] = st.playouts
        record["hardware"] = f.hardware
        record["eval_seconds"] = round(time.monotonic() - t0, 2)
        record["elapsed"] = round(f.elapsed(), 1)
        if accepted:
            self.publish(g)
            st.best = g
        record["best"] = st.best
        put_record(f.dir / "metrics.jsonl", record)
        st.generation = g
        st.phase = "selfplay"
        st.pending = {}
        f.save_state()
        self.view.generation_done(record)

    def _gate(self, g: int, blocked: Optional[str], record: dict[str, Any]) -> bool:
        """Whether generation g replaces the best net: by a gating match when the run has one,
        always when the referee cannot judge the game or the run plays none."""
        c, st = self.folder.cfg, self.folder.state
        if blocked is not None:
            record["gating"] = {"skipped": f"{blocked}; always replace"}
            return True
        if c.eval_games > 0 and c.gate > 0:
            out = self._match(g, "gating", f"{gen_name(g)} vs best {gen_name(st.best)}",
                              self.spec(g, gen_name(g)), self.spec(st.best, f"best-{gen_name(st.best)}"),
                              c.eval_games, c.seed * 7919 + g, openings=True)
            accepted = out.score >= c.gate
            record["gating"] = {**out.to_json(), "against": st.best, "accepted": accepted,
                                "accept_if": f"score >= {c.gate:g}", "search": self._search()}
            return accepted
        record["gating"] = {"accepted": True, "always_replace": True}
        return True

    def _ladder(self, g: int, best: int, record: dict[str, Any]) -> None:
        """The best net against the pure-MCTS rung it is on; a rung beaten moves it up one."""
        c, st = self.folder.cfg, self.folder.state
        rung = pure_spec(st.ladder, c.ladder_opponent)
        shown = f"pure MCTS {st.ladder}" if c.ladder_opponent == "pure-mcts" else rung
        out = self._match(g, "ladder", f"best {gen_name(best)} vs {shown}",
                          net_spec(str(self.folder.net(best)), c.eval_playouts, gen_name(best), c.c_puct, c.select),
                          rung, c.ladder_games, c.seed * 104729 + g, openings=False)
        if c.players == 2:
            beat, rule = out.score >= c.ladder_win, f"score >= {c.ladder_win:g}"
        else:       # the three-player Gobang paper: the net beats the rung when it out-scores it over every seating
            beat, rule = beats(out.score, c.ladder_share), f"score > {c.ladder_share:g}"
        record["ladder"] = {**out.to_json(), "net": best, "playouts": st.ladder, "beaten": beat,
                            "beat_if": rule, "opponent": rung, "search": self._search()}
        if beat:
            st.beaten[rung] = st.step
            st.ladder += c.ladder_step
            st.ladder_since = g

    def _search(self) -> dict[str, Any]:
        """How the run's nets searched in its matches: as in self-play, less the noise."""
        c = self.folder.cfg
        return {"playouts": c.eval_playouts, "c_puct": c.c_puct, "select": c.select}

    def _classical(self, g: int, best: int, record: dict[str, Any]) -> None:
        """The best net against the classical level it is on; a level beaten moves it up one."""
        c, st = self.folder.cfg, self.folder.state
        level = st.classical_level
        out = self._match(g, "classical", f"best {gen_name(best)} vs classical level {level}",
                          self.spec(best, gen_name(best), level), f"classical:{level}",
                          c.classical_games, c.seed * 15485863 + g, openings=True)
        beat = out.score >= c.ladder_win
        record["classical"] = {**out.to_json(), "net": best, "level": level, "beaten": beat,
                               "beat_if": f"score >= {c.ladder_win:g}"}
        if beat:
            st.beaten[f"classical:{level}"] = st.step
            st.classical_level += 1
