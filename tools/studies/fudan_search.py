"""The Fudan threat-space-search paper's two timing experiments, rerun on the classical engine.

1. PVS against plain alpha-beta at the same depth (the paper: depth 6, "the result action of
   both agents are identical ... PVS runs faster"). Both searches are the engine's own
   (`Searcher(full_window=...)`), once as it plays (late-move reductions and the pruning on) and
   once bare (both off), which is the paper's setting: a plain alpha-beta and its PVS. The root's
   threat probes stay off, as the paper ran its comparison without threat search.
2. Threat-search time by depth (the paper: time grows linearly with the depth set): the engine's
   VCF (depth = fours) and VCT (depth = attacking moves, VCF probes of 12 fours inside, as the
   engine's own probe) solved at each depth limit on the same positions.

Positions: the bench's nine openings (five rules, 15x15 and 20x20), each also continued by the
engine against itself at depth 3 (deterministic), for mid-game positions with threats on the
board, and a position whose VCF takes eleven fours. The threat searches attack for each side in
turn (the side not to move as if the other passed, as the engine's own root probe does). Every
search starts from cleared tables, so node counts depend only on the code.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypedDict

import numpy as np

from gomoku.tools.studies import Study, StudyResult


class Switches(TypedDict, total=False):
    """Searcher's keyword switches, named so that `Searcher(**switches)` type-checks."""
    full_window: bool
    reductions: bool
    pruning: bool


#: the four searches compared: name -> Searcher switches
SEARCHES: dict[str, Switches] = {
    "PVS": {},
    "alpha-beta": {"full_window": True},
    "PVS, bare": {"reductions": False, "pruning": False},
    "alpha-beta, bare": {"full_window": True, "reductions": False, "pruning": False},
}


@dataclass(frozen=True)
class Scale:
    """How much of the study a scale runs."""
    openings: int               # bench openings used (of 9)
    plies: tuple[int, ...]      # each opening continued by this many engine moves (0: as is)
    depths: int                 # alpha-beta / PVS depths 1..depths
    node_cap: int               # a search stopped here counts as cut (0: none)
    vcf_depths: int             # VCF depth limits 1..vcf_depths
    vct_depths: int             # VCT depth limits 1..vct_depths
    threat_cap: int             # node cap of one threat search (0: none)


#: black to move wins by eleven fours (the threat tests' long VCF)
LONG_VCF = [(7, 7), (5, 5), (7, 5), (3, 7), (5, 7), (7, 3), (6, 4), (5, 3), (7, 9), (2, 5), (3, 5), (9, 2), (5, 11),
            (7, 1)]

SCALE = {
    "tiny": Scale(openings=2, plies=(0, 8), depths=4, node_cap=200_000, vcf_depths=3, vct_depths=3,
                  threat_cap=200_000),
    "small": Scale(openings=9, plies=(0, 8, 16), depths=8, node_cap=3_000_000, vcf_depths=12, vct_depths=6,
                   threat_cap=300_000),
    # the paper's own: depth 6 (we go to 8) on positions all through games; VCT grows
    # exponentially with its depth, so it keeps a cap of about 10 s a search
    "paper": Scale(openings=9, plies=tuple(range(0, 41, 4)), depths=8, node_cap=0, vcf_depths=14, vct_depths=8,
                   threat_cap=3_000_000),
}

PAPER_TABLE = """\
| experiment | the paper's result (Figs. 5-7: plots, no figures in the text) |
|---|---|
| PVS against regular alpha-beta, depth 6, no threat search, whole games on Piskvork | "the result action of both agents are identical, and no matter who is offensive, PVS runs faster than regular Alpha-Beta pruning. Although the improvement is small" |
| threat-search time by the depth set | "the depth that we set to search for threats determines the time consumption linearly"; the strategy with defensive moves is slower than attacks only; Zobrist hashing helps, "but the effect is not significant enough" |
"""


