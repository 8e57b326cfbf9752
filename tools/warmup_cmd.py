"""`gomoku warmup`: build numba's cache once so every later start is fast."""
from __future__ import annotations

import click


@click.command()
@click.option("-j", "--jobs", type=click.IntRange(1, 16), default=None,
              help="Compiling processes (default: one per core, at most 4).")
def warmup(jobs: int | None) -> None:
    """Compile and cache the numba engine (once after installing; one to two minutes of CPU cold).

    `play`, `match` and `bench` do this by themselves before their clocks start; run it
    yourself before using the Piskvork brain, which would otherwise compile in the background
    while playing quick fallback moves."""
    from rich.console import Console

    from gomoku.engine.player.warmup import warm_up
    from gomoku.engine.base.numba_cache import mark_warm
    from gomoku.tools.prepare import ensure_compiled

    console = Console(stderr=True)
    ensure_compiled(console, jobs=jobs)
    with console.status("loading the compiled engine..."):
        seconds = warm_up()       # every step from the cache: checks that nothing is missing
    mark_warm()
    console.print(f"engine ready: loaded from numba's cache in {seconds:.1f} s")
