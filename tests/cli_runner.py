"""Run the real `gomoku` command in this process through click's runner.

A test that checks what a command prints, writes or exits with gains nothing from a real
process but an interpreter start and a cache load; only the contracts that need one (Ctrl-C to
a process group, a kill -9 and resume, a real terminal) start `gomoku` itself (marked
`process`). The result reads like `subprocess.run`'s, so such a test asserts the same things."""
from __future__ import annotations

import os
import signal
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

from click.testing import CliRunner

from gomoku.tools.cli import main


@dataclass
class Ran:
    """What the command did: its exit status and what it wrote to stdout and stderr (an
    exception it raised ends it with status 1 and its traceback on stderr, as Python does)."""
    returncode: int
    stdout: str
    stderr: str


def gomoku(args: Sequence[Union[str, os.PathLike]], input: Optional[str] = None,
           env: Optional[Mapping[str, Optional[str]]] = None,
           cwd: Optional[Union[str, os.PathLike]] = None) -> Ran:
    """`gomoku ARGS` with `input` on stdin, `env` set (None unsets) and `cwd` as the working
    directory, each restored after, as are sys.argv (read to record the command line) and the
    signal handlers the command may install."""
    argv = [os.fspath(a) for a in args]
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    sys.argv = [str(Path(sys.executable).with_name("gomoku")), *argv]
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner(env=dict(env) if env else None).invoke(main, argv, input=input,
                                                                   prog_name="gomoku")
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        for s, h in handlers.items():
            signal.signal(s, h)
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
        code = 1
    return Ran(code, result.stdout, stderr)
