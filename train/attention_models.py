"""The three-player Gobang paper's attention nets: Cascaded Attention and the CNN + Transformer
block hybrids.

Both are built from SegFormer's transformer block, as the paper's code is (its authors'
Alpha_Attention_Multiplayer_Gobang, mix_transformer*.py, where the layer sizes below come from;
the paper itself gives only the topology):

    block   x + Attention(LN(x)), then x + MixFFN(LN(x)); the attention's keys and values come
            from the map shrunk by a strided convolution of `sr` (spatial reduction), the MixFFN
            is fc, 3x3 depthwise convolution, GELU, fc: the depthwise convolution is the
            position encoding, so no table of positions ties the net to one board size

    casattN Cascaded Attention, N stages: a 3x3 convolution (stride 1 first, then stride 2:
            the board halves, rounded up) and one block each, of 32, 64, 128, 128 channels
            (heads 2, 2, 2, 1; MLP ratios 2, 2, 1, 1; spatial reduction 4, 2, 1, 1); every
            stage's output is upsampled (bilinear) back to the board and the maps concatenated
            before the heads (the policy decoder of the paper's Fig. 6). The paper has 3 and 4.
    hybridNcC "Transformer Blk N": junxiaosong's CNN (3x3 convolutions of C/2, C and 2C
            filters, C = 64 in the paper) with N blocks of C channels (2 heads, MLP ratio 1,
            spatial reduction 4) between its second and third convolutions.

Strided convolutions and upsampling to the board's own size keep them fully convolutional on
any board, odd and non-square included. Off-board cells (a padded batch) are zeroed after every
stage and masked out of the attention's keys.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .layers import Heads
from .netbase import OFF_BOARD, PolicyValueNet


class SRAttention(nn.Module):
    """Multi-head self-attention whose keys and values come from the map shrunk `sr` times by a
    strided convolution (SegFormer's efficient attention). The map is padded up to a multiple of
    `sr` first, so every cell reaches a key on any size (the paper's code floors, dropping the
    last rows of a board that is not a multiple).

    x: N,L,C tokens of an H x W map; mask: N,1,H,W -> N,L,C"""

    def __init__(self, dim: int, heads: int, sr: int) -> None:
        super().__init__()
        self.heads, self.sr = heads, sr
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * dim, bias=False)
        self.proj = nn.Linear(dim, dim)
        if sr > 1:
            self.reduce = nn.Conv2d(dim, dim, sr, stride=sr)
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, h: int, w: int, mask: torch.Tensor) -> torch.Tensor:
        n, length, c = x.shape
        d = c // self.heads
        q = self.q(x).reshape(n, length, self.heads, d).transpose(1, 2)            # N,heads,L,d
        if self.sr > 1:
            pad = (0, self.sr - 1, 0, self.sr - 1)
            grid = F.pad(x.transpose(1, 2).reshape(n, c, h, w), pad)
            src = self.norm(self.reduce(grid).flatten(2).transpose(1, 2))            # N,Lk,C
            keys_on = F.max_pool2d(F.pad(mask, pad), self.sr, self.sr)              # N,1,h',w'
        else:
            src, keys_on = x, mask
        k, v = self.kv(src).reshape(n, -1, 2, self.heads, d).permute(2, 0, 3, 1, 4)  # 2 x N,heads,Lk,d
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        att = att - (1.0 - keys_on.flatten(2).unsqueeze(1)) * OFF_BOARD             # no attention off board
        y = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(n, length, c)
        return self.proj(y)


class SegBlock(nn.Module):
    """SegFormer's transformer block on a map. x: N,C,H,W; mask: N,1,H,W -> N,C,H,W"""

    def __init__(self, dim: int, heads: int, mlp_ratio: float, sr: int) -> None:
        super().__init__()
        hidden = int(dim * mlp_ratio)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SRAttention(dim, heads, sr)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.dw = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        on = mask.flatten(2).transpose(1, 2)                                        # N,L,1
        t = x.flatten(2).transpose(1, 2)                                            # N,L,C
        # normalised off-board tokens are the norm's bias, not zero: zeroed again before the
        # convolutions read them (as a board's own edge gives zero padding)
        t = (t + self.attn(self.norm1(t) * on, h, w, mask)) * on
        y = self.fc1(self.norm2(t)) * on
        y = self.dw(y.transpose(1, 2).reshape(n, -1, h, w)).flatten(2).transpose(1, 2)
        t = (t + self.fc2(F.gelu(y))) * on
        return t.transpose(1, 2).reshape(n, c, h, w)


class CascadedAttention(PolicyValueNet):
    """casattN (and casattNcC: C channels in the first stage instead of 32, the others scaled
    alike); see the module docstring. Unlike the other nets, a board padded inside a bigger
    batch does not compute what it computes alone: the upsampling blends the smaller maps over
    the padded size (nothing pads batches today)."""

    DIMS = (1, 2, 4, 4, 4)          # x the first stage's channels
    HEADS = (2, 2, 2, 1, 1)
    MLP = (2, 2, 1, 1, 1)
    SR = (4, 2, 1, 1, 1)

    def __init__(self, stages: int, players: int = 2, base: int = 32) -> None:
        super().__init__(f"casatt{stages}" if base == 32 else f"casatt{stages}c{base}", players)
        dims = [base * m for m in self.DIMS[:stages]]
        ins = [self.in_planes] + dims[:-1]
        self.embeds = nn.ModuleList(nn.Conv2d(a, b, 3, stride=1 if i == 0 else 2, padding=1)
                                    for i, (a, b) in enumerate(zip(ins, dims)))
        self.blocks = nn.ModuleList(SegBlock(d, self.HEADS[i], self.MLP[i], self.SR[i]) for i, d in enumerate(dims))
        self.heads = Heads(sum(dims), players, head=4, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        size = x.shape[-2:]
        outs, m = [], mask
        for i, (embed, block) in enumerate(zip(self.embeds, self.blocks)):
            if i > 0:
                m = m[:, :, ::2, ::2]        # the cell at a stride-2 window's centre
            x = block(embed(x) * m, m)
            up = x if i == 0 else F.interpolate(x, size=size, mode="bilinear", align_corners=False)
            outs.append(up * mask)
        return torch.cat(outs[::-1], dim=1)   # deepest first, as the paper's decoder concatenates


class TransformerHybrid(PolicyValueNet):
    """hybridNcC: 3x3 convolutions of C/2 and C filters (ReLU), N transformer blocks of C
    channels, a 3x3 convolution of 2C (ReLU), then the heads; see the module docstring."""

    def __init__(self, blocks: int, channels: int = 64, players: int = 2) -> None:
        super().__init__(f"hybrid{blocks}c{channels}", players)
        self.c1 = nn.Conv2d(self.in_planes, channels // 2, 3, padding=1)
        self.c2 = nn.Conv2d(channels // 2, channels, 3, padding=1)
        self.blocks = nn.ModuleList(SegBlock(channels, 2, 1.0, 4) for _ in range(blocks))
        self.c3 = nn.Conv2d(channels, 2 * channels, 3, padding=1)
        self.heads = Heads(2 * channels, players, head=4, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c1(x)) * mask
        x = F.relu(self.c2(x)) * mask
        for block in self.blocks:
            x = block(x, mask)
        return F.relu(self.c3(x)) * mask
