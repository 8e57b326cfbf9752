"""The replay store: games on disk as immutable shard files, a sliding window, symmetric sampling.

Each shard is one `.npz` (numpy arrays only, read with allow_pickle=False) holding the games
one self-play or bootstrap chunk produced, written atomically under a name that says which
generation and chunk made it. A chunk either has its shard or it does not, which is what
lets a killed run resume without losing or repeating games.

Shard arrays:
    format    int64[1]        SHARD_FORMAT
    games     int64[G, 10]    width, height, players, win_length, winner, resigned, source,
                              length T, rule id, would-resign seat (-1: none)
    moves     int32[sum T]    flat cells of all games, concatenated
    recorded  bool[sum T]     which positions carry a policy target (playout cap randomisation)
    policy    float16[...]    the targets of the recorded positions, H*W values each, concatenated
    scores    float32[sum T]  optional: the search's win probability for the mover (NaN: none);
                              present when a game of the shard has them (the alpha-beta's games)

Sampling draws recorded positions uniformly from the newest `window` of them and applies one
of the board's symmetries to planes and target alike: the 8 of the square on square boards,
on rectangular ones only the 4 that keep the shape (identity, both mirrors, half turn).
"""
from __future__ import annotations

import io
import os
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gomoku.engine.net.planes import encode_game
from gomoku.engine.game.rules import Rule, parse_rule

from .atomic import write_bytes
from .games import SOURCES, TrainingGame, outcome_class

SHARD_FORMAT = 1
SHARD_SUFFIX = ".npz"
_COLS = 10


class ReplayError(ValueError):
    """A shard that cannot be read; the message is one line naming the file."""


# ----------------------------------------------------------------------------- shard files

def encode_shard(games: Sequence[TrainingGame]) -> bytes:
    """The .npz bytes of a shard."""
    table = np.zeros((len(games), _COLS), dtype=np.int64)
    moves, recorded, policy = [], [], []
    for i, g in enumerate(games):
        table[i] = (g.width, g.height, g.players, g.win_length, g.winner, int(g.resigned),
                    SOURCES.index(g.source), g.moves.size, int(parse_rule(g.rule)), g.would_resign)
        moves.append(g.moves.astype(np.int32))
        recorded.append(g.recorded)
        policy.append(g.policy[g.recorded].astype(np.float16).ravel())
    buf = io.BytesIO()
    cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt))
    extra: dict[str, Any] = {}     # Any: numpy types savez's allow_pickle beside **kwds
    if any(g.scores is not None for g in games):
        extra["scores"] = cat([g.scores if g.scores is not None else np.full(g.moves.size, np.nan, np.float32)
                               for g in games], np.float32)
    np.savez(buf, format=np.array([SHARD_FORMAT], dtype=np.int64), games=table,
             moves=cat(moves, np.int32), recorded=cat(recorded, bool), policy=cat(policy, np.float16), **extra)
    return buf.getvalue()


def write_shard(path: str | os.PathLike, games: Sequence[TrainingGame]) -> None:
    """Write atomically: a kill -9 leaves no shard or the whole shard."""
    write_bytes(path, encode_shard(games))


