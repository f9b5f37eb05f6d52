import numpy as np
import pytest
from shapely.geometry import Point

from games.beer_pretzels.catalogue import load_catalogue
from games.beer_pretzels.scene import PlacedItem
from vision.icon_covers import IconCover
from vision.parallax import SETTLED_SHARE, camera_centre, onto_table, stack_heights_mm
from vision.plane import TYPICAL_FOCAL_PER_LONG_SIDE, TablePlane

SIZE = (2000, 1500)  # working image (px)
CAMERA_MM = np.array([300.0, -400.0, -900.0])  # world: x right, y down, z into the table


def _rotation_about_x(deg: float) -> np.ndarray:
    a = np.deg2rad(deg)
    return np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])


def _camera(tilt_deg: float, focal_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Intrinsics and world -> camera rotation of a pinhole looking down, tilted about x."""
    w, h = SIZE
    k = np.array([[focal_px, 0, w / 2], [0, focal_px, h / 2], [0, 0, 1]])
    return k, _rotation_about_x(tilt_deg)


def _project(k, rotation, points_3d: np.ndarray) -> np.ndarray:
    cam = (points_3d - CAMERA_MM) @ rotation.T
    px = cam @ k.T
    return px[:, :2] / px[:, 2:]


def _plane(k, rotation) -> TablePlane:
    hom = k @ np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ CAMERA_MM])
    return TablePlane(hom / hom[2, 2], 0.0, 0.0, SIZE)


@pytest.mark.parametrize("tilt_deg", [25.0, 40.0])
def test_the_camera_is_placed_from_a_tilted_plane(tilt_deg):
    k, rotation = _camera(tilt_deg, 1.3 * max(SIZE))
    plane = _plane(k, rotation)
    near = plane.image_to_table(np.array([[1000.0, 750.0]]))[0]
    camera = camera_centre(plane, tuple(near))
    assert camera is not None
    assert camera.foot_mm == pytest.approx(CAMERA_MM[:2], abs=1.0)
    assert camera.height_mm == pytest.approx(-CAMERA_MM[2], rel=1e-3)


def test_a_square_on_plane_takes_a_typical_phone_focal_length():
    k, rotation = _camera(0.0, TYPICAL_FOCAL_PER_LONG_SIDE * max(SIZE))
    plane = _plane(k, rotation)
    camera = camera_centre(plane, tuple(CAMERA_MM[:2]))
    assert camera is not None
    assert camera.foot_mm == pytest.approx(CAMERA_MM[:2], abs=1.0)
    assert camera.height_mm == pytest.approx(-CAMERA_MM[2], rel=1e-3)


def test_a_point_seen_on_a_stack_is_moved_back_under_itself():
    k, rotation = _camera(35.0, 1.1 * max(SIZE))
    plane = _plane(k, rotation)
    true_xy = np.array([[500.0, 200.0], [50.0, 350.0], [300.0, 100.0]])
    lift_mm = 6.0
    seen_px = _project(k, rotation, np.column_stack([true_xy, np.full(3, -lift_mm)]))
    seen_mm = plane.image_to_table(seen_px)
    assert np.linalg.norm(seen_mm - true_xy, axis=1).max() > 2.0  # parallax of a 6 mm stack
    camera = camera_centre(plane, tuple(true_xy.mean(axis=0)))
    assert camera is not None
    assert camera.onto_table(seen_mm, lift_mm) == pytest.approx(true_xy, abs=0.01)


def test_stack_heights_follow_what_each_item_rests_on():
    a, b, c = Point(0, 0).buffer(40), Point(60, 0).buffer(40), Point(300, 0).buffer(40)
    d = Point(110, 0).buffer(40)  # on b only
    heights = stack_heights_mm([a, b, c, d], z=[0, 1, 2, 3], thickness_mm=[2.0, 2.0, 2.0, 1.5])
    on_a = 2.0 + SETTLED_SHARE * 2.0
    assert heights == pytest.approx([2.0, on_a, 2.0, 1.5 + SETTLED_SHARE * on_a])


def test_lifted_items_and_their_covers_are_moved_to_where_they_lie():
    catalogue = load_catalogue()
    k, rotation = _camera(35.0, 1.1 * max(SIZE))
    plane = _plane(k, rotation)

    def coaster(x, z):
        return PlacedItem("coaster", "red", "double", "up", (x, 300.0), 0.0, z)

    # three on the table, one resting on the second: the median top is one coaster's
    seen = [coaster(0.0, 0), coaster(200.0, 1), coaster(400.0, 2), coaster(250.0, 3)]
    outline = np.array([[240.0, 290.0], [260.0, 290.0], [250.0, 310.0]])
    cover = IconCover(3, ("p1",), outline, 200.0)
    on_table = onto_table(plane, seen, [cover], catalogue)
    camera = camera_centre(plane, (200.0, 300.0))
    assert camera is not None
    for before, after in zip(seen[:3], on_table.items[:3], strict=True):
        assert after.center_mm == pytest.approx(before.center_mm, abs=1e-9)
    lift = SETTLED_SHARE * 2.0  # above the median top: one coaster's
    lifted = np.array([seen[3].center_mm])
    assert np.array([on_table.items[3].center_mm]) == pytest.approx(camera.onto_table(lifted, lift))
    # toward the foot of the camera, by a few tenths of a mm at this distance
    moved = np.subtract(on_table.items[3].center_mm, seen[3].center_mm)
    assert 0.2 < np.linalg.norm(moved) < 2.0
    assert np.linalg.norm(
        np.subtract(on_table.items[3].center_mm, camera.foot_mm)
    ) < np.linalg.norm(np.subtract(seen[3].center_mm, camera.foot_mm))
    assert on_table.items[3].angle_deg == seen[3].angle_deg and on_table.items[3].z == 3
    assert on_table.foreign_mm[0] == pytest.approx(camera.onto_table(outline, lift))


def test_a_scene_whose_camera_cannot_be_placed_is_left_as_seen():
    catalogue = load_catalogue()
    flat = TablePlane(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0.0]]), 0.0, 0.0, SIZE)
    seen = [PlacedItem("coaster", "red", "double", "up", (10.0, 20.0), 0.0, 0)]
    on_table = onto_table(flat, seen, [], catalogue)
    assert on_table.items == tuple(seen) and on_table.foreign_mm == []
