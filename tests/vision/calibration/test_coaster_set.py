import dataclasses
import json

import cv2
import numpy as np
import pytest

from games.beer_pretzels.catalogue import Face, ItemKind, load_catalogue
from vision.calibration.coaster_set import (
    CalibrationError,
    SideKey,
    balance_white,
    before_after,
    find_side_photos,
    flatten_light,
    match_light,
    rows_table,
    side_photo_name,
    sides_to_photograph,
    write_catalogue,
)
from vision.calibration.variant import check_against
from vision.evaluation import evaluate_photo
from vision.pipeline import score_photo
from vision.synthetic.generate import SynthOptions, make_sample, write_sample
from vision.synthetic.scene_sampler import Difficulty


def test_photo_names_round_trip(tmp_path):
    sides = sides_to_photograph(load_catalogue())
    assert len(sides) == 5 * (5 + 2 + 2)  # faces, a back per shape, napkin face and back
    for side in sides[:9]:
        (tmp_path / side_photo_name(side, 1)).write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a photo")
    (tmp_path / "holiday.jpg").write_bytes(b"")
    found = find_side_photos(tmp_path)
    assert set(found) == set(sides[:9])


def test_a_folder_without_named_photos_is_refused(tmp_path):
    (tmp_path / "IMG_0001.jpg").write_bytes(b"")
    with pytest.raises(CalibrationError, match="named like"):
        find_side_photos(tmp_path)


def _confirmed(small_set):
    """What the person confirms in the icon table: id, kind and value of each printed icon."""
    return [
        (c.row, c.outline_error_mm)
        for c in check_against(small_set.truth, small_set.sides, small_set.icons)
    ]


def test_icon_outlines_are_within_1_mm_of_the_truth(small_set):
    confirmed = _confirmed(small_set)
    assert len(confirmed) == len(small_set.truth.coaster_type("three").icons)
    assert max(error for _, error in confirmed) < 1.0
    # the proposal guessed the value from the icon's size
    assert [r.value for r in small_set.icons] == [r.value for r, _ in confirmed]


def test_calibrated_catalogue_loads_and_scores_the_variant(small_set, tmp_path):
    rows = [row for row, _ in _confirmed(small_set)]
    colors = list(small_set.truth.color_names)
    root = write_catalogue(
        tmp_path / "built", small_set.sides, small_set.shapes, rows, name="built", colors=colors
    )
    built = load_catalogue(root)
    assert built.color_names == small_set.truth.color_names
    assert built.coaster_type("three").shape == small_set.truth.coaster_type("three").shape
    assert [(i.id, i.kind, i.value) for i in built.coaster_type("three").icons] == [
        (i.id, i.kind, i.value) for i in small_set.truth.coaster_type("three").icons
    ]
    for color in colors:
        assert built.art_path(ItemKind.NAPKIN, color, None, Face.DOWN).is_file()
    picture = before_after(small_set.sides[SideKey("coaster", "teal", "three", "face")], rows)
    assert picture.ndim == 3 and picture.shape[2] == 3

    options = SynthOptions(size_px=(1280, 960), difficulty=Difficulty.EASY, exif_share=0.0)
    found = right = 0
    for index in range(3):
        sample = make_sample(31, index, options, catalogue=small_set.truth)
        json_path = write_sample(sample, tmp_path / "scenes")
        truth = json.loads(json_path.read_text())
        contract = score_photo(json_path.with_suffix(".jpg"), catalogue=built).contract
        result = evaluate_photo(contract, truth)
        found += result.found.right
        right += result.items["color"].right + result.items["type"].right
        total = result.items["color"].total + result.items["type"].total
        assert result.found.accuracy >= 0.5
        assert result.items["color"].right + result.items["type"].right >= total - 1
    assert found >= 6


def test_missing_sides_and_bad_rows_are_named(small_set, tmp_path):
    rows = [row for row, _ in _confirmed(small_set)]
    partial = {k: v for k, v in small_set.sides.items() if k.label != "napkin-teal-back"}
    with pytest.raises(CalibrationError, match="napkin-teal-back"):
        write_catalogue(tmp_path / "a", partial, small_set.shapes, rows)
    bad = [dataclasses.replace(rows[0], kind="pretzel", value=None)]
    with pytest.raises(CalibrationError, match="value"):
        write_catalogue(tmp_path / "b", small_set.sides, small_set.shapes, bad)


