"""SGF (`GM[4]`) game records: read and write, one game or a collection.

SGF (FF[4], GM[4] = Gomoku/Renju in the SGF spec)::

    (;FF[4]GM[4]CA[UTF-8]AP[gomoku]SZ[15]RU[renju]PB[Human]PW[gomoku L3]DT[2026-01-01]
      RE[B+]GC[five];B[hh];W[ih];B[hi])

x and y are letters a.. (SGF's origin is top-left, like ours), `SZ[w:h]` for non-square
boards, `RE` uses SGF result codes (B+ / W+ with R = resign, T = time, F = forfeit; 0 =
draw; ? = unknown). Milliseconds used per move, when known, ride on each move node in the
private property XT[ms] (FF[4] has none for time used). A file may hold several games (a collection): `from_sgf_string` returns
them all; the main line (first variation) of each game is read.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence, Union

from gomoku.engine.base import fileio
from gomoku.engine.game.gamerecord import (BLACK, EMPTY, MAX_SIDE, RESULT_BLACK, RESULT_DRAW, WHITE, GameRecord, Move,
                                          PathLike, read_text, write_text)
from gomoku.engine.game.rules import Rule, parse_rule


# SGF result suffixes <-> our reason words (the referee's codes in engine.match.arena: five, foul,
# illegal, time, crash, resign, full, adjudication)
_REASON_TO_SGF = {"resign": "R", "time": "T", "timeout": "T", "forfeit": "F", "foul": "F",
                  "illegal": "F", "crash": "F"}
_SGF_TO_REASON = {"R": "resign", "RESIGN": "resign", "T": "time", "TIME": "time",
                  "F": "forfeit", "FORFEIT": "forfeit"}


_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_MANAGED = {"FF", "GM", "CA", "AP", "SZ", "RU", "PB", "PW", "DT", "RE", "GC", "B", "W", "BL", "WL"}


def _sgf_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def sgf_point(x: int, y: int) -> str:
    """The SGF name of (x, y): two letters, column then row, both from a (top left)."""
    return _SGF_LETTERS[x] + _SGF_LETTERS[y]


def _sgf_result(rec: GameRecord) -> Optional[str]:
    if rec.result is None:
        return None
    if rec.result == RESULT_DRAW:
        return "0"
    side = "B" if rec.result == RESULT_BLACK else "W"
    return f"{side}+{_REASON_TO_SGF.get(rec.reason.lower(), '')}"


#: what a caller may add to one move's node: (property, value) pairs, values unescaped
NodeProps = Sequence[tuple[str, str]]


def sgf_game_string(rec: GameRecord, annotations: Optional[Sequence[NodeProps]] = None) -> str:
    """One game as an SGF GameTree `(;...)`. `annotations`, one entry per move, adds properties
    to that move's node (a review's comment C, markup TR, move quality BM/DO): what SGF viewers
    show beside a move, and what this module's reader skips."""
    rec.validate()
    size = str(rec.width) if rec.width == rec.height else f"{rec.width}:{rec.height}"
    props = [("FF", "4"), ("GM", "4"), ("CA", "UTF-8"), ("AP", "gomoku"), ("SZ", size),
             ("RU", Rule(rec.rule).label)]
    if rec.black:
        props.append(("PB", rec.black))
    if rec.white:
        props.append(("PW", rec.white))
    if rec.date:
        props.append(("DT", rec.date))
    re_value = _sgf_result(rec)
    if re_value is not None:
        props.append(("RE", re_value))
    if rec.reason:
        props.append(("GC", rec.reason))
    for key, value in rec.extra.items():
        if re.fullmatch(r"[A-Z]{1,8}", key) and key not in _MANAGED:
            props.append((key, str(value)))
    out = ["(;" + "".join(f"{k}[{_sgf_escape(v)}]" for k, v in props)]
    node_props: list[str] = []
    for i, (x, y) in enumerate(rec.moves):
        colour = "B" if i % 2 == 0 else "W"
        node = f";{colour}[{sgf_point(x, y)}]"
        if rec.times is not None:
            # FF[4] has no "time used for this move" property (BL/WL are time LEFT), so the
            # ms go into a private property; SGF editors must keep unknown properties.
            node += f"XT[{int(rec.times[i])}]"
        if annotations is not None and i < len(annotations):
            node += "".join(f"{k}[{_sgf_escape(v)}]" for k, v in annotations[i] if re.fullmatch(r"[A-Z]{1,8}", k))
        node_props.append(node)
    # a few moves per line keeps files diff-able and lines short
    for j in range(0, len(node_props), 10):
        out.append("".join(node_props[j:j + 10]))
    return "\n".join(out) + ")\n"


def to_sgf_string(recs: Union[GameRecord, Iterable[GameRecord]]) -> str:
    """SGF text for one game or a collection of games (one GameTree each)."""
    if isinstance(recs, GameRecord):
        recs = [recs]
    return "".join(sgf_game_string(r) for r in recs)


