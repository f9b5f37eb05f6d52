"""Items and the boundary placed in the table plane (mm, x right, y DOWN, seen from above).

An item's local frame (origin at its centre, x right, y down, see
:mod:`games.beer_pretzels.catalogue`) maps to the table as described in
:mod:`games.beer_pretzels.scene`: rotate by ``angle_deg`` (clockwise on the y-down table), then
translate by ``center_mm``. A face-down item shows its back, whose local frame is the face frame
mirrored: face point ``(x, y)`` -> back point ``(-x, y)``.

The batch functions (:func:`item_polygons_mm`, :func:`icon_outlines_mm`) build all polygons of a
scene from one vertex array in a single shapely call; the single-item functions wrap them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind, Shape
from games.beer_pretzels.scene import PlacedItem, PointMM


class GeometryError(ValueError):
    """An item or boundary cannot be placed: unknown coaster type, degenerate boundary."""


@dataclass(frozen=True)
class IconOutline:
    """An icon's outline placed on the table: icon ``icon_id`` of ``items[item_index]``.

    ``vertices_mm`` are the outline's ``(N, 2)`` vertices in the table frame (mm), the same as
    those of ``polygon_mm``.
    """

    item_index: int
    icon_id: str
    polygon_mm: Polygon
    vertices_mm: np.ndarray


@dataclass(frozen=True)
class RoundedShapes:
    """Items as their exact shapes: a square *core* grown by a disc, posed in the table frame.

    Both catalogue shapes are of this form: a circle of diameter ``d`` is a point core
    (``core_half_mm = 0``) grown by ``d / 2``; a rounded square of side ``s`` and corner radius
    ``r`` is a square core of half side ``s / 2 - r`` grown by ``r``. Distances to such a shape
    are exact (no polygon approximation): the distance to the core minus the radius.
    Arrays have one row per item, all in mm; ``cos``/``sin`` are of the item's angle.
    """

    center_mm: np.ndarray
    cos: np.ndarray
    sin: np.ndarray
    core_half_mm: np.ndarray
    radius_mm: np.ndarray

    def __len__(self) -> int:
        return len(self.radius_mm)

    def cores_mm(self) -> np.ndarray:
        """The cores in the table frame: a shapely point (circle) or square polygon per item."""
        h = self.core_half_mm
        corners = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
        local = corners[None, :, :] * h[:, None, None]  # (N, 4, 2)
        x, y = local[..., 0], local[..., 1]
        c, s = self.cos[:, None], self.sin[:, None]
        table = np.stack(
            [c * x - s * y + self.center_mm[:, :1], s * x + c * y + self.center_mm[:, 1:]], axis=2
        )
        out = np.empty(len(self), dtype=object)
        is_point = h <= 0
        out[is_point] = shapely.points(self.center_mm[is_point])
        if (~is_point).any():
            out[~is_point] = shapely.polygons(table[~is_point])
        return out

    def signed_distance_mm(self, points_mm: np.ndarray, which: np.ndarray) -> np.ndarray:
        """Signed distance (mm) of ``points_mm[m]`` to the outline of item ``which[m]``.

        Positive outside, negative inside (minus the depth below the outline).
        """
        d = np.asarray(points_mm, dtype=float) - self.center_mm[which]
        c, s = self.cos[which], self.sin[which]
        h = self.core_half_mm[which]
        ax = np.abs(c * d[:, 0] + s * d[:, 1]) - h  # local x, y: rotate back by the angle
        ay = np.abs(-s * d[:, 0] + c * d[:, 1]) - h
        outside = np.hypot(np.maximum(ax, 0.0), np.maximum(ay, 0.0))
        inside = np.minimum(np.maximum(ax, ay), 0.0)
        return outside + inside - self.radius_mm[which]


def local_to_table_mm(points_local_mm: np.ndarray, item: PlacedItem) -> np.ndarray:
    """Map ``(N, 2)`` points in the item's FACE frame (mm) to the table frame (mm).

    For a face-down item the face point is first mirrored into the back frame (``x -> -x``),
    since ``center_mm``/``angle_deg`` give the pose of the side that is seen from above.
    """
    points = np.asarray(points_local_mm, dtype=float).reshape(-1, 2)
    return _place(points, np.asarray(_pose(item)))


def item_polygon_mm(item: PlacedItem, catalogue: Catalogue) -> Polygon:
    """The item's full (amodal) outline in the table frame (mm)."""
    return item_polygons_mm([item], catalogue)[0]


