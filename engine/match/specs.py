"""The player-spec table: every kind of player a spec names, and every option each takes.

One declarative row per option (key, type, range, default, help), one `Kind` per spelling of
a player. `engine.match.players.parse_spec` converts and checks a spec's options with it,
the players are built from its typed values and defaults, and `gomoku match --help`, `gomoku
play --help` and docs/players.md are rendered from it (`kinds_help`, `table_markdown`), so
the grammar is written down once.

Defaults are not restated here: the MCTS kinds' come from `MCTSConfig` (`MCTSConfig.pure()`
for rollout MCTS), the classical kind's search parameters are the rows of
`engine.search.params.PARAMS` themselves (their default, range and meaning). What a kind does
differently is a default of its own in its rows (flat-mc's radius 2, random-net's 400
playouts and no solver), stated once, here.

This module imports neither numba nor numpy: a spec is checked in the parent process, and
`--help` renders, before any search is loaded.
"""
from __future__ import annotations

import dataclasses
import math
import textwrap
from dataclasses import dataclass
from typing import Callable, Optional, Union

from gomoku.engine.mcts.config import MCTSConfig
from gomoku.engine.search.blend import parse_share
from gomoku.engine.search.params import PARAMS, Param

#: a spec option's typed value
Value = Union[bool, int, float, str]
Number = Union[int, float]

#: what a row's `type` may be, and how the value is written in the help
TYPES = {"int": "N", "float": "X", "switch": "0|1", "onoff": "on|off", "choice": "", "text": "TEXT", "file": "FILE"}


@dataclass(frozen=True)
class Key:
    """One option of a spec, `name=value` after the colon.

    type: int and float (within lo..hi where given), switch (0 or 1, a bool), onoff (on or
    off, a bool), choice (one of `choices`), text, file (a path, read when the spec is
    checked). `default` is what the player uses when the spec leaves the key out; None
    when there is none (then `unset` says what happens). `limit` names the Limit field the
    key sets for this player alone (the match runner merges it); `config` the MCTSConfig
    field it sets; `convert_with` a converter of the key's own (a search parameter's)."""
    name: str
    type: str
    help: str
    default: Optional[Value] = None
    lo: Optional[Number] = None
    hi: Optional[Number] = None
    choices: tuple[str, ...] = ()
    unset: str = ""
    limit: Optional[str] = None
    config: Optional[str] = None
    convert_with: Optional[Callable[[str], Value]] = None
    metavar: str = ""

    def convert(self, text: str) -> Value:
        """The typed value of the spec's text; ValueError with a one-line reason."""
        if self.convert_with is not None:
            return self.convert_with(text)
        if self.type in ("text", "file"):
            return text
        if self.type == "choice":
            if text not in self.choices:
                raise ValueError(f"{self.name} must be {_either(self.choices)}, got {text!r}")
            return text
        if self.type == "onoff":
            if text not in ("on", "off"):
                raise ValueError(f"{self.name} must be on or off, got {text!r}")
            return text == "on"
        try:
            num: Number = float(text) if self.type == "float" else int(text)
        except ValueError:
            raise ValueError(f"{self.name} must be a number, got {text!r}") from None
        if self.type == "switch":
            if num not in (0, 1):
                raise ValueError(f"{self.name}={text} is out of range (0 or 1)")
            return bool(num)
        if math.isnan(num) or self.lo is not None and num < self.lo or self.hi is not None and num > self.hi:
            raise ValueError(f"{self.name}={text} is out of range ({self.range_text()})")
        return num

    def range_text(self) -> str:
        """The values the key takes, for people: '0..5', 'at least 1', 'puct, ucb1 or plain'."""
        if self.type == "choice":
            return _either(self.choices)
        if self.type in ("switch", "onoff"):
            return TYPES[self.type].replace("|", " or ")
        if self.lo is not None and self.hi is not None:
            return f"{_fmt(self.lo)}..{_fmt(self.hi)}"
        if self.lo is not None:
            return f"at least {_fmt(self.lo)}"
        return ""

    def usage(self) -> str:
        """`name=N`, `select=puct|ucb1|plain`: the key as the help writes it."""
        meta = self.metavar or ("|".join(self.choices) if self.type == "choice" else TYPES[self.type])
        return f"{self.name}={meta}"

    def default_text(self) -> str:
        """The default as a spec would write it ('' when there is none)."""
        if self.default is None:
            return ""
        if isinstance(self.default, bool):
            return ("on" if self.default else "off") if self.type == "onoff" else str(int(self.default))
        return _fmt(self.default) if isinstance(self.default, (int, float)) else str(self.default)