class _SgfParser:
    """Just enough of SGF FF[4]: collections, nodes, properties, escapes, variations.

    Returns for each game the list of nodes of its main line (first variation at every
    branch), each node a dict ident -> list of raw values.
    """

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.pos = 0
        self.source = source

    def error(self, msg: str) -> ValueError:
        line = self.text.count("\n", 0, self.pos) + 1
        return ValueError(f"{self.source}: line {line}: {msg}")

    def skip_ws(self) -> None:
        t, n = self.text, len(self.text)
        while self.pos < n and t[self.pos].isspace():
            self.pos += 1

    def collection(self) -> list[list[dict[str, list[str]]]]:
        games = []
        self.skip_ws()
        start = self.text.find("(", self.pos)
        if start < 0:
            raise self.error("no SGF game found (expected '(;')")
        self.pos = start     # tolerate leading junk (mail headers etc.), as SGF readers do
        while True:
            self.skip_ws()
            if self.pos >= len(self.text):
                break
            if self.text[self.pos] != "(":
                raise self.error(f"expected '(' to start a game, got {self.text[self.pos]!r}")
            games.append(self.game_tree())
        return games

    def game_tree(self) -> list[dict[str, list[str]]]:
        assert self.text[self.pos] == "("
        self.pos += 1
        nodes: list[dict[str, list[str]]] = []
        self.skip_ws()
        if self.pos >= len(self.text) or self.text[self.pos] != ";":
            raise self.error("a game tree must start with a node ';'")
        while True:
            self.skip_ws()
            if self.pos >= len(self.text):
                raise self.error("unexpected end of file: missing ')'")
            c = self.text[self.pos]
            if c == ";":
                self.pos += 1
                nodes.append(self.node())
            elif c == "(":
                # variations: the first one is the main line; skip the others
                nodes.extend(self.game_tree())
                self.skip_ws()
                while self.pos < len(self.text) and self.text[self.pos] == "(":
                    self.game_tree()
                    self.skip_ws()
                if self.pos >= len(self.text) or self.text[self.pos] != ")":
                    raise self.error("expected ')' after variations")
                self.pos += 1
                return nodes
            elif c == ")":
                self.pos += 1
                return nodes
            else:
                raise self.error(f"unexpected {c!r} between nodes")

    def node(self) -> dict[str, list[str]]:
        props: dict[str, list[str]] = {}
        while True:
            self.skip_ws()
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            ident = self.text[start:self.pos]
            if not ident:
                return props
            # FF[3] allowed lowercase letters inside identifiers (e.g. 'AddBlack'): keep capitals
            ident = "".join(ch for ch in ident if ch.isupper())
            values = []
            self.skip_ws()
            if self.pos >= len(self.text) or self.text[self.pos] != "[":
                raise self.error(f"property {ident or start!s} has no value")
            while self.pos < len(self.text) and self.text[self.pos] == "[":
                values.append(self.value())
                self.skip_ws()
            props.setdefault(ident, []).extend(values)

    def value(self) -> str:
        self.pos += 1  # '['
        out = []
        t, n = self.text, len(self.text)
        while self.pos < n:
            c = t[self.pos]
            if c == "\\":
                self.pos += 1
                if self.pos < n:
                    nxt = t[self.pos]
                    if nxt == "\n":        # soft line break
                        pass
                    elif nxt == "\r":
                        if self.pos + 1 < n and t[self.pos + 1] == "\n":
                            self.pos += 1
                    else:
                        out.append(nxt)
                    self.pos += 1
                continue
            if c == "]":
                self.pos += 1
                return "".join(out)
            out.append(c)
            self.pos += 1
        raise self.error("unexpected end of file inside a property value (missing ']')")


def _parse_sgf_point(value: str, width: int, height: int, where: str) -> Move:
    v = value.strip()
    if v == "" or (v == "tt" and max(width, height) <= 19):
        raise ValueError(f"{where}: passes are not allowed in gomoku records")
    if len(v) != 2 or v[0] not in _SGF_LETTERS or v[1] not in _SGF_LETTERS:
        raise ValueError(f"{where}: bad move coordinate [{value}] (expected two letters like 'hh')")
    x, y = _SGF_LETTERS.index(v[0]), _SGF_LETTERS.index(v[1])
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{where}: move [{value}] is off the {width}x{height} board")
    return x, y