def item_polygons_mm(items: Sequence[PlacedItem], catalogue: Catalogue) -> np.ndarray:
    """Outlines of ``items`` in the table frame (mm), as an object array of polygons."""
    shapes = [_item_shape(item, catalogue)[1] for item in items]
    return _polygons(shapes, [_pose(item) for item in items])[0]


def rounded_shapes_mm(items: Sequence[PlacedItem], catalogue: Catalogue) -> RoundedShapes:
    """The exact shapes of ``items`` in the table frame (see :class:`RoundedShapes`).

    Both shapes are symmetric, so turning an item face down (mirroring) does not move them.
    """
    shapes = [_item_shape(item, catalogue)[0] for item in items]
    angles = np.deg2rad(np.array([item.angle_deg for item in items], dtype=float))
    half = np.array([_core_half_and_radius(shape)[0] for shape in shapes], dtype=float)
    radius = np.array([_core_half_and_radius(shape)[1] for shape in shapes], dtype=float)
    return RoundedShapes(
        center_mm=np.array([item.center_mm for item in items], dtype=float).reshape(-1, 2),
        cos=np.cos(angles),
        sin=np.sin(angles),
        core_half_mm=half,
        radius_mm=radius,
    )


def icon_polygons_mm(item: PlacedItem, catalogue: Catalogue) -> dict[str, Polygon]:
    """Outline polygons of the icons printed on the item, in the table frame (mm), by icon id.

    Only a face-up coaster shows icons; a napkin or a face-down coaster gives ``{}``.
    """
    return {o.icon_id: o.polygon_mm for o in icon_outlines_mm([item], catalogue)}


def icon_outlines_mm(items: Sequence[PlacedItem], catalogue: Catalogue) -> list[IconOutline]:
    """Outlines of every icon shown by ``items`` (face-up coasters), in the table frame (mm).

    ``item_index`` refers to the position in ``items``; icons follow the catalogue's order.
    """
    tables = _tables(catalogue)
    owners: list[tuple[int, str]] = []
    shapes: list[np.ndarray] = []
    poses = []
    for index, item in enumerate(items):
        if item.kind is not ItemKind.COASTER or item.face is not Face.UP:
            continue
        pose = _pose(item)
        for icon_id, vertices in tables.icons[_coaster_type_name(item, catalogue)]:
            owners.append((index, icon_id))
            shapes.append(vertices)
            poses.append(pose)
    polygons, vertices = _polygons(shapes, poses)
    return [
        IconOutline(item_index=index, icon_id=icon_id, polygon_mm=polygon, vertices_mm=points)
        for (index, icon_id), polygon, points in zip(owners, polygons, vertices, strict=True)
    ]


def boundary_region_mm(boundary_mm: Sequence[PointMM], string_thickness_mm: float) -> Polygon:
    """The area an item must reach to be anchored: the loop's enclosed region plus the string.

    ``boundary_mm`` is the closed centre line of the string (first point not repeated); the cord
    is ``string_thickness_mm`` wide around it, so the region is the enclosed polygon grown by
    half the thickness. A self-crossing loop is repaired to the union of its lobes.
    """
    try:
        points = np.asarray(boundary_mm, dtype=float)
    except (TypeError, ValueError) as exc:
        raise GeometryError("the boundary must be a list of finite (x, y) points in mm") from exc
    if points.ndim != 2 or points.shape[1] != 2 or not np.isfinite(points).all():
        raise GeometryError("the boundary must be a list of finite (x, y) points in mm")
    if len(points) < 3:
        raise GeometryError(f"the boundary needs at least 3 points, got {len(points)}")
    enclosed = shapely.polygons(points)
    if not enclosed.is_valid:
        enclosed = shapely.make_valid(enclosed)
    region = enclosed.buffer(string_thickness_mm / 2, quad_segs=8)
    if region.is_empty or region.area <= 0:
        raise GeometryError("the boundary encloses no area")
    return region


# --- internals ---------------------------------------------------------------------------------


def _pose(item: PlacedItem) -> tuple[float, float, float, float, float]:
    """``(mirror_x, cos a, sin a, cx, cy)`` of the local-to-table map of ``item``."""
    a = np.deg2rad(item.angle_deg)
    mirror = -1.0 if item.face is Face.DOWN else 1.0
    return (
        mirror,
        float(np.cos(a)),
        float(np.sin(a)),
        float(item.center_mm[0]),
        float(item.center_mm[1]),
    )


