"""The layers the trainer's architectures share: the per-cell policy and pooled value heads,
conv-BN, AlphaGo Zero's residual block and masked pooling.

Kept apart from train.models (the architecture factory) so that architectures in modules of
their own (train.paper_models, train.attention_models) and the factory that builds them do
not import each other.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .netbase import OFF_BOARD


def masked_pool(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean and max over the on-board cells.

    x: N,C,H,W; mask: N,1,H,W (1 on the board) -> N,2C"""
    area = mask.sum(dim=(2, 3)).clamp(min=1.0)                       # N,1
    mean = (x * mask).sum(dim=(2, 3)) / area                          # N,C
    high = (x * mask - (1.0 - mask) * OFF_BOARD).amax(dim=(2, 3))     # N,C
    return torch.cat([mean, high], dim=1)


def conv_bn(cin: int, cout: int, k: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm2d(cout))


class Heads(nn.Module):
    """Per-cell policy logits and a pooled win/draw/loss value from a trunk's features.

    x: N,C,H,W; mask: N,1,H,W -> (policy N,H,W, value N,P+1)"""

    def __init__(self, channels: int, players: int, head: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.policy = nn.Sequential(conv_bn(channels, head, 1), nn.ReLU(), nn.Conv2d(head, 1, 1))
        self.value_conv = nn.Sequential(conv_bn(channels, head, 1), nn.ReLU())
        self.value_mlp = nn.Sequential(nn.Linear(2 * head, hidden), nn.ReLU(), nn.Linear(hidden, players + 1))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        policy = self.policy(x).squeeze(1) - (1.0 - mask.squeeze(1)) * OFF_BOARD   # N,H,W
        value = self.value_mlp(masked_pool(self.value_conv(x), mask))             # N,P+1
        return policy, value


class ResBlock(nn.Module):
    """conv-BN-ReLU-conv-BN plus the input, then ReLU (AlphaGo Zero's block). x: N,C,H,W -> N,C,H,W"""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.a = conv_bn(c, c)
        self.b = conv_bn(c, c)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.a(x)) * mask
        return F.relu(x + self.b(y)) * mask
