"""The three-player Gobang paper's Tables 2 and 3 rerun: seven nets trained for three-player
Gobang, each ladder rung of pure MCTS (beaten when the net's points under the paper's seatings,
win 3 / draw 1 / loss 0, exceed the opponent's) and the optimiser steps ("batches") it took to
fall, over repeated runs with other seeds.

The nets are the paper's (docs/architectures.md): its base CNN (`cnn3`, junxiaosong's trunk),
that CNN followed by one and two residual blocks (`cnn3r1`, `cnn3r2`), with one and two
transformer blocks (`hybrid1c64`, `hybrid2c64`) and Cascaded Attention with three and four
stages (`casatt3`, `casatt4`), with fully connected heads as the paper's code has them when
runs.FC_HEADS allows. The ladder opponent is AlphaZero_Gomoku's `mcts_pure` (`--ladder-opponent
'pure-mcts:tactics=0'`), raised by the first rung's playouts each time it falls, as the paper's
1000, 2000, ... are; the paper's dynamic playout number is on (`--dynamic-playouts`), as in its
Table 3.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from gomoku.tools.studies import Study, StudyResult
from gomoku.tools.studies import runs

NAME = "threeplayer-nets"
LADDER_OPPONENT = "pure-mcts:tactics=0"


@dataclass(frozen=True)
class Scale:
    size: int
    win: int
    channels: int                # the hybrids' channels (the paper's: 64)
    generations: int             # the threshold: a rung not beaten by then is a dash
    games: int
    playouts: int
    updates: int
    batch: int
    window: int
    ladder_start: int            # the first rung, and the step between rungs
    ladder_games: int            # whole cycles of the six seatings
    dynamic: int                 # --dynamic-playouts
    stall: int                   # --stall-generations
    repeats: int                 # runs per net, seeds 1..repeats
    eval_playouts: Optional[int] = None     # the net's playouts on the ladder (None: train's own)


SCALES = {
    # the ladder at train's 200 playouts was most of a tiny run's minute; 8 keep it a search
    "tiny": Scale(6, 4, 16, 1, 3, 8, 1, 16, 1000, 4, 6, 4, 1, 1, eval_playouts=8),
    "small": Scale(6, 4, 64, 8, 12, 40, 6, 64, 3000, 20, 6, 20, 2, 2),
    # the paper: 8x8, rungs of 1000 playouts, at most 2000 batches, repeated runs
    "paper": Scale(8, 5, 64, 60, 30, 400, 30, 512, 20000, 1000, 12, 200, 5, 4),
}

NETS = (("Base CNN", "cnn3"), ("Res Blk 1", "cnn3r1"), ("Res Blk 2", "cnn3r2"),
        ("Transformer Blk 1", "hybrid1c{c}"), ("Transformer Blk 2", "hybrid2c{c}"),
        ("Cascaded Attn (3 blks)", "casatt3"), ("Cascaded Attn (4 blks)", "casatt4"))

#: the paper's Table 2b (batches to beat 2000..6000 playouts on 8x8; '-' not within 2000 batches)
#: and Table 3a (learning pace, mean/sd, on 8x8; the last column the trained rate, 8x8 / 11x11)
PAPER_T2 = {"Base CNN": ("350", "1150", "1450", "1950", "-", "0.48M"),
            "Res Blk 1": ("600", "1250", "1500", "1800", "-", "1.66M"),
            "Res Blk 2": ("200", "300", "400", "450", "600", "2.72M"),
            "Transformer Blk 1": ("350", "450", "900", "1100", "1500", "0.84M"),
            "Transformer Blk 2": ("300", "400", "450", "600", "950", "1.08M"),
            "Cascaded Attn (3 blks)": ("550", "700", "900", "1000", "1500", "1.19M"),
            "Cascaded Attn (4 blks)": ("350", "900", "1400", "1800", "-", "2.18M")}
PAPER_T3 = {"Base CNN": ("500/200", "450/350", "525/225", "-", "-", "67% / -"),
            "Res Blk 1": ("775/225", "750/100", "-", "-", "-", "86% / -"),
            "Res Blk 2": ("217/94", "267/125", "183/84", "-", "-", "90% / -"),
            "Transformer Blk 1": ("650/229", "450/350", "-", "-", "-", "63% / -"),
            "Transformer Blk 2": ("433/143", "83/24", "150/82", "150/41", "383/403", "86% / -"),
            "Cascaded Attn (3 blks)": ("511/209", "367/194", "308/151", "238/108", "-", "57% / 71%"),
            "Cascaded Attn (4 blks)": ("827/364", "300/170", "575/75", "-", "-", "15% / 43%")}


def _train(arch: str, seed: int, s: Scale, out: Path) -> list[dict[str, Any]]:
    cfg = runs.net_config(s.size, arch, win_length=s.win, players=3, games_per_gen=s.games, parallel_games=s.games,
                          workers=1, playouts=s.playouts, full_search_prob=1.0, updates_per_gen=s.updates,
                          batch_size=s.batch, window=s.window, eval_games=0, ladder_games=s.ladder_games,
                          ladder_start=s.ladder_start, ladder_opponent=LADDER_OPPONENT, dynamic_playouts=s.dynamic,
                          stall_generations=s.stall, classical_games=0, eval_playouts=s.eval_playouts, seed=seed)
    return runs.train(NAME, out / "runs" / f"{arch}-seed{seed}", cfg, out / "train.log", generations=s.generations)


def beaten_at(recs: list[dict[str, Any]]) -> dict[int, int]:
    """Rung playouts -> the optimiser step of the generation that first beat it."""
    out: dict[int, int] = {}
    for r in recs:
        ev = r.get("ladder")
        if isinstance(ev, dict) and ev.get("beaten") and "playouts" in ev:
            out.setdefault(int(ev["playouts"]), int(r.get("step", 0)))
    return out


def _fc(arch: str, size: int) -> str:
    return runs.paper_arch(arch, size)


def _params(arch: str, s: Scale) -> str:
    try:
        from gomoku.train.models import build_model, parameter_count
        return f"{parameter_count(build_model(arch, players=3)) / 1e6:.2f}M"
    except Exception:       # noqa: BLE001 - the count is a label, not a result
        return "?"


def _cell(values: list[int], repeats: int) -> str:
    """Mean steps over the repeats that got there, and how many did."""
    return f"{runs.mean_sd(values).split('/')[0]} ({len(values)}/{repeats})" if values else f"- (0/{repeats})"


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    """Train every net `repeats` times and tabulate when each ladder rung fell."""
    s = SCALES[scale]
    runs.require_fields(NAME, "net", ["ladder_opponent", "dynamic_playouts"])
    runs.require_specs(NAME, [f"{LADDER_OPPONENT},playouts={s.ladder_start}"])
    nets = [(label, _fc(pattern.format(c=s.channels), s.size)) for label, pattern in NETS]
    runs.require_archs(NAME, [arch for _, arch in nets])
    results: dict[str, list[dict[int, int]]] = {}
    for label, arch in nets:
        for seed in range(1, s.repeats + 1):
            progress(f"training {label} ({arch}), seed {seed}")
            results.setdefault(label, []).append(beaten_at(_train(arch, seed, s, out)))
    return _result(scale, s, nets, results)


def _result(scale: str, s: Scale, nets: list[tuple[str, str]],
            results: dict[str, list[dict[int, int]]]) -> StudyResult:
    top = max([max(b) for rs in results.values() for b in rs if b] + [s.ladder_start])
    rungs = list(range(s.ladder_start, top + 1, s.ladder_start))
    t2, t3 = [], []
    for label, arch in nets:
        rs = results[label]
        t2.append([label, arch] + [_cell([b[n] for b in rs if n in b], s.repeats) for n in rungs]
                  + [_params(arch, s)])
        paces: list[list[int]] = [[] for _ in rungs]
        for b in rs:
            prev: Optional[int] = 0
            for i, n in enumerate(rungs):
                step = b.get(n)
                if step is not None and prev is not None:
                    paces[i].append(step - prev)
                prev = step
        trained = sum(1 for b in rs if s.ladder_start in b) / len(rs)
        t3.append([label] + [runs.mean_sd(p) for p in paces] + [f"{trained:.0%}"])
    heads = [f"{n} playouts" for n in rungs]
    ours = ("Optimiser steps to beat pure MCTS N playouts (mean over the runs that did, and how many did):\n\n"
            + runs.table(["net", "arch"] + heads + ["parameters"], t2)
            + "\n\nLearning pace, steps from one rung to the next (mean/sd over runs):\n\n"
            + runs.table(["net"] + heads + ["trained rate"], t3)
            + f"\n\n{s.size}x{s.size}, {s.win} in a row, three players; {s.repeats} runs per net (seeds "
              f"1..{s.repeats}), each {s.generations} generations of {s.games} self-play games at {s.playouts} "
              f"playouts, {s.updates} updates of {s.batch}; ladder of pure MCTS (tactics=0) from "
              f"{s.ladder_start} playouts in steps of {s.ladder_start}, {s.ladder_games} games per generation; "
              f"self-play playouts +{s.dynamic} after {s.stall} stalled generations. Trained rate: runs "
              "that beat the first rung.")
    paper = ("Table 2b (8x8, batches to beat N playouts; '-': not within 2000 batches):\n\n"
             + runs.table(["net", "2000", "3000", "4000", "5000", "6000", "parameters"],
                          [[k, *v] for k, v in PAPER_T2.items()])
             + "\n\nTable 3a (8x8, learning pace per 1000 playouts, mean/sd):\n\n"
             + runs.table(["net", "2000", "3000", "4000", "5000", "6000", "trained rate (8x8 / 11x11)"],
                          [[k, *v] for k, v in PAPER_T3.items()]))
    data = {"rungs": rungs, "beaten_at": {label: [{str(k): v for k, v in b.items()} for b in rs]
                                         for label, rs in results.items()},
            "archs": dict(nets)}
    return StudyResult(table=ours, paper_table=paper, scale=scale, data=data)


STUDY = Study(name=NAME, paper="the three-player Gobang paper",
              summary="seven nets' optimiser steps to beat N pure-MCTS playouts in three-player Gobang, "
                      "with repeated runs",
              run=run)
