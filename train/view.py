"""What `gomoku train` shows while it runs: a rich live panel on a terminal, plain lines otherwise.

The loop only calls the methods of `View`; which one it gets is the CLI's choice (a pipe or a
log file gets `PlainView`, so a CI log reads as a list of events, not of redraws).
"""
from __future__ import annotations

import sys
import time
from typing import Any, Optional, TextIO

from .metrics import ladder_opponent_name


class View:
    """Plain lines: one per phase start, one per finished generation, and the log messages."""

    def __init__(self, out: Optional[TextIO] = None) -> None:
        # sys.stdout as it is when the view is made, not when this module was imported: a
        # caller (click's test runner, a redirect) may have replaced it since
        self.out = out if out is not None else sys.stdout
        self.run: Any = None
        self.gen = 0
        self.name = ""
        self.detail = ""
        self.total = 0
        self.done = 0
        self.train: dict[str, float] = {}
        self.last: dict[str, Any] = {}
        self.t_phase = time.monotonic()

    def start(self, run: Any) -> None:
        self.run = run

    def stop(self) -> None:
        pass

    def log(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def phase(self, gen: int, name: str, detail: str, total: int, done: int) -> None:
        self.gen, self.name, self.detail, self.total, self.done = gen, name, detail, total, done
        self.t_phase = time.monotonic()
        self.log(f"gen {gen} {name}: {detail}")

    def progress(self, done: int, train: Optional[dict[str, float]] = None) -> None:
        self.done = done
        if train:
            self.train = train

    def generation_done(self, record: dict[str, Any]) -> None:
        self.last = record
        self.log(summary_line(record))


def workers_label(c: Any) -> str:
    """Where self-play runs, for the panel: '2 workers', 'ray local, 2 workers', 'ray HOST:PORT'.
    The count is what the run starts: the cores this process may use (train.config)."""
    n = c.worker_count()
    workers = "1 worker" if n == 1 else f"{n} workers"
    if not getattr(c, "ray", None):
        return workers
    if c.ray != "local" and c.workers <= 0:
        return f"ray {c.ray}"
    return f"ray {c.ray}, {workers}"


def keep_output_at_ctrl_c(stream: Any) -> Optional[tuple[int, list[Any]]]:
    """Have the terminal keep what the panel wrote when Ctrl-C comes, and not echo '^C': by
    default the tty driver drops the output still queued at an interrupt and writes '^C' at
    the cursor, so the panel's last frame reached the screen cut, the live view's count of its
    rows went wrong, and its final frame was drawn below a stray copy of the top border.
    Returns (fd, the settings before) for `restore_terminal`, or None where there is no such
    terminal (a pipe, Windows)."""
    try:
        import termios
        fd = stream.fileno()
        before = termios.tcgetattr(fd)
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - termios.error: not a terminal
        return None
    quiet = list(before)
    quiet[3] = (quiet[3] | termios.NOFLSH) & ~termios.ECHOCTL
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except Exception:  # noqa: BLE001 - a terminal that refuses: the view works as before
        return None
    return fd, before


def restore_terminal(fd: int, before: list[Any]) -> None:
    """Put back the terminal settings `keep_output_at_ctrl_c` changed."""
    try:
        import termios
        termios.tcsetattr(fd, termios.TCSANOW, before)
    except Exception:  # noqa: BLE001 - the terminal may be gone (ssh closed): nothing to restore
        pass


def summary_line(r: dict[str, Any]) -> str:
    """One line per generation: games, losses, entropy, gating and ladder results."""
    parts = [f"gen {r['generation']} done:"]
    sp = r.get("selfplay") or {}
    if sp:
        parts.append(f"{sp.get('games')} {sp.get('source')} games ({sp.get('positions')} positions, "
                     f"{sp.get('seconds')} s)")
    tr = r.get("train") or {}
    if tr:
        parts.append(f"loss {tr.get('loss', 0):.3f} (policy {tr.get('policy_loss', 0):.3f}, value "
                     f"{tr.get('value_loss', 0):.3f}), entropy {tr.get('entropy', 0):.2f}, kl {tr.get('kl', 0):.4f}, "
                     f"lr x{tr.get('lr_mult', 1):.2f}, step {r.get('step')}")
        if "teacher_held" in tr:
            parts.append(f"teacher held out {tr['teacher_held']:.3f}"
                         + (f" (tables {tr['teacher_held_tables']:.3f})" if "teacher_held_tables" in tr else ""))
        if "teacher_held_quiet" in tr:
            parts.append(f"quiet {tr['teacher_held_quiet']:.3f}"
                         + (f" (tables {tr['teacher_held_quiet_tables']:.3f})"
                            if "teacher_held_quiet_tables" in tr else ""))
    gt = r.get("gating") or {}
    if "score" in gt:
        parts.append(f"vs best gen {gt['against']}: {gt['wins']}-{gt['losses']}-{gt['draws']}{_points(gt)} "
                     f"{'accepted' if gt['accepted'] else 'rejected'}")
    ld = r.get("ladder") or {}
    if ld:
        parts.append(f"vs {ladder_opponent_name(ld)}: {ld['wins']}-{ld['losses']}-{ld['draws']}{_points(ld)}"
                     + (" beaten" if ld.get("beaten") else ""))
    cl = r.get("classical") or {}
    if cl:
        parts.append(f"vs classical:{cl['level']}: {cl['wins']}-{cl['losses']}-{cl['draws']}"
                     + (" beaten" if cl.get("beaten") else ""))
    parts.append(f"best gen {r.get('best')}")
    return " ".join(parts[:1]) + " " + "; ".join(parts[1:])


def _points(rec: dict[str, Any]) -> str:
    """', points A-B' for an n-player match record (the three-player Gobang paper's win 3 / draw 1 / loss 0), else ''."""
    t = rec.get("totals")
    return f", points {t['A']}-{t['B']}" if isinstance(t, dict) else ""


class RichView(View):
    """A live panel: run, phase with a progress bar, the last update's figures, the last
    generation's summary and the ladder of beaten pure-MCTS opponents."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console
        self.console = Console()
        self.live: Any = None
        self.lines: list[str] = []
        self.tty: Optional[tuple[int, list[Any]]] = None

    def start(self, run: Any) -> None:
        from rich.live import Live
        super().start(run)
        self.tty = keep_output_at_ctrl_c(self.console.file)
        self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False,
                         get_renderable=self._render)
        self.live.start()

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
        if self.tty is not None:
            restore_terminal(*self.tty)
            self.tty = None

    def log(self, text: str) -> None:
        self.lines = (self.lines + [text])[-6:]
        if self.live is None:
            self.console.print(text)

    def _render(self) -> Any:
        from rich.panel import Panel
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        t = Table.grid(padding=(0, 1))
        t.add_column(style="bold cyan", justify="right")
        t.add_column()
        run = self.run
        if run is not None:
            c, st = run.cfg, run.state
            hours = f" of {run.hours:g} h" if run.hours else ""
            t.add_row("run", f"{run.dir}  {c.arch}  {c.width}x{c.height} {c.rule}  {c.win_length} in a row  "
                             f"{workers_label(c)}  {c.device}")
            t.add_row("totals", f"generation {st.generation} done, {st.games} games, {st.positions} positions, "
                                f"step {st.step}, best gen {st.best}, {run.elapsed() / 3600:.2f} h{hours}")
        if self.name:
            bar = ProgressBar(total=max(1, self.total), completed=min(self.done, self.total), width=30)
            row = Table.grid(padding=(0, 1))
            row.add_row(bar, f"{self.done}/{self.total}  {time.monotonic() - self.t_phase:.0f} s")
            t.add_row(f"gen {self.gen} {self.name}", self.detail)
            t.add_row("", row)
        if self.train:
            tr = self.train
            t.add_row("train", f"loss {tr.get('loss', 0):.3f}  policy {tr.get('policy_loss', 0):.3f}  value "
                               f"{tr.get('value_loss', 0):.3f}  entropy {tr.get('entropy', 0):.2f}  "
                               f"kl {tr.get('kl', 0):.4f}  lr {tr.get('lr', 0):.2e}")
        if run is not None and run.state.beaten:
            t.add_row("beaten", "  ".join(f"{k} @ step {v}" for k, v in run.state.beaten.items()))
        for line in self.lines:
            t.add_row("", line)
        return Panel(t, title="gomoku train", border_style="blue")