def test_rows_table_lists_the_editable_fields(small_set):
    table = rows_table(small_set.icons)
    assert table.splitlines()[0].split() == [
        "coaster_type",
        "icon_id",
        "kind",
        "value",
        "width_mm",
        "height_mm",
        "keep",
    ]
    assert "three" in table and "outline" not in table


def test_shapes_are_read_from_the_photos(small_set):
    rows = {row.item: row for row in small_set.shapes}
    assert set(rows) == {"three", "napkin"}
    assert (rows["three"].kind, rows["three"].size_mm, rows["three"].corner_radius_mm) == (
        "rounded_square",
        85.0,
        6.0,
    )
    assert rows["napkin"].shape() == small_set.truth.napkin.shape
    with pytest.raises(CalibrationError, match="shape"):
        dataclasses.replace(rows["three"], kind="hexagon").shape()


def test_balance_white_undoes_one_photos_colour_cast():
    # three colours of one face, one of them photographed under warm (tungsten-like) light
    catalogue = load_catalogue()
    arts = [
        cv2.imread(
            str(catalogue.art_path(ItemKind.COASTER, color, "soft", Face.UP)), cv2.IMREAD_UNCHANGED
        )
        for color in ("red", "green", "blue")
    ]
    cast = arts[1].copy()
    cast[:, :, :3] = np.clip(cast[:, :, :3] * np.array([0.62, 0.95, 1.0]), 0, 255).astype(np.uint8)
    balanced = balance_white([arts[0], cast, arts[2]])
    inside = arts[1][:, :, 3] > 250
    cream = inside & (arts[1][:, :, :3].min(axis=2) > 200)  # the print every colour shares
    before = np.abs(cast[cream][:, :3].astype(float) - arts[1][cream][:, :3]).mean()
    after = np.abs(balanced[1][cream][:, :3].astype(float) - arts[1][cream][:, :3]).mean()
    assert before > 25
    assert after < 8
    # the colours without a cast keep their print (their brightest print already agrees)
    assert np.abs(balanced[0][:, :, :3].astype(float) - arts[0][:, :, :3]).mean() < 4


def test_flatten_light_divides_out_a_fall_off_across_the_coaster():
    art = cv2.imread(
        str(load_catalogue().art_path(ItemKind.COASTER, "green", "double", Face.UP)),
        cv2.IMREAD_UNCHANGED,
    )
    n = art.shape[0]
    falloff = np.linspace(1.0, 0.6, n, dtype=np.float32)[None, :, None]  # darker to the right
    shaded = art.copy()
    shaded[:, :, :3] = np.clip(art[:, :, :3] * falloff, 0, 255).astype(np.uint8)
    flat = flatten_light(shaded)
    inside = art[:, :, 3] > 250
    left, right = inside.copy(), inside.copy()
    left[:, n // 3 :], right[:, : 2 * n // 3] = False, False

    def error(image, region):
        return np.abs(image[region][:, :3].astype(float) - art[region][:, :3]).mean()

    # shading becomes (nearly) one gain: after one scale, left and right agree with the art
    scale = np.median(art[inside][:, :3].astype(float) / np.maximum(flat[inside][:, :3], 1))
    rescaled = np.clip(flat[:, :, :3] * scale, 0, 255)
    assert error(shaded, right) - error(shaded, left) > 25
    assert abs(error(rescaled, right) - error(rescaled, left)) < 6
    # an evenly lit art is left as it is
    assert np.abs(flatten_light(art)[inside][:, :3].astype(float) - art[inside][:, :3]).mean() < 3


def test_match_light_removes_one_photos_shadow_from_the_art():
    catalogue = load_catalogue()
    reference = cv2.imread(
        str(catalogue.art_path(ItemKind.COASTER, "green", "double", Face.UP)),
        cv2.IMREAD_UNCHANGED,
    )
    n = reference.shape[0]
    shadow = np.ones((n, n, 1), np.float32)
    shadow[int(n * 0.6) : int(n * 0.8)] = 0.6  # a band of soft shadow across the coaster
    shadow = cv2.GaussianBlur(shadow, (0, 0), 8)[:, :, None]
    photo = reference.copy()
    photo[:, :, :3] = np.clip(reference[:, :, :3] * shadow * 0.9, 0, 255).astype(np.uint8)
    matched = match_light(photo, reference)
    band = reference[:, :, 3] > 250
    band[: int(n * 0.62)], band[int(n * 0.78) :] = False, False

    def error(art):
        return np.abs(art[band][:, :3].astype(float) - reference[band][:, :3]).mean()

    assert error(photo) > 40
    assert error(matched) < 12
