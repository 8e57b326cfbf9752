"""`gomoku analyze` through its command line, on hand-made games whose verdicts are known:
white lets black make five and black misses it (both `??`, the win in one named); black
builds a VCF that white fails to stop and plays it out (the VCF proved and printed, white's
blunder the losing move); black plays a renju double-three (the foul named); the three in one
SGF collection (`--game N`). The annotated SGF reads back with our reader and with sgfmill,
the JSON holds the same review, the plot is a PNG of the promised size (or one line without
matplotlib), bad input is one line, and Ctrl-C keeps what was reviewed."""
from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CTRL_C_MARGIN_S, CTRL_C_S, ctrl_c_at
from gomoku.engine.game.board import Board
from gomoku.engine.game.records import (GameRecord, RESULT_BLACK, load_sgf, save, save_sgf)
from gomoku.engine.game.rules import Rule
from gomoku.tools.cli import main
from gomoku.tools.review_view import PLOT_SIZE

#: a small budget: the verdicts below come from the threat solvers and the five checks, which
#: need few nodes; a position then searches in milliseconds
NODES = "4000"

# Black four h8-k8 (g8 white) threatens l8; white plays j9 instead of blocking (move 8),
# black plays d4 instead of l8 (move 9), white blocks at last.
MISSED_WIN = [(7, 7), (7, 8), (8, 7), (8, 8), (9, 7), (6, 7), (10, 7), (9, 8), (3, 3), (11, 7)]
# Black f6 g6 h6 (e6 white) and i7 i8: after i7 (move 9) black threatens the VCF i6 (four and
# a three), j6 forced, i9 or i5 (an open four). White plays c3 (move 10) and black wins.
VCF_GAME = [(6, 5), (4, 5), (7, 5), (12, 12), (8, 7), (12, 2), (5, 5), (2, 12), (8, 6), (2, 2),
            (8, 5), (9, 5), (8, 8), (8, 9), (8, 4)]
# Renju: black's h8 (move 9) makes two open threes, h6-h7-h8 and f8-g8-h8.
FOUL_GAME = [(5, 7), (0, 0), (6, 7), (0, 14), (7, 5), (14, 0), (7, 6), (14, 14), (7, 7)]


def missed_win() -> GameRecord:
    return GameRecord(moves=list(MISSED_WIN), black="alice", white="bob")


def vcf_game() -> GameRecord:
    rec = GameRecord(moves=list(VCF_GAME), black="carol", white="dave")
    rec.finish(1, "five")
    return rec


def foul_game() -> GameRecord:
    rec = GameRecord(rule=Rule.RENJU, moves=list(FOUL_GAME))
    rec.finish(2, "foul")
    return rec


def analyze(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["analyze", *args, "--nodes", NODES, "-c", "1", "--no-progress"])
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def header(output: str) -> str:
    """The report's first line (and its wrapped rest)."""
    lines = output.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith("Review of "))
    return " ".join([lines[i]] + [ln.strip() for ln in lines[i + 1:i + 3] if ln.startswith("  ")])


def row(output: str, number: int) -> str:
    """The report table's line of move `number`."""
    lines = [ln for ln in output.splitlines() if ln[:4].strip() == str(number) and ln[4:6] == "  "]
    assert lines, output
    return lines[0]


def test_the_records_are_what_their_comments_say():
    b = Board.from_moves(15, MISSED_WIN[:8])
    assert b.would_win(11, 7) and not b.would_win(11, 7, 2)
    b = Board.from_moves(15, VCF_GAME)
    assert b.winner == 1
    b = Board.from_moves(15, FOUL_GAME[:8], rule=Rule.RENJU)
    assert b.foul_kind(7, 7) == "double-three"


def test_a_missed_win_in_one_is_marked_and_named(tmp_path):
    path = tmp_path / "missed.sgf"
    save(path, missed_win())
    code, out = analyze(str(path))
    assert code == 0, out
    assert "??" in row(out, 9) and "misses the win in one at l8" in row(out, 9)
    assert "??" in row(out, 8) and "lets black make five at l8" in row(out, 8)     # white let it happen
    assert "move 9: black d4?? (100% -> " in out and "misses the win in one at l8" in out.split("Turning points")[1]
    assert max(len(line) for line in out.splitlines()) <= 80


