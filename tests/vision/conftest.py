"""Shared fixtures of the vision stage tests: the bundled catalogue and a small synthetic table."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from games.beer_pretzels.catalogue import Catalogue, load_catalogue


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
