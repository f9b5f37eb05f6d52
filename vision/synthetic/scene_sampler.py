"""Sample a Beer & Pretzels round as it really happens on a table.

A closed string loop of the catalogue's length is laid loosely on a table; 2-5 players, in turn
order, toss one coaster each per turn until their coasters are gone, then their napkins in the
same order (with 5 players the ``soft`` coasters stay in the box). Each toss lands somewhere
around the loop: inside, across the string, just touching it from outside, narrowly missing it,
on top of earlier items, linked to an outside item, or alone far outside; about 5 % of the
coasters land face down, and those lie alone (they are removed at once in a real round, so
nothing lands on them). ``z`` is the toss order.

All geometry is in the table plane, millimetres, x right, y DOWN, origin at the table's top-left
corner (see :mod:`games.beer_pretzels.scene`). Nothing here decides who scores: ground truth comes
from :func:`games.beer_pretzels.scoring.score_scene` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from shapely import affinity
from shapely.geometry import LineString, Point, Polygon

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.scene import PlacedItem, Scene
from vision.synthetic.foreign import ForeignObject, sample_foreign
from vision.synthetic.loop import sample_loop


class Difficulty(StrEnum):
    """How crowded and ambiguous a round (and its photo) is."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Landing(StrEnum):
    """Where a tossed item comes to rest, relative to the loop and earlier items."""

    INSIDE = "inside"
    ACROSS_STRING = "across_string"
    TOUCH_STRING = "touch_string"
    NEAR_MISS_STRING = "near_miss_string"
    STACKED = "stacked"
    CHAIN = "chain"
    OUTSIDE = "outside"


#: Probability of each landing per difficulty, coasters (napkins use :data:`NAPKIN_LANDING`).
COASTER_LANDING: dict[Difficulty, dict[Landing, float]] = {
    Difficulty.EASY: {
        Landing.INSIDE: 0.56,
        Landing.ACROSS_STRING: 0.12,
        Landing.TOUCH_STRING: 0.03,
        Landing.NEAR_MISS_STRING: 0.03,
        Landing.STACKED: 0.06,
        Landing.CHAIN: 0.04,
        Landing.OUTSIDE: 0.16,
    },
    Difficulty.MEDIUM: {
        Landing.INSIDE: 0.40,
        Landing.ACROSS_STRING: 0.15,
        Landing.TOUCH_STRING: 0.05,
        Landing.NEAR_MISS_STRING: 0.05,
        Landing.STACKED: 0.13,
        Landing.CHAIN: 0.09,
        Landing.OUTSIDE: 0.13,
    },
    Difficulty.HARD: {
        Landing.INSIDE: 0.30,
        Landing.ACROSS_STRING: 0.16,
        Landing.TOUCH_STRING: 0.07,
        Landing.NEAR_MISS_STRING: 0.06,
        Landing.STACKED: 0.19,
        Landing.CHAIN: 0.12,
        Landing.OUTSIDE: 0.10,
    },
}

NAPKIN_LANDING: dict[Landing, float] = {
    Landing.INSIDE: 0.30,
    Landing.ACROSS_STRING: 0.15,
    Landing.TOUCH_STRING: 0.03,
    Landing.NEAR_MISS_STRING: 0.03,
    Landing.STACKED: 0.30,
    Landing.CHAIN: 0.09,
    Landing.OUTSIDE: 0.10,
}

#: Number of players per difficulty (inclusive range).
PLAYERS: dict[Difficulty, tuple[int, int]] = {
    Difficulty.EASY: (2, 3),
    Difficulty.MEDIUM: (3, 4),
    Difficulty.HARD: (4, 5),
}

#: Share of coasters that land face down (they then lie alone).
FACE_DOWN_COASTER_RATE = 0.05
#: Share of napkins that land face down (they cover and link like any napkin).
FACE_DOWN_NAPKIN_RATE = 0.3
#: Touching means a gap of at most this in the table plane (spec).
TOUCH_GAP_MM = 0.5
#: Signed gap (mm, negative over the cord) of an item tossed to touch the string: by default a
#: close call, just short of the touch threshold.
TOUCH_STRING_GAP_MM = (0.0, 0.4)
#: The same as the reference photos have it (the dev set's truth: every item touching the string
#: lies over the cord's edge, by 0.07-1.9 mm).
REFERENCE_TOUCH_STRING_GAP_MM = (-2.0, 0.0)
#: Free space kept around a face-down coaster (nothing lands on it).
FACE_DOWN_CLEARANCE_MM = 12.0
#: Items stay at least this far inside the table edge.
TABLE_EDGE_MARGIN_MM = 15.0
#: A tossed item that lands partly on others settles tilted on the highest of them: the top of
#: its surface at its centre stands its thickness plus this share of that support's height
#: above the table. The reference photos' ground truth has it so (``height_mm`` of the
#: devset: a coaster on a coaster 3.2 mm, on that one 3.92 mm; a napkin on a coaster 2.7 mm).
SETTLED_SHARE = 0.6


