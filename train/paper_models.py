"""The Columbia AlphaZero Gomoku paper's nets, and the papers' fully connected heads (`-fc`).

The Columbia paper compares its 3-layer CNN (cnn3, junxiaosong's trunk) with three others:

    cnn4      "adds one more convolutional layer at the beginning with 16 filters": 16, 32, 64, 128
    rnn4      "concatenates the output of the second convolutional layer with the input before
              going to the third": 32, 64, [planes], 64, 128 (see RecurrentCNN for the width the
              paper leaves out)
    resnet18  ResNet-18 "less complex than the original", every layer padded to keep the board
              size: a 3x3 stem of 64, then 2+2+2+2 basic blocks of 64, 128, 256, 512 channels,
              stride 1 throughout (no 7x7 stride-2 stem, no max-pool: an 8x8 board has no room)

By default they end in the project's per-cell heads (train.models.Heads) and stay fully
convolutional. The papers' own heads are fully connected with a tanh value (the Columbia paper,
junxiaosong's AlphaZero_Gomoku, the three-player Gobang paper's code and, with AlphaGo Zero's
sizes, the UCAS Gobang paper); `FCHeads` are those, selected by the `-fc` suffix. They tie a net
to one board size, and their scalar value is mapped onto the outcome logits every consumer
reads (docs/net-format.md), so nothing downstream changes: for two players
softmax(value) = ((1+v)/2, (1-v)/2, 0) = (win, loss, draw).
"""
from __future__ import annotations

from typing import Any, Optional

import torch
import torch.nn.functional as F
from torch import nn

from .layers import Heads, ResBlock, conv_bn
from .netbase import OFF_BOARD, PolicyValueNet

#: probability floor of the outcome logits made from a tanh value (log 0 is not a logit)
_FLOOR = 1e-6


class SizeError(ValueError):
    """A board-size specific (-fc) net asked to evaluate another size; one line."""


# ----------------------------------------------------------------------------- the tanh value

def tanh_to_outcome_logits(v: torch.Tensor, players: int) -> torch.Tensor:
    """A tanh value v (N,) -> outcome logits (N, P+1) whose softmax is: the mover wins with
    (1+v)/2, each other player with (1-v)/(2(P-1)), a draw never (a floor of 1e-6), which for two
    players is exactly the papers' reading of v as the mover's expected result."""
    win = (1.0 + v) / 2.0
    other = (1.0 - v) / (2.0 * (players - 1))
    probs = torch.stack([win] + [other] * (players - 1) + [torch.zeros_like(v)], dim=1)
    return torch.log(probs.clamp(min=_FLOOR))


def tanh_value_loss(vlogits: torch.Tensor, target: torch.Tensor, players: int) -> torch.Tensor:
    """The papers' value loss, MSE between v and the outcome z (+1 the mover won, -1 another
    player did, 0 a draw), for nets whose outcome logits come from tanh_to_outcome_logits.

    v is read back from the logits (p_win - p_others, equal to v up to the 1e-6 floor), so the
    trainer needs no second output. `target` is a class index per position or a probability row
    (soft targets from scored positions), z then being its expected result."""
    p = vlogits.softmax(dim=1)
    v = p[:, 0] - p[:, 1:players].sum(dim=1)
    t = F.one_hot(target, players + 1).to(p.dtype) if target.dim() == 1 else target.to(p.dtype)
    z = t[:, 0] - t[:, 1:players].sum(dim=1)
    return F.mse_loss(v, z)


