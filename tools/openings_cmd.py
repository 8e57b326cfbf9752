"""`gomoku openings FILE`: make a book of balanced openings over the whole board (resumable).

The book is the file itself: pos-form lines (h8i9j7) that `gomoku match -o FILE` reads, under
a header that names the command and how many batches of candidates were drawn. Run it again
with the same FILE and it goes on from there with fresh seeds (after Ctrl-C or kill -9 nothing
is lost but the batches running then), until the file has -n openings.
"""
from __future__ import annotations

import multiprocessing as mp
import re
import shlex
import sys
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Optional

import click

from gomoku.engine.game.rules import Rule
from gomoku.tools.options import live_view, output_path, progress_option, rule_option

#: candidates a pool worker judges per task (a few seconds of work at 50k nodes)
BATCH = 16


def _header_batches(lines: list[str]) -> int:
    for line in lines:
        m = re.match(r"#\s*batches:\s*(\d+)", line)
        if m:
            return int(m.group(1))
    return 0


def _write(path: Path, openings: list[str], batches: int, command: str, what: str) -> None:
    from gomoku.engine.base.fileio import write_atomic
    head = [f"# {len(openings)} {what}, judged even by the classical search (gomoku openings)",
            f"# command: {command}",
            f"# batches: {batches}"]
    write_atomic(path, "\n".join(head + openings) + "\n")


@click.command(name="openings")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-n", "--count", type=click.IntRange(min=1), default=5000, show_default=True,
              help="Openings the book should hold.")
@rule_option()
@click.option("-s", "--size", type=click.IntRange(5, 22), default=15, show_default=True, help="Board side.")
@click.option("--nodes", type=click.IntRange(min=1000), default=20_000, show_default=True,
              help="Nodes the search spends judging one candidate.")
@click.option("--margin", type=click.IntRange(min=0), default=300, show_default=True,
              help="Keep a candidate the search scores within this of even (evaluation units).")
@click.option("--centre", type=click.IntRange(min=0), default=0, show_default=True,
              help="Draw 3 to 6 stones anywhere in the central K x K square instead (the shape of the "
                   "shipped balanced sets; 5 makes theirs); 0 = near one another anywhere on the board.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the candidates (batch k uses seed, k).")
@click.option("-c", "--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Worker processes.")
@progress_option("Progress bar (default: when stdout is a terminal).")
def openings(out: Path, count: int, rule: Rule, size: int, nodes: int, margin: int, centre: int, seed: int,
             concurrency: int, progress: Optional[bool]) -> None:
    """Make (or extend) a book of COUNT balanced SIZE x SIZE openings in OUT: 3 to 5 stones
    near one another anywhere on the board, each kept when a NODES-node search scores it within
    MARGIN of even; mirror images count once (--centre K: 3 to 6 stones in the central square). Resumable: the file is rewritten atomically after
    every batch and a rerun goes on where it stopped."""
    from gomoku.engine.match.opening_book import BATCH_SEED_STRIDE, BookSettings, canonical, find_balanced
    from gomoku.engine.match.openings import OpeningError, load_openings, to_pos_string
    from gomoku.engine.base.processes import KillablePool
    r = rule
    output_path(out, "OUT")
    lines: list[str] = []
    seen: set = set()
    batches = 0
    if out.exists():
        try:
            old = load_openings(out, size, size, "pos")
        except OpeningError as exc:
            raise click.ClickException(f"{out}: {exc}") from None
        batches = _header_batches(out.read_text(encoding="utf-8").splitlines())
        for op in old:
            key = canonical(op, size, size)
            if key not in seen:
                seen.add(key)
                lines.append(to_pos_string(op))
    what = f"balanced {size}x{size} {r.label} openings" + (f" in the central {centre}x{centre}" if centre else "")
    command = shlex.join(["gomoku", "openings", out.name, "-n", str(count), "--rule", r.label, "--size", str(size),
                          "--nodes", str(nodes), "--margin", str(margin)]
                         + (["--centre", str(centre)] if centre else []) + ["--seed", str(seed)])
    settings = BookSettings(size, size, r, nodes, margin, centre)
    if len(lines) >= count:
        click.echo(f"{out}: {len(lines)} openings already (asked for {count})")
        return
    show = live_view(progress, sys.stdout)
    pool = KillablePool(concurrency, mp_context=mp.get_context("spawn"))
    pending: dict[Future, int] = {}
    next_batch = batches
    done_batches = set(range(batches))
    try:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
        with Progress(TextColumn("openings"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeRemainingColumn(), disable=not show) as bar:
            task = bar.add_task("openings", total=count, completed=len(lines))
            while len(lines) < count:
                while len(pending) < 2 * concurrency:
                    pending[pool.submit(find_balanced, seed * BATCH_SEED_STRIDE + next_batch, BATCH,
                                        settings)] = next_batch
                    next_batch += 1
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    done_batches.add(pending.pop(fut))
                    for op, _score in fut.result():
                        key = canonical(op, size, size)
                        if key not in seen and len(lines) < count:
                            seen.add(key)
                            lines.append(to_pos_string(op))
                # the header's count is the first batch not yet done: batches past it that
                # finished early are drawn again after a kill, which only costs their time
                contiguous = batches
                while contiguous in done_batches:
                    contiguous += 1
                batches = contiguous
                _write(out, lines, batches, command, what)
                bar.update(task, completed=len(lines))
                if not show:
                    click.echo(f"{len(lines)}/{count} openings ({batches} batches of {BATCH})", err=True)
    finally:
        pool.close(kill=True)        # after Ctrl-C, and the spare batches once the book is full
    _write(out, lines, next_batch, command, what)
    click.echo(f"{out}: {len(lines)} {what}")
