"""Detection passes for coasters the feature passes missed, found by their outline.

A coaster far out of focus, or a few px across, keeps none of the fine print SIFT keys on, yet
its outline (a disc or a rounded square of known size on the table plane) and the layout of its
icons still show. It runs after the plane fit and before the final view is rectified (so that a
coaster beyond the items found widens that view), against the items the feature passes found;
the hidden pass (:mod:`vision.hidden`) runs after it. Two steps:

1. **outline** (:func:`search_outlines`): the table around the items found, rectified at
   :data:`SEARCH_PX_PER_MM`, smoothed, and its colour edge strength (Lab gradient magnitude)
   correlated with each coaster shape's outline (a disc; a rounded square turned in
   :data:`_SQUARE_STEP_DEG` steps) over the shape's window less its interior and less the items
   found and what lies beyond the photo: the print inside a coaster, whose edges are often
   stronger than a pale coaster's outline, neither helps nor hurts. Peaks, per shape, are
   places where an edge of the coaster's size and shape runs all around;
2. **art** (:func:`find_coasters_by_outline`): at each peak, in the table around it rectified
   at the final view's scale, every coaster side of that shape (each type's face, and the
   back: a coaster left face down) is compared with the photo's ink channel
   (:func:`vision.art.ink_channel`) clear of the items found, its art turned every
   :data:`_COARSE_STEP_DEG` (then refined, and shifted by up to :data:`MAX_SHIFT_MM`) and
   blurred as a camera out of focus sees it (:data:`BLURS_MM`); the best correlation over sides,
   angles, shifts and blurs must reach :data:`MIN_CORRELATION`, and the colour must step across
   the placed outline (:data:`MIN_OUTLINE_STEP`), near it and a little farther out, so a glass's
   round foot or a coin pile of a coaster's size, or the string running along an item's edge,
   is not taken for one. The sides of the other shape are compared there too, and must reach
   :data:`OTHER_SHAPE_MIN_CORRELATION`: a disc's outline partly hidden beside a square's edge
   can peak as a rounded square's, and the other way about.

Where the learned segmenter (:mod:`vision.segmentation`) runs, step 1 also takes the places
anywhere on the readable table where it sees a coaster that no outline peak holds
(:func:`likely_coaster_peaks`): motion blur or a soft focus can leave an outline too faint to
peak, or a coaster lies farther than :data:`SEARCH_REACH_MM` from the items found, while its
art still shows. Such a place may lie a few mm off, so step 2 first moves it on a small grid to
where the art fits best (:func:`_best_offsets`); the art then confirms it like any peak.

The same two steps find coasters partly *under* the items found, after the feature passes
(:func:`find_coasters_under_items`): the outline is correlated over its clear part alone
(:func:`partial_outline_peaks`), and the art over the coaster's clear pixels. Where the
segmenter runs, step 1 also takes the places where it sees a coaster's face clear of the items
found that they may hide the rest of (:func:`likely_partial_peaks`), each a few mm off.

Frames: *canvas px* (a rectified view's pixels), *table mm*, *side-local mm* (see
:mod:`vision.art`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np
from shapely import contains_xy, get_coordinates, line_interpolate_point

from games.beer_pretzels.catalogue import Face, ItemKind, Shape
from vision.art import ArtLibrary, Side
from vision.art_fit import (
    BLURS_MM,
    MAX_SHIFT_MM,
    RIM_MARGIN_SIGMAS,
    art_correlation,
    clear_share,
    ink_arts,
    refine_pose,
)
from vision.correlation import Correlator
from vision.detect import CanvasView, rectify, table_footprint_mm
from vision.errors import NoGameFound
from vision.hidden import (
    ITEM_OTHER_SHAPE_SHARE,
    OTHER_SHAPE_SHARE,
    SAME_SHAPE_SHARE,
    HiddenCoaster,
    Placement,
    covered_mask,
    distinct,
)
from vision.plane import ItemPose, TablePlane
from vision.segmentation import CoasterProbabilities

#: Scale the outlines are searched at (px per mm).
SEARCH_PX_PER_MM = 0.5
#: How far beyond the items found the outlines are searched (mm).
SEARCH_REACH_MM = 250.0
#: Gaussian smoothing before the edges are measured (sigma, mm): print and wood grain fade,
#: a coaster's outline stays.
_SMOOTH_MM = 1.5
#: Half width of the outline band of the shape templates (mm).
_BAND_MM = 1.5
#: The outline is correlated over the shape's window less the disc inscribed this far in from
#: the outline (mm): a coaster's print, unlike its outline, differs from side to side.
_INTERIOR_MARGIN_MM = 4.0
#: Normalised correlation of the edge strength with a shape's outline that makes a peak.
MIN_OUTLINE_SCORE = 0.3
#: Most peaks examined per photo (best first). Each costs a few hundredths of a second once the
#: arts are prepared; every shape is tried at each place, so a crowded table's items and their
#: duplicates of the other shape take a dozen peaks (validation 90-149's 0113: three coasters out
#: of focus, in full view, ranked 13th to 30th).
_MAX_PEAKS = 36
#: A peak's outline must be this share clear of the items found (it is a whole coaster).
MIN_CLEAR_SHARE = 0.6
#: A coaster partly under the items found shows at least this share of its outline (and less
#: than :data:`MIN_CLEAR_SHARE`; its outline's clear part is correlated alone).
MIN_PARTIAL_SHARE = 0.25
#: ...and this share of its art (a 25% arc can bound a thin crescent): on the validation and dev
#: photos the three such coasters confirmed with 10-11.4% of their art in view were all false
#: (a sliver of table beside an item's edge matching the rim of a coaster's print), those with
#: 12.3% and more mostly true.
MIN_UNDER_ART_SHARE = 0.12
#: ...and is that item seen again only within this share of its extent (same shape): its art
#: was matched clear of the items found, so it lies beside them, not on them; one mostly under
#: an item of its shape can lie 11-15 mm from its centre (held-out 0149, 0217).
UNDER_ITEM_SHARE = 0.25
#: Most places examined per photo for coasters partly under the items found (best first; a
#: crowded table shows 30-40 arcs of a coaster's size).
_MAX_PARTIAL_PEAKS = 36
#: Angle steps of the rounded square's outline templates (deg; the shape repeats every 90).
_SQUARE_STEP_DEG = 5.0
#: Angle steps of the coarse art comparison (deg).
_COARSE_STEP_DEG = 5.0
#: Fewest clear pixels (at half the view's scale) the coarse comparison judges a place on.
_MIN_COARSE_PX = 30
#: Table beyond a peak's coaster (and its shifts) rectified to confirm it (mm).
_LOCAL_MARGIN_MM = 3.0
#: Sides whose coarse correlation is within this of the best are refined...
_REFINE_WITHIN = 0.05
#: ...and none when the best is this far below :data:`MIN_CORRELATION` (on the validation
#: photos refinement changed the coarse correlation by -0.08 to +0.03).
_REFINE_GAIN = 0.1
#: Normalised correlation of the art's ink with the view's the best placement must reach...
MIN_CORRELATION = 0.62
#: ...or this, at a place the learned segmenter sees a coaster (``off_mm`` > 0) with a peak
#: score of :data:`SURE_SEEN_SCORE` or more: beside or under the items found
#: (:func:`likely_partial_peaks`) the face colour's share of the disc less the stray share (1
#: for a face in full view), elsewhere (:func:`likely_coaster_peaks`) the outline's correlation.
#: A gray coaster's print shows at half the ink contrast of the other colours', and dim or
#: blurred in full view it correlates 0.53-0.58 (fresh held-out 0386: two such coasters
#: missed, scores 0.89 and 0.99), while the places the segmenter is unsure of that fail the art
#: score 0.5-0.6 (25 fresh held-out photos).
SURE_SEEN_MIN_CORRELATION = 0.5
SURE_SEEN_SCORE = 0.85
#: A coaster of the other shape than a peak's, which no outline of its own shape supports,
#: must correlate this well (held-out-reference 0131: a disc under a square's peak, 0.92;
#: 0221: false discs and squares at the other shape's peaks, 0.64 and 0.65).
OTHER_SHAPE_MIN_CORRELATION = 0.8
#: ...and the colour step across its outline (median, Lab on OpenCV's 8-bit scale): a coaster's
#: edge shows against the table, while a coin pile or a glass's foot of about a coaster's size
#: matches a sparse print (the soft coaster's one pretzel on plain ground) with plain table all
#: along the outline (held-out 0035: a step of 2.9 where the coasters found show 10 to 97).
MIN_OUTLINE_STEP = 6.0
#: The step is measured between points this far inside and outside the outline (mm)...
_STEP_REACH_MM = 2.5
#: ...and again this far, where it must reach :data:`MIN_OUTLINE_STEP` too: a coaster's edge is
#: a step, while the string or an item's edge running along the outline is a ridge, the same
#: table on both sides (on the validation photos: false coasters along the string, steps of
#: 2.8-5.4 at 12 mm and 76-153 at 2.5 mm; coasters confirmed 67-170 at 12 mm).
_WIDE_STEP_REACH_MM = 12.0
#: ...after smoothing the view (sigma, mm)...
_STEP_SMOOTH_MM = 0.8
#: ...over at least this many points of the outline (else the coaster is not judged on it).
_MIN_STEP_POINTS = 10
#: A coaster's back is a plain ground inside a coloured rim, which the blurred edge of a plain
#: disc (a glass's foot, a shadow's end) mimics: a plain disc out of focus correlated 0.96 with
#: a back. So a back is confirmed only where its art also explains the middle, its logo in a
#: ring (the disc within this share of its half size), this well. Logged on the dev, held-out
#: and validation photos: the backs confirmed 0.59-0.98, the candidates refused 0.04-0.44 (the
#: two on the dev set false gray backs); a noisy plain disc 0.03-0.07.
BACK_LOGO_SHARE = 0.45
MIN_BACK_LOGO_CORRELATION = 0.5
#: Where the learned segmenter (:mod:`vision.segmentation`) sees a coaster, its outline need
#: not score :data:`MIN_OUTLINE_SCORE` to be looked at: a motion-blurred or out-of-focus
#: coaster's outline often scores 0.1-0.3 while its art, compared at its true place, correlates
#: 0.65-0.98. Such a place is where the probability of a coaster (any side) over a shape is
#: this much above that in a ring around it (:func:`_blob_template`)...
MIN_COASTER_CONTRAST = 0.4
#: ...(the shape less this at its edge against a ring this far beyond it, mm)...
_BLOB_MARGIN_MM = 3.0
_BLOB_RING_MM = 15.0
#: ...(the segmenter's pixels are 2-3 mm on the table, and it blurs a coaster out of focus
#: into the table: the art is compared on a grid every :data:`_OFF_GRID_MM` this far around
#: such a place, mm)...
LIKELY_OFF_MM = 3.0
_OFF_GRID_MM = 3.0
#: ...and where the art fits best on the grid's edge, the grid is laid again around that place,
#: up to this many times the peak's ``off_mm`` from it: a disc slid under the items found scores
#: alike wherever its colour stays inside, so the coaster's centre can lie beyond
#: :data:`PARTIAL_OFF_MM` (held-out-reference 0049: a blue ``three`` under a red one, 14 mm
#: from the segmenter's place).
OFF_WALK_SHARE = 2.0
#: The art is placed at the best few places of the first grid, this far apart at least (mm):
#: the coarse look, at half scale and up to half a grid step off, can rank a place where little
#: of the coaster is clear above its own.
_OFF_CANDIDATES = 3
_OFF_APART_MM = 6.0
#: ...unless a peak of the same shape lies within this (mm)...
_SAME_PLACE_MM = 10.0
#: A coaster partly under the items found, where the segmenter sees it
#: (:func:`likely_partial_peaks`): its colour over at least this share of the disc's area,
#: other clear pixels over at most this share, and the peaks ranked by the colour's share less
#: this many times the stray share; each peak is this far off (mm; the art may be placed
#: farther: :data:`OFF_WALK_SHARE`). Stray pixels are often an item the features missed beside
#: or over the coaster (held-out 0193: 0.14 of the disc around a gray coaster under a blue one
#: found, beside a red one missed); the art decides.
MIN_SEEN_SHARE = 0.15
MAX_STRAY_SHARE = 0.2
_STRAY_WEIGHT = 2.0
PARTIAL_OFF_MM = 9.0
#: A coaster that lies over another hides a part of it within this of its centre (mm: a
#: coaster's size).
NEAR_FOUND_MM = 95.0
#: ...at most this many per photo, likeliest first.
_MAX_LIKELY_PEAKS = 24


@dataclass(frozen=True)
class OutlinePeak:
    """A place where a coaster shape's outline shows: centre in table mm, the shape's angle
    (rad; meaningful for a rounded square, modulo 90 deg) and the outline correlation;
    ``off_mm``: how far from ``center_mm`` the coaster's centre may lie (0 for an outline's
    peak; :data:`LIKELY_OFF_MM` for a place the segmenter sees a coaster)."""

    shape: Shape
    center_mm: tuple[float, float]
    angle_rad: float
    score: float
    off_mm: float = 0.0


def find_coasters_by_outline(
    image_bgr: np.ndarray,
    plane: TablePlane,
    library: ArtLibrary,
    found: list[Placement],
    around_mm: np.ndarray,
    readable_px_per_mm: float,
    px_per_mm: float,
    coasters_seen: CoasterProbabilities | None = None,
) -> list[HiddenCoaster]:
    """Whole coasters, face up or face down, clear of the items ``found`` (module docstring),
    searched on the table within :data:`SEARCH_REACH_MM` of ``around_mm`` (xmin, ymin, xmax,
    ymax; table mm) that the working image shows at ``readable_px_per_mm`` or more, each
    confirmed by its art in the table around it rectified at ``px_per_mm``; best-correlated
    first, none placed where an item found or a better one lies. Given ``coasters_seen`` (the
    learned segmenter's), the places anywhere on that table where it sees a coaster are
    compared with the art too (:func:`likely_coaster_peaks`)."""
    peaks = search_outlines(
        image_bgr, plane, library, found, around_mm, readable_px_per_mm, coasters_seen
    )
    sides = _coaster_sides(library)
    return _confirm_all(image_bgr, plane, library, sides, peaks, found, px_per_mm)


def _confirm_all(
    image_bgr: np.ndarray,
    plane: TablePlane,
    library: ArtLibrary,
    sides: list[Side],
    peaks: list[OutlinePeak],
    found: list[Placement],
    px_per_mm: float,
    min_art_share: float = 0.0,
    item_share: float = SAME_SHAPE_SHARE,
    item_other_share: float = OTHER_SHAPE_SHARE,
) -> list[HiddenCoaster]:
    """The coasters at ``peaks`` the art of one of ``sides`` confirms (:func:`_confirm`) showing
    at least ``min_art_share`` of their art clear of the items ``found``; best-correlated first,
    none placed where an item found (within ``item_share`` of the larger's extent, same shape,
    ``item_other_share`` other shape: :func:`vision.hidden.distinct`) or a better one lies.
    The art of a place the segmenter is sure of (``off_mm`` > 0, a score of
    :data:`SURE_SEEN_SCORE` or more) need only correlate :data:`SURE_SEEN_MIN_CORRELATION`.
    A place the segmenter sees is one coaster: its peaks of either shape (at one centre) keep
    their best-correlated coaster only (held-out-reference 0091: a yellow ``three`` under
    others confirmed at 0.88 from the square's peak, and a double at 0.67, 20 mm off, from the
    disc's)."""
    confirmed: list[HiddenCoaster] = []
    seen_at: dict[tuple[float, float], HiddenCoaster] = {}
    for peak in peaks:
        sure = peak.off_mm > 0 and peak.score >= SURE_SEEN_SCORE
        min_correlation = SURE_SEEN_MIN_CORRELATION if sure else MIN_CORRELATION
        candidate = _confirm(
            image_bgr, plane, library, sides, peak, found, px_per_mm, min_correlation
        )
        if candidate is None or candidate.visible_share < min_art_share:
            continue
        if peak.off_mm > 0:
            other = seen_at.get(peak.center_mm)
            if other is not None and other.correlation >= candidate.correlation:
                continue
            confirmed = [c for c in confirmed if c is not other]
            seen_at[peak.center_mm] = candidate
        confirmed.append(candidate)
    return distinct(confirmed, found, item_share, item_other_share)


def _confirm(
    image_bgr: np.ndarray,
    plane: TablePlane,
    library: ArtLibrary,
    sides: list[Side],
    peak: OutlinePeak,
    found: list[Placement],
    px_per_mm: float,
    min_correlation: float = MIN_CORRELATION,
) -> HiddenCoaster | None:
    """The coaster at ``peak`` if one of ``sides`` explains the table around it, rectified at
    ``px_per_mm``, clear of the items ``found``, with a correlation of ``min_correlation`` or
    more (:func:`_best_placement`), and the colour steps across its outline
    (:func:`_outline_steps`, near it and a little farther). A peak ``off_mm`` from the centre is
    first moved where the art of its shape explains most (:func:`_best_offsets`).

    The sides of every shape are compared, not only the peak's (those of the other shape to
    :data:`OTHER_SHAPE_MIN_CORRELATION`), each shape's best placement confirmed on its own (art,
    back logo, outline steps), and the best-correlated of those kept: a disc's outline partly
    hidden under an item, beside another coaster's straight edge, can peak as a rounded
    square's at its centre (held-out-reference 0131: a red beer coaster confirmed as a rounded
    square's art at 0.68, then read again as another type 30 mm off; its own art correlates
    0.92). Each shape is confirmed on its own so that the other shape's art, a little better
    correlated on a faint print, cannot hide a placement whose outline steps. The view keeps
    the peak's shape's extent: the ink is compared as before for the peak's own shape."""
    reach = peak.shape.half_extent_mm + MAX_SHIFT_MM + _LOCAL_MARGIN_MM + _WIDE_STEP_REACH_MM
    reach += _off_reach_mm(peak)
    centre = np.asarray(peak.center_mm)
    local = rectify(
        image_bgr, plane, np.array([*(centre - reach), *(centre + reach)]), px_per_mm=px_per_mm
    )
    covered = covered_mask(local, found)
    by_shape: dict[Shape, list[Side]] = {}
    for side in sides:
        by_shape.setdefault(side.shape, []).append(side)
    places = [peak]
    if peak.off_mm > 0:
        places = _best_offsets(local, library, by_shape.get(peak.shape, []), peak, covered)
    h, w = image_bgr.shape[:2]
    reaches_mm = (_STEP_REACH_MM, _WIDE_STEP_REACH_MM)
    confirmed = []
    for place, (shape, shape_sides) in itertools.product(places, by_shape.items()):
        least = min_correlation if shape == peak.shape else OTHER_SHAPE_MIN_CORRELATION
        candidate = _best_placement(local, library, shape_sides, place, covered, least)
        if candidate is None:
            continue
        if (
            candidate.side.face is Face.DOWN
            and _logo_correlation(local, library, candidate, covered) < MIN_BACK_LOGO_CORRELATION
        ):
            continue
        steps = _outline_steps(local, plane, (w, h), candidate, covered, reaches_mm)
        if all(step is None or step >= MIN_OUTLINE_STEP for step in steps):
            confirmed.append(candidate)
    return max(confirmed, key=lambda c: c.correlation, default=None)


def _best_offsets(
    view: CanvasView,
    library: ArtLibrary,
    sides: list[Side],
    peak: OutlinePeak,
    covered: np.ndarray,
) -> list[OutlinePeak]:
    """``peak`` moved, on a grid every :data:`_OFF_GRID_MM` within its ``off_mm``, to where one
    of ``sides`` at a coarse turn explains the view's ink best (:func:`_coarse_scores`), and
    turned as that side is there (the outline's turn is a guess where the outline is faint):
    the best :data:`_OFF_CANDIDATES` such places at least :data:`_OFF_APART_MM` apart, best
    first. Where the best lies on the grid's edge the coaster may lie beyond it: the grid is
    laid again around it while that finds a better place on its edge, up to
    :data:`OFF_WALK_SHARE` times ``off_mm`` from the peak in all (the view must reach that
    far: :func:`_off_reach_mm`), and the best place so found is one more."""
    steps = np.arange(-peak.off_mm, peak.off_mm + 1e-6, _OFF_GRID_MM)
    offsets = np.array([(dx, dy) for dx in steps for dy in steps])
    origin = np.asarray(peak.center_mm, float)
    grid = list(origin + offsets)
    scored = _coarse_best(view, library, sides, grid, covered)
    places: list[tuple[np.ndarray, float, float]] = []  # (centre, score, turn rad)
    for centre, score, turn in sorted(scored, key=lambda s: -s[1]):
        if all(np.hypot(*(centre - c)) >= _OFF_APART_MM for c, _, _ in places):
            places.append((centre, score, turn))
        if len(places) == _OFF_CANDIDATES:
            break
    best = places[0]
    while _on_edge(best[0], grid, _OFF_GRID_MM):
        reach = _off_reach_mm(peak) + 1e-6
        grid = [c for c in best[0] + offsets if np.hypot(*(c - origin)) <= reach]
        found = max(_coarse_best(view, library, sides, grid, covered), key=lambda s: s[1])
        if found[1] <= best[1]:
            break
        best = found
    if all(np.hypot(*(best[0] - c)) >= _OFF_APART_MM for c, _, _ in places):
        places.append(best)
    return [
        OutlinePeak(peak.shape, (float(c[0]), float(c[1])), turn, peak.score)
        for c, _, turn in places
    ]


def _coarse_best(
    view: CanvasView,
    library: ArtLibrary,
    sides: list[Side],
    centres_mm: list[np.ndarray],
    covered: np.ndarray,
) -> list[tuple[np.ndarray, float, float]]:
    """Per centre of ``centres_mm`` (table mm): the best coarse correlation of ``sides`` there
    over their turns (:func:`_coarse_scores`) and the turn (rad) that gives it."""
    centres = [(float(x), float(y)) for x, y in centres_mm]
    best = np.full(len(centres), -np.inf)
    turns = np.zeros(len(centres))
    rows = np.arange(len(centres))
    for _, angles, scores in _coarse_scores(view, library, sides, centres, covered):
        a = scores.argmax(axis=1)
        better = scores[rows, a] > best
        best = np.where(better, scores[rows, a], best)
        turns = np.where(better, np.deg2rad(angles[a]), turns)
    return [
        (np.asarray(c), float(b), float(t)) for c, b, t in zip(centres, best, turns, strict=True)
    ]


def _off_reach_mm(peak: OutlinePeak) -> float:
    """How far from ``peak``'s centre :func:`_best_offsets` may move it (mm)."""
    return OFF_WALK_SHARE * peak.off_mm


def _on_edge(centre: np.ndarray, grid: list[np.ndarray], step_mm: float) -> bool:
    """Whether ``centre`` lacks a neighbour of the ``grid`` (table mm, ``step_mm`` apart) on one
    of its four sides."""
    points = np.asarray(grid)
    for move in ((step_mm, 0.0), (-step_mm, 0.0), (0.0, step_mm), (0.0, -step_mm)):
        if not np.any(np.hypot(*(points - (centre + move)).T) < 1e-3):
            return True
    return False


def _logo_correlation(
    view: CanvasView, library: ArtLibrary, coaster: HiddenCoaster, covered: np.ndarray
) -> float:
    """How well a coaster's art explains the middle of the view where it is placed: the disc
    within :data:`BACK_LOGO_SHARE` of its half size, clear of ``covered`` (view-sized bool)
    (:func:`vision.art_fit.art_correlation`; -1 where too little of it shows)."""
    h, w = covered.shape
    cx, cy = view.table_to_canvas(np.array([coaster.pose.center_mm]))[0]
    radius_px = BACK_LOGO_SHARE * coaster.side.shape.size_mm / 2 * view.px_per_mm
    ys, xs = np.ogrid[:h, :w]
    beyond = (xs - cx) ** 2 + (ys - cy) ** 2 > radius_px**2
    arts = ink_arts(library, coaster.side, view.px_per_mm)
    return art_correlation(view, arts, coaster.pose, covered | beyond)


def _outline_steps(
    view: CanvasView,
    plane: TablePlane,
    image_size_px: tuple[int, int],
    coaster: HiddenCoaster,
    covered: np.ndarray,
    reaches_mm: tuple[float, ...],
) -> list[float | None]:
    """Per distance of ``reaches_mm``, the median colour step (Lab, OpenCV's 8-bit scale,
    smoothed) across the placed ``coaster``'s outline in ``view``: between points that far
    inside and outside it, every mm along it, where both lie in the photo (``image_size_px``:
    working px, through ``plane``) clear of ``covered`` (view-sized bool). None when fewer than
    :data:`_MIN_STEP_POINTS` such pairs show."""
    outline = coaster.side.shape.polygon_mm.exterior
    along = np.arange(0.0, outline.length, 1.0)
    points = get_coordinates(line_interpolate_point(outline, along))
    tangent = np.roll(points, -1, axis=0) - np.roll(points, 1, axis=0)
    normal = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)
    normal *= np.sign((normal * points).sum(axis=1, keepdims=True))  # outward (convex shape)
    lab = cv2.cvtColor(view.image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab = cv2.GaussianBlur(lab, (0, 0), _STEP_SMOOTH_MM * view.px_per_mm)
    w, h = image_size_px
    steps: list[float | None] = []
    for reach_mm in reaches_mm:
        samples, usable = [], np.ones(len(points), bool)
        for offset in (-reach_mm, reach_mm):
            table = coaster.pose.local_to_table(points + offset * normal)
            px = plane.table_to_image(table)
            usable &= (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0)
            usable &= px[:, 1] <= h - 1
            xy = np.round(view.table_to_canvas(table)).astype(int)
            inside = (xy[:, 0] >= 0) & (xy[:, 0] < lab.shape[1]) & (xy[:, 1] >= 0)
            inside &= xy[:, 1] < lab.shape[0]
            usable &= inside
            xy[~inside] = 0
            usable &= ~covered[xy[:, 1], xy[:, 0]]
            samples.append(lab[xy[:, 1], xy[:, 0]])
        if usable.sum() < _MIN_STEP_POINTS:
            steps.append(None)
        else:
            steps.append(float(np.median(np.linalg.norm(samples[0] - samples[1], axis=1)[usable])))
    return steps


def search_outlines(
    image_bgr: np.ndarray,
    plane: TablePlane,
    library: ArtLibrary,
    found: Iterable[Placement],
    around_mm: np.ndarray,
    readable_px_per_mm: float,
    coasters_seen: CoasterProbabilities | None = None,
) -> list[OutlinePeak]:
    """Places where a coaster's whole outline shows clear of the items ``found`` (the
    arguments of :func:`find_coasters_by_outline`), best first; then, given
    ``coasters_seen``, the places where the segmenter sees one that no such peak holds
    (:func:`likely_coaster_peaks`), likeliest first."""
    reach = SEARCH_REACH_MM if coasters_seen is None else np.inf
    searched = _search_view(image_bgr, plane, found, around_mm, readable_px_per_mm, reach)
    if searched is None:
        return []
    view, covered = searched
    shapes = {s.shape for s in _coaster_faces(library)}
    scores = _outline_scores(view, covered, shapes, (MIN_CLEAR_SHARE, np.inf))
    near = np.asarray(around_mm, float) + np.array([-1, -1, 1, 1]) * SEARCH_REACH_MM
    outside = np.ones(covered.shape, bool)  # outline peaks are searched near the items found
    x0, y0 = np.floor(view.table_to_canvas(near[:2])).astype(int).clip(0)
    x1, y1 = np.ceil(view.table_to_canvas(near[2:])).astype(int).clip(0)
    outside[y0:y1, x0:x1] = False
    peaks = _peaks(view, scores, covered | outside, _MAX_PEAKS)
    if coasters_seen is None:
        return peaks
    seen = rectify(
        coasters_seen.probabilities,
        plane,
        view.bounds_mm(),
        px_per_mm=SEARCH_PX_PER_MM,
        image_scale=coasters_seen.scale,
    ).image_bgr
    return peaks + likely_coaster_peaks(view, covered, scores, seen, peaks)


def find_coasters_under_items(
    image_bgr: np.ndarray,
    plane: TablePlane,
    library: ArtLibrary,
    found: list[Placement],
    around_mm: np.ndarray,
    readable_px_per_mm: float,
    px_per_mm: float,
    coasters_seen: CoasterProbabilities | None = None,
    near_mm: list[tuple[float, float]] | None = None,
) -> list[HiddenCoaster]:
    """Face-up coasters partly under the items ``found`` whose outline shows where it is clear
    of them (:func:`partial_outline_peaks`), or, given ``coasters_seen``, where the segmenter
    sees a coaster's face clear of them that they may hide the rest of
    (:func:`likely_partial_peaks`); each confirmed by its art over its pixels clear of them like
    a whole one and showing :data:`MIN_UNDER_ART_SHARE` or more of its art (the arguments of
    :func:`find_coasters_by_outline`); best-correlated first, none placed where an item found
    or a better one lies. Given ``near_mm`` (table mm), only places within
    :data:`NEAR_FOUND_MM` of one of them are looked at."""
    searched = _search_view(image_bgr, plane, found, around_mm, readable_px_per_mm, SEARCH_REACH_MM)
    if searched is None:
        return []
    faces = _coaster_faces(library)
    shapes = {s.shape for s in faces}
    peaks = partial_outline_peaks(*searched, shapes)
    if coasters_seen is not None:
        view, covered = searched
        seen = rectify(
            coasters_seen.probabilities,
            plane,
            view.bounds_mm(),
            px_per_mm=SEARCH_PX_PER_MM,
            image_scale=coasters_seen.scale,
        ).image_bgr
        faces_seen = [k for k, name in enumerate(coasters_seen.class_names) if "face" in name]
        peaks += likely_partial_peaks(view, covered, seen[:, :, faces_seen], shapes, peaks)
    if near_mm is not None:
        peaks = [p for p in peaks if _within(p.center_mm, near_mm, NEAR_FOUND_MM + p.off_mm)]
    return _confirm_all(
        image_bgr,
        plane,
        library,
        faces,
        peaks,
        found,
        px_per_mm,
        MIN_UNDER_ART_SHARE,
        UNDER_ITEM_SHARE,
        ITEM_OTHER_SHAPE_SHARE,
    )


def _within(
    point_mm: tuple[float, float], centres_mm: list[tuple[float, float]], reach_mm: float
) -> bool:
    """Whether ``point_mm`` lies within ``reach_mm`` of one of ``centres_mm`` (table mm)."""
    gaps = np.asarray(centres_mm, float).reshape(-1, 2) - np.asarray(point_mm, float)
    return bool(len(gaps) and np.hypot(gaps[:, 0], gaps[:, 1]).min() < reach_mm)


def _search_view(
    image_bgr: np.ndarray,
    plane: TablePlane,
    found: Iterable[Placement],
    around_mm: np.ndarray,
    readable_px_per_mm: float,
    reach_mm: float,
) -> tuple[CanvasView, np.ndarray] | None:
    """The table within ``reach_mm`` of ``around_mm`` that the photo shows at
    ``readable_px_per_mm`` or more, rectified at :data:`SEARCH_PX_PER_MM`, and its
    (canvas-sized) bool of what is not to be searched: the items ``found`` and what lies beyond
    the photo; None when no such table shows."""
    h, w = image_bgr.shape[:2]
    try:
        footprint = table_footprint_mm(plane, (w, h), readable_px_per_mm)
    except NoGameFound:  # nowhere readable beyond the items found: nothing more to search
        return None
    region = np.asarray(around_mm, float) + np.array([-1, -1, 1, 1]) * reach_mm
    low = np.maximum(region[:2], footprint[:2])
    high = np.minimum(region[2:], footprint[2:])
    if (high - low).min() <= 0:
        return None
    bounds = np.array([*low, *high])
    view = rectify(image_bgr, plane, bounds, px_per_mm=SEARCH_PX_PER_MM)
    # the table beyond the photo's edges is not seen: as good as covered
    white = np.full_like(image_bgr, 255)
    seen = rectify(white, plane, bounds, px_per_mm=SEARCH_PX_PER_MM).image_bgr[:, :, 0] > 127
    return view, covered_mask(view, found) | ~seen


def bounds_with(
    bounds_mm: np.ndarray, coasters: list[HiddenCoaster], margin_mm: float
) -> np.ndarray:
    """``bounds_mm`` (xmin, ymin, xmax, ymax; table mm) widened to hold every one of
    ``coasters`` with ``margin_mm`` around it."""
    out = np.asarray(bounds_mm, float).copy()
    for coaster in coasters:
        reach = coaster.side.shape.half_extent_mm + margin_mm
        out[:2] = np.minimum(out[:2], np.asarray(coaster.pose.center_mm) - reach)
        out[2:] = np.maximum(out[2:], np.asarray(coaster.pose.center_mm) + reach)
    return out


def _coaster_faces(library: ArtLibrary) -> list[Side]:
    return [s for s in library.sides if s.kind is ItemKind.COASTER and s.face is Face.UP]


def _coaster_sides(library: ArtLibrary) -> list[Side]:
    """Every coaster side: each type's face and each shape's back."""
    return [s for s in library.sides if s.kind is ItemKind.COASTER]


def likely_coaster_peaks(
    view: CanvasView,
    covered: np.ndarray,
    scores: list[_OutlineScores],
    likely: np.ndarray,
    peaks: list[OutlinePeak],
) -> list[OutlinePeak]:
    """Places in ``view`` where the segmenter sees a coaster that none of ``peaks`` holds.

    ``likely``: (H, W, C) float32 0..1 of the canvas, the probability of each coaster class
    (a face's colour, the back); ``scores``: each shape's outline scores
    (:func:`_outline_scores`, -1 where too little of the outline is clear of ``covered``). Per
    shape, the local maxima (within half its size) of the contrast between the shape and a ring
    around it (:func:`_blob_template`) of one class, or of all together (coasters side by side
    are told apart by their colours), reaching :data:`MIN_COASTER_CONTRAST`, not on ``covered``
    pixels, where enough of the outline is clear, and kept unless a peak of the same shape lies
    within :data:`_SAME_PLACE_MM`; the turn is the outline's best there; likeliest first, at
    most :data:`_MAX_LIKELY_PEAKS`, each :data:`LIKELY_OFF_MM` off at most.
    """
    channels = [likely[:, :, k] for k in range(likely.shape[2])] + [likely.sum(axis=2)]
    q = view.px_per_mm
    taken = {s.shape: [p.center_mm for p in peaks if p.shape == s.shape] for s in scores}
    found: list[tuple[float, OutlinePeak]] = []
    templates = [_blob_template(shape_scores.shape, q) for shape_scores in scores]
    correlator = Correlator(covered.shape, max((t.shape[0] for t in templates), default=1))
    spectra = [correlator.image(channel) for channel in channels] if scores else []
    for shape_scores, template in zip(scores, templates, strict=True):
        shape = shape_scores.shape
        template_f = correlator.kernel(template)
        contrast = np.max([correlator.correlate(f, template_f) for f in spectra], axis=0)
        radius = max(1, round(0.5 * shape.size_mm * q))
        kernel = np.ones((2 * radius + 1, 2 * radius + 1), np.uint8)
        keep = (contrast >= cv2.dilate(contrast, kernel)) & (contrast >= MIN_COASTER_CONTRAST)
        keep &= ~covered & (shape_scores.best > -1.0)
        ys, xs = np.nonzero(keep)
        for row, col in sorted(zip(ys, xs, strict=True), key=lambda rc: -contrast[rc]):
            x, y = view.canvas_to_table(np.array([[col, row]], float))[0]
            if any(np.hypot(x - tx, y - ty) < _SAME_PLACE_MM for tx, ty in taken[shape]):
                continue
            taken[shape].append((float(x), float(y)))
            angle, score = shape_scores.angle_rad[row, col], shape_scores.best[row, col]
            peak = OutlinePeak(
                shape, (float(x), float(y)), float(angle), float(score), LIKELY_OFF_MM
            )
            found.append((float(contrast[row, col]), peak))
    found.sort(key=lambda item: -item[0])
    return [peak for _, peak in found[:_MAX_LIKELY_PEAKS]]


def likely_partial_peaks(
    view: CanvasView,
    covered: np.ndarray,
    likely: np.ndarray,
    shapes: set[Shape],
    peaks: list[OutlinePeak],
) -> list[OutlinePeak]:
    """Places in ``view`` where the segmenter sees part of a coaster's face clear of
    ``covered`` (canvas-sized bool: the items found) that they may hide the rest of, and that
    none of ``peaks`` holds.

    ``likely``: (H, W, C) float32 0..1 of the canvas, the probability of each face colour. Per
    shape and colour, a disc :data:`_BLOB_MARGIN_MM` inside the shape is placed where its clear
    pixels are that colour (their mean probability, over the disc's area, reaching
    :data:`MIN_SEEN_SHARE`) and hardly any of them are not (at most :data:`MAX_STRAY_SHARE` of
    its area; the covered pixels count neither way); the local maxima (within half its size)
    of the colour's share less :data:`_STRAY_WEIGHT` times the stray share, unless a peak of
    the same shape lies within :data:`_SAME_PLACE_MM`. A disc slid under the items found
    scores alike anywhere its colour stays inside, so each is :data:`PARTIAL_OFF_MM` off (the
    art is looked for that far around it, and farther where it fits best on that grid's edge:
    :func:`_best_offsets`); best first, at most :data:`_MAX_LIKELY_PEAKS`.
    """
    q = view.px_per_mm
    clear = (~covered).astype(np.float32)
    taken = {shape: [p.center_mm for p in peaks if p.shape == shape] for shape in shapes}
    found: list[OutlinePeak] = []
    ordered = sorted(shapes, key=lambda s: (s.kind, s.size_mm))
    discs = [_disc(shape.size_mm / 2 - _BLOB_MARGIN_MM, q) for shape in ordered]
    correlator = Correlator(covered.shape, max((d.shape[0] for d in discs), default=1))
    clear_f = correlator.image(clear)
    colours_f = [correlator.image(likely[:, :, k] * clear) for k in range(likely.shape[2])]
    for shape, disc in zip(ordered, discs, strict=True):
        window = max(1, round(0.5 * shape.size_mm * q))
        kernel = np.ones((2 * window + 1, 2 * window + 1), np.uint8)
        disc_f = correlator.kernel(disc)
        clear_sums = correlator.correlate(clear_f, disc_f)
        for colour_f in colours_f:
            seen = correlator.correlate(colour_f, disc_f)
            stray = clear_sums - seen
            score = seen - _STRAY_WEIGHT * stray
            keep = (seen >= MIN_SEEN_SHARE) & (stray <= MAX_STRAY_SHARE)
            keep &= score >= cv2.dilate(score, kernel)
            ys, xs = np.nonzero(keep)
            for row, col in sorted(zip(ys, xs, strict=True), key=lambda rc: -score[rc]):
                x, y = view.canvas_to_table(np.array([[col, row]], float))[0]
                if any(np.hypot(x - tx, y - ty) < _SAME_PLACE_MM for tx, ty in taken[shape]):
                    continue
                taken[shape].append((float(x), float(y)))
                value = float(score[row, col])
                found.append(OutlinePeak(shape, (float(x), float(y)), 0.0, value, PARTIAL_OFF_MM))
    found.sort(key=lambda peak: -peak.score)
    return found[:_MAX_LIKELY_PEAKS]


def _disc(radius_mm: float, px_per_mm: float) -> np.ndarray:
    """(n, n) float32 at ``px_per_mm``: a disc of ``radius_mm``, its weights summing to 1."""
    half = int(np.ceil(radius_mm * px_per_mm))
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1] / px_per_mm
    disc = (np.hypot(xx, yy) <= radius_mm).astype(np.float32)
    return disc / disc.sum()


def _blob_template(shape: Shape, px_per_mm: float) -> np.ndarray:
    """(n, n) float32 at ``px_per_mm``: the mean over the shape (less :data:`_BLOB_MARGIN_MM`
    at its edge, which the segmenter blurs) minus the mean over the ring from
    :data:`_BLOB_MARGIN_MM` to :data:`_BLOB_RING_MM` beyond it; a disc stands for a rounded
    square at any turn (their shapes differ by a few mm at the corners)."""
    radius = shape.size_mm / 2
    half = int(np.ceil((radius * np.sqrt(2) + _BLOB_RING_MM) * px_per_mm))
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1] / px_per_mm
    r = np.hypot(xx, yy)
    inside = (r <= radius - _BLOB_MARGIN_MM).astype(np.float32)
    ring = ((r >= radius + _BLOB_MARGIN_MM) & (r <= radius + _BLOB_RING_MM)).astype(np.float32)
    return inside / inside.sum() - ring / ring.sum()


