"""mixF: the learned evaluator's net in torch (the line-shape net of engine.search.learned).

The first layer is three table lookups per cell (engine.search.shapes): the line shape of
each of the four directions, the pattern pair of each direction and the cell's class pair,
summed with a bias into F features. Everything after it is small on purpose, because the
alpha-beta asks it at every node:

    h      = relu(features)                          per cell, F
    value  = MLP_side(mean of h over the board)      F -> H -> win, loss, draw
    policy = h . p_side + b_side                     per cell

with one MLP and one policy vector for black to move and one for white to move.

The net computes its lookups from the input planes itself (the keys with integer
arithmetic on shifted copies of the board, then gathers), so it is exported to ONNX like
any other net and MCTS, matches and `gomoku info` take it unchanged. The numba evaluator
reads the same tables from the core's incremental keys instead; the tests check the two
agree. The rule's pattern table is a buffer of the model (saved in its checkpoint): a mixF
net is trained for one rule.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from gomoku.engine.game.patterns import pattern_tables
from gomoku.engine.game.rules import parse_rule
from gomoku.engine.search.shapes import (CLASS_TABLE, DIRECTIONS, KEY_POSITION, NUM_CLASS_ROWS, NUM_PATTERN_ROWS,
                                         NUM_SHAPES, OCCUPIED_ROW, SHAPE_OF_KEY16, SHAPES_PER_CENTRE)

from .netbase import OFF_BOARD, PolicyValueNet

#: cells of wall around the board in the shifted copies (one more than the keys reach, so
#: every slice ends before the copy does)
_PAD = 6


class _RowSum(torch.autograd.Function):
    """Sum of k table rows per item, with a backward of one index_add_ (about 4x faster on
    the CPU than embedding_bag's, which sorts the indices first)."""

    @staticmethod
    def forward(ctx, idx: torch.Tensor, table: torch.Tensor) -> torch.Tensor:  # noqa: ANN001
        ctx.save_for_backward(idx)
        ctx.rows = table.shape[0]
        return F.embedding_bag(idx, table, mode="sum")

    @staticmethod
    def backward(ctx, grad: torch.Tensor):  # noqa: ANN001, ANN205
        (idx,) = ctx.saved_tensors
        k = idx.shape[1]
        out = torch.zeros(ctx.rows, grad.shape[1], dtype=grad.dtype, device=grad.device)
        for c in range(k):
            out.index_add_(0, idx[:, c], grad)
        return None, out


class MixNet(PolicyValueNet):
    """mixF (F features per cell, value MLP of `hidden` units); see the module docstring."""

    # the buffers __init__ registers, declared so that reading them types as tensors
    rule_id: torch.Tensor
    patterns: torch.Tensor
    classes: torch.Tensor
    shape_of_key16: torch.Tensor

    def __init__(self, features: int, players: int = 2, rule: str = "freestyle", hidden: int = 32) -> None:
        super().__init__(f"mix{features}", players)
        if players != 2:
            raise ValueError("mix nets are for two players")
        self.features = features
        # the three tables as one (shapes, then pattern pairs, then class pairs): one lookup of
        # nine rows per cell, summed by embedding_bag, trains about twice as fast as three
        self.rows = nn.Embedding(NUM_SHAPES + NUM_PATTERN_ROWS + NUM_CLASS_ROWS, features)
        nn.init.normal_(self.rows.weight, std=0.05)
        self.bias = nn.Parameter(torch.zeros(features))
        self.w1 = nn.Parameter(torch.randn(2, hidden, features) / features ** 0.5)
        self.b1 = nn.Parameter(torch.zeros(2, hidden))
        self.w2 = nn.Parameter(torch.randn(2, 3, hidden) / hidden ** 0.5 * 0.1)
        self.b2 = nn.Parameter(torch.zeros(2, 3))
        self.wp = nn.Parameter(torch.randn(2, features) / features ** 0.5)
        self.bp = nn.Parameter(torch.zeros(2))
        self._lookup_cache: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.register_buffer("rule_id", torch.tensor([int(parse_rule(rule))], dtype=torch.int64))
        # lookup tables as small integer types (the ONNX file carries them): widened after each gather
        self.register_buffer("patterns", torch.from_numpy(pattern_tables(parse_rule(rule)).copy()), persistent=False)
        self.register_buffer("classes", torch.from_numpy(CLASS_TABLE.copy()), persistent=False)
        self.register_buffer("shape_of_key16", torch.from_numpy(SHAPE_OF_KEY16.astype(np.int32)), persistent=False)

    def set_rule(self, rule_id: int) -> None:
        """Point the pattern table at another rule (a checkpoint's rule_id, after loading)."""
        self.rule_id[0] = int(rule_id)
        self.patterns.copy_(torch.from_numpy(pattern_tables(int(rule_id)).copy()))

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):  # noqa: ANN001
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        self.set_rule(int(self.rule_id[0]))

    # -- the first layer ----------------------------------------------------------------------------
    def lookups(self, planes: torch.Tensor) -> torch.Tensor:
        """The nine rows of every cell in the joint table: N,H,W,9 (four shapes, four pattern
        pairs, the class pair). They depend on the stones only, so a batch that is trained on
        several times computes them once (the trainer runs a few steps per batch)."""
        for seen, rows in self._lookup_cache:
            if seen is planes:
                return rows
        rows = self._lookups(planes)
        if self.training or torch.is_grad_enabled():
            self._lookup_cache = (self._lookup_cache + [(planes, rows)])[-2:]   # a batch and the teacher's
        return rows

    def _lookups(self, planes: torch.Tensor) -> torch.Tensor:
        own, opp, first, mask = planes[:, 0], planes[:, 1], planes[:, 4], planes[:, 5]
        black = first * own + (1.0 - first) * opp
        white = own + opp - black
        digit = (black + 2.0 * white + 3.0 * (1.0 - mask)).long()          # N,H,W: 0 empty 1 b 2 w 3 wall
        h, w = digit.shape[1], digit.shape[2]
        padded = F.pad(digit, (_PAD, _PAD, _PAD, _PAD), value=3)
        centre = digit * (1 - (digit == 3).long())                          # off-board cells: 0
        shapes, pats, pb_dirs, pw_dirs = [], [], [], []
        for dx, dy in DIRECTIONS:
            key16 = torch.zeros_like(digit)
            key20 = torch.zeros_like(digit)
            for off, pos in KEY_POSITION.items():
                y0, x0 = _PAD + off * dy, _PAD + off * dx
                cell = padded[:, y0:y0 + h, x0:x0 + w]
                key20 = key20 + cell * (4 ** pos)
                if 1 <= pos <= 8:
                    key16 = key16 + cell * (4 ** (pos - 1))
            shapes.append(centre * SHAPES_PER_CENTRE + self.shape_of_key16[key16].long())
            p = self.patterns[key20].long()
            pb, pw = p % 16, p // 16
            pats.append(pb * 11 + pw)
            pb_dirs.append(pb)
            pw_dirs.append(pw)
        empty = digit == 0
        shape_idx = torch.stack(shapes, dim=1)
        pattern_idx = torch.where(empty.unsqueeze(1), torch.stack(pats, dim=1), OCCUPIED_ROW)
        cb = self.classes[((pb_dirs[0] * 11 + pb_dirs[1]) * 11 + pb_dirs[2]) * 11 + pb_dirs[3]].long()
        cw = self.classes[((pw_dirs[0] * 11 + pw_dirs[1]) * 11 + pw_dirs[2]) * 11 + pw_dirs[3]].long()
        class_idx = torch.where(empty, cb * 11 + cw, OCCUPIED_ROW)
        return torch.cat([shape_idx, pattern_idx + NUM_SHAPES,
                          class_idx.unsqueeze(1) + (NUM_SHAPES + NUM_PATTERN_ROWS)], dim=1).permute(0, 2, 3, 1)

    def accumulators(self, planes: torch.Tensor) -> torch.Tensor:
        """Each cell's summed rows plus the bias: N,H,W,F (what the numba evaluator keeps)."""
        rows = self.lookups(planes)                                           # N,H,W,9
        n, h, w, k = rows.shape
        if torch.onnx.is_in_onnx_export():
            acc = self.rows(rows).sum(dim=3)                                  # Gather: any runtime has it
        else:
            acc = _RowSum.apply(rows.reshape(n * h * w, k), self.rows.weight).reshape(n, h, w, -1)
        return acc + self.bias

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = planes[:, 5]                                                   # N,H,W
        side = planes[:, 4, 0, 0].long()                                      # 1: black to move
        hcell = F.relu(self.accumulators(planes)) * mask.unsqueeze(-1)        # N,H,W,F
        area = mask.sum(dim=(1, 2)).clamp(min=1.0).unsqueeze(-1)
        pooled = hcell.sum(dim=(1, 2)) / area                                 # N,F
        seat = 1 - side                                                       # 0 black to move, 1 white
        w1, b1, w2, b2 = self.w1[seat], self.b1[seat], self.w2[seat], self.b2[seat]
        hidden = F.relu(torch.einsum("nhf,nf->nh", w1, pooled) + b1)
        value = torch.einsum("noh,nh->no", w2, hidden) + b2                   # N,3
        policy = torch.einsum("nyxf,nf->nyx", hcell, self.wp[seat]) + self.bp[seat].view(-1, 1, 1)
        return policy - (1.0 - mask) * OFF_BOARD, value

    def evaluator_weights(self) -> dict[str, np.ndarray]:
        """The float tables and heads the numba evaluator loads (engine.search.learned)."""
        g = lambda t: t.detach().cpu().numpy().astype(np.float32)
        table = g(self.rows.weight)
        a, b = NUM_SHAPES, NUM_SHAPES + NUM_PATTERN_ROWS
        return {"shape": table[:a], "pattern": table[a:b], "klass": table[b:], "bias": g(self.bias),
                "w1": g(self.w1), "b1": g(self.b1),
                "w2": g(self.w2), "b2": g(self.b2), "wp": g(self.wp), "bp": g(self.bp)}
