"""Whether a view rectified with a refined plane shows item sides that an earlier search missed.

The pipeline rectifies the table with a first plane, finds the item sides by their art, fits a
better plane to them and rectifies again (:func:`vision.pipeline._detect_with_refined_plane`).
The new view is worth a full search only when it shows an item the first did not find: on 16
dev photos, 5 of 19 such searches did; the other 14 searched the whole item region again (1.5-3
s each on one core) to find no more items.

So the new view is first searched only where the segmenter sees items that the items found do
not explain (:func:`unexplained_region`): the segmenter's item pixels outside the found items'
outlines, in parts wide enough to hold a findable side. A side found there that none of the
found ones is (:func:`finds_new_sides`) calls for the full search.

Frames: ``old_plane`` and ``plane`` each map their own table frame (mm) to the same working
image (px); masks are (H, W) uint8 of the new view's canvas, 255 where set.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.art import ArtLibrary
from vision.detect import CanvasView, SideDetection, detect_sides, region_in_view
from vision.plane import TablePlane
from vision.segmentation import ItemRegion

#: Parts of the unexplained region narrower than this (mm) are left out: a side needs more of
#: its art in view than that for its features to be matched (dev set: items with under a
#: quarter of their outline in view were found 27% of the time, a quarter to a half 91%), and
#: thin bands remain along every found item's edge where its outline and the segmenter's
#: pixels differ by a few mm.
UNEXPLAINED_MIN_WIDTH_MM = 12.0
#: The features of the unexplained parts are taken this far around them (mm): a side's art
#: reaches to its edge, next to the items lying over it.
UNEXPLAINED_REACH_MM = 8.0
#: Where the unexplained region is this share of the segmenter's or more (a cloth it takes for
#: coasters), the full search costs little more than the search there: it is made at once.
MAX_UNEXPLAINED_SHARE = 0.5
#: A side found in the unexplained region is one already found when a found side of the same
#: kind lies within this distance (mm, centre to centre, on the new plane).
SAME_SIDE_MM = 10.0


def finds_new_sides(
    view: CanvasView,
    plane: TablePlane,
    old_plane: TablePlane,
    found: list[SideDetection],
    items_seen: ItemRegion,
    library: ArtLibrary,
) -> bool:
    """Whether ``view`` (rectified with ``plane``) shows an item side that none of ``found``
    (poses on ``old_plane``'s table) is, searched where the segmenter's unexpanded item region
    ``items_seen`` is left unexplained by them (:func:`unexplained_region`); True at once where
    that is most of it (:data:`MAX_UNEXPLAINED_SHARE`)."""
    footprints = footprints_in_view(view, plane, old_plane, found)
    seen = region_in_view(items_seen, plane, view)
    where = unexplained_region(seen, footprints, view.px_per_mm)
    share = np.count_nonzero(where) / max(1, np.count_nonzero(seen))
    if share == 0.0:
        return False
    if share >= MAX_UNEXPLAINED_SHARE:
        return True
    centres = _on_plane(np.array([d.pose.center_mm for d in found]), old_plane, plane)
    for side in detect_sides(view, library, where):
        same = [k for k, d in enumerate(found) if d.side.label == side.side.label]
        if not same:
            return True
        distance = np.hypot(*(centres[same] - np.asarray(side.pose.center_mm)).T)
        if distance.min() > SAME_SIDE_MM:
            return True
    return False


def footprints_in_view(
    view: CanvasView, plane: TablePlane, old_plane: TablePlane, found: list[SideDetection]
) -> np.ndarray:
    """The outlines of the ``found`` sides (poses on ``old_plane``'s table), filled in the
    canvas of ``view`` (rectified with ``plane``)."""
    h, w = view.image_bgr.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for d in found:
        outline = np.asarray(d.side.shape.polygon_mm.exterior.coords)[:-1]
        canvas = view.table_to_canvas(_on_plane(d.pose.local_to_table(outline), old_plane, plane))
        if np.isfinite(canvas).all():
            cv2.fillPoly(mask, [np.round(canvas).astype(np.int32)], 255)
    return mask


def unexplained_region(region: np.ndarray, footprints: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The ``region`` (where the segmenter sees items) outside the ``footprints`` of the items
    found, less its parts narrower than :data:`UNEXPLAINED_MIN_WIDTH_MM`, grown by
    :data:`UNEXPLAINED_REACH_MM`; all canvas masks at ``px_per_mm``."""
    left = ((region > 0) & (footprints == 0)).astype(np.uint8)
    wide = cv2.morphologyEx(left, cv2.MORPH_OPEN, _disc(UNEXPLAINED_MIN_WIDTH_MM * px_per_mm))
    grown = cv2.dilate(wide, _disc(2 * UNEXPLAINED_REACH_MM * px_per_mm))
    return grown * np.uint8(255)


def _disc(diameter_px: float) -> np.ndarray:
    size = 2 * max(1, round(diameter_px / 2)) + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))


def _on_plane(points_mm: np.ndarray, old_plane: TablePlane, plane: TablePlane) -> np.ndarray:
    """(N, 2) table points of ``old_plane`` (mm) on ``plane``'s table (mm): the same image px."""
    return plane.image_to_table(old_plane.table_to_image(np.asarray(points_mm, float)))