def partial_outline_peaks(
    view: CanvasView, covered: np.ndarray, shapes: set[Shape]
) -> list[OutlinePeak]:
    """Places in ``view`` where one of ``shapes`` lies partly under ``covered`` (canvas-sized
    bool) and shows its outline where it is clear: between :data:`MIN_PARTIAL_SHARE` and
    :data:`MIN_CLEAR_SHARE` of the outline clear, and the edge strength around it correlating
    :data:`MIN_OUTLINE_SCORE` or more with the outline there (:func:`_outline_scores`); best
    first, at most :data:`_MAX_PARTIAL_PEAKS`."""
    scores = _outline_scores(view, covered, shapes, (MIN_PARTIAL_SHARE, MIN_CLEAR_SHARE))
    return _peaks(view, scores, None, _MAX_PARTIAL_PEAKS)


@dataclass(frozen=True)
class _OutlineScores:
    """Per canvas px, one shape's best outline correlation over its turns (-1 where none
    qualifies), and the turn (rad) that gave it."""

    shape: Shape
    best: np.ndarray
    angle_rad: np.ndarray


def _outline_scores(
    view: CanvasView,
    covered: np.ndarray,
    shapes: set[Shape],
    clear_share: tuple[float, float],
) -> list[_OutlineScores]:
    """Per shape, the normalised correlation of the view's edge strength
    (:func:`_edge_strength`) with the shape's outline band (:func:`_outline_template`), best over
    its turns, per canvas px; over the shape's window less its interior
    (:func:`_interior_mask`: the print, which differs from side to side, neither helps nor hurts)
    and less ``covered`` (canvas-sized bool: the items found neither help nor hurt); only where
    the share of the outline clear of ``covered`` lies in ``clear_share`` (low <= share < high)."""
    q = view.px_per_mm
    clear = (~covered).astype(np.float32)
    edges = _edge_strength(view.image_bgr, _SMOOTH_MM * q) * clear
    ordered = sorted(shapes, key=lambda s: (s.kind, s.size_mm))
    # each shape's window less its interior
    outside = [(_interior_mask(shape, q) == 0).astype(np.float32) for shape in ordered]
    correlator = Correlator(edges.shape, max((w.shape[0] for w in outside), default=1))
    clear_f, edges_f, edges_sq_f = map(correlator.image, (clear, edges, edges * edges))
    low, high = clear_share
    out = []
    for shape, weights in zip(ordered, outside, strict=True):
        weights_f = correlator.kernel(weights)
        n = np.maximum(correlator.correlate(clear_f, weights_f), 1.0)
        edge_sum = correlator.correlate(edges_f, weights_f)
        edge_var = correlator.correlate(edges_sq_f, weights_f) - edge_sum * edge_sum / n
        best = np.full(edges.shape, -1.0, np.float32)
        best_angle = np.zeros(edges.shape, np.float32)
        for angle in _outline_angles(shape):
            template = _outline_template(shape, angle, q) * weights
            template_f = correlator.kernel(template)
            band = correlator.correlate(clear_f, template_f)
            covariance = correlator.correlate(edges_f, template_f) - band * edge_sum / n
            band_var = band - band * band / n
            score = covariance / np.sqrt(np.maximum(band_var * edge_var, 1e-6))
            share = band / template.sum()
            score[(share < low) | (share >= high)] = -1.0
            better = score > best
            best[better] = score[better]
            best_angle[better] = angle
        out.append(_OutlineScores(shape, best, best_angle))
    return out


