"""`gomoku brain`: the same Piskvork brain as the `pbrain-gomoku` executable."""
from __future__ import annotations

import os
from typing import Optional

import click


@click.command(name="brain")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="Append a session log here (stdout/stderr of libraries land there too).")
@click.option("--turn-ms", type=click.IntRange(0, None), default=None,
              help="Per-move budget when the manager sends no time INFO (default 5000).")
def brain(log_path: Optional[str], turn_ms: Optional[int]) -> None:
    """Run the Piskvork/Gomocup protocol brain on stdin/stdout (for managers and GUIs)."""
    from gomoku.protocol.brain import run
    if turn_ms is not None:
        os.environ["GOMOKU_TURN_MS"] = str(turn_ms)
    run(log_path=log_path or os.environ.get("GOMOKU_BRAIN_LOG") or None)
