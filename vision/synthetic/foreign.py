"""Snacks that end up lying on the game: pretzel sticks and crumbs of real pretzel.

Unlike the distractors (which stand beside the game), these lie ON coasters and napkins and may
hide icons; the spec says an icon under anything that is not a game item is not entirely
visible (with a warning). Their footprints go into ``Scene.foreign_mm`` so that the scoring core
decides what they hide. Geometry is table mm (y down); ``height_mm`` is the height of the
object's top above the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from shapely import affinity
from shapely.geometry import LineString, Point, Polygon

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.geometry import icon_polygons_mm, item_polygon_mm
from games.beer_pretzels.scene import PlacedItem

#: Chance that a photo has snacks on the game, and how many at most, per difficulty name.
FOREIGN_RATE = {"easy": 0.0, "medium": 0.08, "hard": 0.2}
FOREIGN_MAX = 2


class ForeignKind(StrEnum):
    PRETZEL_STICK = "pretzel_stick"
    CRUMB = "crumb"


@dataclass(frozen=True)
class ForeignObject:
    """A snack lying on the game: its outline (table mm, (N, 2), first point not repeated),
    the height of its top above the table (mm) and its colour (RGB 0..255)."""

    kind: ForeignKind
    outline_mm: tuple[tuple[float, float], ...]
    height_mm: float
    rgb: tuple[float, float, float]

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "outline_mm": [[round(x, 2), round(y, 2)] for x, y in self.outline_mm],
            "height_mm": round(self.height_mm, 2),
        }


def _shape(rng: np.random.Generator, kind: ForeignKind, at: np.ndarray) -> Polygon:
    if kind is ForeignKind.PRETZEL_STICK:
        length = rng.uniform(45.0, 110.0)
        half = length / 2
        stick = LineString([(-half, 0.0), (half, 0.0)]).buffer(rng.uniform(2.2, 3.2), quad_segs=6)
        shape = affinity.rotate(stick, rng.uniform(0.0, 180.0), origin=(0.0, 0.0))
    else:
        blob = Point(0.0, 0.0).buffer(1.0, quad_segs=8)
        shape = affinity.scale(blob, rng.uniform(6.0, 12.0), rng.uniform(4.0, 9.0), origin=(0, 0))
        shape = affinity.rotate(shape, rng.uniform(0.0, 180.0), origin=(0.0, 0.0))
    return affinity.translate(shape, float(at[0]), float(at[1]))


def sample_foreign(
    rng: np.random.Generator,
    catalogue: Catalogue,
    items: tuple[PlacedItem, ...],
    heights_mm: tuple[float, ...],
    difficulty: str,
) -> tuple[ForeignObject, ...]:
    """Snacks dropped on the game after the tosses (often right on an icon)."""
    if rng.random() >= FOREIGN_RATE.get(difficulty, 0.0):
        return ()
    face_up = [
        i for i, it in enumerate(items) if it.kind is ItemKind.COASTER and it.face is Face.UP
    ]
    if not face_up:
        return ()
    polygons = [item_polygon_mm(it, catalogue) for it in items]
    out = []
    for _ in range(int(rng.integers(1, FOREIGN_MAX + 1))):
        target = face_up[int(rng.integers(len(face_up)))]
        icons = list(icon_polygons_mm(items[target], catalogue).values())
        icon = icons[int(rng.integers(len(icons)))]
        centre = np.array(icon.centroid.coords[0]) + rng.normal(0.0, 12.0, 2)
        kind = ForeignKind.PRETZEL_STICK if rng.random() < 0.5 else ForeignKind.CRUMB
        shape = _shape(rng, kind, centre)
        below = [heights_mm[j] for j, p in enumerate(polygons) if p.intersects(shape)]
        thickness = 5.0 if kind is ForeignKind.PRETZEL_STICK else float(rng.uniform(3.0, 6.0))
        rgb = tuple(float(v) for v in rng.uniform((130, 70, 25), (190, 115, 55)))
        out.append(
            ForeignObject(
                kind=kind,
                outline_mm=tuple((float(x), float(y)) for x, y in shape.exterior.coords[:-1]),
                height_mm=max(below, default=0.0) + thickness,
                rgb=rgb,
            )
        )
    return tuple(out)
