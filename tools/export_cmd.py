"""`gomoku export CKPT OUT.onnx`: a training checkpoint to a verified ONNX net (torch imported lazily)."""
from __future__ import annotations

import click

from gomoku.tools.options import ExistingFile, output_path


@click.command()
@click.argument("checkpoint", type=ExistingFile("checkpoint"))
@click.argument("out", type=click.Path(dir_okay=False))
def export(checkpoint: str, out: str) -> None:
    """Export CHECKPOINT to OUT (ONNX with the metadata the engine needs), checked against torch."""
    output_path(out, "OUT")
    try:
        from gomoku.train.checkpoint import CheckpointError
        from gomoku.train.export import ExportError, export_checkpoint
    except ImportError as exc:
        raise click.ClickException(f"export needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        info, worst = export_checkpoint(checkpoint, out)
    except (CheckpointError, ExportError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{out}: {info.summary()}; onnxruntime matches torch within {worst:.1e}")
