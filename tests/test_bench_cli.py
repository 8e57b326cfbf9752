"""`gomoku bench` through the real CLI (in this process): figures, per-position lines, last line."""
from __future__ import annotations

import re

from click.testing import CliRunner

from cli_runner import gomoku

from gomoku.tools.bench_cmd import BENCH_POSITIONS, signature
from gomoku.tools.cli import main

LAST = re.compile(r"^bench: nodes=(\d+) time_ms=(\d+) nps=(\d+) signature=([0-9a-f]{16})$")


def test_bench_last_line_and_core_figures():
    out = gomoku(["bench", "--depth", "3", "--core-seconds", "0.1"])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    m = LAST.match(lines[-1])
    assert m, lines[-1]
    assert int(m.group(1)) > 0 and int(m.group(3)) > 0
    assert any(re.match(r"core 15x15: random playouts [\d,]+ games/s, [\d,]+ moves/s", ln) for ln in lines)
    assert any(ln.startswith("core 20x20") for ln in lines)
    pos_lines = [ln for ln in lines if ln.startswith("position")]
    assert len(pos_lines) == len(BENCH_POSITIONS)
    nodes = [int(re.search(r"nodes ([\d,]+)", ln).group(1).replace(",", "")) for ln in pos_lines]
    assert sum(nodes) == int(m.group(1))
    assert m.group(4) == signature(nodes)


def test_bench_signature_is_reproducible():
    runner = CliRunner()
    a = runner.invoke(main, ["bench", "--depth", "2", "--no-core"])
    b = runner.invoke(main, ["bench", "--depth", "2", "--no-core"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output
    sig_a = LAST.match(a.output.strip().splitlines()[-1]).group(4)
    sig_b = LAST.match(b.output.strip().splitlines()[-1]).group(4)
    assert sig_a == sig_b
    assert "random playouts" not in a.output


def test_bench_rejects_bad_depth():
    r = CliRunner().invoke(main, ["bench", "--depth", "0"])
    assert r.exit_code != 0 and "Traceback" not in r.output