def _game_from_nodes(nodes: list[dict[str, list[str]]], source: str, default_rule: Optional[Rule]) -> GameRecord:
    root = nodes[0] if nodes else {}

    def one(ident: str, default: Optional[str] = None) -> Optional[str]:
        vals = root.get(ident)
        return vals[0] if vals else default

    gm = one("GM")
    if gm is not None and gm.strip() != "4":
        name = {"1": "Go", "2": "Othello", "3": "chess"}.get(gm.strip(), f"game type {gm.strip()}")
        raise ValueError(f"{source}: GM[{gm.strip()}] is {name}, not Gomoku (GM[4])")
    size = (one("SZ") or "15").strip()
    m = re.fullmatch(r"(\d+)(?:\s*:\s*(\d+))?", size)
    if not m:
        raise ValueError(f"{source}: bad board size SZ[{size}] (expected SZ[15] or SZ[20:15])")
    width = int(m.group(1))
    height = int(m.group(2)) if m.group(2) else width
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"{source}: board size {width}x{height} out of range 1..{MAX_SIDE}")
    rule_text = one("RU")
    rule = Rule.FREESTYLE if default_rule is None else Rule(default_rule)
    if rule_text is not None and rule_text.strip():
        try:
            rule = parse_rule(rule_text.strip())
        except ValueError:
            raise ValueError(f"{source}: unknown rule RU[{rule_text.strip()}] "
                             f"(use freestyle, standard, renju, caro or caro5)") from None
    rec = GameRecord(width=width, height=height, rule=rule)
    rec.black = (one("PB") or "").strip()
    rec.white = (one("PW") or "").strip()
    rec.date = (one("DT") or "").strip()
    rec.reason = (one("GC") or "").strip()
    result = (one("RE") or "").strip()
    if result:
        up = result.upper()
        if up in ("0", "DRAW", "JIGO"):
            rec.finish(EMPTY, rec.reason or "draw")
        elif up[:2] in ("B+", "W+"):
            how = _SGF_TO_REASON.get(up[2:].strip(), "")
            rec.finish(BLACK if up[0] == "B" else WHITE, rec.reason or how or ("five" if not up[2:] else up[2:]))
        elif up in ("?", "VOID"):
            pass
        else:
            raise ValueError(f"{source}: bad result RE[{result}] (expected B+, W+R, 0, ? ...)")
    for key, vals in root.items():
        if key not in _MANAGED and key not in ("AB", "AW", "AE", "PL") and vals:
            rec.extra[key] = vals[0]
    if any(k in root for k in ("AB", "AW")):
        raise ValueError(f"{source}: setup stones (AB/AW) are not supported; record the opening as moves")
    times: list[int] = []
    has_times = False
    seen: set[Move] = set()
    for n_index, node in enumerate(nodes):
        colours = [c for c in ("B", "W") if c in node]
        if not colours:
            if n_index > 0 and any(k in node for k in ("AB", "AW")):
                raise ValueError(f"{source}: setup stones (AB/AW) are not supported; record the opening as moves")
            continue
        if len(colours) == 2 or len(node[colours[0]]) != 1:
            raise ValueError(f"{source}: node {n_index} holds more than one move")
        colour = colours[0]
        expected = "B" if len(rec.moves) % 2 == 0 else "W"
        where = f"{source}: move {len(rec.moves) + 1}"
        if colour != expected:
            raise ValueError(f"{where}: {colour}[{node[colour][0]}] but it is {expected}'s turn "
                             f"(colours must alternate, black first)")
        mv = _parse_sgf_point(node[colour][0], width, height, where)
        if mv in seen:
            raise ValueError(f"{where}: [{node[colour][0]}] is on an occupied cell")
        seen.add(mv)
        rec.moves.append(mv)
        t = node.get("XT")
        if t and re.fullmatch(r"\s*\d+\s*", t[0]):
            has_times = True
            times.append(int(t[0]))
        else:
            times.append(0)
    if has_times:
        rec.times = times
    return rec


def from_sgf_string(text: str, source: str = "sgf", rule: Optional[Rule] = None) -> list[GameRecord]:
    """Every game in an SGF collection, in file order; a game without RU[] is played under
    `rule` (freestyle when None), as a .psq record is."""
    games = _SgfParser(text, source).collection()
    if not games:
        raise ValueError(f"{source}: no SGF game found (expected '(;')")
    return [_game_from_nodes(nodes, f"{source} game {i + 1}" if len(games) > 1 else source, rule)
            for i, nodes in enumerate(games)]


def save_sgf(path: PathLike, recs: Union[GameRecord, Sequence[GameRecord]]) -> None:
    """Write one game, or a collection, to an SGF file (replacing it)."""
    write_text(path, to_sgf_string(recs))


def append_sgf(path: PathLike, rec: GameRecord) -> None:
    """Add one game to an SGF collection file (created if missing): what a match does per game."""
    text = to_sgf_string(rec)
    try:
        fileio.append_text(path, text)
    except OSError as exc:
        raise ValueError(f"{path}: cannot write ({exc.strerror or exc})") from None


def load_sgf_all(path: PathLike, rule: Optional[Rule] = None) -> list[GameRecord]:
    """All games of an SGF file (those without RU[] under `rule`, freestyle when None)."""
    return from_sgf_string(read_text(path), source=str(path), rule=rule)


def load_sgf(path: PathLike) -> GameRecord:
    """The first (usually only) game of an SGF file."""
    return load_sgf_all(path)[0]