def _place(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    """Apply poses ``(mirror_x, cos a, sin a, cx, cy)`` (one row, or one per point) to points."""
    mirror, c, s, cx, cy = np.atleast_2d(pose).T
    x = points[:, 0] * mirror
    y = points[:, 1]
    return np.stack([c * x - s * y + cx, s * x + c * y + cy], axis=1)


def _polygons(
    shapes: Sequence[np.ndarray], poses: Sequence[tuple[float, ...]]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """One polygon per (local vertices, pose) pair, built in a single vectorised call.

    Returns the polygons (object array) and their table-frame vertex arrays.
    """
    out = np.empty(len(shapes), dtype=object)
    if not shapes:
        return out, []
    counts = np.array([len(v) for v in shapes])
    table = _place(np.concatenate(shapes), np.repeat(np.asarray(poses, dtype=float), counts, 0))
    rings = shapely.linearrings(table, indices=np.repeat(np.arange(len(shapes)), counts))
    out[:] = shapely.polygons(rings)
    return out, np.split(table, np.cumsum(counts)[:-1])


def _coaster_type_name(item: PlacedItem, catalogue: Catalogue) -> str:
    if item.type is None:
        raise GeometryError(f"a face-up coaster needs a type (the {item.color} coaster has none)")
    if item.type not in catalogue.type_names:
        raise GeometryError(
            f"unknown coaster type {item.type!r} (catalogue {catalogue.name!r} has "
            f"{', '.join(catalogue.type_names)})"
        )
    return item.type


def _core_half_and_radius(shape: Shape) -> tuple[float, float]:
    if shape.kind == "circle":
        return 0.0, shape.size_mm / 2
    return shape.size_mm / 2 - shape.corner_radius_mm, shape.corner_radius_mm


def _item_shape(item: PlacedItem, catalogue: Catalogue) -> tuple[Shape, np.ndarray]:
    tables = _tables(catalogue)
    if item.kind is ItemKind.NAPKIN:
        return tables.napkin
    if item.type is None and item.face is Face.DOWN:
        kinds = {shape.kind for shape, _ in tables.coasters.values()}
        wanted = item.back_shape or (next(iter(kinds)) if len(kinds) == 1 else None)
        if wanted is None:
            raise GeometryError(
                f"the face-down {item.color} coaster has neither a type nor a back_shape"
            )
        for shape, vertices in tables.coasters.values():
            if shape.kind == wanted:
                return shape, vertices
        raise GeometryError(f"no coaster in catalogue {catalogue.name!r} has shape {wanted!r}")
    return tables.coasters[_coaster_type_name(item, catalogue)]


@dataclass(frozen=True)
class _CatalogueTables:
    """Vertex arrays (local frame, mm, read-only) of a catalogue's shapes and icon outlines."""

    napkin: tuple[Shape, np.ndarray]
    coasters: dict[str, tuple[Shape, np.ndarray]]
    icons: dict[str, tuple[tuple[str, np.ndarray], ...]]


#: Tables per catalogue, keyed by ``id`` (catalogues hold dicts and are not hashable); the
#: catalogue itself is kept alongside so that its id cannot be reused while cached.
_TABLES: dict[int, tuple[Catalogue, _CatalogueTables]] = {}


def _tables(catalogue: Catalogue) -> _CatalogueTables:
    entry = _TABLES.get(id(catalogue))
    if entry is not None and entry[0] is catalogue:
        return entry[1]
    tables = _CatalogueTables(
        napkin=(catalogue.napkin.shape, _vertices(catalogue.napkin.shape.polygon_mm)),
        coasters={
            t.type: (t.shape, _vertices(t.shape.polygon_mm)) for t in catalogue.coaster_types
        },
        icons={
            t.type: tuple((icon.id, _vertices(icon.outline_mm)) for icon in t.icons)
            for t in catalogue.coaster_types
        },
    )
    _TABLES[id(catalogue)] = (catalogue, tables)
    return tables


def _vertices(polygon: Polygon) -> np.ndarray:
    vertices = np.asarray(polygon.exterior.coords, dtype=float)[:-1]
    vertices.setflags(write=False)
    return vertices
