"""The second look at a coaster's colour: decided on all its uncovered pixels once the stacking
order is known, when its matched features (on the printed pretzels, alike in every colour)
could not tell it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.colour_recheck import (
    RECHECK_MARGIN,
    colour_doubts,
    recheck_colours,
    uncovered_mask,
)
from vision.detect import CanvasView
from vision.identify import identify
from vision.plane import ItemPose

PPM = 1.6


def _view(catalogue, items: list[Placed]) -> CanvasView:
    homography = table_homography(PPM, origin_px=(0.0, 0.0))
    image = render_scene(catalogue, items, homography, (420, 380), (150, 150, 150))
    return CanvasView(image, (0.0, 0.0), PPM)


def _icon_points_mm(catalogue, type_name: str, icon_id: str) -> np.ndarray:
    """Side-local mm points spread over one icon's outline: where its features would lie."""
    outline = catalogue.coaster_type(type_name).icon(icon_id).outline_mm
    ring = np.asarray(outline.exterior.coords)[:-1]
    centre = np.asarray(outline.centroid.coords)
    return np.vstack([centre, centre + 0.5 * (ring - centre)])


def _stack(catalogue, colour: str) -> list[Placed]:
    """A triple coaster of ``colour`` with a blue napkin lying over half of it."""
    coaster = Placed(side(catalogue, "coaster", "triple"), colour, (120.0, 110.0), 0.3)
    napkin = Placed(side(catalogue, "napkin"), "blue", (200.0, 130.0), 0.1)
    return [coaster, napkin]


@pytest.fixture
def stack(catalogue) -> list[Placed]:
    return _stack(catalogue, "gray")


def _identified(catalogue, view, placed: Placed, points_mm: np.ndarray):
    library = art_library(catalogue)
    pose = ItemPose(placed.center_mm, placed.angle_rad)
    return identify(library, view, placed.side, pose, points_mm)


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue", "gray"])
def test_a_coaster_seen_only_on_its_pretzels_gets_its_colour_from_its_uncovered_ground(
    catalogue, colour
) -> None:
    stack = _stack(catalogue, colour)
    view = _view(catalogue, stack)
    first = _identified(catalogue, view, stack[0], _icon_points_mm(catalogue, "triple", "p1"))
    napkin = _identified(catalogue, view, stack[1], np.zeros((0, 2)))
    assert first.color_margin < RECHECK_MARGIN  # the pretzel alone cannot tell
    # the near tie, as it may fall: to another colour
    wrong = replace(first, color="red" if colour != "red" else "gray", color_margin=0.0)

    rechecked = recheck_colours(art_library(catalogue), view, [wrong, napkin], [0, 1])

    assert rechecked[0].color == colour
    assert rechecked[0].color_margin >= RECHECK_MARGIN
    assert rechecked[1] is napkin


@pytest.mark.parametrize("colour", ["red", "yellow", "blue"])
def test_a_coaster_under_a_thing_no_item_explains_keeps_its_first_colour(catalogue, colour) -> None:
    """A wooden tray (a noisy brown texture) covers all of the coaster but one pretzel: its
    uncovered pixels read as the palest colour, but far worse than the pretzel read."""
    library = art_library(catalogue)
    coaster = _stack(catalogue, colour)[0]
    image = _view(catalogue, [coaster]).image_bgr.copy()
    points_mm = _icon_points_mm(catalogue, "triple", "p1")
    pose = ItemPose(coaster.center_mm, coaster.angle_rad)
    cx, cy = pose.local_to_table(points_mm[:1])[0] * PPM
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    tray = (xs - cx) ** 2 + (ys - cy) ** 2 > (14 * PPM) ** 2
    wood = np.array([60, 90, 130]) + np.random.default_rng(0).normal(0, 25, image.shape)
    image[tray] = np.clip(wood, 0, 255).astype(np.uint8)[tray]
    view = CanvasView(image, (0.0, 0.0), PPM)
    first = identify(library, view, coaster.side, pose, points_mm)
    assert first.color == colour and first.color_margin < RECHECK_MARGIN
    seen = uncovered_mask(library, view, first, [])
    again = identify(library, view, coaster.side, pose, points_mm, keep_side=True, seen=seen)
    assert again.color != colour and again.color_margin >= RECHECK_MARGIN  # clear, yet wrong

    assert recheck_colours(library, view, [first], [0])[0] is first


