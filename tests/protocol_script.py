"""The brain's protocol driven in this process: scripted input, a scripted clock, recorded output.

`Script` is a scripted transport around the REAL `Session`, `ProtocolOutput`, `LineSplitter`
and the process's own read-loop step (`brain.serve_chunk`): a test feeds input bytes or lines,
each read at the time its `FakeClock` says, and reads back the exact lines the brain wrote, each
with the clock time at which it was sent. Moves still come from the session's thinking thread
and watchdog; those only ever act on the fake clock, so a deadline is checked by moving the
clock past it (`advance`), never by a sleep or a slack for a loaded machine.

Two engines: `real_loader()` is the shipped `EngineLoader` (its search is compiled already),
for tests about play, bounded by `INFO max_depth` rather than time; `ScriptedLoader` is the
same loader class with a scripted `think` that answers as told and records the Limit (the
deadlines) each search was given, for tests about protocol text and deadlines. Given a parsed
command line instead (`Script(options=parse_brain_args([...]))`), the session and its loader
are the ones the process makes from it (`brain.start_session`), environment defaults included.

Only what truly needs a process (start-up time, stdout silence of a real process, END during a
search, Ctrl-C or stdin closing) starts a real brain, with conftest's `Brain`.
"""
from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Optional, Union

from conftest import MOVE_RE, FakeClock, move_of
from gomoku.protocol.brain import serve_chunk, start_session
from gomoku.protocol.commands import LineSplitter
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.protocol.options import BrainArgs
from gomoku.protocol.output import ProtocolOutput
from gomoku.protocol.session import Session

#: Real seconds a thread may take to do what it was woken for (a search bounded by depth, a
#: watchdog woken by `advance`): far above any scheduling delay, far below a hang.
WAKE_S = 30.0


class _Stamps:
    """ProtocolOutput's log: it writes `< line` right after each line sent, under the output
    lock; kept here is the clock time of each, in the order the lines went out."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.times: list[float] = []
        self._part = ""

    def write(self, text: str) -> int:
        self._part += text
        while "\n" in self._part:
            done, self._part = self._part.split("\n", 1)
            if done.startswith("< "):
                self.times.append(self.clock())
        return len(text)

    def flush(self) -> None:
        pass


class Script:
    """One brain session in this process: `send` lines, `line`/`move` read the replies."""

    def __init__(self, loader: Optional[EngineLoader] = None, clock: Optional[FakeClock] = None,
                 turn_ms: int = 300, startup_s: float = 0.0, refusal: Optional[str] = None,
                 options: Optional[BrainArgs] = None) -> None:
        """A session on `loader` (default: the shared `real_loader()`) with `refusal` and a
        move time of `turn_ms` (what --turn-ms sets in a process); or, given the parsed
        command line `options`, the session the process sets up from them (brain.start_session:
        the named files checked, its own loader, the move time they say), its loader's
        loading awaited unless the session refuses every game."""
        self.clock = clock or FakeClock()
        self._stamps = _Stamps(self.clock)
        self._r, w = os.pipe()
        self.out = ProtocolOutput(w, log=self._stamps)   # type: ignore[arg-type]
        if options is not None:
            assert loader is None and refusal is None, "the options say what the loader and refusal are"
            self.session = start_session(options, self.out, clock=self.clock, warmup=False, startup_s=startup_s)
            self.loader = self.session.loader
            if self.session.refusal is None:
                assert self.loader.finished.wait(600) and self.loader.ready.is_set(), self.loader.failed
        else:
            self.loader = loader if loader is not None else real_loader()
            self.session = Session(self.out, self.loader, startup_s=startup_s, clock=self.clock,
                                   refusal=refusal, turn_ms=turn_ms)
        self.splitter = LineSplitter()
        self.ended = False
        self.sent_at = self.clock()
        self.last_at = self.clock()
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._count = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buf = b""
        while chunk := os.read(self._r, 65536):
            buf += chunk
            *done, buf = buf.split(b"\n")
            for raw in done:
                self._lines.put(raw.decode("ascii"))      # ProtocolOutput writes ASCII only
        self._lines.put(None)

    # -- input -----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """One read of stdin (b"": end of input), at the clock's time, as `brain.run` does it."""
        assert not self.ended, "input after END"
        self.sent_at = self.clock()
        if not serve_chunk(self.session, self.out, self.splitter, data, self.sent_at):
            self.out.close()             # what brain._quit does before os._exit
            self.ended = True

    def send(self, *lines: Union[str, bytes], eol: str = "\n") -> None:
        """Lines in one read (str gets `eol` appended; bytes go as they are); at least one
        (an empty read is the end of input: `feed(b"")`)."""
        assert lines, "send() needs a line"
        self.feed(b"".join(x if isinstance(x, bytes) else (x + eol).encode() for x in lines))

    def advance(self, seconds: float) -> float:
        """Move the clock on and wake the watchdog of a move being thought about to look at it."""
        now = self.clock.advance(seconds)
        req = self.session.request
        if req is not None:
            req.recheck()
        return now

    # -- output ----------------------------------------------------------------------------
    def line(self, timeout: float = WAKE_S) -> str:
        """The next line the brain wrote; `last_at` is the clock time it was sent at."""
        try:
            text = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        assert text is not None, "output closed"
        while len(self._stamps.times) <= self._count:     # stamped just after the write
            threading.Event().wait(0.001)
        self.last_at = self._stamps.times[self._count]
        self._count += 1
        return text

    def answer(self, timeout: float = WAKE_S) -> str:
        """The next line that is not a MESSAGE."""
        while (text := self.line(timeout)).startswith("MESSAGE "):
            pass
        return text

    def move(self, timeout: float = WAKE_S, size: Optional[tuple[int, int]] = None) -> tuple[int, int]:
        return move_of(self.answer(timeout), size)

    def idle(self) -> None:
        """Wait until the move owed (if any) is out and its threads are done with it."""
        req = self.session.request
        if req is not None:
            assert req.done.wait(WAKE_S), "the owed move never went out"

    def silent(self) -> None:
        """Nothing more was written: every reply so far is read, and the owed move is out."""
        self.idle()
        self._settle()
        assert self._lines.empty(), f"unexpected output {self._lines.get()!r}"

    def _settle(self) -> None:
        # a line written is in the pipe before `send` or `done` returns; the reader needs a moment
        # to take it out: wait until it has read up to what the stamps say went out
        deadline = WAKE_S
        step = 0.001
        while self._lines.qsize() + self._count < len(self._stamps.times) and deadline > 0:
            threading.Event().wait(step)
            deadline -= step

    def rest(self) -> list[str]:
        """Every line written and not yet read (after the owed move is out)."""
        self.idle()
        self._settle()
        out = []
        while not self._lines.empty():
            out.append(self.line())
        return out

    def end(self) -> None:
        """END: the session takes no more input and the output is closed for good."""
        self.idle()
        self.send("END")
        assert self.ended
        assert self.rest() == []
        assert self.out.closed and not self.out.send("late")

    def close(self) -> None:
        self.out.close()
        os.close(self.out._fd)
        self._reader.join(WAKE_S)
        os.close(self._r)

    def __enter__(self) -> "Script":
        return self

    def __exit__(self, *exc: object) -> None:
        req = self.session.request
        if req is not None and not req.done.is_set():
            req.request_stop()
            self.advance(1.0)
            req.done.wait(WAKE_S)
        self.close()


