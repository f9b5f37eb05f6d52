"""Gaps and overlaps in the table plane (mm): what anchor, link and cover decisions measure.

A *signed gap* between two shapes is their distance when they are apart (> 0) and minus their
overlap depth when they overlap (<= 0). Gaps are only measured as far as a decision needs them
(``reach_mm``): farther apart comes back as ``+inf``, deeper overlaps as ``-inf``.

Coasters and napkins are measured on their exact shapes (:class:`RoundedShapes`: a square core
grown by a disc), so item-to-item and item-to-boundary gaps are exact. Icon outlines are measured
at their vertices (at most ~0.9 mm apart), which is exact to a few hundredths of a millimetre
against those round shapes. Anything else (a foreign object's outline) is measured on polygons
with :func:`signed_gaps_mm`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from games.beer_pretzels.geometry import RoundedShapes


def item_gaps_mm(
    shapes: RoundedShapes,
    cores: np.ndarray,
    polygons: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    reach_mm: float,
) -> np.ndarray:
    """Signed gaps between items ``i[k]`` and ``j[k]`` (mm, clipped to ``reach_mm``).

    ``cores`` are ``shapes.cores_mm()``; ``polygons`` the item outlines, used only when two
    cores touch and the discs are too thin for that to mean a deep overlap.
    """
    core_gap = np.asarray(shapely.distance(cores[i], cores[j]), dtype=float)
    gaps = core_gap - shapes.radius_mm[i] - shapes.radius_mm[j]
    touching = core_gap <= 0
    thin = touching & (shapes.radius_mm[i] + shapes.radius_mm[j] <= reach_mm)
    gaps[touching & ~thin] = -np.inf
    if thin.any():
        gaps[thin] = signed_gaps_mm(polygons[i[thin]], polygons[j[thin]])
    return _clip(gaps, reach_mm)


def region_gaps_mm(
    region: BaseGeometry,
    shapes: RoundedShapes,
    cores: np.ndarray,
    polygons: np.ndarray,
    reach_mm: float,
) -> np.ndarray:
    """Signed gap of each item to ``region`` (mm, clipped to ``reach_mm``).

    An overlap is as deep as the item's outline reaches past the region's edge. The region is
    prepared once, so that a large region (the boundary loop, hundreds of vertices) costs little.
    """
    if len(shapes) == 0:
        return np.zeros(0)
    region = shapely.normalize(region)  # a fresh object: preparing it leaves the caller's alone
    shapely.prepare(region)
    core_gap = np.asarray(shapely.distance(region, cores), dtype=float)
    gaps = core_gap - shapes.radius_mm
    touching = core_gap <= 0
    thin = touching & (shapes.radius_mm <= reach_mm)
    gaps[touching & ~thin] = -np.inf
    if thin.any():
        regions = np.empty(int(thin.sum()), dtype=object)
        regions[:] = region
        gaps[thin] = signed_gaps_mm(polygons[thin], regions)
    return _clip(gaps, reach_mm)


def outline_item_gaps_mm(
    outlines: Sequence[np.ndarray],
    shapes: RoundedShapes,
    n: np.ndarray,
    k: np.ndarray,
    reach_mm: float,
) -> np.ndarray:
    """Signed gaps between outline ``outlines[n[p]]`` (vertices, mm) and item ``k[p]``.

    Apart: the smallest distance from an outline vertex to the item. Overlapping: minus the
    depth of the deepest outline vertex below the item's outline. Clipped to ``reach_mm``.
    """
    if len(n) == 0:
        return np.zeros(0)
    counts = np.array([len(outlines[m]) for m in n])
    points = np.concatenate([outlines[m] for m in n])
    d = shapes.signed_distance_mm(points, np.repeat(k, counts))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    nearest = np.minimum.reduceat(d, starts)
    gaps = np.where(nearest > 0, nearest, np.minimum.reduceat(np.minimum(d, 0.0), starts))
    return _clip(gaps, reach_mm)


def signed_gaps_mm(a: Sequence[BaseGeometry], b: Sequence[BaseGeometry]) -> np.ndarray:
    """Signed gap between polygons ``a[k]`` and ``b[k]`` (mm), for shapes of any outline.

    The overlap depth is estimated as the larger of: the deepest vertex of either polygon inside
    the other (its distance to the other's boundary), which is right for a corner or curve
    poking in; and the thickness of the overlap (2 x area / perimeter), which is right for a
    broad overlap between straight edges. When one lies wholly inside the other without
    reaching its boundary, the value is minus the clearance between the two boundaries.
    """
    a_arr = np.asarray(a, dtype=object)
    b_arr = np.asarray(b, dtype=object)
    gaps = np.asarray(shapely.distance(a_arr, b_arr), dtype=float)
    overlap = np.flatnonzero(gaps <= 0)
    if overlap.size:
        a_edges = shapely.boundary(a_arr[overlap])
        b_edges = shapely.boundary(b_arr[overlap])
        crossing = shapely.intersects(a_edges, b_edges)
        nested = ~crossing
        gaps[overlap[nested]] = -shapely.distance(a_edges[nested], b_edges[nested])
        if crossing.any():
            k = overlap[crossing]
            common = shapely.intersection(a_arr[k], b_arr[k])
            perimeter = np.asarray(shapely.length(common), dtype=float)
            thickness = 2 * shapely.area(common) / np.where(perimeter > 0, perimeter, 1.0)
            depth = np.maximum.reduce(
                [
                    _vertex_depths(a_arr[k], b_arr[k], b_edges[crossing]),
                    _vertex_depths(b_arr[k], a_arr[k], a_edges[crossing]),
                    thickness,
                ]
            )
            gaps[k] = -depth
    return gaps


def pairs_within_mm(
    left: Sequence[BaseGeometry], right: Sequence[BaseGeometry], reach_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs ``(i, j)`` whose bounding boxes come within ``reach_mm`` of each other.

    Every pair whose shapes are at most ``reach_mm`` apart is included (and a few more, for the
    gap functions to sort out). Returns two index arrays into ``left`` and ``right``.
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


def _clip(gaps: np.ndarray, reach_mm: float) -> np.ndarray:
    gaps[gaps > reach_mm] = np.inf
    gaps[gaps < -reach_mm] = -np.inf
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