def _peaks(
    view: CanvasView, scores: list[_OutlineScores], covered: np.ndarray | None, most: int
) -> list[OutlinePeak]:
    """Each shape's local maxima of its ``scores`` (within half its size) scoring
    :data:`MIN_OUTLINE_SCORE` or more, not on ``covered`` pixels (canvas-sized bool, when
    given); best first over all shapes, at most ``most``. A place can hold a peak of each shape:
    a disc's outline beside a straight edge can score below a square's, and the art decides."""
    peaks = []
    for shape_scores in scores:
        best = shape_scores.best
        radius = max(1, round(0.5 * shape_scores.shape.size_mm * view.px_per_mm))
        local_max = best >= cv2.dilate(best, np.ones((2 * radius + 1, 2 * radius + 1), np.uint8))
        keep = local_max & (best >= MIN_OUTLINE_SCORE)
        if covered is not None:
            keep &= ~covered
        ys, xs = np.nonzero(keep)
        centres = view.canvas_to_table(np.stack([xs, ys], axis=1).astype(float))
        for (x, y), row, col in zip(centres, ys, xs, strict=True):
            angle = float(shape_scores.angle_rad[row, col])
            score = float(best[row, col])
            peaks.append(OutlinePeak(shape_scores.shape, (float(x), float(y)), angle, score))
    return sorted(peaks, key=lambda peak: -peak.score)[:most]


