"""An external Piskvork brain driven over a pipe, as a Player (the manager side of the protocol).

python-chess style: a blocking facade that speaks our Limit / PlayResult vocabulary and is a
context manager::

    with BrainClient("./pbrain-rapfi", tolerance=1.0) as brain:
        brain.new_game(15, 15, Rule.FREESTYLE)
        result = brain.play(board, Limit(turn_time=1.0))

What it does, following what the real managers (Piskvork, c-gomoku-cli) do with the protocol
(https://plastovicka.github.io/protocl2en.htm; the brain side is in docs/protocol.md):

* spawn the process in its own session (so the whole tree can be killed), with the
  executable's folder as working directory like c-gomoku-cli; stderr goes to /dev/null;
* ABOUT first (the first line read is the answer; free-text answers are kept as `name`),
  START/RECTSTART per game with a start-up deadline, then `INFO rule` and the time INFOs;
* the first request of a game is BEGIN (empty board) or BOARD, then TURN while the brain's
  view of the game matches ours, BOARD otherwise;
* a move is a line `X,Y`; MESSAGE/DEBUG/ERROR/UNKNOWN and any other line are kept in
  `info['messages']` and skipped (c-gomoku-cli behaviour); off-board or occupied answers are
  returned as they are: judging them is the referee's job;
* hard deadline per move = min(turn time, time left) + tolerance, then the process tree is
  killed and PlayerTimeout raised; end of output -> PlayerCrashed;
* close(): END, 0.5 s grace (as GomocupJudge), then SIGKILL to the process group.
"""
from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from gomoku.engine.base.limits import UNLIMITED_MS, Limit, PlayResult
from gomoku.engine.match.players import PlayerCrashed, PlayerStartError, PlayerTimeout, split_command
from gomoku.engine.game.rules import Rule, rule_to_piskvork

_MOVE_RE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
_ABOUT_RE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
_EOF = None


def _ms(seconds: Optional[float]) -> Optional[int]:
    return None if seconds is None else max(0, int(round(seconds * 1000)))


