"""Policy-value nets (torch), all fully convolutional so one net serves every board size.

Every model maps the input planes of docs/net-format.md to the two outputs the engine reads:

    planes: N,C,H,W  (C = P + 4; the last plane is the on-board mask)
    policy: N,H,W    one logit per cell (off-board cells of a padded batch pushed to -1e4)
    value:  N,P+1    outcome logits from the mover's view: mover wins, next player wins, ..., draw

Nothing depends on H or W: per-cell heads are 1x1 convolutions and the value head pools over
the on-board cells (mean and max) before its small MLP, so a net trained on 9x9 runs on 15x15.
A fully connected policy head, the usual AlphaZero-clone choice, would tie a net to one size.

Architectures (one table, named by size as KataGo names its nets):

    bXcY    ResNet, X residual blocks of Y channels (default b6c64)
    cnn3    plain CNN, 3x3 convolutions of 32, 64 and 128 channels (the Columbia AlphaZero Gomoku
            paper and the three-player Gobang paper)
    skip3   three 3x3 convolutions of 32 channels, layer 1's output added to layer 3's input (the
            AlphaGo Zero Gomoku re-implementation)
    ffnn    feed-forward baseline (the UCAS Gobang paper): each cell's 9x9 window of the planes through a
            two-layer MLP; no stacked spatial processing, so it sees only its own window
    tfmNcC  transformer (the three-player Gobang paper): a 3x3 stem, then N attention blocks of C channels over all cells
    mixF    the learned evaluator's line-shape net (train.mixnet): F features per cell from table
            lookups of line shapes and patterns, small heads; cheap enough for the alpha-beta
    cnn4, rnn4, resnet18
            the Columbia AlphaZero Gomoku paper's other nets (train.paper_models)
    casattN, hybridNcC, cnn3rN
            the three-player Gobang paper's Cascaded Attention and CNN + transformer block
            hybrids (train.attention_models), and its cnn3 + N residual blocks (train.paper_models)

Any of them but mixF takes an -fc suffix: the papers' fully connected heads with a tanh value
(train.paper_models.FCHeads), for one board size, which the name carries (`cnn4-fc8x8`; a bare
`cnn4-fc` is sized by build_model's `board`). docs/architectures.md has every net's layers and
parameter counts.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Optional

import torch
from torch import nn
import torch.nn.functional as F

from .attention_models import CascadedAttention, TransformerHybrid
from .layers import Heads, ResBlock, conv_bn, masked_pool  # noqa: F401 (re-exported)
from .mixnet import MixNet
from .netbase import OFF_BOARD, PolicyValueNet  # noqa: F401 (re-exported: the nets' common base)
from .paper_models import CNN3Res, CNN4, PlainCNN, RecurrentCNN, ResNet18, attach_fc_heads, trunk_channels


class ArchError(ValueError):
    """An architecture name this module does not know; the message is one line."""


@dataclass(frozen=True)
class ArchSpec:
    """A parsed architecture name. `fc`: the papers' fully connected heads with a tanh value
    (the `-fc` suffix), for one board, `size` (width, height), when the name gives it."""
    kind: str            # resnet | cnn | skip | ffnn | tfm | mix | cnn4 | rnn4 | resnet18 | casatt | hybrid | cnn3r
    blocks: int = 0
    channels: int = 0
    fc: bool = False
    size: Optional[tuple[int, int]] = None

    @property
    def base_name(self) -> str:
        """The name without the -fc suffix."""
        if self.kind == "resnet":
            return f"b{self.blocks}c{self.channels}"
        if self.kind in ("tfm", "hybrid"):
            return f"{self.kind}{self.blocks}c{self.channels}"
        if self.kind == "cnn3r":
            return f"cnn3r{self.blocks}"
        if self.kind == "casatt":
            return f"casatt{self.blocks}" + ("" if self.channels == 32 else f"c{self.channels}")
        if self.kind == "mix":
            return f"mix{self.channels}"
        return {"cnn": "cnn3", "skip": "skip3"}.get(self.kind, self.kind)

    @property
    def name(self) -> str:
        if not self.fc:
            return self.base_name
        return f"{self.base_name}-fc" + (f"{self.size[0]}x{self.size[1]}" if self.size else "")


ARCH_HELP = ("bXcY (ResNet, e.g. b6c64), cnn3, cnn4, rnn4, resnet18, skip3, ffnn, tfmNcC (e.g. tfm2c64), "
             "casattN (e.g. casatt4), hybridNcC (e.g. hybrid2c64), cnn3rN (e.g. cnn3r1) or mixF (e.g. mix32); "
             "-fc or -fcWxH after any but mixF for the papers' fully connected heads (one board size)")

_FIXED = {"cnn3": "cnn", "skip3": "skip", "ffnn": "ffnn", "cnn4": "cnn4", "rnn4": "rnn4", "resnet18": "resnet18"}


def _parse_base(name: str, text: str) -> ArchSpec:
    """The architecture of a name without its -fc suffix."""
    if text in _FIXED:
        return ArchSpec(_FIXED[text])
    m = re.fullmatch(r"mix(\d+)", text)
    if m:
        spec = ArchSpec("mix", 1, int(m.group(1)))
        if not 8 <= spec.channels <= 256 or spec.channels % 8:
            raise ArchError(f"architecture {name!r}: mix features must be a multiple of 8 in 8..256")
        return spec
    m = (re.fullmatch(r"(b)(\d+)c(\d+)", text) or re.fullmatch(r"(tfm|hybrid)(\d+)c(\d+)", text)
         or re.fullmatch(r"(hybrid|casatt)(\d*)(?:c(\d+))?", text) or re.fullmatch(r"(cnn3r)(\d+)()", text))
    if not m:
        raise ArchError(f"unknown architecture {name!r}: use {ARCH_HELP}")
    kind = {"b": "resnet"}.get(m.group(1), m.group(1))
    default = {"casatt": (4, 32), "hybrid": (1, 64), "cnn3r": (0, 128)}.get(kind, (0, 0))
    spec = ArchSpec(kind, int(m.group(2) or default[0]), int(m.group(3) or default[1]))
    if kind in ("tfm", "hybrid") and spec.channels % 16:
        raise ArchError(f"architecture {name!r}: transformer channels must be a multiple of 16")
    if kind == "casatt" and not (1 <= spec.blocks <= 5 and 8 <= spec.channels <= 256 and spec.channels % 8 == 0):
        raise ArchError(f"architecture {name!r}: Cascaded Attention has 1..5 stages and a first width "
                        "that is a multiple of 8 in 8..256")
    if not (1 <= spec.blocks <= 64 and 8 <= spec.channels <= 1024):
        raise ArchError(f"architecture {name!r}: blocks must be 1..64 and channels 8..1024")
    return spec


def parse_arch(name: str) -> ArchSpec:
    """'b6c64' -> ArchSpec('resnet', 6, 64); 'cnn4-fc8' -> ArchSpec('cnn4', fc=True, size=(8, 8));
    ArchError (one line) for anything else."""
    text = name.strip().lower()
    m = re.fullmatch(r"(.+)-fc(?:(\d+)(?:x(\d+))?)?", text)
    if not m:
        return _parse_base(name, text)
    spec = _parse_base(name, m.group(1))
    if spec.kind == "mix":
        raise ArchError(f"architecture {name!r}: line-shape nets have no fully connected heads")
    size = None
    if m.group(2):
        size = (int(m.group(2)), int(m.group(3) or m.group(2)))
        if not all(5 <= s <= 32 for s in size):
            raise ArchError(f"architecture {name!r}: the board of -fcWxH must be 5..32 a side")
    return replace(spec, fc=True, size=size)


def sized_arch(name: str, width: int, height: int) -> str:
    """The name a run of a width x height board trains: a bare -fc name gets the board
    ('cnn4-fc' -> 'cnn4-fc9x7'); ArchError when the name's own size is another board."""
    spec = parse_arch(name)
    if not spec.fc:
        return spec.name
    if spec.size is not None and spec.size != (width, height):
        raise ArchError(f"architecture {spec.name} is board-size specific ({spec.size[0]}x{spec.size[1]} only); "
                        f"this board is {width}x{height}")
    return replace(spec, size=(width, height)).name


