"""Ridges of the string's likelihood: bars respond, steps do not."""

from __future__ import annotations

import numpy as np

from vision._string_ridges import HIGH_FRACTION, LOW_FRACTION, centre_line_mask, ridge_maps

#: A 200 x 200 likelihood map with one feature along the column x = 100 (analysis px).
SIZE, COLUMN, BAR_WIDTH_PX = 200, 100, 5


def _bar(contrast: float = 1.0, ground: float = 0.0) -> np.ndarray:
    """A vertical bar of the cord's likelihood ``ground + contrast`` on ``ground``."""
    likelihood = np.full((SIZE, SIZE), ground, np.float32)
    half = BAR_WIDTH_PX // 2
    likelihood[:, COLUMN - half : COLUMN + half + 1] += contrast
    return likelihood


def _middle_rows(values: np.ndarray) -> np.ndarray:
    return values[40:160]


def test_a_bar_responds_as_the_ideal_bar() -> None:
    ridges = ridge_maps(_bar())
    assert np.median(_middle_rows(ridges.strength)[:, COLUMN]) > 0.8
    centre_line = _middle_rows(centre_line_mask(ridges))
    assert centre_line[:, COLUMN - 1 : COLUMN + 2].any(axis=1).all()


def test_a_step_is_no_bar() -> None:
    """The bright side of a step (a straw table's edge against a dark floor, likelihood 1
    against 0) curves like half a bar; it leaves no centre line."""
    likelihood = np.zeros((SIZE, SIZE), np.float32)
    likelihood[:, COLUMN:] = 1.0
    strength = ridge_maps(likelihood).strength
    assert strength.max() < LOW_FRACTION
    assert not centre_line_mask(ridge_maps(likelihood)).any()


def test_a_bar_on_a_step_still_responds() -> None:
    """A cord lying just inside a table's edge: a bar on the bright side of a step."""
    likelihood = np.zeros((SIZE, SIZE), np.float32)
    likelihood[:, COLUMN - 20 :] = 0.5
    likelihood[:, COLUMN - 2 : COLUMN + 3] = 1.0
    strength = ridge_maps(likelihood).strength
    assert np.median(_middle_rows(strength)[:, COLUMN]) > HIGH_FRACTION


def test_a_bar_along_an_items_edge_is_judged_by_its_free_side() -> None:
    """A cord on a string-coloured table (likelihood 0.5) hugging an item, zeroed under it:
    towards the item the likelihood drops to 0, towards the table only to 0.5; told that the
    zeros are unknown, the bar keeps the response it has in the open."""
    likelihood = _bar(contrast=0.5, ground=0.5)
    open_strength = np.median(_middle_rows(ridge_maps(likelihood).strength)[:, COLUMN])
    unknown = np.zeros((SIZE, SIZE), bool)
    unknown[:, COLUMN + BAR_WIDTH_PX // 2 + 1 :] = True
    likelihood[unknown] = 0.0
    judged_blind = np.median(_middle_rows(ridge_maps(likelihood).strength)[:, COLUMN])
    judged = np.median(_middle_rows(ridge_maps(likelihood, unknown).strength)[:, COLUMN])
    assert judged_blind < 0.6 * open_strength
    assert judged > 0.9 * open_strength
