"""Opening positions for matches: built-in sets and c-gomoku-cli opening files.

An opening is a tuple of (x, y) moves, black first, in board coordinates. Matches play each
opening twice with colours swapped, so an opening that favours one colour still gives both
players the same chances; what matters for a *good* set is that no opening is a trivial
win, so that games measure strength rather than the opening.

File formats (one opening per line, as c-gomoku-cli reads them; blank lines and lines
starting with '#' are skipped):

* pos: `h8i9j7` -- letter = column from 'a' (x), number = row from 1 (y + 1);
* offset: `-7,-8, -6,-9` -- x,y pairs relative to the centre (width//2, height//2), the
  Gomocup opening-file form, so one file serves every board size.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Optional, Sequence

from gomoku.engine.base.fileio import cannot_read
from gomoku.engine.game.rules import Rule

Move = tuple[int, int]
Opening = tuple[Move, ...]


class OpeningError(ValueError):
    """A bad opening or opening file; the message is one line for a person."""


# ----------------------------------------------------------------------------- built-in sets

def _renju_26() -> list[tuple[Move, ...]]:
    """The 26 classical three-stone openings as centre offsets (y grows downwards).

    Black at the centre, white next to it (directly above: the 13 'direct' openings; on
    the diagonal: the 13 'indirect' ones), black's second stone anywhere in the central
    5x5 square, one representative per mirror image. These are the openings renju players
    have studied for a century; listed with the far third stones (weakest for black, the
    most balanced) first.
    """
    out: list[tuple[Move, ...]] = []
    seen: set[tuple[Move, ...]] = set()
    for white, mirror in (((0, -1), lambda p: (-p[0], p[1])),            # direct: mirror x
                          ((1, -1), lambda p: (-p[1], -p[0]))):          # indirect: mirror y = -x
        cells = [(dx, dy) for dy in range(-2, 3) for dx in range(-2, 3)
                 if (dx, dy) not in ((0, 0), white)]
        # far ring first, then the inner ring; stable order inside each ring
        cells.sort(key=lambda p: -max(abs(p[0]), abs(p[1])))
        for third in cells:
            key = ((0, 0), white, min(third, mirror(third)))
            if key not in seen:
                seen.add(key)
                out.append(((0, 0), white, third))
    return out


RENJU_26 = _renju_26()


def builtin_openings(width: int, height: Optional[int] = None) -> list[Opening]:
    """The built-in set for a board: the 26 classical openings around the centre, with the
    far-third-stone (more balanced) ones first. Used for 15x15 and 20x20 (and any size from
    5 up). The set is hand-picked, not yet rated by the engine."""
    height = width if height is None else height
    return [from_offsets(o, width, height) for o in RENJU_26]


#: rule -> file in engine/data with openings an outside engine judged even on 15x15
_BALANCED_FILES = {Rule.FREESTYLE: "balanced15_freestyle.txt", Rule.STANDARD: "balanced15_standard.txt"}
BALANCED_SIZE = 15


def balanced_openings(width: int, height: Optional[int], rule: Rule) -> list[Opening]:
    """100 short openings around the centre that Rapfi's search judged even (within +-60) for
    15x15 freestyle or standard. Swapping colours makes any set fair, but on 15x15 most short
    openings are won by black, so both engines win their black games and a score near 50 %
    says little; in even positions the score measures middle-game strength. The evaluation
    depends on board size and rule, so other combinations raise OpeningError."""
    height = width if height is None else height
    name = _BALANCED_FILES.get(Rule(rule))
    if name is None or (width, height) != (BALANCED_SIZE, BALANCED_SIZE):
        raise OpeningError(f"balanced openings exist for {BALANCED_SIZE}x{BALANCED_SIZE} freestyle and "
                           f"standard only (here {width}x{height} {Rule(rule).label}): "
                           "use 'builtin', 'none' or a file")
    return load_openings(Path(__file__).resolve().parent.parent / "data" / name, width, height, "pos")


#: rule -> file in engine/data with the engine's own book (`gomoku openings`: thousands of
#: openings over the whole board, for tests of thousands of games)
_BOOK_FILES = {r: f"book15_{r.label}.txt" for r in (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU)}
#: rule -> file in engine/data with the engine's central book (`gomoku openings --centre 5`:
#: the kind of opening tournaments and the balanced sets start from, in the thousands)
_CENTRE_FILES = {r: f"centre15_{r.label}.txt" for r in (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU)}


def _shipped_book(files: dict[Rule, str], what: str, width: int, height: Optional[int],
                  rule: Rule) -> list[Opening]:
    """One of the engine's own 15x15 books, or OpeningError naming the rules it exists for."""
    height = width if height is None else height
    data = Path(__file__).resolve().parent.parent / "data"
    name = files.get(Rule(rule))
    if name is None or (width, height) != (BALANCED_SIZE, BALANCED_SIZE) or not (data / name).is_file():
        have = ", ".join(r.label for r, f in files.items() if (data / f).is_file())
        raise OpeningError(f"the {what} exists for {BALANCED_SIZE}x{BALANCED_SIZE} {have} only "
                           f"(here {width}x{height} {Rule(rule).label}); make one with gomoku openings")
    return load_openings(data / name, width, height, "pos")


