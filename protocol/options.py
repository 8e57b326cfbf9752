"""The brain's command line, for `pbrain-gomoku` and `gomoku brain` alike: one table of options,
one parser, one help text.

The two front ends had drifted (`gomoku brain --eval F --net N` worked, the same line to
`pbrain-gomoku` was a usage error; each listed options the other lacked). Both now hand their
arguments here. The parser is plain Python: the brain's start must not import click (a
manager times the first reply). Each option's environment variable is its default; a value
on the command line wins.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class BrainOption:
    """One option: `metavar` empty for a switch that acts and exits; `env` the variable that
    gives its default (empty: none)."""
    name: str
    metavar: str
    env: str
    help: str


OPTIONS: tuple[BrainOption, ...] = (
    BrainOption("--net", "FILE.onnx", "GOMOKU_NET",
                "play with this policy-value net + MCTS (an ADP critic: one ply deep) on the board sizes "
                "and rules it was trained for, the classical engine on the others (one MESSAGE line says "
                "so; INFO thread_num sets the net's threads)"),
    BrainOption("--eval", "FILE.eval.npz", "GOMOKU_EVAL",
                "the alpha-beta scores its positions with this learned evaluator under the rule it was "
                "trained for (the tables under the others)"),
    BrainOption("--share", "P", "GOMOKU_EVAL_SHARE",
                "with --eval: the percent of each leaf's value the evaluator gives, the tables the rest "
                "(default: what the file says, else 100)"),
    BrainOption("--log", "FILE", "GOMOKU_BRAIN_LOG",
                "append a log of the session here (what libraries print lands there too)"),
    BrainOption("--turn-ms", "N", "GOMOKU_TURN_MS",
                "milliseconds a move when the manager sends no time INFO (default 5000)"),
    BrainOption("--warmup", "", "", "compile (or load) the whole engine into numba's cache and exit"),
    BrainOption("--version", "", "", "print the version and exit"),
    BrainOption("--help", "", "", "print this help and exit (also -h)"),
)

BY_NAME = {o.name: o for o in OPTIONS}


class BrainUsageError(ValueError):
    """A malformed command line, in one line (the front end prints it and exits 2)."""


@dataclass
class BrainArgs:
    """What the command line asked for; None where it said nothing (the environment, or the
    built-in default, then holds)."""
    net: Optional[str] = None
    evaluator: Optional[str] = None
    share: Optional[int] = None
    log: Optional[str] = None
    turn_ms: Optional[int] = None
    action: Optional[str] = None        # "help", "version" or "warmup": answer and exit

    def log_path(self) -> Optional[str]:
        """The session log: --log, else GOMOKU_BRAIN_LOG, else none."""
        return self.log or os.environ.get("GOMOKU_BRAIN_LOG") or None


def help_text(prog: str) -> str:
    """The help both front ends print: what the brain is, then every option of the table."""
    import textwrap
    about = ("A Piskvork / Gomocup brain: a manager (Piskvork, c-gomoku-cli, GomocupJudge, Yixin-Board) "
             "starts it and speaks the protocol on stdin/stdout (START 15, BEGIN, TURN x,y, ...; END). "
             "A --net or --eval file that cannot be used does not stop the brain: it answers ABOUT and "
             "every START with `ERROR <why>` and plays no game; a malformed command line is refused with "
             "one line on stderr and exit status 2. pbrain-gomoku and gomoku brain are the same brain.")
    lines = [f"usage: {prog} [OPTIONS]", "", *textwrap.wrap(about, 80, break_on_hyphens=False), "", "options:"]
    for o in OPTIONS:
        flag = f"{o.name} {o.metavar}" if o.metavar else o.name
        env = f"; also {o.env}={o.metavar}" if o.env else ""
        lines += textwrap.wrap(f"{o.help}{env}", 80, initial_indent=f"  {flag:<22} ",
                               subsequent_indent=" " * 25, break_on_hyphens=False)
    return "\n".join(lines)


def parse_brain_args(args: list[str]) -> BrainArgs:
    """The options of `args` (`--name VALUE` or `--name=VALUE`, in any order); BrainUsageError
    with one line for an unknown argument, a missing or bad value, or --share without --eval."""
    from gomoku.engine.search.blend import parse_share

    out = BrainArgs()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, has_value, value = arg.partition("=")
        if name == "-h":
            name = "--help"
        option = BY_NAME.get(name)
        if option is None:
            raise BrainUsageError(f"unknown argument {arg!r} (managers start it without arguments; see --help)")
        if not option.metavar:
            if has_value:
                raise BrainUsageError(f"{name} takes no value")
            out.action = out.action or name[2:]
            continue
        if not has_value:
            value = rest.pop(0) if rest and not rest[0].startswith("--") else ""
        if not value:
            raise BrainUsageError(f"{name} needs {_needs(option)}")
        if name == "--net":
            out.net = value
        elif name == "--eval":
            out.evaluator = value
        elif name == "--share":
            try:
                out.share = parse_share(value)
            except ValueError as exc:
                raise BrainUsageError(f"--share: {exc}") from None
        elif name == "--turn-ms":
            if not value.isdigit():
                raise BrainUsageError(f"--turn-ms: {value!r} is not a whole number of milliseconds (0 or more)")
            out.turn_ms = int(value)
        elif name == "--log":
            out.log = _log_path(value)
    if out.share is not None and out.evaluator is None:
        raise BrainUsageError("--share needs --eval FILE.eval.npz (it blends that evaluator with the tables)")
    return out


def _needs(option: BrainOption) -> str:
    examples = {"--net": "a file: pbrain-gomoku --net FILE.onnx",
                "--eval": "a file: pbrain-gomoku --eval FILE.eval.npz",
                "--share": "a percent: pbrain-gomoku --eval FILE.eval.npz --share 50",
                "--log": "a file: pbrain-gomoku --log FILE",
                "--turn-ms": "a number: pbrain-gomoku --turn-ms 1000"}
    return examples.get(option.name, option.metavar)


def _log_path(value: str) -> str:
    """A log file that can be written (missing folders are made); a usage error otherwise."""
    from pathlib import Path

    from gomoku.engine.base.fileio import check_writable
    why = check_writable(Path(value).expanduser())
    if why:
        raise BrainUsageError(f"--log: {why}")
    return value


def apply_defaults(parsed: BrainArgs) -> None:
    """Hand the share and the default move time on as the engine reads them (the loader and
    the time manager take their defaults from these variables); the net, the evaluator and the
    log go to `brain.run` as arguments."""
    if parsed.share is not None:
        os.environ[BY_NAME["--share"].env] = str(parsed.share)
    if parsed.turn_ms is not None:
        os.environ[BY_NAME["--turn-ms"].env] = str(parsed.turn_ms)
