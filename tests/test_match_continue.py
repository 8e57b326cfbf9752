"""`gomoku match --continue`: a stopped SPRT goes on over openings it has not played, and its
earlier pairs count."""
from __future__ import annotations

import json

from click.testing import CliRunner

from gomoku.engine.match.stats import Pentanomial
from gomoku.tools.cli import main

# six openings told apart by their number of stones
BOOK = "h8\nh8h9\nh8h9i9\nh8h9i9i8\nh8h9i9i8j8\nh8h9i9i8j8j9\n"


def _run(book, *extra: str):
    args = ["match", "random", "random:seed=7", "-o", str(book), "-t", "0", "--seed", "3",
            "--sprt", "elo0=0", "elo1=10", *extra]
    return CliRunner().invoke(main, args)


def test_a_continued_test_plays_new_openings_and_its_sprt_counts_every_pair(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text(BOOK)
    first, second, third = (tmp_path / f"{n}.json" for n in ("first", "second", "third"))
    r = _run(book, "-n", "4", "--json", str(first))
    assert r.exit_code == 0, r.output
    r = _run(book, "-n", "4", "--continue", str(first), "--json", str(second))
    assert r.exit_code == 0, r.output
    assert "with the earlier runs: Ptnml(0-2)" in r.output          # after each game
    assert "With the earlier runs: Ptnml(0-2)" in r.output          # in the report
    r = _run(book, "-n", "2", "--continue", str(second), "--json", str(third))
    assert r.exit_code == 0, r.output
    runs = [json.loads(p.read_text()) for p in (first, second, third)]
    # each run starts where the one before it stopped: no opening is played twice
    assert [sorted(len(g["opening"]) for g in d["results"]) for d in runs] == [[1, 1, 2, 2], [3, 3, 4, 4], [5, 5]]
    own = [d["pairs"]["pentanomial"] for d in runs]
    total = [sum(c) for c in zip(*own)]
    assert sum(total) == 5
    assert runs[2]["pairs_all"]["pentanomial"] == total
    assert runs[2]["pairs_all"]["earlier"] == [a + b for a, b in zip(own[0], own[1])]
    assert runs[2]["sprt"]["llr"] == Pentanomial(tuple(total)).llr(0, 10)  # type: ignore[arg-type]


def test_a_continuation_that_differs_from_its_test_is_refused_in_one_line(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text(BOOK)
    first = tmp_path / "first.json"
    assert _run(book, "-n", "12", "--json", str(first)).exit_code == 0
    r = CliRunner().invoke(main, ["match", "random", "random:seed=8", "-o", str(book), "-t", "0", "-n", "2",
                                  "--sprt", "elo0=0", "elo1=10", "--continue", str(first)])
    assert r.exit_code == 2 and "it was played with players" in r.output
    r = CliRunner().invoke(main, ["match", "random", "random:seed=7", "-o", str(book), "-t", "0", "-n", "2",
                                  "--sprt", "elo0=0", "elo1=5", "--continue", str(first)])
    assert r.exit_code == 2 and "it was played with sprt" in r.output
    r = _run(book, "-n", "2", "--continue", str(first))
    assert r.exit_code == 2 and "the earlier runs reached all 6 openings of the set" in r.output
    r = _run(book, "-n", "2", "--continue", str(first), "--openings-from", "2")
    assert r.exit_code == 2 and "leave out --openings-from" in r.output
    r = _run(book, "-n", "2", "--continue", str(book))
    assert r.exit_code == 2 and "not the --json of a gomoku match" in r.output
    assert "Traceback" not in r.output
