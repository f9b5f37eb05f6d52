"""Shared fixtures of the vision stage tests: the bundled catalogue, a small synthetic table and
the item sides found on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from games.beer_pretzels.catalogue import Catalogue, load_catalogue
from vision.art import ArtLibrary, art_library
from vision.detect import CanvasView, SideDetection, coarse_table_plane, detect_sides, rectify
from vision.plane import TablePlane


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="session")
def small_table(catalogue: Catalogue):
    """(image, homography table mm -> px, placed items bottom first) of a 4-item table."""
    items = [
        Placed(side(catalogue, "coaster", "triple"), "blue", (60.0, 60.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (190.0, 70.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (120.0, 170.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (175.0, 140.0), np.deg2rad(75)),
        Placed(side(catalogue, "napkin", None, "up"), "gray", (300.0, 150.0), np.deg2rad(10)),
    ]
    homography = table_homography(2.0, tilt=0.0004, origin_px=(60.0, 50.0))
    image = render_scene(catalogue, items, homography, (900, 620))
    return image, homography, items


@dataclass(frozen=True)
class SearchedTable:
    """The small table rectified with its coarse plane (working px -> table mm) and the item
    sides found in that view by their art."""

    library: ArtLibrary
    plane: TablePlane
    view: CanvasView
    sides: list[SideDetection]


@pytest.fixture(scope="session")
def small_table_searched(small_table, catalogue: Catalogue) -> SearchedTable:
    image = small_table[0]
    h, w = image.shape[:2]
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    return SearchedTable(library, plane, view, detect_sides(view, library))
