"""`gomoku distill`: the label set it reads, the residual evaluator that starts as the tables, and a
tiny run end to end (labels from a fixed-node match, training, its curves, a rerun that continues,
and the brain playing the result), all in this process."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from gomoku.engine.fit.tuning import evaluate, leaf_row  # noqa: E402
from gomoku.engine.game.board import Board  # noqa: E402
from gomoku.engine.game.labels import LOSS, WIN, LabelWriter, scored_game  # noqa: E402
from gomoku.engine.game.rules import Rule  # noqa: E402
from gomoku.engine.search.alphabeta import Searcher  # noqa: E402
from gomoku.engine.search.evaluation import tables as rule_tables  # noqa: E402
from gomoku.engine.search.learned import mix_rebuild, mix_residual  # noqa: E402
from gomoku.engine.search.learned_file import EvalFileError, load_evaluator, save_evaluator  # noqa: E402
from gomoku.tools.bench_cmd import BENCH_POSITIONS  # noqa: E402
from gomoku.tools.cli import main  # noqa: E402
from gomoku.train.distill import DistillConfig, _symmetry, build_net, value_logit  # noqa: E402
from gomoku.train.labelset import LabelSetError, load_labels  # noqa: E402


def _residual_file(tmp_path, trained: bool = False):
    """A residual evaluator file: as built (zero last layer), or with every weight random."""
    net = build_net(DistillConfig(labels=(), features=8, hidden=8))
    if trained:
        torch.manual_seed(3)
        with torch.no_grad():
            for p in net.parameters():
                p.normal_(0.0, 0.3)
    path = tmp_path / ("trained" if trained else "zero")
    path = path.with_name(path.name + ".eval.npz")
    save_evaluator(path, net.evaluator_weights(), net.arch, "freestyle", form="residual")
    return net, load_evaluator(path)


def test_a_zero_residual_searches_exactly_as_the_tables_on_the_bench_positions(tmp_path) -> None:
    """The untrained residual evaluator is the tables: the search walks the same tree node for
    node, and a trained one walks another."""
    _, zero = _residual_file(tmp_path)
    _, trained = _residual_file(tmp_path, trained=True)
    assert zero.residual and zero.name == "zero (mix8, residual)"
    for rule, w, h, moves in BENCH_POSITIONS:
        if rule != "freestyle" or w != 15:
            continue
        board = Board.from_moves(w, moves, rule=Rule.FREESTYLE, height=h)
        tables = Searcher().search(board.state, max_depth=6)
        same = Searcher(learned={int(Rule.FREESTYLE): zero}).search(board.state, max_depth=6)
        assert (same.nodes, same.move, same.score) == (tables.nodes, tables.move, tables.score)
        other = Searcher(learned={int(Rule.FREESTYLE): trained}).search(board.state, max_depth=6)
        assert other.nodes != tables.nodes


def test_the_numba_residual_is_the_torch_nets_correction(tmp_path) -> None:
    """mix_residual = K * (win logit - loss logit), the correction value_logit adds to the
    tables' score / K in training, on random positions."""
    net, ev = _residual_file(tmp_path, trained=True)
    net.eval()
    from gomoku.train.teacher import _planes
    rng = np.random.default_rng(5)
    cfg = DistillConfig(labels=())
    for _ in range(6):
        b = Board(15)
        grid = np.zeros((1, 15, 15), dtype=np.int8)
        for k in range(int(rng.integers(4, 30))):
            free = b.legal_moves()
            x, y = free[int(rng.integers(len(free)))]
            if b.would_win(x, y):
                break
            b.play(x, y)
            grid[0, y, x] = 1 + k % 2
        st = b.state
        numba_ev = ev.evaluator(st.cells.shape[0])
        mix_rebuild(st, numba_ev)
        mover = np.array([int(b.to_move) - 1])
        with torch.no_grad():
            _, value = net(torch.from_numpy(_planes(grid, mover)))
            z = value_logit(net, value, torch.zeros(1), cfg)
        assert abs(int(mix_residual(st, numba_ev)) - cfg.scale * float(z[0])) < 0.05 * cfg.scale * abs(float(z[0])) + 2


def test_the_symmetries_move_the_best_move_with_the_stones() -> None:
    rng = np.random.default_rng(1)
    stones = rng.integers(0, 3, size=(5, 15, 15)).astype(np.int8)
    best = rng.integers(0, 225, size=5)
    marked = stones.copy()
    marked.reshape(5, -1)[np.arange(5), best] = 7
    seen = set()
    for k in range(8):
        t, b = _symmetry(marked, best, k, 15)
        assert (t.reshape(5, -1)[np.arange(5), b] == 7).all(), k
        seen.add(t.tobytes())
    assert len(seen) == 8


def _game(writer: LabelWriter, moves, scores, winner: int) -> None:
    writer.write(scored_game(15, 15, int(Rule.FREESTYLE), winner, moves, 1, [None, *scores]))