def test_a_vcf_is_proved_printed_and_the_losing_move_found(tmp_path):
    path = tmp_path / "vcf.sgf"
    save(path, vcf_game())
    code, out = analyze(str(path))
    assert code == 0, out
    flat = " ".join(out.split())
    assert "move 11: black has a VCF: i6 j6 i" in flat, out
    # after c3 black's VCF is proved, so white's game was lost by then if not before
    losing = [ln for ln in out.split("Turning points")[1].splitlines() if "the losing move" in ln]
    assert len(losing) == 1 and " white " in losing[0] and int(losing[0].split()[1].rstrip(":")) <= 10, out
    assert "makes five" in row(out, 15) and "cannot stop two fives" in row(out, 14)


def test_a_renju_foul_is_named(tmp_path):
    path = tmp_path / "foul.sgf"
    save(path, foul_game())
    code, out = analyze(str(path))
    assert code == 0, out
    assert "renju" in header(out)
    assert "a double-three foul: black loses" in row(out, 9) and "??" in row(out, 9)
    assert "move 9: black h8?? (100% -> 0%): a double-three foul: black loses; the losing move" in " ".join(out.split())


def test_a_psq_record_takes_the_rule_from_the_option(tmp_path):
    """.psq has no rule: the same foul is one only with --rule renju."""
    path = tmp_path / "foul.psq"
    save(path, GameRecord(moves=list(FOUL_GAME)))
    code, out = analyze(str(path), "--rule", "renju")
    assert code == 0 and "double-three foul" in row(out, 9), out
    code, out = analyze(str(path))
    assert code == 0 and "foul" not in row(out, 9), out


def test_a_collection_reviews_the_game_asked_for(tmp_path):
    path = tmp_path / "three.sgf"
    save_sgf(path, [missed_win(), vcf_game(), foul_game()])
    code, out = analyze(str(path), "--game", "2")
    assert code == 0, out
    assert "game 2 of 3" in header(out) and "black carol" in header(out)
    assert "black has a VCF" in out
    code, out = analyze(str(path), "--game", "3", "--from", "9")
    assert code == 0 and "double-three foul" in row(out, 9), out
    assert "   1  X" not in out                               # the moves before --from are not judged
    code, out = analyze(str(path), "--game", "4")
    assert code == 2 and "holds 3 games" in out, out


def test_the_sgf_reads_back_with_our_reader_and_sgfmill(tmp_path):
    sgfmill = pytest.importorskip("sgfmill.sgf")
    path, out_sgf = tmp_path / "missed.sgf", tmp_path / "reviewed.sgf"
    save(path, missed_win())
    code, out = analyze(str(path), "--out", str(out_sgf))
    assert code == 0 and f"wrote {out_sgf}" in out, out
    back = load_sgf(out_sgf)
    assert back.moves == MISSED_WIN and back.black == "alice"
    game = sgfmill.Sgf_game.from_bytes(out_sgf.read_bytes())
    nodes = game.get_main_sequence()[1:]
    size = game.get_size()
    moves = [(col, size - 1 - r) for (_colour, (r, col)) in (n.get_move() for n in nodes)]
    assert moves == MISSED_WIN
    ninth = nodes[8]
    assert "misses the win in one at l8" in ninth.get("C") and ninth.get("BM") == 2
    (r, col), = ninth.get("TR")                                # the engine's move, marked
    assert (col, size - 1 - r) == (11, 7)
    assert all(n.has_property("C") for n in nodes)


def test_the_json_holds_the_review(tmp_path):
    path, js = tmp_path / "vcf.sgf", tmp_path / "review.json"
    save(path, vcf_game())
    code, out = analyze(str(path), "--json", str(js))
    assert code == 0, out
    data = json.loads(js.read_text())
    assert data["format"] == "gomoku-review" and data["complete"] and data["result"] == RESULT_BLACK
    moves = {m["number"]: m for m in data["moves"]}
    assert len(moves) == len(VCF_GAME)
    assert moves[11]["proof"] == "vcf" and moves[11]["proof_line"][:2] == [[8, 5], [9, 5]]
    assert data["losing_move"] <= 10 and moves[data["losing_move"]]["colour"] == "white"
    assert 0.0 <= moves[1]["before"] <= 1.0


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_plot_is_a_png_of_the_promised_size(tmp_path):
    pytest.importorskip("matplotlib")
    path, png = tmp_path / "vcf.sgf", tmp_path / "chance.png"
    save(path, vcf_game())
    code, out = analyze(str(path), "--plot", str(png))
    assert code == 0, out
    assert png_size(png) == PLOT_SIZE


