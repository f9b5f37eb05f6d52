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

from vision.art import ArtLibrary, Side, ink_channel
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
#: A blurred art is compared with its rim blurring into the table (:func:`rim_correlation`)
#: only where this share of its art or more shows clear of the items above it: the table's ink
#: is one more weight fitted, and over a crescent a smooth ramp fits any shading (coasters
#: partly under items, all false, correlated 0.64-0.67 so on the validation photos).
RIM_MIN_CLEAR_SHARE = 0.6
#: ...and there this many blur sigmas clear of the items above it, whose edges blur over it. The
#: coarse look (:func:`vision.outline_search._coarse_turns`, a disc of the art with no outline)
#: also keeps this far in from the side's outline, where its edge blurs into the table.
RIM_MARGIN_SIGMAS = 2.0
#: The rim counts only where the print fits too: the art's partial correlation with the photo,
#: the rim's part taken out, must reach this (the print then explains a quarter of what the
#: rim leaves). A shadow's round end or a glass's foot is a disc of about a coaster's size
#: blurring into the table, which the rim alone explains (multiple correlations up to 0.87 on
#: the validation photos, 0.9996 for a plain disc); there such false coasters had partial
#: correlations of 0.12-0.45, the true coasters confirmed 0.52 and more.
MIN_PRINT_PARTIAL = 0.5


@dataclass(frozen=True)
class InkArts:
    """A side's art ink variants, reference colours x :data:`BLURS_MM` (float32), square images
    at ``px_per_mm`` centred on the side's centre, each blurred two ways: ``inks`` as if the
    table around were the coaster (the art runs on past its outline), ``inks_on_black`` over
    nothing, with ``reach`` (per blur of :data:`BLURS_MM`) the side's coverage blurred alike
    (0..1); ``blurs_mm`` the blur of each variant (sigma, mm on the item) and ``alpha`` the
    side's coverage (0..1)."""

    side: Side
    inks: list[np.ndarray]
    inks_on_black: list[np.ndarray]
    blurs_mm: tuple[float, ...]
    reach: dict[float, np.ndarray]
    alpha: np.ndarray


def ink_arts(library: ArtLibrary, side: Side, px_per_mm: float) -> InkArts:
    """The side's :class:`InkArts` at ``px_per_mm``."""
    alpha = library.art_rgba(side, library.reference_colors()[0], px_per_mm)[:, :, 3]
    alpha = alpha.astype(np.float32) / 255
    on_black, blurs = [], []
    for color in library.reference_colors():
        art = library.art_rgba(side, color, px_per_mm)
        ink = ink_channel(art[:, :, :3]).astype(np.float32) * alpha
        for blur in BLURS_MM:
            on_black.append(_blurred(ink, blur * px_per_mm))
            blurs.append(blur)
    reach = {blur: _blurred(alpha, blur * px_per_mm) for blur in BLURS_MM}
    inks = library.ink_variants(side, px_per_mm, BLURS_MM)
    return InkArts(side, inks, on_black, tuple(blurs), reach, alpha)


def _blurred(image: np.ndarray, sigma_px: float) -> np.ndarray:
    """``image`` blurred with nothing (0) beyond its edges: an art's square is its side's
    bounding box, and a mirrored border would carry a coaster on past its outline."""
    if sigma_px <= 0:
        return image
    return cv2.GaussianBlur(image, (0, 0), sigma_px, borderType=cv2.BORDER_CONSTANT)


