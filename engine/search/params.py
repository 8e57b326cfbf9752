"""Every constant and switch of the alpha-beta search, in one typed table.

Each entry has a name, a default, a range, an SPSA step and one line of meaning. A player's
values travel as a `SearchParams` (a frozen mapping) into its own search context
(`tables.apply_params`), where the jitted search reads them per node: nothing here is a module
global the compiler freezes, so two players in one process differ only by their parameters,
and a tuner can change any of them without a recompile.

This module imports neither numba nor numpy: a player spec (`classical:lmr_div=1.6`) is checked
with it in the parent process before any search is loaded.

Units: scores are the evaluation's (an open three is worth about 2 x 2500; K, the logistic
scale of a score to a winning chance, is about 1000, some five times Rapfi's); depths and move
numbers are plies and counts.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Union

from gomoku.engine.base.fileio import cannot_read

Number = Union[int, float]


@dataclass(frozen=True)
class Param:
    """One search parameter: `kind` int, float or bool (a 0/1 switch)."""
    name: str
    default: Number
    lo: Number
    hi: Number
    step: float          # SPSA's perturbation for this parameter (c_k at the start)
    meaning: str
    kind: type = int

    def convert(self, value: Union[str, Number]) -> Number:
        """The typed value of a spec's text (or a JSON number); ValueError with one line."""
        try:
            if self.kind is float:
                num: Number = float(value)
                if not math.isfinite(num):
                    raise ValueError
            else:
                f = float(value)
                if f != int(f):
                    raise ValueError
                num = int(f)
        except (TypeError, ValueError):
            want = "a number" if self.kind is float else "a whole number"
            raise ValueError(f"{self.name} must be {want}, got {value!r}") from None
        if not self.lo <= num <= self.hi:
            raise ValueError(f"{self.name}={value} is out of range ({_fmt(self.lo)}..{_fmt(self.hi)})")
        return num


#: The table. Defaults are the search as it plays today; a change to a default is a search
#: change, kept only when an SPRT accepts it (docs/strength.md).
PARAMS: tuple[Param, ...] = (
    Param("lmr", 1, 0, 1, 1, "late-move reductions on (1) or off", bool),
    Param("lmr_div", 2.0, 0.5, 8.0, 0.15, "LMR: reduce log(depth) * log(moves searched) / lmr_div plies", float),
    Param("lmr_min_moves", 2, 1, 16, 1, "LMR: moves searched at full depth before any is reduced"),
    Param("lmr_min_depth", 2, 1, 16, 1, "LMR: least remaining depth at which late moves are reduced"),
    Param("lmr_pv", 1, 0, 4, 1, "LMR: plies less reduction at PV nodes"),
    Param("prune", 1, 0, 1, 1, "move quotas, futility, reverse futility and razoring on (1) or off", bool),
    Param("rfp_margin", 120, 0, 5000, 15, "reverse futility: static eval beats beta by this per ply: return it"),
    Param("rfp_depth", 6, 0, 32, 1, "reverse futility: up to this remaining depth"),
    Param("razor_margin", 150, 0, 5000, 15, "razoring: static eval this far per ply below alpha: drop to the leaf"),
    Param("razor_depth", 4, 0, 32, 1, "razoring: up to this remaining depth"),
    Param("futility_1", 150, 0, 5000, 15, "futility margin one ply from the leaves: quiet moves cannot lift this"),
    Param("futility_2", 350, 0, 5000, 25, "futility margin two plies from the leaves"),
    Param("futility_3", 600, 0, 5000, 40, "futility margin three plies from the leaves"),
    Param("mc_quiet_a", 15.0, 0.0, 64.0, 1.0, "move quota where nothing threatens: a * sqrt(depth) - b", float),
    Param("mc_quiet_b", 12.0, -32.0, 64.0, 1.0, "... its b", float),
    Param("mc_quiet_cap", 32, 1, 64, 2, "... at most this many moves"),
    Param("mc_noisy_a", 5.0, 0.0, 64.0, 0.5, "move quota where a three or four is on the board: a * sqrt(depth) - b",
          float),
    Param("mc_noisy_b", 2.0, -32.0, 64.0, 0.5, "... its b", float),
    Param("mc_noisy_cap", 8, 1, 64, 1, "... at most this many moves"),
    Param("late_ply", 2, 0, 16, 1, "from this ply on the quotas count every move, threats too (else quiet only)"),
    Param("width", 32, 0, 400, 2, "candidates past which quiet moves are searched only while all so far lose (0: all)"),
    Param("leaf_vcf", 3, 0, 16, 1, "fours the leaf's VCF probe may play where a four-three is on offer (0: off)"),
    Param("aspiration", 0, 0, 5000, 25, "root aspiration window around the last iteration's score (0: full window)"),
    Param("asp_depth", 5, 1, 32, 1, "aspiration: from this iteration on"),
    Param("hist_malus", 0, 0, 1, 1, "at a quiet cut-off, the quiet moves searched before it lose history (1: on)",
          bool),
    Param("lmr_hist", 0, 0, 100_000, 500, "LMR: one ply less reduction per this much history (0: off)"),
    Param("rfp_improving", 0, 0, 1, 1, "reverse futility: one ply less margin where the static eval improved on "
          "the side's last one (1: on)", bool),
    Param("mc_not_improving", 100, 10, 100, 5, "move quota in percent where the static eval did not improve on the "
          "side's last one (100: off)"),
    Param("lmr_not_improving", 0, 0, 4, 1, "LMR: plies more reduction at non-PV nodes whose static eval did not "
          "improve (0: off)"),
    Param("lmr_alpha_raised", 1, 0, 2, 1, "LMR: plies more reduction for the late moves of a node where an "
          "earlier move raised alpha without a cut-off (0: off)"),
    Param("lmr_alpha_calm", 0, 0, 1, 1, "LMR: lmr_alpha_raised for the calm moves only (none that makes or stops "
          "a three or four; 1: on)", bool),
    Param("iir_depth", 4, 0, 32, 1, "internal iterative reduction: a node with no TT move and at least this much "
          "depth left searches one ply less (0: off)"),
    Param("fh_margin", 0, 0, 5000, 10, "fail-high reduction: at a cut node whose static eval beats beta by this per "
          "ply, the moves that make no four search one ply less (0: off)"),
    Param("lmr_cut", 0, 0, 3, 1, "LMR: plies more reduction for late moves other than the killers at cut nodes "
          "(0: off)"),
    Param("lmr_deeper", 0, 0, 5000, 20, "LMR: a reduced move whose score beats alpha by this much is re-searched a ply "
          "deeper than unreduced (0: off)"),
    Param("lmr_deeper_max", 4, 0, 16, 1, "LMR: at most this many such deeper re-searches on one line"),
)

BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}


class SearchParams(Mapping[str, Number]):
    """One player's parameter values: every name of PARAMS, typed and in range. Immutable
    and hashable, so a player can hold one and a context can tell whether it changed."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Union[str, Number]] | None = None) -> None:
        merged: dict[str, Number] = {p.name: p.default for p in PARAMS}
        for key, value in (values or {}).items():
            name = key.strip().lower().replace("-", "_")
            if name not in BY_NAME:
                raise ValueError(f"unknown search parameter {key!r} (gomoku params lists them)")
            merged[name] = BY_NAME[name].convert(value)
        self._values = tuple(merged[p.name] for p in PARAMS)

    def __getitem__(self, name: str) -> Number:
        try:
            return self._values[_INDEX[name]]
        except KeyError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(p.name for p in PARAMS)

    def __len__(self) -> int:
        return len(PARAMS)

    def __hash__(self) -> int:
        return hash(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SearchParams) and other._values == self._values

    def __repr__(self) -> str:
        return f"SearchParams({self.changed()!r})"

    def replace(self, **values: Union[str, Number]) -> "SearchParams":
        """These values with some changed (checked like a spec's)."""
        return SearchParams({**dict(self), **values})

    def changed(self) -> dict[str, Number]:
        """The values that differ from the defaults, in table order."""
        return {p.name: v for p, v in zip(PARAMS, self._values) if v != p.default}

    def label(self) -> str:
        """The changed values as `name=value,...` ('' for the defaults): a player's name part."""
        return ",".join(f"{k}={_fmt(v)}" for k, v in self.changed().items())


_INDEX = {p.name: i for i, p in enumerate(PARAMS)}
DEFAULT = SearchParams()


def _fmt(v: Number) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def load_params(path: Union[str, Path]) -> dict[str, Number]:
    """The parameters of a JSON file (`{"lmr_div": 1.6, ...}`, or such an object under a
    "params" key, as `gomoku tune --spsa` writes it), checked; ValueError with one line."""
    p = Path(path).expanduser()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(cannot_read("parameter", path, exc)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a JSON parameter file ({str(exc).splitlines()[0]})") from None
    if isinstance(data, dict) and isinstance(data.get("params"), dict):
        data = data["params"]
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of name: value")
    try:
        checked = SearchParams(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return {name: checked[name] for name in (k.strip().lower().replace("-", "_") for k in data)}


def save_params(path: Union[str, Path], params: SearchParams, extra: Mapping[str, object] | None = None) -> None:
    """Write the changed values (and `extra` beside them) as JSON, atomically."""
    from gomoku.engine.base.fileio import write_atomic
    body = {"params": params.changed(), **dict(extra or {})}
    write_atomic(path, json.dumps(body, indent=1) + "\n")


def table_text() -> str:
    """The table for people (`gomoku params`)."""
    rows = [("name", "default", "range", "step", "meaning")]
    for p in PARAMS:
        rows.append((p.name, _fmt(p.default), f"{_fmt(p.lo)}..{_fmt(p.hi)}", f"{p.step:g}", p.meaning))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows)
