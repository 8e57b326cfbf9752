"""Replay store and checkpoints: atomic shards, one-line errors for damaged files, the sliding
window, symmetric sampling (4 symmetries on rectangles), checkpoint round trips."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gomoku.engine.net.planes import encode_game
from gomoku.train.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from gomoku.train.games import TrainingGame
from gomoku.train.models import build_model
from gomoku.train.replay import ReplayError, ReplayStore, apply_symmetry, read_shard, symmetries
from gomoku.train.trainer import Trainer

torch.set_num_threads(1)


def random_game(rng: np.random.Generator, width: int, height: int, length: int, source: str = "selfplay",
                players: int = 2) -> TrainingGame:
    """A game of random moves; its policy target at t is one-hot on the move played (what the
    classical bootstrap records), every other position recorded."""
    moves = rng.permutation(width * height)[:length].astype(np.int32)
    policy = np.zeros((length, width * height), dtype=np.float32)
    policy[np.arange(length), moves] = 1.0
    recorded = np.arange(length) % 2 == 0
    return TrainingGame(width, height, "freestyle", 5, players, moves, policy, recorded,
                        winner=int(rng.integers(-1, players)), source=source)


def test_shard_round_trip(tmp_path) -> None:
    rng = np.random.default_rng(0)
    games = [random_game(rng, 7, 7, 20), random_game(rng, 9, 6, 11, "classical")]
    store = ReplayStore(tmp_path)
    store.write("gen00001-selfplay-0000", games)
    assert [p.name for p in tmp_path.iterdir()] == ["gen00001-selfplay-0000.npz"]
    back = read_shard(tmp_path / "gen00001-selfplay-0000.npz")
    for a, b in zip(games, back):
        assert (a.width, a.height, a.winner, a.source) == (b.width, b.height, b.winner, b.source)
        assert np.array_equal(a.moves, b.moves) and np.array_equal(a.recorded, b.recorded)
        assert np.allclose(a.policy[a.recorded], b.policy[b.recorded])
        assert not b.policy[~b.recorded].any()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_corrupt_shard_is_a_one_line_error(tmp_path, damage: str) -> None:
    store = ReplayStore(tmp_path)
    store.write("gen00001-selfplay-0000", [random_game(np.random.default_rng(1), 7, 7, 12)])
    path = tmp_path / "gen00001-selfplay-0000.npz"
    data = path.read_bytes()
    path.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"x" * 300, "empty": b""}[damage])
    with pytest.raises(ReplayError) as err:
        ReplayStore(tmp_path).window(100)
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg and "corrupt replay shard" in msg


def test_window_keeps_the_newest_positions(tmp_path) -> None:
    rng = np.random.default_rng(2)
    store = ReplayStore(tmp_path)
    for gen in range(1, 5):
        store.write(f"gen{gen:05d}-selfplay-0000", [random_game(rng, 7, 7, 20) for _ in range(3)])  # 30 recorded
    win = store.window(45)
    assert len(win) == 45
    assert win.shards == ["gen00003-selfplay-0000", "gen00004-selfplay-0000"]
    assert len(store.window(1000)) == 120


@pytest.mark.parametrize("size", [(7, 7), (9, 6)])
def test_symmetry_maps_planes_like_the_moves(size: tuple[int, int]) -> None:
    """Re-encoding a game whose moves were transformed gives the transformed planes."""
    width, height = size
    syms = symmetries(width, height)
    assert len(syms) == (8 if width == height else 4)
    rng = np.random.default_rng(3)
    moves = rng.permutation(width * height)[:9]
    planes = encode_game(moves, width, height, 2)
    for s in syms:
        board = np.arange(width * height).reshape(height, width)
        moved = apply_symmetry(board, s)
        assert moved.shape == (height, width)
        where = {int(c): (y, x) for (y, x), c in np.ndenumerate(moved)}
        new_moves = np.array([where[int(m)][0] * width + where[int(m)][1] for m in moves])
        assert np.array_equal(encode_game(new_moves, width, height, 2), apply_symmetry(planes, s))


def test_sample_is_consistent(tmp_path) -> None:
    rng = np.random.default_rng(4)
    store = ReplayStore(tmp_path)
    store.write("gen00001-selfplay-0000", [random_game(rng, 8, 6, 30) for _ in range(4)])
    batch = store.window(1000).sample(64, np.random.default_rng(5))
    assert batch.planes.shape == (64, 6, 6, 8) and batch.policy.shape == (64, 6, 8)
    assert np.allclose(batch.policy.sum(axis=(1, 2)), 1.0)
    # the one-hot target always sits on an empty cell of its (transformed) position
    stones = batch.planes[:, 0] + batch.planes[:, 1]
    assert not (stones * batch.policy).any()
    assert set(batch.value.tolist()) <= {0, 1, 2}


def test_checkpoint_round_trip_resumes_identically(tmp_path) -> None:
    rng = np.random.default_rng(6)
    store = ReplayStore(tmp_path / "replay")
    store.write("gen00001-selfplay-0000", [random_game(rng, 7, 7, 24) for _ in range(4)])
    win = store.window(1000)
    tr = Trainer(build_model("b1c16"), seed=7)
    tr.update(win.sample(16, tr.rng))
    save_checkpoint(tmp_path / "a.safetensors", tr.checkpoint({"generation": 1, "rules": ["freestyle"]}))
    ck = load_checkpoint(tmp_path / "a.safetensors")
    assert ck.arch == "b1c16" and ck.meta["generation"] == 1 and ck.meta["step"] == tr.step
    resumed = Trainer.from_checkpoint(ck)
    a = tr.update(win.sample(16, tr.rng))
    b = resumed.update(win.sample(16, resumed.rng))
    assert a == b and tr.step == resumed.step
    for (k, v), (_, w) in zip(tr.model.state_dict().items(), resumed.model.state_dict().items()):
        assert torch.equal(v, w), k


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_corrupt_checkpoint_is_a_one_line_error(tmp_path, damage: str) -> None:
    tr = Trainer(build_model("b1c16"))
    path = tmp_path / "c.safetensors"
    save_checkpoint(path, tr.checkpoint({}))
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[2] ^= 0x7f          # header length now points past the file
    path.write_bytes({"truncate": bytes(data[: len(data) - 100]), "garbage": b"\x00" * 50,
                      "flip": bytes(data)}[damage])
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_search_scores_round_trip_and_blend_into_soft_value_targets(tmp_path) -> None:
    """The alpha-beta's games carry the search's win probability per position; a shard keeps it
    (NaN where a move was not searched), and sampling blends it half and half with the result."""
    rng = np.random.default_rng(3)
    scored = random_game(rng, 7, 7, 10, "classical")
    scored.winner = 0                                     # the first player won
    scored.recorded[:] = True
    scored.scores = np.full(10, 0.8, dtype=np.float32)
    scored.scores[1] = np.nan
    plain = random_game(rng, 7, 7, 10)
    store = ReplayStore(tmp_path)
    store.write("gen00001-classical-0000", [scored, plain])
    back = read_shard(tmp_path / "gen00001-classical-0000.npz")
    assert np.array_equal(np.isnan(back[0].scores), np.isnan(scored.scores)) and back[1].scores is None
    assert np.allclose(back[0].scores[~np.isnan(back[0].scores)], 0.8)
    batch = store.window(100).sample(64, np.random.default_rng(0))
    assert batch.value.shape == (64, 3) and np.allclose(batch.value.sum(axis=1), 1.0)
    rows = {tuple(round(float(x), 3) for x in r) for r in batch.value}
    # mover is seat 0 at even t: result win + score 0.8 -> (0.9, 0.1, 0); seat 1: (0.4, 0.6, 0)
    assert {(0.9, 0.1, 0.0), (0.4, 0.6, 0.0)} <= rows
    assert all(sorted(r)[-1] == 1.0 or r in {(0.9, 0.1, 0.0), (0.4, 0.6, 0.0)} for r in rows), rows
    # a store without scores keeps class targets
    old = ReplayStore(tmp_path / "old")
    old.write("gen00001-selfplay-0000", [plain])
    assert old.window(100).sample(8, np.random.default_rng(0)).value.dtype == np.int64
