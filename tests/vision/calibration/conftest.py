"""A small re-coloured, re-drawn variant set, photographed and calibrated once per session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from games.beer_pretzels.catalogue import Catalogue, load_catalogue
from vision.calibration.coaster_set import (
    IconRow,
    RectifiedSide,
    ShapeRow,
    SideKey,
    find_side_photos,
    propose_icons,
    propose_shapes,
    rectify_sides,
    write_catalogue,
)
from vision.calibration.lone_photos import write_side_photos
from vision.calibration.variant import check_against, write_variant

#: Three colours (an easy round has 2-3 players) and one coaster type keep the session short.
SMALL_COLORS = (("orange", (236, 112, 24)), ("purple", (118, 52, 160)), ("teal", (0, 138, 140)))
SMALL_TYPES = ("three",)


@dataclass(frozen=True)
class SmallSet:
    truth: Catalogue
    photos: dict[SideKey, list[Path]]
    shapes: list[ShapeRow]
    sides: dict[SideKey, RectifiedSide]
    icons: list[IconRow]
    root: Path


@pytest.fixture(scope="session")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> SmallSet:
    root = tmp_path_factory.mktemp("calibration")
    truth = load_catalogue(
        write_variant(root / "truth", seed=5, colors=SMALL_COLORS, types=SMALL_TYPES)
    )
    write_side_photos(truth, root / "photos", photos_per_side=2, seed=1, size_px=(1280, 960))
    photos = find_side_photos(root / "photos")
    shapes = propose_shapes(photos, truth)
    colors = [c for c, _ in SMALL_COLORS]
    sides = rectify_sides(photos, shapes, colors=colors)
    icons = propose_icons(sides, truth)
    return SmallSet(truth, photos, shapes, sides, icons, root)


@pytest.fixture(scope="session")
def built_catalogue(small_set: SmallSet) -> Catalogue:
    """The small set's catalogue built from its photos, icon table confirmed from the truth."""
    rows = [c.row for c in check_against(small_set.truth, small_set.sides, small_set.icons)]
    colors = list(small_set.truth.color_names)
    root = write_catalogue(
        small_set.root / "built", small_set.sides, small_set.shapes, rows, colors=colors
    )
    return load_catalogue(root)
