"""`gomoku plot RUN`: PNG plots of a training run's metrics.jsonl (matplotlib imported lazily)."""
from __future__ import annotations

import click


@click.command()
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option("--out", default=None, help="Folder for the PNGs (default RUN/plots).")
def plot(run: str, out: str | None) -> None:
    """Write loss, entropy, learning-rate, evaluation and self-play plots of RUN as PNGs."""
    try:
        from gomoku.train.plot import PlotError, plot_run
    except ImportError as exc:
        raise click.ClickException(f"plot needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        for path in plot_run(run, out):
            click.echo(path)
    except PlotError as exc:
        raise click.ClickException(str(exc)) from None
