"""What the training studies share: `gomoku train` and `gomoku match` run through the real
command line, the checks that the options and player specs a study needs exist, and tables.

The commands run in this process (click's `main(args, standalone_mode=False)`), not as
subprocesses: a study trains ten nets and plays dozens of matches, and each fresh process would
pay torch's and numba's start-up again (seconds each, most of a tiny study's budget). What they
print goes to a log file under the study's folder, so a failed run can be read afterwards.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import statistics
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

import click

Progress = Callable[[str], None]


class StudyError(click.ClickException):
    """A study that cannot run or whose command failed: one line for the user, no traceback."""


def _command(name: str) -> click.Command:
    from gomoku.tools.cli import main
    cmd = main.get_command(click.Context(main), name)
    if cmd is None:
        raise StudyError(f"this build has no `gomoku {name}`")
    return cmd


def require_options(study: str, command: str, options: Iterable[str]) -> None:
    """Refuse in one line when `gomoku COMMAND` lacks an option the study passes, so a study can
    land before the option does and say what it waits for."""
    have = {o for p in _command(command).params for o in p.opts}
    missing = [o for o in options if o not in have]
    if missing:
        raise StudyError(f"study {study} needs `gomoku {command} {' '.join(missing)}`, which this build "
                         "does not have yet")


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


def gomoku(words: Sequence[object], log: Path) -> str:
    """`gomoku ARGS` in this process (each argument as its str), its output appended to `log`;
    a failure is a StudyError with the command's last line. Returns what the command printed."""
    from gomoku.tools.cli import main
    args = [str(a) for a in words]
    buf = io.StringIO()
    saved_argv, code, message = sys.argv, 0, ""
    sys.argv = ["gomoku", *args]          # `gomoku train` records its command line from here
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                main.main(args=args, prog_name="gomoku", standalone_mode=False)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except click.exceptions.Exit as exc:
                code = exc.exit_code
            except click.ClickException as exc:
                code, message = 1, exc.format_message()
            except Exception as exc:      # noqa: BLE001 - a command's crash ends the study in one line
                code, message = 1, f"{type(exc).__name__}: {exc}"
                traceback.print_exc(file=buf)
    finally:
        sys.argv = saved_argv
    text = buf.getvalue()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as fh:
        fh.write("$ gomoku " + " ".join(args) + "\n" + text + (message + "\n" if message else "")
                 + f"[exit {code}]\n")
    if code:
        last = message or next((ln for ln in reversed(text.splitlines()) if ln.strip()), "no output")
        raise StudyError(f"`gomoku {args[0]}` failed (exit {code}, log {log}): {last.strip()}")
    return text


def train(run: Path, game: Sequence[object], arch: str, options: dict[str, Any], log: Path) -> list[dict[str, Any]]:
    """Train (or resume) the run folder `run` with `gomoku train`; its metrics records.

    `game` is the board/win/players part of the command (numbers as they are); `options` maps option names to values
    (True for a flag). torch is held to one thread: the machine is shared and the nets are small."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    from gomoku.train.metrics import read_metrics
    args = ["train", *game, "--arch", arch, "--run", str(run), "--no-progress"]
    for key, value in options.items():
        if value is True:
            args.append(key)
        elif value is not None and value is not False:
            args += [key, str(value)]
    gomoku(args, log)
    return read_metrics(run / "metrics.jsonl")


def match(a: str, b: str, game: Sequence[str], games: int, out: Path, log: Path,
          openings: str = "none", seed: int = 1) -> dict[str, Any]:
    """`gomoku match A B` with no clock; the JSON report (`out`), which says how A did as black
    and as white."""
    gomoku(["match", a, b, *game, "-n", str(games), "-t", "0", "-o", openings, "--seed", str(seed),
            "--json", str(out), "--no-progress"], log)
    return json.loads(out.read_text())


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
