"""Thin-line evidence for the string: multi-scale ridges of the colour likelihood, centre lines.

All arrays are in the *analysis* image (the working image downscaled for speed); coordinates are
(x, y) analysis px. A string of width ``w`` px is a bright bar in the likelihood map; the
scale-normalised Hessian response ``sigma^2 * -lambda_min`` of a bar of unit contrast peaks at
``sigma = w / 2`` with the value :data:`IDEAL_BAR_RESPONSE`, so thresholds are fractions of that
ideal and hold for any image size, table or light.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from skimage.morphology import skeletonize

IDEAL_BAR_RESPONSE = 0.484
"""sigma^2 * |d2/dx2| at the centre of a unit-contrast bar of width 2*sigma (= 2 u phi(u), u=1)."""
RIDGE_SIGMAS_PX = (1.4, 2.2, 3.4)
"""Hessian scales (analysis px): bars about 2.5 to 9 px wide respond near their best."""
HIGH_FRACTION = 0.30
"""A centre line must somewhere reach this fraction of the ideal bar response..."""
LOW_FRACTION = 0.12
"""...and continues while it stays above this fraction (hysteresis)."""


@dataclass(frozen=True)
class RidgeMaps:
    """Per-pixel ridge evidence in the analysis image.

    ``strength``: (H, W) float32, best scale-normalised ridge response as a fraction of the ideal
    unit-contrast bar. ``width_px``: (H, W) float32, bar width (analysis px) of the best scale.
    ``normal``: (H, W, 2) float32 unit vectors (x, y) across the ridge.
    """

    strength: np.ndarray
    width_px: np.ndarray
    normal: np.ndarray


CANDIDATE_LIKELIHOOD = 0.1
"""Only pixels whose lightly blurred likelihood exceeds this are examined (most of a photo is
far from string-coloured; a bar this faint could not reach :data:`LOW_FRACTION` anyway)."""


def ridge_maps(likelihood: np.ndarray) -> RidgeMaps:
    """Multi-scale bright-ridge response of a (H, W) float32 likelihood map.

    Evaluated only at candidate pixels (see :data:`CANDIDATE_LIKELIHOOD`); elsewhere the
    strength is 0. Second derivatives are central differences of the Gaussian-blurred map.
    """
    height, width = likelihood.shape
    strength = np.zeros((height, width), np.float32)
    width_px = np.zeros((height, width), np.float32)
    normal = np.zeros((height, width, 2), np.float32)
    first = cv2.GaussianBlur(likelihood, (0, 0), RIDGE_SIGMAS_PX[0])
    candidate = first > CANDIDATE_LIKELIHOOD
    candidate[[0, -1], :] = False
    candidate[:, [0, -1]] = False
    flat_index = np.flatnonzero(candidate)
    if flat_index.size == 0:
        return RidgeMaps(strength=strength, width_px=width_px, normal=normal)
    best = np.zeros(flat_index.size, np.float32)
    best_sigma = np.full(flat_index.size, RIDGE_SIGMAS_PX[0], np.float32)
    best_nx = np.zeros(flat_index.size, np.float32)
    best_ny = np.ones(flat_index.size, np.float32)
    for sigma in RIDGE_SIGMAS_PX:
        blurred = first if sigma == RIDGE_SIGMAS_PX[0] else None
        if blurred is None:
            blurred = cv2.GaussianBlur(likelihood, (0, 0), sigma)
        flat = blurred.ravel()
        centre = flat[flat_index]
        dxx = flat[flat_index + 1] + flat[flat_index - 1] - 2 * centre
        dyy = flat[flat_index + width] + flat[flat_index - width] - 2 * centre
        dxy = 0.25 * (
            flat[flat_index + width + 1]
            + flat[flat_index - width - 1]
            - flat[flat_index + width - 1]
            - flat[flat_index - width + 1]
        )
        half_trace = 0.5 * (dxx + dyy)
        root = np.sqrt((0.5 * (dxx - dyy)) ** 2 + dxy**2)
        lam_min = half_trace - root  # across a bright ridge: strongly negative
        lam_max = half_trace + root  # along it: near zero (a blob has both negative)
        response = (-lam_min - np.abs(lam_max)) * np.float32(sigma**2 / IDEAL_BAR_RESPONSE)
        better = response > best
        best[better] = response[better]
        best_sigma[better] = sigma
        # Eigenvector of lam_min: (dxy, lam_min - dxx), or (lam_min - dyy, dxy) when degenerate.
        degenerate = np.abs(dxy) < 1e-9
        vx = np.where(degenerate, lam_min - dyy, dxy)
        vy = np.where(degenerate, dxy, lam_min - dxx)
        norm = np.sqrt(vx * vx + vy * vy) + np.float32(1e-12)
        best_nx[better] = (vx / norm)[better]
        best_ny[better] = (vy / norm)[better]
    strength.ravel()[flat_index] = best
    width_px.ravel()[flat_index] = 2.0 * best_sigma
    normal.reshape(-1, 2)[flat_index, 0] = best_nx
    normal.reshape(-1, 2)[flat_index, 1] = best_ny
    return RidgeMaps(strength=strength, width_px=width_px, normal=normal)


def centre_line_mask(ridges: RidgeMaps) -> np.ndarray:
    """(H, W) bool one-pixel-thin centre lines: non-maximum suppression across the ridge,
    hysteresis between :data:`LOW_FRACTION` and :data:`HIGH_FRACTION`, then thinning."""
    strength = ridges.strength
    height, width = strength.shape
    padded = np.pad(strength, 1)
    # Quantise the normal to one of the 4 neighbour axes and compare with both neighbours.
    angle = np.arctan2(ridges.normal[..., 1], ridges.normal[..., 0])
    sector = np.round(angle / (np.pi / 4)).astype(np.int8) % 4
    keep = np.zeros(strength.shape, bool)
    for index, (dx, dy) in enumerate(((1, 0), (1, 1), (0, 1), (-1, 1))):
        ahead = padded[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]
        behind = padded[1 - dy : 1 - dy + height, 1 - dx : 1 - dx + width]
        keep |= (sector == index) & (strength >= ahead) & (strength >= behind)
    low = keep & (strength > LOW_FRACTION)
    # Close 1-px breaks of the suppressed line before hysteresis and thinning.
    low = cv2.dilate(low.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    low &= strength > LOW_FRACTION
    count, labels = cv2.connectedComponents(low.astype(np.uint8), connectivity=8)
    strong = np.zeros(count, bool)
    strong[np.unique(labels[keep & (strength > HIGH_FRACTION)])] = True
    strong[0] = False
    return skeletonize(strong[labels])