def read_shard(path: str | os.PathLike) -> list[TrainingGame]:
    """The games of a shard; ReplayError (one line naming the file) when it is damaged."""
    try:
        with np.load(path, allow_pickle=False) as z:
            fmt = int(z["format"][0])
            if fmt != SHARD_FORMAT:
                raise ReplayError(f"{path}: replay shard format {fmt}, this version reads {SHARD_FORMAT}")
            table, moves, recorded, policy = z["games"], z["moves"], z["recorded"], z["policy"]
            scores = z["scores"] if "scores" in z.files else None
    except ReplayError:
        raise
    except FileNotFoundError:
        raise ReplayError(f"{path}: replay shard not found") from None
    except (OSError, ValueError, KeyError, IndexError, EOFError, zipfile.BadZipFile) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:120]
        raise ReplayError(f"{path}: corrupt replay shard ({first})") from None
    games: list[TrainingGame] = []
    try:
        if table.ndim != 2 or table.shape[1] != _COLS or int(table[:, 7].sum()) != moves.size \
                or recorded.shape != moves.shape or (scores is not None and scores.shape != moves.shape):
            raise ValueError("array sizes disagree")
        m0 = p0 = 0
        for row in table:
            w, h, players, win, winner, resigned, src, length, rule, tw = (int(v) for v in row)
            mv = moves[m0:m0 + length]
            rec = recorded[m0:m0 + length]
            pol = np.zeros((length, w * h), dtype=np.float32)
            n_rec = int(rec.sum())
            chunk = policy[p0:p0 + n_rec * w * h]
            if chunk.size != n_rec * w * h:
                raise ValueError("policy array too short")
            pol[rec] = chunk.reshape(n_rec, w * h)
            sc = scores[m0:m0 + length] if scores is not None else None
            if sc is not None and np.isnan(sc).all():
                sc = None
            games.append(TrainingGame(w, h, Rule(rule).label, win, players, mv, pol, rec, winner,
                                      bool(resigned), SOURCES[src], tw, sc))
            m0 += length
            p0 += n_rec * w * h
        if p0 != policy.size:
            raise ValueError("policy array too long")
    except (ValueError, IndexError) as exc:
        raise ReplayError(f"{path}: corrupt replay shard ({exc})") from None
    return games


# ----------------------------------------------------------------------------- symmetries

def symmetries(width: int, height: int) -> tuple[int, ...]:
    """Symmetry ids usable on a board: 0..7 on a square; on a rectangle the 4 that keep its
    shape (0 identity, 2 half turn, 4 left-right mirror, 6 up-down mirror)."""
    return tuple(range(8)) if width == height else (0, 2, 4, 6)


def apply_symmetry(x: np.ndarray, sym: int) -> np.ndarray:
    """x: ...,H,W -> the same array turned by sym % 4 quarter turns, then mirrored left-right
    when sym >= 4. Quarter turns of a non-square array change its shape."""
    y = np.rot90(x, sym % 4, axes=(-2, -1))
    if sym >= 4:
        y = np.flip(y, axis=-1)
    return np.ascontiguousarray(y)


# ----------------------------------------------------------------------------- the store

@dataclass
class Batch:
    """planes: B,C,H,W float32; policy: B,H,W float32 (sums to 1); value: B int64 outcome class,
    or B,P+1 float32 outcome probabilities where the window's games carry search scores."""
    planes: np.ndarray
    policy: np.ndarray
    value: np.ndarray


class ReplayStore:
    """Shards in one folder. Shards never change once written, so they are parsed once and kept."""

    def __init__(self, folder: str | os.PathLike, cache_bytes: int = 256 << 20) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._parsed: dict[str, list[TrainingGame]] = {}
        self._planes: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()
        self._planes_bytes = 0
        self.cache_bytes = cache_bytes

    def path(self, name: str) -> Path:
        return self.folder / (name + SHARD_SUFFIX)

    def has(self, name: str) -> bool:
        return self.path(name).is_file()

    def write(self, name: str, games: Sequence[TrainingGame]) -> None:
        write_shard(self.path(name), games)

    def names(self) -> list[str]:
        """Shard names, oldest first (names sort by generation and chunk)."""
        return sorted(p.name[: -len(SHARD_SUFFIX)] for p in self.folder.glob("*" + SHARD_SUFFIX)
                      if not p.name.startswith("."))

    def games(self, name: str) -> list[TrainingGame]:
        if name not in self._parsed:
            self._parsed[name] = read_shard(self.path(name))
        return self._parsed[name]

    def window(self, positions: int) -> "Window":
        """The newest shards holding at least `positions` recorded positions (all, if fewer)."""
        chosen: list[str] = []
        total = 0
        for name in reversed(self.names()):
            if total >= positions:
                break
            chosen.append(name)
            total += sum(int(g.recorded.sum()) for g in self.games(name))
        chosen.reverse()
        for name in [n for n in self._parsed if n not in chosen]:     # shards that left the window
            del self._parsed[name]
        for key in [k for k in self._planes if k[0] not in chosen]:
            self._planes_bytes -= self._planes.pop(key).nbytes
        return Window(self, chosen, positions)

    def planes(self, shard: str, index: int) -> np.ndarray:
        """uint8[T, C, H, W] planes of one game, cached (LRU by bytes)."""
        key = (shard, index)
        got = self._planes.get(key)
        if got is not None:
            self._planes.move_to_end(key)
            return got
        g = self.games(shard)[index]
        got = encode_game(g.moves, g.width, g.height, g.players).astype(np.uint8)
        self._planes[key] = got
        self._planes_bytes += got.nbytes
        while self._planes_bytes > self.cache_bytes and len(self._planes) > 1:
            _, old = self._planes.popitem(last=False)
            self._planes_bytes -= old.nbytes
        return got


