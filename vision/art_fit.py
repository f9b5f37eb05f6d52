"""How well a side's art, placed at a pose, explains a rectified view; and the pose that does best.

Shared by the passes that confirm or re-decide a coaster by its whole art rather than by its
features (:mod:`vision.outline_search`, :mod:`vision.coaster_types`). The comparison is on the
ink channel (:func:`vision.art.ink_channel`, colour-independent), with the art as printed and
blurred as a camera out of focus sees it (:data:`BLURS_MM`), over the art's pixels that no
other item covers.

Frames: *canvas px* (the view's pixels), *table mm*, *side-local mm* (see :mod:`vision.art`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.art import ArtLibrary, Side
from vision.detect import CanvasView
from vision.identify import art_to_box_matrix
from vision.plane import ItemPose

#: Blurs (sigma, mm on the item) the art is compared at: sharp to far out of focus.
BLURS_MM = (0.0, 1.5, 3.0)
#: Angle step of the pose refinement (deg).
FINE_STEP_DEG = 1.5
#: Largest shift of the refined pose from where it started (mm).
MAX_SHIFT_MM = 2.0
#: Fewest clear art pixels a correlation is measured on.
_MIN_PIXELS = 30


@dataclass(frozen=True)
class InkArts:
    """A side's art ink variants (reference colours x :data:`BLURS_MM`, float32) and its
    coverage (``alpha``, 0..1), square images at ``px_per_mm`` centred on the side's centre."""

    side: Side
    inks: list[np.ndarray]
    alpha: np.ndarray


def ink_arts(library: ArtLibrary, side: Side, px_per_mm: float) -> InkArts:
    """The side's :class:`InkArts` at ``px_per_mm`` (from the library's caches)."""
    alpha = library.art_rgba(side, library.reference_colors()[0], px_per_mm)[:, :, 3]
    inks = library.ink_variants(side, px_per_mm, BLURS_MM)
    return InkArts(side, inks, alpha.astype(np.float32) / 255)


def art_correlation(
    view: CanvasView,
    arts: InkArts,
    pose: ItemPose,
    covered: np.ndarray,
    min_clear_share: float = 0.0,
) -> float:
    """The best normalised correlation (-1..1), over the ink variants of ``arts``, of the art's
    ink placed at ``pose`` with the view's ink, over the art's pixels clear of ``covered``
    ((H, W) bool of the view); -1 when fewer than 30 such pixels show, or fewer than
    ``min_clear_share`` of the art's (a few pixels agree with anything)."""
    placed = _place(view, arts, pose)
    if placed is None:
        return -1.0
    (x0, y0, x1, y1), m, whole = placed
    inside = whole & ~covered[y0:y1, x0:x1]
    if inside.sum() < max(_MIN_PIXELS, min_clear_share * whole.sum()):
        return -1.0
    observed = view.ink[y0:y1, x0:x1][inside].astype(np.float64)
    best = -1.0
    for ink in arts.inks:
        art = cv2.warpAffine(
            ink, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        best = max(best, normalised_correlation(observed, art[inside].astype(np.float64)))
    return best


def clear_share(view: CanvasView, arts: InkArts, pose: ItemPose, covered: np.ndarray) -> float:
    """Share (0..1) of the art's pixels placed at ``pose`` that the view shows clear of
    ``covered`` ((H, W) bool of the view); 0 when the art falls outside the view."""
    placed = _place(view, arts, pose)
    if placed is None:
        return 0.0
    (x0, y0, x1, y1), _, whole = placed
    return float((whole & ~covered[y0:y1, x0:x1]).sum()) / max(1, int(whole.sum()))


def normalised_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation (-1..1) of two equal-length samples; -1 when either is flat."""
    a, b = a - a.mean(), b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 1e-9 else -1.0


def _place(
    view: CanvasView, arts: InkArts, pose: ItemPose
) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray] | None:
    """The art placed at ``pose`` in the view: its box (x0, y0, x1, y1; canvas px), the affine
    matrix from art px to the box, and the (box-sized) bool of the art's solid pixels; None
    when less than 8 px of the box lies in the view."""
    side = arts.side
    h, w = view.ink.shape
    cx, cy = view.table_to_canvas(np.array([pose.center_mm]))[0]
    r = side.shape.half_extent_mm * view.px_per_mm + 1
    x0, y0 = max(0, int(np.floor(cx - r))), max(0, int(np.floor(cy - r)))
    x1, y1 = min(w, int(np.ceil(cx + r)) + 1), min(h, int(np.ceil(cy + r)) + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    m = art_to_box_matrix(view, side, pose, (x0, y0, x1, y1))
    placed = cv2.warpAffine(
        arts.alpha, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=0
    )
    return (x0, y0, x1, y1), m, placed > 0.99


def refine_pose(
    view: CanvasView,
    arts: InkArts,
    pose: ItemPose,
    covered: np.ndarray,
    min_clear_share: float = 0.0,
) -> tuple[float, ItemPose]:
    """Hill-climb the pose on :func:`art_correlation` (with ``min_clear_share``): angle in
    :data:`FINE_STEP_DEG` steps, centre in 1-px steps along the axes and the diagonals, up to
    :data:`MAX_SHIFT_MM` from where it started. Returns the best correlation and its pose.

    The diagonal steps matter: a sharp print's correlation is a narrow ridge when the start is
    off in angle and in both axes at once, and steps along the axes alone stop on its flank."""
    score = art_correlation(view, arts, pose, covered, min_clear_share)
    start = np.asarray(pose.center_mm)
    step_mm = 1.0 / view.px_per_mm
    moves = [(0.0, 0.0, np.deg2rad(d)) for d in (-FINE_STEP_DEG, FINE_STEP_DEG)] + [
        (dx * step_mm, dy * step_mm, 0.0) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy
    ]
    improved = True
    while improved:
        improved = False
        for dx, dy, da in moves:
            centre = np.asarray(pose.center_mm) + np.array([dx, dy])
            if np.hypot(*(centre - start)) > MAX_SHIFT_MM:
                continue
            trial = ItemPose((float(centre[0]), float(centre[1])), pose.angle_rad + da)
            value = art_correlation(view, arts, trial, covered, min_clear_share)
            if value > score + 1e-4:
                score, pose, improved = value, trial, True
    return score, pose