def book_openings(width: int, height: Optional[int], rule: Rule) -> list[Opening]:
    """The shipped book of 15x15 openings for the rule, made and judged by the classical
    search itself (`gomoku openings`): stones anywhere on the board, edges and corners in
    their natural share. OpeningError where no book was made."""
    return _shipped_book(_BOOK_FILES, "opening book", width, height, rule)


def centre_openings(width: int, height: Optional[int], rule: Rule) -> list[Opening]:
    """The shipped central book: openings judged even by the classical search with every stone
    in the central 5x5, like the balanced sets but in the thousands. A change can gain on
    spread openings and lose on central ones (docs/strength.md), so a test needs both kinds."""
    return _shipped_book(_CENTRE_FILES, "central book", width, height, rule)


def default_openings(width: int, height: Optional[int], rule: Rule) -> list[Opening]:
    """The balanced set where there is one for the board and rule, else the built-in one."""
    try:
        return balanced_openings(width, height, rule)
    except OpeningError:
        return builtin_openings(width, height)


# ----------------------------------------------------------------------------- parsers

def from_offsets(offsets: Iterable[Move], width: int, height: int) -> Opening:
    cx, cy = width // 2, height // 2
    return tuple((cx + dx, cy + dy) for dx, dy in offsets)


_POS_TOKEN = re.compile(r"([a-zA-Z])(\d+)")


def parse_pos(line: str) -> Opening:
    """`h8i9j7` -> ((7, 7), (8, 8), (9, 6)). Raises OpeningError on anything else."""
    text = line.strip().replace(" ", "")
    if not text:
        raise OpeningError("empty opening")
    moves: list[Move] = []
    pos = 0
    for m in _POS_TOKEN.finditer(text):
        if m.start() != pos:
            break
        moves.append((ord(m.group(1).lower()) - ord("a"), int(m.group(2)) - 1))
        pos = m.end()
    if pos != len(text):
        raise OpeningError(f"not a pos-form opening (like h8i9j7): {line.strip()!r}")
    return tuple(moves)


def parse_offset(line: str, width: int, height: int) -> Opening:
    """`-7,-8, -6,-9` -> absolute moves around the centre (width//2, height//2)."""
    tokens = [t for t in re.split(r"[\s,]+", line.strip()) if t]
    if not tokens:
        raise OpeningError("empty opening")
    try:
        nums = [int(t) for t in tokens]
    except ValueError:
        raise OpeningError(f"not an offset-form opening (like -1,0, 0,1): {line.strip()!r}") from None
    if len(nums) % 2:
        raise OpeningError(f"odd number of coordinates in opening: {line.strip()!r}")
    return from_offsets(zip(nums[0::2], nums[1::2]), width, height)


def detect_format(line: str) -> str:
    return "pos" if re.search(r"[a-zA-Z]", line) else "offset"


def parse_line(line: str, width: int, height: int, fmt: str = "auto") -> Opening:
    if fmt == "auto":
        fmt = detect_format(line)
    if fmt == "pos":
        return parse_pos(line)
    if fmt == "offset":
        return parse_offset(line, width, height)
    raise OpeningError(f"unknown opening format {fmt!r}: use pos, offset or auto")


def load_openings(path: str | Path, width: int, height: int, fmt: str = "auto") -> list[Opening]:
    """Read an openings file; every error names the file and line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise OpeningError(cannot_read("openings", path, exc)) from None
    out: list[Opening] = []
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            out.append(parse_line(s, width, height, fmt))
        except OpeningError as exc:
            raise OpeningError(f"{path}:{no}: {exc}") from None
    if not out:
        raise OpeningError(f"no openings in {path}")
    return out


# ----------------------------------------------------------------------------- checks

def to_pos_string(opening: Opening) -> str:
    return "".join(f"{chr(ord('a') + x)}{y + 1}" for x, y in opening)


def check_opening(opening: Opening, width: int, height: int, rule: Rule) -> None:
    """Raise OpeningError unless every stone is on the board, on an empty cell, no stone
    ends the game (five) and, under renju, black's stones are not fouls."""
    from gomoku.engine.game.board import BLACK, Board, IllegalMove

    b = Board(width, height, rule)
    if all(0 <= x < 26 and y >= 0 for x, y in opening):
        name = to_pos_string(opening)
    else:   # show what an offset file said
        name = "'" + ", ".join(f"{x - width // 2},{y - height // 2}" for x, y in opening) + "' (offsets)"
    for i, (x, y) in enumerate(opening):
        if not b.in_bounds(x, y):
            raise OpeningError(f"opening {name} does not fit the {width}x{height} board "
                               f"(stone {i + 1} at {x},{y})")
        if rule == Rule.RENJU and b.to_move == BLACK and b.is_forbidden(x, y):
            raise OpeningError(f"opening {name}: stone {i + 1} is a renju foul for black")
        try:
            b.play(x, y)
        except IllegalMove as exc:
            raise OpeningError(f"opening {name}: stone {i + 1}: {exc}") from None
        if b.winner:
            raise OpeningError(f"opening {name} already contains a five")
    if b.is_full():
        raise OpeningError(f"opening {name} fills the board")


def check_openings(openings: Sequence[Opening], width: int, height: int, rule: Rule) -> None:
    for op in openings:
        check_opening(op, width, height, rule)
