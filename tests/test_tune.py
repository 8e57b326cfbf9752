"""Texel tuning (engine.fit.tuning) and `gomoku tune` through the real CLI."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gomoku.engine.search import evaluation
from gomoku.engine.fit import tuning
from gomoku.engine.player.agent import quick_move
from gomoku.engine.game.board import Board
from gomoku.engine.game.core import C_F3, C_F4, C_FIVE, C_WEAK, NUM_PAIRS, PAIR_NAMES
from gomoku.engine.search.evaluation import EvalTables
from gomoku.engine.game.patterns import DEAD as P_DEAD, F4 as P_F4, F5 as P_F5
from gomoku.engine.game.records import BLACK, EMPTY, GameRecord, save_sgf
from gomoku.engine.game.rules import Rule
from gomoku.tools.cli import main

F3, F4 = C_F3 - C_WEAK, C_F4 - C_WEAK     # columns inside one side's block of 9


# ----------------------------------------------------------------------------- fit

def _synthetic(n: int, w_true: np.ndarray, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Class, pattern and pair counts drawn at random, labelled by a known logistic model."""
    rng = np.random.default_rng(seed)
    lam = np.array([20, 8, 5, 2, 3, 1.5, 0.5, 0.3, 0.2] * 2 + [30, 20, 10, 6, 3, 2, 1, 0.4] * 2
                   + [0.5] * (2 * N_PAIR))
    X = rng.poisson(lam, size=(n, tuning.NFEAT)).astype(np.float64)
    sign = np.ones(tuning.NFEAT)
    sign[9:18] = sign[26:34] = sign[34 + N_PAIR:] = -1   # opponent columns count against the side to move
    logit = X @ (sign * w_true)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float64)
    return X, y


N_PAIR = NUM_PAIRS - 1                     # pair columns per side (pair 0 is not weighed)
#: a few pairs with weight: own F3+F2 and B3+B3, opponent F3+B3
_PAIR_W = {PAIR_NAMES.index("F3+F2"): 0.2, PAIR_NAMES.index("B3+B3"): 0.15,
           N_PAIR + PAIR_NAMES.index("F3+B3"): 0.25}
W_TRUE = np.concatenate([
    [-0.02, 0.05, 0.1, 0.03, 0.3, 0.35, 0.9, 0.0, 0.0,          # own classes
     -0.03, 0.04, 0.08, 0.02, 0.25, 0.3, 0.4, 1.2, 0.0,         # opponent classes
     0.0, 0.01, 0.02, 0.04, 0.1, 0.15, 0.2, 0.0,                # own patterns B1..F4
     0.0, 0.01, 0.02, 0.03, 0.08, 0.1, 0.15, 0.5],              # opponent patterns
    [_PAIR_W.get(i + 1, 0.0) for i in range(2 * N_PAIR)]])      # own pairs, opponent pairs


def test_fit_recovers_a_known_logistic_model():
    X, y = _synthetic(30000, W_TRUE)
    never = [7, 8, 17, 25] + [34 + i - 1 for i, n in enumerate(PAIR_NAMES) if n.startswith("F4+")]
    X[:, never] = 0                          # columns that never occur (own F4 is never a leaf)
    w = tuning.fit(X, y, l2=1e-6)
    assert w.shape == (tuning.NFEAT,)
    assert np.all(w[never] == 0)
    big = np.abs(W_TRUE) >= 0.05
    assert np.all(np.sign(w[big]) == np.sign(W_TRUE[big]))
    # ratios to the best-determined weight (own F3), roughly
    ratio, true_ratio = w / w[4], W_TRUE / W_TRUE[4]
    assert np.allclose(ratio[big], true_ratio[big], rtol=0.25, atol=0.03)


def test_l2_shrinks_the_weights():
    X, y = _synthetic(3000, W_TRUE, seed=2)
    loose, tight = tuning.fit(X, y, l2=1e-6), tuning.fit(X, y, l2=1.0)
    assert np.linalg.norm(tight) < 0.5 * np.linalg.norm(loose)


