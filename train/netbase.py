"""What every policy-value net of the trainer shares: the base class and the off-board logit.

Kept apart from train.models (the architecture factory) so that an architecture in a module of
its own (train.mixnet) and the factory that builds it do not import each other.
"""
from __future__ import annotations

import torch
from torch import nn

OFF_BOARD = 1.0e4   # subtracted from logits outside the board; finite so ONNX and fp16 stay sane


class PolicyValueNet(nn.Module):
    """Base: a trunk (subclass) plus Heads. forward(planes N,C,H,W) -> (policy N,H,W, value N,P+1)."""

    arch: str
    players: int
    heads: nn.Module
    # set by paper_models.attach_fc_heads only (readers use getattr with a default)
    fixed_size: tuple[int, int]
    value_kind: str

    def __init__(self, arch: str, players: int) -> None:
        super().__init__()
        self.arch = arch
        self.players = players
        self.in_planes = players + 4

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = planes[:, -1:]                       # N,1,H,W: the `mask` plane is always last
        return self.heads(self.trunk(planes, mask), mask)
