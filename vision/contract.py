"""Build the public JSON contract (``spec/beer-and-pretzels.md``) of one scored photo.

Pixel coordinates in the contract are in the photo AS DISPLAYED (EXIF applied): working-image
pixels mapped by :func:`vision.load.working_to_displayed_px` (pixel centres at whole numbers, so
a 2x reduction is a scale and half a pixel). Item outlines are full (amodal) shapes, mapped
from the table plane through the fitted plane model (lens distortion included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.geometry import item_polygon_mm
from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import SceneScore
from vision.identify import IdentifiedItem
from vision.load import working_to_displayed_px
from vision.plane import TablePlane

GAME = "beer-and-pretzels"
#: Decimals of pixel coordinates in the contract.
_PX_DECIMALS = 1


def placed_items(
    items: list[IdentifiedItem], z: list[int], catalogue: Catalogue
) -> tuple[PlacedItem, ...]:
    """Scene items (table mm) of the identified items with their stacking ranks ``z``.

    A face-down coaster's type is not visible; it is given as the first catalogue type of its
    shape so that its outline is right (the contract reports ``type: null`` for it).
    """
    placed = []
    for item, rank in zip(items, z, strict=True):
        type_name = item.side.type_name
        if item.side.kind is ItemKind.COASTER and type_name is None:
            type_name = next(
                (t.type for t in catalogue.coaster_types if t.shape == item.side.shape), None
            )
        placed.append(
            PlacedItem(
                kind=item.side.kind,
                color=item.color,
                type=type_name,
                face=item.side.face,
                center_mm=(float(item.pose.center_mm[0]), float(item.pose.center_mm[1])),
                angle_deg=float(np.rad2deg(item.pose.angle_rad) % 360.0),
                z=int(rank),
            )
        )
    return tuple(placed)


def _px(points: np.ndarray, plane: TablePlane, working_to_displayed: float) -> np.ndarray:
    return working_to_displayed_px(
        plane.table_to_image(np.asarray(points, float)), working_to_displayed
    )


def _round(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), _PX_DECIMALS), round(float(y), _PX_DECIMALS)] for x, y in points]


def build_contract(
    *,
    name: str,
    catalogue: Catalogue,
    scene: Scene,
    score: SceneScore | None,
    plane: TablePlane,
    boundary_px: np.ndarray | None,
    working_to_displayed: float,
    warnings: list[str],
    seen_items: Sequence[PlacedItem] | None = None,
) -> dict[str, Any]:
    """The contract dict (without ``timing_ms``).

    ``score`` is None when the scene could not be scored (no boundary): then no item is
    anchored or counted, every colour present has $0, and icon visibility is left out.
    ``seen_items``: the scene's items where the camera sees them (a lifted item's top surface
    appears displaced from where it lies, :mod:`vision.parallax`), for their pixel outlines;
    default the scene's own.
    """
    items = []
    results = score.items if score is not None else [None] * len(scene.items)
    seen = scene.items if seen_items is None else seen_items
    for item, result in zip(seen, results, strict=True):
        outline = np.asarray(item_polygon_mm(item, catalogue).exterior.coords)[:-1]
        centre = _px(np.array([item.center_mm]), plane, working_to_displayed)[0]
        entry: dict[str, Any] = {
            "kind": item.kind.value,
            "color": item.color,
            "type": None if item.kind is ItemKind.NAPKIN or item.face is Face.DOWN else item.type,
            "face": item.face.value,
            "center_px": [round(float(centre[0]), _PX_DECIMALS), round(float(centre[1]), 1)],
            "polygon_px": _round(_px(outline, plane, working_to_displayed)),
            "z": item.z,
            "anchored": bool(result.anchored) if result else False,
            "counted": bool(result.counted) if result else False,
            "icons": [],
        }
        if result is not None:
            entry["icons"] = [
                {
                    "id": icon.id,
                    "kind": icon.kind.value,
                    "value": icon.value,
                    "visible": bool(icon.visible),
                    "uncertain": bool(icon.uncertain),
                    "confidence": round(float(icon.confidence), 3),
                }
                for icon in result.icons
            ]
            if result.uncertain:
                entry["uncertain"] = True
                entry["confidence"] = round(float(result.confidence), 3)
        items.append(entry)
    if score is not None:
        scores = dict(score.scores)
        players = {
            color: {
                "money": p.money,
                "pretzels": list(p.pretzels),
                "beer_visible": bool(p.beer_visible),
                "coins": {str(value): n for value, n in p.coins.items()},
            }
            for color, p in score.players.items()
        }
        all_warnings = [*warnings, *score.warnings]
    else:
        colors = [c for c in catalogue.color_names if any(i.color == c for i in scene.items)]
        scores = dict.fromkeys(colors, 0)
        players = {
            c: {"money": 0, "pretzels": [], "beer_visible": False, "coins": {"5": 0, "1": 0}}
            for c in colors
        }
        all_warnings = list(warnings)
    return {
        "image": name,
        "game": GAME,
        "scores": scores,
        "players": players,
        "items": items,
        "boundary_px": None
        if boundary_px is None
        else _round(working_to_displayed_px(boundary_px, working_to_displayed)),
        "warnings": all_warnings,
    }
