"""The tactics figure (`gomoku bench --tactics`, tools/tactics.py): a suite of forced wins and
how many a search proves within a node budget."""
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_suite_is_what_its_header_command_makes(tmp_path):
    """Rerunning the command the file names, on the label files it names (tools/data), gives
    the same positions; every one has the side to move with no four to complete, no open
    three to push and no four of the defender's to block first."""
    from gomoku.engine.game.board import Board
    from gomoku.engine.game.core import C_F4, C_FIVE, M_TOMOVE
    from gomoku.tools import tactics
    header = tactics.SUITE.read_text(encoding="utf-8").splitlines()[1]
    words = header.split()
    sources = [ROOT / "tools" / "data" / w for w in words if w.endswith(".labels")]
    count = int(words[words.index("-n") + 1])
    out = tmp_path / "suite.txt"
    assert tactics.make(out, [str(s) for s in sources], count) == count == 300
    assert tactics.load(out) == tactics.load()
    for moves in tactics.load()[::25]:
        st = Board.from_moves(15, moves).state
        me = int(st.meta[M_TOMOVE]) - 1
        assert not (st.counts[me, C_FIVE] or st.counts[me, C_F4] or st.counts[1 - me, C_FIVE])


def test_its_positions_are_wins_a_deeper_search_proves_and_the_budget_counts():
    """The first twelve are proven at 100,000 nodes (each one was, in the game it came from);
    at 20 nodes a search proves only the two a root threat probe sees at once."""
    from gomoku.tools import tactics
    first = tactics.load()[:12]
    assert tactics.solved(first, 100_000) == 12
    assert tactics.solved(first, 20) == 2
    lines: list[str] = []
    got = tactics.report(first[:2], budgets=(100_000,), params={"iir_depth": "0"}, say=lines.append)
    assert got == {100_000: 2} and lines[-1] == "tactics: positions=2 solved_100000=2"


@pytest.mark.parametrize("spec, words", [("lmr_div=9", "lmr_div=9 is out of range"),
                                         ("nosuch=1", "unknown search parameter 'nosuch'"),
                                         ("lmr_div", "'lmr_div' is not NAME=VALUE")])
def test_bench_tactics_refuses_a_bad_parameter_in_one_line(spec, words):
    from gomoku.tools.cli import main
    res = CliRunner().invoke(main, ["bench", "--tactics", spec])
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output
