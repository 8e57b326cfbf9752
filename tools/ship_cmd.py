"""`gomoku ship`: put a training run's best net into weights/ with its manifest entry, add a
measured strength figure to a net already there, or re-run the sanity battery on shipped nets.
torch is imported only when a run is shipped."""
from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import click


def _summary(name: str, entry: dict) -> str:
    t = entry["training"]
    return (f"{name}: {entry['arch']} ({entry['parameters']:,} parameters), {entry['players']} players, "
            f"{entry['win_length']} in a row, {','.join(entry['rules'])}, boards "
            f"{','.join(str(s) for s in entry['board_sizes'])}; generation {t['best_generation']} of "
            f"{t['generations']}, {t['games']:,} games, {t['wall_seconds'] / 3600:.2f} h; "
            f"{len(entry['strength'])} strength figure(s)")


def _battery(path: Path) -> Any:
    """The sanity battery's report on a net file; ClickException (one line) when it cannot run."""
    from gomoku.engine.match.sanity import SanityError, run_battery
    try:
        return run_battery(path)
    except SanityError as exc:
        raise click.ClickException(str(exc)) from None


def _commit(folder: Path) -> Optional[str]:
    """The checkout's commit the check ran in (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _record(report: Any, path: Path, folder: Path) -> dict[str, Any]:
    """The manifest's sanity record of a report on the file at `path`."""
    from gomoku.weights.manifest import sha256_file
    return report.to_record(sha256=sha256_file(path), date=datetime.datetime.now(datetime.timezone.utc).date()
                            .isoformat(), commit=_commit(folder))


def _print_report(title: str, report: Any) -> None:
    from gomoku.engine.match.sanity import describe_cell
    click.echo(title)
    click.echo(f"  {'check':<13} {'game':<16} {'result':<6} {'move':<11} {'policy top':<11} why")
    for r in report.results:
        game = f"{r.rule} {r.size}x{r.size}"
        click.echo(f"  {r.check:<13} {game:<16} {r.status.upper():<6} {describe_cell(r.move):<11} "
                   f"{describe_cell(r.policy):<11} {r.reason}")


def _check(targets: tuple[str, ...], folder: Path) -> None:
    """--check: the battery on each shipped NAME (every shipped net when none is named) or
    FILE.onnx; a NAME's verdict goes into its manifest entry. Exit 1 when any net fails."""
    from gomoku.engine.match.sanity import BATTERY_VERSION, DEFAULT_PLAYOUTS, PLAYOUTS, SEED
    from gomoku.weights.manifest import (ManifestError, check_name, manifest_path, read_manifest, record_sanity,
                                         sha256_file)
    try:
        nets = read_manifest(folder, missing_ok=bool(targets) and all(t.endswith(".onnx") for t in targets))
    except ManifestError as exc:
        raise click.ClickException(str(exc)) from None
    names = list(targets) or sorted(nets)
    if not names:
        raise click.ClickException(f"{manifest_path(folder)}: no shipped nets to check")
    click.echo(f"sanity battery {BATTERY_VERSION}: each net's MCTS player at {PLAYOUTS} playouts (the opening at "
               f"{DEFAULT_PLAYOUTS} too), seed {SEED}, and its raw policy")
    failed: list[str] = []
    for target in names:
        if target.lower().endswith(".onnx"):
            path, name = Path(target), None
        else:
            try:
                check_name(target)
            except ManifestError as exc:
                raise click.BadParameter(str(exc), param_hint="NAME") from None
            entry = nets.get(target)
            if entry is None:
                raise click.ClickException(f"{target!r} is not shipped in {folder} "
                                           f"(shipped: {', '.join(sorted(nets)) or 'none'})")
            path, name = folder / str(entry["file"]), target
            if not path.is_file() or sha256_file(path) != entry.get("sha256"):
                raise click.ClickException(f"{path}: the file does not match its manifest entry; ship it again first")
        report = _battery(path)
        _print_report(f"{name or path} ({path}):", report)
        verdict = report.summary()
        if name is not None:
            try:
                entry = record_sanity(folder, name, _record(report, path, folder), verdict)
            except ManifestError as exc:
                raise click.ClickException(str(exc)) from None
            except OSError as exc:
                raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from None
            where = f"recorded in {manifest_path(folder)}"
            if entry.get("withdrawn"):
                where += "; withdrawn (kept out of the defaults, files kept)"
            verdict += f" ({where})"
        click.echo(f"{name or path}: {verdict}")
        if not report.passed:
            failed.append(name or str(path))
    if failed:
        click.echo(f"{len(failed)} of {len(names)} net(s) fail the sanity battery: {', '.join(failed)}", err=True)
        sys.exit(1)


