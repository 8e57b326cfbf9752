"""The AlphaGo Zero Gomoku re-implementation's figures 6-9 rerun: its net (`skip3`, three
32-filter convolutions with a skip) trained by self-play on its 5x5 board, four in a row, and
every saved checkpoint played as first and as second player against a random net.

The paper played 10 games per checkpoint and side against "a random opponent", a randomly
initialised net searching with MCTS. Both players here search deterministically, so each of the
games faces another random net (`random-net:arch=skip3,seed=K`, K = 1..games): one game with
the trained net first, one with it second. The study makes those nets once with the trainer's
own maker (`gomoku.train.random_net`, the files that player spec caches) and plays the files,
which is what the spec does after its first game, without a child process per match.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gomoku.tools.studies import Study, StudyResult
from gomoku.tools.studies import runs

NAME = "reimpl-random"
ARCH = "skip3"


@dataclass(frozen=True)
class Scale:
    generations: int
    every: int                   # checkpoints played: every this many generations (and the last)
    games: int                   # self-play games per generation
    playouts: int                # self-play and match playouts (the paper: 400 for both)
    updates: int
    batch: int                   # the paper: mini-batches of 32
    games_per_side: int          # the paper: 10


SCALES = {
    "tiny": Scale(2, 1, 2, 8, 1, 16, 2),
    "small": Scale(30, 5, 32, 200, 16, 32, 10),
    # the paper: more than 10000 self-play games at 400 simulations over five days
    "paper": Scale(200, 10, 50, 400, 50, 32, 10),
}

PAPER = runs.table(
    ["net plays", "the paper's wins out of 10 per checkpoint (Figs. 6-9)"],
    [["first", "about 7.5 on average late in training (75 %), after an initial drop"],
     ["second", "about 6 on average late in training (60 %), after an initial drop"]])
PAPER += ("\n\nThe paper: 5x5, four in a row, more than 10000 self-play games at 400 simulations, "
          "mini-batches of 32, 10 games per checkpoint and side against a random net.")


def _train(s: Scale, out: Path) -> list[dict[str, Any]]:
    cfg = runs.net_config(5, ARCH, win_length=4, games_per_gen=s.games, parallel_games=s.games, workers=1,
                          playouts=s.playouts, full_search_prob=1.0, updates_per_gen=s.updates, batch_size=s.batch,
                          window=20000, eval_games=0, ladder_games=0, classical_games=0, seed=1)
    return runs.train(NAME, out / "run", cfg, out / "train.log", generations=s.generations)


def _checkpoints(s: Scale, done: int) -> list[int]:
    """Generation 0 (the untrained net, the paper's first point), every `every`-th, the last."""
    gens = [g for g in range(done + 1) if g % s.every == 0]
    return gens if gens[-1] == done else gens + [done]


def _random_nets(s: Scale, out: Path) -> list[Path]:
    """The random nets, seeds 1..games_per_side, as ONNX files (the random-net player's)."""
    try:
        from gomoku.train.random_net import make_random_net
    except ImportError as exc:
        raise runs.StudyError(f"study {NAME} needs random nets (gomoku.train.random_net and the train extra): "
                              f"{exc}") from None
    return [make_random_net(ARCH, seed, 5, 5, win_length=4, players=2, rule="freestyle",
                            folder=out / "random-nets") for seed in range(1, s.games_per_side + 1)]


def _play(gen: int, s: Scale, out: Path, rivals: list[Path]) -> dict[str, int]:
    """The checkpoint's wins, losses and draws as first and as second player, one random net per
    pair of games."""
    tally = {f"{side}_{k}": 0 for side in ("first", "second") for k in ("wins", "losses", "draws")}
    net = f"{runs.net(out / 'run', gen)}:playouts={s.playouts},name=gen{gen}"
    for seed, path in enumerate(rivals, 1):
        rival = f"{path}:playouts={s.playouts},name=random-net-{seed}"
        r = runs.match(net, rival, 5, 2, out / "matches" / f"gen{gen}-seed{seed}.json", out / "match.log",
                       win=4)
        for side, key in (("first", "a_as_black"), ("second", "a_as_white")):
            for k in ("wins", "losses", "draws"):
                tally[f"{side}_{k}"] += r[key][k]
    return tally


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    """Train once, then play every kept checkpoint against random nets on both sides."""
    s = SCALES[scale]
    runs.require_archs(NAME, [ARCH])
    rivals = _random_nets(s, out)
    progress(f"training {ARCH} on 5x5, four in a row, {s.generations} generations")
    recs = _train(s, out)
    steps = {r["generation"]: r.get("step") for r in recs}
    results: dict[int, dict[str, int]] = {}
    for gen in _checkpoints(s, len(recs)):
        progress(f"generation {gen} against {s.games_per_side} random nets on each side")
        results[gen] = _play(gen, s, out, rivals)
    rows = []
    for gen, t in results.items():
        rows.append([gen, steps.get(gen, 0), gen * s.games,
                     f"{t['first_wins']}-{t['first_losses']}-{t['first_draws']}",
                     f"{t['second_wins']}-{t['second_losses']}-{t['second_draws']}"])
    late = list(results.values())[len(results) // 2:]
    first = sum(t["first_wins"] for t in late) / max(1, len(late) * s.games_per_side)
    second = sum(t["second_wins"] for t in late) / max(1, len(late) * s.games_per_side)
    ours = runs.table(["generation", "optimiser steps", "self-play games", "net first (W-L-D)",
                       "net second (W-L-D)"], rows)
    ours += (f"\n\nLater half of the checkpoints: the net wins {first:.0%} as first player and "
             f"{second:.0%} as second. 5x5, four in a row, {ARCH}; {s.games} self-play games per "
             f"generation at {s.playouts} playouts, {s.updates} updates of {s.batch}; both players search "
             f"{s.playouts} playouts; {s.games_per_side} games per checkpoint and side, each against "
             f"another random net.")
    data = {"checkpoints": {str(g): t for g, t in results.items()}, "late_first_win_rate": first,
            "late_second_win_rate": second}
    return StudyResult(table=ours, paper_table=PAPER, scale=scale, data=data)


STUDY = Study(name=NAME, paper="the AlphaGo Zero Gomoku re-implementation",
              summary="its net on 5x5 four in a row, every checkpoint as first and as second player "
                      "against random nets",
              run=run)
