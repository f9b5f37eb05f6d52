"""A coaster found under items is kept only where the segmenter sees its colour's face in the
part of it clear of the items above."""

from __future__ import annotations

import pytest
from vision_scenes import Placed, coasters_seen, side, table_homography

from vision.plane import TablePlane
from vision.seen_faces import MIN_UNDER_FACE_SEEN, face_seen_clear_of, seen_as_its_face

PX_PER_MM = 2.0
WORKING_SIZE_PX = (800, 480)
#: model px per working px: the segmenter's map is coarser than the working image
MODEL_SCALE = 0.25
HOMOGRAPHY = table_homography(PX_PER_MM)
PLANE = TablePlane(HOMOGRAPHY, 0.0, 0.0, WORKING_SIZE_PX)


def _seen(seen: list[tuple[Placed, float]]):
    return coasters_seen(HOMOGRAPHY, seen, WORKING_SIZE_PX, MODEL_SCALE)


@pytest.fixture
def stack(catalogue) -> tuple[Placed, Placed]:
    """A blue three coaster (found under) with a green beer coaster over its left half."""
    under = Placed(side(catalogue, "coaster", "three"), "blue", (200.0, 110.0), 0.3)
    above = Placed(side(catalogue, "coaster", "beer"), "green", (160.0, 110.0), 0.0)
    return under, above


def test_the_face_seen_is_measured_where_the_coaster_is_clear_of_the_items_above(stack):
    under, above = stack
    seen = _seen([(under, 0.8), (above, 0.9)])
    blue = face_seen_clear_of(seen, PLANE, under, "blue", [above])
    green = face_seen_clear_of(seen, PLANE, under, "green", [above])
    assert blue == pytest.approx(0.8, abs=0.08)
    assert green is not None and green < 0.05
    assert seen_as_its_face(seen, PLANE, under, "blue", [above])
    assert not seen_as_its_face(seen, PLANE, under, "green", [above])


def test_a_coaster_whose_clear_part_the_segmenter_takes_for_table_is_dropped(stack):
    under, above = stack
    seen = _seen([(above, 0.9)])
    assert face_seen_clear_of(seen, PLANE, under, "blue", [above]) < MIN_UNDER_FACE_SEEN
    assert not seen_as_its_face(seen, PLANE, under, "blue", [above])


def test_what_cannot_be_judged_is_kept(stack):
    under, above = stack
    seen = _seen([(above, 0.9)])
    # no segmenter at all
    assert seen_as_its_face(None, PLANE, under, "blue", [above])
    # all of it covered
    assert face_seen_clear_of(seen, PLANE, under, "blue", [under]) is None
    assert seen_as_its_face(seen, PLANE, under, "blue", [under])
    # a colour the segmenter has no class for
    assert face_seen_clear_of(seen, PLANE, under, "purple", [above]) is None
    # the part clear of the items above lies beyond the photo's right edge (380 mm)
    beyond = Placed(under.side, "blue", (395.0, 110.0), 0.0)
    left = Placed(under.side, "green", (370.0, 110.0), 0.0)
    assert face_seen_clear_of(seen, PLANE, beyond, "blue", [left]) is None
