"""The brain's peak memory over a short game: the figure behind `timeman.BRAIN_RESIDENT_BYTES`.

A benchmark, not a test: it starts the installed `pbrain-gomoku`, announces `max_memory` and a
turn time, plays a seeded game of random replies against it over the pipe, and reads the
process's peak resident size (VmHWM) from /proc before END, so the figure is that of the
process a manager runs, with the tables that limit gives it. Linux only (/proc).

    python -m gomoku.tools.brain_memory --max-memory 1      # smallest tables: what the brain holds
    python -m gomoku.tools.brain_memory --max-memory 0      # Gomocup's default 350 MB budget
"""
from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import click


def brain_command() -> str:
    beside = Path(sys.executable).parent / "pbrain-gomoku"
    found = str(beside) if beside.exists() else shutil.which("pbrain-gomoku")
    if not found:
        raise click.ClickException("pbrain-gomoku is not installed beside this Python or on PATH")
    return found


def _reply(proc: "subprocess.Popen[str]") -> str:
    """The next answer line, skipping MESSAGE and DEBUG lines."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise click.ClickException("the brain closed its output")
        line = line.strip()
        if line and not line.startswith(("MESSAGE", "DEBUG")):
            return line


def peak_kib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) of a live process in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            fields[key] = int(value.split()[0])
    return fields["VmHWM"], fields["VmRSS"]


def measure(max_memory: int, turn_ms: int, moves: int, seed: int, size: int = 15,
            command: Optional[str] = None) -> tuple[int, int, int]:
    """(peak KiB, resident KiB at the end, moves the brain answered) over one game."""
    proc = subprocess.Popen([command or brain_command()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    assert proc.stdin is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    rng = random.Random(seed)
    answered = 0
    try:
        send(f"INFO max_memory {max_memory}")
        send(f"INFO timeout_turn {turn_ms}")
        send(f"START {size}")
        if _reply(proc) != "OK":
            raise click.ClickException("the brain refused START")
        send("BEGIN")
        taken: set[tuple[int, int]] = set()
        for _ in range(moves):
            answer = _reply(proc)
            if "," not in answer:
                break
            x, y = (int(v) for v in answer.split(","))
            taken.add((x, y))
            answered += 1
            free = [(i, j) for i in range(size) for j in range(size) if (i, j) not in taken]
            if not free:
                break
            mine = rng.choice(free)
            taken.add(mine)
            send(f"TURN {mine[0]},{mine[1]}")
        hwm, rss = peak_kib(proc.pid)
        send("END")
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return hwm, rss, answered


@click.command()
@click.option("--max-memory", type=click.IntRange(0, None), default=0, show_default=True,
              help="The INFO max_memory to announce, in bytes (0: no limit, the 350 MB default).")
@click.option("--turn-ms", type=click.IntRange(50, None), default=1000, show_default=True,
              help="INFO timeout_turn, in milliseconds.")
@click.option("--moves", type=click.IntRange(1, 100), default=13, show_default=True,
              help="Moves the brain plays before the figure is read.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random replies.")
def main(max_memory: int, turn_ms: int, moves: int, seed: int) -> None:
    """Play the installed brain a short game and print its peak memory."""
    if not Path("/proc/self/status").exists():
        raise click.ClickException("needs Linux's /proc to read the peak memory")
    hwm, rss, answered = measure(max_memory, turn_ms, moves, seed)
    click.echo(f"max_memory {max_memory}: peak {hwm / 1024:.0f} MiB (VmHWM), resident {rss / 1024:.0f} MiB "
               f"at the end, over {answered} moves at {turn_ms} ms")


if __name__ == "__main__":
    main()
