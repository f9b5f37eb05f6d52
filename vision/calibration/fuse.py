"""One side's art from all its photos: what one photo's shadow darkens, another shows lit.

Every photo of a side, rectified onto the art square, keeps that photo's light: a soft shadow
across part of the print (a hand, the phone, a glass), which the scorer later reads, on every
table photo, as something lying on that part of the coaster. Shadows fall elsewhere in another
photo of the same side, so the art is blended from all views (:func:`fuse_views`): each view is
laid exactly onto the reference view (the affine map aligning their ink), given the
per-channel gains that match its print to the reference's, and weighted per pixel by how its
print is lit there (brightness smoothed over :data:`SHADE_SIGMA_MM`), softly. Of two views the
brighter wins (a shadow darkens; a glare spot, which brightens, cannot be told from the other
view's shadow with two). Of three or more, the view lit like the middle of them all wins: one
view's shadow is darker than the rest there, one view's glare spot brighter, and both lose.

Frames: art px of :mod:`vision.calibration.art_frame` (all views share the side's frame).
"""

from __future__ import annotations

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Shape
from vision.art import ink_channel
from vision.calibration.art_frame import ART_PX_PER_MM, shape_alpha

#: Reach (mm, Gaussian sigma) of the brightness a view's weight is judged on.
SHADE_SIGMA_MM = 1.5
#: A view whose print is lit darker than the brightest view's by this share of the print's
#: median brightness has its weight divided by e.
SHADE_SOFTNESS = 0.03
#: The reference view (the sharpest) counts as lit brighter by this share: ties go to it.
REFERENCE_BONUS = 0.02
#: Views whose ink aligns with the reference's worse than this (correlation) are left out:
#: blending them would double the print's lines.
MIN_CORRELATION = 0.8
#: The views share the side's frame to within about a millimetre: an alignment moving a view
#: by more than this (mm) anywhere on the side is wrong.
MAX_MOVE_MM = 2.0
#: Resolution of the registration (px per mm).
_REGISTER_PX_PER_MM = 4.0


def fuse_views(views_bgr: list[np.ndarray], reference: int, shape: Shape) -> np.ndarray:
    """(N, N, 3) uint8 BGR art of one side blended from ``views_bgr``.

    ``views_bgr``: the side's photos rectified onto its art square (N, N, 3) uint8 at
    :data:`ART_PX_PER_MM`, in one frame to within about a millimetre; ``reference``: the index
    of the view the others are laid onto (the sharpest), which wins ties. With one view, or
    when no other view aligns with it (:func:`_laid_onto`), the reference is returned as it is.
    """
    ref = views_bgr[reference]
    inside = cv2.erode((shape_alpha(shape) > 250).astype(np.uint8), np.ones((15, 15), np.uint8))
    inside = inside > 0
    aligned = [ref.astype(np.float32)]
    for k, view in enumerate(views_bgr):
        if k == reference:
            continue
        laid = _laid_onto(view, ref, inside)
        if laid is not None:
            aligned.append(_gain_matched(laid, aligned[0], inside))
    if len(aligned) == 1:
        return ref
    sigma = SHADE_SIGMA_MM * ART_PX_PER_MM
    lit = np.stack([cv2.GaussianBlur(a.mean(axis=2), (0, 0), sigma) for a in aligned])
    level = float(np.median(lit[0][inside]))
    softness = max(SHADE_SOFTNESS * level, 1e-6)
    if len(aligned) >= 3:
        # a shadow makes one view darker than the rest there, a glare spot brighter: the view
        # lit like the middle of them all is lit right
        off = np.abs(lit - np.median(lit, axis=0))
        off[0] = np.maximum(off[0] - REFERENCE_BONUS * level, 0.0)
        weights = np.exp(-off / softness)
    else:
        lit[0] *= 1.0 + REFERENCE_BONUS
        weights = np.exp((lit - lit.max(axis=0)) / softness)
    fused = np.einsum("khw,khwc->hwc", weights, np.stack(aligned)) / weights.sum(axis=0)[..., None]
    return np.clip(fused, 0, 255).astype(np.uint8)


def _laid_onto(view: np.ndarray, ref: np.ndarray, inside: np.ndarray) -> np.ndarray | None:
    """``view`` (art px) warped onto ``ref`` by the affine map that best aligns their ink
    channels (ECC at :data:`_REGISTER_PX_PER_MM`, from the frame they share), or None when it
    does not converge, aligns them worse than :data:`MIN_CORRELATION`, or moves the view by
    more than :data:`MAX_MOVE_MM` anywhere on the side (then the frames did not agree)."""
    n = ref.shape[0]
    small = round(n * _REGISTER_PX_PER_MM / ART_PX_PER_MM)

    def ink(image: np.ndarray) -> np.ndarray:
        reduced = cv2.resize(image, (small, small), interpolation=cv2.INTER_AREA)
        return ink_channel(reduced).astype(np.float32)

    mask = cv2.resize(inside.astype(np.uint8), (small, small), interpolation=cv2.INTER_NEAREST)
    warp = np.eye(2, 3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-5)
    try:
        correlation, warp = cv2.findTransformECC(
            ink(ref), ink(view), warp, cv2.MOTION_AFFINE, criteria, mask, 5
        )
    except cv2.error:
        return None
    # ref px -> view px at the registration scale, then at the art's (pixel centres)
    k = ART_PX_PER_MM / _REGISTER_PX_PER_MM
    to_art = np.array([[k, 0, (k - 1) / 2], [0, k, (k - 1) / 2], [0, 0, 1.0]])
    onto = to_art @ np.vstack([warp, [0, 0, 1]]) @ np.linalg.inv(to_art)
    corners = np.array([[0, 0, 1], [n - 1, 0, 1], [0, n - 1, 1], [n - 1, n - 1, 1]], float)
    moved = np.linalg.norm(corners @ onto[:2].T - corners[:, :2], axis=1).max() / ART_PX_PER_MM
    if correlation < MIN_CORRELATION or moved > MAX_MOVE_MM:
        return None
    return cv2.warpAffine(
        view,
        onto[:2],
        (n, n),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _gain_matched(view: np.ndarray, ref: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """``view`` (float) with per-channel gains: the median ratio of ``ref`` to it inside."""
    v, r = view[inside].astype(np.float32), ref[inside]
    lit = v.min(axis=1) > 30
    if lit.sum() < 200:
        return view.astype(np.float32)
    gains = np.median(r[lit] / v[lit], axis=0)
    return view.astype(np.float32) * np.clip(gains, 0.3, 3.0)
