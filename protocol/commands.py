"""Pure parsing of the Piskvork wire format: bytes -> lines -> (command, argument).

Nothing here touches the board or prints: every function is a small pure transformation so the
protocol's leniency rules (any case, CR/LF/CRLF, blanks around commas, overlong and non-UTF-8
lines) are unit-tested in isolation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

#: Longest line we keep (bytes). Longer lines are cut here and the rest is dropped, so a
#: 100 000-character line costs no memory and still gets its one UNKNOWN answer.
MAX_LINE = 4096

_COORD = re.compile(r"^\s*([+-]?\d{1,6})\s*,\s*([+-]?\d{1,6})\s*$")
_FIELD = re.compile(r"^\s*([+-]?\d{1,6})\s*,\s*([+-]?\d{1,6})\s*,\s*([+-]?\d{1,6})\s*$")


class LineSplitter:
    """Turns a byte stream into text lines; accepts LF, CRLF and a lone CR as terminators.

    A CR at the very end of one chunk followed by LF at the start of the next is one line end.
    Bytes are decoded as UTF-8 with replacement, so invalid input can never raise.
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._max = max_line
        self._skip_lf = False      # previous line ended with CR: a leading LF belongs to it
        self._overflow = False     # current line exceeded max_line: drop bytes until its end

    def feed(self, data: bytes) -> list[str]:
        lines: list[str] = []
        for b in data:
            if self._skip_lf:
                self._skip_lf = False
                if b == 0x0A:
                    continue
            if b == 0x0A or b == 0x0D:
                lines.append(self._take())
                self._skip_lf = b == 0x0D
                continue
            if len(self._buf) < self._max:
                self._buf.append(b)
            else:
                self._overflow = True
        return lines

    def flush(self) -> list[str]:
        """Lines still buffered at end of input (a last line without terminator)."""
        if self._buf or self._overflow:
            return [self._take()]
        return []

    def _take(self) -> str:
        text = bytes(self._buf).decode("utf-8", errors="replace")
        self._buf.clear()
        self._overflow = False
        return text


@dataclass(frozen=True)
class Command:
    """One protocol line: `name` is the upper-cased first word, `arg` the rest, stripped."""
    name: str
    arg: str

    @property
    def printable_name(self) -> str:
        """The command word made safe for an ASCII reply (echoed in UNKNOWN/ERROR texts)."""
        return ascii_text(self.name, 40)


def parse_line(line: str) -> Optional[Command]:
    """Split a line into command word and argument; None for an empty or blank line."""
    text = line.strip()
    if not text:
        return None
    parts = text.split(None, 1)
    return Command(parts[0].upper(), parts[1].strip() if len(parts) > 1 else "")


def parse_coord(text: str) -> Optional[tuple[int, int]]:
    """`X,Y` (blanks allowed around the comma) -> (x, y), or None if malformed."""
    m = _COORD.match(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2))


def parse_field(text: str) -> Optional[tuple[int, int, int]]:
    """A BOARD/YXBOARD data line `X,Y,F` -> (x, y, f), or None if malformed."""
    m = _FIELD.match(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def parse_size(text: str) -> Optional[int]:
    """START's argument: one integer, or None."""
    t = text.strip()
    if re.fullmatch(r"[+-]?\d{1,6}", t):
        return int(t)
    return None


def parse_info(arg: str) -> tuple[str, str]:
    """INFO's argument -> (lower-case key, value). The value is the whole rest of the line,
    so `folder` paths with spaces survive."""
    parts = arg.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), parts[1].strip() if len(parts) > 1 else ""


def parse_int(text: str) -> Optional[int]:
    """An INFO integer value (may be negative, e.g. time_left), or None."""
    t = text.strip()
    if re.fullmatch(r"[+-]?\d{1,19}", t):
        return int(t)
    return None


def format_move(move: tuple[int, int]) -> str:
    """The canonical move line: digits, one comma, nothing else."""
    return f"{int(move[0])},{int(move[1])}"


def ascii_text(text: str, limit: int = 200) -> str:
    """Make text safe for the wire: printable ASCII only, one line, bounded length."""
    out = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
    if len(out) > limit:
        out = out[:limit] + "..."
    return out
