"""Each face-up coaster settled where its whole art explains the view, clear of the items above."""

from __future__ import annotations

import numpy as np
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.identify import IdentifiedItem, render
from vision.plane import ItemPose
from vision.settle import settle_on_art

PX_PER_MM = 1.6
ORIGIN_PX = (40.0, 40.0)
#: Where the coaster truly lies (table mm) and its turn (rad); the napkin above covers its
#: right-hand part.
COASTER_MM = (110.0, 100.0)
COASTER_TURN = np.deg2rad(20.0)
NAPKIN_MM = (185.0, 100.0)


def _view(catalogue, items: list[Placed]) -> CanvasView:
    """The scene seen straight from above: canvas px = (table mm - origin) * px per mm."""
    homography = table_homography(PX_PER_MM, origin_px=ORIGIN_PX)
    image = render_scene(catalogue, items, homography, (460, 360), (70, 90, 110))
    return CanvasView(image, (-ORIGIN_PX[0] / PX_PER_MM, -ORIGIN_PX[1] / PX_PER_MM), PX_PER_MM)


def _identified(catalogue, view: CanvasView, placed: Placed, pose: ItemPose) -> IdentifiedItem:
    rendering = render(art_library(catalogue), view, placed.side, placed.color, pose)
    return IdentifiedItem(
        placed.side, placed.color, pose, rendering, np.ones(3), 0.0, 1.0, np.zeros((0, 2))
    )


def _scene(catalogue, face: str = "up") -> tuple[Placed, Placed]:
    coaster = Placed(side(catalogue, "coaster", "triple", face), "red", COASTER_MM, COASTER_TURN)
    napkin = Placed(side(catalogue, "napkin"), "gray", NAPKIN_MM, 0.0)
    return coaster, napkin


def test_a_coaster_placed_a_little_off_is_settled_on_its_art(catalogue) -> None:
    coaster, napkin = _scene(catalogue)
    view = _view(catalogue, [coaster, napkin])
    off = ItemPose((COASTER_MM[0] + 1.4, COASTER_MM[1] - 1.0), COASTER_TURN + np.deg2rad(4.5))
    items = [
        _identified(catalogue, view, coaster, off),
        _identified(catalogue, view, napkin, ItemPose(NAPKIN_MM, 0.0)),
    ]
    settled = settle_on_art(art_library(catalogue), view, items, [0, 1])
    pose = settled[0].pose
    assert np.hypot(*np.subtract(pose.center_mm, COASTER_MM)) < 0.5
    assert abs(np.rad2deg(pose.angle_rad - COASTER_TURN)) < 1.6
    # the rendering follows the pose: the art's box moved with it
    assert (
        settled[0].rendering.box
        == render(art_library(catalogue), view, coaster.side, "red", pose).box
    )
    assert settled[0].color == "red" and settled[0].side is coaster.side
    assert settled[1] is items[1]  # a napkin keeps its pose


def test_a_face_down_coaster_keeps_its_pose(catalogue) -> None:
    coaster, napkin = _scene(catalogue, face="down")
    view = _view(catalogue, [coaster, napkin])
    off = ItemPose((COASTER_MM[0] + 1.4, COASTER_MM[1] - 1.0), COASTER_TURN)
    items = [_identified(catalogue, view, coaster, off)]
    assert settle_on_art(art_library(catalogue), view, items, [0])[0] is items[0]


def test_a_coaster_hidden_under_the_items_above_keeps_its_pose(catalogue) -> None:
    coaster, _ = _scene(catalogue)
    napkin = Placed(side(catalogue, "napkin"), "gray", COASTER_MM, 0.0)  # right over it
    view = _view(catalogue, [coaster, napkin])
    off = ItemPose((COASTER_MM[0] + 1.4, COASTER_MM[1] - 1.0), COASTER_TURN)
    items = [
        _identified(catalogue, view, coaster, off),
        _identified(catalogue, view, napkin, ItemPose(COASTER_MM, 0.0)),
    ]
    settled = settle_on_art(art_library(catalogue), view, items, [0, 1])
    assert settled[0] is items[0]