def art_correlation(
    view: CanvasView,
    arts: InkArts,
    pose: ItemPose,
    covered: np.ndarray,
    min_clear_share: float = 0.0,
) -> float:
    """The best normalised correlation (-1..1), over the ink variants of ``arts``, of the art's
    ink placed at ``pose`` with the view's ink, over the art's pixels clear of ``covered``
    ((H, W) bool of the view). Where :data:`RIM_MIN_CLEAR_SHARE` of the art shows, a blurred
    variant is compared by :func:`rim_correlation`, its rim blurred into the table, over the
    pixels :data:`RIM_MARGIN_SIGMAS` of its blur clear of ``covered``. -1 when fewer than 30
    pixels show, or fewer than ``min_clear_share`` of the art's (a few pixels agree with
    anything)."""
    placed = _place(view, arts, pose)
    if placed is None:
        return -1.0
    (x0, y0, x1, y1), m, whole = placed
    inside = whole & ~covered[y0:y1, x0:x1]
    if inside.sum() < max(_MIN_PIXELS, min_clear_share * whole.sum()):
        return -1.0
    observed = view.ink[y0:y1, x0:x1].astype(np.float64)
    size = (x1 - x0, y1 - y0)
    with_rim = inside.sum() >= RIM_MIN_CLEAR_SHARE * whole.sum()
    if with_rim:  # how far each pixel lies from the items above (px): their edges blur over it
        clear_px = cv2.distanceTransform(
            (~covered[y0:y1, x0:x1]).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE
        )
    best = -1.0
    for k, blur_mm in enumerate(arts.blurs_mm):
        if blur_mm > 0 and with_rim:
            compared = inside & (clear_px > RIM_MARGIN_SIGMAS * blur_mm * view.px_per_mm)
            if compared.sum() < _MIN_PIXELS:
                continue
            art = cv2.warpAffine(arts.inks_on_black[k], m, size, flags=cv2.INTER_LINEAR)
            reach = cv2.warpAffine(arts.reach[blur_mm], m, size, flags=cv2.INTER_LINEAR)
            value = rim_correlation(
                observed[compared],
                art[compared].astype(np.float64),
                reach[compared].astype(np.float64),
            )
        else:
            art = cv2.warpAffine(
                arts.inks[k], m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
            value = normalised_correlation(observed[inside], art[inside].astype(np.float64))
        best = max(best, value)
    return best


def rim_correlation(observed: np.ndarray, art: np.ndarray, reach: np.ndarray) -> float:
    """How well an art blurred out of focus explains ``observed`` pixels, its rim blurring into
    an unknown table: the multiple correlation (0..1) of ``observed`` with the art over black
    (``art``) and the art's blurred coverage (``reach``), whose weight takes the table's ink
    (the photo is ``g * (art + (1 - reach) * table) + offset``). The partial correlation with
    ``art`` (``reach`` taken out) instead where it is below :data:`MIN_PRINT_PARTIAL` (so too
    where the art's own weight comes out negative): the rim alone explains any disc of the
    coaster's size. The plain correlation where ``reach`` is flat (no rim among the
    pixels). Equal-length samples."""
    y, a, c = observed - observed.mean(), art - art.mean(), reach - reach.mean()
    saa, scc, sac = float(a @ a), float(c @ c), float(a @ c)
    syy, sya, syc = float(y @ y), float(y @ a), float(y @ c)
    det = saa * scc - sac * sac
    if syy <= 1e-9 or saa <= 1e-9:
        return -1.0
    if scc <= 1e-9 or det <= 1e-9 * saa * scc:
        return float(sya / np.sqrt(saa * syy))
    r_ya, r_yc = sya / np.sqrt(saa * syy), syc / np.sqrt(scc * syy)
    r_ac = sac / np.sqrt(saa * scc)
    # where the rim leaves nothing of the photo (or of the art), the print explains nothing
    rest = (1 - r_yc**2) * (1 - r_ac**2)
    partial = float(np.clip((r_ya - r_yc * r_ac) / np.sqrt(rest), -1, 1)) if rest > 1e-9 else 0.0
    if partial < MIN_PRINT_PARTIAL:  # also where the art's weight is negative (same sign)
        return partial
    weight_art = (scc * sya - sac * syc) / det
    weight_reach = (saa * syc - sac * sya) / det
    explained = (weight_art * sya + weight_reach * syc) / syy
    return float(np.sqrt(np.clip(explained, 0.0, 1.0)))


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
    off in angle and in both axes at once, and steps along the axes alone stop on its flank.
    Each pose on the search's lattice (px steps, angle steps) is measured once: the score only
    rises, so a pose tried before would be turned down again."""
    score = art_correlation(view, arts, pose, covered, min_clear_share)
    start = np.asarray(pose.center_mm)
    step_mm = 1.0 / view.px_per_mm
    step_rad = np.deg2rad(FINE_STEP_DEG)
    moves = [(0, 0, -1), (0, 0, 1)] + [
        (dx, dy, 0) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy
    ]
    at = (0, 0, 0)  # the pose's place on the lattice, in steps from the start
    tried = {at}
    improved = True
    while improved:
        improved = False
        for dx, dy, da in moves:
            place = (at[0] + dx, at[1] + dy, at[2] + da)
            if place in tried:
                continue
            centre = np.asarray(pose.center_mm) + np.array([dx * step_mm, dy * step_mm])
            if np.hypot(*(centre - start)) > MAX_SHIFT_MM:
                continue
            tried.add(place)
            trial = ItemPose((float(centre[0]), float(centre[1])), pose.angle_rad + da * step_rad)
            value = art_correlation(view, arts, trial, covered, min_clear_share)
            if value > score + 1e-4:
                score, pose, at, improved = value, trial, place, True
    return score, pose
