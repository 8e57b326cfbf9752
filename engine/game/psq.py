"""Piskvork `.psq` game records: read and write.

Piskvork .psq (what Piskvork's `savePsq`/`openPsq` in PISKVORK.cpp do, and what Gomocup
game archives contain)::

    Piskvorky 20x20, 11:11, 0      width x height, the two players' levels, who started
    10,10,1234                     one line per move: x,y,time_ms -- 1-BASED coordinates
    11,9,890
    pbrain-a.exe                   optional: first player's name (written in tournaments)
    pbrain-b.exe                   optional: second player's name
    -1                             optional: Piskvork's end code

Why 1-based: Piskvork's board squares carry a one-cell border, its internal `p->x`/`p->y`
run from 1, `savePsq` prints them unchanged for .psq (it subtracts 1 only for the old
`.rec` format) and `openPsq` does `i--, j--` before `Square(i, j)` when it reads a .psq.
So the file's `1,1` is our (0, 0). Piskvork stops reading moves at the first line that is
not `int,int[,int]`, then reads two name lines; anything else after the moves is ignored.
We do the same, and keep the trailing name lines and the end code.

A .psq has no field for the rule or the result. `load_psq` takes the rule as an argument
(default freestyle) and infers the winner by replaying the moves under that rule; SGF is
the lossless format (rule in RU[], result in RE[], reason in GC[]).

Coordinates in the `GameRecord` are the engine's (0-based); see `engine.game.gamerecord`.
"""
from __future__ import annotations

import re

from gomoku.engine.game.gamerecord import MAX_SIDE, GameRecord, Move, PathLike, infer_result, read_text, write_text
from gomoku.engine.game.rules import Rule


_PSQ_HEADER = re.compile(r"^\s*Piskvorky\s+(\d+)\s*x\s*(\d+)\s*,\s*(-?\d+)\s*:\s*(-?\d+)\s*,\s*(-?\d+)\s*$",
                         re.IGNORECASE)
_PSQ_MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$")
_INT_LINE = re.compile(r"^\s*-?\d+\s*$")


def psq_string(rec: GameRecord) -> str:
    """The .psq text for rec (see the module docstring for the layout)."""
    rec.validate()
    levels = rec.extra.get("psq_levels", "11:11")
    if not re.fullmatch(r"-?\d+:-?\d+", levels):
        levels = "11:11"
    lines = [f"Piskvorky {rec.width}x{rec.height}, {levels}, 0"]
    times = rec.times or [0] * len(rec.moves)
    for (x, y), t in zip(rec.moves, times):
        lines.append(f"{x + 1},{y + 1},{max(0, int(t))}")
    if rec.black or rec.white:
        # Piskvork reads exactly two name lines after the moves; a name that looked like a
        # move or was empty would shift them, so neutralise those cases.
        for name, fallback in ((rec.black, "homo-1"), (rec.white, "homo-2")):
            name = " ".join(name.split()) or fallback
            if _PSQ_MOVE.match(name) or _INT_LINE.match(name):
                name = "player " + name
            lines.append(name)
    code = rec.extra.get("psq_code", "-1")
    lines.append(code if _INT_LINE.match(code) else "-1")
    return "\n".join(lines) + "\n"


def parse_psq(text: str, rule: Rule = Rule.FREESTYLE, source: str = "psq") -> GameRecord:
    """Parse .psq text; trailing names / end code / blank lines are tolerated and kept."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise ValueError(f"{source}: empty file, expected a 'Piskvorky WxH, a:b, c' header")
    m = _PSQ_HEADER.match(lines[first])
    if not m:
        raise ValueError(f"{source}: line {first + 1}: expected 'Piskvorky WxH, a:b, c', got {lines[first].strip()[:40]!r}")
    width, height = int(m.group(1)), int(m.group(2))
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"{source}: board size {width}x{height} out of range 1..{MAX_SIDE}")
    times: list[int] = []
    rec = GameRecord(width=width, height=height, rule=Rule(rule), times=times)
    rec.extra["psq_levels"] = f"{m.group(3)}:{m.group(4)}"
    starter = int(m.group(5))
    seen: set[Move] = set()
    i = first + 1
    while i < len(lines):
        ln = lines[i]
        if not ln.strip():
            i += 1
            continue
        mm = _PSQ_MOVE.match(ln)
        if not mm or (mm.group(3) is None and _INT_LINE.match(ln)):
            break
        x, y = int(mm.group(1)) - 1, int(mm.group(2)) - 1
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"{source}: line {i + 1}: move {ln.strip()} is off the {width}x{height} board "
                             f"(.psq coordinates are 1-based)")
        if (x, y) in seen:
            raise ValueError(f"{source}: line {i + 1}: move {ln.strip()} is on an occupied cell")
        seen.add((x, y))
        rec.moves.append((x, y))
        times.append(int(mm.group(3) or 0))
        i += 1
    trailer = [ln.strip() for ln in lines[i:] if ln.strip()]
    names: list[str] = []
    while trailer and not _INT_LINE.match(trailer[0]) and len(names) < 2:
        names.append(trailer.pop(0))
    if trailer and _INT_LINE.match(trailer[0]):
        rec.extra["psq_code"] = trailer.pop(0)
    if trailer:
        rec.extra["psq_trailer"] = "\n".join(trailer)
    if len(names) == 2:
        # Names are written as (first player, second player) of the manager; the header's
        # last field says which of the two made the first (black) move.
        if starter == 1:
            names.reverse()
        rec.black, rec.white = (n for n in names)
        for attr in ("black", "white"):
            if getattr(rec, attr).lower().startswith("homo-"):
                setattr(rec, attr, "human")
    elif names:
        rec.extra["psq_names"] = "\n".join(names)
    infer_result(rec)
    return rec


def save_psq(path: PathLike, rec: GameRecord) -> None:
    """Write rec as a Piskvork .psq file (rule and result are not representable there)."""
    write_text(path, psq_string(rec))


def load_psq(path: PathLike, rule: Rule = Rule.FREESTYLE) -> GameRecord:
    """Read a .psq file; `rule` is needed because the format does not store it."""
    return parse_psq(read_text(path), rule=rule, source=str(path))