def test_scale_mse_and_int_tables():
    X, y = _synthetic(20000, W_TRUE, seed=3)
    t = [np.zeros(11) for _ in range(4)] + [np.zeros(NUM_PAIRS) for _ in range(2)]
    t[0][1:10], t[1][1:10] = np.rint(W_TRUE[:9] * 300), np.rint(W_TRUE[9:18] * 300)
    t[2][2:10], t[3][2:10] = np.rint(W_TRUE[18:26] * 300), np.rint(W_TRUE[26:34] * 300)
    t[4][1:], t[5][1:] = np.rint(W_TRUE[34:34 + N_PAIR] * 300), np.rint(W_TRUE[34 + N_PAIR:] * 300)
    tables = EvalTables(*t)
    k = tuning.best_scale(X, y, tables)
    assert 300 / 1.3 < k < 300 * 1.3          # tables in units of 1/300 logit
    assert tuning.mse(X, y, tables, k) < tuning.mse(X, y, tables, k * 5)
    zeros = EvalTables(*[np.zeros(11)] * 4, *[np.zeros(NUM_PAIRS)] * 2)
    assert tuning.mse(X, y, tables, k) < tuning.mse(X, y, zeros, k)
    classes_only = zeros._replace(own=t[0], opp=t[1])
    assert tuning.mse(X, y, tables, k) < tuning.mse(X, y, classes_only, k)   # patterns count
    no_pairs = tables._replace(pair_own=t[4] * 0, pair_opp=t[5] * 0)
    assert tuning.mse(X, y, tables, k) < tuning.mse(X, y, no_pairs, k)       # and pairs

    cur = evaluation.tables(0)
    seen = np.ones(tuning.NFEAT, dtype=bool)
    seen[17] = False                           # no opponent F4 in the data: keep the current entry
    fitted = tuning.to_tables(W_TRUE, 300.0, cur, seen)
    assert all(a.dtype == np.int32 and a.shape == (11,) for a in fitted[:4])
    assert all(a.dtype == np.int32 and a.shape == (NUM_PAIRS,) for a in fitted[4:])
    assert fitted.pair_own[0] == fitted.pair_opp[0] == 0           # pair 0 is not weighed
    assert fitted.pair_own[PAIR_NAMES.index("F3+F2")] == round(0.2 * 300)
    assert fitted.pair_own[PAIR_NAMES.index("F4+F3")] == cur.pair_own[PAIR_NAMES.index("F4+F3")]
    assert fitted.own[0] == fitted.opp[0] == fitted.own[C_FIVE] == fitted.opp[C_FIVE] == 0
    assert fitted.pattern_own[P_F5] == fitted.pattern_opp[P_DEAD] == 0
    assert fitted.own[C_F3] == round(W_TRUE[F3] * 300)
    assert fitted.pattern_opp[P_F4] == round(W_TRUE[33] * 300)
    assert fitted.own[C_F4] == cur.own[C_F4]        # own open four: never fitted
    assert fitted.pattern_own[P_F4] == cur.pattern_own[P_F4]
    assert fitted.opp[C_F4] == cur.opp[C_F4]
    line = tuning.table_line("own", fitted.own)
    assert line.startswith("own         0 ") and _printed([line])["own"].tolist() == fitted.own.tolist()


# ----------------------------------------------------------------------------- extract

# Black builds (6..10, 7) along row 7, white answers in the corners; black's five ends it.
WIN_LINE = [(7, 7), (0, 0), (8, 7), (14, 0), (9, 7), (0, 14), (10, 7), (14, 14), (6, 7)]


def test_extract_labels_from_side_to_move_and_skips_decided_positions():
    rec = GameRecord(width=15, height=15, moves=list(WIN_LINE))
    rec.finish(BLACK, "five")
    X, y, gi = tuning.extract([rec], min_ply=0)
    # plies 0-5 are scored; ply 6 (black holds an open-four cell), ply 7 (white faces black's
    # five cells) and ply 8 (black has a five) never reach the evaluation
    assert len(y) == 6
    assert y.tolist() == [1, 0, 1, 0, 1, 0]
    assert gi.tolist() == [0] * 6
    assert X.shape == (6, tuning.NFEAT)
    assert X[0, 0] == X[0, 9] == 225 and X[0, :18].sum() == 450   # empty board: every cell WEAK
    # ... and its 225 x 4 lines B1 or F1 but for the 40 cut short by an edge (DEAD)
    assert X[0, 18] + X[0, 19] == 860 and X[0, 20:26].sum() == 0
    assert X[4, F3] > 0                        # black to move with two in a row: open-three cells
    assert X[5, 9 + F4] > 0                    # white to move facing black's open three
    assert np.all(X[:, F4] == 0)               # no row with an own F4 cell

    X2, y2, _ = tuning.extract([rec], min_ply=2)
    assert np.array_equal(X2, X[2:]) and np.array_equal(y2, y[2:])