def positions(scale: Scale, progress: Callable[[str], None]) -> list[tuple[str, Any]]:
    """The study's positions: (label, Board), each opening as the bench has it and continued by
    the engine at depth 3 for each count in `scale.plies` (a game that ends first stops there)."""
    from gomoku.engine.game.board import Board
    from gomoku.engine.game.rules import parse_rule
    from gomoku.engine.base.interrupt import stopping
    from gomoku.engine.search.alphabeta import Searcher
    from gomoku.engine.search.tables import C_EXTERNAL
    from gomoku.engine.search.threats import C_STOP
    from gomoku.tools.bench_cmd import BENCH_POSITIONS

    out: list[tuple[str, Any]] = [("long VCF", Board.from_moves(15, LONG_VCF))]
    player = Searcher()
    for k, (rule, w, h, moves) in enumerate(BENCH_POSITIONS[:scale.openings], 1):
        b = Board.from_moves(w, moves, rule=parse_rule(rule), height=h)
        played = 0
        for target in scale.plies:
            while played < target and not b.game_over:
                with stopping(player.ctx(b.state.cells.shape[0]).ctrl, C_EXTERNAL, C_STOP):
                    res = player.search(b.state, max_depth=3)
                if res.move < 0:
                    break
                b.play(*b.coords(res.move))
                played += 1
            if b.game_over:
                break
            out.append((f"{k} {rule} {w}x{h} +{played}", b.copy()))
    progress(f"{len(out)} positions")
    return out