def _edge_strength(image_bgr: np.ndarray, sigma_px: float) -> np.ndarray:
    """(H, W) float32 colour edge strength: the Lab gradient magnitude after smoothing."""
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab = cv2.GaussianBlur(lab, (0, 0), max(sigma_px, 0.5))
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    return np.sqrt((gx * gx + gy * gy).sum(axis=2))


def _outline_angles(shape: Shape) -> list[float]:
    """Angles (rad) the shape's outline is searched at: one for a disc."""
    if shape.kind == "circle":
        return [0.0]
    return [float(np.deg2rad(a)) for a in np.arange(0.0, 90.0, _SQUARE_STEP_DEG)]


def _outline_template(shape: Shape, angle_rad: float, px_per_mm: float) -> np.ndarray:
    """(n, n) float32: 1 on the shape's outline band (turned by ``angle_rad``), 0 elsewhere,
    with a margin of a third of the shape's size around it (the table beside the outline)."""
    half = shape.half_extent_mm * (1 + 2 / 3)
    n = 2 * int(np.ceil(half * px_per_mm)) + 1
    turned = ItemPose((0.0, 0.0), angle_rad).local_to_table(shape.polygon_mm.exterior.coords)
    px = turned * px_per_mm + (n - 1) / 2
    template = np.zeros((n, n), np.uint8)
    width = max(1, round(2 * _BAND_MM * px_per_mm))
    cv2.polylines(template, [np.round(px * 16).astype(np.int32)], True, 1, width, cv2.LINE_8, 4)
    return template.astype(np.float32)


