import io
import json

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from games.beer_pretzels.catalogue import load_catalogue
from vision.synthetic.generate import (
    MIX,
    PHONE_SIZES,
    SynthOptions,
    draw_weighted,
    encode_jpeg,
    make_sample,
    photo_rng,
    read_sample,
    write_sample,
)
from vision.synthetic.scene_sampler import Difficulty

CATALOGUE = load_catalogue()
SMALL = SynthOptions(size_px=(480, 360), exif_share=0.0)


def test_same_seed_and_index_give_the_same_photo():
    a = make_sample(21, 4, SMALL, CATALOGUE)
    b = make_sample(21, 4, SMALL, CATALOGUE)
    assert np.array_equal(a.image_rgb, b.image_rgb)
    assert np.array_equal(a.instance, b.instance)
    assert a.labels == b.labels
    other_index = make_sample(21, 5, SMALL, CATALOGUE)
    other_set = make_sample(22, 4, SMALL, CATALOGUE)
    assert other_index.labels["items"] != a.labels["items"]
    assert other_set.labels["items"] != a.labels["items"]


def test_photo_streams_depend_on_set_and_index():
    draws = {(s, i): photo_rng(s, i).integers(1 << 62) for s in (0, 1) for i in (0, 1)}
    assert len(set(draws.values())) == 4
    with pytest.raises(ValueError):
        photo_rng(-1, 0)


def test_mix_draws_every_difficulty_and_phone_size():
    rng = np.random.default_rng(0)
    assert {draw_weighted(rng, list(MIX.items())) for _ in range(200)} == set(Difficulty)
    assert len({draw_weighted(rng, list(PHONE_SIZES)) for _ in range(500)}) == len(PHONE_SIZES)


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_exif_orientation_round_trips_to_the_displayed_photo(orientation):
    rng = np.random.default_rng(0)
    displayed = cv2.resize(rng.integers(0, 255, (6, 8, 3), dtype=np.uint8), (160, 120))
    data = encode_jpeg(displayed, 95, orientation)
    stored = Image.open(io.BytesIO(data))
    if orientation in (6, 8):
        assert stored.size == (120, 160)
    shown = np.asarray(ImageOps.exif_transpose(stored))
    assert shown.shape == displayed.shape
    assert np.abs(shown.astype(int) - displayed.astype(int)).mean() < 6


def test_written_files_hold_photo_labels_and_masks(tmp_path):
    options = SynthOptions(size_px=(480, 360), difficulty=Difficulty.MEDIUM, exif_share=1.0)
    sample = make_sample(8, 2, options, CATALOGUE)
    json_path = write_sample(sample, tmp_path)
    labels = json.loads(json_path.read_text())
    assert labels["image"] == "0002.jpg" and labels["exif_orientation"] in (3, 6, 8)
    photo = ImageOps.exif_transpose(Image.open(tmp_path / "0002.jpg"))
    assert photo.size == (labels["width"], labels["height"]) == (480, 360)
    instance = cv2.imread(str(tmp_path / labels["masks"]["instance"]), cv2.IMREAD_UNCHANGED)
    semantic = cv2.imread(str(tmp_path / labels["masks"]["semantic"]), cv2.IMREAD_UNCHANGED)
    assert instance.dtype == np.uint16 and np.array_equal(instance, sample.instance)
    assert semantic.dtype == np.uint8 and np.array_equal(semantic, sample.semantic)
    assert instance.max() <= len(labels["items"])
    assert labels["seed"] == {"set": 8, "index": 2}
    back = read_sample(json_path)
    assert back.labels == labels and np.array_equal(back.instance, sample.instance)
    assert back.image_rgb.shape == sample.image_rgb.shape
    assert np.abs(back.image_rgb.astype(int) - sample.image_rgb.astype(int)).mean() < 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size_px": (10, 10)}, "64..12000"),
        ({"exif_share": 1.5}, "exif_share"),
        ({"decision_margin_mm": -1.0}, "decision_margin_mm"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SynthOptions(**kwargs)


def _icon_margins(labels: dict) -> list[float]:
    return [
        icon["margin_mm"]
        for item in labels["items"]
        for icon in item["icons"]
        if icon["margin_mm"] is not None
    ]


def test_a_decision_margin_keeps_every_icon_verdict_clear_of_it():
    hard = SynthOptions(size_px=(480, 360), difficulty=Difficulty.HARD, exif_share=0.0)
    with_margin = SynthOptions(
        size_px=(480, 360), difficulty=Difficulty.HARD, exif_share=0.0, decision_margin_mm=1.0
    )
    close_calls = 0
    for index in range(3):
        labels = make_sample(7, index, with_margin, CATALOGUE).labels
        assert labels["decision_margin_mm"] == 1.0 and "close_call" not in labels["tags"]
        assert all(m >= 1.0 for m in _icon_margins(labels))
        close_calls += any(m < 1.0 for m in _icon_margins(make_sample(7, index, hard).labels))
    assert close_calls > 0  # the same photos without a margin do hold close calls