@click.command(name="ship")
@click.argument("args", nargs=-1, metavar="[RUN_DIR] NAME")
@click.option("--strength", "figures", multiple=True, metavar="'OPPONENT|RESULT|COMMAND'",
              help="A measured figure to record for NAME (repeatable), e.g. "
                   "'pure-mcts:5000|17-2-1 (87.5 %)|gomoku match weights/NAME.onnx pure-mcts:5000 -n 20'.")
@click.option("--check", "check", is_flag=True,
              help="Re-run the sanity battery on the shipped nets named (all of them when none is) or on any "
                   "FILE.onnx, print every check, and record each shipped net's verdict in the manifest: one that "
                   "fails is marked withdrawn, with the reason (its files stay). Exit 1 when any net fails.")
@click.option("--weights", "weights_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to ship into [default: the installed package's weights/ folder].")
def ship(args: tuple[str, ...], figures: tuple[str, ...], check: bool, weights_dir: Optional[Path]) -> None:
    """Ship RUN_DIR's best net as NAME: weights/NAME.onnx, its weights-only checkpoint
    weights/NAME.safetensors (for `gomoku train --init`), and NAME's entry in weights/manifest.json
    (the net's game from its metadata, the run's command, generations, games, positions, wall time
    and the hardware that trained it). Shipping NAME again replaces its files and keeps its strength
    figures.

    \b
    Nothing is written unless the net passes the sanity battery on every
    rule it claims, played by its own MCTS player (200 playouts, seed 0)
    and read from its raw policy:
      opening       the first move on the empty board, at 200 and 800
                    playouts, and the policy's top cell lie in the
                    central region (the middle third of each side; all
                    cells off the edge on 5x5 and 6x6)
      answer-win    a win in one is taken while the opponent has a four
      block-four    the opponent's four (k-1 in a row) is blocked
      answer-three  an open three (open k-2) is answered: an end blocked
                    or a four of its own made (two-player nets only)
    A net that fails is refused in one line naming the check. The
    verdict of a shipped net is kept in its manifest entry (sanity).

    With NAME alone, only record --strength figures for the net already shipped as NAME.

    With --check [NAME | FILE.onnx]..., re-check shipped nets (all when none is named) or any net
    file: e.g. `gomoku ship --check 15x15k5-b4c32`.
    """
    from gomoku.weights import FOLDER
    from gomoku.weights.manifest import (ManifestError, apply_sanity, check_name, parse_strength, read_manifest,
                                         record_strength, write_manifest)

    folder = weights_dir if weights_dir is not None else FOLDER
    if check:
        if figures:
            raise click.UsageError("--check records no --strength figures; give them in a separate call")
        _check(args, folder)
        return
    if not args:
        raise click.UsageError("give RUN_DIR NAME to ship a run, NAME --strength '...' to record a figure, "
                               "or --check [NAME]... to re-check shipped nets")
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
        from gomoku.train.ship import ShipError, _run_files, ship_run
    except ImportError as exc:
        raise click.ClickException(f"ship needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        for text in figures:            # a malformed figure is refused before the battery runs
            parse_strength(text)
        net_src = _run_files(Path(args[0]))[3]
    except (ShipError, ManifestError) as exc:
        raise click.ClickException(str(exc)) from None
    report = _battery(net_src)
    if not report.passed:
        raise click.ClickException(f"refused to ship {net_src} as {name}: it {report.summary()}; nothing written "
                                   f"(`gomoku ship --check {net_src}` lists every check)")
    try:
        entry = ship_run(args[0], name, folder, figures)
        nets = read_manifest(folder)
        apply_sanity(nets[name], _record(report, folder / entry["file"], folder), report.summary())
        write_manifest(folder, nets)
    except (ShipError, ManifestError) as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write to {folder}: {exc.strerror or exc}") from None
    click.echo(f"shipped {folder / entry['file']} and {entry['checkpoint']} "
               f"({entry['bytes']:,} + {entry['checkpoint_bytes']:,} bytes)")
    click.echo(_summary(name, entry))
    click.echo(f"sanity battery: {report.summary()}")
