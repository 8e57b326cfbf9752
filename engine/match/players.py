"""Player specs on the command line -> Player objects, and the errors a referee tells apart.

One grammar for every kind of player, so `gomoku match`, `gomoku play` and training all
name opponents the same way::

    random[:seed=N]                       uniform random legal moves (a floor to measure from)
    classical[:LEVEL]                     the alpha-beta engine at a level
    classical:depth=N | classical:nodes=N [,level=L]
    classical:tables=FILE                 ... with the evaluation tables of FILE (`gomoku tune --out`)
    classical:NAME=VALUE,...              ... with search parameters changed (`gomoku params` lists them)
    classical:params=FILE                 ... with the search parameters of a JSON file (NAME=VALUE after it wins)
    classical:tss=0                       ... without threat-space search (no VCF / VCT probes at
                                          the root, no VCF at the leaves): the Fudan paper's Minimax
    classical:eval=FILE[,order=W,share=P] ... with a learned evaluator (NAME.eval.npz, or the NAME.onnx
                                          it was exported beside) under the rule it was trained for;
                                          W: its policy's weight in move ordering, P: the percent of
                                          the leaf value it gives, the tables the rest (defaults: the file's)
    pure-mcts:N | pure-mcts:playouts=N[,c_puct=C]      rollout MCTS
    pure-mcts:N,tactics=0                 ... as AlphaZero_Gomoku's mcts_pure: no exact win or block
    flat-mc:N[,radius=R,seed=S]                        flat Monte Carlo (no tree below the root)
    PATH.onnx[:playouts=N,c_puct=C,move_noise=E,draw=D,...]   neural MCTS
    PATH.onnx                             an ADP critic (`gomoku train --arch adp`): one ply deep over
                                          the cells near the stones (engine.net.critic)
    random-net:arch=ARCH[,seed=N,playouts=P,...]   an untrained net (torch seed N) with MCTS
    brain:COMMAND                         an external Piskvork brain (COMMAND is split like a shell)

Options every in-process kind accepts after the colon, comma separated: `name=TEXT`,
`time=SECONDS` (per-move time for this player only), `nodes=N`, `depth=N`, `playouts=N`.
They end up in `PlayerSpec.limit_overrides`, which the match runner merges into the Limit it
passes to that player, so one match can give two players different budgets.

`parse_spec` validates without creating anything (cheap, runs in the parent process);
`make_player` creates an in-process player (runs in whatever process will play the games).
External brains are started by `gomoku.protocol.players.make_player`, which handles `brain:`
and hands every other kind to this one: the engine never imports the protocol layer, and the
match runner takes the factory it should use as a setting (`GameSettings.factory`).

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
from typing import Any, Optional, Protocol

from gomoku.engine.limits import Limit, Player, PlayResult  # noqa: F401 (Player re-exported)
from gomoku.engine.game.rules import Rule
from gomoku.engine.search.params import BY_NAME as SEARCH_PARAMS, SearchParams, load_params


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

_LIMIT_KEYS = {"time": float, "nodes": int, "depth": int, "playouts": int}
_KIND_KEYS = {
    "random": {"seed", "name"},
    "classical": {"level", "depth", "nodes", "time", "name", "tables", "eval", "order", "share", "params", "tss"}
    | set(SEARCH_PARAMS),
    "pure-mcts": {"playouts", "c_puct", "time", "nodes", "name", "seed", "select", "radius", "temperature",
                  "move_noise", "draw", "tactics"},
    "onnx": {"playouts", "c_puct", "time", "nodes", "name", "temperature", "batch", "seed", "select", "radius",
             "threads", "fpu", "solver", "move_noise", "draw"},
}
# seed: the net's torch seed (a match seeds the search of each game itself)
_KIND_KEYS["random-net"] = _KIND_KEYS["onnx"] | {"arch"}


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec. `text` is what the user typed and what worker processes get."""
    kind: str                       # random | classical | pure-mcts | onnx | random-net | brain
    text: str
    name: str
    arg: Optional[str] = None       # brain command line or .onnx path
    options: dict[str, str] = field(default_factory=dict)
    eval_rule: Optional[str] = None  # the rule a classical spec's learned evaluator was trained for

    @property
    def limit_overrides(self) -> dict[str, Any]:
        """Per-player Limit fields from the spec (`time` -> turn_time)."""
        out: dict[str, Any] = {}
        for key, conv in _LIMIT_KEYS.items():
            if key in self.options:
                out["turn_time" if key == "time" else key] = conv(self.options[key])
        return out

    @property
    def search_params(self) -> SearchParams:
        """A classical spec's search parameters: the `params=FILE`'s, then the spec's own
        NAME=VALUE over them (the defaults for the rest)."""
        values: dict[str, Any] = {}
        if "params" in self.options:
            values.update(_load_params(self.options["params"], self.text))
        if self.options.get("tss") == "0":
            values["leaf_vcf"] = 0          # the leaves' VCF is threat-space search too
        values.update({k: v for k, v in self.options.items() if k in SEARCH_PARAMS})
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


