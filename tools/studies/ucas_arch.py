"""The UCAS Gobang paper's comparisons rerun: its networks (Fig. 14: feed-forward, CNN, ResNet
with one and two residual blocks) and its sweeps of the noise ratio epsilon (Fig. 10), the
training playouts n (Fig. 11) and c_puct (Fig. 12).

Each variant changes one setting of a base run (ResNet with 2 blocks, epsilon 0.2, c_puct 5),
as the paper does. The paper scored every model against the others of its sweep, a rollout MCTS
player and a human over 30 games; here each final net plays AlphaZero_Gomoku's `mcts_pure`
(`pure-mcts:...,tactics=0`) from the empty board, and the others of its sweep head to head from
random two-stone openings. Epsilon is the paper's noise on both the root priors and the move
distribution, so it sets `--dirichlet-eps` and `--move-noise` together.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gomoku.tools.studies import Study, StudyResult
from gomoku.tools.studies import runs

NAME = "ucas-arch"
TRAIN_FIELDS = ("c_puct", "dirichlet_eps", "move_noise")


@dataclass(frozen=True)
class Scale:
    size: int
    win: int
    generations: int
    games: int                   # self-play games per generation
    playouts: int                # the base run's self-play playouts
    n_sweep: tuple[int, ...]     # the training playouts Fig. 11 compares (the base's among them)
    updates: int
    batch: int
    window: int
    channels: int                # filters of the ResNets
    net_playouts: int            # every net's playouts in the matches
    mcts_playouts: int           # the rollout MCTS opponent's
    mcts_games: int
    h2h_games: int               # per pair of a sweep


SCALES = {
    "tiny": Scale(6, 4, 1, 2, 8, (4, 8, 12), 1, 16, 1000, 8, 8, 20, 2, 2),
    # 6x6 four in a row (8x8 is too slow for ten runs on a shared 2-core machine); 8 updates of
    # 64 per generation: about 40 optimiser steps of 30-70 ms each
    "small": Scale(6, 4, 30, 16, 50, (10, 50, 150), 8, 64, 3000, 32, 50, 1000, 20, 16),
    # the paper: 8x8, 1500 self-play games, n=400 (10, 400, 1000 in the sweep), 256 filters,
    # the net at 1000 playouts against rollout MCTS 5000 over 30 games
    "paper": Scale(8, 5, 100, 15, 400, (10, 400, 1000), 15, 512, 10000, 256, 1000, 5000, 30, 30),
}

BASE = {"eps": 0.2, "c_puct": 5.0}

#: the paper's findings, from its text (the figures' bars are not given as numbers)
PAPER = {
    ("network", "FFNN"): "weakest network; still beats rollout MCTS",
    ("network", "CNN"): "on a par with the 2-block ResNet (\"not dominant\" over it)",
    ("network", "ResNet, 1 block"): "below the 2-block ResNet",
    ("network", "ResNet, 2 blocks"): "the paper's model; best with the CNN, level with amateur humans",
    ("epsilon", "0"): "poor: only better than rollout MCTS",
    ("epsilon", "0.2"): "best; beats the other settings and rollout MCTS",
    ("epsilon", "0.8"): "below 0.2 (too much noise)",
    ("n", "low"): "n=10: weakest",
    ("n", "base"): "n=400: in between",
    ("n", "high"): "n=1000: strongest (performance grows with n)",
    ("c_puct", "1"): "below 5 and below humans",
    ("c_puct", "5"): "best, level with amateur humans",
    ("c_puct", "20"): "slightly below 5; every setting beats rollout MCTS",
}


@dataclass(frozen=True)
class Variant:
    sweep: str
    label: str
    key: str                     # the run folder's name; variants with the same key share a run
    arch: str
    playouts: int
    eps: float
    c_puct: float
    paper: str


def _arch(name: str, size: int) -> str:
    return runs.paper_arch(name, size)


def variants(s: Scale) -> list[Variant]:
    """Every row of the study: one setting changed from the base run at a time."""
    base_arch = _arch(f"b2c{s.channels}", s.size)
    base = dict(arch=base_arch, playouts=s.playouts, eps=BASE["eps"], c_puct=BASE["c_puct"])

    def v(sweep: str, label: str, paper_key: str, **change: Any) -> Variant:
        cfg = {**base, **change}
        key = "base" if cfg == base else f"{sweep}-{label}".replace(" ", "").replace(",", "")
        return Variant(sweep, label, key, paper=PAPER[(sweep, paper_key)], **cfg)

    out = [v("network", "FFNN", "FFNN", arch=_arch("ffnn", s.size)),
           v("network", "CNN", "CNN", arch=_arch("cnn3", s.size)),
           v("network", "ResNet, 1 block", "ResNet, 1 block", arch=_arch(f"b1c{s.channels}", s.size)),
           v("network", "ResNet, 2 blocks", "ResNet, 2 blocks")]
    out += [v("epsilon", str(e), str(e), eps=e) for e in (0, 0.2, 0.8)]
    out += [v("n", str(n), which, playouts=n) for n, which in zip(s.n_sweep, ("low", "base", "high"))]
    out += [v("c_puct", str(c), str(c), c_puct=float(c)) for c in (1, 5, 20)]
    return out


def _train(v: Variant, s: Scale, out: Path) -> dict[str, Any]:
    cfg = runs.net_config(s.size, v.arch, win_length=s.win, games_per_gen=s.games, parallel_games=s.games, workers=1,
                          playouts=v.playouts, full_search_prob=1.0, updates_per_gen=s.updates, batch_size=s.batch,
                          window=s.window, eval_games=0, ladder_games=0, classical_games=0, c_puct=float(v.c_puct),
                          dirichlet_eps=float(v.eps), move_noise=float(v.eps), seed=1)
    recs = runs.train(NAME, out / "runs" / v.key, cfg, out / "train.log", generations=s.generations)
    last = recs[-1] if recs else {}
    return {"generations": len(recs), "step": last.get("step"), "loss": last.get("train", {}).get("loss")}


def _player(v: Variant, s: Scale, out: Path) -> str:
    return f"{runs.net(out / 'runs' / v.key)}:playouts={s.net_playouts},c_puct={v.c_puct},name={v.key}"


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    """Train every variant, then score it against rollout MCTS and head to head in its sweep."""
    s = SCALES[scale]
    mcts = f"pure-mcts:playouts={s.mcts_playouts},tactics=0"
    runs.require_fields(NAME, "net", TRAIN_FIELDS)
    runs.require_specs(NAME, [mcts])
    vs = variants(s)
    runs.require_archs(NAME, sorted({v.arch for v in vs}))
    trained: dict[str, dict[str, Any]] = {}
    for v in vs:
        if v.key not in trained:
            progress(f"training {v.key} ({v.arch}, n={v.playouts}, eps={v.eps}, c_puct={v.c_puct})")
            trained[v.key] = _train(v, s, out)
    vs_mcts: dict[str, dict[str, Any]] = {}
    for key in trained:
        v = next(x for x in vs if x.key == key)
        progress(f"{key} against pure MCTS {s.mcts_playouts}")
        vs_mcts[key] = runs.match(_player(v, s, out), mcts, s.size, s.mcts_games,
                                  out / "matches" / f"{key}-mcts.json", out / "match.log", win=s.win)
    openings = runs.openings_file(out / "openings.txt", s.size, max(1, s.h2h_games // 2), seed=1)
    h2h: dict[tuple[str, str], dict[str, Any]] = {}
    for sweep in dict.fromkeys(v.sweep for v in vs):
        for a, b in itertools.combinations([v for v in vs if v.sweep == sweep], 2):
            progress(f"{sweep}: {a.label} against {b.label}")
            h2h[(a.key, b.key)] = runs.match(_player(a, s, out), _player(b, s, out), s.size, s.h2h_games,
                                            out / "matches" / f"{a.key}-vs-{b.key}.json", out / "match.log",
                                            win=s.win, openings=str(openings))
    return _result(scale, s, vs, trained, vs_mcts, h2h)


def _h2h_of(v: Variant, vs: list[Variant], h2h: dict[tuple[str, str], dict[str, Any]]) -> tuple[int, int, int]:
    """The variant's wins, losses and draws against the others of its sweep."""
    w = l = d = 0
    for other in vs:
        if other.sweep != v.sweep or other is v:
            continue
        if (v.key, other.key) in h2h:
            r = h2h[(v.key, other.key)]
            w, l, d = w + r["wins"], l + r["losses"], d + r["draws"]
        elif (other.key, v.key) in h2h:
            r = h2h[(other.key, v.key)]
            w, l, d = w + r["losses"], l + r["wins"], d + r["draws"]
    return w, l, d


