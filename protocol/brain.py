"""`pbrain-gomoku`: the Piskvork/Gomocup brain on stdin/stdout.

Start-up order matters: protect the protocol stream first (fd hygiene), start loading the
numba engine in the background, then read commands at once, so ABOUT and START are answered
within milliseconds even while numba loads or compiles. The main thread reads and dispatches;
moves come from the thinking thread, guarded by a watchdog (see protocol.thinker).
Exit status is 0 on END and on end of input, and nothing is printed after either.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Callable, Optional

from gomoku.engine import timeman
from gomoku.protocol.commands import LineSplitter, parse_line
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.protocol.output import ProtocolOutput, isolate_stdio
from gomoku.protocol.session import Session

READ_CHUNK = 65536


def run(log_path: Optional[str] = None, warmup: bool = True,
        clock: Callable[[], float] = time.monotonic) -> int:
    """Serve the protocol until END or end of input; never returns normally (os._exit).
    Input lines are stamped on `clock`, which the session's deadlines are on."""
    # A thread waiting for the GIL (the watchdog, the reader) gets it within ~1 ms instead of 5.
    sys.setswitchinterval(0.001)
    proto_fd = isolate_stdio(log_path)
    out = ProtocolOutput(proto_fd, log=sys.stderr if log_path else None)
    loader = EngineLoader(warmup=warmup).start()
    session = Session(out, loader, startup_s=timeman.startup_cost_s(), clock=clock)
    print(f"brain started, pid {os.getpid()}, start-up charge {session.startup_s:.3f} s")
    splitter = LineSplitter()
    while True:
        try:
            data = os.read(0, READ_CHUNK)
        except OSError:
            data = b""
        t_read = clock()
        lines = splitter.feed(data) if data else splitter.flush()
        for line in lines:
            if log_path:
                print(f"> {line[:200]}")
            cmd = parse_line(line)
            if cmd is not None and cmd.name == "END":
                _quit(out)
            try:
                session.handle_line(line, t_read)
            except Exception as exc:  # noqa: BLE001 - one ERROR line, keep serving
                traceback.print_exc()
                out.send(f"ERROR internal error: {type(exc).__name__}")
        if not data:
            _quit(out)


def _quit(out: ProtocolOutput) -> None:
    """END or EOF: silence the output for good and leave at once (threads are daemons, and a
    search still running must not delay the exit)."""
    out.close()
    try:
        from gomoku.engine import numba_cache
        numba_cache.kill_child()
    except Exception:  # noqa: BLE001
        pass
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
    os._exit(0)


def net_problem(path: str) -> Optional[str]:
    """Why the net file `path` cannot be the brain's net, in one line, or None when it loads.

    `pbrain-gomoku --net` and `gomoku brain --net` check the file before the protocol starts:
    a person who names a net wants to hear at once that it is wrong, not to find out from a
    match that the brain quietly played the classical engine (which is what a net that fails
    later, in the background loader, falls back to)."""
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    try:
        NetEvaluator.load(path)
    except NetFormatError as exc:
        return str(exc)
    return None


USAGE = """\
usage: pbrain-gomoku [-h | --help | --version | --warmup | --net FILE.onnx | --eval FILE.eval.npz [--share P]]

A Piskvork / Gomocup brain: a manager (Piskvork, c-gomoku-cli, GomocupJudge, Yixin-Board)
starts it and speaks the protocol on stdin/stdout (START 15, BEGIN, TURN x,y, ...; END).
--net FILE.onnx plays with that policy-value net + MCTS on the board sizes and rules it was
trained for and with the classical engine on the others, saying so in one MESSAGE line (INFO
thread_num sets the net's threads). --eval FILE.eval.npz has the alpha-beta score its positions with that learned
evaluator under the rule it was trained for (the tables under the others); --share P gives it
P % of each leaf's value and the tables the rest (default: what the file says, else 100).
Environment: GOMOKU_NET=FILE is the same as --net, GOMOKU_EVAL=FILE as --eval, GOMOKU_EVAL_SHARE=P
as --share, GOMOKU_BRAIN_LOG=FILE keeps a log
of the session, GOMOKU_TURN_MS=N sets the time per move when the manager sends none (default
5000). Same as `gomoku brain`.
--warmup compiles (or loads) the whole engine into numba's cache and exits."""


