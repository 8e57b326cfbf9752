"""Torch net -> ONNX file the engine loads (docs/net-format.md), checked before it is kept.

The file is exported to a temporary name, its metadata written, then loaded with onnxruntime
and compared with torch on random positions of two board sizes (dynamic B, H, W really are
dynamic). Only a file that passes is renamed to its final name, so a net that exports
wrongly (an op onnxruntime computes differently, a shape frozen by tracing) never reaches
self-play or a user.
"""
from __future__ import annotations

import io
import os
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch

from gomoku.engine.net.metadata import NetInfo
from gomoku.engine.net.planes import plane_names

from .atomic import write_with
from .checkpoint import load_checkpoint
from .models import PolicyValueNet, build_model

OPSET = 17
#: largest |onnxruntime - torch| accepted on logits (float32 with different kernels)
TOLERANCE = 2e-3


class ExportError(RuntimeError):
    """The exported file did not reproduce the torch net; one line."""


def random_positions(rng: np.random.Generator, n: int, width: int, height: int, players: int) -> np.ndarray:
    """Planes of `n` random legal-looking positions: float32[n, C, H, W] (random stones in turn order)."""
    from gomoku.engine.net.planes import encode_game
    out = []
    for _ in range(n):
        t = int(rng.integers(0, width * height // 2 + 1))
        moves = rng.permutation(width * height)[: t + 1]
        out.append(encode_game(moves, width, height, players)[t])
    return np.stack(out).astype(np.float32)


def _to_onnx_bytes(model: PolicyValueNet, players: int) -> bytes:
    model = model.eval().cpu()
    fixed = getattr(model, "fixed_size", None)      # (width, height) of a net with fully connected heads
    width, height = fixed or (7, 7)
    dummy = torch.zeros(1, players + 4, height, width)
    dummy[:, -1] = 1.0
    buf = io.BytesIO()
    board = {} if fixed else {2: "H", 3: "W"}
    with warnings.catch_warnings():   # the tracer's notes on constant shapes are expected here
        warnings.simplefilter("ignore")
        # the TorchScript exporter (dynamo=False) writes to a file object; torch annotates f as a path
        torch.onnx.export(model, (dummy,), buf,  # type: ignore[arg-type]
                          input_names=["planes"], output_names=["policy", "value"],
                          dynamic_axes={"planes": {0: "B", **board},
                                        "policy": {0: "B", **{k - 1: v for k, v in board.items()}},
                                        "value": {0: "B"}},
                          opset_version=OPSET, dynamo=False)
    return buf.getvalue()


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def verify(path: str, model: PolicyValueNet, players: int, sizes: Sequence[tuple[int, int]],
           seed: int = 0, n: int = 8) -> float:
    """Largest |onnxruntime - torch| over random positions of each (width, height), policy
    logits and value probabilities; ExportError when any exceeds TOLERANCE or the shapes differ."""
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    worst = 0.0
    model = model.eval().cpu()
    for width, height in sizes:
        planes = random_positions(rng, n, width, height, players)
        with torch.no_grad():
            tp, tv = (t.numpy() for t in model(torch.from_numpy(planes)))
        op, ov = sess.run(["policy", "value"], {"planes": planes})
        if op.shape != (n, height, width) or ov.shape != (n, players + 1):
            raise ExportError(f"{path}: onnxruntime shapes {op.shape}, {ov.shape} on {width}x{height}, "
                              f"expected {(n, height, width)}, {(n, players + 1)}")
        # on-board policy logits (all cells here), and the value as the probabilities engines
        # read: a tanh value's logit log((1+v)/2) moves by 1/(1+v) per unit of v near -1, so
        # rounding that changes no probability can move it far
        worst = max(worst, float(np.abs(op - tp).max()), float(np.abs(_softmax(ov) - _softmax(tv)).max()))
        if not worst <= TOLERANCE:
            raise ExportError(f"{path}: onnxruntime differs from torch by {worst:.2e} on {width}x{height} "
                              f"(tolerance {TOLERANCE:g})")
    return worst


def export_model(model: PolicyValueNet, out: str | os.PathLike, info: NetInfo,
                 check_sizes: Optional[Sequence[tuple[int, int]]] = None) -> float:
    """Export, write metadata, verify, then rename into place. Returns the worst difference."""
    import onnx
    if info.planes != plane_names(model.players) or info.players != model.players:
        raise ExportError(f"{out}: metadata planes/players do not match the model")
    fixed = getattr(model, "fixed_size", None)      # fully connected heads: their own board only
    if fixed:
        info = replace(info, fixed_size=tuple(fixed))
        check_sizes = [tuple(fixed)]
    elif check_sizes is None:
        s = info.board_sizes
        check_sizes = [(s[0], s[0]), (s[-1] + 2, s[-1] + 1)] if s else [(7, 7), (9, 8)]
    raw = _to_onnx_bytes(model, model.players)
    proto = onnx.load_from_string(raw)
    del proto.metadata_props[:]
    for key, value in info.to_metadata().items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    worst = [0.0]

    def _write(tmp: str) -> None:
        onnx.save_model(proto, tmp)
        worst[0] = verify(tmp, model, model.players, check_sizes)

    write_with(out, _write)
    return worst[0]


def export_evaluator(model: PolicyValueNet, out: str | os.PathLike, provenance: dict[str, Any]) -> None:
    """The numba evaluator's file of a mixF net (engine.search.learned_file), beside its ONNX."""
    from gomoku.engine.game.rules import Rule
    from gomoku.engine.search.learned_file import save_evaluator
    from .mixnet import MixNet
    assert isinstance(model, MixNet)     # the callers ask only for a net with evaluator_weights
    save_evaluator(out, model.evaluator_weights(), model.arch, Rule(int(model.rule_id[0])).label,
                   provenance=provenance)


def model_from_checkpoint(path: str | os.PathLike) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The model a checkpoint holds (eval mode) and its meta dict."""
    ck = load_checkpoint(path)
    model = build_model(ck.arch, ck.players)
    missing, unexpected = model.load_state_dict(ck.model, strict=False)
    if missing or unexpected:
        from .checkpoint import CheckpointError
        raise CheckpointError(f"{path}: weights do not fit architecture {ck.arch} "
                              f"({len(missing)} missing, {len(unexpected)} unexpected tensors)")
    return model.eval(), ck.meta


def info_for(model: PolicyValueNet, meta: dict[str, Any], provenance: dict[str, Any]) -> NetInfo:
    """The NetInfo of a model trained for the game in a checkpoint's meta."""
    return NetInfo(players=model.players, win_length=int(meta.get("win_length", 5)),
                   rules=list(meta.get("rules", ["freestyle"])), board_sizes=list(meta.get("board_sizes", [15])),
                   arch=model.arch, provenance=provenance)


def export_checkpoint(ckpt: str | os.PathLike, out: str | os.PathLike) -> tuple[NetInfo, float]:
    """`gomoku export CKPT OUT.onnx`: the checkpoint's model with its game metadata."""
    model, meta = model_from_checkpoint(ckpt)
    prov = dict(meta.get("provenance", {}))
    prov.update({"checkpoint": Path(ckpt).name, "step": meta.get("step"), "generation": meta.get("generation")})
    info = info_for(model, meta, prov)
    worst = export_model(model, out, info)
    if hasattr(model, "evaluator_weights"):
        from gomoku.engine.search.learned_file import evaluator_path
        export_evaluator(model, evaluator_path(out), prov)
    return info, worst