@dataclass(frozen=True)
class SampledRound:
    """One sampled round: the scene plus what the renderer and the labels need besides.

    ``heights_mm[i]`` is the height of the top surface of ``scene.items[i]`` above the table at
    its centre (its own thickness plus :data:`SETTLED_SHARE` of the highest item under it).
    ``landings[i]`` says where toss ``i`` was aimed. ``foreign`` are snacks lying on the game
    (their outlines are ``scene.foreign_mm``). ``table_mm`` is the table's (width, height);
    the table spans [0, w] x [0, h] mm.
    """

    scene: Scene
    players: tuple[str, ...]
    table_mm: tuple[float, float]
    heights_mm: tuple[float, ...]
    landings: tuple[Landing, ...]
    difficulty: Difficulty
    tags: tuple[str, ...]
    foreign: tuple[ForeignObject, ...] = ()

    @property
    def boundary_mm(self) -> np.ndarray:
        """The loop's centre line as an (N, 2) float array (mm)."""
        return np.asarray(self.scene.boundary_mm, dtype=np.float64)


def _posed(local: Polygon, item: PlacedItem) -> Polygon:
    rotated = affinity.rotate(local, item.angle_deg, origin=(0.0, 0.0))
    return affinity.translate(rotated, item.center_mm[0], item.center_mm[1])


@dataclass
class _Toss:
    kind: ItemKind
    color: str
    type: str | None


