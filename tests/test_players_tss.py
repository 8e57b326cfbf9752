"""`classical:tss=0`, the Fudan paper's Minimax without threat-space search: no VCF / VCT probes
at the root and no VCF at the leaves, where the plain spec finds a VCF at once."""
from __future__ import annotations

import pytest

from gomoku.engine.game.board import Board
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.players import SpecError, make_engine_player, parse_spec

#: black to move wins by eleven fours (the threat tests' long VCF)
LONG_VCF = [(7, 7), (5, 5), (7, 5), (3, 7), (5, 7), (7, 3), (6, 4), (5, 3), (7, 9), (2, 5), (3, 5), (9, 2), (5, 11),
            (7, 1)]


def test_tss_0_turns_the_threat_searches_off():
    spec = parse_spec("classical:depth=2,tss=0")
    assert spec.name == "classical-d2-notss" and spec.search_params["leaf_vcf"] == 0
    assert parse_spec("classical:depth=2,tss=0,leaf_vcf=2").search_params["leaf_vcf"] == 2
    board = Board.from_moves(15, LONG_VCF)
    with_tss = make_engine_player("classical:depth=2").play(board, Limit(turn_time=None))
    without = make_engine_player(spec).play(board, Limit(turn_time=None))
    assert with_tss.info.get("proof") == "vcf"
    assert "proof" not in without.info


def test_tss_takes_0_or_1():
    with pytest.raises(SpecError, match="tss=2 is out of range"):
        parse_spec("classical:tss=2")
