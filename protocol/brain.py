"""`pbrain-gomoku`: the Piskvork/Gomocup brain on stdin/stdout.

Start-up order matters: protect the protocol stream first (fd hygiene), start loading the
numba engine in the background, then read commands at once, so ABOUT and START are answered
within milliseconds even while numba loads or compiles. The main thread reads and dispatches;
moves come from the thinking thread, guarded by a watchdog (see protocol.move_request).
Exit status is 0 on END and on end of input, and nothing is printed after either.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Callable, Optional

from gomoku.engine.base import timeman
from gomoku.protocol.commands import LineSplitter, parse_line
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.protocol.options import BrainArgs
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
        from gomoku.engine.base import numba_cache
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


def _usage_error(text: str, prog: str = "pbrain-gomoku") -> None:
    """One line on stderr and exit status 2, for a command line that is malformed (an
    unknown argument, a flag without its value): the protocol has not started, so nothing
    may go to stdout (a manager would read it as the brain's first reply). The line also
    goes to GOMOKU_BRAIN_LOG when that is set, where a manager's user looks first."""
    line = f"{prog}: {text}"
    print(line, file=sys.stderr)
    log = os.environ.get("GOMOKU_BRAIN_LOG")
    if log:
        try:
            with open(log, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError:
            pass
    raise SystemExit(2)


def main(argv: Optional[list[str]] = None, prog: str = "pbrain-gomoku") -> None:
    """Console-script entry point, and `gomoku brain`'s (`prog` names the one in messages).
    Managers start a brain without arguments or with the options of protocol/options.py
    (`--net FILE`, `--eval FILE [--share P]`, `--log FILE`, `--turn-ms N`, in any order): the
    files are checked when the protocol starts, and one that cannot be used refuses every game
    (see `run`). -h/--help and --version answer and exit instead of waiting for protocol
    input, --warmup fills numba's cache and exits (what a frozen brain's compile child runs);
    anything else is a usage error, one line and exit status 2."""
    from gomoku.protocol.options import BrainUsageError, parse_brain_args
    try:
        parsed = parse_brain_args(sys.argv[1:] if argv is None else argv)
    except BrainUsageError as exc:
        _usage_error(str(exc), prog)
        raise AssertionError("unreachable")     # _usage_error exits
    serve(parsed, prog)


def serve(parsed: BrainArgs, prog: str) -> None:
    """Do what a parsed command line asks: answer --help, --version or --warmup and exit, or
    serve the protocol (`gomoku brain` calls this with the line it parsed itself)."""
    from gomoku.protocol.options import apply_defaults, help_text
    if parsed.action == "help":
        try:
            print(help_text(prog), flush=True)
        except BrokenPipeError:      # e.g. piped into head
            pass
        raise SystemExit(0)
    if parsed.action == "warmup":
        from gomoku.engine.player.warmup import warm_all
        warm_all()
        raise SystemExit(0)
    if parsed.action == "version":
        from gomoku.protocol.session import _version
        print(f"{prog} {_version()}")
        raise SystemExit(0)
    apply_defaults(parsed)
    net, evaluator = parsed.net, parsed.evaluator
    check = (lambda: named_files_problem(net, evaluator)) if net is not None or evaluator is not None else None
    run(log_path=parsed.log_path(), check=check)


if __name__ == "__main__":
    main()
