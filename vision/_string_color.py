"""Per-pixel colour likelihood that a pixel shows the boundary string.

The string is a pale straw yellow: in CIELAB its hue angle is about 95 deg (between the reddish
browns of wood, ~60-70 deg, and the greens) and its chroma is moderate relative to its lightness
(C*/L* about 0.4), far less saturated than a yellow player's coaster (C*/L* about 0.9). The model
is a separable Gaussian in (hue angle, log(C*/L*)) around the nominal string colour. The ratio
C*/L* stays roughly constant when the light gets brighter or dimmer, and the widths below leave
room for colour casts and for shading along the round cord. When the nominal colour finds the
string only poorly (a strong colour cast, a table of nearly the string's colour), the model can
be re-centred on the colour of what was found (:func:`calibrate`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

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
CALIBRATION_MIN_LIKELIHOOD = 0.2
"""Samples the nominal model finds less likely than this do not move the calibrated colour."""
CALIBRATION_MIN_SAMPLES = 50
"""Fewest plausible samples a calibration needs."""
CALIBRATION_MAX_SHIFT_SIGMAS = 1.5
"""Farthest (in model spreads) the calibrated colour may move from the nominal one."""


@dataclass(frozen=True)
class StringColour:
    """The colour model's centre: CIELAB hue angle (deg) and chroma over lightness C*/L*."""

    hue_deg: float
    chroma_ratio: float

    @classmethod
    def from_rgb(cls, string_rgb: tuple[int, int, int]) -> StringColour:
        """The model centred on a nominal sRGB (0-255) string colour."""
        pixel = np.array([[list(reversed(string_rgb))]], dtype=np.uint8)
        lightness, chroma, hue = _lab_polar(pixel)
        if chroma[0, 0] < MIN_CHROMA or lightness[0, 0] < MIN_LIGHTNESS:
            raise ValueError(f"string colour {string_rgb} is too grey or dark to detect by colour")
        return cls(float(hue[0, 0]), float(chroma[0, 0] / lightness[0, 0]))


def calibrate(nominal: StringColour, samples_bgr: np.ndarray) -> StringColour | None:
    """The string's colour in this photo, from (N, 3) uint8 BGR pixels believed to be string.

    Only samples the nominal model finds plausible (likelihood at least
    :data:`CALIBRATION_MIN_LIKELIHOOD`) count; the centre moves to their median hue and
    median log(C*/L*), but never more than :data:`CALIBRATION_MAX_SHIFT_SIGMAS` spreads from
    the nominal colour. Values are rounded
    (to 1 deg and 0.02 in log) so that similar photos share a lookup table. None when fewer than
    :data:`CALIBRATION_MIN_SAMPLES` samples qualify.
    """
    pixels = samples_bgr.reshape(-1, 1, 3).astype(np.uint8)
    plausible = string_likelihood(pixels, nominal)[:, 0] >= CALIBRATION_MIN_LIKELIHOOD
    if np.count_nonzero(plausible) < CALIBRATION_MIN_SAMPLES:
        return None
    lightness, chroma, hue = _lab_polar(pixels[plausible])
    hue_offset = ((hue[:, 0] - nominal.hue_deg) + 180.0) % 360.0 - 180.0
    log_ratio = np.log(chroma[:, 0] / np.maximum(lightness[:, 0], MIN_LIGHTNESS))
    log_offset = log_ratio - np.log(nominal.chroma_ratio)
    limit = CALIBRATION_MAX_SHIFT_SIGMAS
    hue_shift = np.clip(np.median(hue_offset), -limit * HUE_SIGMA_DEG, limit * HUE_SIGMA_DEG)
    log_shift = np.clip(
        np.median(log_offset), -limit * LOG_CHROMA_RATIO_SIGMA, limit * LOG_CHROMA_RATIO_SIGMA
    )
    return StringColour(
        hue_deg=round(nominal.hue_deg + float(hue_shift)),
        chroma_ratio=float(np.exp(round((np.log(nominal.chroma_ratio) + log_shift) / 0.02) * 0.02)),
    )


def _lab_polar(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L* in 0-100, C*, hue angle in deg) float32 arrays for (H, W, 3) uint8 BGR."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    lightness = lab[..., 0].astype(np.float32) * np.float32(100.0 / 255.0)
    a_star = lab[..., 1].astype(np.float32) - 128.0
    b_star = lab[..., 2].astype(np.float32) - 128.0
    chroma, hue = cv2.cartToPolar(a_star, b_star, angleInDegrees=True)
    return lightness, chroma, hue


@functools.lru_cache(maxsize=8)
def _likelihood_table(colour: StringColour) -> np.ndarray:
    """(64**3,) float32 likelihood of every colour quantised to 6 bits per channel, indexed by
    ``(b >> 2) << 12 | (g >> 2) << 6 | (r >> 2)`` (bin centres are evaluated)."""
    levels = (np.arange(64, dtype=np.uint16) * 4 + 2).astype(np.uint8)
    blue, green, red = np.meshgrid(levels, levels, levels, indexing="ij")
    colours = np.stack([blue.ravel(), green.ravel(), red.ravel()], axis=1)[:, None, :]
    return _likelihood_exact(colours, colour)[:, 0].copy()


def string_likelihood(bgr: np.ndarray, colour: StringColour) -> np.ndarray:
    """(H, W) float32 in [0, 1]: how much each pixel of ``bgr`` looks like the string's colour.

    ``bgr`` is (H, W, 3) uint8 (any number of pixels, e.g. (N, 1, 3) samples). Works in any
    pixel frame; the result is aligned with the input. Looked up in a table of 6-bit colours
    (a quantisation step far below the model's tolerances), built once per colour model.
    """
    table = _likelihood_table(colour)
    quantised = np.right_shift(bgr, 2)
    index = quantised[..., 0].astype(np.uint32) << 12
    index |= quantised[..., 1].astype(np.uint32) << 6
    index |= quantised[..., 2]
    return table[index]


def _likelihood_exact(bgr: np.ndarray, colour: StringColour) -> np.ndarray:
    """The colour model evaluated directly: (H, W) float32 for (H, W, 3) uint8 BGR."""
    lightness, chroma, hue = _lab_polar(bgr)
    hue_diff = np.abs(((hue - colour.hue_deg) + 180.0) % 360.0 - 180.0)
    log_ratio = np.log(np.maximum(chroma, 1e-3) / np.maximum(lightness, MIN_LIGHTNESS))
    log_ratio -= np.float32(np.log(colour.chroma_ratio))
    exponent = (hue_diff * np.float32(1.0 / HUE_SIGMA_DEG)) ** 2
    exponent += (log_ratio * np.float32(1.0 / LOG_CHROMA_RATIO_SIGMA)) ** 2
    # Capping the exponent keeps exp() out of float32 denormals, which are very slow to process.
    likelihood = np.exp(np.float32(-0.5) * np.minimum(exponent, np.float32(40.0)))
    likelihood[(chroma < MIN_CHROMA) | (lightness < MIN_LIGHTNESS) | (likelihood < 1e-3)] = 0.0
    return likelihood.astype(np.float32, copy=False)
