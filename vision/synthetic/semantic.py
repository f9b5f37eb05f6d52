"""Semantic class ids of the training masks: background, table, string, coaster face per
player colour, coaster back, napkin, distractor."""

from __future__ import annotations

from dataclasses import dataclass

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.scene import PlacedItem


@dataclass(frozen=True)
class SemanticClasses:
    """Class ids (uint8) for one catalogue: fixed ones, then one coaster-face class per colour.

    ``background`` (0) is what lies beyond the table; a face-down coaster is ``coaster_back``
    whatever its colour (the instance mask and the labels tell which coaster it is).
    """

    colors: tuple[str, ...]
    background: int = 0
    table: int = 1
    string: int = 2

    @classmethod
    def for_catalogue(cls, catalogue: Catalogue) -> SemanticClasses:
        return cls(colors=catalogue.color_names)

    def coaster_face(self, color: str) -> int:
        return 3 + self.colors.index(color)

    @property
    def coaster_back(self) -> int:
        return 3 + len(self.colors)

    @property
    def napkin(self) -> int:
        return 4 + len(self.colors)

    @property
    def distractor(self) -> int:
        return 5 + len(self.colors)

    def item_class(self, item: PlacedItem) -> int:
        if item.kind is ItemKind.NAPKIN:
            return self.napkin
        if item.face is Face.DOWN:
            return self.coaster_back
        return self.coaster_face(item.color)

    def names(self) -> dict[int, str]:
        """Class id -> name, for the labels file."""
        out = {self.background: "background", self.table: "table", self.string: "string"}
        out.update({self.coaster_face(c): f"coaster_face_{c}" for c in self.colors})
        out[self.coaster_back] = "coaster_back"
        out[self.napkin] = "napkin"
        out[self.distractor] = "distractor"
        return out
