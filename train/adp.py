"""The Fudan threat-space-search paper's learning agents: an ADP critic trained by TD(0) on its
own games (`--arch adp`), the same with experience replay (`adp-er`), and its Q-learning trial
(`dqn`).

The critic (after Zhao et al.'s self-teaching ADP) maps a position's pattern features
(`engine.net.critic`: 30 or 274 inputs) through one sigmoid hidden layer (100 units) to one
sigmoid output, V(s), the first player's (black's) probability of winning. Both sides play its
self-play games with the action network: every candidate cell is tried one ply deep, black
takes the highest V of the position after it, white the lowest, with probability epsilon a
random candidate instead (e-greedy). After each move the critic learns from the pair of
positions it went between, s (after the previous move) and s' (after this one):

    delta = (r + gamma V(s')) - V(s),   w <- w + alpha delta dV(s)/dw

which is the paper's e(t) = a[(r + g V(s')) - V(s)] with E = e^2 / 2 descended one step
(`td_update`). r is 0 until the game ends; the move that ends it gives r = 1 for a black win,
0 for a white one and 0.5 for a full board, with V(s') = 0 past the end. gamma defaults to
1: V is black's win probability, so a discount below 1 would pull every value towards a
white win.

* `adp`: the update after every move, as the game goes (Zhao's ST-Gomoku).
* `adp-er`: the transitions go to a buffer of `--buffer` (the oldest dropped); after every
  `--replay-batch` new ones (the paper: about 5,000) the critic goes once through the whole
  buffer in a random permutation, recomputing each target with its current weights. No
  update during the games.
* `dqn`: the paper's Q-learning trial, a net of two hidden layers of 16 on the 30 features,
  whose target is the greedy value of the next position instead of the one the e-greedy game
  reached: r + gamma max_a' Q(s', a'), the max (for white the min) over the next player's
  candidates.

A run folder holds config.json, state.json, checkpoint.pt (weights, the random states and the
replay buffer, so the same command resumes after Ctrl-C or kill -9 where the last generation
ended), metrics.jsonl and nets/genNNNNN.onnx with nets/best.onnx (the newest): every file
written atomically. A generation is `--games-per-gen` self-play games.
"""
from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch
from torch import nn

from gomoku.engine.game.board import BLACK, Board
from gomoku.engine.game.rules import parse_rule
from gomoku.engine.net.critic import FEATURE_SETS, afterstates, choose, end_values, feature_names
from gomoku.engine.net.metadata import NetInfo

from .adp_config import ADP_ARCHS, AdpConfig
from .atomic import clean_temporaries, write_bytes, write_json, write_with
from .metrics import put_record

#: fields a resumed run must keep
FIXED = ("width", "height", "rule", "arch", "features", "hidden", "seed")
#: the inputs' scale inside the net: counts of the 30 set reach 30 and more, which would
#: saturate the sigmoid units from the first game; the 274 set is already in 0..1
SCALE_30 = 0.125
OPSET = 17
TOLERANCE = 1e-4


class AdpError(ValueError):
    """A run folder or option that cannot be used; one line."""


