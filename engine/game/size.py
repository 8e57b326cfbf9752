"""The board sizes the engine plays, and how people write them.

Kept apart from the numba core so that command-line parsing and the protocol can check a size
without importing (and compiling) the core.
"""
from __future__ import annotations

import re

#: sides of the boards the core, the brain and the nets accept (Gomocup plays 15 and 20)
MIN_SIZE, MAX_SIZE = 5, 22

_SIZE = re.compile(r"\s*(\d+)\s*(?:[x,:]\s*(\d+))?\s*", re.I)


def parse_board_size(text: str) -> tuple[int, int]:
    """'15' -> (15, 15), '20x15' -> (20, 15); ValueError (one line) outside MIN_SIZE..MAX_SIZE."""
    m = _SIZE.fullmatch(str(text))
    width = int(m.group(1)) if m else 0
    height = int(m.group(2) or width) if m else 0
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise ValueError(f"{text!r} is not a board size: use N or WxH with sides {MIN_SIZE}..{MAX_SIZE}, "
                         "e.g. 15 or 20x15")
    return width, height
