"""The catalogue's item art, loaded once per process and pre-scaled for fast warping.

Each art PNG (RGBA, ``art_px_per_mm`` px/mm, covering the item's bounding square) is kept as a
pyramid of halvings so that a warp to the photo samples a level at most about twice as fine as
the target, which avoids aliasing without a per-photo resize.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind


@dataclass(frozen=True)
class ArtLevel:
    """One pyramid level: ``rgba`` (H, W, 4) float32 (RGB 0..255, alpha 0..1) at ``px_per_mm``.

    Pixel (i, j) has its centre at local mm ``x = (i + 0.5) / px_per_mm - size_mm / 2`` (same
    for y), as in the catalogue's art convention.
    """

    rgba: np.ndarray
    px_per_mm: float
    size_mm: float

    def art_to_local(self) -> np.ndarray:
        """3x3 affine: art pixel (column, row) -> item local mm (pixel centres at integers)."""
        s = 1.0 / self.px_per_mm
        offset = 0.5 * s - self.size_mm / 2
        return np.array([[s, 0.0, offset], [0.0, s, offset], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class ItemArt:
    """All pyramid levels of one item side, finest first, and the colour of its cut edge."""

    levels: tuple[ArtLevel, ...]
    edge_rgb: np.ndarray  # (3,) float32, colour of the item's side (thickness)

    def level_for(self, px_per_mm: float) -> ArtLevel:
        """The coarsest level that is still at least ``px_per_mm`` fine (or the finest one)."""
        chosen = self.levels[0]
        for level in self.levels:
            if level.px_per_mm >= px_per_mm:
                chosen = level
        return chosen


def item_art(catalogue: Catalogue, kind: ItemKind, color: str, type_name: str | None, face: Face):
    """The :class:`ItemArt` of an item side (cached per process)."""
    path = catalogue.art_path(kind, color, type_name, face)
    size_mm = catalogue.item_shape(kind, type_name).size_mm
    return _load_art(path, catalogue.art_px_per_mm, size_mm, kind is ItemKind.NAPKIN)


@cache
def _load_art(path: Path, px_per_mm: float, size_mm: float, is_napkin: bool) -> ItemArt:
    raw = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if raw is None or raw.ndim != 3 or raw.shape[2] != 4:
        raise FileNotFoundError(f"art {path} is missing or not an RGBA PNG")
    rgba = raw[..., [2, 1, 0, 3]].astype(np.float32)
    rgba[..., 3] /= 255.0
    levels = [ArtLevel(rgba, px_per_mm, size_mm)]
    while levels[-1].rgba.shape[0] > 48:
        prev = levels[-1]
        h, w = prev.rgba.shape[:2]
        small = cv2.resize(prev.rgba, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        levels.append(ArtLevel(small, (w // 2) / size_mm, size_mm))
    inside = rgba[..., 3] > 0.99
    ring = inside & ~cv2.erode(inside.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    rim = rgba[..., :3][ring].mean(axis=0) if ring.any() else np.full(3, 200.0, np.float32)
    if is_napkin:
        edge = np.array([236.0, 234.0, 226.0], np.float32)
    else:  # cardboard core showing under the printed rim
        edge = (0.45 * rim + 0.55 * np.array([214.0, 204.0, 186.0])).astype(np.float32)
    return ItemArt(levels=tuple(levels), edge_rgb=edge)