def test_extract_draws_unfinished_and_illegal_moves():
    draw = GameRecord(width=15, height=15, moves=[(7, 7), (8, 8), (7, 7), (9, 9)])
    draw.finish(EMPTY, "draw")                 # third move repeats the first: replay stops there
    unknown = GameRecord(width=15, height=15, moves=list(WIN_LINE))      # no result
    white = GameRecord(width=15, height=15, moves=[(7, 7), (8, 8), (3, 3)])
    white.finish(2, "resign")
    X, y, gi = tuning.extract([draw, unknown, white], min_ply=0)
    assert y.tolist() == [0.5, 0.5, 0.5, 0, 1, 0]
    assert gi.tolist() == [0, 0, 0, 2, 2, 2]

    train = tuning.split_by_game(gi, 0.5, seed=1)
    assert len(set(gi[train])) == 1 and not set(gi[train]) & set(gi[~train])
    assert tuning.split_by_game(gi, 0.0).all()


# ----------------------------------------------------------------------------- CLI

def _printed(lines: list[str]) -> dict[str, np.ndarray]:
    """The tables `gomoku tune` printed (`table_line`): name -> entries."""
    out = {}
    for ln in lines:
        name, *values = ln.split() or [""]
        if name in EvalTables._fields:
            out[name] = np.array([int(v) for v in values], dtype=np.int32)
    return out


def _games(n: int, seed: int) -> list[GameRecord]:
    """Quick games: the static move most of the time, a random nearby move otherwise."""
    rng = random.Random(seed)
    recs = []
    for g in range(n):
        rule = Rule.STANDARD if g % 3 == 2 else Rule.FREESTYLE
        board = Board(15, rule=rule)
        rec = GameRecord(width=15, height=15, rule=rule)
        while not board.game_over:
            if board.move_count and rng.random() < 0.3:
                cx, cy = rng.choice(board.moves)
                cands = [(cx + dx, cy + dy) for dx in (-2, -1, 0, 1, 2) for dy in (-2, -1, 0, 1, 2)]
                cands = [c for c in cands if board.in_bounds(*c) and board.cell(*c) == EMPTY]
                mv = rng.choice(cands) if cands else quick_move(board)
            else:
                mv = quick_move(board)
            board.play(*mv)
            rec.moves.append(mv)
        rec.finish(board.winner, "five" if board.winner else "full")
        recs.append(rec)
    return recs


@pytest.fixture(scope="module")
def sgf_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tune") / "games.sgf"
    save_sgf(path, _games(40, seed=5))
    return path


def test_tune_cli_prints_errors_and_tables(sgf_file):
    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--min-ply", "4", "--seed", "1"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("games: 40 used (train 32, holdout 8)")
    assert any(ln.startswith("positions: ") for ln in lines)
    cur = next(ln for ln in lines if ln.startswith("current tables: K="))
    fit = next(ln for ln in lines if ln.startswith("fitted tables:  K="))
    assert "MSE train 0." in cur and "holdout 0." in cur and "MSE train 0." in fit and "holdout 0." in fit
    ns = _printed(lines)
    assert list(ns) == list(EvalTables._fields)
    assert all(ns[name].shape == (11,) for name in ("own", "opp", "pattern_own", "pattern_opp"))
    assert ns["own"][C_F4] == evaluation.OWN_WEIGHTS[C_F4]
    assert ns["own"][C_FIVE] == ns["opp"][C_FIVE] == 0
    # no --out: it says how to write and where to ship them, and writes nothing
    assert lines[-1].startswith("# --out FILE --rule RULE writes them as a tables file")
    assert str(evaluation.TABLES_FILE) in lines[-1]

    # the rule filter drops the standard games; with no holdout every game is fitted
    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--rule", "freestyle", "--holdout", "0"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("games: 27 used (train 27, holdout 0)")
    assert "MSE all 0." in r.output and "holdout" not in r.output.splitlines()[2]


