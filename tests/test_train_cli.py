"""CLI edges of training: torch stays out of everything but train/export/plot, and bad input
(unknown architecture, another game on an existing run, damaged checkpoint, --ray without Ray)
is one line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GOMOKU = str(Path(sys.executable).with_name("gomoku"))


def test_torch_is_imported_by_training_only() -> None:
    code = ("import sys\n"
            "import gomoku.tools.cli, gomoku.tools.train_cmd, gomoku.tools.export_cmd, gomoku.tools.plot_cmd\n"
            "import gomoku.train.workers, gomoku.train.bootstrap, gomoku.train.evaluate, gomoku.train.games\n"
            "import gomoku.train.raypool\n"
            "import gomoku.engine.mcts.selfplay, gomoku.protocol.brain\n"
            "assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules, 'torch imported'\n"
            "assert 'ray' not in sys.modules, 'ray imported without --ray'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([GOMOKU, *args], capture_output=True, text=True, timeout=120)


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    bad = _run("train", "--board", "7", "--arch", "resnet", "--run", str(tmp_path / "r"))
    assert bad.returncode != 0 and "unknown architecture 'resnet'" in bad.stderr and "Traceback" not in bad.stderr
    bad = _run("train", "--board", "30", "--run", str(tmp_path / "r"))
    assert bad.returncode != 0 and "5..22" in bad.stderr
    ckpt = tmp_path / "broken.safetensors"
    ckpt.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    bad = _run("export", str(ckpt), str(tmp_path / "out.onnx"))
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert str(ckpt) in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.onnx").exists()


def test_ray_without_the_extra_is_one_line(tmp_path: Path) -> None:
    code = ("import sys\n"
            "sys.modules['ray'] = None          # as if the ray extra were not installed\n"
            "from gomoku.tools.cli import main\n"
            f"sys.argv = ['gomoku', 'train', '--board', '7', '--ray', 'local', '--run', {str(tmp_path / 'r')!r}]\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "pip install" in out.stderr and "[ray]" in out.stderr
    assert not (tmp_path / "r").exists()
