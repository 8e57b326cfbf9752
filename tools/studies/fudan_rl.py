"""The Fudan threat-space-search paper's Table III rerun: its five agents, ADP, ADP with
experience replay, heuristic MCTS, Minimax and Minimax with threat-space search, against each
other and against fixed opponents.

The paper played each agent 12 games against each of six Gomocup AIs and gave the share of
points (its "rate"); its ADP and ADP-ER are critics trained by TD(0) on their own games, with
experience replay for ADP-ER, which it found helps (0.29 against 0.24). Here both critics are
trained as `gomoku train --arch adp` and `--arch adp-er` train them (the same seed, features, net and
number of self-play games: the learning rule is the one difference), then every agent plays
every other one (a round robin) and three references the project has, random, `classical:1`
(the static one-ply choice) and `classical:2` (2,000 nodes a move), and the critics' common
untrained start (what their TD learning adds), from random two-stone
openings, each played with both colours (every agent here but flat-mc plays deterministically).
The agents: the critics one ply deep (their ONNX files as players), HMCTS as `flat-mc:N` (the
paper's heuristic MCTS: the same playouts for every candidate near the stones), Minimax as the
classical alpha-beta to a fixed depth without its threat searches (`classical:depth=D,tss=0`)
and Minimax with TSS as the same with them (`classical:depth=D`).

Every finished training generation and every finished pairing is kept under the study's
folder, so the same command after Ctrl-C or a kill goes on where it stopped.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gomoku.tools.studies import Study, StudyResult
from gomoku.tools.studies import runs

NAME = "fudan-rl"


@dataclass(frozen=True)
class Scale:
    size: int
    generations: int             # training generations of each critic
    games_per_gen: int
    hidden: int
    replay_batch: int            # adp-er: new transitions between replay passes (the paper: about 5000)
    buffer: int
    flat_playouts: int           # HMCTS
    depth: int                   # Minimax, with and without TSS
    openings: int                # games per pairing: twice this (each opening with both colours)


SCALES = {
    "tiny": Scale(size=9, generations=1, games_per_gen=4, hidden=8, replay_batch=60, buffer=200,
                  flat_playouts=40, depth=1, openings=1),
    "small": Scale(size=15, generations=50, games_per_gen=100, hidden=100, replay_batch=5000, buffer=20000,
                   flat_playouts=1000, depth=3, openings=20),
    # the paper: 12 games against each opponent; its training length is not given
    "paper": Scale(size=15, generations=100, games_per_gen=200, hidden=100, replay_batch=5000, buffer=50000,
                   flat_playouts=2000, depth=4, openings=6),
}

#: the paper's Table III: games won : lost against each Gomocup AI (12 each), and the rate
PAPER_OPPONENTS = ("5row", "mushR", "pisq7", "pureR", "sparkle", "valkyR")
PAPER_ROWS = {
    "ADP": ("3:9", "6:6", "0:12", "3:9", "1:11", "4:8", "0.24"),
    "HMCTS": ("4:8", "12:0", "0:12", "2:10", "0:12", "1:11", "0.26"),
    "ADP-ER": ("5:7", "6:6", "1:11", "5:7", "0:12", "4:8", "0.29"),
    "Minimax": ("7:5", "12:0", "5:7", "3:9", "2:10", "7:5", "0.50"),
    "Minimax+TSS": ("8:4", "12:0", "8:4", "9:3", "3:9", "9:3", "0.68"),
}
AGENTS = ("ADP", "ADP-ER", "HMCTS", "Minimax", "Minimax+TSS")
REFERENCES = ("random", "classical:1", "classical:2")
#: the critics before training (both start from the same weights): what the TD learning adds
UNTRAINED = "untrained"

PAPER = runs.table(["agent", *PAPER_OPPONENTS, "rate"], [[a, *r] for a, r in PAPER_ROWS.items()])
PAPER += ("\n\nThe paper: each agent 12 games against each of six Gomocup AIs on Piskvork; rate = the "
          "share of games won (draws not counted).")


def _train(arch: str, s: Scale, out: Path) -> list[dict[str, Any]]:
    replay = {"replay_batch": s.replay_batch, "buffer": s.buffer} if arch == "adp-er" else {}
    cfg = runs.adp_config(s.size, arch, s.hidden, games_per_gen=s.games_per_gen, features=30, seed=1, **replay)
    return runs.train(NAME, out / arch, cfg, out / "train.log", generations=s.generations)


def _specs(s: Scale, out: Path) -> dict[str, str]:
    return {"ADP": f"{runs.net(out / 'adp')}:name=ADP",
            "ADP-ER": f"{runs.net(out / 'adp-er')}:name=ADP-ER",
            "HMCTS": f"flat-mc:{s.flat_playouts},seed=1,name=HMCTS",
            "Minimax": f"classical:depth={s.depth},tss=0,name=Minimax",
            "Minimax+TSS": f"classical:depth={s.depth},name=Minimax+TSS",
            "random": "random:seed=1", "classical:1": "classical:1", "classical:2": "classical:2",
            UNTRAINED: f"{runs.net(out / 'adp', 0)}:name=untrained"}


def _pairing(a: str, b: str, specs: dict[str, str], s: Scale, out: Path, openings: Path) -> dict[str, Any]:
    """A's report against B, played once: a finished pairing's file is read back."""
    path = out / "matches" / f"{a}-vs-{b}.json".replace(":", "")
    games = 2 * s.openings
    if path.is_file():
        try:
            r = json.loads(path.read_text())
            if r["wins"] + r["losses"] + r["draws"] == games:
                return dict(r)
        except (ValueError, KeyError):
            pass
    return runs.match(specs[a], specs[b], s.size, games, path, out / "match.log",
                      openings=str(openings))


def _rate(reports: list[dict[str, Any]]) -> str:
    """The paper's rate (games won over games played) and our score (draws half)."""
    w = sum(r["wins"] for r in reports)
    d = sum(r["draws"] for r in reports)
    n = sum(r["wins"] + r["losses"] + r["draws"] for r in reports)
    return f"{w / n:.2f} ({(w + d / 2) / n:.2f})" if n else "-"


