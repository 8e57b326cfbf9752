"""The brain's command line, for `pbrain-gomoku` and `gomoku brain` alike: one table of options,
one parser, one help text.

The two front ends had drifted (`gomoku brain --eval F --net N` worked, the same line to
`pbrain-gomoku` was a usage error; each listed options the other lacked). Both now hand their
arguments here. The parser is plain Python: the brain's start must not import click (a
manager times the first reply). Each option's environment variable is its default; a value
on the command line wins. `parse_brain_args` is the only code that reads these variables: what
it returns goes down to the session, the loader and the time manager as arguments.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from gomoku.engine.base.timeman import DEFAULT_TURN_MS
from gomoku.engine.search.blend import SHARE_ENV, parse_share


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
    BrainOption("--share", "P", SHARE_ENV,
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
    """A malformed command line, in one line (the front end prints it and exits 2). `log`: the
    session log the environment names (GOMOKU_BRAIN_LOG), where `pbrain-gomoku` also writes
    the line (a manager's user looks there first); a --log on a malformed line is not used."""

    def __init__(self, text: str, log: Optional[str] = None) -> None:
        super().__init__(text)
        self.log = log


@dataclass(frozen=True)
class BrainArgs:
    """The brain's settings, complete: each from the command line, else from its environment
    variable, else the built-in default. Parsed once (`parse_brain_args`) and handed down: the
    session, the loader and the time manager read these values, never the environment."""
    net: Optional[str] = None
    evaluator: Optional[str] = None
    share: Optional[int] = None         # the evaluator's share of the leaf value; None: the file's
    log: Optional[str] = None
    turn_ms: int = DEFAULT_TURN_MS      # a move's time when the manager sends no time INFO
    action: Optional[str] = None        # "help", "version" or "warmup": answer and exit
    # the options the command line gave (the brain checks the files it names before any game)
    named: frozenset[str] = frozenset()
    # option name -> why its environment variable's value is not used, one line each (the
    # default plays; the brain logs the line once its log is open)
    env_problems: Mapping[str, str] = field(default_factory=dict)


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


def parse_brain_args(args: list[str], environ: Optional[Mapping[str, str]] = None) -> BrainArgs:
    """The brain's settings: each option of `args` (`--name VALUE` or `--name=VALUE`, in any
    order), else its variable in `environ` (default: this process's environment), else the
    built-in default. The one place the brain reads its own variables.

    A bad command line is a BrainUsageError with one line: an unknown argument, a missing or
    bad value, or --share without --eval. A bad value in the environment is no error: it goes
    to `env_problems` and the default plays, since the brain answers its manager whatever its
    environment says (a person who typed a bad option hears of it; a variable left over in a
    manager's environment must not cost every game). An empty variable counts as unset."""
    env = os.environ if environ is None else environ
    try:
        given, action = _command_line(args)
    except BrainUsageError as exc:
        raise BrainUsageError(str(exc), log=env.get(BY_NAME["--log"].env) or None) from None
    values: dict[str, Any] = dict(given)
    problems: dict[str, str] = {}
    for name, read in _ENV_VALUES.items():
        text = env.get(BY_NAME[name].env)
        if name in given or not text:
            continue
        try:
            values[name] = read(text)
        except ValueError as exc:
            problems[name] = f"{BY_NAME[name].env} not used ({exc})"
    return BrainArgs(net=values.get("--net"), evaluator=values.get("--eval"), share=values.get("--share"),
                     log=values.get("--log"), turn_ms=values.get("--turn-ms", DEFAULT_TURN_MS),
                     action=action, named=frozenset(given), env_problems=problems)


def _command_line(args: list[str]) -> tuple[dict[str, Any], Optional[str]]:
    """The values `args` gives, by option name, and the first switch that acts (help,
    version, warmup) or None; BrainUsageError for a malformed line."""
    given: dict[str, Any] = {}
    action: Optional[str] = None
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
            action = action or name[2:]
            continue
        if not has_value:
            value = rest.pop(0) if rest and not rest[0].startswith("--") else ""
        if not value:
            raise BrainUsageError(f"{name} needs {_needs(option)}")
        try:
            if name == "--share":
                given[name] = parse_share(value)
            elif name == "--turn-ms":
                given[name] = _turn_ms(value)
            elif name == "--log":
                given[name] = _log_path(value)
            else:
                given[name] = value
        except ValueError as exc:
            raise BrainUsageError(f"{name}: {exc}") from None
    if "--share" in given and "--eval" not in given:
        raise BrainUsageError("--share needs --eval FILE.eval.npz (it blends that evaluator with the tables)")
    return given, action


def _turn_ms(value: str) -> int:
    """Milliseconds a move, a whole number (0 or more); ValueError with a one-line reason."""
    if not (value.isascii() and value.isdigit()):
        raise ValueError(f"{value!r} is not a whole number of milliseconds (0 or more)")
    return int(value)


#: How each option's environment variable is read (ValueError: not used). The files are not
#: checked here: a net or evaluator named only by the environment is the loader's to try (it
#: logs one that does not load and plays without it), and a log that cannot be opened is the
#: null device, as ever.
_ENV_VALUES: dict[str, Callable[[str], Any]] = {
    "--net": str, "--eval": str, "--share": parse_share, "--log": str,
    "--turn-ms": lambda text: _turn_ms(text.strip()),
}


def _needs(option: BrainOption) -> str:
    examples = {"--net": "a file: pbrain-gomoku --net FILE.onnx",
                "--eval": "a file: pbrain-gomoku --eval FILE.eval.npz",
                "--share": "a percent: pbrain-gomoku --eval FILE.eval.npz --share 50",
                "--log": "a file: pbrain-gomoku --log FILE",
                "--turn-ms": "a number: pbrain-gomoku --turn-ms 1000"}
    return examples.get(option.name, option.metavar)


def _log_path(value: str) -> str:
    """A log file that can be written (missing folders are made); ValueError (why not) otherwise."""
    from pathlib import Path

    from gomoku.engine.base.fileio import check_writable
    why = check_writable(Path(value).expanduser())
    if why:
        raise ValueError(why)
    return value
