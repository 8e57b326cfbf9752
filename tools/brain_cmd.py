"""`gomoku brain`: the same Piskvork brain as the `pbrain-gomoku` executable, with the same
options, parser and help (protocol/options.py): click only hands the arguments on, and words
a malformed line as every other `gomoku` command does (`Error: ...`, exit status 2)."""
from __future__ import annotations

import click


@click.command(name="brain", add_help_option=False,
               context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
               help="Run the Piskvork/Gomocup protocol brain on stdin/stdout (for managers and GUIs): "
                    "pbrain-gomoku's options, `gomoku brain --help` lists them.")
@click.pass_context
def brain(ctx: click.Context) -> None:
    from gomoku.protocol.brain import serve
    from gomoku.protocol.options import BrainUsageError, parse_brain_args
    try:
        parsed = parse_brain_args(list(ctx.args))
    except BrainUsageError as exc:
        raise click.UsageError(str(exc)) from None
    serve(parsed, prog="gomoku brain")
