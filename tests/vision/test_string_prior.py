"""Tests for vision._string_prior (the learned string probability as a gate on the colour
likelihood) and its use by find_boundary."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision._string_prior import PRIOR_FLOOR, gate_likelihood
from vision.boundary import find_boundary


def test_gate_keeps_string_and_damps_the_rest() -> None:
    likelihood = np.full((40, 60), 0.8, np.float32)
    prior = np.zeros((20, 30), np.float32)  # half resolution, resampled by the gate
    prior[:, 15:] = 1.0
    gated = gate_likelihood(likelihood, prior)
    assert gated.shape == likelihood.shape
    np.testing.assert_allclose(gated[:, 40:], 0.8, atol=1e-6)
    np.testing.assert_allclose(gated[:, :20], 0.8 * PRIOR_FLOOR, atol=1e-6)
    assert np.all(gated <= likelihood + 1e-6)


def test_gate_rejects_a_prior_that_is_not_a_map() -> None:
    with pytest.raises(ValueError, match="2-D"):
        gate_likelihood(np.zeros((4, 4), np.float32), np.zeros((4, 4, 2), np.float32))


def _scene() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A grey-brown table with a straw-coloured loop and a straw-coloured straight decoy
    stripe; (image BGR, loop polygon px, prior of the loop at 1/4 resolution)."""
    height, width = 600, 800
    rng = np.random.default_rng(3)
    image = np.empty((height, width, 3), np.float32)
    image[:] = (70, 95, 120)
    image += rng.normal(0, 4, image.shape).astype(np.float32)
    angle = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    loop = np.stack([400 + 250 * np.cos(angle), 300 + 180 * np.sin(angle)], axis=1)
    straw = (146, 211, 228)
    cv2.polylines(image, [np.round(loop).astype(np.int32)], True, straw, 5, cv2.LINE_AA)
    prior = np.zeros((height // 4, width // 4), np.float32)
    cv2.polylines(prior, [np.round(loop / 4).astype(np.int32)], True, 1.0, 1, cv2.LINE_AA)
    return np.clip(image, 0, 255).astype(np.uint8), loop, prior


def test_find_boundary_with_a_prior_still_finds_the_loop() -> None:
    image, loop, prior = _scene()
    found = find_boundary(image, string_prior=prior)
    assert found is not None
    centre = found.polygon_px.mean(axis=0)
    assert np.linalg.norm(centre - loop.mean(axis=0)) < 10
