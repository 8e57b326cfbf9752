"""`describe_net` and `net_fits_game`: the one line that says what a net is and what the game is,
which the brain (and the commands that name nets) give instead of a crash or a silent fallback."""
from __future__ import annotations

from pathlib import Path

import pytest

from gomoku.engine.net.metadata import NetInfo, describe_net, net_fits_game, read_metadata

WEIGHTS = Path(__file__).resolve().parent.parent / "weights"


def _info(players: int = 2, win: int = 5, rules=("freestyle",), sizes=(15,)) -> NetInfo:
    return NetInfo(players=players, win_length=win, rules=list(rules), board_sizes=list(sizes), arch="b4c32")


def test_describe_net_names_rules_players_win_length_and_sizes() -> None:
    assert describe_net(_info()) == "a freestyle net (two players, five in a row, trained on 15x15)"
    assert describe_net(_info(3, 4, sizes=(8,))) == "a freestyle net (three players, four in a row, trained on 8x8)"
    assert describe_net(_info(rules=("freestyle", "standard"), sizes=(8, 9, 10, 11, 12))) == \
        "a freestyle/standard net (two players, five in a row, trained on boards 8-12)"
    assert describe_net(_info(rules=("renju",), sizes=(15, 20))).startswith("a renju net (")


def test_a_net_fits_the_game_it_was_trained_for() -> None:
    assert net_fits_game(_info(), "freestyle", 15, 15) is None
    assert net_fits_game(_info(rules=("freestyle", "standard"), sizes=(15, 20)), "standard", 20, 15) is None
    assert net_fits_game(_info(3, 4, sizes=(8,)), "freestyle", 8, 8, win_length=4, players=3) is None


@pytest.mark.parametrize("game, expected", [
    (dict(rule="renju", width=15, height=15),
     "net x.onnx is a freestyle net (two players, five in a row, trained on 15x15); this game is renju 15x15"),
    (dict(rule="freestyle", width=20, height=20),
     "net x.onnx is a freestyle net (two players, five in a row, trained on 15x15); this game is freestyle 20x20"),
    (dict(rule="freestyle", width=15, height=15, win_length=4),
     "net x.onnx is a freestyle net (two players, five in a row, trained on 15x15); "
     "this game is freestyle 15x15, four in a row"),
    (dict(rule="freestyle", width=15, height=15, players=3),
     "net x.onnx is a freestyle net (two players, five in a row, trained on 15x15); "
     "this game is freestyle 15x15, three players"),
])
def test_a_net_that_does_not_fit_gets_one_line_with_the_net_and_the_game(game: dict, expected: str) -> None:
    line = net_fits_game(_info(), name="net x.onnx", **game)
    assert line == expected and "\n" not in line


def test_any_size_leaves_rule_players_and_win_length() -> None:
    assert net_fits_game(_info(), "freestyle", 20, 20, allow_any_size=True) is None
    assert net_fits_game(_info(), "renju", 20, 20, allow_any_size=True) is not None


def test_the_shipped_three_player_net_is_named_as_one() -> None:
    path = WEIGHTS / "3p-8x8k4-cnn3.onnx"
    info = NetInfo.from_metadata(read_metadata(str(path)) or {}, source=str(path))
    line = net_fits_game(info, "freestyle", 8, 8, name=f"net {path.name}")
    assert line == ("net 3p-8x8k4-cnn3.onnx is a freestyle net (three players, four in a row, trained on 8x8); "
                    "this game is freestyle 8x8, two players, five in a row")
