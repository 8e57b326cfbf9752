"""`gomoku bench`: fixed positions of several rules and sizes searched to a fixed depth.

Like Rapfi's bench: the node counts are a fingerprint of the search's behaviour (any change
to ordering, pruning or evaluation changes the signature), and nodes/s on the same bench
compares speed. The search is the one that plays (root threat probes included), with
cleared tables per position, so the counts depend only on the code. A board-core figure
(random playouts with every pattern kept up to date) comes first.

The last line is for scripts:
    bench: nodes=<int> time_ms=<int> nps=<int> signature=<hex>
"""
from __future__ import annotations

import hashlib
import time
from typing import Optional

import click

from gomoku.tools.options import ExistingFile

# (rule name, width, height, moves); positions are mid-opening, none decided at once
BENCH_POSITIONS: list[tuple[str, int, int, list[tuple[int, int]]]] = [
    ("freestyle", 15, 15, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6)]),
    ("freestyle", 15, 15, [(7, 7), (5, 5), (7, 5), (9, 8), (7, 8), (7, 6), (8, 7), (9, 6), (5, 7), (6, 7),
                           (6, 6), (8, 4), (9, 5), (8, 5), (4, 9), (9, 4), (3, 11), (6, 11), (10, 3),
                           (12, 4), (5, 8), (4, 8)]),
    ("standard", 15, 15, [(7, 7), (8, 6), (6, 8), (8, 8), (8, 7), (6, 7), (9, 6)]),
    ("standard", 15, 15, [(7, 7), (7, 8), (8, 9), (6, 7), (8, 8), (8, 7), (6, 9), (9, 7), (10, 7), (7, 9)]),
    ("renju", 15, 15, [(7, 7), (7, 6), (8, 8), (6, 6), (9, 6), (8, 7)]),
    ("renju", 15, 15, [(7, 7), (8, 6), (8, 8), (6, 6), (9, 9), (10, 10), (7, 9), (6, 10), (9, 7)]),
    ("caro", 15, 15, [(7, 7), (8, 7), (7, 8), (7, 6), (8, 9), (9, 10)]),
    ("freestyle", 20, 20, [(10, 10), (11, 11), (9, 11), (11, 9), (10, 12), (12, 10), (9, 9)]),
    ("caro5", 20, 20, [(10, 10), (10, 11), (11, 10), (9, 10), (12, 11), (9, 9)]),
]

DEFAULT_DEPTH = 11


def run_core(seconds: float = 1.0) -> list[tuple[int, float, float]]:
    """Random playouts per board size: (size, games/s, moves/s)."""
    import numpy as np

    from gomoku.engine.game import core
    from gomoku.engine.game.board import Board

    out = []
    for size in (15, 20):
        st = Board(size).state
        core.random_playouts(st, np.int64(1), np.int64(0))      # load / compile
        games = 0
        moves = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            moves += int(core.random_playouts(st, np.int64(20), np.int64(games + 1)))
            games += 20
        dt = time.perf_counter() - t0
        out.append((size, games / dt, moves / dt))
    return out


def signature(node_counts: list[int]) -> str:
    """Stable fingerprint of the per-position node counts."""
    text = ",".join(str(n) for n in node_counts).encode()
    return hashlib.blake2b(text, digest_size=8).hexdigest()


@click.command(name="bench")
@click.option("--depth", type=click.IntRange(1, 40), default=DEFAULT_DEPTH, show_default=True,
              help="Search depth (iterations) per position.")
@click.option("--core/--no-core", "with_core", default=True, show_default=True,
              help="Also measure the board core (random playouts).")
@click.option("--core-seconds", type=click.FloatRange(0.05, 60), default=1.0, show_default=True,
              help="Seconds per board size for the core figure.")
@click.option("--mcts/--no-mcts", "with_mcts", default=True, show_default=True,
              help="Also measure MCTS: rollout playouts/s, and net playouts/s and evals/s with --net.")
