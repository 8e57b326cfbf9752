"""The papers' knobs as `gomoku train` options: the search settings reach self-play's chunks and
the gating and ladder specs, the learning-rate schedules move the rate as their rules say and
survive a checkpoint, and a tiny run with every knob set records them in its config.json, its
metrics and its net's provenance, and trains a net that plays."""
from __future__ import annotations

import json
from typing import Any
from pathlib import Path

import pytest
import torch

from gomoku.train.config import RunConfig
from gomoku.train.evaluate import check_ladder_opponent, net_spec, pure_spec
from gomoku.train.lr_schedule import (PLATEAU_MIN_MULT, KLSchedule, PlateauSchedule, Schedule, ScheduleSettings,
                                      make_schedule)
from gomoku.train.models import build_model
from gomoku.train.run_folder import RunFolder
from gomoku.train.selfplay_stage import SelfPlay
from gomoku.train.trainer import Trainer, TrainSettings
from gomoku.train.view import View

torch.set_num_threads(1)
from cli_runner import gomoku as run_gomoku



# -- the schedules --------------------------------------------------------------------------------
def test_plateau_halves_the_rate_after_patience_generations_without_a_better_loss() -> None:
    s = PlateauSchedule(ScheduleSettings(name="plateau", patience=3))
    mults = []
    for loss in (3.0, 2.5, 2.0, 2.0, 1.995, 2.1, 2.0, 1.5, 1.6, 1.6, 1.6):
        s.end_generation(loss)
        mults.append(s.mult)
    # 2.0 is the best until 1.5; 1.995 is not 1 % below it: the third bad generation (2.1) halves
    assert mults == [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]
    assert s.best == 1.5 and s.bad == 0
    assert s.stop_early(10.0) is False            # the KL stops no update under this schedule
    low = PlateauSchedule(ScheduleSettings(name="plateau", patience=1))
    for _ in range(20):
        low.end_generation(1.0)
    assert low.mult == PLATEAU_MIN_MULT


def test_kl_rule_recovers_below_target_has_an_exact_floor_and_eases_back_each_generation() -> None:
    s = KLSchedule(ScheduleSettings(kl_target=0.02))
    for _ in range(12):
        s.after_update(0.1)                       # new or one-hot targets: far above 2x the target
    assert s.mult == 0.1                          # clamped, not 0.088
    assert s.stop_early(0.081) and not s.stop_early(0.079)
    s.after_update(0.03)                          # within target..2x: no change
    assert s.mult == 0.1
    s.after_update(0.015)                         # below the target (the old rule: only below half of it)
    assert s.mult == pytest.approx(0.15)
    s.mult = 0.09
    s.start_generation()
    assert s.mult == pytest.approx(0.3)           # halfway back to 1x on a log scale
    for _ in range(20):
        s.after_update(0.0)
    assert s.mult == 10.0


def test_constant_never_moves_and_unknown_names_are_refused() -> None:
    s = make_schedule(ScheduleSettings(name="constant"))
    assert type(s) is Schedule
    for kl in (0.0, 1.0):
        s.after_update(kl)
        s.end_generation(kl)
    s.start_generation()
    assert s.mult == 1.0 and not s.stop_early(100.0)
    with pytest.raises(ValueError, match="unknown learning-rate schedule"):
        make_schedule(ScheduleSettings(name="cosine"))


def test_the_schedule_state_survives_a_checkpoint() -> None:
    settings = TrainSettings(lr_schedule="plateau", plateau_patience=2)
    tr = Trainer(build_model("b1c8", 2), settings)
    for loss in (2.0, 2.0, 2.0, 2.0):
        tr.schedule.end_generation(loss)
    assert (tr.lr_mult, tr.schedule.best, tr.schedule.bad) == (0.5, 2.0, 1)
    back = Trainer.from_checkpoint(tr.checkpoint({"seed": 1}), settings)
    assert back.schedule.state() == tr.schedule.state() == {"name": "plateau", "mult": 0.5, "best": 2.0, "bad": 1}
    # a checkpoint of another schedule (or from before they were saved) gives only its multiplier
    kl = Trainer.from_checkpoint(tr.checkpoint({"seed": 1}), TrainSettings())
    assert kl.schedule.name == "kl" and kl.lr_mult == 0.5
    fresh = Trainer.from_checkpoint(tr.checkpoint({"seed": 1}), settings, weights_only=True)   # --init
    assert fresh.lr_mult == 1.0 and fresh.schedule.best is None


