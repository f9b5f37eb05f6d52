"""A Beer & Pretzels round as it lies on the table: the boundary loop and the items on it.

Table frame
-----------
All geometry here is in the *table plane*, in millimetres: x to the right, y DOWN, as seen
from above (the same handedness as an image). An item's local frame (see
:mod:`games.beer_pretzels.catalogue`) maps to the table by rotating by ``angle_deg`` and then
translating by ``center_mm``::

    table = center_mm + [[cos a, -sin a], [sin a, cos a]] @ local

so a positive angle turns the item clockwise as seen on the table (y down). A face-down item
shows its back, whose local frame is the face frame mirrored (face (x, y) -> back (-x, y)).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.beer_pretzels.catalogue import Face, ItemKind

PointMM = tuple[float, float]


@dataclass(frozen=True)
class PlacedItem:
    """A coaster or napkin lying on the table.

    ``z`` orders items bottom to top: an item with a larger ``z`` lies above (and may cover)
    every item with a smaller ``z``. ``type`` is ``None`` for napkins (and may be ``None`` for a
    face-down coaster whose type cannot be told from its back; its ``back_shape``, the shape kind
    seen, ``"circle"`` or ``"rounded_square"``, then tells its outline).
    """

    kind: ItemKind
    color: str
    type: str | None
    face: Face
    center_mm: PointMM
    angle_deg: float
    z: int
    back_shape: str | None = None

    def __post_init__(self) -> None:
        # Accept plain strings ("coaster", "up") from JSON and turn them into the enums.
        try:
            object.__setattr__(self, "kind", ItemKind(self.kind))
            object.__setattr__(self, "face", Face(self.face))
        except ValueError as exc:
            raise ValueError(
                f"an item needs kind 'coaster'/'napkin' and face 'up'/'down': {exc}"
            ) from exc


@dataclass(frozen=True)
class Scene:
    """The boundary loop and the items of one round, in table-plane mm.

    ``boundary_mm`` is the centre line of the string as a closed polyline (first point not
    repeated); the string itself is ``catalogue.string.thickness_mm`` wide around it.
    ``foreign_mm`` are outlines of objects that are not game items (a glass, a hand) that lie
    over the game and may hide icons.
    """

    boundary_mm: tuple[PointMM, ...]
    items: tuple[PlacedItem, ...]
    foreign_mm: tuple[tuple[PointMM, ...], ...] = ()