# ----------------------------------------------------------------------------- ResNet

class ResNet(PolicyValueNet):
    """bXcY: 3x3 stem, X residual blocks of Y channels, Heads. Features are zeroed off the
    board after every block so a padded batch computes what an unpadded one would."""

    def __init__(self, blocks: int, channels: int, players: int = 2) -> None:
        super().__init__(f"b{blocks}c{channels}", players)
        self.stem = conv_bn(self.in_planes, channels)
        self.blocks = nn.ModuleList(ResBlock(channels) for _ in range(blocks))
        self.heads = Heads(channels, players, head=min(32, channels))

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(x)) * mask
        for block in self.blocks:
            x = block(x, mask)
        return x


# ----------------------------------------------------------------------------- the seeds' small CNNs

class SkipCNN(PolicyValueNet):
    """skip3: the AlphaGo Zero Gomoku re-implementation's net, three 3x3 convolutions of 32
    filters where the output of layer 1 is added to the input of layer 3; 1x1 policy and value
    convolutions."""

    def __init__(self, players: int = 2) -> None:
        super().__init__("skip3", players)
        self.c1 = nn.Conv2d(self.in_planes, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, 32, 3, padding=1)
        self.heads = Heads(32, players, head=2, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        a = F.relu(self.c1(x)) * mask
        b = F.relu(self.c2(a)) * mask
        return F.relu(self.c3(b + a)) * mask


class FFNN(PolicyValueNet):
    """ffnn: the feed-forward baseline. The UCAS Gobang paper's FFNN is dense over the whole board; here each
    cell's 9x9 window (wide enough to hold a five through the cell in every direction) is
    flattened into a 256-unit hidden layer and a 128-unit one, the same weights at every cell.
    As a 9x9 convolution followed by 1x1 ones it stays independent of the board size."""

    WINDOW = 9

    def __init__(self, players: int = 2, hidden: int = 256) -> None:
        super().__init__("ffnn", players)
        self.fc1 = nn.Conv2d(self.in_planes, hidden, self.WINDOW, padding=self.WINDOW // 2)
        self.fc2 = nn.Conv2d(hidden, 128, 1)
        self.heads = Heads(128, players, head=16, hidden=64)

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x)) * mask
        return F.relu(self.fc2(x)) * mask


