from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision._string_color import StringColour
from vision._string_refine import refine_centre_line
from vision.boundary import DEFAULT_STRING_RGB

#: A cord 6 mm wide at 2 px/mm, in a loop of radius 100 px.
WIDTH_PX, RADIUS_PX, CENTRE = 12.0, 100.0, np.array([160.0, 160.0])


def _cord_with_an_item_hugging_it(gap_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Image (BGR uint8) and item mask (bool) of a cord loop with an item beside it.

    The item covers the sector of angles 60-120 degrees (image y down: the loop's bottom)
    beyond ``gap_px`` outside the cord's outer edge (negative: it lies over the cord's edge).
    """
    size = 320
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
    r = np.hypot(xs - CENTRE[0], ys - CENTRE[1])
    angle = np.degrees(np.arctan2(ys - CENTRE[1], xs - CENTRE[0]))
    image = np.full((size, size, 3), (70, 105, 140), np.float64)  # wood-brown table (BGR)
    cord = np.abs(r - RADIUS_PX) <= WIDTH_PX / 2
    image[cord] = list(reversed(DEFAULT_STRING_RGB))
    item = (r > RADIUS_PX + WIDTH_PX / 2 + gap_px) & (angle > 60) & (angle < 120)
    image[item] = (160, 60, 30)  # a blue coaster
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    return np.clip(image, 0, 255).astype(np.uint8), item


@pytest.mark.parametrize("gap_px", [1.0, -3.0])
def test_the_centre_next_to_an_item_keeps_the_cords_width_where_the_trace_misjudges_it(gap_px):
    # the item 0.5 mm beside the cord, or over a quarter of its width
    image, item = _cord_with_an_item_hugging_it(gap_px)
    t = np.linspace(0.0, 2 * np.pi, 400, endpoint=False)
    beside_item = (np.degrees(t) > 60) & (np.degrees(t) < 120)
    # the trace: 1.5 px off the centre line, and 25% too narrow beside the item (its ridge
    # width estimate is cut by the item's edge)
    start = CENTRE + (RADIUS_PX + 1.5) * np.stack([np.cos(t), np.sin(t)], axis=1)
    widths = np.where(beside_item, 0.75 * WIDTH_PX, WIDTH_PX)
    refined = refine_centre_line(
        image,
        start,
        np.ones(len(t), bool),
        widths,
        item_mask=item,
        colour=StringColour.from_rgb(DEFAULT_STRING_RGB),
    )
    radius = np.hypot(*(refined - CENTRE).T)
    angle = np.degrees(np.arctan2(*(refined - CENTRE)[:, ::-1].T)) % 360
    middle = (angle > 70) & (angle < 110)  # well beside the item
    assert abs(np.median(radius[middle]) - RADIUS_PX) < 0.15
    assert np.abs(radius[middle] - RADIUS_PX).max() < 0.35
    assert np.median(np.abs(radius[~middle] - RADIUS_PX)) < 0.2
