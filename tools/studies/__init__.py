"""The papers' experiments as studies `gomoku study NAME` reruns: one module per study here.

Each module defines a module-level `STUDY = Study(...)`; `studies()` finds them by walking this
package, so adding a study is adding a file, with no list to keep in step.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

#: the scales every study accepts: tiny for tests (seconds to a minute), small for a 2-core
#: machine (minutes to an hour), paper for the paper's own scale
SCALES = ("tiny", "small", "paper")


@dataclass(frozen=True)
class StudyResult:
    """What a study hands back: our table beside the paper's, both markdown, and the scale run.

    `data` holds the raw figures for result.json (anything json can write)."""
    table: str
    paper_table: str
    scale: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    """A paper's experiment: `run(scale, out, progress)` writes any extra files under `out` and
    reports through `progress(line)`; `paper` is the short name from docs/references.md."""
    name: str
    paper: str
    summary: str
    run: Callable[[str, Path, Callable[[str], None]], StudyResult]


def studies() -> dict[str, Study]:
    """Every study in this package by name (modules import lazily, so this costs the imports)."""
    found: dict[str, Study] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        study = getattr(module, "STUDY", None)
        if isinstance(study, Study):
            if study.name in found:
                raise RuntimeError(f"two studies are named {study.name!r}")
            found[study.name] = study
    return dict(sorted(found.items()))
