"""`gomoku study NAME`: rerun one of the papers' experiments (tools/studies/) at a chosen scale.

The result folder gets result.md (our table beside the paper's, with the command, scale, date
and machine, ready to paste into docs/studies.md) and result.json (the raw figures), each
written atomically once the study is done, so an interrupted study leaves no half result.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Optional

import click

from gomoku.tools.options import output_path

_SCALE_HELP = ("tiny: seconds to a minute (tests); small: what a 2-core machine affords (minutes to an hour); "
               "paper: the paper's own scale (hours).")


def _machine() -> str:
    """One line naming the machine a result was measured on."""
    return f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}, Python {platform.python_version()}"


def result_markdown(name: str, paper: str, summary: str, result: Any, command: str, seconds: float) -> str:
    """result.md: what was run, where and how long, then our table and the paper's."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"# Study `{name}`: {paper}\n\n{summary}.\n\n"
            f"- command: `{command}`\n- scale: {result.scale}\n- date: {now}\n- machine: {_machine()}\n"
            f"- wall time: {seconds:.0f} s\n\n## Ours\n\n{result.table.rstrip()}\n\n"
            f"## The paper's\n\n{result.paper_table.rstrip()}\n")


def _list_studies() -> None:
    from gomoku.tools.studies import studies
    for name, st in studies().items():
        click.echo(f"{name:24s} {st.paper}: {st.summary}")


@click.command(name="study")
@click.argument("name", required=False)
@click.option("--scale", type=click.Choice(["tiny", "small", "paper"]), default="small", show_default=True,
              help=_SCALE_HELP)
@click.option("--out", default=None, help="Folder for result.md and result.json (default studies/NAME/).")
@click.option("--list", "list_only", is_flag=True, help="List the studies (name, paper, what it reruns) and exit.")
def study(name: Optional[str], scale: str, out: Optional[str], list_only: bool) -> None:
    """Rerun the study NAME (a paper's table) at --scale; write result.md and result.json."""
    if list_only:
        _list_studies()
        return
    from gomoku.tools.studies import studies
    known = studies()
    if name is None:
        raise click.UsageError(f"name a study ({', '.join(known)}), or --list")
    if name not in known:
        raise click.BadParameter(f"no study {name!r}: {', '.join(known)}", param_hint="NAME")
    folder = output_path(out if out is not None else Path("studies") / name, "--out", folder=True)
    assert folder is not None
    st = known[name]
    t0 = time.perf_counter()

    def progress(line: str) -> None:
        click.echo(f"[{time.perf_counter() - t0:7.1f} s] {line}", err=True)

    progress(f"{name} ({st.paper}) at scale {scale}")
    result = st.run(scale, folder, progress)
    seconds = time.perf_counter() - t0
    argv = ["gomoku", "study", name, "--scale", scale] + (["--out", out] if out is not None else [])
    md = result_markdown(name, st.paper, st.summary, result, shlex.join(argv), seconds)
    record = {"study": name, "paper": st.paper, "scale": result.scale, "command": argv, "seconds": seconds,
              "machine": _machine(), "cores": os.cpu_count(),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "table": result.table, "paper_table": result.paper_table, "data": result.data}
    from gomoku.engine.base.fileio import write_atomic
    try:
        write_atomic(folder / "result.json", json.dumps(record, indent=1) + "\n")
        write_atomic(folder / "result.md", md)
    except OSError as exc:
        raise click.ClickException(f"{folder}: {exc}") from None
    sys.stdout.write(md)
    progress(f"wrote {folder / 'result.md'} and result.json")