def test_tune_cli_scale_pins_the_unit(sgf_file):
    """--scale K multiplies the fitted logit weights by K itself, whatever the current
    tables' best K: twice the scale, twice the weights (to rounding)."""
    def tables(scale: str) -> dict:
        r = CliRunner().invoke(main, ["tune", str(sgf_file), "--holdout", "0", "--scale", scale])
        assert r.exit_code == 0, r.output
        assert f"fitted tables:  K={float(scale):.1f}" in r.output
        return _printed(r.output.splitlines())

    one, two = tables("500"), tables("1000")
    for name, fitted in (("own", slice(1, 9)), ("pattern_opp", slice(2, 9))):
        a, b = one[name][fitted].astype(int), two[name][fitted].astype(int)
        assert np.abs(b - 2 * a).max() <= 1 and np.abs(a).max() > 5, (name, a, b)
    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--scale", "0"])
    assert r.exit_code != 0 and "--scale" in r.output


def test_tune_cli_without_patterns_keeps_the_pattern_tables(sgf_file):
    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--rule", "freestyle", "--no-patterns"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    now = evaluation.tables(int(Rule.FREESTYLE))
    assert tuning.table_line("pattern_own", now.pattern_own) in lines
    assert tuning.table_line("pattern_opp", now.pattern_opp) in lines
    assert tuning.table_line("pair_own", now.pair_own) in lines
    assert tuning.table_line("pair_opp", now.pair_opp) in lines
    assert tuning.table_line("own", now.own) not in lines     # the class tables are fitted


def test_tune_cli_one_line_errors(tmp_path, sgf_file):
    missing = tmp_path / "nope.sgf"
    r = CliRunner().invoke(main, ["tune", str(sgf_file), str(missing)])
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [f"Error: record file not found: {missing}"]

    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--rule", "renju"])
    assert r.exit_code != 0
    assert len(r.output.strip().splitlines()) == 1 and "need at least 200" in r.output

    r = CliRunner().invoke(main, ["tune", str(sgf_file), "--rule", "chess"])
    assert r.exit_code != 0 and "unknown rule" in r.output


def test_tune_is_listed_in_help():
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0 and "  tune " in r.output


# ----------------------------------------------------------------------------- teacher scores

def _scored_text(lines: list[str], rule: str = "freestyle") -> str:
    return "\n".join([f"# scored positions: rule {rule} size 15", "# a comment", ""] + lines) + "\n"


def test_load_scored_labels_skips_decided_positions_and_groups_by_game(tmp_path):
    path = tmp_path / "s.txt"
    five_threat = " ".join(f"{x},{y}" for x, y in WIN_LINE[:6])   # black to move, open-four cell
    path.write_text(_scored_text([
        "g1 0.75 7,7 8,8",              # black to move after two stones
        "g1 0.25 7,7 8,8 9,9",          # white to move
        f"g2 0.9 {five_threat}",        # decided by rule: skipped
        "g3 0.5",                       # the empty board
    ]))
    rule, X, y, gi = tuning.load_scored(str(path))
    assert rule == Rule.FREESTYLE
    assert y.tolist() == [0.75, 0.25, 0.5]
    assert gi.tolist() == [0, 0, 1]                # games numbered as their rows appear
    assert X.shape == (3, tuning.NFEAT) and X[2, 0] == X[2, 9] == 225


def test_load_scored_gzip_matches_plain(tmp_path):
    import gzip
    text = _scored_text(["a 0.6 7,7 8,8", "b 0.4 7,7"], rule="standard")
    (tmp_path / "s.txt").write_text(text)
    with gzip.open(tmp_path / "s.txt.gz", "wt") as fh:
        fh.write(text)
    plain = tuning.load_scored(str(tmp_path / "s.txt"))
    packed = tuning.load_scored(str(tmp_path / "s.txt.gz"))
    assert plain[0] == packed[0] == Rule.STANDARD
    for a, b in zip(plain[1:], packed[1:]):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("text, where", [
    ("# rule freestyle size 15\na 0.5 7,7\n", ":1:"),      # old header
    (_scored_text(["a 1.5 7,7"]), ":4:"),                   # P outside [0, 1]
    (_scored_text(["a 0.5 7,7 7,7"]), ":4:"),               # occupied cell
    (_scored_text(["a 0.5 7;7"]), ":4:"),                   # not x,y
    (_scored_text(["a 0.5 15,3"]), ":4:"),                  # off the board
])
def test_load_scored_names_the_bad_line(tmp_path, text, where):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=where):
        tuning.load_scored(str(path))


