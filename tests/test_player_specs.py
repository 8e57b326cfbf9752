"""The player-spec table (engine.match.specs): one row per key, from which the parser's
conversion, checks and defaults and every help text come, so none of them can drift apart."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gomoku.engine.match.players import SpecError, parse_spec
from gomoku.engine.match.specs import BY_NAME, KINDS, SEARCH_KEYS, table_markdown
from gomoku.engine.mcts.config import MCTSConfig
from gomoku.engine.search.params import PARAMS

ROOT = Path(__file__).resolve().parent.parent


def test_docs_page_is_the_table():
    page = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    assert page == table_markdown() + "\n", "docs/players.md is stale: python -m gomoku.engine.match.specs > it"


def test_match_help_lists_every_kind_and_key():
    from gomoku.tools.cli import main
    out = CliRunner().invoke(main, ["match", "--help"], terminal_width=80).output
    for kind in KINDS:
        assert kind.usage in out, kind.usage
    for word in ("flat-mc[:N]", "tables=FILE", "eval=FILE", "params=FILE", "tss=0|1", "an ADP critic",
                 "order=W", "share=0..100", "solver=on|off [on]", "playouts=N [1000]", "playouts=N [400]"):
        assert word in out, word
    assert max(len(line) for line in out.splitlines()) <= 80


def test_play_help_names_every_kind():
    from gomoku.tools.cli import main
    out = " ".join(CliRunner().invoke(main, ["play", "--help"]).output.split())
    for word in ("flat-mc[:N]", "random-net:arch=ARCH", "brain:COMMAND"):
        assert word in out.replace("- ", "-"), word


def test_defaults_are_the_engines_own():
    pure, net = MCTSConfig.pure(), MCTSConfig()
    for kind, cfg in (("pure-mcts", pure), ("onnx", net)):
        for row in BY_NAME[kind].keys:
            if row.config:
                assert row.default == getattr(cfg, row.config), (kind, row.name)
    classical = BY_NAME["classical"]
    assert {p.name: p.default for p in PARAMS} == {k.name: k.default for k in classical.keys if k.name in SEARCH_KEYS}
    assert parse_spec("pure-mcts").value("c_puct") == pure.c_puct
    assert parse_spec("flat-mc").value("radius") == 2 and parse_spec("flat-mc").value("select") == "flat"


def test_values_are_typed():
    s = parse_spec("pure-mcts:500,c_puct=3,tactics=0,select=ucb1")
    assert s.options == {"playouts": 500, "c_puct": 3.0, "tactics": False, "select": "ucb1"}
    assert s.limit_overrides == {"playouts": 500}
    c = parse_spec("classical:3,tss=0,lmr_div=1.6,time=0.5")
    assert c.options == {"level": 3, "tss": False, "lmr_div": 1.6, "time": 0.5}
    assert c.limit_overrides == {"turn_time": 0.5} and c.search_params["leaf_vcf"] == 0
    assert parse_spec("random:7").whole("seed") == 7 and parse_spec("random").whole("seed") is None


@pytest.mark.parametrize("text,words", [
    ("pure-mcts:100,time=-1", "time=-1 is out of range (at least 0)"),
    ("pure-mcts:100,draw=2", "draw=2 is out of range (-1..1)"),
    ("classical:9", "level=9 is out of range (1..6)"),
    ("classical:level=0", "level=0 is out of range (1..6)"),
    ("classical:share=x", "share='x' is not a whole number"),
    ("classical:tss=on", "tss must be a number, got 'on'"),
    ("flat-mc:100,colour=1", "unknown option 'colour' for flat-mc"),
    ("pure-mcts:100,time=nan", "time=nan is out of range"),
])
def test_a_refusal_is_one_line_from_the_row(text, words):
    with pytest.raises(SpecError) as err:
        parse_spec(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_every_row_says_what_it_means():
    for kind in KINDS:
        names = [k.name for k in kind.keys]
        assert len(names) == len(set(names)), kind.name
        assert kind.positional is None or kind.positional in names, kind.name
        for row in kind.keys:
            assert row.help and (row.default is None or row.convert(row.default_text()) == row.default), row.name


def test_the_kinds_that_sit_at_three_or_four_seats_come_from_the_table():
    from gomoku.engine.match.nplayer import NPLAYER_KINDS
    from gomoku.engine.match.specs import kind_list
    assert set(NPLAYER_KINDS) == {"random", "pure-mcts", "onnx"}
    assert "classical" not in kind_list(3) and "flat-mc[:N]" in kind_list(3) and "brain:COMMAND" in kind_list()