@click.option("--net", "nets", multiple=True, type=ExistingFile("ONNX"),
              help="ONNX net(s) to measure with MCTS (repeatable).")
@click.option("--playouts", type=click.IntRange(100, None), default=20000, show_default=True,
              help="Rollout playouts per MCTS position (net searches use a tenth, at least 200).")
@click.option("--threads", type=click.IntRange(1, 64), default=2, show_default=True,
              help="onnxruntime threads for --net.")
@click.option("--batch", type=click.IntRange(1, 512), default=32, show_default=True,
              help="Leaves per net call in the net searches.")
@click.option("--eval", "eval_path", type=ExistingFile("evaluator"), default=None,
              help="Also search the positions of its rule with this learned evaluator (NAME.eval.npz) "
                   "and compare its nodes/s with the tables' on the same positions.")
@click.option("--compile", "compile_cost", is_flag=True, default=False,
              help="Instead: compile the whole engine cold as `gomoku warmup -j 1` does (an empty temporary "
                   "numba cache, child processes at nice 10) and print each jitted function's compile seconds, "
                   "most first, each process's CPU seconds and peak RSS, and the totals. A minute or more of CPU; the "
                   "real cache is untouched.")
@click.option("--tactics", "tactics_params", default=None, metavar="[NAME=VALUE,...]", is_flag=False, flag_value="",
              help="Instead: the tactics figure, how many of the shipped suite's 300 forced wins (15x15 "
                   "freestyle) a fresh search proves at 2,000, 5,000 and 20,000 nodes; with NAME=VALUE,... "
                   "under those search parameters (gomoku params). Last line `tactics: positions=.. "
                   "solved_N=..`.")
def bench(depth: int, with_core: bool, core_seconds: float, with_mcts: bool, nets: tuple[str, ...],
          playouts: int, threads: int, batch: int, eval_path: Optional[str], compile_cost: bool,
          tactics_params: Optional[str]) -> None:
    """Search fixed positions (several rules and sizes) to a fixed depth; print nodes, time,
    nodes/s and a signature of the node counts; then MCTS playouts/s. Last line: `bench:
    nodes=.. time_ms=.. nps=.. signature=..`. With --compile: the cost of a cold compile,
    function by function; last line `compile: ... cpu_s=.. peak_rss_mb=..`."""
    if tactics_params is not None:
        _tactics(tactics_params)
        return
    if compile_cost:
        from gomoku.tools import bench_compile
        try:
            bench_compile.report(bench_compile.measure(), say=click.echo)
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from None
        return
    from gomoku.engine.search import alphabeta
    from gomoku.engine.game.board import Board
    from gomoku.engine.game.rules import parse_rule
    from gomoku.engine.player.warmup import warm_up
    from gomoku.tools.prepare import ensure_compiled

    ensure_compiled()           # a cold install compiles here, with a progress bar, untimed
    if with_core:
        for size, gps, mps in run_core(core_seconds):
            click.echo(f"core {size}x{size}: random playouts {gps:,.0f} games/s, {mps:,.0f} moves/s")
    # load the whole engine from the cache, not only the search: the root probes' df-pn
    # would otherwise load inside the first position's timing
    warm_up()
    searcher = alphabeta.Searcher()     # one player's tables, cleared by every search (clear=True)
    counts: list[int] = []
    total_nodes = 0
    total_time = 0.0
    for k, (rule_name, w, h, moves) in enumerate(BENCH_POSITIONS, 1):
        b = Board.from_moves(w, moves, rule=parse_rule(rule_name), height=h)
        searcher.ctx(b.state.cells.shape[0])   # made (for a new size) outside the timing
        searcher.dfpn_table()
        t0 = time.perf_counter()
        res = searcher.search(b.state, max_depth=depth)
        dt = time.perf_counter() - t0
        counts.append(res.nodes)
        total_nodes += res.nodes
        total_time += dt
        mv = b.coords(res.move) if res.move >= 0 else None
        score = _score(res.score)
        click.echo(f"position {k:2d} {rule_name:9s} {w}x{h}: depth {res.depth:2d} move {mv} score {score} "
                   f"nodes {res.nodes:,} time {dt * 1000:.0f} ms nps {res.nodes / max(dt, 1e-9):,.0f}")
    if eval_path is not None:
        _bench_learned(eval_path, depth)
    if with_mcts or nets:
        from gomoku.engine.net.metadata import NetFormatError
        from gomoku.tools.bench_mcts import run as run_mcts
        try:
            run_mcts(playouts, nets, threads, batch, say=click.echo)
        except NetFormatError as exc:
            raise click.UsageError(str(exc)) from None
    sig = signature(counts)
    nps = int(total_nodes / max(total_time, 1e-9))
    click.echo(f"bench: nodes={total_nodes} time_ms={int(total_time * 1000)} nps={nps} signature={sig}")