def test_tune_cli_distils_a_teachers_scores(tmp_path):
    """A teacher whose probabilities are the logistic of the current freestyle tables at
    K = 400: the fit must give those tables back (in their own units), and predict the
    teacher better than tables fitted to noise would."""
    tables = evaluation.tables(int(Rule.FREESTYLE))
    lines = []
    for g, rec in enumerate(_games(60, seed=11)):
        if rec.rule != Rule.FREESTYLE:
            continue
        board = Board(15, rule=rec.rule)
        for mv in rec.moves:
            row = tuning.leaf_row(board)
            if row is not None and board.move_count >= 2:
                p = 1 / (1 + np.exp(-tuning.evaluate(row[None], tables)[0] / 400.0))
                moves = " ".join(f"{x},{y}" for x, y in board.moves)
                lines.append(f"game{g} {p:.6f} {moves}")
            board.play(*mv)
    path = tmp_path / "teacher.txt"
    path.write_text(_scored_text(lines))

    r = CliRunner().invoke(main, ["tune", "--scores", str(path), "--holdout", "0.2", "--l2", "1e-6"])
    assert r.exit_code == 0, r.output
    out = r.output.splitlines()
    assert out[0].startswith("games: ") and "holdout" in out[0]
    cur = next(ln for ln in out if ln.startswith("current tables: K="))
    assert 300 < float(cur.split("K=")[1].split()[0]) < 530           # the teacher's scale
    ns = _printed(out)
    for got, want in ((ns["own"], tables.own), (ns["opp"], tables.opp)):
        for k in (C_F3, C_F3 - 2):                  # F3 and B3: common in these games
            assert abs(int(got[k]) - int(want[k])) <= 0.2 * abs(int(want[k])) + 15, (k, got, want)


def test_tune_cli_scores_errors(tmp_path):
    r = CliRunner().invoke(main, ["tune"])
    assert r.exit_code != 0 and "give GAMES, --scores FILE or --labels FILE" in r.output

    path = tmp_path / "s.txt"
    path.write_text(_scored_text(["a 0.5 7,7"], rule="renju"))
    r = CliRunner().invoke(main, ["tune", "--scores", str(path), "--rule", "freestyle"])
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [f"Error: {path} holds renju positions, not freestyle"]

    path.write_text(_scored_text(["a 0.5 7,7", "b 0.5"]))
    r = CliRunner().invoke(main, ["tune", "--scores", str(path)])
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1
    assert "only 2 positions" in r.output and "1 score files" in r.output and "need at least 200" in r.output

    path.write_text("a 0.5 7,7\n")
    r = CliRunner().invoke(main, ["tune", "--scores", str(path)])
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1 and ":1:" in r.output


#: the searched labels the shipped tables are fitted to
DATA = Path(__file__).resolve().parent.parent / "tools" / "data"

#: freestyle: the classical engine's own searched games (the search as the teacher)
FREESTYLE_LABELS = tuple(f"sprt20k_freestyle_{k}.labels" for k in range(1, 7))


#: standard: the same, from the standard book's games
STANDARD_LABELS = ("sprt20k_standard_1.labels",)
#: renju: the same, from the renju book's games
RENJU_LABELS = ("sprt20k_renju_1.labels",)


