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
        clock: Callable[[], float] = time.monotonic,
        check: Optional[Callable[[], Optional[str]]] = None) -> int:
    """Serve the protocol until END or end of input; never returns normally (os._exit).
    Input lines are stamped on `clock`, which the session's deadlines are on.

    `check` (the files the command line names, see `named_files_problem`) runs once the
    streams are isolated, so what the libraries it loads print lands in the log, not in the
    manager's pipe. A problem it returns does not end the brain: a manager would only see a
    process that died before ABOUT and START, and its user no reason. The brain serves the
    protocol and refuses every game with `ERROR <problem>` (see Session's `refusal`), and
    the log says why from its first lines."""
    # A thread waiting for the GIL (the watchdog, the reader) gets it within ~1 ms instead of 5.
    sys.setswitchinterval(0.001)
    proto_fd = isolate_stdio(log_path)
    out = ProtocolOutput(proto_fd, log=sys.stderr if log_path else None)
    problem = _checked(check)
    loader = EngineLoader(warmup=warmup)
    if problem is None:
        loader.start()
    session = Session(out, loader, startup_s=timeman.startup_cost_s(), clock=clock, refusal=problem)
    print(f"brain started, pid {os.getpid()}, start-up charge {session.startup_s:.3f} s")
    if problem is not None:
        print(f"every game refused: {problem}")
    splitter = LineSplitter()
    while True:
        try:
            data = os.read(0, READ_CHUNK)
        except OSError:
            data = b""
        if not serve_chunk(session, out, splitter, data, clock(), log=bool(log_path)):
            _quit(out)


def serve_chunk(session: Session, out: ProtocolOutput, splitter: LineSplitter, data: bytes,
                t_read: float, log: bool = False) -> bool:
    """Hand the lines in `data` (one read of stdin, b"" at end of input) to the session, all
    stamped `t_read`; False once the brain must quit (END, or end of input), with nothing
    after END handed on. `run`'s loop body, apart so that tests drive the session exactly as
    the process does, on scripted input and a scripted clock, without a process."""
    lines = splitter.feed(data) if data else splitter.flush()
    for line in lines:
        if log:
            print(f"> {line[:200]}")
        cmd = parse_line(line)
        if cmd is not None and cmd.name == "END":
            return False
        try:
            session.handle_line(line, t_read)
        except Exception as exc:  # noqa: BLE001 - one ERROR line, keep serving
            traceback.print_exc()
            out.send(f"ERROR internal error: {type(exc).__name__}")
    return bool(data)


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


def _checked(check: Optional[Callable[[], Optional[str]]]) -> Optional[str]:
    """What `check` finds wrong, in one line; a check that crashes is a problem too (its
    traceback goes to the log), never a dead brain."""
    if check is None:
        return None
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - the brain must still answer
        traceback.print_exc()
        return f"start-up check failed: {type(exc).__name__}: {exc}".splitlines()[0]


def named_files_problem(net: Optional[str] = None, evaluator: Optional[str] = None) -> Optional[str]:
    """Why the net (`--net`) or the learned evaluator (`--eval`) the command line names cannot
    play, in one line, or None once both are handed to the loader (GOMOKU_NET, GOMOKU_EVAL).

    Checked before the first game, not left to the background loader, which falls back to the
    classical engine: a person who names a file wants to hear that it is wrong, not to find
    out from a match that the brain quietly played without it."""
    if evaluator is not None:
        from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
        try:
            evaluator = str(evaluator_path(evaluator))
            load_evaluator(evaluator)
        except EvalFileError as exc:
            return str(exc)
        os.environ["GOMOKU_EVAL"] = evaluator
    if net is not None:
        why = net_problem(net)
        if why:
            return why
        os.environ["GOMOKU_NET"] = net
    return None


def net_problem(path: str) -> Optional[str]:
    """Why the net file `path` cannot be the brain's net, in one line, or None when it loads.

    What `pbrain-gomoku --net` and `gomoku brain --net` check before the first game (see
    `named_files_problem`)."""
    from gomoku.engine.net.critic_file import CriticNet, is_critic
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    try:
        if is_critic(path):
            CriticNet.load(path)        # an ADP critic: played one ply deep
        else:
            NetEvaluator.load(path)
    except NetFormatError as exc:
        return str(exc)
    return None


USAGE = """\
usage: pbrain-gomoku [-h | --help | --version | --warmup | --net FILE.onnx | --eval FILE.eval.npz [--share P]]

A Piskvork / Gomocup brain: a manager (Piskvork, c-gomoku-cli, GomocupJudge, Yixin-Board)
starts it and speaks the protocol on stdin/stdout (START 15, BEGIN, TURN x,y, ...; END).
--net FILE.onnx plays with that policy-value net + MCTS (an ADP critic: one ply deep) on the
board sizes and rules it was trained for and with the classical engine on the others, saying so in one MESSAGE line (INFO
thread_num sets the net's threads). --eval FILE.eval.npz has the alpha-beta score its positions with that learned
evaluator under the rule it was trained for (the tables under the others); --share P gives it
P % of each leaf's value and the tables the rest (default: what the file says, else 100).
Environment: GOMOKU_NET=FILE is the same as --net, GOMOKU_EVAL=FILE as --eval, GOMOKU_EVAL_SHARE=P
as --share, GOMOKU_BRAIN_LOG=FILE keeps a log
of the session, GOMOKU_TURN_MS=N sets the time per move when the manager sends none (default
5000). A --net or --eval file that cannot be used does not stop the brain: it answers ABOUT
and every START with `ERROR <why>` (e.g. `ERROR ONNX file not found: x.onnx`) and plays no game;
a malformed command line is refused with one line on stderr and exit status 2. Same as
`gomoku brain`.
--warmup compiles (or loads) the whole engine into numba's cache and exits."""


def _usage_error(text: str) -> None:
    """One line on stderr and exit status 2, for a command line that is malformed (an
    unknown argument, a flag without its value): the protocol has not started, so nothing
    may go to stdout (a manager would read it as the brain's first reply). The line also
    goes to GOMOKU_BRAIN_LOG when that is set, where a manager's user looks first."""
    line = f"pbrain-gomoku: {text}"
    print(line, file=sys.stderr)
    log = os.environ.get("GOMOKU_BRAIN_LOG")
    if log:
        try:
            with open(log, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError:
            pass
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
    Managers start a brain without arguments, or with `--net FILE` or `--eval FILE` (checked
    when the protocol starts, then served like GOMOKU_NET / GOMOKU_EVAL; a file that cannot be
    used refuses every game, see `run`); -h/--help and --version answer and exit instead of
    waiting for protocol input, --warmup fills numba's cache and exits (what a frozen brain's
    compile child runs), anything else is a usage error."""
    args = sys.argv[1:] if argv is None else argv
    net = evaluator = None
    if args and (args[0] == "--eval" or args[0].startswith("--eval=")):
        args, share = _share_option(args)
        evaluator = _file_option(args, "--eval", "FILE.eval.npz")
        if share is not None:
            from gomoku.engine.search.blend import SHARE_ENV
            os.environ[SHARE_ENV] = share
        args = []
    if args and (args[0] == "--net" or args[0].startswith("--net=")):
        net = _file_option(args, "--net", "FILE.onnx")
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
    check = (lambda: named_files_problem(net, evaluator)) if net is not None or evaluator is not None else None
    run(log_path=os.environ.get("GOMOKU_BRAIN_LOG") or None, check=check)


if __name__ == "__main__":
    main()
