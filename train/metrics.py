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