# -- the specs and the chunks ---------------------------------------------------------------------
def test_the_run_search_settings_reach_self_play_gating_and_the_ladder(tmp_path: Path) -> None:
    cfg = RunConfig(width=7, height=7, arch="b1c8", games_per_gen=4, workers=1, c_puct=3.5, select="ucb1",
                    dirichlet_eps=0.4, dirichlet_alpha=0.6, move_noise=0.25, temperature_moves=5)
    folder = RunFolder.open(tmp_path / "run", cfg)
    folder.create()
    folder.save_new()
    conf = SelfPlay(folder, View()).jobs(1)[0].config
    assert {k: conf[k] for k in ("c_puct", "select", "dirichlet_eps", "dirichlet_alpha", "move_noise",
                                 "temperature_moves")} == {"c_puct": 3.5, "select": "ucb1", "dirichlet_eps": 0.4,
                                                           "dirichlet_alpha": 0.6, "move_noise": 0.25,
                                                           "temperature_moves": 5}
    plain = RunConfig(width=7, height=7, arch="b1c8", games_per_gen=4, workers=1)
    other = RunFolder.open(tmp_path / "plain", plain)
    other.create()
    other.save_new()
    conf = SelfPlay(other, View()).jobs(1)[0].config
    assert "dirichlet_alpha" not in conf and "move_noise" not in conf      # the engine's defaults stay its own
    assert net_spec("n.onnx", 50, "x", 3.5, "ucb1") == "n.onnx:playouts=50,c_puct=3.5,select=ucb1,name=x"
    assert pure_spec(1000) == "pure-mcts:playouts=1000"
    assert pure_spec(1000, "pure-mcts:tactics=0") == "pure-mcts:tactics=0,playouts=1000"
    knobs = cfg.knobs()
    assert knobs["dirichlet_alpha"] == 0.6 and plain.knobs()["dirichlet_alpha"] == round(10 / 49, 6)
    assert plain.knobs()["temperature_moves"] == 8 and "plateau_patience" not in knobs


@pytest.mark.parametrize("spec, why", [("pure-mcts:500", "leave playouts out"), ("random", "unknown option"),
                                       ("classical:2", "unknown option"), ("nobody", "unknown player")])
def test_a_ladder_opponent_that_cannot_be_a_ladder_is_refused(spec: str, why: str) -> None:
    check_ladder_opponent("pure-mcts:c_puct=5", 1000)
    with pytest.raises(ValueError, match=why):
        check_ladder_opponent(spec, 1000)


# -- through the command --------------------------------------------------------------------------
def _gomoku(*args: str, timeout: int = 300) -> Any:
    return run_gomoku(args, env={"OMP_NUM_THREADS": "1"})


_TINY = ("--board", "6", "--win", "4", "--arch", "b1c8", "--games-per-gen", "4", "--parallel-games", "2",
         "--workers", "1", "--playouts", "16", "--full-search-prob", "1", "--updates", "2", "--batch", "16",
         "--eval-games", "2", "--eval-playouts", "8", "--ladder-games", "2", "--ladder-start", "10",
         "--classical-games", "0", "--plain")

_KNOBS = {"c_puct": 3.0, "select": "ucb1", "dirichlet_eps": 0.3, "dirichlet_alpha": 0.5, "move_noise": 0.2,
          "temperature_moves": 4, "lr_schedule": "plateau", "plateau_patience": 2, "kl_target": 0.03,
          "ladder_opponent": "pure-mcts:tactics=0"}


def test_a_tiny_run_with_every_knob_records_them_and_its_ucb1_net_plays(tmp_path: Path) -> None:
    run = tmp_path / "knobs"
    args = [a for k, v in _KNOBS.items() for a in (f"--{k.replace('_', '-')}", str(v))]
    out = _gomoku("train", *_TINY, *args, "--generations", "1", "--run", str(run))
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    cfg = json.loads((run / "config.json").read_text())
    assert {k: cfg[k] for k in _KNOBS} == _KNOBS
    rec = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()][-1]
    assert rec["ladder"]["opponent"] == "pure-mcts:tactics=0,playouts=10"
    assert rec["gating"]["search"] == rec["ladder"]["search"] == {"playouts": 8, "c_puct": 3.0, "select": "ucb1"}
    assert rec["train"]["lr_schedule"]["name"] == "plateau" and rec["train"]["lr_schedule"]["best"] > 0
    info = _gomoku("info", str(run / "nets" / "gen00001.onnx"), "--json", timeout=60)
    assert info.returncode == 0, info.stderr
    settings = json.loads(info.stdout)["provenance"]["settings"]
    want = {k: v for k, v in _KNOBS.items() if k != "kl_target"}     # the plateau rule has no KL target
    assert {k: settings[k] for k in want} == want and settings["playouts"] == 16 and "kl_target" not in settings
    net = run / "nets" / "gen00001.onnx"
    match = _gomoku("match", f"{net}:playouts=16,select=ucb1,c_puct=3", "pure-mcts:20,tactics=0", "--size", "6",
                    "--win", "4", "-n", "2", "-o", "none", timeout=120)
    assert match.returncode == 0, match.stdout[-2000:] + match.stderr[-2000:]
    # a resume without the options keeps the run's knobs (every setting but the machine's stays the run's)
    again = _gomoku("train", *_TINY, "--generations", "2", "--select", "puct", "--run", str(run))
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "this run keeps select=ucb1: --select puct applies to new runs only" in again.stdout
    assert "c_puct" not in again.stdout                     # left at its default: nothing to say
    cfg = json.loads((run / "config.json").read_text())
    assert {k: cfg[k] for k in _KNOBS} == _KNOBS
    assert json.loads(_gomoku("info", str(run / "nets" / "gen00002.onnx"), "--json", timeout=60).stdout
                      )["provenance"]["settings"]["select"] == "ucb1"


