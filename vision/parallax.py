"""Parallax of lifted items: where an item seen on a stack lies in the table plane.

Every item is measured from its printed top surface, and the plane is fitted to those surfaces,
so an item's pose is where its top surface would lie in the plane the features were fitted in.
An item lying on others is lifted by them, and the camera sees its top surface displaced away
from the foot of the camera's perpendicular on the table, by the lift times the tangent of the
viewing angle: a coaster settled on another (lifted about 1.2 mm) seen 30 degrees off vertical
appears 0.7 mm farther out than it lies, one on a stack of three over 1 mm. The rules decide
covers and touches in the table plane to within half a millimetre, so the poses are moved back
by the lift before the scene is scored.

The lift of each item comes from the stacking order: an item settles, tilted, on the highest
item under it that it overlaps (:func:`stack_heights_mm`). The camera's position comes from the
plane's homography (:func:`camera_centre`).

Frames: table mm of the fitted plane (x right, y down, as :class:`vision.plane.TablePlane`);
heights in mm above the table, toward the camera.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import shapely
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Catalogue, ItemKind
from games.beer_pretzels.geometry import item_polygon_mm
from games.beer_pretzels.scene import PlacedItem
from vision.icon_covers import IconCover
from vision.plane import TYPICAL_FOCAL_PER_LONG_SIDE, TablePlane

#: Two items touch as supports when their outlines overlap by more than this (mm^2).
MIN_SUPPORT_OVERLAP_MM2 = 1.0
#: A tossed item lying partly on others settles tilted: its top surface at its centre stands
#: its thickness plus this share of its highest support's height above the table. Measured on
#: the dev set's ground truth: 0.6 for every one of its 249 items lying on others (median and
#: quartiles alike), whatever their overlap; an item lying flat on a stack would be 1.
SETTLED_SHARE = 0.6
#: A focal length estimated from the plane is used only within this range (px per px of the
#: working image's long side); outside it, or for a view too square-on to tell, a typical
#: phone's (:data:`vision.plane.TYPICAL_FOCAL_PER_LONG_SIDE`).
FOCAL_PER_LONG_SIDE_RANGE = (0.4, 4.0)


@dataclass(frozen=True)
class CameraCentre:
    """The camera's optical centre over the plane: the foot of its perpendicular on the plane
    (table mm) and its height above the plane (mm)."""

    foot_mm: tuple[float, float]
    height_mm: float

    def onto_table(self, points_mm: np.ndarray, lift_mm: float | np.ndarray) -> np.ndarray:
        """(N, 2) table mm where points seen at ``points_mm`` lie, when they are ``lift_mm``
        (one for all, or (N,)) above the plane (negative: below it): a scaling about the foot
        by (H - lift) / H."""
        foot = np.asarray(self.foot_mm)
        factor = (self.height_mm - np.atleast_1d(np.asarray(lift_mm, float))) / self.height_mm
        return foot + (np.asarray(points_mm, float) - foot) * factor[:, None]


def camera_centre(plane: TablePlane, near_mm: tuple[float, float]) -> CameraCentre | None:
    """Where the camera of ``plane`` is, or None when its homography is degenerate.

    The intrinsics are a pinhole with square pixels and the principal point at the image centre;
    the focal length comes from the homography's two orthogonality constraints when the view is
    tilted enough to tell it (:data:`FOCAL_PER_LONG_SIDE_RANGE`). ``near_mm`` is a table point
    in view (the items' centre), which settles the sign of the decomposition.
    """
    w, h = plane.image_size_px
    to_centred = np.array([[1.0, 0.0, -w / 2.0], [0.0, 1.0, -h / 2.0], [0.0, 0.0, 1.0]])
    hom = to_centred @ plane.table_to_undistorted
    focal = _focal_px(hom, max(w, h))
    m = np.diag([1.0 / focal, 1.0 / focal, 1.0]) @ hom
    norms = np.linalg.norm(m[:, 0]), np.linalg.norm(m[:, 1])
    if min(norms) < 1e-12:
        return None
    m = m * (2.0 / (norms[0] + norms[1]))
    if m[2] @ np.array([near_mm[0], near_mm[1], 1.0]) < 0:  # the items lie in front of it
        m = -m
    r1, r2, t = m[:, 0], m[:, 1], m[:, 2]
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    rotation = u @ vt
    centre = -rotation.T @ t
    height = abs(float(centre[2]))
    if not np.isfinite(centre).all() or height < 1.0:
        return None
    return CameraCentre((float(centre[0]), float(centre[1])), height)


def _focal_px(hom: np.ndarray, long_side_px: int) -> float:
    """Focal length (px) from a table -> centred-image homography: the two columns of
    K^-1 H are orthogonal and of equal length. Each constraint reads a / f^2 + b = 0."""
    (h11, h12, _), (h21, h22, _), (h31, h32, _) = hom
    a = np.array([h11 * h12 + h21 * h22, h11**2 + h21**2 - h12**2 - h22**2])
    b = np.array([h31 * h32, h31**2 - h32**2])
    typical = TYPICAL_FOCAL_PER_LONG_SIDE * long_side_px
    denominator = float(a @ b)
    if denominator >= 0:  # no real focal length: too square-on (or noise) to tell
        return typical
    focal = float(np.sqrt(-(a @ a) / denominator))
    lo, hi = (k * long_side_px for k in FOCAL_PER_LONG_SIDE_RANGE)
    return focal if lo <= focal <= hi else typical


def stack_heights_mm(
    polygons: Sequence[Polygon], z: Sequence[int], thickness_mm: Sequence[float]
) -> list[float]:
    """Top-surface height (mm above the table, at its centre) of each item: its thickness plus
    :data:`SETTLED_SHARE` of the height of the highest item lower in the stack (smaller ``z``)
    that its outline overlaps."""
    outlines = np.asarray(polygons, dtype=object)
    overlaps = shapely.area(shapely.intersection(outlines[:, None], outlines[None, :]))
    ranks = np.asarray(z)
    supports = (overlaps > MIN_SUPPORT_OVERLAP_MM2) & (ranks[None, :] < ranks[:, None])
    heights = [0.0] * len(polygons)
    for k in np.argsort(ranks, kind="stable"):
        base = max((heights[j] for j in np.flatnonzero(supports[k])), default=0.0)
        heights[k] = thickness_mm[k] + SETTLED_SHARE * base
    return heights


@dataclass(frozen=True)
class OnTable:
    """A scene's items where they lie on the table (mm), and the outlines (table mm) of the
    things found lying on them (:class:`vision.icon_covers.IconCover`, in their order)."""

    items: tuple[PlacedItem, ...]
    foreign_mm: list[np.ndarray]


def onto_table(
    plane: TablePlane,
    seen: Sequence[PlacedItem],
    covers: Sequence[IconCover],
    catalogue: Catalogue,
) -> OnTable:
    """The ``seen`` items and the ``covers`` found on them, measured on the plane, moved from
    where the camera sees them to where they lie.

    Lifts are measured from the median item's top surface: the plane is fitted to the items'
    printed tops, most of which lie at one coaster's or napkin's thickness. The string is left
    as measured: its axis lies within a millimetre of that plane. Returned unchanged when the
    camera cannot be placed.
    """
    unchanged = OnTable(tuple(seen), [c.outline_mm for c in covers])
    if not seen:
        return unchanged
    centres = np.array([item.center_mm for item in seen])
    camera = camera_centre(plane, tuple(centres.mean(axis=0)))
    if camera is None:
        return unchanged
    heights = stack_heights_mm(
        [item_polygon_mm(item, catalogue) for item in seen],
        [item.z for item in seen],
        [
            catalogue.coaster_thickness_mm
            if item.kind is ItemKind.COASTER
            else catalogue.napkin.thickness_mm
            for item in seen
        ],
    )
    lifts = np.asarray(heights) - float(np.median(heights))
    moved = camera.onto_table(centres, lifts)
    return OnTable(
        items=tuple(
            replace(item, center_mm=(float(x), float(y)))
            for item, (x, y) in zip(seen, moved, strict=True)
        ),
        foreign_mm=[camera.onto_table(c.outline_mm, float(lifts[c.item_index])) for c in covers],
    )
