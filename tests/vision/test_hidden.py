"""Second detection pass: coasters the first pass missed, found with the plane known."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import Side, art_library
from vision.art_fit import ink_arts
from vision.detect import CanvasView
from vision.hidden import (
    ITEM_OTHER_SHAPE_SHARE,
    HiddenCoaster,
    _verify,
    covered_mask,
    distinct,
    find_hidden_coasters,
    one_reading_per_feature,
)
from vision.identify import identify
from vision.plane import ItemPose


@dataclass(frozen=True)
class _Placement:
    side: Side
    pose: ItemPose


@pytest.fixture(scope="module")
def found_table(small_table_searched):
    library, view = small_table_searched.library, small_table_searched.view
    items = [
        identify(library, view, d.side, d.pose, d.points_local_mm)
        for d in small_table_searched.sides
    ]
    return library, view, items


def test_a_missed_coaster_outside_the_region_given_is_not_looked_for(found_table) -> None:
    """The same coaster is found when looked for everywhere (the test above)."""
    library, view, items = found_table
    missed = next(it for it in items if it.side.type_name == "beer")
    others = [it for it in items if it is not missed]
    where = np.full(view.ink.shape, 255, np.uint8)
    x, y = np.round(view.table_to_canvas(np.array([missed.pose.center_mm]))[0]).astype(int)
    reach = round(60 * view.px_per_mm)  # beyond the coaster's outline
    where[max(0, y - reach) : y + reach, max(0, x - reach) : x + reach] = 0
    assert find_hidden_coasters(view, library, others, where) == []


def test_nothing_more_is_found_when_every_item_is_known(found_table) -> None:
    library, view, items = found_table
    assert find_hidden_coasters(view, library, items) == []


@pytest.mark.parametrize("type_name", ["beer", "three"])
def test_a_missed_coaster_is_found_at_its_pose(found_table, type_name) -> None:
    library, view, items = found_table
    missed = next(it for it in items if it.side.type_name == type_name)
    others = [it for it in items if it is not missed]
    found = find_hidden_coasters(view, library, others)
    assert len(found) == 1
    assert found[0].side == missed.side
    assert np.hypot(*np.subtract(found[0].pose.center_mm, missed.pose.center_mm)) < 1.5
    turn = np.angle(np.exp(1j * (found[0].pose.angle_rad - missed.pose.angle_rad)))
    assert abs(turn) < np.deg2rad(2)
    assert found[0].correlation > 0.8


def test_covered_mask_holds_the_items_outlines(found_table) -> None:
    _, view, items = found_table
    covered = covered_mask(view, items)
    for it in items:
        x, y = np.round(view.table_to_canvas(np.array([it.pose.center_mm]))[0]).astype(int)
        assert covered[y, x]
    assert not covered.all()


def test_a_partly_covered_coaster_placed_a_little_off_is_judged_at_its_refined_pose(
    catalogue,
) -> None:
    """Three matches place a coaster a few degrees and a millimetre off; its print then
    disagrees with the photo at its rim, so the candidate is judged where its art fits."""
    ppm = 1.6
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (100.0, 90.0), np.deg2rad(30.0))
    napkin = Placed(side(catalogue, "napkin"), "blue", (150.0, 90.0), 0.0)
    image = render_scene(catalogue, [beer, napkin], table_homography(ppm), (420, 360))
    view = CanvasView(image, (-40.0 / ppm, -40.0 / ppm), ppm)
    covered = covered_mask(view, [_Placement(napkin.side, ItemPose(napkin.center_mm, 0.0))])
    off = ItemPose((101.0, 89.2), beer.angle_rad + np.deg2rad(5.0))
    arts = ink_arts(art_library(catalogue), beer.side, view.px_per_mm)
    found = _verify(view, arts, off, np.zeros((3, 2)), covered)
    assert found is not None
    assert 0.2 < found.visible_share < 0.9
    assert np.hypot(*np.subtract(found.pose.center_mm, beer.center_mm)) < 0.8
    assert abs(np.rad2deg(found.pose.angle_rad - beer.angle_rad)) < 1.6


def test_a_print_read_twice_keeps_its_better_reading_only(catalogue) -> None:
    beer, triple = side(catalogue, "coaster", "beer"), side(catalogue, "coaster", "triple")
    none = np.zeros((0, 2))

    def candidate(which: Side, x: float, correlation: float) -> HiddenCoaster:
        return HiddenCoaster(which, ItemPose((x, 0.0), 0.0), none, correlation, 0.5)

    better_beer = candidate(beer, 0.0, 0.81)
    # the beer coaster's pretzel icon matched on the triple's template, 35 mm beside it
    same_icon = candidate(triple, 35.0, 0.64)
    elsewhere = candidate(triple, 300.0, 0.63)

    kept = one_reading_per_feature(
        [
            (same_icon, np.array([2, 3, 9])),
            (better_beer, np.array([1, 2, 3, 4])),
            (elsewhere, np.array([7, 8, 9])),
        ]
    )

    assert kept == [better_beer, elsewhere]


def test_a_square_coaster_whose_corners_show_round_a_disc_on_it_is_found(catalogue) -> None:
    """Held-out-reference 0047: a triple under a double 9.4 mm from its centre shows its four
    corners; its print there is its own, not the double's seen again."""
    ppm = 1.6
    triple = Placed(side(catalogue, "coaster", "triple"), "red", (100.0, 90.0), np.deg2rad(20.0))
    double = Placed(side(catalogue, "coaster", "double"), "green", (106.0, 97.0), 0.4)
    image = render_scene(catalogue, [triple, double], table_homography(ppm), (480, 460))
    view = CanvasView(image, (-40.0 / ppm, -40.0 / ppm), ppm)
    library = art_library(catalogue)
    on_top = identify(
        library, view, double.side, ItemPose(double.center_mm, double.angle_rad), np.zeros((0, 2))
    )
    found = find_hidden_coasters(view, library, [on_top])
    assert [c.side.shape for c in found] == [triple.side.shape]
    assert np.hypot(*np.subtract(found[0].pose.center_mm, triple.center_mm)) < 1.5


def test_an_item_of_the_other_shape_hides_a_candidate_near_its_centre_unless_told_not_to(
    catalogue,
) -> None:
    triple, double = side(catalogue, "coaster", "triple"), side(catalogue, "coaster", "double")
    corners = HiddenCoaster(triple, ItemPose((9.0, 0.0), 0.0), np.zeros((0, 2)), 0.8, 0.2)
    disc = _Placement(double, ItemPose((0.0, 0.0), 0.0))
    assert distinct([corners], [disc]) == []
    assert distinct([corners], [disc], item_other_share=ITEM_OTHER_SHAPE_SHARE) == [corners]
    # an item of the same shape still hides it
    square = _Placement(triple, ItemPose((0.0, 0.0), 0.0))
    assert distinct([corners], [square], item_other_share=ITEM_OTHER_SHAPE_SHARE) == []