def test_a_bad_ladder_opponent_is_one_line_and_makes_no_run(tmp_path: Path) -> None:
    run = tmp_path / "bad"
    out = _gomoku("train", "--board", "6", "--ladder-opponent", "pure-mcts:5000", "--run", str(run), timeout=60)
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error")]
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert errors == ["Error: --ladder-opponent 'pure-mcts:5000': leave playouts out (each rung of the ladder "
                      "sets them)"]
    assert not run.exists()


def test_ladder_rungs_name_their_opponent() -> None:
    """The default rung reads as before; another --ladder-opponent is shown as its spec, in the
    generation line and in the batches-to-beat table."""
    from gomoku.train.metrics import ladder_opponent_name, ladder_table
    from gomoku.train.view import summary_line
    plain = {"playouts": 1000, "opponent": "pure-mcts:playouts=1000"}
    bare = {"playouts": 1000, "opponent": "pure-mcts:tactics=0,playouts=1000"}
    assert ladder_opponent_name(plain) == "pure MCTS 1000 playouts"
    assert ladder_opponent_name({"playouts": 500}) == "pure MCTS 500 playouts"
    assert ladder_opponent_name(bare) == "pure-mcts:tactics=0,playouts=1000"
    ev = {**bare, "score": 0.8, "beaten": True, "wins": 8, "losses": 2, "draws": 0, "games": 10}
    lines = ladder_table([{"generation": 3, "step": 60, "ladder": ev}])
    assert "pure-mcts:tactics=0,playouts=1000" in lines[1] and "beaten at step 60" in lines[1]
    assert "vs pure-mcts:tactics=0,playouts=1000: 8-2-0 beaten" in summary_line({"generation": 3, "ladder": ev})


# -- one default per option ---------------------------------------------------------------------

def test_every_option_that_sets_a_run_field_takes_the_fields_default():
    """`gomoku train` and a RunConfig made in code (tests, studies) train alike unless told
    otherwise: each option's default is its field's, and --arch's is the field's on the cpu."""
    import dataclasses

    from gomoku.tools.train_cmd import train
    from gomoku.train.config import CUDA_ARCH, default_arch
    fields = {f.name: f.default for f in dataclasses.fields(RunConfig) if f.default is not dataclasses.MISSING}
    shared = [p for p in train.params if p.name in fields and p.name not in ("arch", "ray")]
    assert len(shared) >= 40
    for param in shared:
        assert param.default == fields[param.name], param.name
    assert default_arch("cpu") == RunConfig(width=9, height=9).arch == "b4c32" and default_arch("cuda") == CUDA_ARCH


def test_every_option_only_the_adp_agents_take_defaults_to_its_adpconfig_field():
    """`gomoku train --arch adp` and an AdpConfig made in code (a study) train alike unless told
    otherwise: each ADP option's default is its field's (--features, a choice of strings, as
    the field's number written out); --hidden's default depends on the arch."""
    import dataclasses

    from gomoku.tools.train_cmd import train
    from gomoku.train.adp_config import AdpConfig
    fields = {f.name: f.default for f in dataclasses.fields(AdpConfig) if f.default is not dataclasses.MISSING}
    params = {p.name: p for p in train.params}
    adp_only = ("features", "alpha", "gamma", "epsilon", "buffer", "replay_batch")
    for name in (*adp_only, "games_per_gen", "seed"):      # the last two shared with RunConfig
        default = params[name].default
        assert (int(default) if name == "features" else default) == fields[name], name
    assert params["features"].default == "30" and list(params["features"].type.choices) == ["30", "274"]
    assert params["hidden"].default is None and AdpConfig(width=9, height=9).hidden == [100]
