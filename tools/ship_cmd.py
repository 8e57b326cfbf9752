"""`gomoku ship`: put a training run's best net into weights/ with its manifest entry, or add a
measured strength figure to a net already there. torch is imported only when a run is shipped."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click


def _summary(name: str, entry: dict) -> str:
    t = entry["training"]
    return (f"{name}: {entry['arch']} ({entry['parameters']:,} parameters), {entry['players']} players, "
            f"{entry['win_length']} in a row, {','.join(entry['rules'])}, boards "
            f"{','.join(str(s) for s in entry['board_sizes'])}; generation {t['best_generation']} of "
            f"{t['generations']}, {t['games']:,} games, {t['wall_seconds'] / 3600:.2f} h; "
            f"{len(entry['strength'])} strength figure(s)")


@click.command(name="ship")
@click.argument("args", nargs=-1, required=True, metavar="[RUN_DIR] NAME")
@click.option("--strength", "figures", multiple=True, metavar="'OPPONENT|RESULT|COMMAND'",
              help="A measured figure to record for NAME (repeatable), e.g. "
                   "'pure-mcts:5000|17-2-1 (87.5 %)|gomoku match weights/NAME.onnx pure-mcts:5000 -n 20'.")
@click.option("--weights", "weights_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to ship into [default: the installed package's weights/ folder].")
def ship(args: tuple[str, ...], figures: tuple[str, ...], weights_dir: Optional[Path]) -> None:
    """Ship RUN_DIR's best net as NAME: weights/NAME.onnx, its weights-only checkpoint
    weights/NAME.safetensors (for `gomoku train --init`), and NAME's entry in weights/manifest.json
    (the net's game from its metadata, the run's command, generations, games, positions, wall time
    and the hardware that trained it). Shipping NAME again replaces its files and keeps its strength
    figures.

    With NAME alone, only record --strength figures for the net already shipped as NAME.
    """
    from gomoku.weights import FOLDER
    from gomoku.weights.manifest import ManifestError, check_name, record_strength

    folder = weights_dir if weights_dir is not None else FOLDER
    if len(args) > 2:
        raise click.UsageError(f"expected [RUN_DIR] NAME, got {len(args)} arguments")
    name = args[-1]
    try:
        check_name(name)
    except ManifestError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
    if len(args) == 1:
        if not figures:
            raise click.UsageError("give RUN_DIR NAME to ship a run, or NAME --strength '...' to record a figure")
        try:
            entry = record_strength(folder, name, figures)
        except ManifestError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"{folder / 'manifest.json'}: {name} has {len(entry['strength'])} strength figure(s)")
        return
    try:
        from gomoku.train.ship import ShipError, ship_run
    except ImportError as exc:
        raise click.ClickException(f"ship needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        entry = ship_run(args[0], name, folder, figures)
    except (ShipError, ManifestError) as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from None
    click.echo(f"shipped {folder / entry['file']} and {entry['checkpoint']} "
               f"({entry['bytes']:,} + {entry['checkpoint_bytes']:,} bytes)")
    click.echo(_summary(name, entry))
