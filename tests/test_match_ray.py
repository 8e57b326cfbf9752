"""`gomoku match --ray local`: the games played on Ray actors are the games local worker
processes play (fixed nodes are deterministic), with the same report and SPRT; a cluster
address nobody answers at is one line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku.tools.cli import main

GOMOKU = str(Path(sys.executable).with_name("gomoku"))
ARGS = ["match", "classical:nodes=400", "classical:nodes=400,name=b", "-n", "4", "-t", "0", "-o", "book",
        "-c", "2", "--sprt", "elo0=0", "elo1=10", "--no-progress"]


@pytest.mark.slow
@pytest.mark.process
def test_ray_local_plays_the_games_local_workers_play(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    """Real processes: Ray starts its own Python daemons, which must end with the command."""
    on_ray, local = tmp_path / "ray.json", tmp_path / "local.json"
    r = subprocess.run([GOMOKU, *ARGS, "--ray", "local", "--json", str(on_ray)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Ptnml(0-2)" in r.stdout and "SPRT" in r.stdout
    r = subprocess.run([GOMOKU, *ARGS, "--json", str(local)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    a, b = json.loads(on_ray.read_text()), json.loads(local.read_text())
    assert [g["moves"] for g in a["results"]] == [g["moves"] for g in b["results"]]
    assert a["pairs"] == b["pairs"] and a["sprt"] == b["sprt"]


def test_ray_at_an_address_nobody_answers_is_one_line():
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    r = CliRunner().invoke(main, ["match", "random", "random:name=b", "-n", "2", "-t", "0", "--ray", "127.0.0.1:9"])
    assert r.exit_code == 1
    assert "--ray 127.0.0.1:9: no Ray cluster answers there" in r.output
    assert "Traceback" not in r.output


def test_more_than_64_worker_processes_need_ray():
    r = CliRunner().invoke(main, ["match", "random", "random", "-c", "65"])
    assert r.exit_code == 2 and "more than 64 worker processes (use --ray for more)" in r.output
