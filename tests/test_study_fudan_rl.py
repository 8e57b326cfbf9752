"""`gomoku study fudan-rl --scale tiny` end to end through the real command (in this process): both critics
trained, the five agents' round robin and the references played, our table beside the
paper's Table III; the same command again reuses every finished part."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from cli_runner import Ran
from cli_runner import gomoku as run_gomoku


def gomoku(*args: str) -> Ran:
    return run_gomoku(args)


def test_the_tiny_study_writes_our_table_beside_table_iii_and_resumes(tmp_path):
    out = tmp_path / "rl"
    p = gomoku("study", "fudan-rl", "--scale", "tiny", "--out", str(out))
    assert p.returncode == 0, p.stderr[-3000:]
    md = (out / "result.md").read_text()
    assert "command: `gomoku study fudan-rl --scale tiny --out" in md
    for agent in ("ADP", "ADP-ER", "HMCTS", "Minimax", "Minimax+TSS"):
        assert f"| {agent} |" in md
    assert "| ADP-ER | 5:7 | 6:6 | 1:11 | 5:7 | 0:12 | 4:8 | 0.29 |" in md      # the paper's row
    rec = json.loads((out / "result.json").read_text())
    pairings = rec["data"]["pairings"]
    assert len(pairings) == 10 + 20                       # the round robin, then four references each
    assert all(sum(r.values()) == 2 for r in pairings.values())
    assert (out / "adp" / "nets" / "best.onnx").is_file() and (out / "adp-er" / "nets" / "best.onnx").is_file()
    # again: nothing is trained or played twice
    before = (out / "match.log").stat().st_size
    p = gomoku("study", "fudan-rl", "--scale", "tiny", "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    assert (out / "match.log").stat().st_size == before
    assert json.loads((out / "result.json").read_text())["data"]["pairings"] == pairings
