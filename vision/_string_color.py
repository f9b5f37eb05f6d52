"""Per-pixel colour likelihood that a pixel shows the boundary string.

The string is a pale straw yellow: in CIELAB its hue angle is about 95 deg (between the reddish
browns of wood, ~60-70 deg, and the greens) and its chroma is moderate relative to its lightness
(C*/L* about 0.4), far less saturated than a yellow player's coaster (C*/L* about 0.9). The model
is a separable Gaussian in (hue angle, log(C*/L*)) around the nominal string colour. The ratio
C*/L* stays roughly constant when the light gets brighter or dimmer, and the widths below leave
room for colour casts and for shading along the round cord.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

HUE_SIGMA_DEG = 12.0
"""Spread of the string's hue angle (deg): colour casts and JPEG chroma noise."""
LOG_CHROMA_RATIO_SIGMA = 0.35
"""Spread of log(C*/L*): shading, highlights and desaturating blur on the round cord."""
MIN_CHROMA = 8.0
"""C* (CIELAB units) under which a pixel is too grey for its hue to mean anything."""
MIN_LIGHTNESS = 10.0
"""L* (0-100) under which a pixel is too dark to judge."""


def string_lab_reference(string_rgb: tuple[int, int, int]) -> tuple[float, float]:
    """(hue angle in deg, C*/L*) of the nominal string colour ``string_rgb`` (sRGB 0-255)."""
    pixel = np.array([[list(reversed(string_rgb))]], dtype=np.uint8)
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab).astype(np.float64)[0, 0]
    lightness = lab[0] * 100.0 / 255.0
    a_star, b_star = lab[1] - 128.0, lab[2] - 128.0
    chroma = float(np.hypot(a_star, b_star))
    if chroma < MIN_CHROMA or lightness < MIN_LIGHTNESS:
        raise ValueError(f"string colour {string_rgb} is too grey or dark to detect by colour")
    return float(np.degrees(np.arctan2(b_star, a_star))), chroma / lightness


@functools.lru_cache(maxsize=4)
def _likelihood_table(string_rgb: tuple[int, int, int]) -> np.ndarray:
    """(64**3,) float32 likelihood of every colour quantised to 6 bits per channel, indexed by
    ``(b >> 2) << 12 | (g >> 2) << 6 | (r >> 2)`` (bin centres are evaluated)."""
    levels = (np.arange(64, dtype=np.uint16) * 4 + 2).astype(np.uint8)
    blue, green, red = np.meshgrid(levels, levels, levels, indexing="ij")
    colours = np.stack([blue.ravel(), green.ravel(), red.ravel()], axis=1)[:, None, :]
    return _likelihood_exact(colours, string_rgb)[:, 0].copy()


def string_likelihood(bgr: np.ndarray, string_rgb: tuple[int, int, int]) -> np.ndarray:
    """(H, W) float32 in [0, 1]: how much each pixel of ``bgr`` looks like the string's colour.

    ``bgr`` is (H, W, 3) uint8 (any number of pixels, e.g. (N, 1, 3) samples). Works in any
    pixel frame; the result is aligned with the input. Looked up in a table of 6-bit colours
    (a quantisation step far below the model's tolerances), built once per string colour.
    """
    table = _likelihood_table(tuple(int(channel) for channel in string_rgb))
    quantised = np.right_shift(bgr, 2)
    index = quantised[..., 0].astype(np.uint32) << 12
    index |= quantised[..., 1].astype(np.uint32) << 6
    index |= quantised[..., 2]
    return table[index]


def _likelihood_exact(bgr: np.ndarray, string_rgb: tuple[int, int, int]) -> np.ndarray:
    """The colour model evaluated directly: (H, W) float32 for (H, W, 3) uint8 BGR."""
    hue_ref_deg, ratio_ref = string_lab_reference(string_rgb)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    lightness = lab[..., 0].astype(np.float32) * np.float32(100.0 / 255.0)
    a_star = lab[..., 1].astype(np.float32) - 128.0
    b_star = lab[..., 2].astype(np.float32) - 128.0
    chroma, hue = cv2.cartToPolar(a_star, b_star, angleInDegrees=True)
    hue_diff = np.abs(((hue - hue_ref_deg) + 180.0) % 360.0 - 180.0)
    log_ratio = np.log(np.maximum(chroma, 1e-3) / np.maximum(lightness, MIN_LIGHTNESS))
    log_ratio -= np.float32(np.log(ratio_ref))
    exponent = (hue_diff * np.float32(1.0 / HUE_SIGMA_DEG)) ** 2
    exponent += (log_ratio * np.float32(1.0 / LOG_CHROMA_RATIO_SIGMA)) ** 2
    # Capping the exponent keeps exp() out of float32 denormals, which are very slow to process.
    likelihood = np.exp(np.float32(-0.5) * np.minimum(exponent, np.float32(40.0)))
    likelihood[(chroma < MIN_CHROMA) | (lightness < MIN_LIGHTNESS) | (likelihood < 1e-3)] = 0.0
    return likelihood.astype(np.float32, copy=False)
