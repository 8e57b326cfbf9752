"""`gomoku match --continue FILE.json`: a stopped test goes on where it stopped.

A long SPRT outlasts a session or a machine. Played again from the start, it would replay the
openings it has already played (at fixed nodes, the same games), and a fresh run's SPRT would
forget the pairs already counted. Continued, the new run starts at the first opening the
earlier one did not reach, and its SPRT decides on the earlier pairs and its own together;
its --json records both, so a third run can continue the second.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class ContinueError(ValueError):
    """The file cannot be continued (one line: what differs or what is wrong)."""


def read_earlier(path: Path, wanted: dict[str, Any]) -> tuple[tuple[int, int, int, int, int], int]:
    """The earlier runs' pentanomial counts and the opening (1-based, in the set) this run
    starts at. `wanted`: this run's settings as the --json records them; every one the file
    also records must be equal (a file written before a setting was recorded is not checked
    on it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        settings = data["settings"]
        pairs = data.get("pairs_all") or data["pairs"]
        raw = [int(c) for c in pairs["pentanomial"]]
        results = data["results"]
        start = int(settings.get("openings_from", 1))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ContinueError(f"not the --json of a gomoku match ({exc.__class__.__name__})") from None
    if len(raw) != 5:
        raise ContinueError("not the --json of a gomoku match (no pentanomial counts)")
    for key, value in wanted.items():
        if key in settings and settings[key] != value:
            raise ContinueError(f"it was played with {key} {settings[key]!r}, this run has {value!r}")
    if settings.get("random_order"):
        raise ContinueError("it shuffled its openings (--random-order): which ones it played is not a range")
    decision = (data.get("sprt") or {}).get("decision")
    if decision:
        raise ContinueError(f"its SPRT already accepted {decision}: nothing to continue")
    # game i of a run plays the run's opening i // 2 (colours swapped in games 2k, 2k + 1);
    # an opening reached by a game that had not finished when the file was written is played
    # again, which counts nothing twice: that game is not in the file
    reached = max((int(r["index"]) for r in results), default=-1) // 2 + 1
    counts = (raw[0], raw[1], raw[2], raw[3], raw[4])
    return counts, start + reached
