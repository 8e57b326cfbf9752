"""The teacher's scored positions in training: loading, the split into training and held-out
games, and the tables' reference loss on the held-out ones."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import Rule
from gomoku.engine.search import evaluation
from gomoku.engine.fit import tuning
from gomoku.train.config import RunConfig, RunError
from gomoku.train.models import build_model
from gomoku.train.teacher import load_teacher
from gomoku.train.trainer import Trainer


def _write(path: Path, lines: list[str], size: int = 9) -> Path:
    path.write_text("\n".join([f"# scored positions: rule freestyle size {size}"] + lines) + "\n")
    return path


def _games(n: int, size: int = 9) -> list[str]:
    """n games of three scored positions each, the moves spread over the board."""
    lines = []
    for g in range(n):
        moves = [((g + 2 * k) % size, (3 * k + g // size) % size) for k in range(6)]
        moves = list(dict.fromkeys(moves))
        for k in (2, 3, 4):
            lines.append(f"g{g} {0.2 + 0.1 * (k - 2):.2f} " + " ".join(f"{x},{y}" for x, y in moves[:k]))
    return lines


def test_positions_keep_their_game_and_the_split_holds_out_whole_games(tmp_path) -> None:
    a = _write(tmp_path / "a.txt", _games(10))
    b = _write(tmp_path / "b.txt", _games(10))        # the same game names in another file: other games
    t = load_teacher([str(a), str(b)], "freestyle", 9, 9)
    assert len(t) == 60 and len(np.unique(t.game)) == 20
    train, held = t.split(0.3)
    assert held is not None and len(train) + len(held) == 60
    assert 1 <= len(np.unique(held.game)) <= 12 and not set(held.game) & set(train.game)
    assert all(np.sum(t.game == g) == 3 for g in held.game)      # whole games
    # a file added later does not change which of the old games are held out
    c = _write(tmp_path / "c.txt", [line.replace("g", "h", 1) for line in _games(15)])
    more = load_teacher([str(a), str(c), str(b)], "freestyle", 9, 9).split(0.3)[1]
    assert set(more.game) & set(t.game) == set(held.game)
    one = load_teacher([str(a)], "freestyle", 9, 9)
    assert one.split(1e-9)[1] is not None                        # at least one game, however small the share
    assert one.split(0.0)[1] is None and one.split(0.0)[0] is one


def test_the_tables_reference_is_their_cross_entropy_at_the_scale(tmp_path) -> None:
    """The tables' score of a position is the leaf evaluation of its features, and the reference
    loss is the teacher's P against sigmoid(score / K), computed by hand here."""
    t = load_teacher([str(_write(tmp_path / "a.txt", _games(4)))], "freestyle", 9, 9)
    board = Board(9, rule=Rule.FREESTYLE)
    for x, y in [(0, 0), (2, 3)]:
        board.play(x, y)
    want = tuning.evaluate(tuning.leaf_row(board)[None], evaluation.tables(int(Rule.FREESTYLE)))[0]
    assert t.tables[0] == pytest.approx(want)
    q = 1 / (1 + np.exp(-t.tables / 700.0))
    p = t.p.astype(np.float64)
    assert t.tables_loss(700.0) == pytest.approx(float(np.mean(-(p * np.log(q) + (1 - p) * np.log(1 - q)))))


def test_the_held_out_loss_is_the_value_heads_cross_entropy_on_every_position(tmp_path) -> None:
    t = load_teacher([str(_write(tmp_path / "a.txt", _games(6)))], "freestyle", 9, 9)
    torch.manual_seed(0)
    trainer = Trainer(build_model("mix8", 2, "freestyle"))
    planes, target = next(t.batches(size=len(t)))
    trainer.model.eval()
    with torch.no_grad():
        v = torch.log_softmax(trainer.model(torch.from_numpy(planes))[1], dim=1)
    want = float(-(torch.from_numpy(target) * v).sum(dim=1).mean())
    assert float(trainer.teacher_losses(t).mean()) == pytest.approx(want, rel=1e-5)
    each = -(torch.from_numpy(target) * v).sum(dim=1).numpy()
    assert trainer.teacher_losses(t) == pytest.approx(each, rel=1e-5, abs=1e-6)
    assert [p.shape[0] for p, _ in t.batches(size=7)] == [7, 7, 4]


def test_decided_positions_are_drawn_at_their_weight_and_the_quiet_ones_stand_apart(tmp_path) -> None:
    """Six quiet positions and three the teacher announces (P 1 or 0): at weight 0.25 a decided
    one is drawn a quarter as often as a quiet one, so 0.75 / (0.75 + 6) = 1/9 of the draws."""
    lines = _games(2) + ["g2 1.0 0,0 1,1", "g2 0.0 0,0 1,1 2,2", "g3 1 5,5 6,6"]
    t = load_teacher([str(_write(tmp_path / "a.txt", lines))], "freestyle", 9, 9)
    assert t.decided.tolist() == [False] * 6 + [True] * 3
    assert t.quiet() is not None and t.quiet().p.tolist() == pytest.approx([0.2, 0.3, 0.4] * 2)
    assert t.subset(np.array([6, 7])).quiet() is None
    rng = np.random.default_rng(1)
    for weight, share in ((1.0, 1 / 3), (0.25, 1 / 9), (0.0, 0.0)):
        _, target = t.weigh_decided(weight).sample(20000, rng)
        drawn = np.mean((target[:, 0] == 0.0) | (target[:, 0] == 1.0))
        assert drawn == pytest.approx(share, abs=0.015), weight
    assert t.weigh_decided(1.0).draw is None
    with pytest.raises(RunError, match="every scored position is decided"):
        t.subset(np.array([6, 7, 8])).weigh_decided(0.0)


def test_a_run_made_before_the_holdout_keeps_training_on_every_scored_game(tmp_path) -> None:
    cfg = RunConfig(width=9, height=9)
    data = {k: v for k, v in json.loads(json.dumps(cfg.__dict__, default=str)).items() if k != "scores_holdout"}
    (tmp_path / "config.json").write_text(json.dumps(data))
    assert RunConfig.load(tmp_path).scores_holdout == 0.0
    assert RunConfig(width=9, height=9).scores_holdout == 0.1


@pytest.mark.parametrize("name", ["pentazen_freestyle_scores_classical.txt.gz",
                                  "pentazen_freestyle_scores_searchlines.txt.gz",
                                  "pentazen_freestyle_scores_searchlines2.txt.gz"])
def test_the_shipped_learned_evaluator_files_read_as_scored_positions(name: str) -> None:
    """tools/data's files for the learned evaluator: freestyle 15x15, the header's count, and their
    first positions replay as legal, unfinished games with P in [0, 1]."""
    import contextlib
    import gzip
    path = Path(__file__).resolve().parent.parent / "tools" / "data" / name
    with gzip.open(path, "rt") as fh:
        lines = fh.read().splitlines()
    body = [ln for ln in lines if ln and not ln.startswith("#")]
    assert f"# positions: {len(body)} from" in "\n".join(lines[:3])
    rule, w, h, positions = tuning.scored_positions(str(path))
    assert (rule, w, h) == (Rule.FREESTYLE, 15, 15)
    with contextlib.closing(positions):
        for k, (game, p, board) in enumerate(positions):
            assert 0.0 <= p <= 1.0 and not board.game_over and board.move_count >= 4, (game, p)
            if k == 300:
                break