def _result(scale: str, s: Scale, vs: list[Variant], trained: dict[str, dict[str, Any]],
            vs_mcts: dict[str, dict[str, Any]], h2h: dict[tuple[str, str], dict[str, Any]]) -> StudyResult:
    rows, paper_rows = [], []
    for v in vs:
        m = vs_mcts[v.key]
        w, l, d = _h2h_of(v, vs, h2h)
        games = w + l + d
        sweep_score = f"{(w + 0.5 * d) / games:.2f}" if games else "-"
        t = trained[v.key]
        rows.append([v.sweep, v.label, v.arch, t["step"], f"{runs.wld(m)} ({runs.score(m):.2f})",
                     f"{w}-{l}-{d} ({sweep_score})"])
        paper_rows.append([v.sweep, v.label, v.paper])
    ours = runs.table(["sweep", "variant", "arch", "optimiser steps",
                       f"vs pure MCTS {s.mcts_playouts} (W-L-D, score)", "vs its sweep (W-L-D, score)"], rows)
    ours += (f"\n\n{s.size}x{s.size}, {s.win} in a row; each run {s.generations} generations of {s.games} "
             f"self-play games ({s.playouts} playouts unless the n sweep says), {s.updates} updates of "
             f"{s.batch}; base: ResNet 2 blocks, epsilon 0.2, c_puct 5. Matches: nets at {s.net_playouts} "
             f"playouts; {s.mcts_games} games against pure MCTS (tactics=0) from the empty board, "
             f"{s.h2h_games} per pair of a sweep from random two-stone openings.")
    paper = runs.table(["sweep", "variant", "the paper (Figs. 10-12, 14)"], paper_rows)
    paper += ("\n\nThe paper: 8x8, five in a row, about 1500 self-play games per model, n=400, the net at "
              "1000 playouts; 30 games against each opponent (Table 1: 30-0-0 against rollout MCTS 5000).")
    data = {"variants": [v.__dict__ for v in vs], "trained": trained,
            "vs_mcts": {k: {x: r[x] for x in ("wins", "losses", "draws", "a_as_black", "a_as_white")}
                        for k, r in vs_mcts.items()},
            "head_to_head": {f"{a} vs {b}": {x: r[x] for x in ("wins", "losses", "draws")}
                             for (a, b), r in h2h.items()}}
    return StudyResult(table=ours, paper_table=paper, scale=scale, data=data)


STUDY = Study(name=NAME, paper="the UCAS Gobang paper",
              summary="networks (FFNN, CNN, ResNet 1 and 2 blocks) and the epsilon, playouts and c_puct "
                      "sweeps, each net against rollout MCTS and head to head in its sweep",
              run=run)
