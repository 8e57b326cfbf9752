"""Player specs on the command line -> Player objects, and the errors a referee tells apart.

One grammar for every kind of player, so `gomoku match`, `gomoku play` and training all
name opponents the same way: `KIND[:KEY=VALUE,...]`, the first value may come without its
key (`classical:3`, `pure-mcts:500`, `net.onnx:800`), `brain:COMMAND` for an external
Piskvork brain. The kinds and their keys (type, range, default, meaning) are one table,
`engine.match.specs.KINDS`; docs/players.md and `gomoku match --help` are rendered from it.

A parsed `PlayerSpec` carries typed values (`options`: what the spec gave; `value(key)`:
that, or the kind's default). The keys `time`, `nodes`, `depth` and `playouts` end up in
`PlayerSpec.limit_overrides`, which the match runner merges into the Limit it passes to
that player, so one match can give two players different budgets.

`parse_spec` validates without creating anything (cheap, runs in the parent process: files a
spec names are read once there, so a bad one fails before any game); `make_engine_player` creates
an in-process player (runs in whatever process will play the games). External brains are
started by `gomoku.protocol.players.make_player`, which handles `brain:` and hands every
other kind to this one: the engine never imports the protocol layer, and the match runner
takes the factory it should use as a setting (`GameSettings.factory`).

The error classes live here (not in protocol/) because the referee in `engine.match.arena`
must tell a crash from a time forfeit without importing the protocol client.
"""
from __future__ import annotations

import os
import random as _random
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Protocol, runtime_checkable

from gomoku.engine.base.limits import Limit, PlayResult
from gomoku.engine.game.rules import Rule
from gomoku.engine.match.specs import (BY_NAME as KIND_ROWS, BY_SPEC_KIND, SEARCH_KEYS, Kind, Value, kind_list,
                                       kind_named)
from gomoku.engine.search.params import Number, SearchParams, load_params

if TYPE_CHECKING:  # the board pulls in numba; a spec parser needs none of it
    from gomoku.engine.game.board import Board


#: in engine.match, not beside Limit in engine.base: its signature names the game's Rule and
#: Board, and the base layer imports nothing of the game
@runtime_checkable
class Player(Protocol):
    """Anything that can play a game: the classical engine, an ONNX net, an external brain.

    The match runner, the brain and `gomoku play` only ever talk to this interface."""

    name: str

    def new_game(self, width: int, height: int, rule: Rule) -> None: ...

    def play(self, board: "Board", limit: Limit) -> PlayResult: ...

    def close(self) -> None: ...


# ----------------------------------------------------------------------------- errors

class SpecError(ValueError):
    """A player spec that cannot be used; the message is one line for a person."""


class PlayerError(Exception):
    """A player failed to produce a move; the referee scores the game as lost."""


class PlayerCrashed(PlayerError):
    """The player's process died or an in-process player raised."""


class PlayerTimeout(PlayerError):
    """The player did not answer within its time budget plus the tolerance."""


class PlayerStartError(PlayerError):
    """The player could not be started (missing executable, no OK to START, ...)."""


class PlayerFactory(Protocol):
    """What the match runner calls to turn a spec into a Player (in the process that plays)."""

    def __call__(self, spec: PlayerSpec | str, *, tolerance: float = ..., start_timeout: float = ...,
                 info: tuple[tuple[str, str], ...] = ..., win_length: int = ...) -> Player: ...


class RandomPlayer:
    """Uniform random legal move (renju fouls excluded for black). Reseedable per game so
    results do not depend on which worker process played which game."""

    def __init__(self, seed: Optional[int] = None, name: str = "random") -> None:
        self.name = name
        self._rng = _random.Random(seed)

    def reseed(self, seed: int) -> None:
        self._rng.seed(seed)

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        pass

    def play(self, board: Any, limit: Limit) -> PlayResult:
        moves = board.legal_moves()
        if not moves:
            return PlayResult(None, {}, resigned=True)
        return PlayResult(self._rng.choice(moves), {"nodes": 0})

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------- specs

