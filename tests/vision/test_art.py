"""The art library's templates: the disk cache gives the same features as computing them, and
the blurred copy of the art finds coasters out of focus."""

from __future__ import annotations

import cv2
import numpy as np
from vision_scenes import Placed, render_scene, side, table_homography

from games.beer_pretzels.catalogue import Catalogue
from vision.art import CACHE_DIR_ENV, ArtLibrary, _sides, template_cache_dir
from vision.detect import detect_sides, rectify
from vision.plane import TablePlane

_PX_PER_MM = 0.7  # a small scale: quick to compute


def _fresh_library(catalogue: Catalogue) -> ArtLibrary:
    """A library with empty in-memory caches (the process-wide one may be warm)."""
    return ArtLibrary(catalogue=catalogue, sides=_sides(catalogue))


def _same(a, b) -> None:
    for name in ("points_mm", "descriptors", "twins", "angles_deg", "sizes_px"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_disk_cache_round_trip(catalogue, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    side = next(s for s in _sides(catalogue) if s.type_name is not None)
    computed = _fresh_library(catalogue).template(side, _PX_PER_MM)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1 and side.label in files[0].name
    loaded = _fresh_library(catalogue).template(side, _PX_PER_MM)
    assert len(loaded.points_mm) > 10
    _same(computed, loaded)


def test_corrupt_cache_file_is_recomputed(catalogue, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    side = next(s for s in _sides(catalogue) if s.type_name is not None)
    computed = _fresh_library(catalogue).template(side, _PX_PER_MM)
    (file,) = tmp_path.glob("*.npz")
    file.write_bytes(b"not a numpy archive")
    again = _fresh_library(catalogue).template(side, _PX_PER_MM)
    _same(computed, again)
    assert file.read_bytes()[:2] == b"PK"  # rewritten


def test_cache_off_and_unwritable(catalogue, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    assert template_cache_dir() is None
    side = _sides(catalogue)[0]
    assert len(_fresh_library(catalogue).template(side, _PX_PER_MM).points_mm) > 0
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocker / "sub"))  # cannot be created
    assert len(_fresh_library(catalogue).template(side, _PX_PER_MM).points_mm) > 0


def test_cache_files_differ_by_scale(catalogue, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    side = _sides(catalogue)[0]
    _fresh_library(catalogue).template(side, 0.7)
    _fresh_library(catalogue).template(side, 0.75)
    assert len(list(tmp_path.glob("*.npz"))) == 2


def test_templates_carry_the_art_blurred_too(catalogue, monkeypatch):
    """Coasters out of focus (2 px of blur at 1 px/mm) are found more often with the blurred
    copy of the art in the templates than with the sharp art alone."""
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    items = [
        Placed(side(catalogue, "coaster", "triple"), "gray", (70.0, 70.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (200.0, 80.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (90.0, 200.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (220.0, 210.0), np.deg2rad(75)),
        Placed(side(catalogue, "coaster", "soft"), "gray", (330.0, 120.0), np.deg2rad(200)),
        Placed(side(catalogue, "coaster", "triple"), "blue", (340.0, 250.0), np.deg2rad(-20)),
    ]
    homography = table_homography(1.0)
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (520, 410)), (0, 0), 2.0)
    view = rectify(image, TablePlane(homography, 0.0, 0.0, (520, 410)), np.array([0, 0, 440, 330]))
    found = len(detect_sides(view, _fresh_library(catalogue)))
    monkeypatch.setattr("vision.art.TEMPLATE_BLUR_MM", 0.001)  # the "blurred" copy is the art
    found_sharp_only = len(detect_sides(view, _fresh_library(catalogue)))
    assert found >= 5
    assert found > found_sharp_only
