import numpy as np
import pytest

from games.beer_pretzels.catalogue import load_catalogue
from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import score_scene
from vision.contract import build_contract
from vision.plane import TablePlane

PX_PER_MM = 2.0


def _contract(seen_items=None, working_to_displayed=1.0):
    catalogue = load_catalogue()
    lying = PlacedItem("coaster", "red", "double", "up", (100.0, 100.0), 0.0, 0)
    scene = Scene(
        boundary_mm=((0.0, 0.0), (200.0, 0.0), (200.0, 200.0), (0.0, 200.0)), items=(lying,)
    )
    plane = TablePlane(np.diag([PX_PER_MM, PX_PER_MM, 1.0]), 0.0, 0.0, (400, 400))
    return build_contract(
        name="photo",
        catalogue=catalogue,
        scene=scene,
        score=score_scene(scene, catalogue),
        plane=plane,
        boundary_px=None,
        working_to_displayed=working_to_displayed,
        warnings=[],
        seen_items=seen_items,
    )


def test_items_are_drawn_where_the_camera_sees_them_and_scored_where_they_lie():
    seen = PlacedItem("coaster", "red", "double", "up", (101.0, 100.5), 0.0, 0)
    drawn = _contract([seen])["items"][0]
    assert drawn["center_px"] == pytest.approx([101.0 * PX_PER_MM, 100.5 * PX_PER_MM])
    assert drawn["counted"] and drawn["anchored"]
    assert [icon["visible"] for icon in drawn["icons"]] == [True, True]
    assert _contract()["items"][0]["center_px"] == pytest.approx([200.0, 200.0])


def test_pixels_of_a_reduced_working_image_map_to_the_displayed_photo_by_pixel_centres():
    # The item's centre lies at working px (200, 200); a working pixel averages 2x2 displayed
    # pixels whose centres are 400 and 401, so it is displayed at 400.5, not 400.
    item = _contract(working_to_displayed=2.0)["items"][0]
    assert item["center_px"] == pytest.approx([400.5, 400.5])
    outline = np.asarray(item["polygon_px"])
    same_scale = np.asarray(_contract()["items"][0]["polygon_px"])
    assert outline == pytest.approx(same_scale * 2 + 0.5, abs=0.15)  # both rounded to 0.1 px
