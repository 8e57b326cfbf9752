"""What the training studies share: training and matches through the train and match rooms'
own entry points (gomoku.train.start.start_run, gomoku.engine.match.arena.Match), the checks
that the run settings and player specs a study needs exist, and tables.

They run in this process: a study trains ten nets and plays dozens of matches, and each fresh
process would pay torch's and numba's start-up again (seconds each, most of a tiny study's
budget). What a run or match reports goes to a log file under the study's folder, so a failed
one can be read afterwards.
"""
from __future__ import annotations

import dataclasses
import json
import random
import statistics
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, TextIO

import click

Progress = Callable[[str], None]


class StudyError(click.ClickException):
    """A study that cannot run or whose command failed: one line for the user, no traceback."""


def _config_class(kind: str) -> Any:
    """The settings a study's runs are made of: "net" (RunConfig) or "adp" (AdpConfig); both
    modules are torch-free, so the check needs no train extra."""
    if kind == "adp":
        from gomoku.train.adp_config import AdpConfig
        return AdpConfig
    from gomoku.train.config import RunConfig
    return RunConfig


def require_fields(study: str, kind: str, fields: Iterable[str]) -> None:
    """Refuse in one line when the run settings of `kind` ("net": RunConfig, "adp": AdpConfig)
    lack a field the study sets, so a study can land before the setting does and say what it
    waits for."""
    cls = _config_class(kind)
    have = {f.name for f in dataclasses.fields(cls)}
    missing = [f for f in fields if f not in have]
    if missing:
        raise StudyError(f"study {study} needs the run setting {', '.join(missing)} ({cls.__name__}), which "
                         "this build does not have yet")


def require_specs(study: str, specs: Iterable[str]) -> None:
    """Refuse in one line when a player spec the study plays (e.g. pure-mcts with tactics=0, or
    random-net) is not understood by this build's match."""
    from gomoku.engine.match.players import SpecError, parse_spec
    for spec in specs:
        try:
            parse_spec(spec)
        except SpecError as exc:
            raise StudyError(f"study {study} needs the player spec {spec!r}, which this build refuses: "
                             f"{exc}") from None


def require_archs(study: str, archs: Iterable[str]) -> None:
    """Refuse in one line when `--arch` does not know an architecture the study trains."""
    try:
        from gomoku.train.models import ArchError, parse_arch
    except ImportError as exc:
        raise StudyError(f"study {study} trains nets: it needs the train extra "
                         f"(pip install -e '.[train]'): {exc}") from None
    for arch in archs:
        try:
            parse_arch(arch)
        except (ArchError, ValueError) as exc:
            raise StudyError(f"study {study} needs --arch {arch}, which this build does not have yet "
                             f"({exc})") from None


#: The papers' nets end in fully connected heads (`-fc`), but when the small-scale tables of
#: docs/studies.md were measured the trainer's export check refused some of those nets after a
#: few generations (onnxruntime and torch 4e-3 to 1.2e-2 apart on the value logits, tolerance
#: 2e-3, for ffnn-fc6 and cnn3-fc6), so they were measured with the convolutional heads every
#: other net here has; this stays off until the tables are rerun with the papers' heads.
FC_HEADS = False


def paper_arch(name: str, size: int) -> str:
    """The paper's net: with fully connected heads for this board where FC_HEADS says so and
    this build has them, else the net with the project's convolutional heads."""
    return f"{name}-fc{size}" if FC_HEADS and arch_known(f"{name}-fc{size}") else name


def arch_known(arch: str) -> bool:
    """Whether `--arch` takes this name (a study may fall back to a near architecture)."""
    try:
        from gomoku.train.models import parse_arch
        parse_arch(arch)
    except Exception:       # noqa: BLE001 - any refusal means "not here"
        return False
    return True


def net_config(size: int, arch: str, **fields: Any) -> Any:
    """A RunConfig of a size x size board (the AlphaZero loop's run settings): any field the
    study sets, the rest at their defaults as `gomoku train` leaves them. A ladder steps by
    its first rung (`ladder_start`), as the command's --ladder-start sets both."""
    from gomoku.train.config import RunConfig
    if "ladder_start" in fields:
        fields.setdefault("ladder_step", fields["ladder_start"])
    return RunConfig(width=size, height=size, arch=arch, **fields)


