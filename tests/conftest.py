"""Shared test set-up and helpers.

The numba cache is built before any timed subprocess test. `Brain` runs the real
`pbrain-gomoku` executable over pipes: every reply line is time-stamped by a reader thread, so
tests can assert deadlines and silence (no line at all after INFO or END). `FakeClock` is the
injectable clock of the protocol's time-policy tests. `ctrl_c_at` sends a command Ctrl-C at a
line of its output and times the stop. Test modules import these with
`from conftest import ...` (pytest puts tests/ on the path). The protocol tests that need no
process drive the session in this process instead: protocol_script.Script.
"""
from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import pytest

import serial_group

MOVE_RE = re.compile(r"^[0-9]+,[0-9]+$")
#: How long a brain may take to exit after END or end of input. The brain leaves at once (it
#: does not wait for a running search); the bound is for a loaded machine, where starting the
#: exit can wait seconds for a core, and still catches a brain that hangs or waits for its search.
EXIT_S = 5.0
#: What a loaded machine may add to a real-time bound (the `slow` timing tests): a share of a
#: core for a few hundred ms is common beside two busy loops on two cores.
LOAD_SLACK_S = 1.0


class FakeClock:
    """A clock that moves only when told: the thinker, the watchdog and the session read their
    deadlines on it, so a test checks the time policy and not the machine's load."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def brain_exe() -> str:
    exe = Path(sys.executable).parent / "pbrain-gomoku"
    if exe.exists():
        return str(exe)
    found = shutil.which("pbrain-gomoku")
    if not found:
        pytest.skip("pbrain-gomoku is not installed")
    return found


def move_of(text: str, size: Optional[tuple[int, int]] = None) -> tuple[int, int]:
    """The (x, y) of a brain's move line, asserted to be one (and on a board of `size`)."""
    assert MOVE_RE.match(text), f"expected a move, got {text!r}"
    x, y = map(int, text.split(","))
    if size:
        assert 0 <= x < size[0] and 0 <= y < size[1], text
    return x, y


