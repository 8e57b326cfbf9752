"""What a net file claims to be, and the one-line refusals when it cannot serve a game.

The keys and their meaning are docs/net-format.md. Refusing early matters: a net trained for
four in a row, or with other input planes, still returns numbers on any board, and the search
would play them without complaint.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from .planes import FORMAT_VERSION, plane_names
from .session import NetFormatError, read_metadata

__all__ = ["CRITIC_PLANES", "NetFormatError", "NetInfo", "REQUIRED_KEYS", "VALUE_HEADS", "describe_net", "net_fits_game",
           "read_metadata"]

REQUIRED_KEYS = ("gomoku_format", "planes", "players", "win_length", "rules", "board_sizes",
                 "value_head", "arch")
#: `outcome`: a policy-value net's P + 1 outcome logits; `critic`: an ADP critic's one number, the
#: first player's win probability of a position given by its pattern features (engine.net.critic)
VALUE_HEADS = ("outcome", "critic")
#: the `planes` word of a critic: its input is one of these feature sets, not board planes
CRITIC_PLANES = ("features30", "features274")


def _parse_sizes(text: str) -> list[int]:
    sizes: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = (int(v) for v in part.split("-", 1))
            sizes.extend(range(lo, hi + 1))
        else:
            sizes.append(int(part))
    if not sizes:
        raise ValueError("no board size")
    return sorted(set(sizes))


def _parse_fixed(text: str) -> Optional[tuple[int, int]]:
    """'8x8' -> (8, 8); '' -> None (a fully convolutional net)."""
    if not text.strip():
        return None
    width, height = (int(v) for v in text.lower().split("x"))
    return width, height


def _fixed_text(info: "NetInfo") -> str:
    """', board-size specific (8x8 only)' for a net with fully connected heads, else ''."""
    if not info.fixed_size:
        return ""
    return f", board-size specific ({info.fixed_size[0]}x{info.fixed_size[1]} only)"


def _format_sizes(sizes: list[int]) -> str:
    s = sorted(set(sizes))
    if len(s) > 2 and s == list(range(s[0], s[-1] + 1)):
        return f"{s[0]}-{s[-1]}"
    return ",".join(str(v) for v in s)


@dataclass
class NetInfo:
    """The metadata of one net file, parsed."""
    players: int
    win_length: int
    rules: list[str]
    board_sizes: list[int]
    arch: str
    value_head: str = "outcome"
    planes: list[str] = field(default_factory=list)
    format: int = FORMAT_VERSION
    provenance: dict[str, Any] = field(default_factory=dict)
    #: (width, height) of a net with fully connected heads, which runs on that board only
    fixed_size: Optional[tuple[int, int]] = None

    def __post_init__(self) -> None:
        if not self.planes and self.value_head != "critic":
            self.planes = plane_names(self.players)

    def to_metadata(self) -> dict[str, str]:
        """The ONNX metadata_props the exporter writes (`fixed_size` only for a board-size
        specific net, so every other file keeps the keys it always had)."""
        meta = {
            "gomoku_format": str(self.format),
            "planes": ",".join(self.planes),
            "players": str(self.players),
            "win_length": str(self.win_length),
            "rules": ",".join(self.rules),
            "board_sizes": _format_sizes(self.board_sizes),
            "value_head": self.value_head,
            "arch": self.arch,
            "provenance": json.dumps(self.provenance, sort_keys=True),
        }
        if self.fixed_size:
            meta["fixed_size"] = f"{self.fixed_size[0]}x{self.fixed_size[1]}"
        return meta

    @classmethod
    def from_metadata(cls, meta: dict[str, str], source: str = "net") -> "NetInfo":
        """Parse and check metadata; NetFormatError (one line, naming `source`) on anything off."""
        missing = [k for k in REQUIRED_KEYS if k not in meta]
        if missing:
            raise NetFormatError(f"{source}: not a gomoku net (metadata lacks {', '.join(missing)}; "
                                 "see docs/net-format.md)")
        try:
            fmt = int(meta["gomoku_format"])
            players = int(meta["players"])
            win = int(meta["win_length"])
            sizes = _parse_sizes(meta["board_sizes"])
            fixed = _parse_fixed(meta.get("fixed_size", ""))
        except ValueError as exc:
            raise NetFormatError(f"{source}: unreadable metadata ({exc})") from None
        if fmt != FORMAT_VERSION:
            raise NetFormatError(f"{source}: net format {fmt}, this engine reads format {FORMAT_VERSION}")
        if not 2 <= players <= 4:
            raise NetFormatError(f"{source}: players={players}, expected 2..4")
        planes = [p.strip() for p in meta["planes"].split(",")]
        if meta["value_head"] == "critic":
            if len(planes) != 1 or planes[0] not in CRITIC_PLANES:
                raise NetFormatError(f"{source}: critic input {','.join(planes)} unknown "
                                     f"(known: {', '.join(CRITIC_PLANES)})")
        elif planes != plane_names(players):
            raise NetFormatError(f"{source}: input planes {','.join(planes)} differ from the engine's "
                                 f"{','.join(plane_names(players))}")
        if meta["value_head"] not in VALUE_HEADS:
            raise NetFormatError(f"{source}: value head {meta['value_head']!r} unknown "
                                 f"(known: {', '.join(VALUE_HEADS)})")
        rules = [r.strip() for r in meta["rules"].split(",") if r.strip()]
        try:
            prov = json.loads(meta.get("provenance", "{}") or "{}")
        except json.JSONDecodeError:
            prov = {"text": meta.get("provenance", "")}
        return cls(players=players, win_length=win, rules=rules, board_sizes=sizes, arch=meta["arch"],
                   value_head=meta["value_head"], planes=planes, format=fmt,
                   provenance=prov if isinstance(prov, dict) else {"text": str(prov)}, fixed_size=fixed)

    def check_game(self, width: int, height: int, rule_label: str, win_length: int = 5, players: int = 2,
                   allow_any_size: bool = False, source: str = "net") -> None:
        """Refuse (NetFormatError, one line: what the net is, what the game is) a game this net
        was not trained for; the words are `net_fits_game`'s, the same in every command."""
        why = net_fits_game(self, rule_label, width, height, win_length, players, name=source,
                            allow_any_size=allow_any_size)
        if why:
            raise NetFormatError(why)

    def coverage(self) -> str:
        """The games it plays, for people: '15x15 freestyle/standard' or '8-12 freestyle'."""
        sizes = sorted(set(self.board_sizes))
        boards = f"{sizes[0]}x{sizes[0]}" if len(sizes) == 1 else f"boards {_format_sizes(sizes)}"
        return f"{boards} {'/'.join(self.rules)}"

    def summary(self) -> str:
        return (f"{self.arch}, {self.players} players, {self.win_length} in a row, rules "
                f"{','.join(self.rules)}, boards {_format_sizes(self.board_sizes)}{_fixed_text(self)}")