@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec. `text` is what the user typed and what worker processes get;
    `options` the typed values it gave (flat-mc's own select and radius among them)."""
    kind: str                       # random | classical | pure-mcts | onnx | random-net | brain
    text: str
    name: str
    arg: Optional[str] = None       # brain command line or .onnx path
    options: dict[str, Value] = field(default_factory=dict)
    eval_rule: Optional[str] = None  # the rule a classical spec's learned evaluator was trained for

    def value(self, key: str) -> Optional[Value]:
        """The spec's value of `key`, or its kind's default (engine.match.specs); None when
        neither says."""
        return self.options[key] if key in self.options else BY_SPEC_KIND[self.kind].default(key)

    def whole(self, key: str) -> Optional[int]:
        """`value(key)` of a whole-number key."""
        v = self.value(key)
        return None if v is None else int(v)

    def flag(self, key: str) -> bool:
        """`value(key)` of a switch (0/1) or on/off key."""
        return bool(self.value(key))

    def path(self, key: str) -> Optional[str]:
        """`value(key)` of a text or file key."""
        v = self.value(key)
        return None if v is None else str(v)

    @property
    def limit_overrides(self) -> dict[str, Any]:
        """Per-player Limit fields from the spec (`time` -> turn_time): the keys whose row
        names a Limit field."""
        return {row.limit: self.options[row.name] for row in BY_SPEC_KIND[self.kind].keys
                if row.limit and row.name in self.options}

    @property
    def search_params(self) -> SearchParams:
        """A classical spec's search parameters: the `params=FILE`'s, then the spec's own
        NAME=VALUE over them (the defaults for the rest)."""
        values: dict[str, Number] = {}
        if "params" in self.options:
            values.update(_load_params(str(self.options["params"]), self.text))
        if self.options.get("tss") is False:
            values["leaf_vcf"] = 0          # the leaves' VCF is threat-space search too
        values.update({k: v for k, v in self.options.items() if k in SEARCH_KEYS and not isinstance(v, str)})
        return SearchParams(values)

    def limit_for(self, base: Limit) -> Limit:
        """The match Limit with this player's overrides applied.

        A match's zero time per move means "as fast as the player's own search size allows":
        a player with a size (MCTS playouts, which every MCTS spec has, or nodes / depth) plays
        it out uncapped, since one playout or a static reply is not the player the user named;
        a player without one moves at once, as the protocol's `timeout_turn 0` says."""
        fields = dict(vars(base))
        fields.update(self.limit_overrides)
        if fields.get("turn_time") == 0 and "time" not in self.options and (
                self.kind in ("pure-mcts", "onnx", "random-net") or fields.get("nodes") or fields.get("depth")):
            fields["turn_time"] = None
        return Limit(**fields)


def _parse_options(kind: Kind, text: str, body: str) -> dict[str, Value]:
    """The typed values of a spec's `key=value,...` (the first may be a bare value: the
    kind's positional key), converted and range-checked by the kind's rows; SpecError with
    one line for a key the kind does not take or a value its row refuses."""
    raw: dict[str, str] = {}
    for i, part in enumerate(p.strip() for p in body.split(",") if body):
        if not part:
            continue
        if "=" not in part:
            if i == 0 and kind.positional:
                raw[kind.positional] = part
                continue
            raise SpecError(f"player spec {text!r}: expected key=value, got {part!r}")
        key, value = (s.strip() for s in part.split("=", 1))
        key = key.lower().replace("-", "_")
        if kind.key(key) is None:
            allowed = ", ".join(sorted(k.name for k in kind.keys if k.name not in SEARCH_KEYS))
            if any(k.name in SEARCH_KEYS for k in kind.keys):
                allowed += " or a search parameter (gomoku params lists them)"
            raise SpecError(f"player spec {text!r}: unknown option {key!r} for {kind.name} (use {allowed})")
        raw[key] = value
    opts: dict[str, Value] = {}
    for key, value in raw.items():
        row = kind.key(key)
        assert row is not None
        try:
            opts[key] = row.convert(value)
        except ValueError as exc:
            raise SpecError(f"player spec {text!r}: {exc}") from None
    return opts


def split_command(command: str, windows: bool = os.name == "nt") -> list[str]:
    """A brain command line as argv: POSIX shell quoting, or on Windows (where backslashes
    are path separators, not escapes) whitespace outside double quotes. Raises ValueError."""
    if not windows:
        return shlex.split(command)
    return [t[1:-1] if len(t) >= 2 and t[0] == t[-1] == '"' else t
            for t in shlex.split(command, posix=False)]


def _brain_argv(command: str, text: str) -> list[str]:
    try:
        argv = split_command(command)
    except ValueError as exc:
        raise SpecError(f"player spec {text!r}: cannot split the command: {exc}") from None
    if not argv:
        raise SpecError(f"player spec {text!r}: brain: needs a command, e.g. brain:./pbrain-x")
    exe = argv[0]
    if os.sep in exe or (os.altsep and os.altsep in exe):
        path = Path(exe).expanduser()
        if not path.is_file():
            raise SpecError(f"brain executable not found: {exe}")
        if not os.access(path, os.X_OK):
            raise SpecError(f"brain executable is not executable: {exe}")
    elif shutil.which(exe) is None:
        raise SpecError(f"brain executable not found on PATH: {exe}")
    return argv


def brain_name(argv: list[str]) -> str:
    """A readable default name: the executable's file name, or the script's when the
    executable is an interpreter (`python3 my_brain.py` -> my_brain)."""
    exe = Path(argv[0]).name
    if re.match(r"^(python[\d.]*|pypy[\d.]*|node|ruby|perl|java|sh|bash)$", exe) and len(argv) > 1:
        for a in argv[1:]:
            if not a.startswith("-"):
                return Path(a).stem
    return exe


def parse_spec(text: str) -> PlayerSpec:
    """Parse and validate a spec; raise SpecError with one line if it cannot be used."""
    raw = text.strip()
    if not raw:
        raise SpecError("empty player spec")
    low = raw.lower()
    if low.startswith("brain:"):
        command = raw[len("brain:"):].strip()
        argv = _brain_argv(command, raw)
        return PlayerSpec("brain", raw, brain_name(argv), arg=command)
    onnx_at = low.find(".onnx")
    if onnx_at >= 0 and (len(low) == onnx_at + 5 or low[onnx_at + 5] == ":"):
        path = raw[:onnx_at + 5]
        opts = _parse_options(KIND_ROWS["onnx"], raw, raw[onnx_at + 6:])
        p = Path(path).expanduser()
        if not p.is_file():
            raise SpecError(f"ONNX file not found: {path}")
        if not os.access(p, os.R_OK):
            raise SpecError(f"ONNX file is not readable: {path}")
        return PlayerSpec("onnx", raw, str(opts.get("name", p.stem)), arg=str(p), options=opts)
    word, _, body = raw.partition(":")
    kind = kind_named(word.strip().lower())
    if kind is None or kind.name in ("onnx", "critic", "brain"):
        raise SpecError(f"unknown player {raw!r}: use {kind_list()}")
    if kind.name == "random-net":
        return _parse_random_net(raw, body)
    opts = _parse_options(kind, raw, body)
    if kind.name in ("pure-mcts", "flat-mc"):
        if kind.name == "flat-mc":
            # the Fudan threat-space-search paper's flat Monte Carlo: rollout MCTS whose rows
            # default to no tree below the root, near the stones; its spec says so itself
            for key in ("select", "radius"):
                default = kind.default(key)
                if default is not None:
                    opts.setdefault(key, default)
            if opts.get("select") != "flat":
                raise SpecError(f"player spec {raw!r}: flat-mc searches flat; use pure-mcts for "
                                f"select={opts.get('select')}")
        name = f"{kind.name}-{opts['playouts']}" if "playouts" in opts else kind.name
        if kind.name == "pure-mcts" and opts.get("tactics") is False:
            name += "-t0"
        return PlayerSpec(kind.spec_kind, raw, str(opts.get("name", name)), options=opts)
    if kind.name == "random":
        return PlayerSpec(kind.spec_kind, raw, str(opts.get("name", "random")), options=opts)
    return _parse_classical(raw, opts)


def _parse_classical(raw: str, opts: dict[str, Value]) -> PlayerSpec:
    """A classical spec: its name from what it changes, and the files it names read once,
    here in the parent, so a bad file fails before any game."""
    if "name" in opts:
        name = str(opts["name"])
    else:
        parts = ["classical"]
        for key, prefix in (("level", "L"), ("depth", "d"), ("nodes", "n")):
            if key in opts:
                parts.append(f"{prefix}{opts[key]}")
        if "tables" in opts:
            parts.append(Path(str(opts["tables"])).stem)
        if "eval" in opts:
            parts.append(Path(str(opts["eval"])).name.split(".")[0])
        if "params" in opts:
            parts.append(Path(str(opts["params"])).stem)
        if opts.get("tss") is False:
            parts.append("notss")
        own = SearchParams({k: v for k, v in opts.items() if k in SEARCH_KEYS and not isinstance(v, str)}).label()
        if own:
            parts.append(own)
        name = "-".join(parts)
    if "tables" in opts:
        _load_tables(str(opts["tables"]), raw)
    if "params" in opts:
        _load_params(str(opts["params"]), raw)
    eval_rule = _load_learned(str(opts["eval"]), raw).rule if "eval" in opts else None
    return PlayerSpec("classical", raw, name, options=opts, eval_rule=eval_rule)


def _parse_random_net(raw: str, body: str) -> PlayerSpec:
    """`random-net:arch=ARCH[,seed=N,...]`: refused in one line without torch or with an
    architecture the trainer cannot build (asked of a child process: engine.match.random_net)."""
    from gomoku.engine.match.random_net import RandomNetError, check_arch, torch_missing
    kind = KIND_ROWS["random-net"]
    opts = _parse_options(kind, raw, body)
    if "arch" not in opts:
        raise SpecError(f"player spec {raw!r}: random-net needs arch=ARCH (any name gomoku train --arch takes)")
    why = torch_missing()
    if why:
        raise SpecError(f"player spec {raw!r}: {why}")
    arch = str(opts["arch"])
    try:
        check_arch(arch)
    except RandomNetError as exc:
        raise SpecError(f"player spec {raw!r}: {exc}") from None
    name = str(opts.get("name", f"random-{arch}-seed{opts.get('seed', kind.default('seed'))}"))
    return PlayerSpec("random-net", raw, name, options=opts)


def _load_tables(path: str, text: str) -> dict:
    """A spec's evaluation tables file, or SpecError with the reason in one line."""
    from gomoku.engine.search.evaluation import load_tables
    try:
        return load_tables(Path(path).expanduser())
    except ValueError as exc:
        raise SpecError(f"player spec {text!r}: {exc}") from None


def _load_params(path: str, text: str) -> dict:
    """A spec's search-parameter file (JSON), or SpecError with the reason in one line."""
    try:
        return load_params(path)
    except ValueError as exc:
        raise SpecError(f"player spec {text!r}: {exc}") from None


def _learned_by_rule(spec: PlayerSpec) -> dict:
    """A classical spec's learned evaluator by rule id, played at the spec's order= and
    share= where it gives them (checked when the spec was parsed), else at the file's."""
    ev = _load_learned(spec.path("eval") or "", spec.text)
    if "order" in spec.options:
        ev.order_weight = spec.whole("order")
    if "share" in spec.options:
        ev.share = spec.whole("share")
    return {ev.rule_id: ev}


def _load_learned(path: str, text: str) -> Any:
    """A spec's learned evaluator file (NAME.eval.npz, or NAME.onnx beside it), or SpecError."""
    from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
    try:
        return load_evaluator(evaluator_path(Path(path).expanduser()))
    except EvalFileError as exc:
        raise SpecError(f"player spec {text!r}: {exc}") from None


def _net_info(spec: PlayerSpec) -> Any:
    """The NetInfo of an `onnx` spec's file (metadata only: no session is kept), or SpecError."""
    from gomoku.engine.net.metadata import NetFormatError, NetInfo, read_metadata
    try:
        return NetInfo.from_metadata(read_metadata(spec.arg or "") or {}, source=spec.arg or "net")
    except NetFormatError as exc:
        raise SpecError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own errors for a file that is no net
        raise SpecError(f"{spec.arg}: not an ONNX net ({str(exc).splitlines()[0][:120]})") from None


def match_board(specs: tuple[PlayerSpec, ...] | list[PlayerSpec], default: int = 15) -> tuple[int, int]:
    """The board a match plays when no size is given: the one size every net among `specs` was
    trained for (15 when it is among several they share, or when no net names one), or the board
    of a board-size specific net (fully connected heads); SpecError when the nets name no common
    size, since then the user has to choose."""
    fixed = {_net_info(spec).fixed_size for spec in specs if spec.kind == "onnx"} - {None}
    if len(fixed) > 1:
        raise SpecError("the nets are board-size specific for different boards ("
                        + ", ".join(f"{w}x{h}" for w, h in sorted(fixed)) + "); no game fits both")
    if fixed:
        width, height = fixed.pop()
        return width, height
    common: Optional[set[int]] = None
    for spec in specs:
        if spec.kind == "onnx":
            sizes = set(_net_info(spec).board_sizes)
            common = sizes if common is None else common & sizes
    if common is None or default in common:
        return default, default
    if not common:
        raise SpecError("the nets were trained on different board sizes; choose one with --size")
    side = min(common, key=lambda s: (abs(s - default), s))
    return side, side


def check_game_fit(spec: PlayerSpec, width: int, height: int, rule: Rule, win_length: int = 5,
                   players: int = 2) -> list[str]:
    """Check, before any game, that a spec's net or learned evaluator fits the game: SpecError
    (one line saying what the file is and what the game is) when it cannot play it, and a list of
    one-line warnings for what it can play but was not trained on (another board size, a learned
    evaluator of another rule, which then leaves the search to the tables)."""
    rule = Rule(rule)
    if spec.kind == "onnx":
        from gomoku.engine.net.metadata import describe_net, net_fits_game
        info = _net_info(spec)
        why = net_fits_game(info, rule.label, width, height, win_length, players, name=spec.arg or "the net",
                            allow_any_size=True)
        if why:
            raise SpecError(why)
        if width not in info.board_sizes or height not in info.board_sizes:
            return [f"{spec.name} is {describe_net(info)}; it plays {width}x{height}, likely weaker"]
    if spec.eval_rule is not None and spec.eval_rule != rule.label:
        return [f"{spec.name}: the learned evaluator is for {spec.eval_rule}; in this {rule.label} game the "
                "search uses the hand-made tables"]
    return []


def _make_mcts_player(spec: PlayerSpec, win_length: int = 5, players: int = 2) -> Player:
    """Rollout MCTS (`pure-mcts:N`) or a net with MCTS (`FILE.onnx`), both from engine.mcts:
    the MCTSConfig fields are the spec's values of the rows that name one (their defaults
    are MCTSConfig's own). `players` is the game's seat count: a net must have been trained
    for it."""
    from gomoku.engine.mcts.player import MCTSPlayer
    from gomoku.engine.mcts.search import MCTSConfig
    fields: dict[str, Any] = {row.config: spec.value(row.name) for row in BY_SPEC_KIND[spec.kind].keys
                              if row.config and spec.value(row.name) is not None}
    seed = spec.whole("seed") or 0
    if spec.kind == "pure-mcts":
        cfg = MCTSConfig.pure(tactics=spec.flag("tactics"), **fields)
        return MCTSPlayer(cfg, None, name=spec.name, seed=seed, win_length=win_length, players=players,
                          use_solver=False)
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    try:
        net = NetEvaluator.load(spec.arg or "", threads=spec.whole("threads") or 1)
    except NetFormatError as exc:
        raise SpecError(str(exc)) from None
    if net.info.win_length != win_length or net.info.players != players:
        from gomoku.engine.net.metadata import describe_net
        raise SpecError(f"{spec.arg} is {describe_net(net.info)}; this game is {players} players, {win_length} "
                        "in a row")
    cfg = MCTSConfig(**fields)
    return MCTSPlayer(cfg, net, name=spec.name, seed=seed, win_length=net.info.win_length,
                      players=net.info.players, use_solver=spec.flag("solver"))


def _make_random_net_player(spec: PlayerSpec, win_length: int, players: int) -> Player:
    """The random net's player: its search is a FILE.onnx spec's with the same options, at
    the random-net rows' defaults (400 playouts and no threat solver: the re-implementation's
    opponent was the search over the net alone), built once the game's board says which file
    to load."""
    from gomoku.engine.match.random_net import RandomNetPlayer
    search: dict[str, Value] = {}
    for row in KIND_ROWS["random-net"].keys:
        value = spec.value(row.name)
        if row.name not in ("arch", "seed", "name") and value is not None:
            search[row.name] = value

    def over(path: str) -> Player:
        return _make_mcts_player(PlayerSpec("onnx", spec.text, spec.name, arg=path, options=search),
                                 win_length, players)
    return RandomNetPlayer(spec.path("arch") or "", spec.whole("seed") or 0, over, spec.name,
                           win_length=win_length, players=players)


def make_engine_player(spec: PlayerSpec | str, *, tolerance: float = 1.0, start_timeout: float = 10.0,
                info: tuple[tuple[str, str], ...] = (), win_length: int = 5, players: int = 2) -> Player:
    """Create the in-process player a spec describes. Raises SpecError for kinds not available
    yet, and for `brain:` (an external process: gomoku.protocol.players.make_player starts it).
    `tolerance`, `start_timeout` and `info` are for external brains; accepted here so every
    factory has one signature. `win_length` is the game's (4 only for MCTS players); `players`
    its seat count (other than 2 only for MCTS players and random: the classical engine and
    the Piskvork protocol know two colours)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if players != 2 and spec.kind in ("classical", "brain"):
        raise SpecError(f"{spec.name} plays two-player games only; use pure-mcts:N, random or a "
                        f"{players}-player net for {players} players")
    if win_length != 5 and spec.kind in ("classical", "brain"):
        raise SpecError(f"{spec.name} plays five in a row only; use pure-mcts:N or a net for {win_length} in a row")
    if spec.kind == "random":
        return RandomPlayer(spec.whole("seed"), name=spec.name)
    if spec.kind == "classical":
        from gomoku.engine.player.agent import EnginePlayer  # late: parsing specs must not load the search
        return EnginePlayer(level=spec.whole("level"), depth=spec.whole("depth"), nodes=spec.whole("nodes"),
                            name=spec.name,
                            tables=_load_tables(spec.path("tables") or "", spec.text) if "tables" in spec.options
                            else None,
                            learned=_learned_by_rule(spec) if "eval" in spec.options else None,
                            params=spec.search_params, threat_probes=spec.flag("tss"))
    if spec.kind == "onnx" and _net_info(spec).value_head == "critic":
        from gomoku.engine.net.critic import CriticPlayer
        from gomoku.engine.net.metadata import NetFormatError
        extra = sorted(set(spec.options) - {row.name for row in KIND_ROWS["critic"].keys})
        if extra:
            raise SpecError(f"player spec {spec.text!r}: an ADP critic plays one ply deep; "
                            f"{', '.join(extra)} has no meaning for it")
        try:
            return CriticPlayer(spec.arg or "", name=spec.name, threads=spec.whole("threads") or 1)
        except NetFormatError as exc:
            raise SpecError(str(exc)) from None
    if spec.kind in ("pure-mcts", "onnx"):
        return _make_mcts_player(spec, win_length, players)
    if spec.kind == "random-net":
        return _make_random_net_player(spec, win_length, players)
    if spec.kind == "brain":
        raise SpecError(f"{spec.text}: external brains are started by gomoku.protocol.players.make_player")
    raise SpecError(f"unknown player kind {spec.kind!r}")
