"""The training studies (the UCAS Gobang paper's networks and sweeps, the AlphaGo Zero Gomoku
re-implementation against random nets, the Columbia paper's head-to-head games, the
three-player Gobang paper's ladder) run end to end at tiny scale through `gomoku study`, and
write result.md and result.json with every row their tables promise; a study that needs what
this build lacks says so in one line."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest

from gomoku.tools.studies import runs

pytestmark = pytest.mark.slow

from cli_runner import gomoku as run_gomoku



def _study(name: str, out: Path) -> tuple[str, dict[str, Any]]:
    """Run `gomoku study NAME --scale tiny`; result.md's text and result.json."""
    done = run_gomoku(["study", name, "--scale", "tiny", "--out", str(out)], env={"OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    record = json.loads((out / "result.json").read_text())
    assert record["study"] == name and record["scale"] == "tiny"
    return (out / "result.md").read_text(), record


def _row(md: str, *cells: str) -> str:
    """The markdown row that starts with these cells (fails if there is none)."""
    start = "| " + " | ".join(cells) + " |"
    found = [ln for ln in md.splitlines() if ln.startswith(start)]
    assert found, f"no row {start!r} in\n{md}"
    return found[0]


@pytest.mark.timeout(300)
def test_ucas_arch_trains_every_variant_and_scores_it(tmp_path: Path) -> None:
    md, rec = _study("ucas-arch", tmp_path / "ucas")
    ours = md.split("## The paper's")[0]
    for sweep, labels in (("network", ("FFNN", "CNN", "ResNet, 1 block", "ResNet, 2 blocks")),
                          ("epsilon", ("0", "0.2", "0.8")), ("n", ("4", "8", "12")), ("c_puct", ("1", "5", "20"))):
        for label in labels:
            _row(ours, sweep, label)
            _row(md.split("## The paper's")[1], sweep, label)
    data = rec["data"]
    # variants equal to the base run share it: 4 networks + 2 epsilons + 2 n + 2 c_puct
    assert set(data["vs_mcts"]) == {"base", "network-FFNN", "network-CNN", "network-ResNet1block", "epsilon-0",
                                    "epsilon-0.8", "n-4", "n-12", "c_puct-1", "c_puct-20"}
    for r in data["vs_mcts"].values():
        assert r["wins"] + r["losses"] + r["draws"] == 2
        assert r["a_as_black"]["wins"] + r["a_as_black"]["losses"] + r["a_as_black"]["draws"] == 1
    assert len(data["head_to_head"]) == 6 + 3 + 3 + 3
    config = json.loads((tmp_path / "ucas" / "runs" / "c_puct-20" / "config.json").read_text())
    assert config["c_puct"] == 20 and config["dirichlet_eps"] == 0.2 and config["move_noise"] == 0.2


@pytest.mark.timeout(300)
def test_reimpl_random_plays_every_checkpoint_on_both_sides(tmp_path: Path) -> None:
    md, rec = _study("reimpl-random", tmp_path / "reimpl")
    for gen in ("0", "1", "2"):
        _row(md, gen)
    checkpoints = rec["data"]["checkpoints"]
    assert sorted(checkpoints, key=int) == ["0", "1", "2"]
    for t in checkpoints.values():
        for side in ("first", "second"):
            assert t[f"{side}_wins"] + t[f"{side}_losses"] + t[f"{side}_draws"] == 2
    assert "75 %" in md and "60 %" in md        # the paper's figures beside ours


@pytest.mark.timeout(300)
def test_columbia_select_plays_the_papers_pairs(tmp_path: Path) -> None:
    md, rec = _study("columbia-select", tmp_path / "columbia")
    ours = md.split("## The paper's")[0]
    for section, a, b in (("architecture", "cnn3", "cnn4"), ("architecture", "cnn4", "resnet18"),
                          ("architecture", "cnn3", "rnn4"), ("selection", "UCB1", "modified Q+P/(1+N)")):
        _row(ours, section, a, b)
    assert sum(ln.startswith("| iterations |") for ln in ours.splitlines()) == 4
    data = rec["data"]
    assert {n: t["select"] for n, t in data["trained"].items() if n in ("ucb1", "plain")} == \
        {"ucb1": "ucb1", "plain": "plain"}
    assert len(data["games"]) == 11 and all(g["wins"] + g["losses"] + g["draws"] == 2 for g in data["games"])
    config = json.loads((tmp_path / "columbia" / "runs" / "ucb1" / "config.json").read_text())
    assert config["select"] == "ucb1"


@pytest.mark.timeout(300)
def test_threeplayer_nets_tabulates_the_ladder_of_seven_nets(tmp_path: Path) -> None:
    md, rec = _study("threeplayer-nets", tmp_path / "three")
    data = rec["data"]
    labels = ("Base CNN", "Res Blk 1", "Res Blk 2", "Transformer Blk 1", "Transformer Blk 2",
              "Cascaded Attn (3 blks)", "Cascaded Attn (4 blks)")
    assert list(data["archs"]) == list(labels)
    ours = md.split("## The paper's")[0]
    for label in labels:
        _row(ours, label, data["archs"][label])
        assert len(data["beaten_at"][label]) == 1           # one repeat at tiny scale
    # the ladder records are read back from the runs themselves
    for label, arch in data["archs"].items():
        recs = [json.loads(ln) for ln in
                (tmp_path / "three" / "runs" / f"{arch}-seed1" / "metrics.jsonl").read_text().splitlines()]
        assert recs[0]["ladder"]["players"] == 3
        beaten = {str(r["ladder"]["playouts"]): r["step"] for r in recs if r["ladder"]["beaten"]}
        assert data["beaten_at"][label][0] == beaten
    assert "Table 2b" in md and "Table 3a" in md


def test_missing_pieces_are_one_line() -> None:
    """A study refuses what this build lacks in one line naming it, before any work."""
    checks = [(runs.require_fields, ("demo", "net", ["no_such_knob"]), "no_such_knob"),
              (runs.require_fields, ("demo", "adp", ["no_such_knob"]), "no_such_knob"),
              (runs.require_specs, ("demo", ["pure-mcts:playouts=5,no_such_key=1"]), "no_such_key"),
              (runs.require_archs, ("demo", ["nosuchnet7"]), "nosuchnet7")]
    for check, args, word in checks:
        with pytest.raises(click.ClickException) as err:
            check(*args)
        message = err.value.format_message()
        assert word in message and "demo" in message and "\n" not in message
    runs.require_fields("demo", "net", ["width", "arch", "select"])     # present: no error
    runs.require_fields("demo", "adp", ["features", "replay_batch"])
    runs.require_archs("demo", ["cnn3", "b1c8"])


def test_steps_to_beat_each_rung_come_from_the_ladder_records() -> None:
    from gomoku.tools.studies.threeplayer_nets import beaten_at
    recs = [{"step": 10, "ladder": {"playouts": 20, "beaten": False}},
            {"step": 20, "ladder": {"playouts": 20, "beaten": True}},
            {"step": 30, "ladder": {"playouts": 40, "beaten": False}},
            {"step": 40, "ladder": {"playouts": 40, "beaten": True}},
            {"step": 50}]
    assert beaten_at(recs) == {20: 20, 40: 40}
    assert runs.mean_sd([20, 40]) == "30/10" and runs.mean_sd([]) == "-"


def test_a_run_that_crashes_ends_the_study_in_one_line(tmp_path: Path) -> None:
    """An exception inside training (here a run path it cannot use) is a one-line StudyError
    naming the log, which keeps the traceback."""
    log = tmp_path / "train.log"
    with pytest.raises(click.ClickException) as err:
        runs.train("demo", tmp_path / "bad\x00name", runs.net_config(6, "b1c8"), log, generations=1)
    message = err.value.format_message()
    assert "\n" not in message and str(log) in message and "ValueError" in message
    assert "Traceback" in log.read_text()


def test_a_study_run_records_the_study_as_its_command_and_logs_its_lines(tmp_path: Path) -> None:
    """A run a study trains through gomoku.train.start says in config.json which study made
    it, and what it reported is in the study's log."""
    log = tmp_path / "train.log"
    assert runs.train("demo", tmp_path / "r", runs.net_config(6, "b1c8", workers=1), log, generations=0) == []
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["command"] == "gomoku study demo: run r" and config["arch"] == "b1c8"
    text = log.read_text()
    assert text.startswith("$ gomoku study demo: run r") and text.rstrip().endswith("[exit 0]")
    assert len(text.splitlines()) > 2                       # the run's own lines between


def test_a_study_match_returns_the_report_it_writes(tmp_path: Path) -> None:
    """runs.match plays through the match room and hands back what its JSON report holds:
    the score, and A's as black and as white."""
    out, log = tmp_path / "m" / "a-b.json", tmp_path / "match.log"
    r = runs.match("random:seed=1", "random:seed=2", 6, 2, out, log, win=4)
    assert r == json.loads(out.read_text()) and r["finished"] is True
    assert r["wins"] + r["losses"] + r["draws"] == 2 and r["settings"]["width"] == 6
    assert sum(r["a_as_black"].values()) == 1 and sum(r["a_as_white"].values()) == 1
    assert "Finished game 2" in log.read_text() and log.read_text().rstrip().endswith("[exit 0]")
