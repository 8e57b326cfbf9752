"""The one way a two-player command hands a game of three or four players to its n-player half.

`gomoku play` and `gomoku match` parse one set of options for every seat count. With
`--players 3` they call `to_nplayer`, which refuses (in one line, exit status 2) the options
given on the command line that only two-player games know, compiles the tree search before
any clock starts, and tells the n-player half which options were given, so that those left
at their defaults can take the n-player game's own (a smaller board, no clock).
"""
from __future__ import annotations

from typing import Callable, Iterable

import click
from click.core import ParameterSource


def _flag(ctx: click.Context, name: str) -> str:
    """The option's first long flag as the command declares it ('--color' for `colour`)."""
    for param in ctx.command.params:
        if param.name == name:
            return next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return "--" + name.replace("_", "-")


def to_nplayer(two_player_only: Iterable[str], refusal: str) -> Callable[[str], bool]:
    """Refuse any of `two_player_only` (parameter names) given on the command line with
    '<flag> <refusal>', then compile the engine; return `given(name)`: whether that option
    was given (rather than left at its default)."""
    from gomoku.tools.prepare import ensure_compiled
    ctx = click.get_current_context()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)

    for name in two_player_only:
        if given(name):
            raise click.UsageError(f"{_flag(ctx, name)} {refusal}")
    ensure_compiled()        # the tree search is numba code too: compiled before any clock starts
    return given
