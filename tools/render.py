"""Board rendering and move notation for the terminal (rich).

Two notations, both shown on screen so nobody has to translate:

* letter + number, e.g. `h8`: column letter a.. (a = x 0, no letter skipped, 'v' = x 21),
  row number 1.. counted from the TOP (row 1 is y 0). Gomoku GUIs differ on whether row 1
  is at the top or the bottom; here it is at the top so that `h8` is simply x=7, y=7 and the
  two rulers never disagree. (On 15x15 the centre is h8 either way.)
* `x,y`, 0-based, exactly what the Piskvork protocol and our engine use.

The board is drawn with a top ruler of x indices and a ruler of letters, and on the left a
ruler of y indices next to the row numbers, so both notations can be read off directly.
A 15x15 board takes 17 lines and 55 columns: with status and prompt it fits 80x25. 20x20
(Gomocup's freestyle size) takes 22 lines and 71 columns, leaving a status line, one message
line and the prompt. From 21 rows on the x-index ruler is dropped ("compact"); a 22x22 board
then takes 23 lines and 77 columns, leaving one row for the status or a message (a longer
one is cut at the edge rather than scrolling the rulers away: tools.play_session.print_rows).
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from rich.text import Text

from gomoku.engine.game.notation import LETTERS, move_name
from gomoku.engine.game.stones import BLACK, EMPTY, WALL, WHITE

COMPACT_FROM_HEIGHT = 21     # boards this tall drop the x-index ruler

SYMBOL = {EMPTY: ".", BLACK: "X", WHITE: "O", WALL: "#"}
STYLE = {EMPTY: "dim", BLACK: "bold", WHITE: "bold cyan", WALL: "dim"}
FORBIDDEN_SYMBOL, FORBIDDEN_STYLE = "!", "red"
HINT_SYMBOL, HINT_STYLE = "*", "bold green"
LAST_STYLE = "reverse"

_MARGIN = 7          # "   y  r" : y index (4) + row number (3)


def plural(n: int, word: str) -> str:
    """'1 move', '2 moves': a count with its noun as people write it."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def describe_move(move: Optional[tuple[int, int]]) -> str:
    """`h8 (7,7)`: both notations, as shown everywhere in `play`."""
    if move is None:
        return "-"
    x, y = move
    return f"{move_name(x, y)} ({x},{y})"


_LETTER_MOVE = re.compile(r"^([a-z])\s*(\d{1,3})$")
_XY_MOVE = re.compile(r"^\(?\s*(-?\d{1,3})\s*[, ]\s*(-?\d{1,3})\s*\)?$")


def parse_move(text: str, width: int, height: int) -> tuple[int, int]:
    """`h8` / `H8` (letter column, row 1 at the top) or `7,7` / `7 7` / `(7,7)` (0-based x,y).

    Raises ValueError with one line that says what was wrong and what is accepted.
    """
    t = text.strip().lower()
    last_col = LETTERS[min(width, len(LETTERS)) - 1]
    m = _LETTER_MOVE.match(t)
    if m:
        x, row = LETTERS.index(m.group(1)), int(m.group(2))
        if x >= width:
            raise ValueError(f"column '{m.group(1)}' is off the board (columns a..{last_col})")
        if not 1 <= row <= height:
            raise ValueError(f"row {row} is off the board (rows 1..{height})")
        return x, row - 1
    m = _XY_MOVE.match(t)
    if m:
        x, y = int(m.group(1)), int(m.group(2))
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"{x},{y} is off the board (x 0..{width - 1}, y 0..{height - 1})")
        return x, y
    raise ValueError(f"cannot read {text.strip()[:20]!r} as a move: type a letter and a row like h8 "
                     f"(a..{last_col}, 1..{height}) or x,y like 7,7 (0-based)")


def is_compact(height: int) -> bool:
    return height >= COMPACT_FROM_HEIGHT


def board_lines(height: int) -> int:
    """How many terminal lines `render_board` uses for a board of this height."""
    return height + (1 if is_compact(height) else 2)


def render_board(board: Any, *, last_move: Optional[tuple[int, int]] = None,
                 hint: Optional[tuple[int, int]] = None,
                 forbidden: Iterable[tuple[int, int]] = (),
                 compact: Optional[bool] = None,
                 symbols: Optional[dict[int, tuple[str, str]]] = None) -> Text:
    """The board as rich Text (no trailing newline).

    `board` needs `width`, `height` and `cell(x, y)` (0 empty, 1 black, 2 white, 3 blocked);
    `last_move` defaults to `board.last_move` and is drawn as `[X]` (plus reverse video, so
    it shows without colours too); `forbidden` points are drawn as `!` (renju fouls for
    black, computed by the caller), `hint` as `*`. `symbols` maps stone values to (symbol,
    style) for boards of more than two players (then 3 is a stone, not a blocked point).
    """
    width, height = int(board.width), int(board.height)
    if last_move is None:
        last_move = getattr(board, "last_move", None)
    compact = is_compact(height) if compact is None else compact
    forbidden = set(forbidden)
    symbol, style = dict(SYMBOL), dict(STYLE)
    if symbols:
        for v, (sym, sty) in symbols.items():
            symbol[v], style[v] = sym, sty
    stones = set(symbols) if symbols else {BLACK, WHITE}
    out = Text(no_wrap=True, overflow="crop")
    if not compact:
        out.append(f"{'x':>{_MARGIN - 1}} ", style="dim")
        out.append("".join(f"{x:>2} " for x in range(width)).rstrip(), style="dim")
        out.append("\n")
    out.append(f"{'y':>4}{'':3}", style="dim")
    out.append("".join(f" {LETTERS[x]} " for x in range(width)).rstrip(), style="bold")
    for y in range(height):
        out.append("\n")
        out.append(f"{y:>4}", style="dim")
        out.append(f"{y + 1:>3}", style="bold")
        for x in range(width):
            v = int(board.cell(x, y))
            if (x, y) == last_move and v in stones:
                out.append("[", style="bold yellow")
                out.append(symbol[v], style=f"{style[v]} {LAST_STYLE}")
                out.append("]", style="bold yellow")
            elif v == EMPTY and (x, y) == hint:
                out.append(f" {HINT_SYMBOL} ", style=HINT_STYLE)
            elif v == EMPTY and (x, y) in forbidden:
                out.append(f" {FORBIDDEN_SYMBOL} ", style=FORBIDDEN_STYLE)
            else:
                out.append(f" {symbol.get(v, '?')} ", style=style.get(v, ""))
        out.append(f" {y + 1}", style="bold")
    return out


def legend(forbidden: bool = False, hint: bool = False) -> str:
    parts = ["X black", "O white", "[X] last move"]
    if forbidden:
        parts.append("! forbidden for black")
    if hint:
        parts.append("* hint")
    return "  ".join(parts)