class Critic(nn.Module):
    """features float32[B, F] -> V float32[B, 1], black's win probability: sigmoid hidden
    layers, a sigmoid output. `scale` multiplies the inputs first (a fixed buffer)."""

    def __init__(self, features: int, hidden: list[int]) -> None:
        super().__init__()
        scale = torch.ones(features)
        if features == 30:
            scale[:28].view(7, 4)[:, :2] = SCALE_30
        self.scale: torch.Tensor
        self.register_buffer("scale", scale)
        self.features = features
        sizes = [features, *hidden]
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.out = nn.Linear(sizes[-1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x * self.scale
        for layer in self.hidden:
            h = torch.sigmoid(layer(h))
        return torch.sigmoid(self.out(h))


def td_update(model: nn.Module, x: torch.Tensor, target: float, alpha: float) -> float:
    """One step of the paper's critic update on one position: delta = target - V(x), then
    w <- w + alpha delta dV(x)/dw (gradient descent on (delta)^2 / 2 with the target held).
    Returns delta."""
    model.zero_grad()
    v = model(x.reshape(1, -1))[0, 0]
    v.backward()
    delta = float(target) - float(v.detach())
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p.add_(p.grad, alpha=alpha * delta)
    return delta


def td_target(model: nn.Module, x_next: Optional[torch.Tensor], reward: float, gamma: float) -> float:
    """r + gamma V(s'), V(s') = 0 past the end of the game (`x_next` None)."""
    if x_next is None:
        return float(reward)
    with torch.no_grad():
        return float(reward) + gamma * float(model(x_next.reshape(1, -1))[0, 0])


@dataclass
class Buffer:
    """The replay buffer of adp-er: transitions (s, s', r, end) as arrays, oldest dropped."""
    features: int
    size: int
    s: np.ndarray = field(init=False)
    s2: np.ndarray = field(init=False)
    r: np.ndarray = field(init=False)
    end: np.ndarray = field(init=False)
    count: int = 0              # transitions ever added
    pending: int = 0            # added since the last replay pass

    def __post_init__(self) -> None:
        self.s = np.zeros((self.size, self.features), np.float32)
        self.s2 = np.zeros((self.size, self.features), np.float32)
        self.r = np.zeros(self.size, np.float32)
        self.end = np.zeros(self.size, np.bool_)

    def add(self, s: np.ndarray, s2: Optional[np.ndarray], r: float) -> None:
        i = self.count % self.size
        self.s[i] = s
        self.s2[i] = 0.0 if s2 is None else s2
        self.r[i] = r
        self.end[i] = s2 is None
        self.count += 1
        self.pending += 1

    @property
    def held(self) -> int:
        return min(self.count, self.size)

    def state(self) -> dict[str, Any]:
        n = self.held
        return {"s": self.s[:n].copy(), "s2": self.s2[:n].copy(), "r": self.r[:n].copy(),
                "end": self.end[:n].copy(), "count": self.count, "pending": self.pending}

    def load(self, d: dict[str, Any]) -> None:
        n = min(len(d["r"]), self.size)
        self.s[:n], self.s2[:n], self.r[:n], self.end[:n] = d["s"][:n], d["s2"][:n], d["r"][:n], d["end"][:n]
        self.count, self.pending = int(d["count"]), int(d["pending"])


def replay(model: nn.Module, buf: Buffer, alpha: float, gamma: float, rng: np.random.Generator) -> float:
    """One pass over the buffer in a random permutation, each target from the current
    weights; the mean |delta|."""
    total = 0.0
    n = buf.held
    for i in rng.permutation(n):
        x2 = None if buf.end[i] else torch.from_numpy(buf.s2[i])
        total += abs(td_update(model, torch.from_numpy(buf.s[i]), td_target(model, x2, float(buf.r[i]), gamma),
                               alpha))
    buf.pending = 0
    return total / max(1, n)


def _values(model: nn.Module, feats: np.ndarray, ends: np.ndarray, mover: int) -> np.ndarray:
    values = end_values(ends, mover)
    open_ = np.isnan(values)
    if open_.any():
        with torch.no_grad():
            values[open_] = model(torch.from_numpy(feats[open_])).reshape(-1).numpy()
    return values


def self_play(model: nn.Module, cfg: AdpConfig, rng: np.random.Generator,
              buf: Optional[Buffer] = None) -> dict[str, Any]:
    """One e-greedy self-play game with the critic's learning rule applied as it goes (adp,
    dqn) or its transitions stored (adp-er). Returns the game's result and learning figures."""
    board = Board(cfg.width, cfg.height, rule=parse_rule(cfg.rule))
    prev: Optional[np.ndarray] = None         # features of the position after the last move
    deltas: list[float] = []
    result = 0.5
    while True:
        mover = board.to_move
        cand, feats, ends = afterstates(board, cfg.features)
        values = _values(model, feats, ends, mover)
        greedy = choose(values, mover)
        k = int(rng.integers(len(cand))) if rng.random() < cfg.epsilon else greedy
        end = int(ends[k])
        reward = (1.0 if mover == BLACK else 0.0) if end == 1 else (0.5 if end == 2 else 0.0)
        if prev is not None:
            x = torch.from_numpy(prev)
            if cfg.learning == "q":
                # Q-learning: the next player's best reply's value (a move that ends the game
                # counts its result), whatever the e-greedy game plays
                best = float(values[greedy])
                deltas.append(td_update(model, x, best if ends[greedy] else cfg.gamma * best, cfg.alpha))
            elif cfg.learning == "td":
                nxt = None if end else torch.from_numpy(feats[k])
                deltas.append(td_update(model, x, td_target(model, nxt, reward, cfg.gamma), cfg.alpha))
            elif buf is not None:
                buf.add(prev, None if end else feats[k], reward)
        if end:
            result = reward
            break
        prev = feats[k].copy()
        board.play(*board.coords(int(cand[k])))
    return {"result": result, "moves": board.move_count + 1, "deltas": deltas}


# ----------------------------------------------------------------------------- export

def _onnx_bytes(model: Critic, features: int) -> bytes:
    import warnings
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model.eval(), (torch.zeros(1, features),), buf,  # type: ignore[arg-type]
                          input_names=["features"], output_names=["value"],
                          dynamic_axes={"features": {0: "B"}, "value": {0: "B"}}, opset_version=OPSET,
                          dynamo=False)
    return buf.getvalue()


def export_critic(model: Critic, out: str | os.PathLike, info: NetInfo, seed: int = 0) -> float:
    """The critic as an ONNX file with its metadata (docs/net-format.md), checked against torch
    on random feature vectors before it is renamed into place; the worst difference."""
    import onnx
    import onnxruntime as ort
    features = model.features
    proto = onnx.load_from_string(_onnx_bytes(model, features))
    for key, value in info.to_metadata().items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 12, size=(16, features)) if features == 30 else rng.random((16, features))).astype(np.float32)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    worst = [0.0]

    def _write(tmp: str) -> None:
        onnx.save_model(proto, tmp)
        ort.set_default_logger_severity(3)
        got = ort.InferenceSession(tmp, providers=["CPUExecutionProvider"]).run(["value"], {"features": x})[0]
        worst[0] = float(np.abs(np.asarray(got) - want).max())
        if not worst[0] <= TOLERANCE:
            raise AdpError(f"{out}: onnxruntime differs from torch by {worst[0]:.2e} (tolerance {TOLERANCE:g})")

    write_with(out, _write)
    return worst[0]


