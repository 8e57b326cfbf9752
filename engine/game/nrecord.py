"""The JSON record of an n-player game (the three-player Gobang paper's three-player Gobang, or two to four seats).

SGF and Piskvork's .psq know two colours, so `gomoku play --players 3` saves this instead::

    {
      "format": "gomoku-nplayer", "version": 1,
      "players": 3, "width": 11, "height": 11, "win_length": 5, "rule": "freestyle",
      "seats": [{"seat": 1, "name": "human", "player": "human", "symbol": "X"},
                {"seat": 2, "name": "pure-mcts-2000", "player": "pure-mcts:2000", "symbol": "O"}, ...],
      "moves": [[5, 5], [6, 5], ...],        # 0-based x, y; move i is seat i % players + 1's
      "times_ms": [4012, 1830, ...],          # per move (0 where unknown)
      "result": {"winner_seat": 2, "reason": "five", "text": "..."} | null (unfinished),
      "date": "2026-11-28"
    }

Seats are 1-based here (seat 1 moves first), as people count them; `winner_seat` is null on a
draw (reason "full"). Written atomically: a crash never leaves half a record behind.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from gomoku.engine.base import fileio

FORMAT, VERSION = "gomoku-nplayer", 1


@dataclass
class Seat:
    name: str
    player: str          # "human" or the player spec that sat there
    symbol: str = ""


@dataclass
class NGameRecord:
    """One n-player game as saved; `winner_seat` and `reason` stay None while it is unfinished."""
    width: int
    height: int
    players: int
    win_length: int
    rule: str
    seats: list[Seat]
    moves: list[tuple[int, int]] = field(default_factory=list)
    times_ms: list[int] = field(default_factory=list)
    finished: bool = False
    winner_seat: Optional[int] = None    # 1-based; None on a draw
    reason: Optional[str] = None
    text: str = ""
    date: str = ""

    def to_json(self) -> dict[str, Any]:
        result = None
        if self.finished:
            result = {"winner_seat": self.winner_seat, "reason": self.reason, "text": self.text}
        return {"format": FORMAT, "version": VERSION, "players": self.players, "width": self.width,
                "height": self.height, "win_length": self.win_length, "rule": self.rule,
                "seats": [{"seat": i + 1, "name": s.name, "player": s.player, "symbol": s.symbol}
                          for i, s in enumerate(self.seats)],
                "moves": [[int(x), int(y)] for x, y in self.moves],
                "times_ms": [int(t) for t in self.times_ms], "result": result, "date": self.date}

    @classmethod
    def from_json(cls, data: Any, source: str = "record") -> "NGameRecord":
        """Raises ValueError with one line for anything but this module's format."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source}: not a {FORMAT} record")
        if data.get("version") != VERSION:
            raise ValueError(f"{source}: {FORMAT} version {data.get('version')!r}, expected {VERSION}")
        try:
            seats = [Seat(str(s["name"]), str(s["player"]), str(s.get("symbol", ""))) for s in data["seats"]]
            res = data.get("result")
            return cls(int(data["width"]), int(data["height"]), int(data["players"]), int(data["win_length"]),
                       str(data["rule"]), seats, [(int(m[0]), int(m[1])) for m in data["moves"]],
                       [int(t) for t in data.get("times_ms", [])], res is not None,
                       None if not res or res.get("winner_seat") is None else int(res["winner_seat"]),
                       None if not res else res.get("reason"), "" if not res else str(res.get("text", "")),
                       str(data.get("date", "")))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"{source}: malformed {FORMAT} record ({type(exc).__name__}: {exc})") from None


def write_atomic(path: str | os.PathLike, text: str) -> None:
    """engine.base.fileio.write_atomic (temp file, fsync, rename, parent folders made), with a
    failure turned into ValueError with one line, as the n-player commands report it."""
    try:
        fileio.write_atomic(Path(path).expanduser(), text)
    except OSError as exc:
        raise ValueError(f"{path}: cannot write ({exc.strerror or exc})") from None


def save(path: str | os.PathLike, record: NGameRecord) -> None:
    write_atomic(path, json.dumps(record.to_json(), indent=1) + "\n")


def load(path: str | os.PathLike) -> NGameRecord:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    return NGameRecord.from_json(data, str(path))
