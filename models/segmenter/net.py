"""The segmenter network: a tiny UNet of depthwise-separable convolutions.

Input ``image``: (N, 3, H, W) float32 RGB in 0..1, H and W multiples of 16. Output
``probabilities``: (N, C, H, W) float32 softmax over the classes of
:data:`models.segmenter.dataset.CLASS_NAMES`, at the input's resolution.

Encoder at 1/2, 1/4, 1/8, 1/16 of the input (16, 24, 48, 96 channels, the deepest with dilated
blocks for context), decoder of bilinear up-sampling + skip concatenation + separable blocks, and
a full-resolution shallow branch (one 3x3 convolution) so that the 1-3 px wide string keeps its
sharp edges.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

WIDTHS = (16, 24, 48, 96)


class ConvBNReLU(nn.Sequential):
    def __init__(
        self,
        cin: int,
        cout: int,
        kernel: int = 3,
        stride: int = 1,
        groups: int = 1,
        dilation: int = 1,
    ) -> None:
        padding = dilation * (kernel // 2)
        super().__init__(
            nn.Conv2d(
                cin, cout, kernel, stride, padding, dilation=dilation, groups=groups, bias=False
            ),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class SeparableBlock(nn.Module):
    """Depthwise 3x3 (with ``stride``/``dilation``) then pointwise 1x1; a residual connection
    when the shape is kept."""

    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1) -> None:
        super().__init__()
        self.depthwise = ConvBNReLU(cin, cin, 3, stride, groups=cin, dilation=dilation)
        self.pointwise = ConvBNReLU(cin, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pointwise(self.depthwise(x))
        return x + y if self.residual else y


class Segmenter(nn.Module):
    def __init__(self, n_classes: int) -> None:
        super().__init__()
        w1, w2, w3, w4 = WIDTHS
        self.stem = ConvBNReLU(3, w1, stride=2)
        self.enc2 = nn.Sequential(SeparableBlock(w1, w2, stride=2), SeparableBlock(w2, w2))
        self.enc3 = nn.Sequential(SeparableBlock(w2, w3, stride=2), SeparableBlock(w3, w3))
        self.enc4 = nn.Sequential(
            SeparableBlock(w3, w4, stride=2),
            SeparableBlock(w4, w4, dilation=2),
            SeparableBlock(w4, w4, dilation=4),
            SeparableBlock(w4, w4),
        )
        self.dec3 = SeparableBlock(w4 + w3, w3)
        self.dec2 = SeparableBlock(w3 + w2, w2)
        self.dec1 = SeparableBlock(w2 + w1, w1)
        self.head = nn.Conv2d(w1, n_classes, 1)
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1))
        self.register_buffer("scale", torch.tensor([4.0, 4.0, 4.0]).view(1, 3, 1, 1))

    def logits(self, image: torch.Tensor) -> torch.Tensor:
        x = (image - self.mean) * self.scale
        s1 = self.stem(x)
        s2 = self.enc2(s1)
        s3 = self.enc3(s2)
        s4 = self.enc4(s3)
        y = self.dec3(torch.cat([_up(s4, s3), s3], dim=1))
        y = self.dec2(torch.cat([_up(y, s2), s2], dim=1))
        y = self.dec1(torch.cat([_up(y, s1), s1], dim=1))
        return F.interpolate(
            self.head(y), size=image.shape[-2:], mode="bilinear", align_corners=False
        )

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(image), dim=1)


def _up(x: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x, size=like.shape[-2:], mode="bilinear", align_corners=False)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