# ----------------------------------------------------------------------------- the run

def _copy(src: Path, dst: str) -> None:
    shutil.copyfile(src, dst)


class AdpRun:
    """A run folder of one of the paper's learning agents; `run()` trains generations until
    `generations` (over all resumes) or `hours` of work."""

    def __init__(self, folder: str | os.PathLike, cfg: AdpConfig, log: Callable[[str], None],
                 generations: Optional[int] = None, hours: Optional[float] = None,
                 progress: Optional[Callable[[int, int], None]] = None) -> None:
        self.folder = Path(folder)
        self.log = log
        self.generations = generations
        self.hours = hours
        self.progress = progress
        self.folder.mkdir(parents=True, exist_ok=True)
        clean_temporaries(self.folder)
        (self.folder / "nets").mkdir(exist_ok=True)
        self.cfg, self.resumed = self._config(cfg)
        torch.set_num_threads(1)        # a net of a few thousand weights: more threads only cost
        torch.manual_seed(self.cfg.seed)
        self.model = Critic(self.cfg.features, self.cfg.hidden)
        self.rng = np.random.default_rng(self.cfg.seed)
        self.buf = Buffer(self.cfg.features, self.cfg.buffer) if self.cfg.learning == "replay" else None
        self.state: dict[str, Any] = {"generation": 0, "games": 0, "seconds": 0.0}
        if self.resumed and (self.folder / "checkpoint.pt").is_file():
            self._load()

    def _config(self, cfg: AdpConfig) -> tuple[AdpConfig, bool]:
        path = self.folder / "config.json"
        if not path.is_file():
            if (self.folder / "state.json").is_file():
                raise AdpError(f"{self.folder}: a run folder without its config.json; start a new --run")
            write_json(path, dataclasses.asdict(cfg))
            return cfg, False
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise AdpError(f"{path}: unreadable ({exc})") from None
        if old.get("arch") not in ADP_ARCHS:
            raise AdpError(f"{self.folder}: a run of --arch {old.get('arch')}, not one of the paper's learning "
                           "agents (adp, adp-er, dqn)")
        for key in FIXED:
            if old.get(key) != getattr(cfg, key):
                raise AdpError(f"{self.folder}: this run trains {key}={old.get(key)}, not {getattr(cfg, key)} "
                               "(start a new --run)")
        kept = AdpConfig(**{k: v for k, v in old.items() if k in {f.name for f in dataclasses.fields(AdpConfig)}})
        return kept, True

    def _load(self) -> None:
        try:
            ck = torch.load(self.folder / "checkpoint.pt", weights_only=False)
            self.model.load_state_dict(ck["model"])
        except Exception as exc:  # noqa: BLE001 - a damaged file: one line naming it
            raise AdpError(f"{self.folder / 'checkpoint.pt'}: unreadable ({str(exc).splitlines()[0][:120]})") from None
        self.rng.bit_generator.state = ck["rng"]
        torch.set_rng_state(ck["torch_rng"])
        self.state = dict(ck["state"])
        if self.buf is not None and ck.get("buffer") is not None:
            self.buf.load(ck["buffer"])

    def _save(self) -> None:
        data = io.BytesIO()
        torch.save({"model": self.model.state_dict(), "rng": self.rng.bit_generator.state,
                    "torch_rng": torch.get_rng_state(), "state": self.state,
                    "buffer": self.buf.state() if self.buf is not None else None}, data)
        write_bytes(self.folder / "checkpoint.pt", data.getvalue())
        write_json(self.folder / "state.json", self.state)

    def info(self, generation: int) -> NetInfo:
        cfg = self.cfg
        prov = {"command": cfg.command, "generation": generation, "games": self.state["games"],
                "seconds": round(self.state["seconds"], 1), "alpha": cfg.alpha, "gamma": cfg.gamma,
                "epsilon": cfg.epsilon, "learning": cfg.learning}
        return NetInfo(players=2, win_length=5, rules=[cfg.rule], board_sizes=sorted({cfg.width, cfg.height}),
                       arch=cfg.arch_label, value_head="critic", planes=[FEATURE_SETS[cfg.features]],
                       provenance=prov)

    def _done(self) -> bool:
        if self.generations is not None and self.state["generation"] >= self.generations:
            return True
        return self.hours is not None and self.state["seconds"] >= self.hours * 3600

    def run(self) -> int:
        cfg = self.cfg
        if self.resumed:
            self.log(f"resuming {self.folder} at generation {self.state['generation']} ({self.state['games']} games)")
        else:
            self.log(f"new run {self.folder}: {cfg.arch_label}, {cfg.features} features "
                     f"({', '.join(feature_names(cfg.features)[:2])}, ...), {cfg.width}x{cfg.height} {cfg.rule}")
        if self.state["generation"] == 0 and not (self.folder / "nets" / "gen00000.onnx").is_file():
            export_critic(self.model, self.folder / "nets" / "gen00000.onnx", self.info(0))
        while not self._done():
            t0 = time.perf_counter()
            gen = self.state["generation"] + 1
            results, moves, deltas, replays = [], [], [], []
            for g in range(cfg.games_per_gen):
                game = self_play(self.model, cfg, self.rng, self.buf)
                results.append(game["result"])
                moves.append(game["moves"])
                deltas += [abs(d) for d in game["deltas"]]
                if self.buf is not None and self.buf.pending >= cfg.replay_batch:
                    replays.append(replay(self.model, self.buf, cfg.alpha, cfg.gamma, self.rng))
                if self.progress is not None:
                    self.progress(g + 1, cfg.games_per_gen)
            self.state["generation"] = gen
            self.state["games"] += cfg.games_per_gen
            self.state["seconds"] += time.perf_counter() - t0
            net = self.folder / "nets" / f"gen{gen:05d}.onnx"
            export_critic(self.model, net, self.info(gen))
            write_with(self.folder / "nets" / "best.onnx", lambda tmp: _copy(net, tmp))
            record: dict[str, Any] = {
                "generation": gen, "games": self.state["games"], "seconds": round(self.state["seconds"], 1),
                "black_score": round(float(np.mean(results)), 3), "mean_moves": round(float(np.mean(moves)), 1),
                "mean_abs_delta": round(float(np.mean(deltas)), 4) if deltas else None,
                "replay_passes": len(replays),
                "replay_mean_abs_delta": round(float(np.mean(replays)), 4) if replays else None}
            put_record(self.folder / "metrics.jsonl", record)
            self._save()
            self.log(f"generation {gen}: {cfg.games_per_gen} games, black scored {record['black_score']:.2f}, "
                     f"{record['mean_moves']:.0f} moves a game, mean |delta| {record['mean_abs_delta']}"
                     + (f", {len(replays)} replay passes (mean |delta| {record['replay_mean_abs_delta']})"
                        if self.buf is not None else "")
                     + f"; {self.state['seconds']:.0f} s in all")
        return 0

