"""Gaps and overlaps between shapes in the table plane (mm): what anchor, link and cover
decisions are measured with.

A *signed gap* between two shapes is their distance when they are apart (> 0) and minus their
overlap depth when they overlap (<= 0). The depth is estimated as the deepest vertex of either
polygon inside the other (its distance to the other's boundary); shapes of the game are drawn with
dense vertices (<= 0.7 mm apart on icons, 64+ per coaster), so the estimate is within a few
hundredths of a millimetre where it matters (thin overlaps).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry


def signed_gaps_mm(
    a: Sequence[BaseGeometry], b: Sequence[BaseGeometry], reach_mm: float | None = None
) -> np.ndarray:
    """Signed gap between ``a[k]`` and ``b[k]`` for each pair (mm).

    When one shape lies wholly inside the other without reaching its boundary, the value is
    minus the clearance between the two boundaries (a lower bound of the depth).

    With ``reach_mm``, only gaps and depths up to ``reach_mm`` are measured: larger ones come
    back as ``+inf`` / ``-inf``. ``b[k]`` is then cut down to the surroundings of ``a[k]`` first,
    which makes a large ``b`` (the boundary region) cheap; pass the smaller shape as ``a``.
    """
    a_arr = np.asarray(a, dtype=object)
    b_arr = np.asarray(b, dtype=object)
    if reach_mm is not None and a_arr.size:
        b_arr = _clip_around(b_arr, a_arr, 2 * reach_mm + 1.0)
    gaps = np.asarray(shapely.distance(a_arr, b_arr), dtype=float)
    gaps[np.isnan(gaps)] = np.inf  # b clipped away entirely: far apart
    overlap = np.flatnonzero(gaps <= 0)
    if overlap.size:
        a_edges = shapely.boundary(a_arr[overlap])
        b_edges = shapely.boundary(b_arr[overlap])
        crossing = shapely.intersects(a_edges, b_edges)
        nested = ~crossing
        gaps[overlap[nested]] = -shapely.distance(a_edges[nested], b_edges[nested])
        if crossing.any():
            k = overlap[crossing]
            depth = np.maximum(
                _vertex_depths(a_arr[k], b_arr[k], b_edges[crossing]),
                _vertex_depths(b_arr[k], a_arr[k], a_edges[crossing]),
            )
            gaps[k] = -depth
    if reach_mm is not None:
        gaps[gaps > reach_mm] = np.inf
        gaps[gaps < -reach_mm] = -np.inf
    return gaps


def _clip_around(shapes: np.ndarray, around: np.ndarray, margin_mm: float) -> np.ndarray:
    """``shapes[k]`` cut to the bounding box of ``around[k]`` grown by ``margin_mm``.

    Distances and depths up to ``margin_mm / 2`` between ``around[k]`` and the cut shape equal
    those to the whole shape: the cut edges lie at least ``margin_mm`` from ``around[k]``.
    """
    boxes = shapely.bounds(around) + np.array([-margin_mm, -margin_mm, margin_mm, margin_mm])
    out = np.empty(len(shapes), dtype=object)
    out[:] = [shapely.clip_by_rect(shape, *box) for shape, box in zip(shapes, boxes, strict=True)]
    return out


def pairs_within_mm(
    left: Sequence[BaseGeometry], right: Sequence[BaseGeometry], reach_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs ``(i, j)`` whose bounding boxes come within ``reach_mm`` of each other.

    Every pair whose shapes are at most ``reach_mm`` apart is included (and a few more, to be
    filtered with :func:`signed_gaps_mm`). Returns two index arrays into ``left`` and ``right``.
    """
    if len(left) == 0 or len(right) == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    tree = shapely.STRtree(np.asarray(right, dtype=object))
    bounds = shapely.bounds(np.asarray(left, dtype=object))
    boxes = shapely.box(
        bounds[:, 0] - reach_mm,
        bounds[:, 1] - reach_mm,
        bounds[:, 2] + reach_mm,
        bounds[:, 3] + reach_mm,
    )
    i, j = tree.query(boxes)
    return i, j


def region_gaps_mm(
    region: BaseGeometry, polygons: Sequence[BaseGeometry], reach_mm: float
) -> np.ndarray:
    """Signed gap of each polygon to ``region`` (mm), measured up to ``reach_mm``.

    Polygons farther than ``reach_mm`` outside get ``+inf``; polygons inside and farther than
    ``reach_mm`` from the edge get ``-inf``. The region is prepared once and cut around each
    polygon near its edge, so that a large region (the boundary loop, hundreds of vertices)
    costs little.
    """
    polys = np.asarray(polygons, dtype=object)
    if polys.size == 0:
        return np.zeros(0)
    region = shapely.normalize(region)  # a fresh object: preparing it leaves the caller's alone
    edge = shapely.boundary(region)
    shapely.prepare(region)
    shapely.prepare(edge)
    gaps = np.where(shapely.intersects(region, polys), -np.inf, np.inf)
    near = np.flatnonzero(shapely.dwithin(edge, polys, reach_mm))
    if near.size:
        regions = np.empty(near.size, dtype=object)
        regions[:] = region
        gaps[near] = signed_gaps_mm(polys[near], regions, reach_mm)
    return gaps


def _vertex_depths(movers: np.ndarray, hosts: np.ndarray, host_edges: np.ndarray) -> np.ndarray:
    """For each pair, how deep the deepest vertex of ``movers[k]`` lies inside ``hosts[k]``."""
    coords, owner = shapely.get_coordinates(shapely.boundary(movers), return_index=True)
    inside = shapely.contains_xy(hosts[owner], coords[:, 0], coords[:, 1])
    depth = np.zeros(len(movers))
    if inside.any():
        d = shapely.distance(shapely.points(coords[inside]), host_edges[owner[inside]])
        np.maximum.at(depth, owner[inside], d)
    return depth