def started(size: int = 15, rule: Optional[int] = None, depth: Optional[int] = 4, **kw: Any) -> Script:
    """A session after `[INFO rule R]`, `INFO max_depth D` (a search bounded by depth, not by
    the machine's speed; None for none) and `START size` was answered OK."""
    s = Script(**kw)
    if rule is not None:
        s.send(f"INFO rule {rule}")
    if depth is not None:
        s.send(f"INFO max_depth {depth}")
    s.send(f"START {size}")
    assert s.line() == "OK"
    return s


_REAL: dict[tuple[Optional[str], Optional[str]], EngineLoader] = {}


def real_loader(net: Optional[str] = None, evaluator: Optional[str] = None, fresh: bool = False) -> EngineLoader:
    """The shipped engine loader, loaded in this process (no warm-up: the suite warmed numba's
    cache already). One is kept per net/evaluator and shared, like the process's one loader
    is shared by its games; `fresh` gives a new one (its search tables start empty)."""
    key = (net, evaluator)
    loader = None if fresh else _REAL.get(key)
    if loader is None:
        loader = EngineLoader(warmup=False, net=net, evaluator=evaluator).start()
        assert loader.finished.wait(600) and loader.ready.is_set(), loader.failed
        if not fresh:
            _REAL[key] = loader
    return loader


@dataclass
class Call:
    """One search the session started: the board, the Limit (its deadlines) and when."""
    board: Any
    limit: Any
    at: float
    stop: threading.Event


class ScriptedLoader(EngineLoader):
    """The real EngineLoader class (its locking, notices, describe), loaded with the real Board
    and Limit but a scripted `think`: each search takes the next of `replies` (a move, None for
    no move, or a function of the Call), or the first empty cell near the centre when the
    script runs out. `calls` records every search with the Limit the session handed it."""

    def __init__(self, replies: Optional[list] = None, clock: Callable[[], float] = lambda: 0.0) -> None:
        super().__init__(warmup=False)
        from gomoku.engine.game import board as board_mod
        from gomoku.engine.base.limits import Limit
        self.Board, self.IllegalMove, self.Limit = board_mod.Board, board_mod.IllegalMove, Limit
        self.think = self._think
        self.replies: list = list(replies or [])
        self.clock = clock
        self.calls: list[Call] = []
        self._called = threading.Condition()
        for event in (self.board_ready, self.ready, self.warmed, self.finished):
            event.set()

    def _think(self, board: Any, limit: Any, stop: threading.Event) -> SimpleNamespace:
        call = Call(board, limit, self.clock(), stop)
        with self._called:
            self.calls.append(call)
            self._called.notify_all()
        reply = self.replies.pop(0) if self.replies else _near_centre(board)
        move = reply(call) if callable(reply) else reply
        return SimpleNamespace(move=move, info={})


    def searching(self, n: int = 1) -> Call:
        """Wait until the session has started its `n`th search (a test moves the clock on only
        once the search holds its deadlines); returns that search."""
        with self._called:
            assert self._called.wait_for(lambda: len(self.calls) >= n, WAKE_S), "no search started"
            return self.calls[n - 1]


def _near_centre(board: Any) -> tuple[int, int]:
    w, h = board.width, board.height
    cells = sorted(((x, y) for x in range(w) for y in range(h)),
                   key=lambda c: (abs(c[0] - w // 2) + abs(c[1] - h // 2), c))
    return next(c for c in cells if board.cell(*c) == 0)


def waits_for_stop(move: tuple[int, int]) -> Callable[[Call], tuple[int, int]]:
    """A search that runs until the session stops it (its soft deadline, YXSTOP), then answers."""
    def search(call: Call) -> tuple[int, int]:
        assert call.stop.wait(WAKE_S), "the search was never stopped"
        return move
    return search


def cells(line: str) -> list[tuple[int, int]]:
    """The X,Y cells of a SWAP2 answer line."""
    out = []
    for tok in line.split(" "):
        assert MOVE_RE.match(tok), line
        x, y = tok.split(",")
        out.append((int(x), int(y)))
    return out


