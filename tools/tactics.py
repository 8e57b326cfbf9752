"""A tactics figure: how many forced wins the search proves within a node budget.

A change to the search can trade tactics for depth without a match showing it for thousands
of games; this counts it directly. The positions (`engine/data/tactics15_freestyle.txt`) come
from the classical engine's own fixed-node games (the label files the strength tester writes):
in each decided game, the first position where the eventual winner's search reported a proven
win, kept only where that side has no open three to push and no four to complete (so the win
is a real combination: blocked fours, or threes the defender can answer) and where the defender
has no four on the board to be blocked first. Each one is a proven win for the side to move, so
"solved" needs no other judge: a fresh search (empty tables) of `nodes` nodes that reports a
proven win solved it.

`gomoku bench --tactics` runs it; `python -m gomoku.tools.tactics make OUT LABELS...` makes
the file. Only numpy, numba and the engine's stable calls (Board.from_moves, Searcher.search)
are used, so that the file can be run by an older checkout of the engine too (its figure is
the "before" of a change).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

from gomoku.engine.match.openings import Opening, load_openings, to_pos_string

#: the shipped suite
SUITE = Path(__file__).resolve().parent.parent / "engine" / "data" / "tactics15_freestyle.txt"
#: node budgets `gomoku bench --tactics` reports
BUDGETS = (2_000, 5_000, 20_000)


def load(path: Path = SUITE) -> list[Opening]:
    """The positions of a suite file: the openings-file format (one per line, h8i9j7; '#'
    lines are comments), read by the match's own reader."""
    return load_openings(path, 15, 15)


def make(out: Path, label_files: Sequence[str], count: int) -> int:
    """Write up to `count` positions drawn evenly from the decided games of `label_files`
    (15x15 freestyle); returns how many were written."""
    import numpy as np

    from gomoku.engine.game.board import Board
    from gomoku.engine.game.core import C_F4, C_FIVE, M_TOMOVE
    from gomoku.engine.game.labels import WIN, read_games
    found: list[str] = []
    seen: set[str] = set()
    for path in label_files:
        for g in read_games(path):
            if g.result == 0 or g.width != 15 or g.height != 15 or g.rule != 0:
                continue
            winner_parity = 0 if g.result == 1 else 1
            plies = [p for p in np.flatnonzero(g.scores == WIN) if p % 2 == winner_parity]
            if not plies:
                continue
            p = int(plies[0])
            moves = [(int(c) % 15, int(c) // 15) for c in g.moves[:p]]
            st = Board.from_moves(15, moves).state
            me = int(st.meta[M_TOMOVE]) - 1
            if st.counts[me, C_FIVE] or st.counts[me, C_F4] or st.counts[1 - me, C_FIVE]:
                continue             # a four to complete, a three to push to an open four, a four to answer
            text = to_pos_string(tuple(moves))
            if text not in seen:
                seen.add(text)
                found.append(text)
    step = max(1, len(found) // count)
    kept = found[::step][:count]
    sources = " ".join(Path(f).name for f in label_files)
    header = (f"# {len(kept)} 15x15 freestyle positions, each a forced win for the side to move (tools/tactics.py)\n"
              f"# made by: python -m gomoku.tools.tactics make {Path(out).name} {sources} -n {count} "
              f"({len(found)} candidates, one in {step} kept)\n")
    tmp = Path(str(out) + ".tmp")
    tmp.write_text(header + "".join(t + "\n" for t in kept), encoding="utf-8")
    tmp.replace(out)
    return len(kept)


def solved(positions: Sequence[Sequence[tuple[int, int]]], nodes: int, params: Optional[dict[str, str]] = None,
           progress: Optional[Callable[[int], None]] = None) -> int:
    """How many of `positions` a fresh search of `nodes` nodes (with the search `params`
    given, by name: engine.search.params) proves won for the side to move."""
    from gomoku.engine.game.board import Board
    from gomoku.engine.search.alphabeta import Searcher
    from gomoku.engine.search.tables import WIN_MIN
    def searcher() -> Searcher:
        if not params:
            return Searcher()           # an older checkout's Searcher may take no parameters
        from gomoku.engine.search.params import SearchParams
        return Searcher(params=SearchParams(params))
    n = 0
    for i, moves in enumerate(positions):
        st = Board.from_moves(15, moves).state
        res = searcher().search(st, node_limit=nodes)
        n += res.score >= WIN_MIN
        if progress is not None:
            progress(i + 1)
    return n


def report(positions: Sequence[Sequence[tuple[int, int]]], budgets: Sequence[int] = BUDGETS,
           params: Optional[dict[str, str]] = None, say: Callable[[str], None] = print) -> dict[int, int]:
    """One line a budget, then `tactics: positions=.. solved_N=..`."""
    got = {}
    for nodes in budgets:
        got[nodes] = solved(positions, nodes, params)
        say(f"tactics at {nodes:,} nodes: {got[nodes]} of {len(positions)} forced wins proven "
            f"({100.0 * got[nodes] / max(1, len(positions)):.0f} %)")
    say(f"tactics: positions={len(positions)} " + " ".join(f"solved_{n}={got[n]}" for n in budgets))
    return got


def main(argv: Optional[Sequence[str]] = None) -> int:  # pragma: no cover - a convenience for developers
    """`make OUT LABELS... [-n N]` writes a suite; `run [FILE [NAME=VALUE ...]]` reports on
    one (with those search parameters)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["make"] and len(args) >= 3:
        count = 300
        if "-n" in args:
            k = args.index("-n")
            count = int(args[k + 1])
            del args[k:k + 2]
        print(f"{make(Path(args[1]), args[2:], count)} positions written to {args[1]}")
        return 0
    if args[:1] == ["run"]:
        params = dict(a.split("=", 1) for a in args[2:])
        report(load(Path(args[1]) if len(args) > 1 else SUITE), params=params or None)
        return 0
    print("usage: python -m gomoku.tools.tactics make OUT LABELS... [-n N] | run [FILE]", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