class Window:
    """The recorded positions of some shards, newest last, trimmed to `limit` positions."""

    def __init__(self, store: ReplayStore, shards: list[str], limit: int) -> None:
        self.store = store
        self.shards = shards
        refs: list[tuple[int, int, int, int]] = []    # shard no, game no, move no, size key
        for si, name in enumerate(shards):
            for gi, g in enumerate(store.games(name)):
                key = g.width * 1000 + g.height
                refs.extend((si, gi, int(t), key) for t in np.flatnonzero(g.recorded))
        table = np.array(refs[-limit:] if limit > 0 else refs, dtype=np.int64).reshape(-1, 4)
        self.refs = table[:, :3]
        self.size_key = table[:, 3]

    def __len__(self) -> int:
        return int(self.refs.shape[0])

    def game(self, si: int, gi: int) -> TrainingGame:
        return self.store.games(self.shards[si])[gi]

    def sample(self, batch: int, rng: np.random.Generator, augment: bool = True,
               score_weight: float = 0.5) -> Batch:
        """`batch` positions drawn uniformly (with replacement) from the window, of one board size
        (a size picked in proportion to its positions), each under a random symmetry. Where a
        drawn position has a search score, its value target is `score_weight` of the score's
        (win p, loss 1 - p) and the rest the game's result; then every target is a probability
        row (one-hot for the others)."""
        if len(self) == 0:
            raise ValueError("the replay window is empty")
        key = self.size_key[rng.integers(0, len(self))]
        pool = self.refs if (self.size_key == key).all() else self.refs[self.size_key == key]
        picks = pool[rng.integers(0, len(pool), size=batch)]
        first = self.game(int(picks[0, 0]), int(picks[0, 1]))
        h, w = first.height, first.width
        planes = np.zeros((batch, first.players + 4, h, w), dtype=np.float32)
        policy = np.zeros((batch, h, w), dtype=np.float32)
        value = np.zeros(batch, dtype=np.int64)
        syms = symmetries(w, h)
        scored: list[tuple[int, float]] = []
        for b, (si, gi, t) in enumerate(picks):
            g = self.game(int(si), int(gi))
            p = self.store.planes(self.shards[int(si)], int(gi))[t].astype(np.float32)
            target = g.policy[t].reshape(h, w)
            s = int(syms[rng.integers(0, len(syms))]) if augment else 0
            planes[b] = apply_symmetry(p, s)
            policy[b] = apply_symmetry(target, s)
            value[b] = outcome_class(int(t), g.winner, g.players)
            if g.scores is not None and not np.isnan(g.scores[t]):
                scored.append((b, float(g.scores[t])))
        total = policy.sum(axis=(1, 2), keepdims=True)
        policy /= np.where(total > 0, total, 1.0)
        if scored and score_weight > 0:
            soft = np.zeros((batch, first.players + 1), dtype=np.float32)
            soft[np.arange(batch), value] = 1.0
            for b, p in scored:
                soft[b] *= 1.0 - score_weight
                soft[b, 0] += score_weight * p
                soft[b, 1] += score_weight * (1.0 - p)
            return Batch(planes, policy, soft)
        return Batch(planes, policy, value)

    def stats(self) -> dict[str, int]:
        """Positions per source in the window (what each phase contributed)."""
        out: dict[str, int] = {}
        for si, gi, _ in self.refs:
            src = self.game(int(si), int(gi)).source
            out[src] = out.get(src, 0) + 1
        return out


def shard_name(generation: int, source: str, chunk: int) -> str:
    """Names sort by generation, then chunk: gen00012-selfplay-0003."""
    return f"gen{generation:05d}-{source}-{chunk:04d}"
