"""The Columbia AlphaZero Gomoku paper's head-to-head games rerun (its Figs. 5-13): training
iterations, playouts, architectures (3-layer CNN, 4-layer CNN, 4-layer "RNN", ResNet-18) and
the selection rule, UCB1 against its "modified" Q + P/(1+N).

The paper's 3-layer CNN is junxiaosong's AlphaZero_Gomoku net, searched with PUCT; its other
nets and its UCB1 model change one thing each. Here the same: `cnn3` with `--select puct` is the
reference run, whose checkpoints give the iterations games; `cnn4`, `rnn4` and `resnet18` (with
the papers' fully connected heads when runs.FC_HEADS allows) train with the same settings, and
`cnn3` with `--select ucb1` and `--select plain` gives the two rules, each net searching with the
rule it was trained with. The paper played two games per pair, one with each model first; here
each pair plays from random two-stone openings, each with both colours.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from gomoku.tools.studies import Study, StudyResult
from gomoku.tools.studies import runs

NAME = "columbia-select"


@dataclass(frozen=True)
class Scale:
    size: int
    win: int
    generations: int
    games: int
    playouts: int
    updates: int
    batch: int
    window: int
    net_playouts: int            # every net's playouts in the games
    few_playouts: int            # the playouts game: few against net_playouts (the paper: 50 vs 1000)
    h2h_games: int
    resnet18: bool = True        # about 11M parameters: minutes per generation on a shared CPU


SCALES = {
    "tiny": Scale(6, 4, 2, 2, 8, 1, 16, 1000, 8, 2, 2),
    "small": Scale(6, 4, 30, 16, 50, 8, 64, 3000, 50, 5, 16, resnet18=False),
    # the paper: 8x8 five in a row, 100 to 1500 iterations (one self-play game each), 1000
    # playouts in play, two games per pair
    "paper": Scale(8, 5, 100, 15, 400, 15, 512, 10000, 1000, 50, 2),
}

#: iterations the paper's Figs. 5-8 compare, as shares of its longest run (1500)
ITERATIONS = {100: 100 / 1500, 500: 500 / 1500, 1000: 1000 / 1500, 1500: 1.0}


@dataclass(frozen=True)
class Pair:
    section: str
    a: str                       # labels
    b: str
    spec_a: str
    spec_b: str
    paper: str
    needs: tuple[str, ...] = ()  # runs the pair plays besides cnn3


def _arch(name: str, size: int) -> str:
    return runs.paper_arch(name, size)


def _runs(s: Scale) -> dict[str, tuple[str, str]]:
    """Run name -> (arch, selection rule)."""
    cnn3 = _arch("cnn3", s.size)
    return {"cnn3": (cnn3, "puct"), "cnn4": (_arch("cnn4", s.size), "puct"),
            "rnn4": (_arch("rnn4", s.size), "puct"), "ucb1": (cnn3, "ucb1"), "plain": (cnn3, "plain"),
            **({"resnet18": (_arch("resnet18", s.size), "puct")} if s.resnet18 else {})}


def _train(name: str, arch: str, select: str, s: Scale, out: Path) -> list[dict[str, Any]]:
    cfg = runs.net_config(s.size, arch, win_length=s.win, games_per_gen=s.games, parallel_games=s.games, workers=1,
                          playouts=s.playouts, full_search_prob=1.0, updates_per_gen=s.updates, batch_size=s.batch,
                          window=s.window, eval_games=0, ladder_games=0, classical_games=0, select=select, seed=1)
    return runs.train(NAME, out / "runs" / name, cfg, out / "train.log", generations=s.generations)


def _spec(out: Path, run: str, select: str, playouts: int, gen: Optional[int] = None, label: str = "") -> str:
    return (f"{runs.net(out / 'runs' / run, gen)}:playouts={playouts},select={select},"
            f"name={label or run}")


def _pairs(s: Scale, out: Path, done: int) -> list[Pair]:
    """Every game of the study: the paper's pairs, with its outcome."""
    gens = {its: max(1, round(done * share)) for its, share in ITERATIONS.items()}
    it = {its: _spec(out, "cnn3", "puct", s.net_playouts, g, f"cnn3-gen{g}") for its, g in gens.items()}
    p = s.net_playouts

    def lab(its: int) -> str:
        return f"generation {gens[its]} (~{its} its)"
    return [
        Pair("iterations", lab(100), lab(500), it[100], it[500], "500 wins both games"),
        Pair("iterations", lab(500), lab(1000), it[500], it[1000], "1000 wins both games"),
        Pair("iterations", lab(1000), lab(1500), it[1000], it[1500], "whoever moves first wins"),
        Pair("iterations", lab(500), lab(1500), it[500], it[1500], "1500 wins both games"),
        Pair("playouts", f"{s.few_playouts} playouts", f"{p} playouts",
             _spec(out, "cnn3", "puct", s.few_playouts, gens[1000], f"cnn3-{s.few_playouts}"),
             _spec(out, "cnn3", "puct", p, gens[1000], f"cnn3-{p}"),
             "the more playouts win both games (50 against 1000, the 1000-iteration model)"),
        Pair("architecture", "cnn3", "cnn4", _spec(out, "cnn3", "puct", p), _spec(out, "cnn4", "puct", p),
             "3-layer CNN wins both games (100 iterations)", ("cnn4",)),
        Pair("architecture", "cnn4", "resnet18", _spec(out, "cnn4", "puct", p), _spec(out, "resnet18", "puct", p),
             "4-layer CNN wins both games (100 iterations)", ("cnn4", "resnet18")),
        Pair("architecture", "cnn3", "rnn4", _spec(out, "cnn3", "puct", p), _spec(out, "rnn4", "puct", p),
             "a tie (1500 iterations)", ("rnn4",)),
        Pair("selection", "UCB1", "modified Q+P/(1+N)", _spec(out, "ucb1", "ucb1", p),
             _spec(out, "plain", "plain", p), "UCB1 wins both games (500 iterations)"),
        Pair("selection", "UCB1", "PUCT", _spec(out, "ucb1", "ucb1", p), _spec(out, "cnn3", "puct", p),
             "(not in the paper)"),
        Pair("selection", "modified Q+P/(1+N)", "PUCT", _spec(out, "plain", "plain", p),
             _spec(out, "cnn3", "puct", p), "(not in the paper)"),
    ]


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    """Train the six runs, then play the paper's pairs."""
    s = SCALES[scale]
    runs.require_fields(NAME, "net", ["select"])
    plan = _runs(s)
    runs.require_archs(NAME, sorted({arch for arch, _ in plan.values()}))
    trained: dict[str, dict[str, Any]] = {}
    for name, (arch, select) in plan.items():
        progress(f"training {name} ({arch}, --select {select})")
        recs = _train(name, arch, select, s, out)
        trained[name] = {"arch": arch, "select": select, "generations": len(recs),
                         "step": recs[-1].get("step") if recs else None}
    done = trained["cnn3"]["generations"]
    openings = runs.openings_file(out / "openings.txt", s.size, max(1, s.h2h_games // 2), seed=1)
    rows, paper_rows, data = [], [], []
    for i, pair in enumerate(_pairs(s, out, done)):
        paper_rows.append([pair.section, pair.a, pair.b, pair.paper])
        if any(n not in trained for n in pair.needs):
            rows.append([pair.section, pair.a, pair.b, "not run at this scale", "", ""])
            continue
        progress(f"{pair.section}: {pair.a} against {pair.b}")
        r = runs.match(pair.spec_a, pair.spec_b, s.size, s.h2h_games, out / "matches" / f"{i:02d}.json",
                       out / "match.log", win=s.win, openings=str(openings))
        first, second = r["a_as_black"], r["a_as_white"]
        rows.append([pair.section, pair.a, pair.b, f"{runs.wld(r)} ({runs.score(r):.2f})",
                     f"{first['wins']}-{first['losses']}-{first['draws']}",
                     f"{second['wins']}-{second['losses']}-{second['draws']}"])
        data.append({"a": pair.spec_a, "b": pair.spec_b, "wins": r["wins"], "losses": r["losses"],
                     "draws": r["draws"], "a_first": first, "a_second": second})
    ours = runs.table(["compared", "A", "B", "A's W-L-D (score)", "A moving first", "A moving second"], rows)
    ours += (f"\n\n{s.size}x{s.size}, {s.win} in a row; every run {s.generations} generations of {s.games} "
             f"self-play games at {s.playouts} playouts, {s.updates} updates of {s.batch}; nets at "
             f"{s.net_playouts} playouts; {s.h2h_games} games per pair from random two-stone openings, "
             "each with both colours. Architectures: "
             + ", ".join(f"{n} = {t['arch']} ({t['select']}, step {t['step']})" for n, t in trained.items()) + "."
             + ("" if s.resnet18 else " ResNet-18 (about 11M parameters) is left out at this scale: on a shared "
                "2-core CPU one of its generations takes many minutes."))
    paper = runs.table(["compared", "A", "B", "the paper (two games, one with each first)"], paper_rows)
    paper += ("\n\nThe paper: 8x8, five in a row; its figures show one game with each model first; "
              "iterations 100/500/1000/1500 (one self-play game each), 1000 playouts in play.")
    return StudyResult(table=ours, paper_table=paper, scale=scale, data={"trained": trained, "games": data})


STUDY = Study(name=NAME, paper="the Columbia AlphaZero Gomoku paper",
              summary="UCB1 against the modified rule, architectures (cnn3, cnn4, rnn4, resnet18) and "
                      "iterations and playouts head to head",
              run=run)
