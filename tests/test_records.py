"""Game records: .psq and SGF round trips, real-looking files, and one-line errors."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku.engine.game import records
from gomoku.engine.game.records import (GameRecord, from_sgf_string, load, load_psq, load_sgf, load_sgf_all,
                                   parse_psq, save, save_psq, save_sgf, to_sgf_string, append_sgf)
from gomoku.engine.game.rules import Rule

# A Gomocup-style record as Piskvork writes it in a tournament: CRLF line ends, 1-based x,y,ms,
# then the two brain names and Piskvork's end code. Black (first mover) makes five in a column
# at x=10 (1-based), y=8..12 on its 5th move.
REAL_PSQ = (
    "Piskvorky 20x20, 11:11, 0\r\n"
    "10,10,1432\r\n"
    "11,11,2210\r\n"
    "10,9,987\r\n"
    "11,9,1500\r\n"
    "10,11,760\r\n"
    "10,12,3021\r\n"
    "10,8,455\r\n"
    "11,10,1999\r\n"
    "10,7,301\r\n"
    "pbrain-embryo21_s.exe\r\n"
    "pbrain-rapfi21.exe\r\n"
    "-1\r\n"
)

# A hand-written SGF the way a renju site or an editor would save it: comments, a soft line
# break, escaped ']' in a name, a rejected variation, an unknown root property.
REAL_SGF = r"""(;GM[4]FF[4]CA[UTF-8]AP[RenLib:3.6]
SZ[15]RU[Renju]PB[Kato \] Sho]PW[Ivanov]DT[2021-08-14]EV[World Renju Championship]
RE[W+R]C[Round 5, first \
game];B[hh]C[centre];W[ig];B[jh]
(;W[ih];B[ii];W[hi])
(;W[gg];B[ff];W[]))
"""


def sample_record(n_moves: int = 9) -> GameRecord:
    moves = [(7, 7), (8, 7), (7, 8), (8, 8), (7, 9), (8, 9), (7, 10), (8, 10), (7, 11)][:n_moves]
    rec = GameRecord(width=15, height=15, rule=Rule.RENJU, moves=moves, black="Alice", white="engine L3",
                     date="2026-11-25", times=[100 * i for i in range(len(moves))])
    rec.finish(1, "five")
    return rec


# ------------------------------------------------------------------ real-looking files

def test_parse_real_gomocup_psq(tmp_path):
    path = tmp_path / "0_1_9.psq"
    path.write_bytes(REAL_PSQ.encode())
    rec = load_psq(path)
    assert (rec.width, rec.height) == (20, 20)
    # 1-based in the file -> 0-based here
    assert rec.moves[0] == (9, 9)
    assert rec.moves[1] == (10, 10)
    assert rec.moves[-1] == (9, 6)
    assert len(rec.moves) == 9
    assert rec.times[:3] == [1432, 2210, 987]
    assert rec.black == "pbrain-embryo21_s.exe" and rec.white == "pbrain-rapfi21.exe"
    assert rec.extra["psq_code"] == "-1"
    # the format has no result field: it is inferred by replaying (five in column x=9)
    assert rec.result == "1-0" and rec.winner == 1 and rec.reason == "five"


def test_psq_second_player_started_swaps_names():
    text = REAL_PSQ.replace("11:11, 0", "11:11, 1")
    rec = parse_psq(text)
    assert rec.black == "pbrain-rapfi21.exe" and rec.white == "pbrain-embryo21_s.exe"


def test_psq_without_trailer_and_human_names():
    rec = parse_psq("Piskvorky 15x15, 0:11, 0\n8,8,0\n9,9,1200\nhomo-1\npbrain-x.exe\n0\n")
    assert rec.moves == [(7, 7), (8, 8)]
    assert rec.black == "human" and rec.white == "pbrain-x.exe"
    assert rec.result is None
    rec2 = parse_psq("Piskvorky 15x15, 11:11, 0\n8,8\n")
    assert rec2.moves == [(7, 7)] and rec2.times == [0]


def test_parse_real_sgf_main_line(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text(REAL_SGF, encoding="utf-8")
    rec = load_sgf(path)
    assert rec.rule == Rule.RENJU and (rec.width, rec.height) == (15, 15)
    assert rec.black == "Kato ] Sho" and rec.white == "Ivanov"
    assert rec.date == "2021-08-14"
    # main line = first variation; W[] in the skipped node is not reached
    assert rec.moves == [(7, 7), (8, 6), (9, 7), (8, 7), (8, 8), (7, 8)]
    assert rec.result == "0-1" and rec.winner == 2 and rec.reason == "resign"
    assert rec.extra["EV"] == "World Renju Championship"


def test_sgf_rectangular_and_lowercase_long_idents():
    rec = from_sgf_string("(;GM[4]FF[4]SZ[20:15]RU[caro5]PlayerBlack[x];B[ae];W[tn])")[0]
    assert (rec.width, rec.height) == (20, 15)
    assert rec.rule == Rule.CARO_EXACT
    assert rec.moves == [(0, 4), (19, 13)]
    assert rec.black == "x"


# ------------------------------------------------------------------ round trips

def test_sgf_round_trip(tmp_path):
    rec = sample_record()
    path = tmp_path / "a.sgf"
    save_sgf(path, rec)
    back = load_sgf(path)
    assert back == rec
    assert "GM[4]" in path.read_text() and "RU[renju]" in path.read_text()


def test_psq_round_trip(tmp_path):
    rec = sample_record()
    rec.rule = Rule.FREESTYLE
    path = tmp_path / "a.psq"
    save_psq(path, rec)
    text = path.read_text()
    assert text.splitlines()[0] == "Piskvorky 15x15, 11:11, 0"
    assert text.splitlines()[1] == "8,8,0"          # 1-based
    back = load_psq(path)
    assert back.moves == rec.moves and back.times == rec.times
    assert (back.black, back.white) == (rec.black, rec.white)
    assert back.result == "1-0" and back.winner == 1


def test_psq_rule_comes_from_caller(tmp_path):
    # black's overline (6 in a row) wins in freestyle but not in standard (exactly five)
    moves = [(0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (2, 5), (4, 0), (4, 5), (5, 0), (9, 9), (3, 0)]
    rec = GameRecord(width=15, height=15, moves=moves)
    path = tmp_path / "over.psq"
    save_psq(path, rec)
    assert load_psq(path, rule=Rule.FREESTYLE).winner == 1
    std = load(path, rule=Rule.STANDARD)
    assert std.rule == Rule.STANDARD and std.result is None


def test_sgf_without_a_rule_takes_the_callers(tmp_path):
    """An SGF game without RU[] is played under the rule the caller gives, as a .psq is; one
    with RU[] keeps its own."""
    path = tmp_path / "two.sgf"
    path.write_text("(;GM[4]SZ[15];B[hh];W[ii])(;GM[4]SZ[15]RU[caro];B[hh])")
    plain, caro = load_sgf_all(path, Rule.RENJU)
    assert plain.rule == Rule.RENJU and caro.rule == Rule.CARO
    assert records.load_all(path)[0].rule == Rule.FREESTYLE


def test_sgf_move_annotations_ride_on_their_nodes():
    rec = GameRecord(moves=[(7, 7), (8, 8)])
    text = records.sgf_game_string(rec, [[("C", "best [i9]\\here"), ("TR", "ii")], [("BM", "2")]])
    assert ";B[hh]C[best [i9\\]\\\\here]TR[ii];W[ii]BM[2]" in text
    assert from_sgf_string(text) == [rec]


def test_multi_game_collection(tmp_path):
    recs = []
    rng = random.Random(1)
    for g in range(5):
        cells = [(x, y) for x in range(9) for y in range(9)]
        rng.shuffle(cells)
        r = GameRecord(width=9, height=9, rule=Rule.STANDARD, moves=cells[:10], black=f"A{g}", white=f"B{g}",
                       date="2026-11-25")
        r.finish([0, 1, 2][g % 3], ["full", "five", "resign"][g % 3])
        recs.append(r)
    path = tmp_path / "match.sgf"
    for r in recs:
        append_sgf(path, r)
    assert load_sgf_all(path) == recs
    assert from_sgf_string(to_sgf_string(recs)) == recs


@settings(max_examples=60, deadline=None)
@given(w=st.integers(5, 22), h=st.integers(5, 22), data=st.data())
def test_round_trip_property(tmp_path_factory, w, h, data):
    cells = [(x, y) for x in range(w) for y in range(h)]
    n = data.draw(st.integers(0, min(30, len(cells))))
    moves = data.draw(st.permutations(cells))[:n]
    rec = GameRecord(width=w, height=h, rule=data.draw(st.sampled_from(list(Rule))), moves=list(moves),
                     black=data.draw(st.text(max_size=12).map(lambda s: " ".join(s.split()))),
                     white="w[x]\\y", date="2020-01-02", times=[data.draw(st.integers(0, 10**6)) for _ in moves] or None)
    if data.draw(st.booleans()):
        rec.finish(data.draw(st.sampled_from([0, 1, 2])), data.draw(st.sampled_from(["five", "resign", "time"])))
    assert from_sgf_string(to_sgf_string(rec)) == [rec]
    path = tmp_path_factory.mktemp("p") / "g.psq"
    save(path, rec)
    back = load(path)
    assert back.moves == rec.moves and back.times == (rec.times or []) and (back.width, back.height) == (w, h)


# ------------------------------------------------------------------ malformed input

@pytest.mark.parametrize("text, needle", [
    ("", "empty file"),
    ("hello\n1,1,0\n", "expected 'Piskvorky"),
    ("Piskvorky 15x15, 11:11, 0\n0,1,0\n", "off the 15x15 board"),
    ("Piskvorky 15x15, 11:11, 0\n16,1,0\n", "off the 15x15 board"),
    ("Piskvorky 15x15, 11:11, 0\n3,3,0\n3,3,5\n", "occupied"),
    ("Piskvorky 0x15, 11:11, 0\n", "out of range"),
])
def test_psq_errors_are_one_line(text, needle):
    with pytest.raises(ValueError) as exc:
        parse_psq(text, source="x.psq")
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg and msg.startswith("x.psq")


@pytest.mark.parametrize("text, needle", [
    ("", "no SGF game"),
    ("(;GM[1]SZ[19];B[pd])", "Go, not Gomoku"),
    ("(;GM[4]SZ[15];B[hh];W[hh])", "occupied"),
    ("(;GM[4]SZ[15];B[hh];B[ii])", "colours must alternate"),
    ("(;GM[4]SZ[15];W[hh])", "colours must alternate"),
    ("(;GM[4]SZ[15];B[zz])", "off the 15x15 board"),
    ("(;GM[4]SZ[15];B[h])", "bad move coordinate"),
    ("(;GM[4]SZ[15];B[])", "passes"),
    ("(;GM[4]SZ[abc];B[hh])", "bad board size"),
    ("(;GM[4]SZ[15]RU[japanese];B[hh])", "unknown rule"),
    ("(;GM[4]SZ[15]RE[banana])", "bad result"),
    ("(;GM[4]SZ[15];B[hh]", "missing ')'"),
    ("(;GM[4]SZ[15]PB[abc", "missing ']'"),
    ("(;GM[4]SZ[15]AB[aa][bb])", "setup stones"),
    ("(;GM[4]SZ[15];B[hh]W[ii])", "more than one move"),
])
def test_sgf_errors_are_one_line(text, needle):
    with pytest.raises(ValueError) as exc:
        from_sgf_string(text, source="x.sgf")
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg and msg.startswith("x.sgf")


def test_file_level_errors(tmp_path):
    with pytest.raises(ValueError, match="record file not found"):
        load(tmp_path / "missing.sgf")
    with pytest.raises(ValueError, match="use .sgf or .psq"):
        load(tmp_path / "game.txt")
    with pytest.raises(ValueError, match="use .sgf or .psq"):
        save(tmp_path / "game.txt", sample_record())
    bad = GameRecord(width=9, height=9, moves=[(1, 1), (1, 1)])
    with pytest.raises(ValueError, match="occupied"):
        save(tmp_path / "bad.sgf", bad)
    assert not (tmp_path / "bad.sgf").exists()


def test_finish_keeps_fields_consistent():
    rec = GameRecord()
    rec.finish(2, "resign")
    assert (rec.result, rec.winner) == ("0-1", 2)
    rec.finish(0, "full")
    assert (rec.result, rec.winner) == ("1/2-1/2", 0)
    with pytest.raises(ValueError):
        rec.finish(3)
    assert records.RESULT_BLACK == "1-0"
