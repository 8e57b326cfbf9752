"""`gomoku openings`: a book of balanced openings made by the engine's own search, resumable,
mirror images once; and a match that would replay its openings says so."""
from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from gomoku.engine.match import opening_book as ob
from gomoku.engine.match.openings import load_openings
from gomoku.tools.cli import main


def test_candidates_lie_on_the_board_near_one_another_and_reach_the_edges():
    rng = random.Random(7)
    ops = [ob.candidate(rng, 15, 15) for _ in range(500)]
    for op in ops:
        assert len(op) in ob.STONES and len(set(op)) == len(op)
        assert all(0 <= x < 15 and 0 <= y < 15 for x, y in op)
        for i in range(1, len(op)):
            assert min(max(abs(op[i][0] - x), abs(op[i][1] - y)) for x, y in op[:i]) <= ob.REACH
    # anchors are uniform over the board: a good share touches the two outer rings
    assert 0.25 < ob.edge_share(ops, 15, 15) < 0.75


def test_centre_candidates_lie_in_the_central_square_like_the_balanced_sets():
    rng = random.Random(5)
    ops = [ob.centre_candidate(rng, 15, 15, 5) for _ in range(300)]
    for op in ops:
        assert len(op) in ob.CENTRE_STONES and len(set(op)) == len(op)
        assert all(5 <= x <= 9 and 5 <= y <= 9 for x, y in op)       # f6..j10, as the shipped sets
    assert {len(op) for op in ops} == set(ob.CENTRE_STONES)
    assert ob.edge_share(ops, 15, 15) == 0.0
    assert len({x for op in ops for x, _ in op}) == 5                    # the whole square is drawn from


def test_mirror_images_share_one_key_and_colours_matter():
    op = ((7, 7), (8, 8), (6, 9))
    mirrored = tuple((14 - x, y) for x, y in op)
    turned = tuple((y, x) for x, y in op)
    key = ob.canonical(op, 15, 15)
    assert ob.canonical(mirrored, 15, 15) == key == ob.canonical(turned, 15, 15)
    swapped = ((8, 8), (7, 7), (6, 9))             # the first two stones change colour
    assert ob.canonical(swapped, 15, 15) != key


def test_gomoku_openings_makes_a_book_and_goes_on_where_it_stopped(tmp_path):
    book = tmp_path / "book.txt"
    args = ["openings", str(book), "--nodes", "1000", "--margin", "400", "--size", "11", "--no-progress"]
    r = CliRunner().invoke(main, args + ["-n", "3"])
    assert r.exit_code == 0, r.output
    first = load_openings(book, 11, 11, "pos")
    assert len(first) == 3
    head = book.read_text().splitlines()[:3]
    assert head[1].startswith("# command: gomoku openings book.txt -n 3 --rule freestyle --size 11 --nodes 1000")
    batches = int(head[2].split(":")[1])
    r = CliRunner().invoke(main, args + ["-n", "5"])
    assert r.exit_code == 0, r.output
    more = load_openings(book, 11, 11, "pos")
    assert more[:3] == first and len(more) == 5
    assert int(book.read_text().splitlines()[2].split(":")[1]) > batches
    assert len({ob.canonical(op, 11, 11) for op in more}) == 5
    r = CliRunner().invoke(main, args + ["-n", "5"])
    assert r.exit_code == 0 and "5 openings already" in r.output


def test_gomoku_openings_centre_makes_a_central_book(tmp_path):
    book = tmp_path / "centre.txt"
    r = CliRunner().invoke(main, ["openings", str(book), "-n", "2", "--nodes", "1000", "--margin", "400",
                                  "--centre", "5", "--no-progress"])
    assert r.exit_code == 0, r.output
    ops = load_openings(book, 15, 15, "pos")
    assert len(ops) == 2 and all(5 <= x <= 9 and 5 <= y <= 9 for op in ops for x, y in op)
    head = book.read_text().splitlines()[:2]
    assert "in the central 5x5" in head[0]
    assert "--centre 5 --seed 1" in head[1]


def test_every_kept_opening_is_judged_even_by_the_search():
    settings = ob.BookSettings(11, 11, nodes=1000, margin=400)
    found = ob.find_balanced(3, 6, settings)
    for op, score in found:
        assert abs(score) <= 400
        assert ob.judge(op, settings) == score          # the judgement is deterministic


def test_a_match_that_would_replay_its_openings_says_so(tmp_path):
    two = tmp_path / "two.txt"
    two.write_text("h8i9\nh8h9\n")
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "6", "-o", str(two)])
    assert r.exit_code == 2
    assert "6 games need 3 openings and the set has 2" in r.output
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "6", "-o", str(two), "--replay", "-t", "0"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju"])
def test_the_shipped_books_hold_thousands_of_distinct_openings(rule):
    """The books `-o book` plays (engine/data/book15_RULE.txt): 5,000 openings, none a mirror
    image of another, legal under the rule, most of them away from the centre (the book's
    header names the command that made it)."""
    from gomoku.engine.game.rules import parse_rule
    from gomoku.engine.match.openings import book_openings, check_openings
    ops = book_openings(15, 15, parse_rule(rule))
    assert len(ops) >= 5000
    check_openings(ops, 15, 15, parse_rule(rule))
    assert len({ob.canonical(op, 15, 15) for op in ops}) == len(ops)
    assert ob.edge_share(ops, 15, 15) > 0.2
    central = sum(all(5 <= x <= 9 and 5 <= y <= 9 for x, y in op) for op in ops)
    assert central < len(ops) // 10          # the central openings are -o balanced's


def test_the_shipped_central_book_keeps_every_stone_in_the_central_square():
    """`-o centre` (engine/data/centre15_freestyle.txt): a thousand distinct legal openings
    with every stone in the central 5x5, the kind the balanced sets hold, for tests of
    thousands of games on central openings."""
    from gomoku.engine.game.rules import Rule
    from gomoku.engine.match.openings import centre_openings, check_openings
    ops = centre_openings(15, 15, Rule.FREESTYLE)
    assert len(ops) >= 1000
    check_openings(ops, 15, 15, Rule.FREESTYLE)
    assert len({ob.canonical(op, 15, 15) for op in ops}) == len(ops)
    assert all(5 <= x <= 9 and 5 <= y <= 9 for op in ops for x, y in op)


def test_match_on_a_board_without_a_central_book_is_one_line_of_error():
    """The central books are 15x15: `gomoku match -o centre` on 20x20 names what exists."""
    r = CliRunner().invoke(main, ["match", "random", "random", "-n", "2", "-o", "centre",
                                  "--size", "20", "--no-progress"])
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "central book exists for 15x15 freestyle" in r.output and "here 20x20" in r.output