def _bench_learned(path: str, depth: int) -> None:
    """The bench positions of the evaluator's rule searched again with it: nodes/s beside the
    tables' on the same positions (their node counts differ: another evaluation, another tree)."""
    from gomoku.engine.game.board import Board
    from gomoku.engine.game.rules import parse_rule
    from gomoku.engine.search import alphabeta
    from gomoku.engine.search.learned_file import EvalFileError, evaluator_path, load_evaluator
    try:
        ev = load_evaluator(evaluator_path(path))
    except EvalFileError as exc:
        raise click.UsageError(str(exc)) from None
    searcher = alphabeta.Searcher(learned={ev.rule_id: ev})
    tables = alphabeta.Searcher()
    sums = {"learned": [0, 0.0], "tables": [0, 0.0]}
    for k, (rule_name, w, h, moves) in enumerate(BENCH_POSITIONS, 1):
        if parse_rule(rule_name) != ev.rule_id:
            continue
        b = Board.from_moves(w, moves, rule=parse_rule(rule_name), height=h)
        for name, s in (("learned", searcher), ("tables", tables)):
            s.ctx(b.state.cells.shape[0])
            s.dfpn_table()
            s.search(b.state, max_depth=1)      # the evaluator's tables made outside the timing
            t0 = time.perf_counter()
            res = s.search(b.state, max_depth=depth)
            dt = time.perf_counter() - t0
            sums[name][0] += res.nodes
            sums[name][1] += dt
            if name == "learned":
                mv = b.coords(res.move) if res.move >= 0 else None
                click.echo(f"learned  {k:2d} {rule_name:9s} {w}x{h}: depth {res.depth:2d} move {mv} "
                           f"score {_score(res.score)} nodes {res.nodes:,} time {dt * 1000:.0f} ms "
                           f"nps {res.nodes / max(dt, 1e-9):,.0f}")
    if sums["learned"][0] == 0:
        click.echo(f"learned evaluator {ev.name}: no bench position is {ev.rule}")
        return
    nps = {n: int(v[0] / max(v[1], 1e-9)) for n, v in sums.items()}
    click.echo(f"bench-learned: evaluator={ev.name} rule={ev.rule} nps={nps['learned']} tables_nps={nps['tables']} "
               f"ratio={nps['learned'] / max(nps['tables'], 1):.2f}")


def _score(v: int) -> str:
    from gomoku.engine.search.alphabeta import WIN, WIN_MIN
    if v > WIN_MIN:
        return f"win{WIN - v}"
    if v < -WIN_MIN:
        return f"loss{WIN + v}"
    return str(v)


def main(argv: Optional[list[str]] = None) -> None:  # pragma: no cover - convenience
    bench.main(args=argv)


def _tactics(spec: str) -> None:
    from gomoku.engine.search.params import SearchParams
    from gomoku.tools import tactics
    from gomoku.tools.prepare import ensure_compiled
    params = {}
    for item in filter(None, (p.strip() for p in spec.split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE", param_hint="--tactics")
        params[name] = value
    try:
        SearchParams(params)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--tactics") from None
    ensure_compiled()
    tactics.report(tactics.load(), params=params or None, say=click.echo)
