import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Face, ItemKind, load_catalogue
from vision.calibration.variant import (
    EDGE_CLEARANCE_MM,
    HALO_MM,
    ICON_CLEARANCE_MM,
    plan_layout,
    write_variant,
)

BASE = load_catalogue()


@pytest.mark.parametrize("type_name", BASE.type_names)
def test_new_layouts_follow_the_placement_rules(type_name):
    coaster = BASE.coaster_type(type_name)
    moves = plan_layout(np.random.default_rng(3), BASE, type_name)
    placed = [
        m.apply(i.outline_mm).buffer(HALO_MM) for i, m in zip(coaster.icons, moves, strict=True)
    ]
    allowed = coaster.shape.polygon_mm.buffer(-EDGE_CLEARANCE_MM)
    assert all(allowed.contains(p) for p in placed)
    for i in range(len(placed)):
        for j in range(i + 1, len(placed)):
            assert placed[i].distance(placed[j]) >= ICON_CLEARANCE_MM
    # the icons really moved
    moved = [m.apply(i.outline_mm) for i, m in zip(coaster.icons, moves, strict=True)]
    assert (
        max(
            p.centroid.distance(i.outline_mm.centroid)
            for p, i in zip(moved, coaster.icons, strict=True)
        )
        > 5
    )


def test_variant_catalogue_loads_with_new_colours_and_outlines(small_set):
    truth = small_set.truth
    assert truth.color_names == ("orange", "purple", "teal")
    assert truth.type_names == ("three",)
    icon = truth.coaster_type("three").icons[0]
    assert len(icon.outline_mm.exterior.coords) - 1 >= 128
    assert icon.outline_mm.hausdorff_distance(BASE.coaster_type("three").icons[0].outline_mm) > 5
    art = cv2.imread(
        str(truth.art_path(ItemKind.COASTER, "teal", "three", Face.UP)), cv2.IMREAD_UNCHANGED
    )
    assert art.shape == (850, 850, 4)
    hsv = cv2.cvtColor(art[:, :, :3], cv2.COLOR_BGR2HSV_FULL)
    saturated = hsv[:, :, 1] > 100
    teal_hue = cv2.cvtColor(np.uint8([[[140, 138, 0]]]), cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]
    assert abs(int(np.median(hsv[:, :, 0][saturated])) - int(teal_hue)) < 12
    # the black line is printed where the catalogue says the outline is
    ring = np.asarray(icon.outline_mm.buffer(-0.75).exterior.coords)
    px = np.round((ring + 42.5) * 10 - 0.5).astype(int)
    assert np.median(art[px[:, 1], px[:, 0], :3].max(axis=1)) < 90
    assert Polygon(np.asarray(icon.outline_mm.exterior.coords)).is_valid


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"colors": (("a", (1, 2, 3)),)}, "two colours"), ({"types": ("nope",)}, "unknown")],
)
def test_bad_variant_requests_are_refused(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        write_variant(tmp_path, **kwargs)