def run(scale: str, out: Path, progress: Callable[[str], None]) -> StudyResult:
    s = SCALES[scale]
    runs.require_fields(NAME, "adp", ["features", "hidden", "replay_batch", "buffer"])
    runs.require_specs(NAME, ["classical:depth=2,tss=0", "flat-mc:100"])
    training: dict[str, dict[str, Any]] = {}
    for arch in ("adp", "adp-er"):
        progress(f"training {arch}: {s.generations} generations of {s.games_per_gen} self-play games on "
                 f"{s.size}x{s.size}")
        recs = _train(arch, s, out)
        last = recs[-1] if recs else {}
        training[arch] = {"games": last.get("games", 0), "seconds": last.get("seconds", 0.0),
                          "mean_moves": last.get("mean_moves"), "black_score": last.get("black_score")}
    specs = _specs(s, out)
    openings = runs.openings_file(out / "openings.txt", s.size, s.openings, seed=1)
    reports: dict[tuple[str, str], dict[str, Any]] = {}
    pairs = [(a, b) for i, a in enumerate(AGENTS) for b in AGENTS[i + 1:]] + \
        [(a, ref) for a in AGENTS for ref in (*REFERENCES, UNTRAINED)]
    for k, (a, b) in enumerate(pairs, 1):
        progress(f"[{k}/{len(pairs)}] {a} against {b}, {2 * s.openings} games")
        reports[(a, b)] = _pairing(a, b, specs, s, out, openings)

    def against(a: str, b: str) -> dict[str, Any]:
        if (a, b) in reports:
            return reports[(a, b)]
        r = reports[(b, a)]
        return {"wins": r["losses"], "losses": r["wins"], "draws": r["draws"]}

    rows = []
    for a in AGENTS:
        cells = ["" if a == b else runs.wld(against(a, b)) for b in AGENTS]
        refs = [runs.wld(against(a, ref)) for ref in (*REFERENCES, UNTRAINED)]
        rows.append([a, *cells, *refs, _rate([against(a, r) for r in REFERENCES]),
                     _rate([against(a, b) for b in AGENTS if b != a])])
    ours = runs.table(["agent (W-L-D)", *[f"vs {b}" for b in AGENTS], *[f"vs {r}" for r in REFERENCES],
                       "vs the untrained critic",
                       "rate vs references (score)", "rate in the round robin (score)"], rows)
    ours += (f"\n\n{s.size}x{s.size} freestyle, {2 * s.openings} games a pairing (random two-stone openings, "
             f"each with both colours), no clock. ADP and ADP-ER: critics of 30 features and {s.hidden} hidden "
             f"units, each {training['adp']['games']} self-play games (ADP {training['adp']['seconds']:.0f} s, "
             f"ADP-ER {training['adp-er']['seconds']:.0f} s of training; ADP-ER replays its buffer of "
             f"{s.buffer} every {s.replay_batch} transitions), played one ply deep; HMCTS `flat-mc:"
             f"{s.flat_playouts}`; Minimax `classical:depth={s.depth},tss=0`, Minimax+TSS `classical:depth="
             f"{s.depth}`; the untrained critic: both critics' weights before their first game. Rate vs "
             f"references: over random, classical:1 and classical:2; rate: games won over games played, as the "
             f"paper's; in brackets draws count half.")
    data = {"scale": s.__dict__, "training": training, "specs": specs,
            "pairings": {f"{a} vs {b}": {k: r[k] for k in ("wins", "losses", "draws")} for (a, b), r in reports.items()}}
    return StudyResult(table=ours, paper_table=PAPER, scale=scale, data=data)


STUDY = Study(name=NAME, paper="the Fudan threat-space-search paper",
              summary="its Table III: ADP and ADP-ER critics trained by TD self-play, HMCTS, Minimax and "
                      "Minimax with TSS, round robin and against random, classical:1 and classical:2",
              run=run)