# ----------------------------------------------------------------------------- transformer

class AttentionBlock(nn.Module):
    """Pre-norm multi-head self-attention over all cells, then a Mix-FFN (SegFormer: a 3x3
    depthwise convolution inside the MLP gives position information, so no positional
    encoding ties the net to one board size).

    x: N,C,H,W; mask: N,1,H,W -> N,C,H,W"""

    def __init__(self, c: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.GroupNorm(1, c)
        self.qkv = nn.Conv2d(c, 3 * c, 1)
        self.proj = nn.Conv2d(c, c, 1)
        self.norm2 = nn.GroupNorm(1, c)
        self.fc1 = nn.Conv2d(c, 2 * c, 1)
        self.dw = nn.Conv2d(2 * c, 2 * c, 3, padding=1, groups=2 * c)
        self.fc2 = nn.Conv2d(2 * c, c, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        d = c // self.heads
        q, k, v = self.qkv(self.norm1(x)).reshape(n, 3, self.heads, d, h * w).unbind(1)   # N,heads,d,HW
        att = torch.einsum("nhdi,nhdj->nhij", q, k) / math.sqrt(d)                    # N,heads,HW,HW
        att = att - (1.0 - mask.reshape(n, 1, 1, h * w)) * OFF_BOARD                   # no attention off board
        y = torch.einsum("nhij,nhdj->nhdi", att.softmax(dim=-1), v).reshape(n, c, h, w)
        x = (x + self.proj(y)) * mask
        y = self.fc2(F.gelu(self.dw(self.fc1(self.norm2(x)))))
        return (x + y) * mask


class Transformer(PolicyValueNet):
    """tfmNcC: a 3x3 convolutional stem (the local patterns Gomoku is made of), then N attention
    blocks of C channels (heads of 16..32 channels) so every cell can look at the whole board."""

    def __init__(self, blocks: int, channels: int, players: int = 2) -> None:
        super().__init__(f"tfm{blocks}c{channels}", players)
        heads = max(1, channels // 32) if channels % 32 == 0 else channels // 16
        self.stem = conv_bn(self.in_planes, channels)
        self.blocks = nn.ModuleList(AttentionBlock(channels, heads) for _ in range(blocks))
        self.heads = Heads(channels, players, head=min(32, channels))

    def trunk(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(x)) * mask
        for block in self.blocks:
            x = block(x, mask)
        return x


def build_model(arch: str, players: int = 2, rule: str = "freestyle",
                board: Optional[tuple[int, int]] = None) -> PolicyValueNet:
    """A freshly initialised net for an architecture name (see the module docstring). `rule`
    matters to mixF nets only, whose lookups are the rule's patterns (a checkpoint's weights
    bring their own rule). `board` (width, height) sizes the fully connected heads of an -fc
    name that does not carry its size; the net's name then does, so its checkpoint rebuilds it."""
    spec = parse_arch(arch)
    if not 2 <= players <= 4:
        raise ArchError(f"players={players}: nets are built for 2..4 players")
    if spec.kind == "mix":
        if players != 2:
            raise ArchError(f"{spec.name}: line-shape nets are for two players")
        return MixNet(spec.channels, players, rule)
    model = _build_trunk(spec, players)
    if not spec.fc:
        return model
    size = spec.size or board
    if size is None:
        raise ArchError(f"architecture {spec.name} is board-size specific: name the board, e.g. "
                        f"{spec.base_name}-fc15 or {spec.base_name}-fc9x7")
    if spec.size is not None and board is not None and tuple(board) != spec.size:
        raise ArchError(f"architecture {spec.name} is board-size specific; this board is {board[0]}x{board[1]}")
    return attach_fc_heads(model, trunk_channels(model), size[0], size[1], agz=spec.kind == "resnet")


def _build_trunk(spec: ArchSpec, players: int) -> PolicyValueNet:
    """The net of a parsed name with its per-cell heads."""
    simple = {"cnn": PlainCNN, "skip": SkipCNN, "ffnn": FFNN, "cnn4": CNN4, "rnn4": RecurrentCNN,
              "resnet18": ResNet18}
    if spec.kind in simple:
        return simple[spec.kind](players)
    if spec.kind == "resnet":
        return ResNet(spec.blocks, spec.channels, players)
    if spec.kind == "tfm":
        return Transformer(spec.blocks, spec.channels, players)
    if spec.kind == "cnn3r":
        return CNN3Res(spec.blocks, players)
    if spec.kind == "casatt":
        return CascadedAttention(spec.blocks, players, spec.channels)
    return TransformerHybrid(spec.blocks, spec.channels, players)


def is_learned_arch(arch: str) -> bool:
    """Whether an architecture is the alpha-beta's learned evaluator (mixF), not an MCTS net."""
    return parse_arch(arch).kind == "mix"


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
