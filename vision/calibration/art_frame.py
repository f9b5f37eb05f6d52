"""The catalogue's art convention for one item side, as arrays.

An art square covers the item's bounding square at ``px_per_mm`` (10 for the catalogue):
pixel (i, j) (column i, row j) has its centre at ``x = (i + 0.5) / px_per_mm - size_mm / 2``,
``y = (j + 0.5) / px_per_mm - size_mm / 2`` in the side-local frame (mm, origin at the centre,
x right, y down). Alpha is 255 inside the shape, 0 outside, anti-aliased along the edge.
"""

from __future__ import annotations

import cv2
import numpy as np
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Shape

#: Art resolution of a catalogue written by the calibration (px per mm).
ART_PX_PER_MM = 10.0
#: Supersampling factor of anti-aliased masks.
_SUPERSAMPLE = 4


def art_size_px(shape: Shape, px_per_mm: float = ART_PX_PER_MM) -> int:
    """Side length (px) of the art square of ``shape``."""
    return round(shape.size_mm * px_per_mm)


def mm_to_art_px(points_mm: np.ndarray, size_mm: float, px_per_mm: float = ART_PX_PER_MM):
    """(N, 2) side-local mm -> art pixel-centre coordinates (what cv2 drawing expects)."""
    return (np.asarray(points_mm, np.float64) + size_mm / 2) * px_per_mm - 0.5


def art_px_to_mm(points_px: np.ndarray, size_mm: float, px_per_mm: float = ART_PX_PER_MM):
    """(N, 2) art pixel-centre coordinates -> side-local mm."""
    return (np.asarray(points_px, np.float64) + 0.5) / px_per_mm - size_mm / 2


def polygon_alpha(
    polygon_mm: Polygon, size_mm: float, px_per_mm: float = ART_PX_PER_MM
) -> np.ndarray:
    """(N, N) uint8 anti-aliased coverage (0-255) of a side-local polygon on the art square."""
    n = round(size_mm * px_per_mm)
    big = np.zeros((n * _SUPERSAMPLE, n * _SUPERSAMPLE), np.uint8)
    rings = [polygon_mm.exterior, *polygon_mm.interiors]
    for k, ring in enumerate(rings):
        pts = mm_to_art_px(np.asarray(ring.coords), size_mm, px_per_mm * _SUPERSAMPLE)
        fixed = np.round(pts * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(big, [fixed], 255 if k == 0 else 0, cv2.LINE_8, shift=4)
    return cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)


def shape_alpha(shape: Shape, px_per_mm: float = ART_PX_PER_MM) -> np.ndarray:
    """(N, N) uint8 alpha of an item shape on its art square (255 inside, 0 outside)."""
    return polygon_alpha(shape.polygon_mm, shape.size_mm, px_per_mm)


def flatten_outside(bgra: np.ndarray) -> np.ndarray:
    """Set RGB outside the shape to the median colour of a 1.5 mm ring inside its edge.

    Follows the art convention (no dark fringes when the art is resampled). ``bgra``: (N, N, 4)
    uint8; returns a new array.
    """
    out = bgra.copy()
    alpha = out[:, :, 3]
    inside = alpha > 250
    ring_px = round(1.5 * ART_PX_PER_MM)
    inner = cv2.erode(inside.astype(np.uint8), np.ones((2 * ring_px + 1,) * 2, np.uint8)) > 0
    ring = inside & ~inner
    edge = np.median(out[:, :, :3][ring], axis=0) if ring.any() else np.full(3, 128.0)
    weight = (alpha.astype(np.float32) / 255)[:, :, None]
    out[:, :, :3] = np.round(out[:, :, :3] * weight + edge * (1 - weight)).astype(np.uint8)
    return out
