"""`gomoku tune --spsa NAMES`: tune search parameters by self-play at fixed nodes.

The arithmetic is engine.search.spsa; this module plays each iteration's games (the two
perturbed engines, one opening with colours swapped per pair, on worker processes) and keeps
the run in its folder, so that a kill loses at most the iteration being played:

    state.json    the run (what is tuned, its settings, the iteration reached, theta), rewritten
                  atomically after every iteration; a rerun of the command continues from it
    history.csv   one row per iteration: its games' result and theta after it
    params.json   theta as a parameter file (`classical:params=DIR/params.json`), every iteration
    paths.png     each parameter's path over the iterations (matplotlib; at the end, or --plot)
"""
from __future__ import annotations

import json
import multiprocessing as mp
import sys
from concurrent.futures import wait
from pathlib import Path
from typing import Any, Optional, Sequence

import click

from gomoku.engine.game.rules import Rule

STATE, HISTORY, PARAMS, PLOT = "state.json", "history.csv", "params.json", "paths.png"


def _spec(params: Any) -> str:
    label = params.label()
    return f"classical:{label}" if label else "classical"


class SpsaRun:
    """The run folder and the games of one `tune --spsa`."""

    def __init__(self, folder: Path, state: Any, openings: Sequence[Any], first_opening: int, pairs: int,
                 concurrency: int, game: Any) -> None:
        self.folder, self.state, self.openings = folder, state, list(openings)
        self.first_opening, self.pairs, self.concurrency, self.game = first_opening, pairs, concurrency, game

    # -- the folder ---------------------------------------------------------------------------
    @staticmethod
    def load_state(folder: Path) -> Optional[Any]:
        from gomoku.engine.search.spsa import SpsaState
        path = folder / STATE
        if not path.is_file():
            return None
        try:
            return SpsaState.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"{path}: cannot continue this run ({str(exc).splitlines()[0]})") from None

    def _save(self, row: list[Any]) -> None:
        from gomoku.engine.base.fileio import append_text, write_atomic
        from gomoku.engine.search.params import DEFAULT, save_params
        st = self.state
        hist = self.folder / HISTORY
        if not hist.exists():
            append_text(hist, ",".join(["k", "wins", "losses", "draws"] + st.names) + "\n")
        # the row first, then the state: a kill between them leaves a row the state has not
        # counted, which _trim_history drops when the run continues
        append_text(hist, ",".join(str(x) for x in row) + "\n")
        write_atomic(self.folder / STATE, json.dumps(st.to_json(), indent=1) + "\n")
        save_params(self.folder / PARAMS, DEFAULT.replace(**st.values()),
                    {"spsa": {"iterations": st.k, "of": st.iterations, "names": st.names,
                              "plus_wins": st.wins, "plus_losses": st.losses, "draws": st.draws,
                              "settings": st.settings}})

    def trim_history(self) -> None:
        """Drop history rows past the state's iteration (a kill after the row, before the state)."""
        from gomoku.engine.base.fileio import write_atomic
        hist = self.folder / HISTORY
        if not hist.is_file():
            return
        lines = hist.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = lines[:1] + [ln for ln in lines[1:] if ln.endswith("\n") and int(ln.split(",", 1)[0]) <= self.state.k]
        if kept != lines:
            write_atomic(hist, "".join(kept))

    # -- the games ----------------------------------------------------------------------------
    def _jobs(self) -> list[Any]:
        from gomoku.engine.match.pool import GameJob
        k = self.state.k
        jobs = []
        for j in range(self.pairs):
            pair = k * self.pairs + j
            op = self.openings[(self.first_opening - 1 + pair) % len(self.openings)] if self.openings else ()
            for black in (True, False):
                jobs.append(GameJob(2 * pair + (0 if black else 1), op, black, self.state.seed * 7919 + pair))
        return jobs

    def iterate(self, pool: Any) -> tuple[int, int, int]:
        """Play the next iteration's games and update the state; the plus side's W, L, D."""
        from gomoku.engine.match.pool import play_specs
        plus, minus = self.state.perturbed()
        a, b = _spec(plus), _spec(minus)
        futures = [pool.submit(play_specs, a, b, self.game, job) for job in self._jobs()]
        wait(futures)
        w = l = d = 0
        for f in futures:
            res = f.result()
            s = res.a_score
            w, l, d = w + (s == 1.0), l + (s == 0.0), d + (s == 0.5)
        self.state.update(w, l, d)
        self._save([self.state.k, w, l, d] + [f"{self.state.theta[n]:.6g}" for n in self.state.names])
        return w, l, d