_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _count(n: int) -> str:
    return _COUNT_WORDS.get(n, str(n))


def _boards_text(sizes: list[int]) -> str:
    s = sorted(set(sizes))
    return f"{s[0]}x{s[0]}" if len(s) == 1 else f"boards {_format_sizes(s)}"


def describe_net(info: NetInfo) -> str:
    """What a net is, for a person who picked the wrong one: 'a freestyle net (two players,
    five in a row, trained on 15x15)'. Rules, players, win length and board sizes are the four
    things a net is trained for and can be wrong about, so all four are always named."""
    rules = "/".join(info.rules) or "no-rule"
    article = "an" if rules[0] in "aeiou" else "a"
    return (f"{article} {rules} net ({_count(info.players)} players, {_count(info.win_length)} in a row, "
            f"trained on {_boards_text(info.board_sizes)}{_fixed_text(info)})")


def net_fits_game(info: NetInfo, rule: str, width: int, height: int, win_length: int = 5, players: int = 2,
                  name: str = "the net", allow_any_size: bool = False) -> Optional[str]:
    """None when the net was trained for this game, else one line saying what the net is and
    what the game is: 'net X.onnx is a freestyle net (two players, five in a row, trained on
    15x15); this game is renju 15x15'.

    The brain, play, match and train all ask this before a game, so that a net that cannot
    serve the game is reported the same way everywhere (each caller adds what it does about it:
    the brain plays its classical engine). `rule` is a rule label (Rule.label); the game's
    player count and win length are named only where they differ from the net's, the rule and
    board always. `allow_any_size` is for callers that let a net play a size it did not train
    on (fully convolutional nets do), which then fits on rule, players and win length alone; a
    net with fully connected heads (`fixed_size`) fits its own board only, whatever the caller."""
    if info.fixed_size:
        sized = (width, height) == tuple(info.fixed_size)
    else:
        sized = allow_any_size or (width in info.board_sizes and height in info.board_sizes)
    if players == info.players and win_length == info.win_length and rule in info.rules and sized:
        return None
    game = f"{rule} {width}x{height}"
    if players != info.players:
        game += f", {_count(players)} players"
    if win_length != info.win_length:
        game += f", {_count(win_length)} in a row"
    return f"{name} is {describe_net(info)}; this game is {game}"