def test_the_uncovered_pixels_leave_out_the_item_above(catalogue, stack) -> None:
    view = _view(catalogue, stack)
    coaster = _identified(catalogue, view, stack[0], _icon_points_mm(catalogue, "triple", "p1"))
    napkin = _identified(catalogue, view, stack[1], np.zeros((0, 2)))
    library = art_library(catalogue)

    alone = uncovered_mask(library, view, coaster, [])
    under = uncovered_mask(library, view, coaster, [napkin])

    assert under.sum() < 0.8 * alone.sum()
    assert not (under & ~alone).any()
    # no uncovered pixel lies inside the napkin's outline
    x0, y0 = coaster.rendering.box[:2]
    ys, xs = np.nonzero(under)
    table = view.canvas_to_table(np.stack([xs + x0, ys + y0], axis=1).astype(np.float64))
    local = napkin.pose.table_to_local(table)
    half = napkin.side.shape.size_mm / 2
    assert not ((np.abs(local) < half).all(axis=1)).any()


def test_a_clear_colour_is_not_looked_at_again(catalogue, stack) -> None:
    view = _view(catalogue, stack)
    library = art_library(catalogue)
    features = np.array([[x, y] for x in (-30.0, 0.0, 30.0) for y in (-30.0, 0.0, 30.0)])
    coaster = _identified(catalogue, view, stack[0], features)
    assert coaster.color == "gray" and coaster.color_margin >= RECHECK_MARGIN

    assert recheck_colours(library, view, [coaster], [0])[0] is coaster


def test_a_colour_still_in_doubt_is_named_in_a_warning(catalogue, stack) -> None:
    library = art_library(catalogue)
    view = _view(catalogue, stack)
    clear = _identified(catalogue, view, stack[0], _icon_points_mm(catalogue, "triple", "p1"))
    names = catalogue.color_names
    errors = tuple(10.0 if name == "gray" else 10.2 if name == "blue" else 30.0 for name in names)
    doubtful = replace(clear, color="gray", color_margin=0.02, color_errors=errors)
    clear = replace(doubtful, color_margin=0.5)
    napkin = _identified(catalogue, view, stack[1], np.zeros((0, 2)))

    assert colour_doubts(library, [clear, napkin], [True, True]) == []
    assert colour_doubts(library, [doubtful], [False]) == []  # its colour moves no money
    assert colour_doubts(library, [napkin, doubtful], [True, True]) == [
        "item 1 (the gray triple coaster): its colour is hard to tell from blue; "
        "check it in the photo"
    ]


@pytest.mark.parametrize("colour", ["yellow", "green", "blue"])
def test_a_napkin_judged_on_its_clear_paper_reads_its_own_border_not_its_neighbours(
    catalogue, colour
) -> None:
    """Edge points along the side a napkin shares with a gray neighbour see the neighbour's
    border; all of its outline clear of the neighbour shows its own."""
    library = art_library(catalogue)
    napkin_side = side(catalogue, "napkin")
    size = napkin_side.shape.size_mm
    napkin = Placed(napkin_side, colour, (110.0, 120.0), 0.0)
    neighbour = Placed(napkin_side, "gray", (110.0 + size + 1.0, 120.0), 0.0)
    view = CanvasView(
        render_scene(
            catalogue,
            [napkin, neighbour],
            table_homography(PPM, origin_px=(0.0, 0.0)),
            (int(2.6 * size * PPM), int(2 * size * PPM)),
            (40, 70, 110),
        ),
        (0.0, 0.0),
        PPM,
    )
    pose = ItemPose(napkin.center_mm, napkin.angle_rad)
    # edge points on its right side, where it meets the neighbour (side-local mm)
    edge = np.array([[size / 2, y] for y in np.linspace(-0.4 * size, 0.4 * size, 20)])
    other = ItemPose(neighbour.center_mm, neighbour.angle_rad)
    placed_neighbour = identify(library, view, napkin_side, other, np.zeros((0, 2)))

    near_edge = identify(library, view, napkin_side, pose, edge)
    seen = uncovered_mask(library, view, near_edge, [placed_neighbour])
    on_paper = identify(library, view, napkin_side, pose, edge, seen=seen)

    assert near_edge.color != colour  # the neighbour's border read as its own
    assert on_paper.color == colour and on_paper.side.face is napkin_side.face