@dataclass(frozen=True)
class Kind:
    """One spelling of a player: `usage` and `summary` for the help, the `keys` it takes,
    the key a bare first value is (`pure-mcts:500`: playouts), and the PlayerSpec.kind it
    parses to (flat-mc is pure-mcts with rows of its own; an ADP critic is an onnx file
    whose metadata says so)."""
    name: str
    usage: str
    summary: str
    keys: tuple[Key, ...]
    spec_kind: str
    positional: Optional[str] = None
    aliases: tuple[str, ...] = ()
    more: str = ""                       # a last help line: what the rows do not say
    many_seats: bool = False             # sits at a board of three or four players too

    def key(self, name: str) -> Optional[Key]:
        """The row of `name`, or None when this kind has no such key."""
        return next((k for k in self.keys if k.name == name), None)

    def default(self, name: str) -> Optional[Value]:
        """What the player uses for `name` when the spec leaves it out."""
        row = self.key(name)
        return None if row is None else row.default


def _either(words: tuple[str, ...]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _fmt(v: Number) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _param_key(p: Param) -> Key:
    """A search parameter as a classical key: its default, range and meaning, converted by
    the parameter itself (engine.search.params is the table of them)."""
    return Key(p.name, "float" if p.kind is float else "switch" if p.kind is bool else "int", p.meaning,
               default=p.default, lo=p.lo, hi=p.hi, convert_with=p.convert)


# ----------------------------------------------------------------------------- rows

def _name(own: str) -> Key:
    return Key("name", "text", "the player's name in reports and records", unset=own)


def _time() -> Key:
    return Key("time", "float", "seconds a move for this player alone", lo=0, limit="turn_time", metavar="S",
               unset="the match's -t")


def _nodes(what: str) -> Key:
    return Key("nodes", "int", what, lo=1, limit="nodes", unset="the match's --nodes")


def _mcts_keys(cfg: MCTSConfig, seed_help: str = "the search's seed (a match reseeds it every game)",
               seed: Value = 0) -> tuple[Key, ...]:
    """The rows both MCTS kinds share, with the defaults of `cfg`."""
    return (
        Key("playouts", "int", "playouts a move", default=cfg.playouts, lo=1, limit="playouts", config="playouts"),
        Key("c_puct", "float", "exploration constant of the selection rule", default=cfg.c_puct, lo=0,
            config="c_puct", metavar="C"),
        Key("radius", "int", "children only within R cells of a stone (0: every empty cell)", default=cfg.radius,
            lo=0, hi=5, config="radius", metavar="R"),
        Key("temperature", "float", "0: play the most visited move; 1: in proportion to the visits",
            default=cfg.temperature, lo=0, config="temperature", metavar="T"),
        Key("move_noise", "float", "share of Dirichlet noise mixed into the move choice (the UCAS Gobang paper)",
            default=cfg.move_noise, lo=0, hi=1, config="move_noise", metavar="E"),
        Key("draw", "float", "what a draw is worth to each side (below 0: play for a win)", default=cfg.draw_value,
            lo=-1, hi=1, config="draw_value", metavar="D"),
        Key("seed", "int", seed_help, default=seed),
    )


def _select(cfg: MCTSConfig, flat: bool) -> Key:
    choices = ("puct", "ucb1", "plain") + (("flat",) if flat else ())
    return Key("select", "choice", "selection rule: puct (AlphaZero), ucb1 (no prior), plain (Q + P / (1 + n))"
               + (", flat (no tree below the root)" if flat else ""), default=cfg.select, choices=choices,
               config="select")


def _net_only(cfg: MCTSConfig) -> tuple[Key, ...]:
    return (
        Key("fpu", "float", "an unvisited child's value: its parent's less this", default=cfg.fpu, lo=0,
            config="fpu"),
        Key("batch", "int", "leaves a net call evaluates together", default=cfg.batch, lo=1, config="batch"),
        _threads(),
        Key("solver", "onoff", "the threat solvers (VCF, then df-pn VCT) before and after the tree search",
            default=True),
    )


def _threads() -> Key:
    return Key("threads", "int", "onnxruntime threads of the net", default=1, lo=1)


def _pure_keys(cfg: MCTSConfig, own_name: str) -> tuple[Key, ...]:
    """Rollout MCTS's rows with the defaults of `cfg` (pure-mcts's, or flat-mc's)."""
    return _mcts_keys(cfg) + (_select(cfg, flat=True), Key(
        "tactics", "switch", "0: the tree knows the rules only and is new every move (AlphaZero_Gomoku's "
        "mcts_pure)", default=cfg.tactics), _time(), _nodes("playouts a move at most"), _name(own_name))


_PURE = MCTSConfig.pure()
#: flat-mc is rollout MCTS searching flat near the stones (the Fudan paper's flat Monte Carlo)
_FLAT = dataclasses.replace(_PURE, select="flat", radius=2)
_NET = MCTSConfig()
_NET_KEYS = _mcts_keys(_NET) + (_select(_NET, flat=False),) + _net_only(_NET) + (
    _time(), _nodes("playouts a move at most"), _name("the file's name"))

#: a random net searches as a FILE.onnx spec does, with the re-implementation's defaults: 400
#: playouts and no threat solver (its opponent was the search over the net alone)
_RANDOM_NET_SEARCH = {"playouts": 400, "solver": False}

KINDS: tuple[Kind, ...] = (
    Kind("random", "random[:SEED]", "uniform random legal moves (a floor to measure from)",
         (Key("seed", "int", "its seed (a match reseeds it every game)", unset="fresh randomness"),
          _name("random")), "random", positional="seed", many_seats=True),
    Kind("classical", "classical[:LEVEL]", "the alpha-beta engine",
         (Key("level", "int", "1 static one-ply choice, 2..5 searches of 2k, 20k, 100k, 400k nodes, 6 full "
                              "strength", lo=1, hi=6, unset="full strength"),
          Key("depth", "int", "plies a move", lo=1, limit="depth", unset="the match's --depth"),
          _nodes("nodes a move"), _time(),
          Key("tables", "file", "the evaluation tables of FILE (gomoku tune --out)", unset="the shipped tables"),
          Key("params", "file", "the search parameters of a JSON file (NAME=VALUE after it wins)"),
          Key("tss", "switch", "0: no threat-space search (no VCF / VCT at the root, no VCF at the leaves): the "
                               "Fudan paper's Minimax", default=True),
          Key("eval", "file", "a learned evaluator (NAME.eval.npz, or the NAME.onnx it was exported beside), "
                              "under the rule it was trained for"),
          Key("order", "int", "eval=: its policy's weight in move ordering", metavar="W", unset="the file's"),
          Key("share", "int", "eval=: the percent of the leaf value it gives, the tables the rest", lo=0, hi=100,
              metavar="P", unset="the file's", convert_with=parse_share),
          _name("classical-L3-d6-...")) + tuple(_param_key(p) for p in PARAMS),
         "classical", positional="level",
         more="NAME=VALUE: any search parameter (gomoku params lists them)"),
    Kind("pure-mcts", "pure-mcts[:N]", "rollout MCTS", _pure_keys(_PURE, "pure-mcts-N"), "pure-mcts",
         positional="playouts", aliases=("pure_mcts", "puremcts", "mcts"), many_seats=True),
    Kind("flat-mc", "flat-mc[:N]", "flat Monte Carlo (no tree below the root, the Fudan paper's), near the stones",
         _pure_keys(_FLAT, "flat-mc-N"), "pure-mcts", positional="playouts", aliases=("flat_mc", "flatmc"),
         many_seats=True),
    Kind("onnx", "FILE.onnx[:N]", "a policy-value net with MCTS (gomoku train)", _NET_KEYS, "onnx",
         positional="playouts", many_seats=True),
    Kind("critic", "FILE.onnx", "an ADP critic (gomoku train --arch adp): one ply deep over the cells near "
                                "the stones", (_threads(), _time(), _name("the file's name")), "onnx"),
    Kind("random-net", "random-net:arch=ARCH", "an untrained net (torch seed N) with MCTS",
         (Key("arch", "text", "any architecture gomoku train --arch takes", metavar="ARCH"),)
         + tuple(dataclasses.replace(k, default=_RANDOM_NET_SEARCH.get(k.name, k.default))
                 for k in _NET_KEYS if k.name not in ("seed", "name"))
         + (Key("seed", "int", "the net's torch seed", default=1), _name("random-ARCH-seedN")),
         "random-net", positional="arch", aliases=("random_net", "randomnet")),
    Kind("brain", "brain:COMMAND", "an external Piskvork brain (COMMAND is split like a shell)", (), "brain"),
)

BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
#: the row of defaults for each PlayerSpec.kind (flat-mc's own values are written into its options)
BY_SPEC_KIND: dict[str, Kind] = {"random": BY_NAME["random"], "classical": BY_NAME["classical"],
                                 "pure-mcts": BY_NAME["pure-mcts"], "onnx": BY_NAME["onnx"],
                                 "random-net": BY_NAME["random-net"], "brain": BY_NAME["brain"]}
#: the PlayerSpec kinds that can sit at a board of three or four players
MANY_SEAT_KINDS = tuple(dict.fromkeys(k.spec_kind for k in KINDS if k.many_seats))
#: the search parameters among the classical keys
SEARCH_KEYS = frozenset(p.name for p in PARAMS)


def kind_named(word: str) -> Optional[Kind]:
    """The kind a spec's first word names (aliases too), or None."""
    return next((k for k in KINDS if word == k.name or word in k.aliases), None)


def kind_list(seats: int = 2) -> str:
    """Every kind's usage in one line, what an error or a short help offers (an ADP critic is
    spelt as any net is); with `seats` above 2, the kinds that can sit at such a game."""
    return _either(tuple(k.usage for k in KINDS if k.name != "critic" and (seats == 2 or k.many_seats)))


# ----------------------------------------------------------------------------- help

def _row_words(key: Key) -> str:
    """`radius=0..5 [0]`, `playouts=N [1000]`: a key with its range where it has two ends and
    its default, for the compact help."""
    text = key.usage()
    if key.type in ("int", "float") and key.lo is not None and key.hi is not None:
        text = f"{key.name}={key.range_text()}"
    return text + (f" [{key.default_text()}]" if key.default is not None else "")


def kinds_help(width: int = 76) -> str:
    """The players and their keys as `gomoku match --help` shows them: each kind's usage and
    summary, then its keys as `key=VALUE [default]` (the search parameters in one phrase),
    wrapped to `width`. click keeps the layout of a paragraph that starts with \\b."""
    limits = list(dict.fromkeys(k.name for kind in KINDS for k in kind.keys if k.limit))
    lines = ["\b", "Players: KIND[:KEY=VALUE,...], the first value may come without its key;",
             f"{', '.join(limits[:-1])} and {limits[-1]} are that player's own limits. [default]"]
    for kind in KINDS:
        lines += textwrap.wrap(f"{kind.usage:<22} {kind.summary}", width, initial_indent="  ",
                               subsequent_indent=" " * 25, break_on_hyphens=False)
        body = ", ".join(_row_words(k) for k in kind.keys if k.name not in SEARCH_KEYS)
        body += f"; {kind.more}" if kind.more else ""
        lines += textwrap.wrap(body, width, initial_indent=" " * 6, subsequent_indent=" " * 6,
                               break_on_hyphens=False)
    return "\n".join(lines)


def table_markdown() -> str:
    """Every kind and key as markdown tables (docs/players.md is this text)."""
    out = ["# Player specs", "",
           "A player is named the same way by `gomoku match`, `gomoku play --opponent`, `--seats` and",
           "training's opponents: `KIND[:KEY=VALUE,...]`, the first value may come without its key",
           "(`classical:3`, `pure-mcts:500`). Generated from the table in `engine/match/specs.py`",
           "(`python -m gomoku.engine.match.specs > docs/players.md`); the defaults are the engine's own.",
           "The keys `time`, `nodes`, `depth` and `playouts` set that player's limits alone.", ""]
    for kind in KINDS:
        out += [f"## `{kind.usage}`", "", kind.summary[0].upper() + kind.summary[1:] + "."
                + (f" The first value is `{kind.positional}`." if kind.positional else ""), ""]
        rows = [k for k in kind.keys if k.name not in SEARCH_KEYS]
        if rows:
            out += ["| key | values | default | meaning |", "|---|---|---|---|"]
            for k in rows:
                values = k.range_text() or {"int": "whole number", "float": "number", "file": "path"}.get(k.type,
                                                                                                         "text")
                default = f"`{k.default_text()}`" if k.default is not None else k.unset
                usage = k.usage().replace("|", r"\|")      # a pipe in a code span still splits a cell
                out.append(f"| `{usage}` | {values} | {default} | {k.help} |")
            out.append("")
        if kind.name == "classical":
            out += ["Search parameters (`gomoku params` lists them, with SPSA's steps):", "",
                    "| key | values | default | meaning |", "|---|---|---|---|"]
            out += [f"| `{k.name}` | {k.range_text()} | `{k.default_text()}` | {k.help} |"
                    for k in kind.keys if k.name in SEARCH_KEYS]
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(table_markdown())