def _search_runs(boards: list[tuple[str, Any]], scale: Scale,
                 progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every search at every depth on every position: one record each. The tables are cleared
    outside the timing (clearing the 32 MB TT costs more than a shallow search): a one-ply search
    first makes them for the position's size and rule, then each timed search keeps them.
    Ctrl-C stops a search at once through its control block (engine.base.interrupt.stopping: a
    search of millions of nodes is one jitted call, which the signal's handler would wait for;
    no watcher thread, which would add up to milliseconds to every timing); the interrupt then
    ends the study, so a cut record is never kept."""
    from gomoku.engine.base.interrupt import stopping
    from gomoku.engine.search.alphabeta import Searcher
    from gomoku.engine.search.tables import C_EXTERNAL, clear_ctx
    from gomoku.engine.search.threats import C_STOP

    runs: list[dict[str, Any]] = []
    for name, switches in SEARCHES.items():
        searcher = Searcher(**switches)
        for depth in range(1, scale.depths + 1):
            t0 = time.perf_counter()
            for label, b in boards:
                searcher.search(b.state, max_depth=1, threat_probes=False)
                cx = searcher.ctx(b.state.cells.shape[0])
                clear_ctx(cx)
                with stopping(cx.ctrl, C_EXTERNAL, C_STOP):
                    t = time.perf_counter()
                    r = searcher.search(b.state, max_depth=depth, node_limit=scale.node_cap or None,
                                        threat_probes=False, clear=False)
                    dt = time.perf_counter() - t
                runs.append({"search": name, "depth": depth, "position": label, "move": r.move,
                             "score": r.score, "nodes": r.nodes, "time": dt,
                             "cut": bool(scale.node_cap and r.nodes >= scale.node_cap)})
            progress(f"{name}: depth {depth} done in {time.perf_counter() - t0:.1f} s")
    return runs


def _threat_runs(boards: list[tuple[str, Any]], scale: Scale,
                 progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """VCF and VCT at each depth limit on every position, for each side as the attacker. Each
    solve's ctrl is stopped by Ctrl-C (engine.base.interrupt.stopping), as the searches' are."""
    from gomoku.engine.game.core import M_TOMOVE
    from gomoku.engine.base.interrupt import stopping
    from gomoku.engine.search import threats

    tt = threats.new_threat_table()
    runs: list[dict[str, Any]] = []
    for kind, deepest in (("vcf", scale.vcf_depths), ("vct", scale.vct_depths)):
        for depth in range(1, deepest + 1):
            t0 = time.perf_counter()
            for (label, b), side in ((lb, side) for lb in boards for side in ("to move", "passed")):
                tt.key[:] = 0
                tt.depth[:] = -1
                ctrl = threats.new_ctrl(scale.threat_cap)
                to_move = int(b.state.meta[M_TOMOVE])
                if side == "passed":
                    b.state.meta[M_TOMOVE] = 3 - to_move
                try:
                    with stopping(ctrl, threats.C_STOP):
                        t = time.perf_counter()
                        r = threats.solve(b.state, kind, depth=depth, vcf_depth=12, ctrl=ctrl, tt=tt)
                        dt = time.perf_counter() - t
                finally:
                    b.state.meta[M_TOMOVE] = to_move
                cut = scale.threat_cap > 0 and r.nodes >= scale.threat_cap
                runs.append({"kind": kind, "depth": depth, "position": label, "attacker": side, "win": r.win,
                             "nodes": r.nodes, "time": dt, "cut": bool(cut)})
            progress(f"{kind.upper()}: depth {depth} done in {time.perf_counter() - t0:.1f} s")
    return runs


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def search_table(runs: list[dict[str, Any]]) -> str:
    """Nodes and time summed over the positions, by depth, the four searches side by side, and
    how often plain alpha-beta picks PVS's move (and score) at that depth."""
    by: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in runs:
        by.setdefault((r["search"], r["depth"]), []).append(r)
    depths = sorted({r["depth"] for r in runs})
    names = list(SEARCHES)
    head = "| depth | " + " | ".join(f"{n}: nodes / ms" for n in names) + \
        " | same move (score) as PVS: as played / bare |"
    lines = [head, "|" + "---|" * (len(names) + 2)]
    for d in depths:
        cells = []
        for n in names:
            rs = by.get((n, d), [])
            cut = sum(r["cut"] for r in rs)
            cells.append(f"{sum(r['nodes'] for r in rs):,} / {_ms(sum(r['time'] for r in rs))}"
                         + (f" ({cut} cut)" if cut else ""))
        agree = []
        for pv, ab in (("PVS", "alpha-beta"), ("PVS, bare", "alpha-beta, bare")):
            pairs = list(zip(by.get((pv, d), []), by.get((ab, d), [])))
            moves = sum(p["move"] == a["move"] for p, a in pairs)
            scores = sum(p["score"] == a["score"] for p, a in pairs)
            agree.append(f"{moves}/{len(pairs)} ({scores})")
        lines.append(f"| {d} | " + " | ".join(cells) + " | " + " / ".join(agree) + " |")
    return "\n".join(lines) + "\n"


def threat_table(runs: list[dict[str, Any]]) -> str:
    """VCF and VCT by depth limit: wins found, nodes and time over the positions, and the time's
    growth over the previous depth."""
    lines = ["| kind | depth | wins found | nodes | ms | ms / previous depth's |", "|---|---|---|---|---|---|"]
    for kind in ("vcf", "vct"):
        prev = 0.0
        for d in sorted({r["depth"] for r in runs if r["kind"] == kind}):
            rs = [r for r in runs if r["kind"] == kind and r["depth"] == d]
            t = sum(r["time"] for r in rs)
            cut = sum(r["cut"] for r in rs)
            growth = f"{t / prev:.2f}" if prev > 0 else ""
            lines.append(f"| {kind.upper()} | {d} | {sum(r['win'] for r in rs)}/{len(rs)} | "
                         f"{sum(r['nodes'] for r in rs):,}{f' ({cut} cut)' if cut else ''} | {_ms(t)} | {growth} |")
            prev = t
    return "\n".join(lines) + "\n"


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    """Both experiments at `scale`; the raw records go to result.json through StudyResult.data."""
    from gomoku.engine.player.warmup import warm_up

    sc = SCALE[scale]
    warm_up()                       # compile / load outside every timing
    boards = positions(sc, progress)
    search_runs = _search_runs(boards, sc, progress)
    threat_runs = _threat_runs(boards, sc, progress)
    cap = f"{sc.node_cap:,} nodes" if sc.node_cap else "none"
    tcap = f"{sc.threat_cap:,} nodes" if sc.threat_cap else "none"
    table = (f"**PVS against plain alpha-beta** ({len(boards)} positions, depths 1-{sc.depths}, iterative "
             f"deepening to the depth, no threat probes at the root; node cap per search: {cap}; a cut search "
             f"is counted with the nodes it spent). \"As played\": late-move reductions and pruning on; "
             f"\"bare\": both off.\n\n" + search_table(search_runs) +
             f"\n**Threat-space search by depth** (the same positions, each side attacking; VCT with VCF probes of "
             f"up to 12 fours; node cap per search: {tcap}).\n\n"
             + threat_table(threat_runs))
    data = {"scale": sc.__dict__, "positions": [label for label, _ in boards], "searches": search_runs,
            "threats": threat_runs}
    return StudyResult(table=table, paper_table=PAPER_TABLE, scale=scale, data=_plain(data))


def _plain(x: Any) -> Any:
    """Numpy scalars and tuples made json-ready."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


STUDY = Study(name="fudan-search", paper="the Fudan threat-space-search paper",
              summary="PVS against plain alpha-beta by depth, and VCF / VCT time by depth limit",
              run=run)
