"""metrics.jsonl: one JSON record per finished generation, for people and for `gomoku plot`.

The file is rewritten whole through a temporary file on every record (it stays small: one
line per generation), and a record replaces any earlier one of the same generation, so a
generation evaluated again after a kill -9 appears once.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .atomic import write_bytes


def read_metrics(path: str | os.PathLike) -> list[dict[str, Any]]:
    """All records, oldest first; a line that is not JSON is skipped (never written by us)."""
    p = Path(path)
    if not p.is_file():
        return []
    out = []
    for line in p.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def put_record(path: str | os.PathLike, record: dict[str, Any]) -> None:
    """Add `record` (it must carry `generation`), replacing one of the same generation."""
    gen = record["generation"]
    kept = [r for r in read_metrics(path) if r.get("generation") != gen]
    kept.append(record)
    kept.sort(key=lambda r: r.get("generation", 0))
    write_bytes(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept).encode())


def ladder_opponent_name(ev: dict[str, Any]) -> str:
    """A ladder rung as people read it: 'pure MCTS 1000 playouts' for the default opponent,
    the spec itself for any other (`--ladder-opponent`, e.g. 'pure-mcts:tactics=0,playouts=1000')."""
    n = ev.get("playouts")
    spec = ev.get("opponent")
    return spec if spec and spec != f"pure-mcts:playouts={n}" else f"pure MCTS {n} playouts"


def ladder_table(records: list[dict[str, Any]]) -> list[str]:
    """The three-player Gobang paper's "batches to beat N playouts" as lines for people: for each pure-MCTS rung and
    classical level the run has played, the optimiser step and generation of the first
    generation that beat it, or how long it has held. Empty when no rung was played."""
    rungs: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:
        for key, label in (("ladder", "playouts"), ("classical", "level")):
            ev = r.get(key)
            if not isinstance(ev, dict) or label not in ev:
                continue
            row = rungs.setdefault((key, int(ev[label])), {"tries": 0, "beaten": None, "last": None})
            if row["beaten"] is None:
                row["tries"] += 1
                row["last"] = (r, ev)
                if ev.get("beaten"):
                    row["beaten"] = (r, ev)
    if not rungs:
        return []
    first: dict[str, Any] = next((ev for key in ("ladder", "classical") for r in records
                                  if isinstance(ev := r.get(key), dict) and "score" in ev), {})
    players = first.get("players", 2)
    head = (f"batches to beat N playouts (optimiser steps; {players} players, "
            + ("the three-player Gobang paper's seatings, win 3 / draw 1 / loss 0, " if players > 2 else "")
            + f"beaten when {first.get('beat_if', 'the score reaches the threshold')}):")
    lines = [head]
    for (key, n), row in sorted(rungs.items(), key=lambda kv: (kv[0][0] != "ladder", kv[0][1])):
        r, ev = row["beaten"] or row["last"]
        name = ladder_opponent_name(ev) if key == "ladder" else f"classical level {n}"
        pts = ev.get("totals")
        games = ev.get("games", ev.get("wins", 0) + ev.get("losses", 0) + ev.get("draws", 0))
        result = (f"score {ev.get('score', 0):.3f}" + (f", points {pts['A']}-{pts['B']}" if isinstance(pts, dict) else "")
                  + f" in {games} games")
        if row["beaten"] is not None:
            lines.append(f"  {name:<24} beaten at step {r.get('step')} (generation {r['generation']}): {result}")
        else:
            lines.append(f"  {name:<24} not beaten in {row['tries']} generation{'s' if row['tries'] != 1 else ''} "
                         f"(last: generation {r['generation']}, step {r.get('step')}, {result})")
    return lines
