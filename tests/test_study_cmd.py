"""`gomoku study`: the studies are found, one runs at its tiny scale through the console script and
writes its result, and the plain alpha-beta switch the Fudan study times is a correct search."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_runner import Ran
from cli_runner import gomoku as run_gomoku
from conftest import CTRL_C_MARGIN_S, CTRL_C_S, ctrl_c_at
from gomoku.engine.game.board import Board
from gomoku.engine.search.alphabeta import Searcher
from gomoku.tools.studies import SCALES, Study, studies

GOMOKU = Path(sys.executable).parent / "gomoku"


def gomoku(*args: str) -> Ran:
    """The real command, run in this process: these tests read its output, files and exit."""
    return run_gomoku(args)


def test_every_study_module_is_found_with_its_contract():
    found = studies()
    assert "fudan-search" in found
    for name, st in found.items():
        assert isinstance(st, Study) and st.name == name and st.paper and st.summary and callable(st.run)


def test_list_names_the_fudan_study_and_its_paper():
    p = gomoku("study", "--list")
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("fudan-search "))
    assert "the Fudan threat-space-search paper" in line


def test_an_unknown_study_is_a_usage_error():
    p = gomoku("study", "no-such-study", "--scale", "tiny")
    assert p.returncode == 2
    assert "no study 'no-such-study'" in p.stderr and "fudan-search" in p.stderr
    assert "Traceback" not in p.stderr


def test_an_output_folder_through_a_file_is_refused_before_any_work(tmp_path):
    (tmp_path / "f").write_text("x")
    p = gomoku("study", "fudan-search", "--scale", "tiny", "--out", str(tmp_path / "f" / "d"))
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1].endswith(f"{tmp_path / 'f'} is a file, not a folder")
    assert "positions" not in p.stderr          # no study work started


def test_fudan_search_tiny_writes_its_tables_beside_the_papers(tmp_path):
    out = tmp_path / "fudan"
    p = gomoku("study", "fudan-search", "--scale", "tiny", "--out", str(out))
    assert p.returncode == 0, p.stderr
    md = (out / "result.md").read_text()
    assert "command: `gomoku study fudan-search --scale tiny --out" in md
    assert "scale: tiny" in md and "cores" in md
    assert "| 4 |" in md                       # the tiny scale's deepest search row
    assert "PVS runs faster" in md             # the paper's own words beside ours
    rec = json.loads((out / "result.json").read_text())
    assert rec["study"] == "fudan-search" and rec["scale"] == "tiny"
    searches = rec["data"]["searches"]
    assert {r["search"] for r in searches} == {"PVS", "alpha-beta", "PVS, bare", "alpha-beta, bare"}
    assert {r["depth"] for r in searches} == {1, 2, 3, 4}
    assert {r["kind"] for r in rec["data"]["threats"]} == {"vcf", "vct"}
    assert md == p.stdout                      # the same report on the terminal
    assert not [f for f in out.iterdir() if f.name not in ("result.md", "result.json")]


def test_scales_are_the_agreed_three():
    assert SCALES == ("tiny", "small", "paper")


def _sharp_position() -> Board:
    """A made-up middle game (22 stones, threats on both sides, no forced win within four plies),
    so the moves differ in value and move order matters."""
    return Board.from_moves(15, [(7, 7), (5, 5), (7, 5), (9, 8), (7, 8), (7, 6), (8, 7), (9, 6), (5, 7), (6, 7),
                                 (6, 6), (8, 4), (9, 5), (8, 5), (4, 9), (9, 4), (3, 11), (6, 11), (10, 3),
                                 (12, 4), (5, 8), (4, 8)])


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_plain_alpha_beta_and_pvs_agree_on_the_score_at_every_depth(depth):
    """Without the window-dependent parts (reductions, pruning), PVS and plain alpha-beta compute
    the same minimax value; a broken switch (a null window kept, a re-search lost) shows here."""
    b = _sharp_position()
    pvs = Searcher(reductions=False, pruning=False).search(b.state, max_depth=depth, threat_probes=False)
    plain = Searcher(full_window=True, reductions=False, pruning=False).search(
        b.state, max_depth=depth, threat_probes=False)
    assert plain.depth == pvs.depth == depth and abs(pvs.score) < 29000     # searched, not proven
    assert plain.score == pvs.score


def test_plain_alpha_beta_searches_another_tree():
    """The switch changes the search (different node counts on the same position), and the
    default Searcher is PVS, node for node."""
    b = _sharp_position()
    nodes = {}
    for name, kw in {"default": {}, "pvs": {"full_window": False}, "plain": {"full_window": True}}.items():
        nodes[name] = Searcher(**kw, reductions=False, pruning=False).search(
            b.state, max_depth=4, threat_probes=False).nodes
    assert nodes["default"] == nodes["pvs"] != nodes["plain"]


@pytest.mark.xdist_group("serial")
@pytest.mark.process
def test_ctrl_c_exits_130_and_leaves_no_half_result(tmp_path):
    """Ctrl-C once depth 1 is done: the depth-2 search in progress (one jitted call, as each of
    the study's searches of up to 3M nodes) stops at once, and nothing is written."""
    out = tmp_path / "fudan"
    r = ctrl_c_at([str(GOMOKU), "study", "fudan-search", "--scale", "small", "--out", str(out)],
                  "PVS: depth 1 done")
    assert r.code == 130, r.out
    assert r.after < CTRL_C_S + CTRL_C_MARGIN_S, f"stopped {r.after:.2f} s after Ctrl-C:\n{r.out}"
    assert "interrupted" in r.out and "Traceback" not in r.out
    assert "PVS: depth 2 done" not in r.out
    assert not (out / "result.md").exists() and not (out / "result.json").exists()
