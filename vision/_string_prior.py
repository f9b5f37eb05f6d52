"""A learned string probability (:mod:`vision.segmentation`) as a prior on the colour
likelihood of the boundary string.

The segmenter's map is coarse (512 px on the long side) and misses faint stretches, so it only
gates the colour likelihood: where the model sees string (probability at least
:data:`PRIOR_FULL` after a 3x3 dilation for misalignment) the colour likelihood is kept, and
elsewhere it is damped to :data:`PRIOR_FLOOR` of its value, never removed.
"""

from __future__ import annotations

import cv2
import numpy as np

PRIOR_FULL = 0.5
"""String probability at and above which the colour likelihood is kept whole."""
PRIOR_FLOOR = 0.3
"""Share of the colour likelihood kept where the model sees no string at all."""


def gate_likelihood(likelihood: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """(H, W) float32: ``likelihood`` (H, W) damped where the string ``prior`` (any size,
    0..1, resampled bilinearly to (H, W)) is low."""
    height, width = likelihood.shape
    if prior.ndim != 2:
        raise ValueError(f"the string prior must be a 2-D map, got shape {prior.shape}")
    resized = cv2.resize(prior.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
    grown = cv2.dilate(resized, np.ones((3, 3), np.uint8))
    gate = np.clip(grown * np.float32(1.0 / PRIOR_FULL), 0.0, 1.0)
    return likelihood * (np.float32(PRIOR_FLOOR) + np.float32(1.0 - PRIOR_FLOOR) * gate)
