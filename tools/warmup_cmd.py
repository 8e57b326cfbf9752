"""`gomoku warmup`: build numba's cache once so every later start is fast."""
from __future__ import annotations

import click


@click.command()
def warmup() -> None:
    """Compile and cache the numba core (run once after installing; takes ~30 s cold)."""
    from rich.console import Console

    from gomoku.engine.warmup import warm_up

    console = Console(stderr=True)
    with console.status("compiling the numba core...") as status:
        seconds = warm_up(lambda msg: status.update(f"compiling: {msg} done"))
    from gomoku.engine.numba_cache import mark_warm
    mark_warm()
    console.print(f"numba core ready in {seconds:.1f} s (cached for later runs)")
