"""Weights-only training checkpoints: safetensors tensors plus JSON metadata, nothing pickled.

A checkpoint holds what resuming needs to continue the same run: the model's weights and
buffers, Adam's moments, the torch and numpy random states, and the trainer's counters (step,
KL learning-rate multiplier). safetensors cannot run code when it loads, and any framework can
read the weights; optimizer and RNG state are flattened into named tensors, their small
scalar parts go into the metadata as JSON.

Layout of the tensor names:
    model.<state_dict key>          weights and BatchNorm buffers
    opt.<param index>.<state key>   Adam's exp_avg, exp_avg_sq, step
    rng.torch                       torch.get_rng_state()
Metadata keys: gomoku_checkpoint ("1"), arch, players, meta (JSON: counters, game settings),
opt_groups (JSON param_groups), opt_scalars (JSON non-tensor state), rng_numpy (JSON).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load, save as st_save

from .atomic import write_bytes

CHECKPOINT_FORMAT = "1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read; the message is one line naming the file."""


@dataclass
class Checkpoint:
    """Everything a checkpoint file holds, in memory."""
    arch: str
    players: int
    model: dict[str, torch.Tensor]
    meta: dict[str, Any] = field(default_factory=dict)          # step, lr_mult, rules, sizes, ...
    optimizer: Optional[dict[str, Any]] = None                   # torch optimizer state_dict
    rng_torch: Optional[torch.Tensor] = None
    rng_numpy: Optional[dict[str, Any]] = None                   # numpy bit_generator.state


def _jsonable(obj: Any) -> Any:
    """numpy's PCG64 state holds 128-bit ints; JSON keeps them exactly as ints already, but
    tuples and tensors need converting."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, torch.Tensor):
        return obj.item()
    return obj


def encode(ck: Checkpoint) -> bytes:
    """The safetensors bytes of a checkpoint."""
    tensors: dict[str, torch.Tensor] = {f"model.{k}": v.detach().cpu().contiguous().clone()
                                        for k, v in ck.model.items()}
    meta = {"gomoku_checkpoint": CHECKPOINT_FORMAT, "arch": ck.arch, "players": str(ck.players),
            "meta": json.dumps(_jsonable(ck.meta), sort_keys=True)}
    if ck.optimizer is not None:
        scalars: dict[str, dict[str, Any]] = {}
        for idx, state in ck.optimizer["state"].items():
            for key, value in state.items():
                if isinstance(value, torch.Tensor):
                    tensors[f"opt.{idx}.{key}"] = value.detach().cpu().contiguous().clone()
                else:
                    scalars.setdefault(str(idx), {})[key] = value
        meta["opt_groups"] = json.dumps(_jsonable(ck.optimizer["param_groups"]))
        meta["opt_scalars"] = json.dumps(scalars)
    if ck.rng_torch is not None:
        tensors["rng.torch"] = ck.rng_torch.clone()
    if ck.rng_numpy is not None:
        meta["rng_numpy"] = json.dumps(_jsonable(ck.rng_numpy))
    return _sorted_header(st_save(tensors, metadata=meta))


def _sorted_header(data: bytes) -> bytes:
    """The same file with its JSON header's keys sorted. safetensors writes the metadata in hash
    order, which changes from one process to the next, so the same checkpoint would get another
    sha256 each time it is written (a shipped checkpoint's manifest entry would churn). Sorting
    keeps the header's length, so the tensor data and its offsets stay where they are."""
    n = int.from_bytes(data[:8], "little")
    raw = data[8:8 + n]
    text = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    if len(text) > n:           # never seen: safetensors writes compact JSON; keep its bytes then
        return data
    return data[:8] + text + b" " * (n - len(text)) + data[8 + n:]


def save_checkpoint(path: str | os.PathLike, ck: Checkpoint) -> None:
    """Write atomically (a kill -9 leaves the previous file whole)."""
    write_bytes(path, encode(ck))


def _read_metadata(data: bytes) -> dict[str, str]:
    """safetensors' header: 8-byte little-endian length, then JSON with `__metadata__`."""
    n = int.from_bytes(data[:8], "little")
    if len(data) < 8 or n <= 0 or n > len(data) - 8:
        raise ValueError("bad header length")
    return dict(json.loads(data[8:8 + n]).get("__metadata__") or {})


def checkpoint_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The `meta` of a checkpoint (counters, generation, ...) from its header alone, without
    reading the tensors; CheckpointError (one line naming the file) when it is not readable."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            n = int.from_bytes(head, "little") if len(head) == 8 else 0
            raw = fh.read(n) if 0 < n <= 100_000_000 else b""
        if len(raw) != n or n == 0:
            raise ValueError("bad header length")
        meta = dict(json.loads(raw).get("__metadata__") or {})
        if meta.get("gomoku_checkpoint") != CHECKPOINT_FORMAT:
            raise ValueError(f"format {meta.get('gomoku_checkpoint')!r}, expected {CHECKPOINT_FORMAT}")
        return dict(json.loads(meta.get("meta", "{}")))
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read checkpoint ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError, AttributeError, TypeError) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint ({exc})") from None


def load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint; CheckpointError (one line naming the file) when it is not one."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read checkpoint ({exc.strerror or exc})") from None
    try:
        meta = _read_metadata(data)
        tensors = st_load(data)
    except (SafetensorError, ValueError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt or truncated: {first})") from None
    if meta.get("gomoku_checkpoint") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path}: not a gomoku training checkpoint (format "
                              f"{meta.get('gomoku_checkpoint')!r}, expected {CHECKPOINT_FORMAT})")
    try:
        ck = Checkpoint(arch=meta["arch"], players=int(meta["players"]),
                        model={k[6:]: v for k, v in tensors.items() if k.startswith("model.")},
                        meta=json.loads(meta.get("meta", "{}")))
        if "opt_groups" in meta:
            state: dict[int, dict[str, Any]] = {}
            for k, v in tensors.items():
                if k.startswith("opt."):
                    _, idx, key = k.split(".", 2)
                    state.setdefault(int(idx), {})[key] = v
            for idx, extra in json.loads(meta.get("opt_scalars", "{}")).items():
                state.setdefault(int(idx), {}).update(extra)
            ck.optimizer = {"state": state, "param_groups": json.loads(meta["opt_groups"])}
        ck.rng_torch = tensors.get("rng.torch")
        if "rng_numpy" in meta:
            ck.rng_numpy = json.loads(meta["rng_numpy"])
    except (KeyError, ValueError) as exc:
        raise CheckpointError(f"{path}: checkpoint metadata is damaged ({type(exc).__name__}: {exc})") from None
    return ck
