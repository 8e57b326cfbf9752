"""The shipped two-player nets, played through the same player factory `gomoku match` uses,
on positions one can check by hand: the mover takes its immediate win even when the opponent
threatens one too (the AlphaGo Zero Gomoku re-implementation's net missed such wins; here the
search makes the winning cell the only choice before the net is asked).

And the sanity battery's verdicts in weights/manifest.json (`gomoku ship --check`): every entry
has one, of the file that ships (sha256), from the battery this code runs; a net that fails is
withdrawn with the reason and kept out of what picks nets by itself; and the battery, run again,
gives each check the verdict recorded."""
from __future__ import annotations

from pathlib import Path

import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.players import make_engine_player
from gomoku.engine.match import sanity
from gomoku.weights.manifest import BATTERY_WITHDRAWAL, read_manifest, sha256_file, usable_nets

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"


def _two_player_nets() -> list[tuple[str, dict]]:
    nets = read_manifest(WEIGHTS)
    return [(name, e) for name, e in sorted(nets.items()) if e["players"] == 2]


def _position(size: int, own: list[tuple[int, int]], other: list[tuple[int, int]]) -> Board:
    """Black (to move) holds `own`, white `other`; stones alternate so black moves next."""
    assert len(own) == len(other)
    b = Board(size)
    for (x, y), (ox, oy) in zip(own, other):
        b.play(x, y)
        b.play(ox, oy)
    return b


@pytest.mark.parametrize("name,entry", _two_player_nets(), ids=lambda v: v if isinstance(v, str) else "")
def test_shipped_net_takes_its_immediate_win(name: str, entry: dict) -> None:
    size, k = entry["board_sizes"][0], entry["win_length"]
    # black: k-1 in a row on the top row from the left edge, the winning cell right of them;
    # white: k-1 in a row on the bottom row starting one cell in (a win at either end next move)
    own = [(x, 0) for x in range(k - 1)]
    other = [(x, size - 1) for x in range(1, k)]
    wins = {(k - 1, 0)}
    # a broken row: black x _ x x in row 2 (the gap wins) while white's k-1 stones down the
    # right edge threaten the next cell of that column
    cases = [(own, other, wins)]
    if k + 1 <= size:
        gap = [(x, 2) for x in range(k) if x != 1]
        filler = [(size - 1, y) for y in range(len(gap))]
        cases.append((gap, filler, {(1, 2)}))
    player = make_engine_player(f"{WEIGHTS / entry['file']}:playouts=200", win_length=k)
    for own_stones, other_stones, winning in cases:
        player.new_game(size, size, Rule.FREESTYLE)
        board = _position(size, own_stones, other_stones)
        got = player.play(board, Limit(playouts=200))
        assert got.move in winning, f"{name} played {got.move}, not a win in {sorted(winning)}"


# -- the sanity battery's records ----------------------------------------------------------------------

def _all_nets() -> list[tuple[str, dict]]:
    return sorted(read_manifest(WEIGHTS).items())


def _games(entry: dict) -> list[tuple[str, int]]:
    sizes = sorted({min(entry["board_sizes"]), max(entry["board_sizes"])})
    return [(rule, n) for rule in entry["rules"] for n in sizes]


@pytest.mark.parametrize("name,entry", _all_nets(), ids=lambda v: v if isinstance(v, str) else "")
def test_manifest_sanity_record_is_of_the_shipped_file(name: str, entry: dict) -> None:
    rec = entry.get("sanity")
    assert rec is not None, f"{name} has no sanity record: run `gomoku ship --check {name}`"
    assert rec["sha256"] == entry["sha256"] == sha256_file(WEIGHTS / entry["file"]), name
    assert rec["battery"] == sanity.BATTERY_VERSION, f"{name}: recorded by battery {rec['battery']}"
    assert rec["playouts"] == [sanity.PLAYOUTS, sanity.DEFAULT_PLAYOUTS] and rec["seed"] == sanity.SEED
    # every check on every game the net claims, in the battery's order
    want = [(c, r, n) for r, n in _games(entry) for c in sanity.CHECKS]
    assert [(c["check"], c["rule"], c["size"]) for c in rec["checks"]] == want, name
    statuses = {c["status"] for c in rec["checks"]}
    assert statuses <= {"pass", "fail", "skip"} and rec["passed"] == ("fail" not in statuses)
    skipped = [c for c in rec["checks"] if c["status"] == "skip"]
    assert all(c["check"] == "answer-three" for c in skipped) and bool(skipped) == (entry["players"] != 2)
    if rec["passed"]:
        assert "withdrawn" not in entry, f"{name} passes the battery but is withdrawn: {entry['withdrawn']}"
    else:
        failed = [c for c in rec["checks"] if c["status"] == "fail"][0]
        assert entry["withdrawn"].startswith(f"{BATTERY_WITHDRAWAL}fails {failed['check']}"), entry["withdrawn"]


def test_the_corner_opening_15x15_net_is_withdrawn_and_nothing_else_is() -> None:
    """Issue 40: the first 15x15 net opened b2 on the empty board; the battery catches it."""
    nets = read_manifest(WEIGHTS)
    withdrawn = sorted(n for n, e in nets.items() if e.get("withdrawn"))
    assert withdrawn == ["15x15k5-b4c32"]
    opening = nets["15x15k5-b4c32"]["sanity"]["checks"][0]
    assert (opening["check"], opening["status"]) == ("opening", "fail") and "b2 (1,1)" in opening["move"]
    usable = usable_nets(nets)
    assert "15x15k5-b4c32" not in usable and set(usable) == set(nets) - {"15x15k5-b4c32"}
    # a freestyle 15x15 net is still there for anyone who wants one, and passes
    assert usable["15x15k5-free-std-b4c32"]["sanity"]["passed"]
    # the withdrawn net's files stay, so commands that name them still work
    assert (WEIGHTS / "15x15k5-b4c32.onnx").is_file() and (WEIGHTS / "15x15k5-b4c32.safetensors").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("name,entry", _all_nets(), ids=lambda v: v if isinstance(v, str) else "")
def test_battery_run_again_agrees_with_the_record(name: str, entry: dict) -> None:
    """The verdicts, not the moves: a near tie between two cells that both pass (or both fail)
    may fall either way on another CPU's arithmetic."""
    report = sanity.run_battery(WEIGHTS / entry["file"])
    got = [(r.check, r.rule, r.size, r.status) for r in report.results]
    recorded = [(c["check"], c["rule"], c["size"], c["status"]) for c in entry["sanity"]["checks"]]
    assert got == recorded, f"{name}: {report.summary()}"


@pytest.mark.parametrize("name, entry", _all_nets(), ids=[n for n, _ in _all_nets()])
def test_the_net_says_where_it_was_trained_as_the_manifest_does(name: str, entry: dict) -> None:
    """`gomoku info` shows the net's provenance: its run folder is the manifest command's, and
    neither holds a path of the machine that trained it."""
    import json
    import re

    from gomoku.engine.net.metadata import read_metadata
    pytest.importorskip("torch")
    from gomoku.train.checkpoint import checkpoint_meta
    prov = json.loads(read_metadata(str(WEIGHTS / entry["file"]))["provenance"])
    run = re.search(r"--run[ =](\S+)", entry["training"]["command"]).group(1)
    assert run == f"runs/{prov['run']}"
    assert f"--run runs/{prov['run']}" in prov["command"]
    for text in (prov["command"], entry["training"]["command"],
                 json.dumps(checkpoint_meta(WEIGHTS / entry["checkpoint"]))):
        assert not re.search(r"(^|[ =\"])/(work|home|tmp|root|Users)/", text), text