def _parse_options(kind: str, text: str, body: str, positional: Optional[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    if not body:
        return opts
    for i, part in enumerate(p.strip() for p in body.split(",")):
        if not part:
            continue
        if "=" not in part:
            if i == 0 and positional:
                opts[positional] = part
                continue
            raise SpecError(f"player spec {text!r}: expected key=value, got {part!r}")
        key, value = (s.strip() for s in part.split("=", 1))
        key = key.lower().replace("-", "_")
        if key not in _KIND_KEYS[kind]:
            allowed = ", ".join(sorted(_KIND_KEYS[kind] - set(SEARCH_PARAMS)))
            if kind == "classical":
                allowed += " or a search parameter (gomoku params lists them)"
            raise SpecError(f"player spec {text!r}: unknown option {key!r} for {kind} (use {allowed})")
        opts[key] = value
    for key, value in opts.items():
        if kind == "classical" and key in SEARCH_PARAMS:
            try:
                SEARCH_PARAMS[key].convert(value)
            except ValueError as exc:
                raise SpecError(f"player spec {text!r}: {exc}") from None
            continue
        conv = {"seed": int, "level": int, "depth": int, "nodes": int, "playouts": int, "batch": int,
                "time": float, "c_puct": float, "temperature": float, "radius": int, "threads": int,
                "fpu": float, "move_noise": float, "draw": float, "tactics": int, "tss": int}.get(key)
        if conv is None:
            continue
        try:
            num = conv(value)
        except ValueError:
            raise SpecError(f"player spec {text!r}: {key} must be a number, got {value!r}") from None
        if key in ("time", "c_puct", "temperature", "radius", "fpu", "move_noise") and num < 0 \
                or key in ("depth", "nodes", "playouts", "batch", "threads") and num <= 0 or key == "radius" and num > 5 \
                or key == "move_noise" and num > 1 or key == "draw" and not -1 <= num <= 1 \
                or key in ("tactics", "tss") and num not in (0, 1):
            raise SpecError(f"player spec {text!r}: {key}={value} is out of range")
    if opts.get("select", "puct") not in ("puct", "ucb1", "plain") and not (kind == "pure-mcts"
                                                                           and opts["select"] == "flat"):
        extra = " (or flat: no tree below the root)" if kind == "pure-mcts" else ""
        raise SpecError(f"player spec {text!r}: select must be puct, ucb1 or plain{extra}")
    if opts.get("solver", "on") not in ("on", "off"):
        raise SpecError(f"player spec {text!r}: solver must be on or off")
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
        body = raw[onnx_at + 6:]
        opts = _parse_options("onnx", raw, body, "playouts")
        p = Path(path).expanduser()
        if not p.is_file():
            raise SpecError(f"ONNX file not found: {path}")
        if not os.access(p, os.R_OK):
            raise SpecError(f"ONNX file is not readable: {path}")
        return PlayerSpec("onnx", raw, opts.get("name", p.stem), arg=str(p), options=opts)
    kind, _, body = raw.partition(":")
    kind = kind.strip().lower()
    if kind in ("pure-mcts", "pure_mcts", "puremcts", "mcts"):
        opts = _parse_options("pure-mcts", raw, body, "playouts")
        name = opts.get("name", f"pure-mcts-{opts['playouts']}" if "playouts" in opts else "pure-mcts")
        if "name" not in opts and opts.get("tactics") == "0":
            name += "-t0"
        return PlayerSpec("pure-mcts", raw, name, options=opts)
    if kind in ("random-net", "random_net", "randomnet"):
        return _parse_random_net(raw, body)
    if kind in ("flat-mc", "flat_mc", "flatmc"):
        # the Fudan threat-space-search paper's flat Monte Carlo: pure-mcts with no tree below the root, near the stones
        opts = _parse_options("pure-mcts", raw, body, "playouts")
        if opts.setdefault("select", "flat") != "flat":
            raise SpecError(f"player spec {raw!r}: flat-mc searches flat; use pure-mcts for select={opts['select']}")
        opts.setdefault("radius", "2")
        name = opts.get("name", f"flat-mc-{opts['playouts']}" if "playouts" in opts else "flat-mc")
        return PlayerSpec("pure-mcts", raw, name, options=opts)
    if kind == "random":
        opts = _parse_options("random", raw, body, "seed")
        return PlayerSpec("random", raw, opts.get("name", "random"), options=opts)
    if kind == "classical":
        opts = _parse_options("classical", raw, body, "level")
        if "name" in opts:
            name = opts["name"]
        else:
            parts = ["classical"]
            if "level" in opts:
                parts.append(f"L{opts['level']}")
            if "depth" in opts:
                parts.append(f"d{opts['depth']}")
            if "nodes" in opts:
                parts.append(f"n{opts['nodes']}")
            if "tables" in opts:
                parts.append(Path(opts["tables"]).stem)
            if "eval" in opts:
                parts.append(Path(opts["eval"]).name.split(".")[0])
            if "params" in opts:
                parts.append(Path(opts["params"]).stem)
            if opts.get("tss") == "0":
                parts.append("notss")
            own = SearchParams({k: v for k, v in opts.items() if k in SEARCH_PARAMS}).label()
            if own:
                parts.append(own)
            name = "-".join(parts)
        if "tables" in opts:
            _load_tables(opts["tables"], raw)      # a bad file fails here, once, in the parent
        if "params" in opts:
            _load_params(opts["params"], raw)
        eval_rule = _load_learned(opts["eval"], raw).rule if "eval" in opts else None
        return PlayerSpec("classical", raw, name, options=opts, eval_rule=eval_rule)
    raise SpecError(f"unknown player {raw!r}: use random, classical[:LEVEL], pure-mcts:N, flat-mc:N, FILE.onnx, "
                    "random-net:arch=ARCH or brain:CMD")


def _parse_random_net(raw: str, body: str) -> PlayerSpec:
    """`random-net:arch=ARCH[,seed=N,...]`: refused in one line without torch or with an
    architecture the trainer cannot build (asked of a child process: engine.match.random_net)."""
    from gomoku.engine.match.random_net import RandomNetError, check_arch, torch_missing
    opts = _parse_options("random-net", raw, body, "arch")
    if "arch" not in opts:
        raise SpecError(f"player spec {raw!r}: random-net needs arch=ARCH (any name gomoku train --arch takes)")
    why = torch_missing()
    if why:
        raise SpecError(f"player spec {raw!r}: {why}")
    try:
        check_arch(opts["arch"])
    except RandomNetError as exc:
        raise SpecError(f"player spec {raw!r}: {exc}") from None
    name = opts.get("name", f"random-{opts['arch']}-seed{opts.get('seed', '1')}")
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


def _learned_by_rule(path: str, text: str, order: Optional[str] = None, share: Optional[str] = None) -> dict:
    from gomoku.engine.search.blend import parse_share
    ev = _load_learned(path, text)
    if order is not None:
        try:
            ev.order_weight = int(order)
        except ValueError:
            raise SpecError(f"player spec {text!r}: order={order!r} is not a whole number") from None
    if share is not None:
        try:
            ev.share = parse_share(share)
        except ValueError as exc:
            raise SpecError(f"player spec {text!r}: {exc}") from None
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


#: spec option -> (MCTSConfig field, type) for the options both MCTS kinds pass to the search
_MCTS_CONFIG_OPTIONS: dict[str, tuple[str, Any]] = {
    "c_puct": ("c_puct", float), "select": ("select", str), "radius": ("radius", int),
    "temperature": ("temperature", float), "fpu": ("fpu", float), "batch": ("batch", int),
    "move_noise": ("move_noise", float), "draw": ("draw_value", float)}


def _make_mcts_player(spec: PlayerSpec, win_length: int = 5, players: int = 2) -> Player:
    """Rollout MCTS (`pure-mcts:N`) or a net with MCTS (`FILE.onnx`), both from engine.mcts.
    `players` is the game's seat count: a net must have been trained for it."""
    from gomoku.engine.mcts.player import MCTSPlayer
    from gomoku.engine.mcts.search import MCTSConfig
    o = spec.options
    common: dict[str, Any] = {}
    for key, (field_name, conv) in _MCTS_CONFIG_OPTIONS.items():
        if key in o:
            common[field_name] = conv(o[key])
    seed = int(o.get("seed", 0))
    if spec.kind == "pure-mcts":
        cfg = MCTSConfig.pure(int(o.get("playouts", 1000)), tactics=o.get("tactics", "1") != "0", **common)
        return MCTSPlayer(cfg, None, name=spec.name, seed=seed, win_length=win_length, players=players,
                          use_solver=False)
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError
    try:
        net = NetEvaluator.load(spec.arg or "", threads=int(o.get("threads", 1)))
    except NetFormatError as exc:
        raise SpecError(str(exc)) from None
    if net.info.win_length != win_length or net.info.players != players:
        from gomoku.engine.net.metadata import describe_net
        raise SpecError(f"{spec.arg} is {describe_net(net.info)}; this game is {players} players, {win_length} "
                        "in a row")
    cfg = MCTSConfig(playouts=int(o.get("playouts", 800)), **common)
    return MCTSPlayer(cfg, net, name=spec.name, seed=seed, win_length=net.info.win_length,
                      players=net.info.players, use_solver=o.get("solver", "on") == "on")


def _make_random_net_player(spec: PlayerSpec, win_length: int, players: int) -> Player:
    """The random net's player: its search is a FILE.onnx spec's with the same options (400
    playouts and no threat solver unless given: the re-implementation's opponent was the
    search over the net alone), built once the game's board says which file to load."""
    from gomoku.engine.match.random_net import RandomNetPlayer
    search = {k: v for k, v in spec.options.items() if k not in ("arch", "seed", "name")}
    search.setdefault("playouts", "400")
    search.setdefault("solver", "off")

    def over(path: str) -> Player:
        return _make_mcts_player(PlayerSpec("onnx", spec.text, spec.name, arg=path, options=search),
                                 win_length, players)
    return RandomNetPlayer(spec.options["arch"], int(spec.options.get("seed", 1)), over, spec.name,
                           win_length=win_length, players=players)


def make_player(spec: PlayerSpec | str, *, tolerance: float = 1.0, start_timeout: float = 10.0,
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
        seed = int(spec.options["seed"]) if "seed" in spec.options else None
        return RandomPlayer(seed, name=spec.name)
    if spec.kind == "classical":
        from gomoku.engine.agent import EnginePlayer  # late: parsing specs must not load the search
        o = spec.options
        return EnginePlayer(level=int(o["level"]) if "level" in o else None,
                            depth=int(o["depth"]) if "depth" in o else None,
                            nodes=int(o["nodes"]) if "nodes" in o else None,
                            name=spec.name,
                            tables=_load_tables(o["tables"], spec.text) if "tables" in o else None,
                            learned=_learned_by_rule(o["eval"], spec.text, o.get("order"), o.get("share"))
                            if "eval" in o else None,
                            params=spec.search_params, threat_probes=o.get("tss") != "0")
    if spec.kind == "onnx" and _net_info(spec).value_head == "critic":
        from gomoku.engine.net.critic import CriticPlayer
        from gomoku.engine.net.metadata import NetFormatError
        extra = sorted(set(spec.options) - {"name", "time", "threads"})
        if extra:
            raise SpecError(f"player spec {spec.text!r}: an ADP critic plays one ply deep; "
                            f"{', '.join(extra)} has no meaning for it")
        try:
            return CriticPlayer(spec.arg or "", name=spec.name, threads=int(spec.options.get("threads", 1)))
        except NetFormatError as exc:
            raise SpecError(str(exc)) from None
    if spec.kind in ("pure-mcts", "onnx"):
        return _make_mcts_player(spec, win_length, players)
    if spec.kind == "random-net":
        return _make_random_net_player(spec, win_length, players)
    if spec.kind == "brain":
        raise SpecError(f"{spec.text}: external brains are started by gomoku.protocol.players.make_player")
    raise SpecError(f"unknown player kind {spec.kind!r}")