class Brain:
    """A running brain process; `send` writes lines, `line` reads the next reply."""

    def __init__(self, turn_ms: int = 300, env: Optional[dict[str, str]] = None,
                 cwd: Optional[str] = None, args: Optional[list[str]] = None) -> None:
        e = dict(os.environ)
        e["GOMOKU_TURN_MS"] = str(turn_ms)
        e.pop("GOMOKU_BRAIN_LOG", None)
        if env:
            e.update(env)
        self.spawned = time.monotonic()
        self.proc = subprocess.Popen(args or [brain_exe()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=e, cwd=cwd)
        self.lines: "queue.Queue[tuple[float, Optional[str]]]" = queue.Queue()
        self.stderr = b""
        self._t_out = threading.Thread(target=self._read_out, daemon=True)
        self._t_out.start()
        self._t_err = threading.Thread(target=self._read_err, daemon=True)
        self._t_err.start()
        self.sent_at = self.spawned

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put((time.monotonic(), raw.decode("ascii", "replace").rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, *lines: Union[str, bytes], eol: str = "\n") -> None:
        """Write lines (str gets `eol` appended; bytes are written verbatim)."""
        assert self.proc.stdin is not None
        data = b"".join(l if isinstance(l, bytes) else (l + eol).encode() for l in lines)
        self.sent_at = time.monotonic()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def line(self, timeout: float = 10.0) -> str:
        """Next reply line (raises AssertionError on timeout or end of output)."""
        try:
            t, text = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        assert text is not None, "brain closed its output"
        self.last_at = t
        return text

    def answer(self, timeout: float = 10.0) -> str:
        """Next reply line that is not a MESSAGE (managers show those and read on)."""
        while True:
            text = self.line(timeout)
            if not text.startswith("MESSAGE "):
                return text

    def move(self, timeout: float = 10.0, size: Optional[tuple[int, int]] = None) -> tuple[int, int]:
        """Next reply, which must be a move line (MESSAGE lines before it are skipped)."""
        return move_of(self.answer(timeout), size)

    def elapsed(self) -> float:
        """Seconds from the last send to the last line read."""
        return self.last_at - self.sent_at

    def silent(self, seconds: float = 0.3) -> None:
        """Assert that nothing arrives for `seconds`."""
        try:
            t, text = self.lines.get(timeout=seconds)
        except queue.Empty:
            return
        if text is None:             # output closed (process ended) without a line: silent
            self.lines.put((t, None))
            return
        raise AssertionError(f"unexpected output {text!r}")

    def wait_exit(self, timeout: float = EXIT_S) -> tuple[int, float]:
        """Wait for the process to end; returns (exit status, seconds since the last send)."""
        try:
            rc = self.proc.wait(timeout=timeout + 2.0)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("brain did not exit") from None
        return rc, time.monotonic() - self.sent_at

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.sent_at = time.monotonic()
        self.proc.stdin.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def end(self) -> None:
        """Send END and check: exit 0 within EXIT_S, nothing printed after END."""
        self.send("END")
        rc, dt = self.wait_exit()
        self._t_out.join(2)
        leftovers = []
        while not self.lines.empty():
            _, text = self.lines.get()
            if text is not None:
                leftovers.append(text)
        assert rc == 0
        assert dt < EXIT_S, f"exit took {dt:.3f} s"
        assert leftovers == [], f"output after END: {leftovers}"

    def __enter__(self) -> "Brain":
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if s:
                    s.close()
            except OSError:
                pass


#: The requirement: a `gomoku` command stops within this many seconds of Ctrl-C, whatever the load.
CTRL_C_S = 2.0
#: What the test itself may add when it times that stop: the signal is sent and the exit reaped by
#: this process, which beside two busy loops on two cores waits up to a few hundred ms for a core.
CTRL_C_MARGIN_S = 0.5


def popen_with_sigint_ignored(argv: list[str], **popen: Any) -> "subprocess.Popen[str]":
    """Start argv with SIGINT ignored, as a non-interactive shell starts a background job
    (`cmd &`). Set around the fork, not in a preexec_fn, which may deadlock in a process with
    threads (an xdist worker has execnet's); a Ctrl-C to the tests in that instant is dropped."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.Popen(argv, **popen)
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class Interrupted:
    """What `ctrl_c_at` saw: the exit status, the whole output and the seconds from the signal
    to the exit (reaped by waitpid, not read off the pipe, which a brain left behind may hold)."""
    code: int
    out: str
    after: float


def ctrl_c_at(argv: list[str], marker: str, seconds: float = 240.0, **popen: Any) -> Interrupted:
    """Run `argv`, send Ctrl-C (SIGINT to its process group, as a terminal does) as soon as a line
    of its output contains `marker` (a sign of readiness, never a sleep), and time the stop.

    The child starts with SIGINT ignored, as a non-interactive shell starts a background job
    (`cmd &`), and CI or a script may start `gomoku` that way: the command must stop anyway."""
    proc = popen_with_sigint_ignored(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True, **popen)
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    out: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{marker!r} not printed within {seconds:.0f} s:\n{''.join(out)}") from None
            assert line is not None, f"ended before {marker!r}:\n{''.join(out)}"
            out.append(line)
            if marker in line:
                break
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running 60 s after Ctrl-C:\n{''.join(out)}") from None
        after = time.monotonic() - sent
        reader.join(10)
        while not lines.empty():
            rest = lines.get()
            if rest is not None:
                out.append(rest)
        return Interrupted(code, "".join(out), after)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


#: At most this many tests start a real brain or `gomoku` process (marked `process`): each
#: costs an interpreter start and a cache load, and runs in the serial group. 39 do, 40 where
#: PyInstaller is installed (the frozen brain's test), down from about 190 before the session
#: and CLI tests ran in-process. Lower it, never raise it.
MAX_PROCESS_TESTS = 40


#: node ids of the `process` tests among everything collected, before -k or -m deselect any
PROCESS_TESTS: list[str] = []


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A `process` test is a serial one: it times a real process, which a busy neighbour skews.
    Under xdist the serial node ids go to the controller's scheduler (serial_group)."""
    PROCESS_TESTS[:] = [item.nodeid for item in items if item.get_closest_marker("process") is not None]
    for item in items:
        if item.get_closest_marker("process") is not None and not _in_serial_group(item):
            item.add_marker(pytest.mark.xdist_group("serial"))
    early = [item for item in items if item.nodeid == EARLY_START]
    if early:                  # last, so that its child has the whole group's time to compile
        items.remove(early[0])
        items.append(early[0])
    serial_group.write_serial_ids(config, (item.nodeid for item in items if _in_serial_group(item)))


#: The serial group's longest test, a cold compile that times nothing: its child starts when the
#: first serial test does, and it runs while the group does (on two cores the other worker's tests
#: end minutes before the group, leaving a core for it); the test, moved last, collects it.
EARLY_START = "tests/test_hot_paths.py::test_search_compiles_first_on_a_cold_cache"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if not _in_serial_group(item) or item.nodeid == EARLY_START:
        return
    early = next((i for i in item.session.items if i.nodeid == EARLY_START), None)
    if early is not None:
        early.module.start_cold_compile()      # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    early = next((i for i in session.items if i.nodeid == EARLY_START), None)
    if early is not None:
        early.module.stop_cold_compile()      # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Every serial test on one worker, handed out first (serial_group)."""
    return serial_group.make_scheduler(config, log)


def pytest_configure(config: pytest.Config) -> None:
    """Compile the engine once, before any worker starts. With a cold numba cache every xdist
    worker's first search compiled the same functions at the same time (minutes of CPU each);
    here the controller fills the cache in parallel child processes (`ensure_compiled`, what
    `gomoku warmup` runs) and the workers only load it. A warm cache costs a directory listing."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        return
    from gomoku.tools.prepare import ensure_compiled
    ensure_compiled()


def _in_serial_group(item: pytest.Item) -> bool:
    return any((m.args[:1] or (m.kwargs.get("name"),)) == ("serial",) for m in item.iter_markers("xdist_group"))


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def starts_gomoku(argv: Any) -> bool:
    """Whether a command line starts the project: its scripts (`gomoku`, `pbrain-gomoku`, a
    frozen brain) or this Python (which here only ever runs the project's code)."""
    args = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv or [])
    if not args:
        return False
    name = os.path.basename(os.fsdecode(args[0]))
    if name in ("gomoku", "pbrain-gomoku", "pbrain-gomoku.exe"):
        return True
    if os.path.realpath(os.fsdecode(args[0])) != os.path.realpath(sys.executable):
        return False
    # a stand-in for someone else's brain (tests/fixtures/pbrain-*.py) is not the project: the
    # brain client's tests need a process on the other end of the pipe, not our engine
    script = next((os.fsdecode(a) for a in args[1:] if not os.fsdecode(a).startswith("-")), "")
    return os.path.dirname(os.path.realpath(script)) != str(FIXTURES) if script else True


@pytest.fixture(autouse=True)
def _process_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A test that starts a real brain or `gomoku` process must be marked `process`, so that
    such tests stay few (MAX_PROCESS_TESTS) and run serially; the rest drive the same code in
    this process (the session on a scripted clock, the CLI through click's runner)."""
    if request.node.get_closest_marker("process") is not None:
        yield
        return
    started: list[str] = []
    real_init = subprocess.Popen.__init__

    def watched_init(self: subprocess.Popen, args: Any, *a: Any, **kw: Any) -> None:   # type: ignore[type-arg]
        if starts_gomoku(args):
            started.append(" ".join(os.fsdecode(x) for x in ([args] if isinstance(args, (str, bytes)) else args)))
        real_init(self, args, *a, **kw)

    monkeypatch.setattr(subprocess.Popen, "__init__", watched_init)
    try:
        import pexpect
    except ImportError:
        pexpect = None
    if pexpect is not None:
        real_spawn = pexpect.spawn.__init__

        def watched_spawn(self: Any, command: str, *a: Any, **kw: Any) -> None:
            if starts_gomoku([command]):
                started.append(command)
            real_spawn(self, command, *a, **kw)

        monkeypatch.setattr(pexpect.spawn, "__init__", watched_spawn)
    yield
    if started:
        pytest.fail(f"started {started[0]!r} but is not marked `process` "
                    f"(at most {MAX_PROCESS_TESTS} tests may start a real process)", pytrace=False)


@pytest.fixture(autouse=True)
def _serial_group(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Tests marked `xdist_group("serial")` (the ones that time a process's stop in seconds) never
    run two at once: under xdist each takes an exclusive lock on a file in the run's shared temp
    folder first, so only the other workers' unmarked tests run beside it. With the default
    `--dist load` the scheduler already sends them all to one worker (serial_group) and the lock
    is never contended; it keeps them apart under any other `--dist`. The wait is fixture
    set-up, outside the test's timeout and its timings."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None or not _in_serial_group(request.node) or sys.platform == "win32":
        yield
        return
    import fcntl
    lock = tmp_path_factory.getbasetemp().parent / "serial-group.lock"     # shared by the workers
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _numba_warm():
    from gomoku.engine.player.warmup import warm_up
    warm_up()
    yield