def plot_paths(folder: Path) -> Optional[str]:
    """paths.png from history.csv: one panel per parameter. None when written, else why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "the plot needs matplotlib: pip install matplotlib"
    from gomoku.engine.base.fileio import write_atomic_with
    lines = (folder / HISTORY).read_text(encoding="utf-8").splitlines()
    head, rows = lines[0].split(","), [ln.split(",") for ln in lines[1:] if ln]
    names = head[4:]
    cols = min(3, len(names))
    nrows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 2.6 * nrows), squeeze=False)
    ks = [int(r[0]) for r in rows]
    for i, name in enumerate(names):
        ax = axes[i // cols][i % cols]
        ax.plot(ks, [float(r[4 + i]) for r in rows], lw=1)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("iteration", fontsize=8)
        ax.tick_params(labelsize=7)
    for j in range(len(names), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.tight_layout()
    write_atomic_with(folder / PLOT, lambda tmp: fig.savefig(tmp, format="png", dpi=90))
    plt.close(fig)
    return None


def run(names: Sequence[str], folder: Path, iterations: int, nodes: int, rule: Rule, openings: str,
        openings_from: int, pairs: int, concurrency: int, seed: int, r_end: float, progress: Optional[bool],
        plot_every: int) -> None:
    """The command: a new run in `folder`, or the one there continued (same settings)."""
    from gomoku.engine.match.games import GameSettings
    from gomoku.engine.match.pool import any_worker_init
    from gomoku.engine.base.processes import KillablePool
    from gomoku.engine.search.spsa import SpsaState
    from gomoku.tools.match_cmd import choose_openings
    from gomoku.tools.options import INTERRUPTED, live_view
    from gomoku.tools.prepare import ensure_compiled

    settings = {"nodes": nodes, "rule": rule.label, "openings": openings, "openings_from": openings_from,
                "pairs": pairs}
    state = SpsaRun.load_state(folder)
    if state is None:
        try:
            state = SpsaState.new(list(names), iterations, seed=seed, r_end=r_end, settings=settings)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    else:
        asked = SpsaState.new(list(names), iterations, seed=seed, r_end=r_end, settings=settings)
        differs = [k for k in ("names", "iterations", "seed", "r_end", "settings")
                   if getattr(asked, k) != getattr(state, k)]
        if differs:
            raise click.ClickException(f"{folder} holds a run with other {', '.join(differs)}: give the same "
                                       "options to continue it, or another folder")
        click.echo(f"continuing {folder}: {state.k} of {state.iterations} iterations done")
    ops = choose_openings(openings, "auto", 15, 15, rule)
    game = GameSettings(width=15, rule=rule, turn_time=0.0, nodes=nodes, adjudicate_proven=True)
    folder.mkdir(parents=True, exist_ok=True)
    spsa = SpsaRun(folder, state, ops, openings_from, pairs, concurrency, game)
    spsa.trim_history()
    ensure_compiled()
    live = live_view(progress, sys.stderr)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    bar = Progress(TextColumn("[bold]SPSA"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[score]}"),
                   TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), disable=not live)
    pool = KillablePool(concurrency, mp_context=mp.get_context("spawn"), initializer=any_worker_init)
    interrupted = False
    try:
        with bar:
            task = bar.add_task("spsa", total=state.iterations, completed=state.k, score="")
            while not state.done:
                spsa.iterate(pool)
                bar.update(task, completed=state.k,
                           score=f"plus {state.wins}-{state.losses}-{state.draws}")
                if not live and (state.k % 10 == 0 or state.done):
                    click.echo(f"iteration {state.k}/{state.iterations}: plus side {state.wins} - {state.losses} - "
                               f"{state.draws}; " + ", ".join(f"{n}={v}" for n, v in state.values().items()))
                if plot_every and state.k % plot_every == 0:
                    plot_paths(folder)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        pool.close(kill=interrupted)
    if state.k:
        why = plot_paths(folder)
        if why:
            click.echo(f"no {PLOT}: {why}", err=True)
    values = ", ".join(f"{n}={v}" for n, v in state.values().items())
    click.echo(f"{state.k} of {state.iterations} iterations: {values}")
    click.echo(f"parameters in {folder / PARAMS}: play them as classical:params={folder / PARAMS}")
    if interrupted:
        click.echo(f"stopped; the same command continues from iteration {state.k + 1}")
        sys.exit(INTERRUPTED)

