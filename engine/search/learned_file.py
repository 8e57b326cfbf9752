"""Learned evaluator files (`NAME.eval.npz`): the weights the alpha-beta's numba evaluator reads.

A mixF net is exported twice: as ONNX (for MCTS, matches and `gomoku info`, like every net)
and as this file, the same float tables and heads as plain numpy arrays, which the search
quantises when it loads them (engine.search.learned). numpy only: no onnx at play time.

File: an .npz (read with allow_pickle=False) holding the arrays `shape`, `pattern`, `klass`,
`bias`, `w1`, `b1`, `w2`, `b2`, `wp`, `bp` and `meta`, a JSON string:
    format       EVAL_FORMAT
    arch         mixF
    rule         the rule label it was trained for (its pattern lookups are that rule's)
    eval_scale   evaluation units per logit of the expected score
    order_weight move-ordering units per policy logit (0: the policy does not order moves)
    share        percent of the leaf value it gives, the tables the rest (default 100)
    form         "alone": its value is the leaf's; "residual": it corrects the tables' score
                 (value logit = tables' score / eval_scale + its win logit less its loss logit),
                 so with a zero last layer it plays exactly the tables (default "alone")
    provenance   how it was made (command, run, generation, games)
"""
from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gomoku.engine.base.fileio import write_atomic_bytes
from gomoku.engine.game.rules import parse_rule
from gomoku.engine.search.blend import blend_words
from gomoku.engine.search.learned import DEFAULT_EVAL_SCALE, Evaluator, new_evaluator

EVAL_FORMAT = 1
EVAL_SUFFIX = ".eval.npz"
ARRAYS = ("shape", "pattern", "klass", "bias", "w1", "b1", "w2", "b2", "wp", "bp")
#: the two forms of an evaluator's value (the file's `form`)
ALONE, RESIDUAL = "alone", "residual"
FORMS = (ALONE, RESIDUAL)


class EvalFileError(ValueError):
    """An evaluator file that cannot be used; the message is one line naming the file."""


@dataclass
class LearnedEval:
    """A loaded evaluator file: its float weights and what it says it is."""
    weights: dict[str, np.ndarray]
    arch: str
    rule: str
    eval_scale: float = DEFAULT_EVAL_SCALE
    provenance: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    order_weight: int = 0
    share: int = 100          # percent of the leaf value it gives; the tables the rest
    form: str = ALONE         # ALONE or RESIDUAL (a correction to the tables' score)

    @property
    def residual(self) -> bool:
        """Whether its value corrects the tables' score rather than replacing it."""
        return self.form == RESIDUAL

    @property
    def rule_id(self) -> int:
        return int(parse_rule(self.rule))

    @property
    def name(self) -> str:
        """How ABOUT and MESSAGE name it: the file's stem, its architecture and, for a residual
        one, its form."""
        stem = Path(self.path).name
        stem = stem[: -len(EVAL_SUFFIX)] if stem.endswith(EVAL_SUFFIX) else Path(stem).stem
        kind = self.arch if self.form == ALONE else f"{self.arch}, {self.form}"
        return f"{stem} ({kind})" if stem else kind

    @property
    def blend(self) -> str:
        """How it is played besides its own value (`blend.blend_words`): ' at share=50', or ''."""
        return blend_words(self.share, self.order_weight)

    def evaluator(self, n_cells: int, draw_value: float = 0.0) -> Evaluator:
        """A fresh numba evaluator of these weights for boards of `n_cells` padded cells."""
        return new_evaluator(self.weights, n_cells, self.eval_scale, draw_value)


def evaluator_path(net_path: str | os.PathLike) -> Path:
    """The evaluator file that goes with a net file: NAME.onnx -> NAME.eval.npz."""
    p = Path(net_path)
    if p.name.endswith(EVAL_SUFFIX):
        return p
    return p.with_name(p.stem + EVAL_SUFFIX) if p.suffix == ".onnx" else p.with_name(p.name + EVAL_SUFFIX)


def save_evaluator(path: str | os.PathLike, weights: dict[str, np.ndarray], arch: str, rule: str,
                   eval_scale: float = DEFAULT_EVAL_SCALE, provenance: dict[str, Any] | None = None,
                   form: str = ALONE) -> None:
    """Write an evaluator file atomically (a kill leaves the old file or the new one)."""
    if form not in FORMS:
        raise ValueError(f"evaluator form {form!r}, not one of {', '.join(FORMS)}")
    meta = {"format": EVAL_FORMAT, "arch": arch, "rule": parse_rule(rule).label, "eval_scale": float(eval_scale),
            "provenance": provenance or {}, "form": form}
    buf = io.BytesIO()
    np.savez(buf, meta=np.array(json.dumps(meta, sort_keys=True)),
             **{k: np.asarray(weights[k], dtype=np.float32) for k in ARRAYS})  # type: ignore[arg-type]  # allow_pickle
    write_atomic_bytes(path, buf.getvalue())


def load_evaluator(path: str | os.PathLike) -> LearnedEval:
    """Read and check an evaluator file; EvalFileError (one line) when it is missing or not one."""
    p = Path(path)
    if not p.is_file():
        raise EvalFileError(f"evaluator file not found: {p}")
    try:
        with np.load(p, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            weights = {k: np.array(z[k], dtype=np.float32) for k in ARRAYS}
    except (OSError, ValueError, KeyError) as exc:
        raise EvalFileError(f"{p}: not a learned evaluator file ({str(exc).splitlines()[0]})") from None
    if meta.get("format") != EVAL_FORMAT:
        raise EvalFileError(f"{p}: evaluator format {meta.get('format')}, this engine reads {EVAL_FORMAT}")
    try:
        rule = parse_rule(str(meta["rule"])).label
        ev = LearnedEval(weights, str(meta["arch"]), rule, float(meta.get("eval_scale", DEFAULT_EVAL_SCALE)),
                         dict(meta.get("provenance") or {}), str(p), int(meta.get("order_weight", 0)),
                         int(meta.get("share", 100)), str(meta.get("form", ALONE)))
        if ev.form not in FORMS:
            raise ValueError(f"evaluator form {ev.form!r}, this engine reads {' and '.join(FORMS)}")
        ev.evaluator(1)                 # checks every array's shape
    except (KeyError, ValueError) as exc:
        raise EvalFileError(f"{p}: {str(exc).splitlines()[0]}") from None
    return ev