def _interior_mask(shape: Shape, px_per_mm: float) -> np.ndarray:
    """(n, n) uint8, the size of :func:`_outline_template`: 1 inside the disc inscribed in the
    shape :data:`_INTERIOR_MARGIN_MM` in from its outline (the same at every turn), 0 around."""
    n = _outline_template(shape, 0.0, px_per_mm).shape[0]
    yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    radius = (shape.size_mm / 2 - _INTERIOR_MARGIN_MM) * px_per_mm
    return (np.hypot(xx, yy) <= radius).astype(np.uint8)


def _clear_at(view: CanvasView, covered: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """(N,) bool: which of the (N, 2) table-mm points lie inside the view, clear of ``covered``
    (canvas-sized bool)."""
    xy = np.round(view.table_to_canvas(points_mm)).astype(int)
    h, w = covered.shape
    inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    clear = np.zeros(len(xy), bool)
    clear[inside] = ~covered[xy[inside, 1], xy[inside, 0]]
    return clear


def _best_placement(
    view: CanvasView,
    library: ArtLibrary,
    sides: list[Side],
    peak: OutlinePeak,
    covered: np.ndarray,
    min_correlation: float = MIN_CORRELATION,
) -> HiddenCoaster | None:
    """The side, angle and shift whose art best explains the view's ink around ``peak``, if
    it correlates at least ``min_correlation``. Every side is turned in coarse steps in the
    view at half scale (:func:`_coarse_turns`); those within :data:`_REFINE_WITHIN` of the best
    are refined at full scale, unless the best is :data:`_REFINE_GAIN` short of the target."""
    coarse = _coarse_turns(view, library, sides, peak, covered)
    top = max((c[0] for c in coarse), default=-1.0)
    if top < min_correlation - _REFINE_GAIN:
        return None
    best: tuple[float, Side, ItemPose] | None = None
    for side in dict.fromkeys(c[1] for c in coarse):
        score, _, pose = max((c for c in coarse if c[1] == side), key=lambda c: c[0])
        if score < top - _REFINE_WITHIN:
            continue
        score, pose = refine_pose(view, ink_arts(library, side, view.px_per_mm), pose, covered)
        if best is None or score > best[0]:
            best = (score, side, pose)
    if best is None or best[0] < min_correlation:
        return None
    score, side, pose = best
    share = clear_share(view, ink_arts(library, side, view.px_per_mm), pose, covered)
    return HiddenCoaster(side, pose, _clear_points(view, side, pose, covered), score, share)


def _coarse_turns(
    view: CanvasView,
    library: ArtLibrary,
    sides: list[Side],
    peak: OutlinePeak,
    covered: np.ndarray,
) -> list[tuple[float, Side, ItemPose]]:
    """(correlation, side, pose) of every side at every coarse turn at the peak's centre
    (:func:`_coarse_scores`); a rounded square at a rounded square's peak only near its
    outline's angle (within 6 deg, every 90)."""
    out = []
    for side, angles, scores in _coarse_scores(view, library, sides, [peak.center_mm], covered):
        score = scores[0]
        if side.shape.kind != "circle" and side.shape == peak.shape:
            off = (angles - np.rad2deg(peak.angle_rad) + 45.0) % 90.0 - 45.0
            score = np.where(np.abs(off) <= 6.0, score, -1.0)
        for a, value in zip(angles, score, strict=True):
            if value > -1.0:
                out.append((float(value), side, ItemPose(peak.center_mm, float(np.deg2rad(a)))))
    return out


def _coarse_scores(
    view: CanvasView,
    library: ArtLibrary,
    sides: list[Side],
    centres_mm: list[tuple[float, float]],
    covered: np.ndarray,
) -> list[tuple[Side, np.ndarray, np.ndarray]]:
    """Per side: its coarse turns (deg) and (len(centres_mm), turns) correlations, -1 where
    too little shows: the view's ink at half scale against the side's art ink turned every
    :data:`_COARSE_STEP_DEG` (:meth:`vision.art.ArtLibrary.turned_ink`) at each centre (table
    mm), over the disc inscribed in the shape clear of ``covered`` at that centre (for a
    blurred variant, :data:`~vision.art_fit.RIM_MARGIN_SIGMAS` of its blur in from the rim)."""
    p = view.px_per_mm / 2
    ink = cv2.resize(view.ink, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    ink = ink.astype(np.float32)
    clear = cv2.resize((~covered).astype(np.float32), ink.shape[::-1], interpolation=cv2.INTER_AREA)
    # pixel centres: x_half + 0.5 = (x + 0.5) / 2
    at = [(float(x), float(y)) for x, y in (view.table_to_canvas(centres_mm) + 0.5) / 2 - 0.5]
    out = []
    for side in sides:
        turned = library.turned_ink(side, p, _COARSE_STEP_DEG, BLURS_MM)
        n = turned.stack.shape[-1]
        patches = np.stack([cv2.getRectSubPix(ink, (n, n), c) for c in at]).reshape(len(at), -1)
        seen = np.stack([cv2.getRectSubPix(clear, (n, n), c) > 0.99 for c in at])
        seen = seen.reshape(len(at), -1)
        yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
        radius = np.hypot(xx, yy).ravel()
        # the variants of each reference colour, in BLURS_MM's order
        blurs = np.array(BLURS_MM * (turned.stack.shape[1] // len(BLURS_MM)))
        score = np.full((len(at), len(turned.angles_deg)), -1.0)
        for blur in BLURS_MM:
            disc = radius < (side.shape.size_mm / 2 - RIM_MARGIN_SIGMAS * blur) * p - 1
            arts = turned.stack[:, blurs == blur].reshape(-1, n * n)[:, disc]
            correlation = _masked_correlation(patches[:, disc], seen[:, disc], arts)
            correlation = correlation.reshape(len(at), len(turned.angles_deg), -1)
            score = np.maximum(score, correlation.max(axis=2))
        out.append((side, turned.angles_deg, score))
    return out


def _masked_correlation(observed: np.ndarray, masks: np.ndarray, arts: np.ndarray) -> np.ndarray:
    """(C, K) normalised correlation of each of C ``observed`` pixel rows (C, P) with each of K
    ``arts`` rows (K, P) over that row's own ``masks`` (C, P bool); -1 where a mask holds
    fewer than :data:`_MIN_COARSE_PX` pixels."""
    m = masks.astype(np.float32)
    # constant shifts leave a correlation as it is, and keep the sums' float32 precision
    o = observed - observed.mean()
    a = arts - arts.mean(axis=1, keepdims=True)
    count = np.maximum(m.sum(axis=1), 1.0)[:, None]
    om = o * m
    sum_o = om.sum(axis=1)[:, None]
    var_o = (om * o).sum(axis=1)[:, None] - sum_o**2 / count
    sum_a = m @ a.T
    var_a = m @ (a * a).T - sum_a**2 / count
    covariance = om @ a.T - sum_o * sum_a / count
    correlation = covariance / np.sqrt(np.maximum(var_o * var_a, 1e-12))
    return np.where(count >= _MIN_COARSE_PX, correlation, -1.0)


def _clear_points(view: CanvasView, side: Side, pose: ItemPose, covered: np.ndarray) -> np.ndarray:
    """(N, 2) side-local mm: a 10 mm grid over the side's shape, and points every 5 mm along
    its outline 2 mm in (a back's colour shows on its rim alone), where the view shows them
    clear of ``covered`` (the pixels later stages judge the coaster's colour on)."""
    half = side.shape.half_extent_mm
    g = np.arange(-half, half + 1e-6, 10.0)
    xx, yy = np.meshgrid(g, g)
    points = np.stack([xx.ravel(), yy.ravel()], 1)
    polygon = side.shape.polygon_mm.buffer(-5.0)
    points = points[contains_xy(polygon, points[:, 0], points[:, 1])]
    rim = side.shape.polygon_mm.buffer(-2.0).exterior
    along = get_coordinates(line_interpolate_point(rim, np.arange(0.0, rim.length, 5.0)))
    points = np.vstack([points, along])
    return points[_clear_at(view, covered, pose.local_to_table(points))]