def adp_config(size: int, arch: str, hidden: int, **fields: Any) -> Any:
    """An AdpConfig of a size x size freestyle board: one hidden layer of `hidden` units (adp,
    adp-er), as `gomoku train --hidden` gives them."""
    from gomoku.train.adp_config import AdpConfig
    return AdpConfig(width=size, height=size, arch=arch, hidden=[hidden], **fields)


def _log_view(fh: TextIO) -> Any:
    """A training view that writes the run's lines to the study's log and keeps the last."""
    from gomoku.train.view import View

    class LogView(View):
        last_line = ""

        def log(self, text: str) -> None:
            super().log(text)
            if text.strip():
                self.last_line = text.strip().splitlines()[-1]
    return LogView(fh)


def _open_log(log: Path) -> TextIO:
    log.parent.mkdir(parents=True, exist_ok=True)
    return log.open("a", encoding="utf-8")


def train(study: str, run: Path, cfg: Any, log: Path, generations: Optional[int] = None) -> list[dict[str, Any]]:
    """Train (or resume) the run folder `run` with the settings `cfg` (net_config, adp_config)
    through gomoku.train.start, as `gomoku train` does; its metrics records. What the run
    reports goes to `log`; a refusal or crash is a one-line StudyError naming the log (which
    keeps a crash's traceback). torch is held to one thread: the machine is shared and the
    nets are small."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    from gomoku.tools.options import INTERRUPTED
    from gomoku.train.metrics import read_metrics
    try:
        from gomoku.train.start import TrainError, start_run
    except ImportError as exc:
        raise StudyError(f"study {study} trains nets: it needs the train extra "
                         f"(pip install -e '.[train]'): {exc}") from None
    # the run's record of what made it: this study, and which of its runs
    cfg = dataclasses.replace(cfg, command=f"gomoku study {study}: run {run.name}")
    code, message = 0, ""
    with _open_log(log) as fh:
        fh.write(f"$ {cfg.command}: {cfg.arch} in {run}, generations={generations}\n")
        fh.flush()
        view = _log_view(fh)
        try:
            code = start_run(run, cfg, view, generations=generations,
                             asked=[f.name for f in dataclasses.fields(cfg)])
        except TrainError as exc:
            code, message = 1, str(exc)
        except Exception as exc:      # noqa: BLE001 - a crash ends the study in one line
            code, message = 1, f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=fh)
        fh.write((message + "\n" if message else "") + f"[exit {code}]\n")
    if code == INTERRUPTED:
        raise KeyboardInterrupt         # Ctrl-C stopped the run (it resumes): the study stops as a command does
    if code:
        last = message or view.last_line or "no output"
        raise StudyError(f"training {run.name} failed (exit {code}, log {log}): {last}")
    return read_metrics(run / "metrics.jsonl")


def match(a: str, b: str, size: int, games: int, out: Path, log: Path, win: int = 5,
          openings: str = "none", seed: int = 1) -> dict[str, Any]:
    """A against B on a size x size freestyle board with no clock, as `gomoku match A B --size
    SIZE --win WIN -n GAMES -t 0 -o OPENINGS --seed SEED --json OUT` plays it (the match room's
    Match, one game at a time); the report it writes to `out` (the command's JSON, written
    atomically after every game), which says how A did as black and as white. The games go
    to `log`."""
    from gomoku.engine.base.fileio import write_atomic
    from gomoku.engine.game.rules import Rule
    from gomoku.engine.match.arena import GameSettings, Match, MatchSettings, probe_player
    from gomoku.engine.match.players import PlayerError, SpecError, check_game_fit, parse_spec
    from gomoku.protocol.players import make_player
    from gomoku.tools.match_cmd import choose_openings, game_line, json_data
    from gomoku.tools.prepare import ensure_compiled

    rule = Rule.FREESTYLE
    try:
        spec_a, spec_b = parse_spec(a), parse_spec(b)
        warnings = [w for spec in (spec_a, spec_b) for w in check_game_fit(spec, size, size, rule, win)]
        ops = choose_openings(openings, "auto", size, size, rule)
    except (SpecError, click.ClickException) as exc:
        raise StudyError(f"match {a} against {b}: {_one_line(exc)}") from None
    if ops and games > 2 * len(ops):
        raise StudyError(f"match {a} against {b}: {games} games need {(games + 1) // 2} openings and "
                         f"{openings} has {len(ops)}")
    game = GameSettings(width=size, height=size, rule=rule, turn_time=0.0, win_length=win, factory=make_player)
    settings = MatchSettings(game=game, games=games, openings=tuple(ops), seed=seed, concurrency=1)
    ensure_compiled()
    try:
        for spec in (spec_a, spec_b):
            probe_player(spec, game)
    except (SpecError, PlayerError) as exc:
        raise StudyError(f"match {a} against {b}: {exc}") from None
    na, nb = spec_a.name, spec_b.name
    if na == nb:
        nb += "-2"
    # the --json document's settings, as the command writes them
    run_settings = {"rule": rule.label, "width": size, "height": size, "turn_time": 0.0, "match_time": None,
                    "nodes": None, "depth": None, "playouts": None, "tolerance": game.tolerance, "games": games,
                    "openings": openings, "openings_from": 1, "seed": seed, "concurrency": 1, "draw_after": None,
                    "players": [spec_a.text, spec_b.text]}
    out.parent.mkdir(parents=True, exist_ok=True)

    def write(summary: Any, finished: bool) -> str:
        text = json.dumps(json_data(summary, run_settings, finished), indent=1) + "\n"
        try:
            write_atomic(out, text)
        except OSError as exc:
            raise StudyError(f"cannot write {out}: {exc.strerror or exc}") from None
        return text

    from gomoku.engine.match import stats
    m = Match(spec_a.text, spec_b.text, settings, names=(na, nb))
    with _open_log(log) as fh:
        fh.write(f"$ match {spec_a.text} {spec_b.text} ({out.name})\n"
                 + game_line(size, size, rule, win, games, 0.0, None, None, None, None) + "\n"
                 + "".join(f"warning: {w}\n" for w in warnings))
        fh.flush()

        def on_end(res: Any, summary: Any) -> None:
            fh.write(f"Finished game {res.index + 1} ({res.black} vs {res.white}): {res.text()}\n"
                     + stats.score_line(summary.name_a, summary.name_b, *summary.wld()) + "\n")
            fh.flush()
            write(summary, finished=False)
        try:
            summary = m.run(on_game_end=on_end)
        except KeyboardInterrupt:
            m.summary.stopped = "interrupted"
            write(m.summary, finished=True)
            fh.write("Match stopped early: interrupted\n[exit 130]\n")
            raise
        except (SpecError, PlayerError) as exc:
            fh.write(f"{exc}\n[exit 1]\n")
            raise StudyError(f"match {a} against {b} failed (log {log}): {_one_line(exc)}") from None
        fh.write("".join(line + "\n" for line in summary.report_lines()[1:]) + "[exit 0]\n")
    return dict(json.loads(write(summary, finished=True)))


def _one_line(exc: Exception) -> str:
    text = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def net(run: Path, generation: Optional[int] = None) -> Path:
    """A run's net: its best one, or generation g's."""
    return run / "nets" / ("best.onnx" if generation is None else f"gen{generation:05d}.onnx")


def openings_file(path: Path, size: int, count: int, seed: int) -> Path:
    """`count` random two-stone openings near the centre (offset format), so that two nets that
    search deterministically play different games; each is played with both colours."""
    rng = random.Random(seed)
    reach = max(1, min(2, size // 2 - 1))
    cells = [(dx, dy) for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)]
    seen: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    while len(seen) < min(count, len(cells) * (len(cells) - 1)):
        first, second = rng.sample(cells, 2)
        seen.add((first, second))
    lines = [f"{a[0]},{a[1]} {b[0]},{b[1]}" for a, b in sorted(seen)]
    rng.shuffle(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# random two-stone openings, offsets from the centre\n" + "\n".join(lines) + "\n")
    return path


def wld(report: dict[str, Any]) -> str:
    """`W-L-D` of player A."""
    return f"{report['wins']}-{report['losses']}-{report['draws']}"


def score(report: dict[str, Any]) -> float:
    games = report["wins"] + report["losses"] + report["draws"]
    return (report["wins"] + 0.5 * report["draws"]) / games if games else 0.0


def mean_sd(values: Sequence[float]) -> str:
    """`mean/sd` as the three-player paper's Table 3 writes it ('-' for no data, sd 0 for one)."""
    if not values:
        return "-"
    sd = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.0f}/{sd:.0f}"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
