"""The shipped two-player nets, played through the same player factory `gomoku match` uses,
on positions one can check by hand: the mover takes its immediate win even when the opponent
threatens one too (seed 001's net missed such wins; here the search makes the winning cell
the only choice before the net is asked)."""
from __future__ import annotations

from pathlib import Path

import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.game.rules import Rule
from gomoku.engine.limits import Limit
from gomoku.engine.match.players import make_player
from gomoku.weights.manifest import read_manifest

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
    player = make_player(f"{WEIGHTS / entry['file']}:playouts=200", win_length=k)
    for own_stones, other_stones, winning in cases:
        player.new_game(size, size, Rule.FREESTYLE)
        board = _position(size, own_stones, other_stones)
        got = player.play(board, Limit(playouts=200))
        assert got.move in winning, f"{name} played {got.move}, not a win in {sorted(winning)}"
