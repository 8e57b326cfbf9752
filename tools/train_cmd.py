"""`gomoku train`: AlphaZero self-play training (gomoku.train.loop); torch is imported only here, lazily.

Every option that sets a field of the run's configuration (`gomoku.train.config.RunConfig`,
or `gomoku.train.adp_config.AdpConfig` for the options only the ADP agents take) takes its
default from that field (`run_option`, `adp_option`), so the command and a run made in code
(a test, a study) train with the same settings unless told otherwise.
"""
from __future__ import annotations

import dataclasses
import functools
import shlex
import sys
from typing import Any, Callable, Optional, TypeVar

import click
from click.core import ParameterSource

from gomoku.tools.options import ExistingFile, board_option, output_path, progress_option, rule_option

_F = TypeVar("_F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=2)
def config_defaults(kind: str) -> dict[str, Any]:
    """The field defaults of a run's settings, "run" (RunConfig) or "adp" (AdpConfig, the
    options only the ADP agents take): the defaults of the options that set those fields.
    Read in a function, as tools reads the train room; neither module needs torch."""
    from gomoku.train.adp_config import AdpConfig
    from gomoku.train.config import RunConfig
    settings: Any = RunConfig if kind == "run" else AdpConfig
    return {f.name: f.default for f in dataclasses.fields(settings) if f.default is not dataclasses.MISSING}


def _config_option(kind: str, decls: tuple[str, ...], kw: dict[str, Any]) -> Callable[[_F], _F]:
    """A click option that sets the field it is named after (the declaration without dashes,
    else the longest --name), with that field's default (as its str for a Choice of strings):
    a KeyError at import when the names drift apart."""
    plain = [d for d in decls if not d.startswith("-")]
    field = plain[0] if plain else max((d for d in decls if d.startswith("--")), key=len)[2:].replace("-", "_")
    default = config_defaults(kind)[field]
    if isinstance(kw.get("type"), click.Choice):
        default = str(default)
    return click.option(*decls, default=default, **kw)


def run_option(*decls: str, **kw: Any) -> Callable[[_F], _F]:
    """An option that sets a RunConfig field, with its default (`_config_option`)."""
    return _config_option("run", decls, kw)


def adp_option(*decls: str, **kw: Any) -> Callable[[_F], _F]:
    """An option that sets an AdpConfig field, with its default (`_config_option`)."""
    return _config_option("adp", decls, kw)


def _arch_default() -> str:
    """--arch's default as its help says it (train.config.default_arch decides)."""
    from gomoku.train.config import default_arch
    return f"{default_arch('cuda')} on cuda, {default_arch('cpu')} on cpu"


def _run_arch(run_dir: str) -> Optional[str]:
    import json
    from pathlib import Path
    try:
        return str(json.loads((Path(run_dir) / "config.json").read_text())["arch"])
    except (OSError, ValueError, KeyError):
        return None


def _asked() -> list[str]:
    """The options given on the command line (not left at their defaults): a resumed run says
    which of its knobs it keeps instead of these (gomoku.train.start.kept_knobs)."""
    ctx = click.get_current_context()
    return [p.name for p in ctx.command.params
            if p.name and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE]


def _command_line() -> str:
    """The command as the user typed it, for config.json and the shipped nets' manifest."""
    args = sys.argv[1:]
    if args[:1] == ["train"]:
        args = args[1:]
    return "gomoku train " + " ".join(shlex.quote(a) for a in args)


#: the Fudan paper's learning agents (gomoku.train.adp_config.ADP_ARCHS) and the options only they take
_ADP_NAMES = ("adp", "adp-er", "dqn")
_ADP_OPTIONS = ("features", "hidden", "alpha", "gamma", "epsilon", "buffer", "replay_batch")
#: the options an ADP run reads besides those
_ADP_SHARED = ("arch", "rule", "games_per_gen", "seed", "run_dir", "hours", "generations", "progress", "plain",
               "board")


def _train_adp(width: int, height: int, rule: list, run_dir: Optional[str], hours: Optional[float],
               generations: Optional[int], progress: Optional[bool], plain: bool, opts: dict[str, Any],
               adp: dict[str, Any]) -> None:
    """`gomoku train --arch adp|adp-er|dqn`: gomoku.train.adp's TD self-play, its own run folder."""
    ctx = click.get_current_context()
    ignored = sorted("--" + p.name.replace("_", "-") for p in ctx.command.params
                     if p.name and p.name not in _ADP_SHARED and p.name not in _ADP_OPTIONS
                     and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE)
    if ignored:
        raise click.UsageError(f"--arch {opts['arch'] or 'adp'} trains a critic by TD self-play: "
                               f"{', '.join(ignored)} apply to the AlphaZero loop only")
    if len(rule) > 1:
        raise click.UsageError("an ADP critic trains under one rule")
    if opts["win_length"] != 5 or opts["players"] != 2:
        raise click.UsageError("the Fudan paper's agents play two players, five in a row")
    from gomoku.train.adp_config import ADP_ARCHS, AdpConfig
    from gomoku.train.view import View
    run_dir = run_dir or f"runs/{width}x{height}-{rule[0].label}"
    arch = opts["arch"] or _run_arch(run_dir) or "adp"
    hidden = [adp["hidden"]] if adp["hidden"] is not None else list(ADP_ARCHS[arch][0])
    if arch == "dqn" and adp["hidden"] is not None:
        hidden = [adp["hidden"], adp["hidden"]]
    cfg = AdpConfig(width=width, height=height, rule=rule[0].label, arch=arch, features=int(adp["features"]),
                    hidden=hidden, alpha=adp["alpha"], gamma=adp["gamma"], epsilon=adp["epsilon"],
                    buffer=adp["buffer"], replay_batch=adp["replay_batch"], games_per_gen=opts["games_per_gen"],
                    seed=opts["seed"], command=_command_line())
    cfg = _prepare(run_dir, cfg)
    live = not plain and (sys.stdout.isatty() if progress is None else progress)
    if live:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn()) as bar:
            task = bar.add_task("self-play", total=cfg.games_per_gen)

            class BarLines(View):
                """The run's lines above the bar."""

                def log(self, text: str) -> None:
                    bar.console.print(text)

            def show(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)
            code = _start(run_dir, cfg, BarLines(), hours, generations, progress=show)
    else:
        code = _start(run_dir, cfg, View(), hours, generations)
    if code:
        sys.exit(code)


