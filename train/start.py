"""One way into training: `gomoku train` and the training studies (tools/studies) both hand a
run folder and its settings (a RunConfig, or an AdpConfig for the Fudan paper's learning agents)
to `start_run`, which makes the checks a run needs and trains. The command parses options into
the settings and nothing more, so a study that trains in code gets the same checks, the same
run and the same messages as the command line.

Every refusal is a TrainError (one line); TrainUsageError is the kind that says two settings
cannot go together, which the command reports as a usage error.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Callable, Iterable, Optional, Union

from .adp_config import AdpConfig
from .config import RunConfig
from .view import View

Settings = Union[RunConfig, AdpConfig]

#: the search and learning-rate settings: a resumed run keeps its own, as it keeps every setting
#: but the machine's, and says so when the caller asked for others
KNOBS = ("c_puct", "select", "dirichlet_eps", "dirichlet_alpha", "move_noise", "temperature_moves",
         "lr_schedule", "kl_target", "plateau_patience", "ladder_opponent",
         "scores_holdout", "scores_decided_weight")

TRAIN_EXTRA = "training needs the train extra (pip install -e '.[train]')"


class TrainError(Exception):
    """A run that cannot start or go on: one line for the user."""


class TrainUsageError(TrainError):
    """Settings that cannot go together (the command: a usage error, exit status 2)."""


def kept_knobs(asked: Iterable[str], wanted: RunConfig, kept: RunConfig) -> list[str]:
    """One line per knob the caller asked for that the resumed run does not train with."""
    out = []
    for name in KNOBS:
        if name not in asked:
            continue
        want, have = getattr(wanted, name), getattr(kept, name)
        if want != have:
            flag = "--" + name.replace("_", "-")
            out.append(f"this run keeps {name}={have}: {flag} {want} applies to new runs only")
    return out


def checked(cfg: Settings) -> Settings:
    """The settings as a run trains them, once they pass the checks that need no run folder
    (the ladder's opponent, the architecture sized to the board, a learned evaluator's game, a
    CUDA torch); raises TrainError. start_run makes them again (a checked setting passes
    unchanged): the command makes them first, so a refusal leaves no folder behind."""
    if isinstance(cfg, AdpConfig):
        if cfg.arch == "dqn" and cfg.features != 30:
            raise TrainUsageError("dqn is the paper's Q-learning trial on its 30 features")
        return cfg
    from .evaluate import check_ladder_opponent
    cfg = dataclasses.replace(cfg, ladder_opponent=cfg.ladder_opponent.strip())
    try:
        check_ladder_opponent(cfg.ladder_opponent, cfg.ladder_start)
    except ValueError as exc:
        raise TrainUsageError(str(exc)) from None
    try:
        from .models import ArchError, sized_arch
    except ImportError as exc:
        raise TrainError(f"{TRAIN_EXTRA}: {exc}") from None
    try:
        cfg = dataclasses.replace(cfg, arch=sized_arch(cfg.arch, cfg.width, cfg.height))
    except ArchError as exc:
        raise TrainError(str(exc)) from None
    if cfg.arch.startswith("mix") and (len(cfg.rules) > 1 or cfg.players != 2 or cfg.win_length != 5):
        raise TrainError(f"{cfg.arch}: a learned evaluator is trained for one rule, two players, five in a row "
                         "(start a standard or renju run from a freestyle one with --init)")
    if cfg.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise TrainError("--device cuda: this torch has no CUDA (install a CUDA build of torch 2.13.0)")
    return cfg


def start_run(folder: Union[str, os.PathLike[str]], cfg: Settings, view: View, hours: Optional[float] = None,
              generations: Optional[int] = None, asked: Iterable[str] = (),
              progress: Optional[Callable[[int, int], None]] = None) -> int:
    """Train (or resume) the run folder with these settings until `generations` are done (over
    all resumes) or `hours` of work; its exit status (0, or 130 after Ctrl-C).

    `view` shows the run (an ADP run writes its lines through `view.log`); `asked` names the
    settings the caller chose rather than left at their defaults (a resumed run says which of
    its knobs it keeps instead); `progress(done, total)` follows an ADP run's self-play games.
    Raises TrainError; anything else (a damaged file, a path the system refuses) is left to
    the caller."""
    cfg = checked(cfg)
    if isinstance(cfg, AdpConfig):
        return _start_adp(folder, cfg, view, hours, generations, progress)
    try:
        from .checkpoint import CheckpointError
        from .config import RunError
        from .export import ExportError
        from .loop import TrainingRun
        from .models import ArchError
    except ImportError as exc:
        raise TrainError(f"{TRAIN_EXTRA}: {exc}") from None
    try:
        run = TrainingRun(folder, cfg, view, hours=hours, generations=generations)
        for line in kept_knobs(asked, cfg, run.cfg) if run.resumed else ():
            view.log(line)
        return run.run()
    except (RunError, CheckpointError, ArchError, ExportError) as exc:
        raise TrainError(str(exc)) from None


def _start_adp(folder: Union[str, os.PathLike[str]], cfg: AdpConfig, view: View, hours: Optional[float],
               generations: Optional[int], progress: Optional[Callable[[int, int], None]]) -> int:
    """An ADP critic's TD self-play (gomoku.train.adp), in its own kind of run folder."""
    try:
        from .adp import AdpError, AdpRun
    except ImportError as exc:
        raise TrainError(f"{TRAIN_EXTRA}: {exc}") from None
    try:
        return AdpRun(folder, cfg, view.log, generations=generations, hours=hours, progress=progress).run()
    except AdpError as exc:
        raise TrainError(str(exc)) from None
