"""Untrained nets as ONNX files: the `random-net:arch=ARCH,seed=N` opponent.

The AlphaGo Zero Gomoku re-implementation measured its nets against a *random net*: the same
search over a net nobody trained. Such a net is an architecture's initial weights under a torch
seed, exported with the trainer's own exporter (so it passes the same check as every trained
net) and kept in a cache folder keyed by everything that makes it, so the next match loads the
file and never needs torch.

The engine plays these files like any FILE.onnx. It never imports this room: it runs
`python -m gomoku.train.random_net` in a child process (engine.match.random_net), which keeps
torch out of the match's own processes as well.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

#: where the files are kept unless GOMOKU_RANDOM_NETS names a folder
CACHE_ENV = "GOMOKU_RANDOM_NETS"


def cache_dir() -> Path:
    """The folder of cached random nets: $GOMOKU_RANDOM_NETS, else gomoku-random-nets in the
    system's temporary folder (the files are remade in seconds when it is cleared)."""
    return Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "gomoku-random-nets")


def net_file_name(arch: str, seed: int, width: int, height: int, win_length: int, players: int,
                  rule: str) -> str:
    """The cache key: a net differs by architecture and seed, and its metadata by the game."""
    return f"{arch}-seed{seed}-{width}x{height}-k{win_length}-p{players}-{rule}.onnx"


def check_arch(arch: str, players: int = 2, board: Optional[tuple[int, int]] = None) -> str:
    """The architecture's name, for `board` when given (a board-size specific name then carries
    the board, and one made for another board is refused); ArchError (one line) for a name
    `train.models` cannot build into an MCTS net."""
    from . import models
    if models.is_learned_arch(arch):
        raise models.ArchError(f"architecture {arch!r} is the alpha-beta's learned evaluator, not a net for MCTS")
    if board is None:
        return models.parse_arch(arch).name
    name = models.sized_arch(arch, *board)
    models.build_model(name, players)
    return name


def make_random_net(arch: str, seed: int, width: int, height: int, win_length: int = 5, players: int = 2,
                    rule: str = "freestyle", folder: Optional[Path] = None) -> Path:
    """The ONNX file of `arch` initialised under torch seed `seed`, for this game; made (and
    checked against torch, then renamed into place) only when the cache lacks it."""
    folder = Path(folder) if folder is not None else cache_dir()
    path = folder / net_file_name(arch, seed, width, height, win_length, players, rule)
    if path.is_file():
        return path
    import torch

    from gomoku.engine.net.metadata import NetInfo

    from .export import export_model
    from .models import build_model
    name = check_arch(arch, players, (width, height))
    torch.manual_seed(seed)
    model = build_model(name, players, rule).eval()
    info = NetInfo(players=players, win_length=win_length, rules=[rule], board_sizes=sorted({width, height}),
                   arch=model.arch, provenance={"random_net": "untrained", "seed": seed})
    folder.mkdir(parents=True, exist_ok=True)
    export_model(model, path, info, check_sizes=[(width, height)])
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m gomoku.train.random_net ...`: prints the file's path, or one line on stderr
    and exit status 2 when the architecture cannot be built."""
    ap = argparse.ArgumentParser(prog="python -m gomoku.train.random_net", description=__doc__.splitlines()[0])
    ap.add_argument("--arch", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="only check that the architecture can be built")
    ap.add_argument("--width", type=int, default=15)
    ap.add_argument("--height", type=int, default=15)
    ap.add_argument("--win", type=int, default=5)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rule", default="freestyle")
    args = ap.parse_args(argv)
    cached = cache_dir() / net_file_name(args.arch, args.seed, args.width, args.height, args.win, args.players,
                                         args.rule)
    if not args.check and cached.is_file():
        print(cached)                 # made before: no torch to import (most of a child's time)
        return 0
    from .export import ExportError
    from .models import ArchError
    try:
        if args.check:
            check_arch(args.arch, args.players)
            return 0
        print(make_random_net(args.arch, args.seed, args.width, args.height, args.win, args.players, args.rule))
    except (ArchError, ExportError, ValueError) as exc:
        print(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