def _refusals(call: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """A gomoku.train.start call, its refusals as one-line errors."""
    try:
        from gomoku.train.start import TrainError, TrainUsageError
    except ImportError as exc:
        raise click.ClickException(f"training needs the train extra (pip install -e '.[train]'): {exc}") from None
    try:
        return call(*args, **kw)
    except TrainUsageError as exc:
        raise click.UsageError(str(exc)) from None
    except TrainError as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:      # a damaged shard or net file: one line naming it
        raise click.ClickException(str(exc)) from None


def _prepare(run_dir: str, cfg: Any) -> Any:
    """The settings as gomoku.train.start checks them, before the --run folder is made (so a
    refusal leaves none behind), then the folder checked."""
    from gomoku.train.start import checked
    cfg = _refusals(checked, cfg)
    output_path(run_dir, "--run", folder=True)
    return cfg


def _start(run_dir: str, cfg: Any, view: Any, hours: Optional[float], generations: Optional[int],
           **kw: Any) -> int:
    """gomoku.train.start.start_run: the run, its exit status."""
    from gomoku.train.start import start_run
    return int(_refusals(start_run, run_dir, cfg, view, hours=hours, generations=generations, **kw))


@click.command(context_settings={"show_default": True})
@board_option(default=None, required=True, help="Board size: N or WxH, sides 5..22.")
@rule_option(several=True, help="freestyle, standard, renju, caro, caro5, or several comma-separated (one net "
                                "for all: self-play alternates them; measured under the first).")
@run_option("--win", "win_length", type=click.IntRange(3, 6), help="Stones in a row that win.")
@run_option("--players", type=click.IntRange(2, 4),
            help="Seats at the board: 3 or 4 train a net for multi-player Gobang.")
@click.option("--run", "run_dir", default=None,
              help="Run folder, made if missing; an existing run resumes [default: runs/<W>x<H>-<rule> in the "
                   "current folder].")
@click.option("--arch", default=None, show_default=False,
              help="bXcY (ResNet), cnn3, skip3, ffnn, tfmNcC, or mixF: the alpha-beta's learned evaluator, "
                   "whose games after --bootstrap are the alpha-beta's with it (--bootstrap-nodes per move); "
                   "or the Fudan paper's learning agents, adp, adp-er (with experience replay) and dqn (its "
                   "Q-learning trial), TD-trained critics played one ply deep "
                   f"[default: {_arch_default()}].")
@adp_option("--features", type=click.Choice(["30", "274"]),
              help="adp, adp-er, dqn: the critic's pattern features, the Fudan paper's 30 or Zhao's 274 "
                   "(docs/train.md).")
@click.option("--hidden", type=click.IntRange(1), default=None,
              help="adp, adp-er: units of the critic's hidden layer [default: 100; dqn: two layers of 16].")
@adp_option("--alpha", type=click.FloatRange(0.0, min_open=True),
              help="adp, adp-er, dqn: the critic's learning rate a in e(t) = a[(r + g V(s')) - V(s)].")
@adp_option("--gamma", type=click.FloatRange(0.0, 1.0),
              help="adp, adp-er, dqn: the discount g (1: V stays black's win probability).")
@adp_option("--epsilon", type=click.FloatRange(0.0, 1.0),
              help="adp, adp-er, dqn: share of self-play moves played at random among the candidate cells.")
@adp_option("--buffer", type=click.IntRange(1),
              help="adp-er: transitions the experience buffer keeps.")
@adp_option("--replay-batch", type=click.IntRange(1),
              help="adp-er: new transitions between two passes over the buffer in a random permutation.")
@click.option("--hours", type=float, default=None, help="Stop after this much work (over all resumes).")
@click.option("--generations", type=click.IntRange(0), default=None,
              help="Stop when this many generations are done (0: only create the run, with --init/--distil).")
@run_option("--games-per-gen", type=click.IntRange(1), help="Self-play games per generation.")
@run_option("--playouts", type=click.IntRange(2), help="Self-play playouts per full search.")
@run_option("--c-puct", type=click.FloatRange(0.0, min_open=True),
            help="Exploration constant of self-play's search, and of the run's nets in gating and the ladder.")
@run_option("--select", type=click.Choice(["puct", "ucb1", "plain"]),
            help="Selection rule of those searches: puct (AlphaZero), ucb1 (the Columbia paper's UCB1, "
                 "Q + c sqrt(ln N / n), no prior) or plain (its modified rule, Q + P / (1 + n), no c).")
@run_option("--dirichlet-eps", type=click.FloatRange(0.0, 1.0),
            help="Share of Dirichlet noise in the priors at the root of self-play's full searches.")
@run_option("--dirichlet-alpha", type=click.FloatRange(0.0),
            help="Concentration of that noise and of --move-noise (0: 10 / cells on the board).")
@run_option("--move-noise", type=click.FloatRange(0.0, 1.0),
            help="Share of Dirichlet noise mixed into self-play's move distribution after the search (the "
                 "UCAS Gobang paper's exploration; the policy target stays the visits). 0: off.")
@run_option("--temperature-moves", type=click.IntRange(0),
            help="Self-play moves sampled in proportion to visits before it plays the most visited "
                 "(0: a sixth of the cells).")
@run_option("--parallel-games", type=click.IntRange(1),
            help="Games one worker searches together (one net batch); also the chunk size on disk.")
@run_option("--full-search-prob", type=click.FloatRange(0.0, 1.0),
            help="Playout cap randomisation: share of moves searched fully and recorded.")
@run_option("--opening-stones", type=click.IntRange(0, 8),
            help="Start each self-play game from 0..N random stones in the central 5x5 square (not trained "
                 "on): more varied, more decisive games once the net has learnt to block.")
@run_option("--draw-value", type=click.FloatRange(-1.0, 0.0),
            help="What self-play's search counts a draw as, for both sides (-1..0). Below 0 each side "
                 "plays for a win where the net sees a draw; the value targets stay the real outcome.")
@run_option("--resign", "resign_threshold", type=click.FloatRange(0.0, 1.0),
            help="Resign below this value (0: never); 10 % of games never resign, to check it.")
@run_option("--bootstrap", "bootstrap_generations", type=click.IntRange(0),
            help="First generations from classical-engine games (2 players, five in a row).")
@run_option("--bootstrap-nodes", type=click.IntRange(100),
            help="Alpha-beta nodes per move in the classical-engine games of --bootstrap (and, for mixF, "
                 "in every generation's games).")
@run_option("--batch", "batch_size", type=click.IntRange(1), help="Positions per training update.")
@run_option("--updates", "updates_per_gen", type=click.IntRange(1),
            help="Training updates per generation: each draws one --batch and takes up to "
                 f"{config_defaults('run')['epochs']} optimiser steps on it; the view's 'step' counts optimiser steps "
                 "over the whole run.")
@run_option("--lr-schedule", type=click.Choice(["kl", "plateau", "constant"]),
            help="Learning-rate multiplier: kl (raised or lowered by 1.5 per update to keep the policy's "
                 "KL near --kl-target, halfway back to 1x each generation), plateau (halved after "
                 "--plateau-patience generations without a better loss, the UCAS Gobang paper) or constant.")
@run_option("--kl-target", type=click.FloatRange(0.0, min_open=True),
            help="--lr-schedule kl: the policy's KL divergence per update the multiplier aims at.")
@run_option("--plateau-patience", type=click.IntRange(1),
            help="--lr-schedule plateau: generations whose mean loss is not 1 % below the best before the "
                 "rate halves.")
@run_option("--window", type=click.IntRange(1), help="Positions in the replay window.")
@run_option("--eval-games", type=click.IntRange(0),
            help="Gating games against the best net (0: always replace; 3-4 players: whole cycles of 2 x players).")
@run_option("--eval-playouts", type=click.IntRange(2),
            help="Playouts per move in the gating games.")
@run_option("--gate", type=click.FloatRange(0.0, 1.0), help="Score to replace the best net (0: always).")
@run_option("--ladder-games", type=click.IntRange(0),
            help="Games against pure MCTS per generation (3-4 players: rounded up to whole cycles of 2 x players).")
@run_option("--ladder-opponent", metavar="SPEC",
            help="The ladder's opponent as a player spec; each rung appends playouts=N "
                 "('pure-mcts:tactics=0': AlphaZero_Gomoku's mcts_pure, as the UCAS Gobang paper's ladder).")
@run_option("--classical-games", type=click.IntRange(0),
            help="Games against the classical engine's next level (1..5) per generation.")
@run_option("--ladder-start", type=click.IntRange(1),
            help="Pure-MCTS playouts of the ladder's first rung; each rung beaten adds as many.")
@run_option("--dynamic-playouts", type=click.IntRange(0),
            help="Raise self-play playouts by this when the ladder stalls (as the three-player paper does).")
@run_option("--stall-generations", type=click.IntRange(1),
            help="Generations without a new ladder rung before --dynamic-playouts raises the playouts.")
@run_option("--workers", type=click.IntRange(0),
            help="Self-play processes, or Ray actors with --ray (0: one per core; a cluster's CPUs).")
@run_option("--device", type=click.Choice(["cpu", "cuda"]),
            help="Where torch trains (cuda needs a CUDA build of torch); self-play runs onnxruntime.")
@run_option("--init", "init", type=ExistingFile("checkpoint"),
            help="Start from this checkpoint's weights (new runs only).")
@run_option("--distil", type=ExistingFile("run folder", folder=True), metavar="RUN",
            help="New runs only: first train the new net on this run folder's newest --window positions "
                 "(copied into the new run), so a larger --arch starts where a smaller run got to.")
@run_option("--distil-updates", type=click.IntRange(1), help="Training updates of --distil.")
@click.option("--scores", multiple=True, type=ExistingFile("scores"), metavar="FILE",
              help="Positions a stronger engine scored (`gomoku tune --scores` files, of the run's rule and "
                   "size; repeatable): a batch of them joins every update as soft value targets. New runs only.")
@run_option("--scores-batch", type=click.IntRange(1), help="Scored positions per update.")
@run_option("--scores-holdout", type=click.FloatRange(0.0, 0.5), show_default=True,
            help="Share of the scored games (whole games) kept out of training: each generation reports the "
                 "value head's loss on them beside the tables'.")
@run_option("--scores-decided-weight", type=click.FloatRange(0.0, 1.0), show_default=True,
            help="How often a scored position the teacher announces as won or lost (P 1 or 0) is drawn, "
                 "against a quiet one: below 1 trains the value head more on the positions a search cannot "
                 "settle with its threat solvers.")
@run_option("--seed", type=int, help="Seed of self-play, sampling and initial weights.")
@click.option("--ray", default=None, metavar="ADDRESS|local",
              help="Self-play on Ray actors: 'local' starts Ray on this machine with --workers CPUs; an "
                   "address (host:port, ray://host:10001) joins a cluster whose nodes have this gomoku "
                   "installed. Games come back to this process, which writes the run folder, so nodes "
                   "need no shared filesystem. Needs the ray extra.")
@progress_option(help="Live panel (default: when stdout is a terminal); --no-progress prints plain log lines.")
@click.option("--plain", is_flag=True, hidden=True, help="The old name of --no-progress.")
def train(board: tuple[int, int], rule: list, run_dir: Optional[str], hours: Optional[float],
          generations: Optional[int], ray: Optional[str], progress: Optional[bool], plain: bool, **opts) -> None:
    """Train a policy-value net by self-play; the same command on an existing --run resumes it."""
    width, height = board
    adp_opts = {k: opts.pop(k) for k in _ADP_OPTIONS}
    if opts["arch"] in _ADP_NAMES or (opts["arch"] is None and _run_arch(run_dir or "") in _ADP_NAMES):
        _train_adp(width, height, rule, run_dir, hours, generations, progress, plain, opts, adp_opts)
        return
    if ray is not None:
        from gomoku.train.raypool import RAY_MISSING, ray_available
        if not ray_available():
            raise click.ClickException(RAY_MISSING)
        if not ray.strip():
            raise click.BadParameter("give 'local' or a Ray cluster address", param_hint="--ray")
    rules = [r.label for r in rule]
    from gomoku.train.config import RunConfig, default_arch
    from gomoku.train.view import RichView, View
    run_dir = run_dir or f"runs/{width}x{height}-{'-'.join(rules)}"
    arch = opts.pop("arch") or _run_arch(run_dir) or default_arch(opts["device"])   # resuming keeps its own
    ladder_start = opts.pop("ladder_start")
    opts["scores"] = [str(p) for p in opts.pop("scores")]
    cfg = RunConfig(width=width, height=height, rule=",".join(rules), arch=arch, ladder_start=ladder_start,
                    ladder_step=ladder_start, ray=ray.strip() if ray else None, command=_command_line(),
                    **opts)
    cfg = _prepare(run_dir, cfg)
    live = not plain and (sys.stdout.isatty() if progress is None else progress)
    sys.exit(_start(run_dir, cfg, RichView() if live else View(), hours, generations, asked=_asked()))
