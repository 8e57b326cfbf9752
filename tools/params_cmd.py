"""`gomoku params`: the alpha-beta's search parameters (engine.search.params), the names a
`classical:NAME=VALUE` spec and a `classical:params=FILE` JSON file set."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click


@click.command(name="params")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON (name, default, lo, hi, step, meaning).")
@click.option("--check", "check_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Check a parameter file and print the values it changes.")
def params(as_json: bool, check_file: Optional[Path]) -> None:
    """List every search parameter of the classical engine with its default, range, SPSA step
    and meaning. A player spec changes any of them (`classical:lmr_div=1.6,rfp_margin=200`),
    a JSON file many (`classical:params=FILE`, `{"lmr_div": 1.6}`)."""
    from gomoku.engine.search.params import PARAMS, SearchParams, load_params, table_text
    if check_file is not None:
        try:
            values = load_params(check_file)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        changed = SearchParams(values).changed()
        click.echo(f"{check_file}: " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "the defaults"))
        return
    if as_json:
        click.echo(json.dumps([{"name": p.name, "default": p.default, "lo": p.lo, "hi": p.hi, "step": p.step,
                                "meaning": p.meaning, "type": p.kind.__name__} for p in PARAMS], indent=1))
        return
    click.echo(table_text())