def _usage_error(text: str) -> None:
    """One line on stderr and exit status 2: the protocol has not started, so nothing may go
    to stdout (a manager would read it as the brain's first reply)."""
    print(f"pbrain-gomoku: {text}", file=sys.stderr)
    raise SystemExit(2)


def _file_option(args: list[str], flag: str, example: str) -> str:
    """The file of `flag FILE` or `flag=FILE`, the only arguments; a usage error otherwise."""
    if args[0] == flag:
        path, rest = (args[1], args[2:]) if len(args) > 1 else ("", [])
    else:
        path, rest = args[0][len(flag) + 1:], args[1:]
    if not path:
        _usage_error(f"{flag} needs a file: pbrain-gomoku {flag} {example}")
    if rest:
        _usage_error(f"unknown argument {rest[0]!r} after {flag} FILE (see --help)")
    return path


def _share_option(args: list[str]) -> tuple[list[str], Optional[str]]:
    """`args` without a `--share P` (or `--share=P`) that follows `--eval FILE`, and P checked
    (a usage error when it is not a percent); P is None when there was none."""
    from gomoku.engine.search.blend import parse_share
    for i, arg in enumerate(args[1:], start=1):
        if arg == "--share" or arg.startswith("--share="):
            value = args[i + 1] if arg == "--share" and i + 1 < len(args) else arg[len("--share="):]
            if not value:
                _usage_error("--share needs a percent: pbrain-gomoku --eval FILE.eval.npz --share 50")
            try:
                parse_share(value)
            except ValueError as exc:
                _usage_error(f"--share: {exc}")
            return args[:i] + args[i + (2 if arg == "--share" else 1):], value
    return args, None


def main(argv: Optional[list[str]] = None) -> None:
    """Console-script entry point. GOMOKU_BRAIN_LOG=path keeps a log of the session.
    Managers start a brain without arguments, or with `--net FILE` (checked here, then served
    like GOMOKU_NET); -h/--help and --version answer and exit instead of waiting for protocol
    input, --warmup fills numba's cache and exits (what a frozen brain's compile child runs),
    anything else is refused."""
    args = sys.argv[1:] if argv is None else argv
    if args and (args[0] == "--eval" or args[0].startswith("--eval=")):
        args, share = _share_option(args)
        path = _file_option(args, "--eval", "FILE.eval.npz")
        from gomoku.engine.search.blend import SHARE_ENV
        from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
        try:
            path = str(evaluator_path(path))
            load_evaluator(path)
        except EvalFileError as exc:
            _usage_error(str(exc))
        os.environ["GOMOKU_EVAL"] = path
        if share is not None:
            os.environ[SHARE_ENV] = share
        args = []
    if args and (args[0] == "--net" or args[0].startswith("--net=")):
        path = _file_option(args, "--net", "FILE.onnx")
        why = net_problem(path)
        if why:
            _usage_error(why)
        os.environ["GOMOKU_NET"] = path
        args = []
    if args:
        if args[0] in ("-h", "--help"):
            try:
                print(USAGE, flush=True)
            except BrokenPipeError:      # e.g. piped into head
                pass
            raise SystemExit(0)
        if args[0] == "--warmup":
            from gomoku.engine.warmup import warm_all
            warm_all()
            raise SystemExit(0)
        if args[0] == "--version":
            from gomoku.protocol.session import _version
            print(f"pbrain-gomoku {_version()}")
            raise SystemExit(0)
        _usage_error(f"unknown argument {args[0]!r} (managers start it without arguments; see --help)")
    run(log_path=os.environ.get("GOMOKU_BRAIN_LOG") or None)


if __name__ == "__main__":
    main()
