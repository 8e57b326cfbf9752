"""The options every `gomoku` command shares, defined once so they read, fail and exit alike.

- `--board` / `--size` (N or WxH), `--rule`: click parameter types, so a bad value is a usage
  error (exit status 2) worded the same in every command;
- `--progress/--no-progress`: the one switch for a live view;
- `output_path`: an output file or folder checked before any work (a missing folder is made, a
  file in the way is one line);
- `ExistingFile`: an input file or folder that must exist, refused in the engine's one wording
  (`evaluator file not found: x.eval.npz`) rather than click's own;
- `INTERRUPTED`: the exit status after Ctrl-C (130, as shells report SIGINT).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import click

from gomoku.engine.base.fileio import cannot_read
from gomoku.engine.game.rules import Rule, parse_rule
from gomoku.engine.game.size import parse_board_size

#: exit status after Ctrl-C: 128 + SIGINT, what a shell reports for a process SIGINT ended
INTERRUPTED = 130

class ExistingFile(click.ParamType):
    """A path that must name an existing file (or, with `folder`, a folder), as a string. The
    refusal is a usage error worded as everywhere else: `WHAT file not found: PATH`."""
    name = "FILE"

    def __init__(self, what: str, folder: bool = False) -> None:
        self.what = what
        self.folder = folder
        if folder:
            self.name = "DIR"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> str:
        path = Path(value)
        if not path.exists():
            self.fail(f"{self.what} not found: {value}" if self.folder else
                      cannot_read(self.what, value, FileNotFoundError()), param, ctx)
        if self.folder and not path.is_dir():
            self.fail(f"{self.what} {value} is not a folder", param, ctx)
        if not self.folder and path.is_dir():
            self.fail(cannot_read(self.what, value, IsADirectoryError()), param, ctx)
        return str(value)


class BoardSize(click.ParamType):
    """N or WxH -> (width, height)."""
    name = "N|WxH"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> tuple[int, int]:
        if isinstance(value, tuple):
            return value
        try:
            return parse_board_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class RuleName(click.ParamType):
    """A rule name or Piskvork number -> Rule; with `several`, a comma-separated list -> [Rule]."""
    name = "RULE"

    def __init__(self, several: bool = False) -> None:
        self.several = several

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Any:
        if isinstance(value, (Rule, list)):
            return value
        try:
            if not self.several:
                return parse_rule(value)
            rules = [parse_rule(part) for part in str(value).split(",")]
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if len(set(rules)) != len(rules):
            self.fail(f"{value!r} names a rule twice", param, ctx)
        return rules


BOARD_SIZE = BoardSize()
RULE = RuleName()
RULES = RuleName(several=True)

_RULE_HELP = "freestyle, standard, renju, caro, caro5 (or Piskvork 0/1/4/8/9)."


def board_option(default: Optional[str] = "15", help: str = "Board size: N or WxH, sides 5..22.",
                 required: bool = False) -> Callable:
    """`--board` / `--size` / `-s`, parsed to (width, height) (None when not given and no default)."""
    return click.option("-s", "--board", "--size", "board", type=BOARD_SIZE, default=default,
                        required=required, show_default=default is not None, help=help)


def rule_option(default: Optional[str] = "freestyle", help: str = _RULE_HELP, several: bool = False) -> Callable:
    """`--rule` / `-r`, parsed to a Rule (a list of them with `several`)."""
    return click.option("-r", "--rule", "rule", type=RULES if several else RULE, default=default,
                        show_default=default is not None, help=help)


def progress_option(help: str = "Live view (default: when stdout is a terminal).") -> Callable:
    """`--progress/--no-progress`: the one switch for a live view, None meaning 'when on a terminal'."""
    return click.option("--progress/--no-progress", "progress", default=None, help=help)


def live_view(progress: Optional[bool], stream: Any) -> bool:
    """Whether to show a live view: as asked, else when `stream` is a terminal."""
    return stream.isatty() if progress is None else progress


def output_path(path: Optional[str | Path], option: str, folder: bool = False) -> Optional[Path]:
    """Check an output file (or `folder`) before any work, making missing parent folders;
    a path that cannot be written is a usage error of `option`, in one line."""
    if path is None or str(path) == "-":
        return None if path is None else Path(path)
    from gomoku.engine.base.fileio import check_writable
    p = Path(path).expanduser()
    why = check_writable(p, folder=folder)
    if why:
        raise click.BadParameter(why, param_hint=option)
    return p
