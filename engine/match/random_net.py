"""The `random-net:arch=ARCH[,seed=N][,playouts=P]` player: an untrained net searched with MCTS.

The AlphaGo Zero Gomoku re-implementation measured its nets against a random net, the same
search over weights nobody trained. The net is made by the trainer (`gomoku.train.random_net`,
torch's initialisation under seed N, the trainer's ONNX exporter and its check) in a child
process, once per architecture, seed and game, and cached as an ONNX file; from then on it is
played exactly as a FILE.onnx spec is. The engine never imports the trainer, and no match
process loads torch: only the child does, and only when the cache lacks the file.

Without torch (the train extra) the spec is refused in one line when it is parsed.
"""
from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys
from typing import Any, Callable, Optional

from gomoku.engine.game.rules import Rule
from gomoku.engine.base.limits import Limit, PlayResult

#: seconds a child has to build, export and check one net (torch's import takes most of it)
MAKE_TIMEOUT = 300.0
#: spec options that name the net rather than its search
NET_KEYS = ("arch", "seed")


class RandomNetError(ValueError):
    """A random net that cannot be made; the message is one line."""


def torch_missing() -> Optional[str]:
    """One line when torch is not installed (the spec's net cannot be made), else None."""
    if importlib.util.find_spec("torch") is None:
        return "random-net needs torch, which comes with the train extra (pip install -e '.[train]')"
    return None


def _trainer(args: list[str]) -> str:
    """Run `python -m gomoku.train.random_net ARGS`; its printed line, or RandomNetError with
    the child's own one line."""
    try:
        out = subprocess.run([sys.executable, "-m", "gomoku.train.random_net", *args], capture_output=True,
                             text=True, timeout=MAKE_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise RandomNetError(f"random-net {' '.join(args)}: not made within {MAKE_TIMEOUT:g} s") from None
    if out.returncode != 0:
        lines = [ln for ln in out.stderr.strip().splitlines() if ln.strip()]
        raise RandomNetError(lines[-1] if lines else f"random-net {' '.join(args)}: exit status {out.returncode}")
    lines = out.stdout.strip().splitlines()
    return lines[-1] if lines else ""


@functools.lru_cache(maxsize=64)
def check_arch(arch: str, players: int = 2) -> None:
    """RandomNetError (one line) for an architecture the trainer cannot build into an MCTS net."""
    _trainer(["--arch", arch, "--check", "--players", str(players)])


def net_path(arch: str, seed: int, width: int, height: int, win_length: int, players: int, rule: Rule) -> str:
    """The cached ONNX file of this random net for this game, made first when missing."""
    return _trainer(["--arch", arch, "--seed", str(seed), "--width", str(width), "--height", str(height),
                     "--win", str(win_length), "--players", str(players), "--rule", Rule(rule).label])


class RandomNetPlayer:
    """An MCTS player over a random net made for each game's board on its first game there.

    `make_net_player(path)` builds the FILE.onnx player for a net file (engine.match.players), so
    the search is configured exactly as that spec's would be."""

    def __init__(self, arch: str, seed: int, make_net_player: Callable[[str], Any], name: str,
                 win_length: int = 5, players: int = 2) -> None:
        self.name = name
        self.arch, self.net_seed = arch, seed
        self.win_length, self.players = win_length, players
        self._net_player = make_net_player
        self._inner: Any = None
        self._game: Optional[tuple[int, int, Rule]] = None
        self._search_seed: Optional[int] = None

    @property
    def searcher(self) -> str:
        return f"random {self.arch} (seed {self.net_seed}) + MCTS"

    def reseed(self, seed: int) -> None:
        self._search_seed = seed
        if self._inner is not None:
            self._inner.reseed(seed)

    def new_game(self, width: int, height: int, rule: Rule) -> None:
        key = (width, height, Rule(rule))
        if self._inner is None or self._game != key:
            if self._inner is not None:
                self._inner.close()
            path = net_path(self.arch, self.net_seed, width, height, self.win_length, self.players, key[2])
            self._inner = self._net_player(path)
            self._inner.name = self.name
            if self._search_seed is not None:
                self._inner.reseed(self._search_seed)
            self._game = key
        self._inner.new_game(width, height, rule)

    def play(self, board: Any, limit: Limit, stop: Any = None) -> PlayResult:
        if self._inner is None:
            self.new_game(board.width, board.height, Rule(board.rule))
        return self._inner.play(board, limit, stop=stop)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()
        self._inner = None
        self._game = None
