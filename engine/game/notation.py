"""Move notation for people: `h8` is (7, 7), column letter a.. (none skipped) and row 1 at the
TOP, so that the letter-number name and the engine's 0-based (x, y) never disagree.

The one definition: the terminal (tools.render), the game review's notes and its SGF
comments all name moves with it.
"""
from __future__ import annotations

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def move_name(x: int, y: int) -> str:
    """`h8` for (7, 7)."""
    return f"{LETTERS[x]}{y + 1}"
