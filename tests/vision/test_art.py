"""The art library's templates: the disk cache gives the same features as computing them."""

from __future__ import annotations

import numpy as np

from games.beer_pretzels.catalogue import Catalogue
from vision.art import _TURNED_KEPT, CACHE_DIR_ENV, ArtLibrary, _sides, template_cache_dir

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


def test_turned_ink_turns_the_art_and_keeps_a_bounded_few(catalogue):
    library = _fresh_library(catalogue)
    side = next(s for s in library.sides if s.type_name == "three")
    turned = library.turned_ink(side, 0.4, 90.0, (0.0, 1.5))
    assert turned.stack.shape[:2] == (4, 2 * len(library.reference_colors()))
    assert library.turned_ink(side, 0.4, 90.0, (0.0, 1.5)) is turned
    # a quarter turn of the square art is the art's pixels turned (clockwise on the page)
    np.testing.assert_allclose(turned.stack[1, 0], np.rot90(turned.stack[0, 0], -1), atol=1.0)
    for k in range(20):
        library.turned_ink(side, 0.3 + 0.01 * k, 90.0, (0.0,))
    assert len(library._turned_cache) <= _TURNED_KEPT