class FCHeads(nn.Module):
    """The papers' heads: policy = F 1x1 filters, ReLU, a fully connected layer to H*W logits;
    value = G 1x1 filters, ReLU, a fully connected layer of `hidden` units, ReLU, one unit,
    tanh. junxiaosong / the Columbia paper: F=4, G=2, hidden 64; AlphaGo Zero / the UCAS Gobang
    paper: F=2, G=1, hidden 256 with batch norm after the 1x1 convolutions (its policy's pass
    move is left out: Gomoku has none).

    x: N,C,H,W; mask: N,1,H,W -> (policy N,H,W, value logits N,P+1); H, W must be the size the
    heads were built for (SizeError otherwise)."""

    def __init__(self, channels: int, players: int, width: int, height: int, policy_filters: int = 4,
                 value_filters: int = 2, hidden: int = 64, norm: bool = False) -> None:
        super().__init__()
        self.players = players
        self.size = (width, height)
        cells = width * height

        def reduce(filters: int) -> nn.Module:
            if norm:
                return nn.Sequential(nn.Conv2d(channels, filters, 1, bias=False), nn.BatchNorm2d(filters), nn.ReLU())
            return nn.Sequential(nn.Conv2d(channels, filters, 1), nn.ReLU())

        self.policy_conv = reduce(policy_filters)
        self.policy_fc = nn.Linear(policy_filters * cells, cells)
        self.value_conv = reduce(value_filters)
        self.value_fc = nn.Sequential(nn.Linear(value_filters * cells, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        width, height = self.size
        if not torch.onnx.is_in_onnx_export() and tuple(x.shape[-2:]) != (height, width):
            raise SizeError(f"a board-size specific net ({width}x{height} only) cannot evaluate "
                            f"{x.shape[-1]}x{x.shape[-2]}")
        policy = self.policy_fc(self.policy_conv(x).flatten(1)).reshape(-1, height, width)
        policy = policy - (1.0 - mask.squeeze(1)) * OFF_BOARD
        v = torch.tanh(self.value_fc(self.value_conv(x).flatten(1))).squeeze(1)
        return policy, tanh_to_outcome_logits(v, self.players)


def attach_fc_heads(model: PolicyValueNet, channels: int, width: int, height: int, agz: bool = False) -> PolicyValueNet:
    """Replace a net's per-cell heads by FCHeads for one board size and mark it: `fixed_size`
    (the export writes it into the metadata) and `value_kind` (the trainer's value loss reads
    it). `agz` picks AlphaGo Zero's head sizes (for the ResNets, as the UCAS Gobang paper)."""
    sizes: dict[str, Any] = dict(policy_filters=2, value_filters=1, hidden=256, norm=True) if agz else {}
    model.heads = FCHeads(channels, model.players, width, height, **sizes)
    model.arch = f"{model.arch}-fc{width}x{height}"
    model.fixed_size = (width, height)
    model.value_kind = "tanh"
    return model


def trunk_channels(model: PolicyValueNet) -> int:
    """The channels a net's per-cell heads read (what FCHeads replacing them must read)."""
    conv = model.heads.get_submodule("value_conv.0.0")     # Heads.value_conv's conv_bn's Conv2d
    assert isinstance(conv, nn.Conv2d)
    return int(conv.in_channels)


# ----------------------------------------------------------------------------- the Columbia paper's trunks

class PlainCNN(PolicyValueNet):
    """cnn3: 3x3 convolutions of 32, 64 and 128 channels with ReLU (junxiaosong's trunk, used by
    the Columbia AlphaZero Gomoku paper and the three-player Gobang paper), with per-cell heads
    instead of its fully connected ones. The papers' deeper plain nets add layers to it
    (subclasses set WIDTHS)."""

    WIDTHS: tuple[int, ...] = (32, 64, 128)

    def __init__(self, players: int = 2, arch: str = "cnn3", res_blocks: int = 0) -> None:
        super().__init__(arch, players)
        ins = (self.in_planes,) + self.WIDTHS[:-1]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, padding=1) for a, b in zip(ins, self.WIDTHS))
        self.blocks = nn.ModuleList(ResBlock(self.WIDTHS[-1]) for _ in range(res_blocks))   # cnn3rN's
        self.heads = Heads(self.WIDTHS[-1], players, head=4, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = F.relu(conv(x)) * mask
        for block in self.blocks:
            x = block(x, mask)
        return x


class CNN4(PlainCNN):
    """cnn4: cnn3 with one more 3x3 convolution of 16 filters in front (16, 32, 64, 128, ReLU,
    no batch norm, as cnn3)."""

    WIDTHS = (16, 32, 64, 128)

    def __init__(self, players: int = 2) -> None:
        super().__init__(players, "cnn4")


class RecurrentCNN(PolicyValueNet):
    """rnn4: cnn3's 32 and 64 filters, then the input planes concatenated to the second layer's
    output, then the added layer and cnn3's 128. The paper calls it recurrent for this re-reading
    of the input; it gives neither the added layer's width nor its place beyond "after the
    second", so it has 64 filters (the second layer's) and is the one that reads the
    concatenation."""

    def __init__(self, players: int = 2, extra: int = 64) -> None:
        super().__init__("rnn4", players)
        self.c1 = nn.Conv2d(self.in_planes, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1)
        self.c3 = nn.Conv2d(64 + self.in_planes, extra, 3, padding=1)
        self.c4 = nn.Conv2d(extra, 128, 3, padding=1)
        self.heads = Heads(128, players, head=4, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        a = F.relu(self.c1(x)) * mask
        b = F.relu(self.c2(a)) * mask
        c = F.relu(self.c3(torch.cat([b, x], dim=1))) * mask
        return F.relu(self.c4(c)) * mask


class BasicBlock(nn.Module):
    """ResNet-18's block: conv-BN-ReLU-conv-BN plus the input (a 1x1 conv-BN projection where
    the width changes), ReLU. Stride 1: the board keeps its size. x: N,Cin,H,W -> N,Cout,H,W"""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.a = conv_bn(cin, cout)
        self.b = conv_bn(cout, cout)
        self.short: Optional[nn.Module] = conv_bn(cin, cout, 1) if cin != cout else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.a(x)) * mask
        skip = x if self.short is None else self.short(x)
        return F.relu(skip + self.b(y)) * mask


class ResNet18(PolicyValueNet):
    """resnet18: a 3x3 stem of 64 (conv-BN-ReLU), four stages of two basic blocks of 64, 128,
    256 and 512 channels, all stride 1: 17 convolutions and the heads' fully connected layer
    make the 18 layers."""

    WIDTHS = (64, 128, 256, 512)

    def __init__(self, players: int = 2) -> None:
        super().__init__("resnet18", players)
        self.stem = conv_bn(self.in_planes, 64)
        blocks, cin = [], 64
        for width in self.WIDTHS:
            blocks += [BasicBlock(cin, width), BasicBlock(width, width)]
            cin = width
        self.blocks = nn.ModuleList(blocks)
        self.heads = Heads(512, players, head=32, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(x)) * mask
        for block in self.blocks:
            x = block(x, mask)
        return x


class CNN3Res(PlainCNN):
    """cnn3rN: the three-player Gobang paper's "Res Blk N", cnn3 (32, 64, 128, ReLU) followed by
    N residual blocks of 128 channels (AlphaGo Zero's block, train.models.ResBlock). Its authors'
    block applies its second convolution to the block's input, so the first one's output is
    never used; this is the block it was meant to be, with the same weights to learn (less the
    convolutions' biases: 256 parameters a block)."""

    def __init__(self, blocks: int, players: int = 2) -> None:
        super().__init__(players, f"cnn3r{blocks}", res_blocks=blocks)