def test_the_label_set_keeps_the_leaf_positions_with_their_tables_score(tmp_path) -> None:
    """Kept: the positions a search scored with centi-stones and whose board the leaf would be
    asked about; left out: opening stones, proven scores, a position with a four to answer."""
    path = tmp_path / "g.labels"
    with LabelWriter(path) as w:
        moves = [(7, 7), (8, 8), (7, 8), (8, 7), (7, 9), (8, 9), (7, 10), (0, 0), (7, 6)]
        _game(w, moves, [120, -80, 300, -20, 500, WIN, 50, LOSS], winner=1)
    data = load_labels([path], Rule.FREESTYLE)
    # ply 0 is the opening; plies 6 and 8 are proven; at ply 7 black has four (7,7..7,10) to complete
    assert len(data) == 5 and data.games == 1
    assert data.score.tolist() == [120, -80, 300, -20, 500]
    assert data.mover.tolist() == [1, 0, 1, 0, 1]
    assert data.result.tolist() == [-1, 1, -1, 1, -1]
    assert data.best.tolist() == [y * 15 + x for x, y in moves[1:6]]
    board = Board.from_moves(15, moves[:3])
    assert data.tables[2] == evaluate(leaf_row(board)[None], rule_tables(int(Rule.FREESTYLE)))[0]
    assert data.stones[2][7, 7] == 1 and data.stones[2][8, 8] == 2 and data.stones[2].sum() == 4
    t = data.target(1000.0, 0.5)
    assert t[0] == pytest.approx(0.5 / (1 + np.exp(-0.12)), rel=1e-5)
    assert len(load_labels([path], Rule.FREESTYLE, max_positions=3)) == 3
    with pytest.raises(LabelSetError, match="the training is standard 15x15"):
        load_labels([path], Rule.STANDARD)
    (tmp_path / "bad.labels").write_bytes(b"nothing")
    with pytest.raises(LabelSetError, match="bad.labels is not a scored-games file"):
        load_labels([tmp_path / "bad.labels"], Rule.FREESTYLE)


def test_a_tiny_distillation_end_to_end_through_the_cli(tmp_path, capsys) -> None:
    """Labels from a fixed-node match, a residual evaluator trained on them, its curves plotted,
    a rerun that continues where the checkpoint left off (and one with other settings refused),
    then the brain plays with the evaluator and names it."""
    from gomoku.protocol.options import parse_brain_args
    from protocol_script import Script
    book = tmp_path / "book.txt"
    book.write_text("h8i9\nh8h9\n")
    labels = tmp_path / "m.labels"
    r = CliRunner().invoke(main, ["match", "classical:nodes=600", "classical:nodes=600,name=b", "-n", "4", "-o",
                                  str(book), "-t", "0", "--labels", str(labels), "--no-progress"])
    assert r.exit_code == 0, r.output
    run = tmp_path / "run"
    args = ["distill", str(run), str(labels), "--features", "8", "--hidden", "8", "--batch", "32",
            "--eval-every", "2", "--holdout", "0.3", "--no-progress"]
    r = CliRunner().invoke(main, args + ["--steps", "4"])
    assert r.exit_code == 0, r.output
    assert "held out, the tables" in r.stdout and "step 4:" in r.stdout
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [rec["step"] for rec in records] == [2, 4]
    assert all(0 < rec["distill"]["held_value"] < 2 and 0 < rec["distill"]["held_tables"] < 2 for rec in records)
    ev = load_evaluator(run / "distilled.eval.npz")
    assert ev.residual and ev.provenance["step"] == 4 and ev.provenance["positions"] > 20
    r = CliRunner().invoke(main, args + ["--steps", "6"])
    assert r.exit_code == 0 and "step 6:" in r.stdout and "step 2:" not in r.stdout, r.output
    assert load_evaluator(run / "distilled.eval.npz").provenance["step"] == 6
    r = CliRunner().invoke(main, args + ["--lambda", "1"])
    assert r.exit_code != 0 and "was started with other lam" in r.output
    r = CliRunner().invoke(main, ["plot", str(run)])
    assert r.exit_code == 0 and (run / "plots" / "distill_value.png").read_bytes()[:4] == b"\x89PNG", r.output
    capsys.readouterr()
    with Script(options=parse_brain_args(["--eval", str(run / "distilled.eval.npz")])) as b:
        b.send("START 15", "INFO max_depth 4")
        assert b.line() == "OK"
        b.send("TURN 7,7")
        assert b.move(size=(15, 15)) != (7, 7)
        b.send("ABOUT")
        about = b.line()
        b.end()
    assert "learned evaluator distilled (mix8, residual) under freestyle" in about, about


def test_a_bad_form_in_an_evaluator_file_is_one_line(tmp_path) -> None:
    net = build_net(DistillConfig(labels=(), features=8, hidden=8))
    with pytest.raises(ValueError, match="evaluator form 'half'"):
        save_evaluator(tmp_path / "x.eval.npz", net.evaluator_weights(), net.arch, "freestyle", form="half")
    import io
    import zipfile
    path = tmp_path / "y.eval.npz"
    save_evaluator(path, net.evaluator_weights(), net.arch, "freestyle", form="residual")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["form"] = "half"
    arrays["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    path.write_bytes(buf.getvalue())
    assert zipfile.is_zipfile(path)
    with pytest.raises(EvalFileError, match="evaluator form 'half', this engine reads alone and residual"):
        load_evaluator(path)
