"""Thin-line evidence for the string: multi-scale ridges of the colour likelihood, centre lines.

All arrays are in the *analysis* image (the working image downscaled for speed); coordinates are
(x, y) analysis px. A string of width ``w`` px is a bright bar in the likelihood map; the
scale-normalised Hessian response ``sigma^2 * -lambda_min`` of a bar of unit contrast peaks at
``sigma = w / 2`` with the value :data:`IDEAL_BAR_RESPONSE`, so thresholds are fractions of that
ideal and hold for any image size, table or light.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np
from skimage.morphology import skeletonize

IDEAL_BAR_RESPONSE = 0.484
"""sigma^2 * |d2/dx2| at the centre of a unit-contrast bar of width 2*sigma (= 2 u phi(u), u=1)."""
RIDGE_SIGMAS_PX = (1.4, 2.2, 3.4, 5.2)
"""Hessian scales (analysis px), about evenly spaced in log: bars 2.5 to 13 px wide respond well."""
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


CANDIDATE_CONTRAST = 0.05
"""Only pixels whose lightly blurred likelihood exceeds its wide surround by this much are
examined: a bar must stand out from its neighbourhood, and most of a photo does not."""
SURROUND_SIGMA_FACTOR = 2.0
"""The surround is a box blur with the spread (sigma) of this multiple of the widest scale."""
SIDE_REACH_SIGMAS = 2.0
"""A bar stands above the likelihood on *both* sides; a step (a table's edge against the floor,
the edge of a lit patch) stands above it on one side only, and its bright side still curves
like half a bar. Each scale's response is scaled by the smaller drop from the centre over the
larger, the drops measured this many scales (sigma) out along the normal: at 2 sigma a unit bar
of width 2 sigma has dropped 0.53 of its 0.68 centre value on each side."""


def ridge_maps(likelihood: np.ndarray, unknown: np.ndarray | None = None) -> RidgeMaps:
    """Multi-scale bright-ridge response of a (H, W) float32 likelihood map.

    Evaluated only at candidate pixels (see :data:`CANDIDATE_CONTRAST`); elsewhere strength
    and width are 0. Second derivatives are central differences of the Gaussian-blurred map;
    the response is kept only as far as the bar drops off on both sides
    (:data:`SIDE_REACH_SIGMAS`). ``unknown``: (H, W) bool, True where the likelihood tells
    nothing (zeroed under items): a bar is judged there by its other side alone, so a cord
    running along an item's edge keeps its response (the table along an item's rim is left to
    the outline tolls of :mod:`vision._string_fragments`). The width interpolates the best scale
    (parabola over log sigma) between the sampled ones.
    """
    height, width = likelihood.shape
    strength = np.zeros((height, width), np.float32)
    width_px = np.zeros((height, width), np.float32)
    normal = np.zeros((height, width, 2), np.float32)
    # Each scale blurs the previous one by the missing spread (Gaussians compose in quadrature),
    # which needs shorter kernels than blurring the likelihood afresh.
    blurred_maps = [cv2.GaussianBlur(likelihood, (0, 0), RIDGE_SIGMAS_PX[0])]
    for previous, sigma in itertools.pairwise(RIDGE_SIGMAS_PX):
        step = float(np.sqrt(sigma**2 - previous**2))
        blurred_maps.append(cv2.GaussianBlur(blurred_maps[-1], (0, 0), step))
    box = round(SURROUND_SIGMA_FACTOR * RIDGE_SIGMAS_PX[-1] * np.sqrt(12.0)) | 1
    surround = cv2.blur(likelihood, (box, box))
    candidate = (blurred_maps[0] - surround) > CANDIDATE_CONTRAST
    candidate[[0, -1], :] = False
    candidate[:, [0, -1]] = False
    flat_index = np.flatnonzero(candidate)
    if flat_index.size == 0:
        return RidgeMaps(strength=strength, width_px=width_px, normal=normal)
    rows, cols = np.divmod(flat_index, width)
    flat_unknown = None if unknown is None else unknown.ravel()
    responses = np.empty((len(RIDGE_SIGMAS_PX), flat_index.size), np.float32)
    normals_x = np.empty_like(responses)
    normals_y = np.empty_like(responses)
    for level, (sigma, blurred) in enumerate(zip(RIDGE_SIGMAS_PX, blurred_maps, strict=True)):
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
        responses[level] = (-lam_min - np.abs(lam_max)) * np.float32(sigma**2 / IDEAL_BAR_RESPONSE)
        # Eigenvector of lam_min: (dxy, lam_min - dxx), or (lam_min - dyy, dxy) when degenerate.
        degenerate = np.abs(dxy) < 1e-9
        vx = np.where(degenerate, lam_min - dyy, dxy)
        vy = np.where(degenerate, dxy, lam_min - dxx)
        norm = np.sqrt(vx * vx + vy * vy) + np.float32(1e-12)
        normals_x[level] = vx / norm
        normals_y[level] = vy / norm
        # Flat indices of the points SIDE_REACH_SIGMAS * sigma out on each side.
        reach = SIDE_REACH_SIGMAS * sigma
        off_x = np.round(normals_x[level] * reach).astype(np.int64)
        off_y = np.round(normals_y[level] * reach).astype(np.int64)
        sides = [
            np.clip(rows + sign * off_y, 0, height - 1) * width
            + np.clip(cols + sign * off_x, 0, width - 1)
            for sign in (1, -1)
        ]
        drops = [centre - flat[side] for side in sides]
        if flat_unknown is not None:
            drops = [
                np.where(flat_unknown[side], other, drop)
                for side, drop, other in zip(sides, drops, drops[::-1], strict=True)
            ]
        smaller, larger = np.minimum(*drops), np.maximum(*drops)
        responses[level] *= np.clip(smaller / np.maximum(larger, np.float32(1e-6)), 0.0, 1.0)
    best_level = np.argmax(responses, axis=0)
    columns = np.arange(flat_index.size)
    best = responses[best_level, columns]
    strength.ravel()[flat_index] = np.maximum(best, 0.0)
    width_px.ravel()[flat_index] = 2.0 * _interpolated_sigma(responses, best_level)
    normal.reshape(-1, 2)[flat_index, 0] = normals_x[best_level, columns]
    normal.reshape(-1, 2)[flat_index, 1] = normals_y[best_level, columns]
    return RidgeMaps(strength=strength, width_px=width_px, normal=normal)


def _interpolated_sigma(responses: np.ndarray, best_level: np.ndarray) -> np.ndarray:
    """Scale of the response peak: a parabola through the best level and its neighbours, in
    log sigma (the sampled scales are about evenly spaced in log), clamped to the sampled range."""
    log_sigmas = np.log(np.asarray(RIDGE_SIGMAS_PX, np.float32))
    last = len(RIDGE_SIGMAS_PX) - 1
    middle = np.clip(best_level, 1, last - 1)
    columns = np.arange(best_level.size)
    left = responses[middle - 1, columns]
    centre = responses[middle, columns]
    right = responses[middle + 1, columns]
    curvature = left - 2 * centre + right
    step = 0.5 * (log_sigmas[2] - log_sigmas[0])
    shift = np.where(curvature < 0, 0.5 * (left - right) / np.minimum(curvature, -1e-9), 0.0)
    peak = log_sigmas[middle] + np.clip(shift, -1.0, 1.0) * step
    return np.exp(np.clip(peak, log_sigmas[0], log_sigmas[-1]))


def centre_line_mask(ridges: RidgeMaps) -> np.ndarray:
    """(H, W) bool one-pixel-thin centre lines: non-maximum suppression across the ridge,
    hysteresis between :data:`LOW_FRACTION` and :data:`HIGH_FRACTION`, then thinning."""
    strength = ridges.strength
    height, width = strength.shape
    flat_strength = strength.ravel()
    index = np.flatnonzero(flat_strength > LOW_FRACTION)
    index = index[(index > width) & (index < flat_strength.size - width - 1)]
    normal = ridges.normal.reshape(-1, 2)[index]
    # Quantise the normal to one of the 4 neighbour axes and compare with both neighbours.
    sector = np.round(np.arctan2(normal[:, 1], normal[:, 0]) / (np.pi / 4)).astype(np.int64) % 4
    step = np.array([1, width + 1, width, width - 1])[sector]
    value = flat_strength[index]
    keep = (value >= flat_strength[index + step]) & (value >= flat_strength[index - step])
    kept = index[keep]
    low = np.zeros(height * width, np.uint8)
    low[kept] = 1
    # Close 1-px breaks of the suppressed line before hysteresis and thinning.
    low = cv2.morphologyEx(low.reshape(height, width), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    low[strength <= LOW_FRACTION] = 0
    count, labels = cv2.connectedComponents(low, connectivity=8)
    strong = np.zeros(count, bool)
    strong[labels.ravel()[kept[flat_strength[kept] > HIGH_FRACTION]]] = True
    strong[0] = False
    lines = strong[labels]
    rows = np.flatnonzero(lines.any(axis=1))
    cols = np.flatnonzero(lines.any(axis=0))
    if rows.size == 0:
        return lines
    window = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
    thin = np.zeros_like(lines)
    thin[window] = skeletonize(lines[window])
    return thin
