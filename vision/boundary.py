"""Find the boundary string and close it into the polygon of its centre line.

Stages, each in its own private module:

1. colour likelihood of "string" per pixel (:mod:`vision._string_color`), at an analysis
   resolution of about 1000 px on the long side, zero under known items (the string never lies
   on top of a coaster or napkin);
2. multi-scale ridges of that likelihood and their one-pixel centre lines
   (:mod:`vision._string_ridges`);
3. centre-line fragments linked into the one closed loop, bridging gaps where the string runs
   under items (:mod:`vision._string_loop`);
4. sub-pixel refinement of every visible stretch in the full working image
   (:mod:`vision._string_refine`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision._string_color import string_likelihood
from vision._string_loop import (
    LOOP_LENGTH_WIDTHS,
    extract_fragments,
    link_loop,
    weigh_item_contact,
)
from vision._string_refine import refine_centre_line
from vision._string_ridges import RIDGE_SIGMAS_PX, centre_line_mask, ridge_maps

ANALYSIS_LONG_SIDE_PX = 1008
"""Target long side (px) of the image the loop is searched in: the working image reduced by
the nearest whole factor (2016 -> 1008, 1600 -> 800). Refinement uses the working image."""
DEFAULT_STRING_RGB = (228, 211, 146)


@dataclass(frozen=True)
class Boundary:
    """The boundary string's centre line.

    ``polygon_px``: (N, 2) float64 (x, y) in the WORKING image's pixels, a closed loop (the
    first point is not repeated). ``confidence``: 0..1, mostly the share of the loop's length
    that was actually seen (the rest is bridged under items or across short gaps).
    """

    polygon_px: np.ndarray
    confidence: float


def find_boundary(
    image_bgr: np.ndarray,
    *,
    item_mask: np.ndarray | None = None,
    string_rgb: tuple[int, int, int] = DEFAULT_STRING_RGB,
) -> Boundary | None:
    """The string loop in a working image, or None when no plausible closed loop is found.

    ``image_bgr``: (H, W, 3) uint8 working image. ``item_mask``: (H, W) bool, True where
    coasters/napkins lie (the string may pass under them), or None when unknown.
    ``string_rgb``: the string's nominal colour (sRGB 0-255).
    """
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError(
            f"image_bgr must be (H, W, 3) uint8, got {image_bgr.shape} {image_bgr.dtype}"
        )
    height, width = image_bgr.shape[:2]
    if item_mask is not None and item_mask.shape != (height, width):
        raise ValueError(f"item_mask must be {(height, width)}, got {item_mask.shape}")

    # An integer reduction keeps the area-average resize cheap and exact.
    reduction = max(1, round(max(height, width) / ANALYSIS_LONG_SIDE_PX))
    if reduction > 1:
        size = (max(1, width // reduction), max(1, height // reduction))
        small_bgr = cv2.resize(
            image_bgr[: size[1] * reduction, : size[0] * reduction],
            size,
            interpolation=cv2.INTER_AREA,
        )
    else:
        small_bgr = image_bgr
    small_items = _reduce_mask(item_mask, reduction, small_bgr.shape[:2])

    likelihood = string_likelihood(small_bgr, string_rgb)
    if small_items is not None:
        likelihood[small_items] = 0.0
    ridges = ridge_maps(likelihood)
    fragments = extract_fragments(centre_line_mask(ridges), ridges)
    gap_items = None
    if small_items is not None:
        free = (~small_items).astype(np.uint8)
        distance_to_items = cv2.distanceTransform(free, cv2.DIST_L2, 3)
        fragments = weigh_item_contact(fragments, distance_to_items)
        reach = int(np.ceil(2 * RIDGE_SIGMAS_PX[1]))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        gap_items = cv2.dilate(small_items.astype(np.uint8), kernel) > 0
    trace = link_loop(fragments, gap_items)
    if trace is None:
        return None

    # Analysis px -> working px (pixel centres: x_work + 0.5 = (x_small + 0.5) * reduction).
    points_px = (trace.points_px + 0.5) * reduction - 0.5
    widths_px = trace.width_px * reduction
    polygon_px = refine_centre_line(
        image_bgr, points_px, trace.observed, widths_px, item_mask=item_mask, string_rgb=string_rgb
    )
    seen = trace.observed_widths / max(trace.total_widths, 1e-9)
    length_ratio = trace.total_widths / LOOP_LENGTH_WIDTHS
    plausible = float(np.clip(1.0 - abs(np.log(length_ratio / 0.85)) / np.log(2.0), 0.0, 1.0))
    confidence = float(np.clip(seen, 0.0, 1.0)) * (0.5 + 0.5 * plausible)
    return Boundary(polygon_px=polygon_px, confidence=confidence)


def _reduce_mask(
    mask: np.ndarray | None, reduction: int, shape: tuple[int, int]
) -> np.ndarray | None:
    """(h, w) bool: True wherever any part of the ``reduction`` x ``reduction`` block was True."""
    if mask is None:
        return None
    if reduction == 1:
        return mask.astype(bool)
    height, width = shape
    cropped = mask[: height * reduction, : width * reduction].astype(np.uint8)
    # An exact block average (whole factor); any covered pixel makes the block covered.
    return cv2.resize(cropped, (width, height), interpolation=cv2.INTER_AREA) > 0
