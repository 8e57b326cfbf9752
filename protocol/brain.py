"""`pbrain-gomoku`: the Piskvork/Gomocup brain on stdin/stdout.

Start-up order matters: protect the protocol stream first (fd hygiene), start loading the
numba engine in the background, then read commands at once, so ABOUT and START are answered
within milliseconds even while numba loads or compiles. The main thread reads and dispatches;
moves come from the thinking thread, guarded by a watchdog (see protocol.move_request).
Exit status is 0 on END and on end of input, and nothing is printed after either.
"""
from __future__ import annotations

import dataclasses
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


def run(options: BrainArgs, warmup: bool = True, clock: Callable[[], float] = time.monotonic) -> int:
    """Serve the protocol with the parsed `options` until END or end of input; never returns
    normally (os._exit). Input lines are stamped on `clock`, which the session's deadlines
    are on. The session is `start_session`'s, set up once the streams are isolated."""
    # A thread waiting for the GIL (the watchdog, the reader) gets it within ~1 ms instead of 5.
    sys.setswitchinterval(0.001)
    proto_fd = isolate_stdio(options.log)
    out = ProtocolOutput(proto_fd, log=sys.stderr if options.log else None)
    session = start_session(options, out, clock=clock, warmup=warmup)
    splitter = LineSplitter()
    while True:
        try:
            data = os.read(0, READ_CHUNK)
        except OSError:
            data = b""
        if not serve_chunk(session, out, splitter, data, clock(), log=bool(options.log)):
            _quit(out)


def start_session(options: BrainArgs, out: ProtocolOutput, clock: Callable[[], float] = time.monotonic,
                  warmup: bool = True, startup_s: Optional[float] = None) -> Session:
    """The session `run` serves, made from the parsed `options` alone: the loader is given
    the net, the evaluator and its share, the session the default move time, and what the
    environment held that is not used is logged. Apart from `run` so that tests set a brain
    up exactly as the process does, in this process (`startup_s`: the first move's start-up
    charge, measured when None).

    The files the command line names are checked first (`checked_files`), once the streams
    are isolated, so what the libraries that load them print lands in the log, not in the
    manager's pipe. A problem does not end the brain: a manager would only see a process
    that died before ABOUT and START, and its user no reason. The brain serves the protocol
    and refuses every game with `ERROR <problem>` (see Session's `refusal`), starts no
    loader, and the log says why from its first lines."""
    options, problem = checked_files(options)
    loader = EngineLoader(warmup=warmup, net=options.net, evaluator=options.evaluator, share=options.share,
                          share_problem=options.env_problems.get("--share"))
    if problem is None:
        loader.start()
    session = Session(out, loader, startup_s=timeman.startup_cost_s() if startup_s is None else startup_s,
                      clock=clock, refusal=problem, turn_ms=options.turn_ms)
    print(f"brain started, pid {os.getpid()}, start-up charge {session.startup_s:.3f} s")
    if problem is not None:
        print(f"every game refused: {problem}")
    for name, why in options.env_problems.items():
        if name == "--turn-ms":
            print(f"{why}; {options.turn_ms} ms a move when the manager sends no time INFO")
        elif name != "--share":      # the loader tells it with the share the evaluator plays
            print(f"{why}; the default plays")
    return session


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


def _checked(check: Callable[[], Optional[str]]) -> Optional[str]:
    """What `check` finds wrong, in one line; a check that crashes is a problem too (its
    traceback goes to the log), never a dead brain."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - the brain must still answer
        traceback.print_exc()
        return f"start-up check failed: {type(exc).__name__}: {exc}".splitlines()[0]


def checked_files(options: BrainArgs) -> tuple[BrainArgs, Optional[str]]:
    """`options` with the evaluator the command line names as the file it means (NAME.onnx:
    NAME.eval.npz beside it), and why a file the command line names cannot play
    (`named_files_problem`, a crash in it included), or None. Files named only by the
    environment are the loader's to try: it logs one that does not load and plays without it
    (a net's MESSAGE says so), as a brain started by a manager always did."""
    net = options.net if "--net" in options.named else None
    evaluator = options.evaluator if "--eval" in options.named else None
    if net is None and evaluator is None:
        return options, None
    problem = _checked(lambda: named_files_problem(net, evaluator))
    if problem is None and evaluator is not None:
        from gomoku.engine.search.learned_file import evaluator_path
        options = dataclasses.replace(options, evaluator=str(evaluator_path(evaluator)))
    return options, problem


def named_files_problem(net: Optional[str] = None, evaluator: Optional[str] = None) -> Optional[str]:
    """Why the net (`--net`) or the learned evaluator (`--eval`) the command line names cannot
    play, in one line, or None when both load.

    Checked before the first game, not left to the background loader, which falls back to the
    classical engine: a person who names a file wants to hear that it is wrong, not to find
    out from a match that the brain quietly played without it."""
    if evaluator is not None:
        from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
        try:
            load_evaluator(evaluator_path(evaluator))
        except EvalFileError as exc:
            return str(exc)
    if net is not None:
        return net_problem(net)
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


def _usage_error(text: str, prog: str = "pbrain-gomoku", log: Optional[str] = None) -> None:
    """One line on stderr and exit status 2, for a command line that is malformed (an
    unknown argument, a flag without its value): the protocol has not started, so nothing
    may go to stdout (a manager would read it as the brain's first reply). The line also
    goes to `log` (GOMOKU_BRAIN_LOG, as BrainUsageError carries it), where a manager's user
    looks first."""
    line = f"{prog}: {text}"
    print(line, file=sys.stderr)
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
        _usage_error(str(exc), prog, exc.log)
        raise AssertionError("unreachable")     # _usage_error exits
    serve(parsed, prog)


def serve(parsed: BrainArgs, prog: str) -> None:
    """Do what a parsed command line asks: answer --help, --version or --warmup and exit, or
    serve the protocol (`gomoku brain` calls this with the line it parsed itself)."""
    from gomoku.protocol.options import help_text
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
    run(parsed)


if __name__ == "__main__":
    main()