class _Table:
    """The growing state of a round while items are tossed (internal)."""

    def __init__(
        self,
        catalogue: Catalogue,
        boundary: np.ndarray,
        table_mm: tuple[float, float],
        touch_string_gap_mm: tuple[float, float],
    ):
        self.catalogue = catalogue
        self.touch_string_gap_mm = touch_string_gap_mm
        self.boundary = boundary
        self.loop = Polygon(boundary)
        self.string = LineString(np.vstack([boundary, boundary[:1]]))
        self.string_half_mm = catalogue.string.thickness_mm / 2
        self.table = Polygon(
            [
                (TABLE_EDGE_MARGIN_MM, TABLE_EDGE_MARGIN_MM),
                (table_mm[0] - TABLE_EDGE_MARGIN_MM, TABLE_EDGE_MARGIN_MM),
                (table_mm[0] - TABLE_EDGE_MARGIN_MM, table_mm[1] - TABLE_EDGE_MARGIN_MM),
                (TABLE_EDGE_MARGIN_MM, table_mm[1] - TABLE_EDGE_MARGIN_MM),
            ]
        )
        self.centroid = np.array(self.loop.centroid.coords[0])
        self.items: list[PlacedItem] = []
        self.polygons: list[Polygon] = []
        self.landings: list[Landing] = []

    # geometry helpers -------------------------------------------------------------------------
    def outward_normal(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """A point of the loop and the unit normal there pointing out of the loop."""
        n = len(self.boundary)
        p = self.boundary[index % n]
        tangent = self.boundary[(index + 1) % n] - self.boundary[(index - 1) % n]
        normal = np.array([tangent[1], -tangent[0]])
        normal /= np.linalg.norm(normal)
        if self.loop.contains(Point(*(p + 4.0 * normal))):
            normal = -normal
        return p, normal

    def string_gap_mm(self, polygon: Polygon) -> float:
        """Gap between ``polygon`` and the string's edge (negative when they overlap)."""
        return polygon.distance(self.string) - self.string_half_mm

    def is_outside(self, polygon: Polygon) -> bool:
        return not polygon.intersects(self.loop) and self.string_gap_mm(polygon) > TOUCH_GAP_MM

    def face_down_polygons(self) -> list[Polygon]:
        return [
            p
            for p, it in zip(self.polygons, self.items, strict=True)
            if it.face is Face.DOWN and it.kind is ItemKind.COASTER
        ]

    def fits(self, polygon: Polygon) -> bool:
        """On the table and clear of every face-down coaster."""
        if not self.table.contains(polygon):
            return False
        return all(polygon.distance(p) > FACE_DOWN_CLEARANCE_MM for p in self.face_down_polygons())

    def add(self, item: PlacedItem, polygon: Polygon, landing: Landing) -> None:
        self.items.append(item)
        self.polygons.append(polygon)
        self.landings.append(landing)


def sample_round(
    rng: np.random.Generator,
    catalogue: Catalogue,
    difficulty: Difficulty,
    n_players: int | None = None,
    touch_string_gap_mm: tuple[float, float] = TOUCH_STRING_GAP_MM,
) -> SampledRound:
    """Sample one round (loop, tosses, table) for ``difficulty``.

    ``n_players`` (2-5, at most the catalogue's colour count) overrides the difficulty's range.
    ``touch_string_gap_mm``: the range (mm) of the signed gap between the string's edge and an
    item tossed to touch it (negative: the item lies over the cord).
    """
    lo, hi = PLAYERS[difficulty]
    max_players = min(5, len(catalogue.colors))
    if n_players is None:
        n_players = int(rng.integers(lo, hi + 1))
    if not 2 <= n_players <= max_players:
        raise ValueError(f"a round needs 2-{max_players} players, got {n_players}")
    order = rng.permutation(len(catalogue.colors))[:n_players]
    players = tuple(catalogue.colors[int(i)].name for i in order)

    looseness = float(rng.uniform(0.3, 1.3))
    boundary = sample_loop(rng, catalogue.string.length_mm, (0.0, 0.0), looseness)
    lo_xy, hi_xy = boundary.min(axis=0), boundary.max(axis=0)
    # Table margins around the loop (left, top, right, bottom): a big table whose edges are out
    # of the photo, or a small one whose edges show.
    big = rng.random() < 0.6
    margins = rng.uniform(450.0, 1400.0, size=4) if big else rng.uniform(230.0, 520.0, size=4)
    boundary = boundary - lo_xy + margins[:2]
    table_mm = (
        float(hi_xy[0] - lo_xy[0] + margins[0] + margins[2]),
        float(hi_xy[1] - lo_xy[1] + margins[1] + margins[3]),
    )
    table = _Table(catalogue, boundary, table_mm, touch_string_gap_mm)

    types = [t.type for t in catalogue.coaster_types]
    if n_players == 5:
        types = [t for t in types if t != "soft"]
    hands = {c: [types[int(i)] for i in rng.permutation(len(types))] for c in players}
    tosses = [
        _Toss(ItemKind.COASTER, color, hands[color][turn])
        for turn in range(len(types))
        for color in players
    ] + [_Toss(ItemKind.NAPKIN, color, None) for color in players]

    for z, toss in enumerate(tosses):
        _toss(rng, table, toss, z, difficulty)

    heights = stack_heights_mm(catalogue, table.items, table.polygons)
    items = tuple(table.items)
    foreign = sample_foreign(rng, catalogue, items, heights, difficulty.value)
    scene = Scene(
        boundary_mm=tuple((float(x), float(y)) for x, y in boundary),
        items=items,
        foreign_mm=tuple(f.outline_mm for f in foreign),
    )
    tags = _round_tags(table, n_players) + (("foreign_object",) if foreign else ())
    return SampledRound(
        scene=scene,
        players=players,
        table_mm=table_mm,
        heights_mm=heights,
        landings=tuple(table.landings),
        difficulty=difficulty,
        tags=tuple(sorted(tags)),
        foreign=foreign,
    )


def _toss(
    rng: np.random.Generator, table: _Table, toss: _Toss, z: int, difficulty: Difficulty
) -> None:
    shape = table.catalogue.item_shape(toss.kind, toss.type)
    local = shape.polygon_mm
    radius = shape.half_extent_mm
    face_down = toss.kind is ItemKind.COASTER and rng.random() < FACE_DOWN_COASTER_RATE
    if face_down and _place_face_down(rng, table, toss, z, local, radius):
        return
    napkin_down = toss.kind is ItemKind.NAPKIN and rng.random() < FACE_DOWN_NAPKIN_RATE
    face = Face.DOWN if napkin_down else Face.UP
    probs = COASTER_LANDING[difficulty] if toss.kind is ItemKind.COASTER else NAPKIN_LANDING
    landings = list(probs)
    weights = np.array([probs[k] for k in landings])
    landing = landings[int(rng.choice(len(landings), p=weights / weights.sum()))]
    for attempt_landing in (landing, Landing.INSIDE):
        for _ in range(40):
            angle = float(rng.uniform(0.0, 360.0))
            center = _aim(rng, table, attempt_landing, radius, local, angle)
            if center is None:
                continue
            item = PlacedItem(
                kind=toss.kind,
                color=toss.color,
                type=toss.type,
                face=face,
                center_mm=(float(center[0]), float(center[1])),
                angle_deg=angle,
                z=z,
            )
            polygon = _posed(local, item)
            if table.fits(polygon) and _landing_holds(table, attempt_landing, polygon):
                table.add(item, polygon, attempt_landing)
                return
    raise RuntimeError("could not place a tossed item on the table")  # pragma: no cover


def _place_face_down(
    rng: np.random.Generator,
    table: _Table,
    toss: _Toss,
    z: int,
    local: Polygon,
    radius: float,
) -> bool:
    """Place a face-down coaster alone on free table (inside or outside the loop)."""
    x0, y0, x1, y1 = table.table.bounds
    for _ in range(60):
        center = rng.uniform((x0 + radius, y0 + radius), (x1 - radius, y1 - radius))
        item = PlacedItem(
            kind=toss.kind,
            color=toss.color,
            type=toss.type,
            face=Face.DOWN,
            center_mm=(float(center[0]), float(center[1])),
            angle_deg=float(rng.uniform(0.0, 360.0)),
            z=z,
        )
        polygon = _posed(local, item)
        clear = all(polygon.distance(p) > FACE_DOWN_CLEARANCE_MM for p in table.polygons)
        if (
            clear
            and table.fits(polygon)
            and table.string_gap_mm(polygon) > FACE_DOWN_CLEARANCE_MM
            and polygon.distance(table.loop.centroid) < 700.0
        ):
            landing = Landing.OUTSIDE if table.is_outside(polygon) else Landing.INSIDE
            table.add(item, polygon, landing)
            return True
    return False


def _aim(
    rng: np.random.Generator,
    table: _Table,
    landing: Landing,
    radius: float,
    local: Polygon,
    angle: float,
) -> np.ndarray | None:
    """A centre (mm) for a toss meant to land as ``landing``; ``None`` when none fits."""
    n = len(table.boundary)
    if landing is Landing.INSIDE:
        x0, y0, x1, y1 = table.loop.bounds
        for _ in range(30):
            c = rng.uniform((x0, y0), (x1, y1))
            if table.loop.contains(Point(*c)):
                return c
        return None
    if landing is Landing.ACROSS_STRING:
        p, normal = table.outward_normal(int(rng.integers(n)))
        return p + normal * rng.uniform(-0.7, 0.7) * radius
    if landing in (Landing.TOUCH_STRING, Landing.NEAR_MISS_STRING):
        p, normal = table.outward_normal(int(rng.integers(n)))
        if landing is Landing.TOUCH_STRING:
            gap = rng.uniform(*table.touch_string_gap_mm)
        else:
            gap = rng.uniform(3.0, 10.0)
        return _slide_to_gap(
            p + normal * (radius + table.string_half_mm + gap),
            normal,
            gap,
            lambda c: table.string_gap_mm(_at(local, c, angle)),
        )
    if landing is Landing.STACKED:
        below = [i for i, it in enumerate(table.items) if _links(it)]
        if not below:
            return None
        j = below[int(rng.integers(len(below)))]
        other = np.array(table.items[j].center_mm)
        r_other = table.catalogue.item_shape(table.items[j].kind, table.items[j].type)
        reach = (radius + r_other.half_extent_mm) * rng.uniform(0.15, 0.8)
        direction = _unit(rng.uniform(0.0, 2 * np.pi))
        return other + direction * reach
    if landing is Landing.CHAIN:
        pairs = zip(table.items, table.polygons, strict=True)
        outside = [i for i, (it, p) in enumerate(pairs) if _links(it) and table.is_outside(p)]
        anchors = outside or [i for i, p in enumerate(table.polygons) if p.intersects(table.string)]
        if not anchors:
            return None
        j = anchors[int(rng.integers(len(anchors)))]
        other = np.array(table.items[j].center_mm)
        away = other - table.centroid
        direction = _unit(np.arctan2(away[1], away[0]) + rng.uniform(-1.3, 1.3))
        other_polygon = table.polygons[j]
        r_other = table.catalogue.item_shape(table.items[j].kind, table.items[j].type)
        mode = rng.random()
        if mode < 0.45:  # overlapping
            return other + direction * (radius + r_other.half_extent_mm) * rng.uniform(0.7, 0.95)
        gap = rng.uniform(0.0, 0.4) if mode < 0.8 else rng.uniform(3.0, 10.0)
        return _slide_to_gap(
            other + direction * (radius + r_other.half_extent_mm + gap),
            direction,
            gap,
            lambda c: _at(local, c, angle).distance(other_polygon),
        )
    # Landing.OUTSIDE: alone on free table beyond the loop.
    p, normal = table.outward_normal(int(rng.integers(n)))
    return p + normal * (radius + rng.uniform(30.0, 180.0))


def _links(item: PlacedItem) -> bool:
    """Whether an item can carry a link or a stack (a face-down coaster cannot)."""
    return item.face is Face.UP or item.kind is ItemKind.NAPKIN


def _landing_holds(table: _Table, landing: Landing, polygon: Polygon) -> bool:
    """Reject candidates whose rest position contradicts the aimed landing."""
    if landing is Landing.OUTSIDE:
        return table.is_outside(polygon) and all(polygon.distance(p) > 20.0 for p in table.polygons)
    if landing is Landing.TOUCH_STRING:
        gap = table.string_gap_mm(polygon)
        lo, hi = table.touch_string_gap_mm
        return lo <= gap <= hi + 0.05 and not polygon.intersects(table.loop)
    if landing is Landing.NEAR_MISS_STRING:
        return table.is_outside(polygon) and table.string_gap_mm(polygon) >= 2.5
    return True


def _slide_to_gap(
    start: np.ndarray,
    direction: np.ndarray,
    gap_mm: float,
    measure: Callable[[np.ndarray], float],
) -> np.ndarray | None:
    """Slide a centre along ``direction`` until ``measure(centre)`` equals ``gap_mm`` (mm)."""
    center = start.astype(np.float64)
    for _ in range(8):
        current = measure(center)
        if current <= 0.0 and current < gap_mm - 50.0:
            return None
        error = gap_mm - current
        if abs(error) < 0.02:
            return center
        center = center + direction * error
    return center if abs(gap_mm - measure(center)) < 0.05 else None


def _at(local: Polygon, center: np.ndarray, angle: float) -> Polygon:
    rotated = affinity.rotate(local, angle, origin=(0.0, 0.0))
    return affinity.translate(rotated, float(center[0]), float(center[1]))


def _unit(theta: float) -> np.ndarray:
    return np.array([np.cos(theta), np.sin(theta)])


def stack_heights_mm(
    catalogue: Catalogue, items: Sequence[PlacedItem], polygons: Sequence[Polygon]
) -> tuple[float, ...]:
    """Top-surface height of each of ``items`` (in toss order, with their outlines in table mm)
    at its centre (mm above the table): its thickness plus :data:`SETTLED_SHARE` of the height
    of the highest earlier item it overlaps."""
    heights: list[float] = []
    for k, (item, polygon) in enumerate(zip(items, polygons, strict=True)):
        thickness = (
            catalogue.coaster_thickness_mm
            if item.kind is ItemKind.COASTER
            else catalogue.napkin.thickness_mm
        )
        base = max(
            (heights[j] for j in range(k) if polygon.intersection(polygons[j]).area > 1.0),
            default=0.0,
        )
        heights.append(round(thickness + SETTLED_SHARE * base, 3))
    return tuple(heights)


def _round_tags(table: _Table, n_players: int) -> tuple[str, ...]:
    tags = {f"players{n_players}"}
    for item, landing in zip(table.items, table.landings, strict=True):
        if item.face is Face.DOWN:
            tags.add(f"facedown_{item.kind.value}")
        if landing in (Landing.TOUCH_STRING, Landing.NEAR_MISS_STRING, Landing.ACROSS_STRING):
            tags.add(landing.value)
        if landing is Landing.STACKED:
            tags.add("stacked")
        if landing is Landing.CHAIN:
            tags.add("chain_toss")
    return tuple(sorted(tags))