def test_without_matplotlib_the_plot_is_one_line_and_the_rest_runs(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # import matplotlib raises ImportError
    path, png, out_sgf = tmp_path / "vcf.sgf", tmp_path / "chance.png", tmp_path / "out.sgf"
    save(path, vcf_game())
    code, out = analyze(str(path), "--plot", str(png), "--out", str(out_sgf))
    assert code == 0, out
    assert [ln for ln in out.splitlines() if "needs matplotlib" in ln] == [
        "--plot needs matplotlib, which is not installed: pip install matplotlib (or the train extra); "
        "the review goes on without the plot"]
    assert not png.exists() and load_sgf(out_sgf).moves == VCF_GAME


def test_the_help_names_the_default_budget():
    from gomoku.engine.player.review import DEFAULT_NODES
    r = CliRunner().invoke(main, ["analyze", "--help"])
    assert r.exit_code == 0 and f"[default: {DEFAULT_NODES}:" in " ".join(r.output.split())


@pytest.mark.parametrize("make, args, needle", [
    (None, [], "record file not found"),
    ("(;GM[1]SZ[19];B[aa])", [], "not Gomoku"),
    ("not a record", [], "no SGF game found"),
    ("(;GM[4]SZ[15])", [], "no moves to review"),
    ("(;GM[4]SZ[15];B[hh];W[hh])", [], "occupied"),
    ("(;GM[4]SZ[15];B[hh];W[ii])", ["--from", "3"], "the game has 2 moves"),
    ("(;GM[4]SZ[15];B[hh];W[ii])", ["--out", "x.txt"], "must end in .sgf"),
    ("(;GM[4]SZ[15];B[hh];W[ii])", ["--plot", "x.jpg"], "must end in .png"),
    ("(;GM[4]SZ[15];B[hh];W[ii])", ["--time", "1"], "--time or --nodes, not both"),
])
def test_bad_input_is_one_line(tmp_path, make, args, needle):
    path = tmp_path / "game.sgf"
    if make is not None:
        path.write_text(make)
    code, out = analyze(str(path), *[str(tmp_path / a) if a.startswith("x.") else a for a in args])
    assert code in (1, 2), out
    errors = [ln for ln in out.splitlines() if ln.startswith("Error")]
    assert len(errors) == 1 and needle in errors[0], out


def test_a_record_that_goes_on_after_a_five_is_reviewed_up_to_it(tmp_path):
    path = tmp_path / "long.sgf"
    save(path, GameRecord(moves=list(VCF_GAME) + [(0, 14)]))
    code, out = analyze(str(path))
    assert code == 0, out
    assert "the record's 1 later moves are not reviewed" in out and "makes five" in row(out, 15)


def test_fixed_nodes_give_the_same_review_on_two_processes(tmp_path):
    """The positions spread over worker processes (-c 2) and come back in order: at a node
    budget every verdict is the one a single process finds."""
    path = tmp_path / "vcf.sgf"
    save(path, vcf_game())
    js1, js2 = tmp_path / "one.json", tmp_path / "two.json"
    code, out = analyze(str(path), "--json", str(js1))
    assert code == 0, out
    r = CliRunner().invoke(main, ["analyze", str(path), "--nodes", NODES, "-c", "2", "--no-progress",
                                  "--json", str(js2)])
    assert r.exit_code == 0, r.output
    one, two = json.loads(js1.read_text()), json.loads(js2.read_text())
    assert two["workers"] == 2
    assert one["moves"] == two["moves"] and one["turning_points"] == two["turning_points"]


@pytest.mark.slow
@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_keeps_what_was_reviewed(tmp_path):
    """Ctrl-C once a position is done, on two workers at a budget of seconds a position: the
    command stops within the Ctrl-C bound, exits 130 and writes the report and the JSON of the
    moves reviewed so far."""
    path, js = tmp_path / "vcf.sgf", tmp_path / "review.json"
    save(path, vcf_game())
    gomoku = Path(sys.executable).parent / "gomoku"
    r = ctrl_c_at([str(gomoku), "analyze", str(path), "--nodes", "5000000", "-c", "2", "--no-progress",
                   "--json", str(js)], "positions reviewed")
    assert r.code == 130 and "Traceback" not in r.out, r.out
    assert r.after < CTRL_C_S + CTRL_C_MARGIN_S, f"stopped {r.after:.2f} s after Ctrl-C:\n{r.out}"
    assert "Interrupted:" in r.out and "Turning points" in r.out
    data = json.loads(js.read_text())
    assert data["interrupted"] and not data["complete"]
    assert any(p["how"] == "search" and p["chance"] is not None for p in data["positions"])