class BrainClient:
    """A Piskvork brain process as a Player. Raises PlayerStartError from the constructor
    when the process cannot be started."""

    def __init__(self, command: Union[str, Sequence[str]], name: Optional[str] = None,
                 tolerance: float = 1.0, start_timeout: float = 10.0, cwd: Optional[str] = None,
                 stderr_path: Optional[str] = None, info: Sequence[tuple[str, str]] = ()) -> None:
        argv = split_command(command) if isinstance(command, str) else list(command)
        if not argv:
            raise PlayerStartError("empty brain command")
        exe = argv[0]
        if os.sep in exe:
            exe_path = Path(exe).expanduser().resolve()
            argv[0] = str(exe_path)
            if cwd is None:
                cwd = str(exe_path.parent)
        self.argv = argv
        self.name = name or Path(argv[0]).name
        self.tolerance = float(tolerance)
        self.start_timeout = float(start_timeout)
        self.about: dict[str, str] = {}
        self.extra_info = [(str(k), str(v)) for k, v in info]   # sent after START, e.g. thread_num
        self.log: list[str] = []          # last lines exchanged, for error messages
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._known: Optional[list[tuple[int, int]]] = None   # the brain's view of the game
        self._sent_info: dict[str, int] = {}
        self._closed = False
        self._stderr = open(stderr_path, "ab") if stderr_path else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                cwd=cwd, bufsize=0, **_own_group())
        except OSError as exc:
            raise PlayerStartError(f"cannot start brain {self.name}: {exc.strerror or exc}") from None
        self._reader = threading.Thread(target=self._read_loop, name=f"brain-{self.name}", daemon=True)
        self._reader.start()
        self._ask_about()

    # -- context manager ----------------------------------------------------------------
    @classmethod
    def popen(cls, command: Union[str, Sequence[str]], **kwargs: Any) -> "BrainClient":
        return cls(command, **kwargs)

    def __enter__(self) -> "BrainClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- raw I/O ------------------------------------------------------------------------
    def _read_loop(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            for raw in iter(out.readline, b""):
                line = raw.decode("ascii", "replace").strip()
                if line:
                    self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(_EOF)

    @property
    def alive(self) -> bool:
        return not self._closed and self.proc.poll() is None

    def send(self, line: str) -> None:
        """Write one command line; a closed pipe means the brain is gone."""
        self._note("> " + line)
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((line + "\n").encode("ascii", "replace"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise PlayerCrashed(self._crash_text("stdin closed")) from None

    def _note(self, text: str) -> None:
        self.log.append(text)
        if len(self.log) > 40:
            del self.log[:-40]

    def _crash_text(self, what: str) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        tail = f" (exit code {code})" if code is not None else ""
        return f"brain {self.name} crashed: {what}{tail}"

    def read_line(self, deadline: Optional[float]) -> str:
        """Next non-empty output line before `deadline` (time.monotonic), else PlayerTimeout;
        PlayerCrashed at end of output."""
        try:
            if deadline is None:
                line = self._lines.get()
            else:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise PlayerTimeout(f"brain {self.name} did not answer in time") from None
        if line is _EOF:
            self._lines.put(_EOF)   # keep later reads failing the same way
            raise PlayerCrashed(self._crash_text("end of output"))
        self._note("< " + line)
        return line

    # -- protocol steps -------------------------------------------------------------------
    def _ask_about(self) -> None:
        """ABOUT right after spawning, like c-gomoku-cli; a brain that exits here never
        started. A brain that stays silent is tolerated (the answer is optional in practice)."""
        try:
            self.send("ABOUT")
            line = self.read_line(time.monotonic() + self.start_timeout)
        except PlayerCrashed as exc:
            raise PlayerStartError(str(exc).replace("crashed", "did not start", 1)) from None
        except PlayerTimeout:
            return
        pairs = dict(_ABOUT_RE.findall(line))
        self.about = pairs if pairs else {"name": line}

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        """START (or RECTSTART) and the per-game INFO lines; PlayerStartError if the brain
        refuses the board or does not answer OK within the start-up deadline."""
        if self._closed:
            raise PlayerCrashed(f"brain {self.name} is closed")
        cmd = f"START {width}" if width == height else f"RECTSTART {width},{height}"
        self.send(cmd)
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                line = self.read_line(deadline)
            except PlayerTimeout:
                raise PlayerStartError(f"brain {self.name} did not answer {cmd} within {self.start_timeout:g} s") from None
            word = line.split(None, 1)[0].upper()
            if line.upper() == "OK":
                break
            if word == "ERROR":
                raise PlayerStartError(f"brain {self.name} refused {cmd}: {line[5:].strip()}")
            # MESSAGE/DEBUG lines or a late ABOUT answer: keep waiting for OK
        self._known = []
        self._sent_info = {}
        self.send(f"INFO rule {rule_to_piskvork(rule)}")
        self.send("INFO game_type 1")
        for key, value in self.extra_info:
            self.send(f"INFO {key} {value}")

    def _info(self, key: str, value: int, always: bool = False) -> None:
        if always or self._sent_info.get(key) != value:
            self.send(f"INFO {key} {value}")
            self._sent_info[key] = value

    def _send_limits(self, limit: Limit) -> None:
        turn = _ms(limit.turn_time)
        match = _ms(limit.match_time) or 0
        if turn is None:
            # no per-move cap: the protocol has no 'unlimited' for timeout_turn, so announce
            # the whole game (or a huge number when only nodes/depth bound the search)
            turn = match if match else UNLIMITED_MS
        self._info("timeout_turn", turn)
        self._info("timeout_match", match)
        if limit.max_memory:
            self._info("max_memory", int(limit.max_memory))
        if limit.nodes:
            self._info("max_node", int(limit.nodes))
        if limit.depth:
            self._info("max_depth", int(limit.depth))
        left = _ms(limit.time_left) if limit.time_left is not None else None
        self._info("time_left", UNLIMITED_MS if left is None else left, always=True)

    def play(self, board: Any, limit: Limit) -> PlayResult:
        """Ask for a move in `board`'s position; the clock runs from the move command."""
        if self._known is None:
            raise PlayerCrashed(f"brain {self.name}: play() before new_game()")
        self._send_limits(limit)
        moves = list(board.moves)
        if not moves:
            self.send("BEGIN")
        elif self._known == moves[:-1]:
            x, y = moves[-1]
            self.send(f"TURN {x},{y}")
        else:
            me = board.to_move
            self.send("BOARD")
            for i, (x, y) in enumerate(moves):
                colour = 1 if i % 2 == 0 else 2     # 1 = black
                self.send(f"{x},{y},{1 if colour == me else 2}")
            self.send("DONE")
        t0 = time.monotonic()
        budgets = [b for b in (limit.turn_time, limit.time_left) if b is not None]
        deadline = t0 + max(0.0, min(budgets)) + self.tolerance if budgets else None
        messages: list[str] = []
        while True:
            try:
                line = self.read_line(deadline)
            except PlayerTimeout:
                self.kill()
                raise PlayerTimeout(f"brain {self.name} did not move within "
                                    f"{min(budgets):.3g} s + {self.tolerance:g} s tolerance") from None
            m = _MOVE_RE.match(line)
            if m:
                move = (int(m.group(1)), int(m.group(2)))
                elapsed = time.monotonic() - t0
                self._known = moves + [move]
                info: dict[str, Any] = {"time": elapsed}
                if messages:
                    info["messages"] = messages
                return PlayResult(move, info)
            messages.append(line)

    # -- shutdown -----------------------------------------------------------------------
    def kill(self) -> None:
        """Kill the brain's whole process tree (it runs in its own session / process group)."""
        if self.proc.poll() is None:
            _kill_tree(self.proc)
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        # children that outlived the leader: the group may still exist
        _kill_tree(self.proc, group_only=True)

    def close(self) -> None:
        """END, a 0.5 s grace period, then kill the process tree. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self.proc.poll() is None:
            try:
                self.send("END")
            except PlayerCrashed:
                pass
            try:
                self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self._stderr not in (None, subprocess.DEVNULL):
            self._stderr.close()  # type: ignore[union-attr]
        self._reader.join(timeout=1)


def _own_group() -> dict[str, Any]:
    """Popen arguments that start the brain as the head of its own process group, so killing
    it takes its children too: a new session on POSIX, a new process group on Windows."""
    if os.name == "nt":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)}
    return {"start_new_session": True}


def _kill_tree(proc: "subprocess.Popen[bytes]", group_only: bool = False) -> None:
    """SIGKILL the process group on POSIX; `taskkill /T /F` on Windows (no process groups to
    signal there). `group_only`: only what a group kill reaches (the leader may be gone)."""
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        try:
            killpg(proc.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    elif os.name == "nt":
        try:
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5)
        except (OSError, subprocess.SubprocessError):
            pass
    if not group_only:
        try:
            proc.kill()
        except OSError:
            pass
