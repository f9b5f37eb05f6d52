from pathlib import Path

import cv2
import numpy as np
import pytest

from games.beer_pretzels.catalogue import Face, ItemKind, load_catalogue
from vision.calibration.colours import (
    NEUTRAL_SPREAD,
    ColourMap,
    FoundItem,
    colour_confusion,
    find_items,
    fit_colours,
    write_fitted,
)
from vision.calibration.lone_photos import photograph_all
from vision.synthetic.generate import encode_jpeg


class _Scene:
    def __init__(self, items):
        self.items = items


class _Row:
    def __init__(self, item, color):
        self.item, self.color = item, color


def test_fit_recovers_a_colour_map():
    rng = np.random.default_rng(0)
    art = rng.uniform(20, 230, (5000, 3)).astype(np.float32)
    true = np.array([[0.9, 0.05, 0.0, 10.0], [0.0, 1.1, 0.05, -5.0], [0.02, 0.0, 0.8, 20.0]])
    observed = np.column_stack([art, np.ones(len(art))]) @ true.T + rng.normal(0, 1, (5000, 3))
    found = FoundItem(item=None, art_by_color={"red": art}, observed=observed.astype(np.float32))
    maps = fit_colours([_Scene([found])], [[_Row(0, "red")]])
    mapped = maps["red"].apply(art)
    assert np.abs(mapped - observed).mean() < 3.0
    assert maps["red"].samples > 3000


def test_too_few_pixels_leave_a_colour_alone():
    art = np.full((50, 3), 100, np.float32)
    found = FoundItem(item=None, art_by_color={"red": art}, observed=art * 0.5)
    assert fit_colours([_Scene([found])], [[_Row(0, "red")]]) == {}


def test_fitted_catalogue_keeps_neutral_print_and_decides_colours(
    small_set, built_catalogue, tmp_path
):
    image, labels = photograph_all(np.random.default_rng(4), small_set.truth, (1280, 960))
    photo = tmp_path / "all.jpg"
    photo.write_bytes(encode_jpeg(image, 92))
    scene = find_items(photo, built_catalogue)
    rows = scene.rows_from_labels(labels)
    assert len(rows) >= 4  # of 6 items laid out
    maps = fit_colours([scene], [rows])
    assert maps and all(isinstance(m, ColourMap) for m in maps.values())
    fitted = load_catalogue(write_fitted(built_catalogue, maps, tmp_path / "fitted"))
    assert fitted.color_names == built_catalogue.color_names
    # neutral print (alike in every colour) is untouched, so the light is measured the same
    arts = [
        cv2.imread(str(c.art_path(ItemKind.COASTER, name, "three", Face.UP)))
        for c in (built_catalogue, fitted)
        for name in built_catalogue.color_names
    ]
    before = np.stack(arts[:3]).astype(np.float32)
    neutral = (before.max(axis=0) - before.min(axis=0)).max(axis=2) < NEUTRAL_SPREAD
    assert neutral.sum() > 1000
    assert np.abs(arts[3].astype(int) - arts[0].astype(int))[neutral].max() <= 1
    _, before_m = colour_confusion([scene], [rows], built_catalogue)
    _, after_m = colour_confusion([scene], [rows], fitted)
    assert before_m.sum() == after_m.sum() == len(rows)
    assert np.trace(after_m) >= np.trace(before_m) - 1


def test_writing_over_the_original_is_refused(built_catalogue):
    with pytest.raises(ValueError, match="new folder"):
        write_fitted(built_catalogue, {}, Path(built_catalogue.root))
