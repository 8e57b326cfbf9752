"""The small vocabulary every player speaks: a Limit in, a PlayResult out.

Shared by in-process engines, the Piskvork brain and external brains driven over a pipe
(python-chess style), so the match runner treats them all the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

UNLIMITED_MS = 2147483647

#: what plays when no net does, as the brain's ABOUT and MESSAGE lines and the play screen say it
CLASSICAL_SEARCHER = "classical alpha-beta + VCF/VCT"


@dataclass
class Limit:
    """How much a player may think for one move.

    All times are in seconds (floats); None means "not limited by this". `turn_time` and
    `time_left` follow the protocol: a per-move cap and what is left of the game clock.
    `turn_time == 0` means "move as fast as possible". `hard_time` is for a caller that made
    its own deadlines (the brain, from the protocol's clocks): then `turn_time` is when the
    search stops and `hard_time` when the move's last checks must end, both used as they are
    (engine.base.timeman.search_deadlines turns every Limit into deadlines).
    """
    turn_time: Optional[float] = None
    time_left: Optional[float] = None
    match_time: Optional[float] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    playouts: Optional[int] = None
    max_memory: Optional[int] = None   # bytes; None/0 = default
    hard_time: Optional[float] = None


#: the record's own fields, in the order the brain's MESSAGE line names them
_FIELDS = ("searcher", "depth", "score", "winrate", "nodes", "playouts", "time", "nps", "pv", "proof")


@dataclass
class SearchInfo:
    """What a player said about its move, typed, with the one wording every front end uses.

    Players may still hand PlayResult a plain dict (the external brain, the engines); it is
    turned into this record, and the record answers `info["depth"]`, `info.get("score")` and
    `"proof" in info` as that dict did, so readers written against the dict keep working.
    A field counts as present when it is not None; keys with no field land in `extra`.
    """
    searcher: Optional[str] = None          # what searched, for people
    depth: Optional[int] = None             # iterations (alpha-beta) or principal line length (MCTS)
    score: Union[int, str, None] = None     # centi-stones from the mover's view, or "win"/"loss"
    winrate: Optional[float] = None         # the mover's expected result in [0, 1] (MCTS)
    nodes: Optional[int] = None
    playouts: Optional[int] = None
    time: Optional[float] = None            # seconds spent
    nps: Optional[int] = None
    pv: Optional[list[tuple[int, int]]] = None
    proof: Optional[str] = None             # "vcf"/"vct" when a solver proved the win
    extra: dict[str, Any] = field(default_factory=dict)   # visits, evals, vetoed, messages, ...

    @classmethod
    def of(cls, info: Union["SearchInfo", Mapping[str, Any], None]) -> "SearchInfo":
        """The record for `info` (itself when it already is one)."""
        if isinstance(info, SearchInfo):
            return info
        known = {k: v for k, v in (info or {}).items() if k in _FIELDS}
        return cls(**known, extra={k: v for k, v in (info or {}).items() if k not in _FIELDS})

    # -- the dict's reading interface ------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        if key in _FIELDS:
            value = getattr(self, key)
            return default if value is None else value
        return self.extra.get(key, default)

    def __getitem__(self, key: str) -> Any:
        if key not in self:
            raise KeyError(key)
        return self.get(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key in _FIELDS:
            setattr(self, key, value)
        else:
            self.extra[key] = value

    def __contains__(self, key: object) -> bool:
        return getattr(self, key) is not None if key in _FIELDS else key in self.extra

    # -- the one formatter -----------------------------------------------------------------
    def score_text(self, signed: bool = False) -> Optional[str]:
        """The score as people read it: '+35' (signed) or '35', 'win', 'loss'; None if absent."""
        if self.score is None:
            return None
        return f"{self.score:+d}" if signed and isinstance(self.score, int) else str(self.score)

    def message(self, move_text: Callable[[tuple[int, int]], str]) -> Optional[str]:
        """The brain's MESSAGE line ('rollout MCTS depth 7 eval -35 winrate 0.4 nodes 12345
        time 0.50 pv 7,7 8,8', at most ten moves of pv in `move_text`'s notation), or None for
        an instant or forced move, which has nothing worth telling."""
        if not self.depth or not self.nodes:
            return None
        parts = [str(self.searcher)] if self.searcher else []
        parts.append(f"depth {self.depth}")
        for label, text in (("eval", self.score_text()), ("winrate", self.winrate), ("nodes", self.nodes)):
            if text is not None:
                parts.append(f"{label} {text}")
        if self.time is not None:
            try:
                parts.append(f"time {float(self.time):.2f}")
            except (TypeError, ValueError):
                pass
        if self.pv:
            try:
                parts.append("pv " + " ".join(move_text(m) for m in list(self.pv)[:10]))
            except (TypeError, ValueError, IndexError):
                pass
        return " ".join(parts)

    def summary(self, whose: str = "") -> str:
        """The terminal's words after a move (', depth 9, its score +35, 12k nodes, value
        0.56'), empty when the player said nothing; the score is the mover's, so `whose` ('its'
        after the engine's move, 'your' for a hint) says so. Short, because `gomoku play`
        shows it on one 80-column line after 'classical played g8 (6,7) in 0.99 s' (the former
        'score -789 for classical, 799.1k nodes' wrapped there). MCTS players give playouts,
        which are counted instead of nodes."""
        parts = []
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        score = self.score_text(signed=True)
        if score is not None:
            parts.append(f"{whose} score {score}" if whose else f"score {score}")
        if self.playouts:
            parts.append(f"{int(self.playouts)} playouts")
        elif self.nodes:
            parts.append(f"{_count(int(self.nodes))} nodes")
        if self.winrate is not None:
            parts.append(f"value {float(self.winrate):.2f}")
        return (", " + ", ".join(parts)) if parts else ""


def _count(n: int) -> str:
    """A count in at most four characters of digits: 950, 1.2k, 799k, 1.2M."""
    if n < 1000:
        return str(n)
    if n < 9_950:
        return f"{n / 1000:.1f}k"
    if n < 999_500:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.1f}M"


@dataclass(init=False)
class PlayResult:
    """A move and what the player said about it.

    `move` is (x, y) with x the column and y the row, 0-based, or None when the player
    resigned or failed. `info` is a SearchInfo; a dict given here is turned into one.
    The constructor is written out so that its type says so: a generated one would take
    only a SearchInfo, and the players hand it dicts.
    """
    move: Optional[tuple[int, int]]
    info: SearchInfo
    resigned: bool

    def __init__(self, move: Optional[tuple[int, int]],
                 info: Union[SearchInfo, Mapping[str, Any], None] = None, resigned: bool = False) -> None:
        self.move = move
        self.info = SearchInfo.of(info)
        self.resigned = resigned

