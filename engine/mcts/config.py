"""How a tree search is set up (`MCTSConfig`), apart from the search itself.

numba-free and numpy-free, as engine.search.params is for the alpha-beta: a player spec
(`pure-mcts:500,c_puct=3`) takes its defaults from these fields in the parent process, and
`gomoku match --help` shows them, without loading the jitted tree (engine.mcts.tree).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: the selection rules the tree knows (engine.mcts.search.SELECT_RULES maps them to the tree's)
SELECT_NAMES = ("puct", "ucb1", "plain", "flat")
#: memory for one player's tree when the caller gives no budget
DEFAULT_TREE_BYTES = 64 << 20
#: a warm-up tree: room for its few playouts on 9x9 and no more
WARM_TREE_BYTES = 1 << 20


@dataclass
class MCTSConfig:
    """How the tree is searched. Defaults suit play with a net; `pure()` gives the seeds'
    rollout MCTS (uniform priors, c_puct 5, as junxiaosong/AlphaZero_Gomoku), and
    `pure(tactics=False)` that repository's mcts_pure itself: no exact win, block or proof in
    the tree (tree.P_BARE) and a new tree for every move, as its player starts one."""
    playouts: int = 800
    c_puct: float = 2.5
    select: str = "puct"
    fpu: float = 0.25            # unvisited child: the parent's value minus this (PUCT)
    batch: int = 16              # leaves collected per net call (one tree)
    radius: int = 0              # children only within this many cells of a stone; 0 all
    dirichlet_alpha: float = 0.0  # 0: no root noise (play); self-play sets it
    dirichlet_eps: float = 0.25
    temperature: float = 0.0     # 0: most visits; 1: proportional to visits
    move_noise: float = 0.0      # eps of Dirichlet noise mixed into the move distribution (the UCAS Gobang paper); 0 off
    move_noise_alpha: float = 0.3
    draw_value: float = 0.0      # what a draw is worth to each side (-1..1); below 0 plays for a win
    tree_bytes: int = DEFAULT_TREE_BYTES
    tactics: bool = True         # False: the tree knows the rules only, and is new at every move

    @classmethod
    def pure(cls, playouts: int = 1000, **kw: Any) -> "MCTSConfig":
        base: dict[str, Any] = dict(playouts=playouts, c_puct=5.0, fpu=0.0, batch=1)
        base.update(kw)
        return cls(**base)

    def check(self) -> None:
        if self.select not in SELECT_NAMES:
            raise ValueError(f"unknown selection rule {self.select!r} (use {', '.join(SELECT_NAMES)})")
        if self.playouts < 1:
            raise ValueError("playouts must be at least 1")
        if self.c_puct <= 0:
            raise ValueError("c_puct must be positive")
        if not 0 <= self.radius <= 5:
            raise ValueError("radius must be 0..5")
        if not 0 <= self.move_noise <= 1:
            raise ValueError("move_noise must be 0..1")
        if not -1 <= self.draw_value <= 1:
            raise ValueError("draw_value must be -1..1")
        if self.move_noise > 0 and self.move_noise_alpha <= 0:
            raise ValueError("move_noise_alpha must be positive")
