"""Score one round of Beer & Pretzels from table-plane geometry (pure and deterministic).

Input is a :class:`~games.beer_pretzels.scene.Scene` (boundary loop and items in table mm, y
down); output is a :class:`SceneScore`: per item anchored / counted, per icon entirely visible,
per colour money, pretzels, beer doubling and coins. The rules are those of
``spec/beer-and-pretzels.md``:

* An item is **anchored** when any part of it lies in the loop's enclosed region or touches the
  string (the cord is ``catalogue.string.thickness_mm`` wide around ``boundary_mm``).
* An item **counts** when it is anchored or linked to an anchored item through a chain of
  coasters and napkins that overlap or touch.
* **Touching** means a gap of at most :data:`TOUCH_MM` in the table plane.
* An icon is **entirely visible** when no part of its outline polygon is covered by an item
  lying above it (higher ``z``) or by a foreign object (``scene.foreign_mm``).
* Money per colour: the visible pretzels on its counting coasters, doubled when its beer mug is
  visible on a counting coaster; no visible pretzel gives $0.
* A face-down coaster, and a coaster of a type removed from the game (``soft`` with 5
  players), is out of play: it scores nothing, links nothing, covers nothing, with a warning.

Every decision that hangs on at most :data:`UNCERTAIN_MM` (an icon covered by a thin sliver or
missed by a small gap; a link or anchor gap near the touch threshold) is still decided, and is
marked ``uncertain`` with a ``confidence`` in [0.5, 0.95]; certain decisions have confidence 1.

Distances between polygons are *signed gaps* (mm): the gap when apart, minus the overlap depth
when they overlap (see :mod:`games.beer_pretzels.contacts`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from games.beer_pretzels.catalogue import Catalogue, Face, IconKind, ItemKind, load_catalogue
from games.beer_pretzels.contacts import (
    item_gaps_mm,
    outline_item_gaps_mm,
    pairs_within_mm,
    region_gaps_mm,
    signed_gaps_mm,
)
from games.beer_pretzels.geometry import (
    GeometryError,
    RoundedShapes,
    boundary_region_mm,
    icon_outlines_mm,
    item_polygons_mm,
    rounded_shapes_mm,
)
from games.beer_pretzels.scene import PlacedItem, Scene

#: Two things touch when the gap between them is at most this (mm, table plane).
TOUCH_MM = 0.5
#: A decision whose margin is at most this (mm) is marked uncertain.
UNCERTAIN_MM = 2.0
#: Coaster types taken out of the game when five people play.
FIVE_PLAYER_REMOVED_TYPES: tuple[str, ...] = ("soft",)
#: Coin values paid by the bank, largest first ($).
COIN_VALUES: tuple[int, ...] = (5, 1)


class SceneError(ValueError):
    """A scene that cannot be scored: unknown colour or type, repeated ``z``, bad boundary."""


@dataclass(frozen=True)
class IconResult:
    """One printed icon of a coaster.

    ``margin_mm`` is how far the visibility decision is from flipping: the gap to the nearest
    covering thing when visible, the depth of the deepest cover when not (mm). It is given for
    uncertain decisions only (at most :data:`UNCERTAIN_MM`), ``None`` otherwise.
    """

    id: str
    kind: IconKind
    value: int | None
    visible: bool
    uncertain: bool
    confidence: float
    margin_mm: float | None


@dataclass(frozen=True)
class ItemResult:
    """The decisions about ``scene.items[index]``.

    ``uncertain`` is set when whether the item counts hangs on an anchor or link gap within
    :data:`UNCERTAIN_MM` of the touch threshold.
    """

    index: int
    item: PlacedItem
    anchored: bool
    counted: bool
    icons: tuple[IconResult, ...]
    uncertain: bool
    confidence: float


@dataclass(frozen=True)
class PlayerScore:
    """Money of one colour for the round ($) and how it is paid.

    ``pretzels`` are the values of the visible pretzels on counting coasters (scene order);
    ``coins`` maps coin value to count; ``uncertain`` is set when an uncertain decision could
    change ``money``.
    """

    color: str
    money: int
    pretzels: list[int]
    beer_visible: bool
    coins: dict[int, int]
    uncertain: bool


@dataclass(frozen=True)
class SceneScore:
    """The result of scoring a scene: one :class:`ItemResult` per scene item (same order)."""

    items: tuple[ItemResult, ...]
    players: dict[str, PlayerScore]
    warnings: list[str]

    @property
    def scores(self) -> dict[str, int]:
        """Money per colour in play ($)."""
        return {color: player.money for color, player in self.players.items()}

    def to_dict(self) -> dict[str, Any]:
        """The contract-shaped pieces (``scores``, ``players``, ``items``, ``warnings``).

        Items carry table-plane poses (``center_mm``, ``angle_deg``); the image stage adds the
        pixel fields. A face-down coaster's ``type`` is ``null`` (its back does not show it).
        """
        return {
            "scores": self.scores,
            "players": {
                color: {
                    "money": p.money,
                    "pretzels": list(p.pretzels),
                    "beer_visible": p.beer_visible,
                    "coins": {str(value): n for value, n in p.coins.items()},
                    "uncertain": p.uncertain,
                }
                for color, p in self.players.items()
            },
            "items": [_item_dict(r) for r in self.items],
            "warnings": list(self.warnings),
        }


def _item_dict(r: ItemResult) -> dict[str, Any]:
    item = r.item
    return {
        "kind": item.kind.value,
        "color": item.color,
        "type": None if item.face is Face.DOWN else item.type,
        "face": item.face.value,
        "z": item.z,
        "center_mm": [float(item.center_mm[0]), float(item.center_mm[1])],
        "angle_deg": float(item.angle_deg),
        "anchored": r.anchored,
        "counted": r.counted,
        "uncertain": r.uncertain,
        "confidence": r.confidence,
        "icons": [
            {
                "id": icon.id,
                "kind": icon.kind.value,
                "value": icon.value,
                "visible": icon.visible,
                "uncertain": icon.uncertain,
                "confidence": icon.confidence,
                "margin_mm": icon.margin_mm,
            }
            for icon in r.icons
        ],
    }


def score_scene(
    scene: Scene,
    catalogue: Catalogue | None = None,
    players: Sequence[str] | None = None,
    *,
    removed_types: Collection[str] | None = None,
    cord_touch_mm: float = TOUCH_MM,
    link_touch_mm: float = TOUCH_MM,
) -> SceneScore:
    """Score one round.

    ``players`` are the colours in play (default: the colours of the scene's items, in order of
    ``z``). ``removed_types`` are coaster types not used in this round (default: the 5-player
    rule, :data:`FIVE_PLAYER_REMOVED_TYPES` when five colours play). ``cord_touch_mm``: the gap
    (mm) up to which an item is taken to touch the string: the rule's :data:`TOUCH_MM` for exact
    geometry; a scene measured from a photo may allow for the error of the measured cord
    (:data:`vision.pipeline.CORD_CONTACT_ALLOWANCE_MM`). ``link_touch_mm``: likewise the gap
    (mm) up to which two items are taken to touch (:data:`TOUCH_MM` for exact geometry;
    :data:`vision.pipeline.LINK_CONTACT_ALLOWANCE_MM` allows for measured poses). Raises
    :class:`SceneError` for a scene that cannot be scored.
    """
    cat = catalogue if catalogue is not None else load_catalogue()
    colors = _players_in_play(scene, cat, players)
    if removed_types is None:
        removed_types = FIVE_PLAYER_REMOVED_TYPES if len(colors) == 5 else ()
    _check_items(scene, cat)
    warnings: list[str] = []
    in_play = _items_in_play(scene, colors, set(removed_types), warnings)

    placed = [scene.items[i] for i in in_play]
    try:
        polygons = item_polygons_mm(placed, cat)
        shapes = rounded_shapes_mm(placed, cat)
        region = boundary_region_mm(scene.boundary_mm, cat.string.thickness_mm)
    except GeometryError as exc:
        raise SceneError(str(exc)) from exc
    cores = shapes.cores_mm()
    foreign = _foreign_polygons(scene)

    reach = max(TOUCH_MM, cord_touch_mm) + UNCERTAIN_MM
    anchor_gaps = region_gaps_mm(region, shapes, cores, polygons, reach)
    link_pairs, link_gaps = _link_gaps(shapes, cores, polygons, link_touch_mm)
    counting = _counting(
        anchor_gaps, link_pairs, link_gaps, len(in_play), cord_touch_mm, link_touch_mm
    )

    icon_results = _icon_results(scene, cat, in_play, shapes, polygons, foreign, warnings)

    slot = {index: k for k, index in enumerate(in_play)}
    items = []
    for index, item in enumerate(scene.items):
        k = slot.get(index)
        icons = icon_results.get(index) or _hidden_icons(item, cat)
        if k is None:
            items.append(ItemResult(index, item, False, False, icons, False, 1.0))
            continue
        items.append(
            ItemResult(
                index=index,
                item=item,
                anchored=bool(anchor_gaps[k] <= cord_touch_mm),
                counted=bool(counting.counted[k]),
                icons=icons,
                uncertain=bool(counting.uncertain[k]),
                confidence=float(counting.confidence[k]),
            )
        )
    return SceneScore(
        items=tuple(items),
        players=_player_scores(items, colors, counting, slot),
        warnings=warnings,
    )


# --- inputs ------------------------------------------------------------------------------------


def _players_in_play(scene: Scene, cat: Catalogue, players: Sequence[str] | None) -> list[str]:
    if players is None:
        colors: list[str] = []
        for item in sorted(scene.items, key=lambda it: it.z):
            if item.color not in colors:
                colors.append(item.color)
    else:
        colors = list(players)
        if len(set(colors)) != len(colors):
            raise SceneError(f"players must be distinct colours, got {colors}")
    unknown = [c for c in colors if c not in cat.color_names]
    if unknown:
        raise SceneError(
            f"unknown colour(s) {', '.join(map(repr, unknown))}; the catalogue has "
            f"{', '.join(cat.color_names)}"
        )
    return colors


def _check_items(scene: Scene, cat: Catalogue) -> None:
    seen_z: dict[int, int] = {}
    for index, item in enumerate(scene.items):
        where = f"item {index} ({item.color} {item.kind.value})"
        if item.color not in cat.color_names:
            raise SceneError(f"{where}: unknown colour {item.color!r}")
        if item.kind is ItemKind.NAPKIN and item.type is not None:
            raise SceneError(f"{where}: a napkin has no type, got {item.type!r}")
        if item.type is not None and item.kind is ItemKind.COASTER:
            if item.type not in cat.type_names:
                raise SceneError(f"{where}: unknown coaster type {item.type!r}")
        elif item.kind is ItemKind.COASTER and item.face is Face.UP:
            raise SceneError(f"{where}: a face-up coaster needs a type")
        try:
            pose = np.asarray([*item.center_mm, item.angle_deg], dtype=float)
        except (TypeError, ValueError):
            pose = np.array([np.nan])
        if pose.shape != (3,) or not np.isfinite(pose).all():
            raise SceneError(f"{where}: centre (x, y) and angle must be finite numbers")
        if isinstance(item.z, bool) or not isinstance(item.z, int | np.integer):
            raise SceneError(f"{where}: z must be a whole number, got {item.z!r}")
        if item.z in seen_z:
            raise SceneError(f"{where}: z {item.z} is also the z of item {seen_z[item.z]}")
        seen_z[item.z] = index


def _items_in_play(
    scene: Scene, colors: list[str], removed_types: set[str], warnings: list[str]
) -> list[int]:
    """Indices of the items that take part (link and cover); warns about the others."""
    in_play = []
    for index, item in enumerate(scene.items):
        name = _item_name(index, item)
        if item.kind is ItemKind.COASTER and item.face is Face.DOWN:
            warnings.append(
                f"{name} lies face down: it should have been removed; it scores nothing, "
                "links nothing and covers nothing"
            )
            continue
        if item.kind is ItemKind.COASTER and item.type in removed_types:
            warnings.append(
                f"{name} is not used in this game ({len(colors)} players): it scores nothing, "
                "links nothing and covers nothing"
            )
            continue
        if item.color not in colors:
            warnings.append(f"{name}: colour {item.color} is not in play; it scores nothing")
        in_play.append(index)
    return in_play


def _item_name(index: int, item: PlacedItem) -> str:
    what = item.kind.value if item.type is None else f"{item.type} {item.kind.value}"
    return f"item {index} (the {item.color} {what})"


def _foreign_polygons(scene: Scene) -> list[BaseGeometry]:
    out = []
    for n, outline in enumerate(scene.foreign_mm):
        points = np.asarray(outline, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
            raise SceneError(f"foreign object {n} needs at least 3 (x, y) points")
        polygon = shapely.polygons(points)
        out.append(polygon if polygon.is_valid else shapely.make_valid(polygon))
    return out


# --- geometry of decisions ---------------------------------------------------------------------


def _link_gaps(
    shapes: RoundedShapes, cores: np.ndarray, polygons: np.ndarray, link_touch_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, i < j, of items within reach of a link decision (touching up to
    ``link_touch_mm``), and their gaps (mm)."""
    reach = max(TOUCH_MM, link_touch_mm) + UNCERTAIN_MM
    left, right = pairs_within_mm(polygons, polygons, reach)
    keep = left < right
    left, right = left[keep], right[keep]
    gaps = item_gaps_mm(shapes, cores, polygons, left, right, reach)
    near = gaps <= reach
    return np.stack([left[near], right[near]], axis=1), gaps[near]