@pytest.mark.parametrize("rule, files, lam, positions", [
    ("freestyle", FREESTYLE_LABELS, "1", 805295),
    ("standard", STANDARD_LABELS, "1", 48794),
    ("renju", RENJU_LABELS, "0.7", 51418),
])
def test_shipped_tables_are_the_fit_of_the_shipped_scores(rule, files, lam, positions, tmp_path):
    """The fitted tables in engine/data/eval_tables.json are reproducible from the
    repository: `--out` writes the rule's entry as it ships (with the 5 % of the games its fit
    held out, as it was fitted and tested)."""
    out = tmp_path / "fit.json"
    args = ["tune", "--holdout", "0.05", "--lambda", lam, "--out", str(out)]
    for name in files:
        args += ["--labels", str(DATA / name)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert r.output.startswith("games: ") and f"positions: {positions} " in r.output
    shipped = evaluation.RULE_TABLES[int(Rule[rule.upper()])]
    lines = r.output.splitlines()
    for name, table in zip(EvalTables._fields, shipped):
        assert tuning.table_line(name, table) in lines
    fitted = evaluation.load_tables(out)
    assert list(fitted) == [int(Rule[rule.upper()])]
    assert all(np.array_equal(a, b) for a, b in zip(fitted[int(Rule[rule.upper()])], shipped))
    assert lines[-1] == (f"# written to {out} ({rule}): play it with classical:tables={out}; to ship it, copy its "
                         f"{rule} entry over the one in {evaluation.TABLES_FILE}, the tables the engine loads")


def test_the_shipped_tables_file_is_a_tables_file_with_every_rule():
    """The engine's tables are the data file, written as `gomoku tune --out` writes one, with an
    entry for every rule; caro and caro5 share the common tables (classes only)."""
    text = evaluation.TABLES_FILE.read_text(encoding="utf-8")
    loaded = evaluation.load_tables(evaluation.TABLES_FILE)
    assert sorted(loaded) == [int(r) for r in Rule]
    assert evaluation.tables_to_json(loaded) == text
    for r in Rule:
        want = evaluation.tables(int(r))
        assert all(a.dtype == np.int32 and np.array_equal(a, b) for a, b in zip(want, loaded[int(r)]))
    common = evaluation.tables(None)
    for r in (Rule.CARO, Rule.CARO_EXACT):
        assert all(np.array_equal(a, b) for a, b in zip(loaded[int(r)], common))
    assert not common.pattern_own.any() and not common.pair_opp.any()


def test_a_shipped_tables_file_without_a_rule_is_refused(tmp_path):
    path = tmp_path / "t.json"
    evaluation.save_tables(path, {int(Rule.FREESTYLE): evaluation.tables(int(Rule.FREESTYLE))})
    with pytest.raises(ValueError, match="no tables for standard, renju, caro, caro5"):
        evaluation._shipped(path)


# ----------------------------------------------------------------------------- tune --eval

def test_tune_eval_scores_an_evaluator_the_tables_and_their_blends(tmp_path):
    """`gomoku tune --scores F --eval E`: the tables' line is their cross-entropy against the
    teacher computed by hand, the evaluator's is that of its search score (mix_score), and a
    blend lies where the search's integer blend of the two puts it."""
    import torch
    from gomoku.engine.search import learned
    from gomoku.engine.search.learned_file import load_evaluator, save_evaluator
    from gomoku.train.models import build_model
    torch.manual_seed(3)
    model = build_model("mix8", 2, "freestyle")
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    path = tmp_path / "t.eval.npz"
    save_evaluator(path, model.evaluator_weights(), "mix8", "freestyle")
    lines = []
    for g, rec in enumerate(_games(8, seed=5)):
        if rec.rule != Rule.FREESTYLE:
            continue
        board = Board(15, rule=rec.rule)
        for k, mv in enumerate(rec.moves[:12]):
            board.play(*mv)
            if k >= 2 and tuning.leaf_row(board) is not None:
                p = 0.2 + 0.6 * ((g + k) % 5) / 4 if (g + k) % 7 else float(k % 2)    # some decided
                lines.append(f"game{g} {p:.2f} " + " ".join(f"{x},{y}" for x, y in board.moves))
    scores = tmp_path / "s.txt"
    scores.write_text(_scored_text(lines))
    r = CliRunner().invoke(main, ["tune", "--scores", str(scores), "--eval", str(path)])
    assert r.exit_code == 0, r.output
    rows = [ln.rsplit(None, 3) for ln in r.output.splitlines()[3:]]
    got = {name.strip(): float(a) for name, a, _, _ in rows}
    quiet = {name.strip(): float(q) for name, _, q, _ in rows}
    decided = {name.strip(): float(d) for name, _, _, d in rows}
    assert r.output.startswith(f"positions: {len(lines)} the search's leaf scores, from ")
    # by hand: the tables and the evaluator, each as a probability at K = 1000
    ev = load_evaluator(path)
    tabs, nets, ps = [], [], []
    _, _, _, positions = tuning.scored_positions(str(scores))
    for _, p, board in positions:
        e = ev.evaluator(board.state.cells.shape[0])
        learned.mix_rebuild(board.state, e)
        nets.append(float(learned.mix_score(board.state, e)))
        tabs.append(float(tuning.evaluate(tuning.leaf_row(board)[None], evaluation.tables(int(Rule.FREESTYLE)))[0]))
        ps.append(p)
    p = np.array(ps)

    def ce(s, part=None):
        t, q = p, 1 / (1 + np.exp(-np.array(s, dtype=float) / 1000.0))
        if part is not None:
            t, q = t[part], q[part]
        q = np.clip(q, 1e-7, 1 - 1e-7)     # as tuning.teacher_cross_entropy
        return float(np.mean(-(t * np.log(q) + (1 - t) * np.log(1 - q))))
    assert got["the tables"] == pytest.approx(ce(tabs), abs=1e-4)
    assert got["t (mix8)"] == pytest.approx(ce(nets), abs=1e-4)
    assert got["the tables"] != got["t (mix8)"]
    half = [(50 * n + 50 * int(t)) // 100 for n, t in zip(nets, tabs)]
    assert got["blend share=50"] == pytest.approx(ce(half), abs=1e-4)
    # the quiet and the decided positions apart: each column is the same loss on its part only
    ann = (p == 0) | (p == 1)
    assert 0 < ann.sum() < len(p) and f"the {int(ann.sum())} it announces" in r.output
    for name, s in (("the tables", tabs), ("t (mix8)", nets), ("blend share=50", half)):
        for part, col in ((~ann, quiet), (ann, decided)):
            assert col[name] == pytest.approx(ce(s, part), abs=1e-4), name
    # --holdout keeps the games a training run keeps out, and says so; --eval needs --scores
    r = CliRunner().invoke(main, ["tune", "--scores", str(scores), "--eval", str(path), "--holdout", "0.5"])
    held = sum(tuning.game_key(str(scores), f"game{g}") < 0.5 for g in range(8))
    assert (r.exit_code == 0 and "keeps out" in r.output) if held else "no position to score" in r.output
    r = CliRunner().invoke(main, ["tune", "--eval", str(path)])
    assert r.exit_code != 0 and "--eval needs --scores FILE" in r.output


def _labels_of_the_tables(path: Path, k: float) -> None:
    """Scored games whose every search score is the current freestyle tables' evaluation scaled
    so that sigmoid(score / 1000) = sigmoid(eval / k): a search that agrees with the tables at
    logistic scale k."""
    from gomoku.engine.game.labels import LabelWriter, scored_game

    tables = evaluation.tables(int(Rule.FREESTYLE))
    with LabelWriter(path) as w:
        for rec in _games(45, seed=11):
            if rec.rule != Rule.FREESTYLE:
                continue
            board = Board(15, rule=rec.rule)
            scores: list[int | None] = []
            for mv in rec.moves:
                row = tuning.leaf_row(board)
                e = tuning.evaluate(row[None], tables)[0] if row is not None and board.move_count >= 2 else None
                scores.append(None if e is None else int(max(-20000, min(20000, round(e * 1000.0 / k)))))
                board.play(*mv)
            w.write(scored_game(15, 15, int(rec.rule), board.winner, rec.moves, 2, scores))


def test_tune_cli_fits_the_tables_to_searched_labels(tmp_path):
    """`--labels` with lambda 1: the search's scores are the tables' at K = 400, so the fit
    finds that scale for the current tables, gives their common entries back, and writes
    a tables file a player spec reads."""
    path = tmp_path / "g.labels"
    _labels_of_the_tables(path, 400.0)
    out_file = tmp_path / "fitted.json"
    r = CliRunner().invoke(main, ["tune", "--labels", str(path), "--lambda", "1", "--holdout", "0.2",
                                  "--l2", "1e-6", "--out", str(out_file)])
    assert r.exit_code == 0, r.output
    out = r.output.splitlines()
    cur = next(ln for ln in out if ln.startswith("current tables: K="))
    assert 300 < float(cur.split("K=")[1].split()[0]) < 530
    ns = _printed(out)
    tables = evaluation.tables(int(Rule.FREESTYLE))
    for got, want in ((ns["own"], tables.own), (ns["opp"], tables.opp)):
        for k in (C_F3, C_F3 - 2):
            assert abs(int(got[k]) - int(want[k])) <= 0.2 * abs(int(want[k])) + 15, (k, got, want)
    assert evaluation.load_tables(str(out_file))[int(Rule.FREESTYLE)].own.tolist() == ns["own"].tolist()


def test_tune_cli_labels_errors(tmp_path):
    path = tmp_path / "g.labels"
    _labels_of_the_tables(path, 400.0)
    r = CliRunner().invoke(main, ["tune", "--labels", str(path), "--rule", "standard"])
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1
    assert "the training is standard 15x15" in r.output
    bad = tmp_path / "bad.labels"
    bad.write_bytes(b"nothing")
    r = CliRunner().invoke(main, ["tune", "--labels", str(bad)])
    assert r.exit_code != 0 and r.output.strip().splitlines() == [f"Error: {bad}: {bad} is not a scored-games file"]
