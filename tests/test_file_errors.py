"""A file the user named and that is not there gets one wording in every command:
`WHAT file not found: PATH` (engine/base/fileio.py `cannot_read`), the wording of a missing net."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku.engine.base.fileio import cannot_read
from gomoku.tools.cli import main


def test_the_wording_of_each_reason(tmp_path: Path) -> None:
    assert cannot_read("tables", "t.json", FileNotFoundError()) == "tables file not found: t.json"
    assert cannot_read("record", tmp_path, IsADirectoryError()) == f"record file {tmp_path} is a folder"
    assert cannot_read("openings", "o.txt", PermissionError(13, "Permission denied")) == \
        "cannot read openings file o.txt: Permission denied"


@pytest.mark.parametrize("args,line", [
    (["bench", "--eval", "nope.eval.npz"], "evaluator file not found: nope.eval.npz"),
    (["bench", "--net", "nope.onnx"], "ONNX file not found: nope.onnx"),
    (["tune", "--scores", "nope.txt"], "scores file not found: nope.txt"),
    (["export", "nope.pt"], "checkpoint file not found: nope.pt"),
    (["plot", "nope"], "run folder not found: nope"),
    (["match", "classical:tables=nope.json", "random", "-n", "2"], "tables file not found: nope.json"),
    (["match", "classical:params=nope.json", "random", "-n", "2"], "parameter file not found: nope.json"),
    (["match", "classical:eval=nope.eval.npz", "random", "-n", "2"], "evaluator file not found: nope.eval.npz"),
    (["match", "nope.onnx", "random", "-n", "2"], "ONNX file not found: nope.onnx"),
    (["match", "classical", "random", "-n", "2", "-o", "nope.txt"], "openings file not found: nope.txt"),
    (["analyze", "nope.sgf"], "record file not found: nope.sgf"),
])
def test_every_command_says_it_alike(args: list[str], line: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (1, 2), result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: ") and last.endswith(line), result.output