def _confidence(margin_mm: np.ndarray | float) -> np.ndarray:
    """Confidence of a decision ``margin_mm`` from its threshold: 0.5..0.95 if uncertain, else 1."""
    m = np.abs(np.asarray(margin_mm, dtype=float))
    return np.where(m <= UNCERTAIN_MM, 0.5 + 0.45 * np.minimum(m / UNCERTAIN_MM, 1.0), 1.0)


@dataclass(frozen=True)
class _Counting:
    counted: np.ndarray
    uncertain: np.ndarray
    confidence: np.ndarray
    could_count: np.ndarray


def _counting(
    anchor_gaps: np.ndarray,
    pairs: np.ndarray,
    link_gaps: np.ndarray,
    n: int,
    cord_touch_mm: float,
    link_touch_mm: float,
) -> _Counting:
    """Which items count, and which would flip if the near-threshold gaps went the other way.

    An item is uncertain when it counts with every near-threshold anchor/link switched on but
    not with all of them switched off; its confidence is that of the least certain
    near-threshold anchor or link among the items it is (possibly) linked with.
    """
    anchor_margin = np.abs(anchor_gaps - cord_touch_mm)
    link_margin = np.abs(link_gaps - link_touch_mm)
    anchored = anchor_gaps <= cord_touch_mm
    linked = link_gaps <= link_touch_mm
    anchor_unsure = anchor_margin <= UNCERTAIN_MM
    link_unsure = link_margin <= UNCERTAIN_MM
    counted = _components(pairs[linked], n, anchored) > 0
    low = _components(pairs[linked & ~link_unsure], n, anchored & ~anchor_unsure) > 0
    groups = _components(pairs[linked | link_unsure], n, anchored | anchor_unsure)
    high = groups > 0
    uncertain = high & ~low
    # The least certain near-threshold decision per group of (possibly) linked items.
    worst = np.full(n + 1, np.inf)
    np.minimum.at(worst, groups[anchor_unsure], anchor_margin[anchor_unsure])
    unsure_pairs = pairs[link_unsure]
    np.minimum.at(worst, groups[unsure_pairs[:, 0]], link_margin[link_unsure])
    confidence = np.where(uncertain, _confidence(worst[groups]), 1.0)
    return _Counting(counted=counted, uncertain=uncertain, confidence=confidence, could_count=high)


