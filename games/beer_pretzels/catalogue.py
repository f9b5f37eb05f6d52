"""The component catalogue: colours, coasters, icons, napkin and string of a Beer & Pretzels set.

A catalogue is a folder holding ``components.json`` and its art PNGs (schema described in
``components/README.md`` of the shared set). The default set ships with the package; a user's
own set loads from any folder with the same schema (:func:`load_catalogue`).

Conventions
-----------
* All geometry is in millimetres, in the item's *local frame*: origin at the item's centre,
  x to the right, y DOWN, as seen from above with the face up.
* Icon outlines are in the local frame of the coaster's FACE.
* Art PNGs cover the item's bounding square at ``art_px_per_mm`` pixels per mm; pixel (i, j)
  has its centre at ``x = (i + 0.5) / art_px_per_mm - W / 2`` mm (same for y).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

DEFAULT_CATALOGUE_DIR = Path(str(resources.files("games.beer_pretzels") / "components"))

#: Number of segments per quarter circle used to turn round shapes into polygons.
ARC_SEGMENTS = 16


class CatalogueError(ValueError):
    """A catalogue file is missing, unreadable or does not follow the schema."""


class ItemKind(StrEnum):
    COASTER = "coaster"
    NAPKIN = "napkin"


class Face(StrEnum):
    UP = "up"
    DOWN = "down"


class IconKind(StrEnum):
    PRETZEL = "pretzel"
    BEER = "beer"


@dataclass(frozen=True)
class PlayerColor:
    """A player colour: its name and the printed RGB (0-255)."""

    name: str
    rgb: tuple[int, int, int]


@dataclass(frozen=True)
class Shape:
    """The outline of a coaster or napkin in its local frame (mm)."""

    kind: str  # "circle" | "rounded_square"
    size_mm: float  # diameter of a circle, side of a rounded square
    corner_radius_mm: float = 0.0

    @property
    def polygon_mm(self) -> Polygon:
        """The shape as a shapely polygon centred on the origin (mm, local frame)."""
        return _shape_polygon(self.kind, self.size_mm, self.corner_radius_mm)

    @property
    def half_extent_mm(self) -> float:
        """Distance from the centre to the farthest point of the shape (mm)."""
        if self.kind == "circle":
            return self.size_mm / 2
        h = self.size_mm / 2
        r = self.corner_radius_mm
        return float(((h - r) ** 2 * 2) ** 0.5 + r)


@cache
def _shape_polygon(kind: str, size_mm: float, corner_radius_mm: float) -> Polygon:
    if kind == "circle":
        return Point(0.0, 0.0).buffer(size_mm / 2, quad_segs=ARC_SEGMENTS)
    inner = size_mm / 2 - corner_radius_mm
    square = Polygon([(-inner, -inner), (inner, -inner), (inner, inner), (-inner, inner)])
    if corner_radius_mm <= 0:
        return square
    return square.buffer(corner_radius_mm, quad_segs=ARC_SEGMENTS)


@dataclass(frozen=True)
class Icon:
    """A printed icon on a coaster face: a pretzel worth ``value`` dollars or the beer mug.

    ``outline_mm`` is the outer boundary of the black line around the icon, in the coaster
    face's local frame (mm).
    """

    id: str
    kind: IconKind
    value: int | None
    outline_mm: Polygon


@dataclass(frozen=True)
class CoasterType:
    """One of the five coaster designs (beer, triple, double, three, soft)."""

    type: str
    shape: Shape
    icons: tuple[Icon, ...]

    @property
    def pretzel_value(self) -> int:
        """Sum of the pretzel values printed on this coaster ($)."""
        return sum(icon.value or 0 for icon in self.icons if icon.kind is IconKind.PRETZEL)

    def icon(self, icon_id: str) -> Icon:
        for icon in self.icons:
            if icon.id == icon_id:
                return icon
        raise KeyError(f"coaster type {self.type!r} has no icon {icon_id!r}")


@dataclass(frozen=True)
class NapkinSpec:
    shape: Shape
    thickness_mm: float


@dataclass(frozen=True)
class StringSpec:
    """The boundary cord: colour, thickness and length (mm)."""

    rgb: tuple[int, int, int]
    thickness_mm: float
    length_mm: float


@dataclass(frozen=True)
class Catalogue:
    """A complete component set, loaded from ``root/components.json``."""

    name: str
    version: int
    art_px_per_mm: float
    colors: tuple[PlayerColor, ...]
    coaster_thickness_mm: float
    coaster_types: tuple[CoasterType, ...]
    napkin: NapkinSpec
    string: StringSpec
    art_patterns: dict[str, str] = field(repr=False)
    root: Path = field(repr=False)

    @property
    def color_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.colors)

    @property
    def type_names(self) -> tuple[str, ...]:
        return tuple(t.type for t in self.coaster_types)

    def color(self, name: str) -> PlayerColor:
        for c in self.colors:
            if c.name == name:
                return c
        raise KeyError(f"catalogue {self.name!r} has no colour {name!r}")

    def coaster_type(self, type_name: str) -> CoasterType:
        for t in self.coaster_types:
            if t.type == type_name:
                return t
        raise KeyError(f"catalogue {self.name!r} has no coaster type {type_name!r}")

    def item_shape(self, kind: ItemKind | str, type_name: str | None) -> Shape:
        """Shape of a coaster of ``type_name`` or of the napkin."""
        if ItemKind(kind) is ItemKind.NAPKIN:
            return self.napkin.shape
        if type_name is None:
            raise ValueError("a coaster needs a type to know its shape")
        return self.coaster_type(type_name).shape

    def art_path(
        self, kind: ItemKind | str, color: str, type_name: str | None, face: Face | str
    ) -> Path:
        """Path of the art PNG of an item side (RGBA, ``art_px_per_mm`` px/mm)."""
        key = f"{ItemKind(kind).value}_{'face' if Face(face) is Face.UP else 'back'}"
        pattern = self.art_patterns[key]
        return self.root / pattern.format(color=color, type=type_name or "")


def load_catalogue(root: str | Path | None = None) -> Catalogue:
    """Load the catalogue in folder ``root`` (or the bundled default set when ``None``).

    ``root`` may also point straight at a ``components.json`` file. Raises
    :class:`CatalogueError` naming the offending field when the file does not follow the schema.
    """
    path = DEFAULT_CATALOGUE_DIR if root is None else Path(root)
    if path.is_dir():
        path = path / "components.json"
    return _load_catalogue_file(path.resolve())


@cache
def _load_catalogue_file(path: Path) -> Catalogue:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CatalogueError(f"no catalogue at {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogueError(f"cannot read catalogue {path}: {exc}") from exc
    return parse_catalogue(raw, root=path.parent)


def parse_catalogue(raw: Any, root: Path) -> Catalogue:
    """Build a :class:`Catalogue` from decoded JSON ``raw``; art paths are relative to ``root``."""
    doc = _Fields(raw, "catalogue")
    colors = tuple(PlayerColor(name=c.str("name"), rgb=c.rgb("rgb")) for c in doc.list_of("colors"))
    if not colors:
        raise CatalogueError("field 'colors' must list at least one colour")
    coaster_types = tuple(_parse_coaster_type(t) for t in doc.list_of("coaster_types"))
    if not coaster_types:
        raise CatalogueError("field 'coaster_types' must list at least one coaster type")
    napkin = doc.obj("napkin")
    string = doc.obj("string")
    art = doc.obj("art")
    patterns = {
        key: art.str(key) for key in ("coaster_face", "coaster_back", "napkin_face", "napkin_back")
    }
    return Catalogue(
        name=doc.str("name"),
        version=int(doc.number("version")),
        art_px_per_mm=doc.number("art_px_per_mm"),
        colors=colors,
        coaster_thickness_mm=doc.number("coaster_thickness"),
        coaster_types=coaster_types,
        napkin=NapkinSpec(
            shape=_parse_shape(napkin.obj("shape")), thickness_mm=napkin.number("thickness")
        ),
        string=StringSpec(
            rgb=string.rgb("rgb"),
            thickness_mm=string.number("thickness"),
            length_mm=string.number("length"),
        ),
        art_patterns=patterns,
        root=root,
    )


def _parse_coaster_type(t: _Fields) -> CoasterType:
    icons = []
    for i in t.list_of("icons"):
        kind_name = i.str("kind")
        try:
            kind = IconKind(kind_name)
        except ValueError as exc:
            raise CatalogueError(
                f"field '{i.where}.kind' must be 'pretzel' or 'beer', got {kind_name!r}"
            ) from exc
        value = i.raw.get("value")
        if kind is IconKind.PRETZEL and not (isinstance(value, int) and value > 0):
            raise CatalogueError(
                f"field '{i.where}.value' must be a positive integer for a pretzel"
            )
        icons.append(
            Icon(
                id=i.str("id"),
                kind=kind,
                value=value if kind is IconKind.PRETZEL else None,
                outline_mm=i.polygon("outline"),
            )
        )
    return CoasterType(type=t.str("type"), shape=_parse_shape(t.obj("shape")), icons=tuple(icons))


def _parse_shape(s: _Fields) -> Shape:
    kind = s.str("kind")
    if kind == "circle":
        return Shape(kind="circle", size_mm=s.number("diameter"))
    if kind == "rounded_square":
        return Shape(
            kind="rounded_square",
            size_mm=s.number("size"),
            corner_radius_mm=s.number("corner_radius"),
        )
    raise CatalogueError(f"field '{s.where}.kind' must be 'circle' or 'rounded_square'")


class _Fields:
    """Typed access to a JSON object that names the field path in every error."""

    def __init__(self, raw: Any, where: str) -> None:
        if not isinstance(raw, dict):
            raise CatalogueError(f"field '{where}' must be an object")
        self.raw = raw
        self.where = where

    def _get(self, key: str) -> Any:
        if key not in self.raw:
            raise CatalogueError(f"field '{self.where}.{key}' is missing")
        return self.raw[key]

    def str(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value:
            raise CatalogueError(f"field '{self.where}.{key}' must be a non-empty string")
        return value

    def number(self, key: str) -> float:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise CatalogueError(f"field '{self.where}.{key}' must be a positive number")
        return float(value)

    def rgb(self, key: str) -> tuple[int, int, int]:
        value = self._get(key)
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not all(isinstance(v, int) and 0 <= v <= 255 for v in value)
        ):
            raise CatalogueError(f"field '{self.where}.{key}' must be three integers 0-255")
        return (value[0], value[1], value[2])

    def obj(self, key: str) -> _Fields:
        return _Fields(self._get(key), f"{self.where}.{key}")

    def list_of(self, key: str) -> list[_Fields]:
        value = self._get(key)
        if not isinstance(value, list):
            raise CatalogueError(f"field '{self.where}.{key}' must be a list")
        return [_Fields(v, f"{self.where}.{key}[{n}]") for n, v in enumerate(value)]

    def polygon(self, key: str) -> Polygon:
        value = self._get(key)
        where = f"{self.where}.{key}"
        try:
            points = [(float(x), float(y)) for x, y in value]
        except (TypeError, ValueError) as exc:
            raise CatalogueError(f"field '{where}' must be a list of [x, y] points") from exc
        if len(points) < 3:
            raise CatalogueError(f"field '{where}' needs at least 3 points")
        polygon: BaseGeometry = Polygon(points)
        if not polygon.is_valid or polygon.area <= 0:
            raise CatalogueError(f"field '{where}' is not a simple polygon")
        return polygon
