"""`gomoku plot RUN`: PNG plots of a training run's metrics.jsonl (matplotlib imported lazily)."""
from __future__ import annotations

import click

from gomoku.tools.options import ExistingFile, output_path


@click.command()
@click.argument("run", type=ExistingFile("run folder", folder=True))
@click.option("--out", default=None, help="Folder for the PNGs (default RUN/plots).")
@click.option("--table", is_flag=True,
              help="Print the ladder (optimiser step and generation at which each rung fell) instead of plotting.")
def plot(run: str, out: str | None, table: bool) -> None:
    """Write loss, entropy, learning-rate, evaluation, ladder and self-play plots of RUN as PNGs."""
    if table:
        from pathlib import Path

        from gomoku.train.metrics import ladder_table, read_metrics
        src = Path(run) / "metrics.jsonl"
        lines = ladder_table(read_metrics(src))
        if not lines:
            raise click.ClickException(f"{src}: no generation has played the ladder yet")
        for line in lines:
            click.echo(line)
        return
    output_path(out, "--out", folder=True)
    try:
        from gomoku.train.plot import PlotError, plot_run
    except ImportError as exc:
        raise click.ClickException(f"plot needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        for path in plot_run(run, out):
            click.echo(path)
    except PlotError as exc:
        raise click.ClickException(str(exc)) from None