def _components(edges: np.ndarray, n: int, sources: np.ndarray) -> np.ndarray:
    """Label items by their group of linked items: 0 for groups without a source, else k > 0."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        neighbours[i].append(j)
        neighbours[j].append(i)
    labels = np.zeros(n, dtype=int)
    next_label = 1
    for start in np.flatnonzero(sources):
        if labels[start]:
            continue
        labels[start] = next_label
        stack = [start]
        while stack:
            k = stack.pop()
            for m in neighbours[k]:
                if not labels[m]:
                    labels[m] = next_label
                    stack.append(m)
        next_label += 1
    return labels


def _icon_results(
    scene: Scene,
    cat: Catalogue,
    in_play: list[int],
    shapes: RoundedShapes,
    polygons: np.ndarray,
    foreign: list[BaseGeometry],
    warnings: list[str],
) -> dict[int, tuple[IconResult, ...]]:
    """Visibility of every icon of the face-up coasters in play, by item index."""
    outlines = icon_outlines_mm([scene.items[i] for i in in_play], cat)
    if not outlines:
        return {}
    icons = np.asarray([o.polygon_mm for o in outlines], dtype=object)
    owner = np.asarray([o.item_index for o in outlines])  # slot in in_play
    z = np.array([scene.items[i].z for i in in_play])

    # Items lying above an icon's coaster, measured on their exact shapes.
    icon_k, cover_k = pairs_within_mm(icons, polygons, UNCERTAIN_MM)
    above = z[cover_k] > z[owner[icon_k]]
    icon_k, cover_k = icon_k[above], cover_k[above]
    vertices = [o.vertices_mm for o in outlines]
    gaps = outline_item_gaps_mm(vertices, shapes, icon_k, cover_k, UNCERTAIN_MM)
    # Foreign objects lie above everything.
    foreign_arr = np.asarray(foreign, dtype=object)
    icon_f, foreign_k = pairs_within_mm(icons, foreign_arr, UNCERTAIN_MM)
    foreign_gaps = signed_gaps_mm(icons[icon_f], foreign_arr[foreign_k])
    foreign_gaps[foreign_gaps < -UNCERTAIN_MM] = -np.inf

    by_foreign = np.unique(icon_f[foreign_gaps <= 0])
    icon_k = np.concatenate([icon_k, icon_f])
    gaps = np.concatenate([gaps, foreign_gaps])
    near = gaps <= UNCERTAIN_MM
    icon_k, gaps = icon_k[near], gaps[near]

    covered = np.zeros(len(icons), dtype=bool)
    covered[icon_k[gaps <= 0]] = True
    # Margin: the deepest cover of a covered icon, the nearest cover of a visible one (inf:
    # nothing above comes within UNCERTAIN_MM).
    deepest = np.full(len(icons), -np.inf)
    np.maximum.at(deepest, icon_k, -gaps)
    nearest = np.full(len(icons), np.inf)
    np.minimum.at(nearest, icon_k, gaps)
    margin = np.where(covered, deepest, nearest)
    for n in by_foreign:
        index = in_play[owner[n]]
        warnings.append(
            f"icon {outlines[n].icon_id} of {_item_name(index, scene.items[index])} is covered "
            "by something that is not a game item"
        )

    unsure = margin <= UNCERTAIN_MM
    confidence = _confidence(margin)
    results: dict[int, list[IconResult]] = {}
    for n, outline in enumerate(outlines):
        index = in_play[outline.item_index]
        spec = cat.coaster_type(scene.items[index].type or "").icon(outline.icon_id)
        results.setdefault(index, []).append(
            IconResult(
                id=spec.id,
                kind=spec.kind,
                value=spec.value,
                visible=not covered[n],
                uncertain=bool(unsure[n]),
                confidence=float(confidence[n]),
                margin_mm=round(float(margin[n]), 3) if unsure[n] else None,
            )
        )
    return {index: tuple(icons) for index, icons in results.items()}


def _hidden_icons(item: PlacedItem, cat: Catalogue) -> tuple[IconResult, ...]:
    """Icons of a coaster that is out of play or face down: none of them is visible."""
    if item.kind is not ItemKind.COASTER or item.type is None:
        return ()
    return tuple(
        IconResult(icon.id, icon.kind, icon.value, False, False, 1.0, None)
        for icon in cat.coaster_type(item.type).icons
    )


# --- money -------------------------------------------------------------------------------------


def _player_scores(
    items: list[ItemResult], colors: list[str], counting: _Counting, slot: dict[int, int]
) -> dict[str, PlayerScore]:
    scores = {}
    for color in colors:
        pretzels: list[int] = []
        beer_visible = False
        uncertain = False
        for r in items:
            if r.item.color != color or not r.icons:
                continue
            k = slot.get(r.index)
            could_count = k is not None and bool(counting.could_count[k])
            if r.counted:
                for icon in r.icons:
                    if not icon.visible:
                        continue
                    if icon.kind is IconKind.BEER:
                        beer_visible = True
                    else:
                        pretzels.append(int(icon.value or 0))
            uncertain |= r.uncertain and any(icon.visible for icon in r.icons)
            uncertain |= could_count and any(icon.uncertain for icon in r.icons)
        total = sum(pretzels)
        money = total * 2 if beer_visible and total > 0 else total
        scores[color] = PlayerScore(
            color=color,
            money=money,
            pretzels=pretzels,
            beer_visible=beer_visible,
            coins=coins_for(money),
            uncertain=uncertain,
        )
    return scores


def coins_for(money: int) -> dict[int, int]:
    """The fewest $5 and $1 coins that pay ``money`` dollars: ``{5: n5, 1: n1}``."""
    if money < 0:
        raise ValueError(f"money must not be negative, got {money}")
    coins = {}
    rest = money
    for value in COIN_VALUES:
        coins[value], rest = divmod(rest, value)
    return coins
