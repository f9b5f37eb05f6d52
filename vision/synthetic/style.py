"""The look of one synthetic photo: table, light, lens and sensor, sampled per difficulty.

Ranges are deliberately broad (the scorer is judged on photos of other renderers); difficulty
widens them: steeper tilt, harsher light, more blur and noise, lower JPEG quality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synthetic.camera import CameraRanges
from vision.synthetic.scene_sampler import Difficulty
from vision.synthetic.textures import TableKind

CAMERA_RANGES: dict[Difficulty, CameraRanges] = {
    Difficulty.EASY: CameraRanges(
        max_tilt_deg=18.0, max_roll_deg=3.0, k1=(-0.03, 0.05), k2=(-0.005, 0.005), fill=(0.7, 0.92)
    ),
    Difficulty.MEDIUM: CameraRanges(max_tilt_deg=35.0, fill=(0.72, 0.95)),
    Difficulty.HARD: CameraRanges(max_tilt_deg=45.0, max_roll_deg=6.0, fill=(0.75, 0.97)),
}


@dataclass(frozen=True)
class PhotoLook:
    """Sampled appearance parameters of one photo (all unitless factors unless named)."""

    table_kind: TableKind
    light_azimuth_deg: float  # direction the light comes FROM, on the table (0 = +x)
    light_elevation_deg: float
    shadow_strength: float  # darkening under items at full coverage, 0..1
    exposure: float
    gradient: float  # strength of the linear light fall-off across the frame
    vignette: float
    color_cast: tuple[float, float, float]  # RGB gains
    cast_shadows: int  # hand / phone / person shadows
    glare: float  # lamp reflection strength 0..1 (scaled by the table's gloss)
    defocus_px_at_1600: float  # Gaussian blur sigma for a 1600 px wide photo
    depth_of_field: bool
    motion_blur_px_at_1600: float
    noise_sigma: float  # sensor noise, 0..255 scale
    sharpen: float  # phone unsharp-mask amount (0 = none)
    jpeg_quality: int
    distractors: int


def sample_look(rng: np.random.Generator, difficulty: Difficulty) -> PhotoLook:
    hard = {Difficulty.EASY: 0.0, Difficulty.MEDIUM: 0.5, Difficulty.HARD: 1.0}[difficulty]
    kinds = list(TableKind)
    cast_kind = rng.integers(4)
    if cast_kind == 0:  # neutral
        cast = rng.normal(1.0, 0.03, 3)
    elif cast_kind == 1:  # warm tungsten
        cast = np.array([1.08, 1.0, 0.8]) + rng.normal(0.0, 0.04, 3)
    elif cast_kind == 2:  # cool daylight / LED
        cast = np.array([0.92, 1.0, 1.1]) + rng.normal(0.0, 0.04, 3)
    else:  # fluorescent green-ish or magenta tint
        cast = np.array([1.0, 1.0 + rng.choice([-1, 1]) * 0.06, 1.0]) + rng.normal(0.0, 0.03, 3)
    return PhotoLook(
        table_kind=kinds[int(rng.integers(len(kinds)))],
        light_azimuth_deg=float(rng.uniform(0.0, 360.0)),
        light_elevation_deg=float(rng.uniform(35.0, 85.0)),
        shadow_strength=float(rng.uniform(0.25, 0.6)),
        exposure=float(rng.uniform(0.8 - 0.15 * hard, 1.12 + 0.05 * hard)),
        gradient=float(rng.uniform(0.0, 0.2 + 0.25 * hard)),
        vignette=float(rng.uniform(0.0, 0.35)),
        color_cast=(float(cast[0]), float(cast[1]), float(cast[2])),
        cast_shadows=int(rng.integers(0, 2 + int(2 * hard))),
        glare=float(rng.uniform(0.0, 0.5 + 0.5 * hard)) if rng.random() < 0.6 else 0.0,
        defocus_px_at_1600=float(rng.uniform(0.0, 0.5 + 0.6 * hard)),
        depth_of_field=bool(rng.random() < 0.15 + 0.3 * hard),
        motion_blur_px_at_1600=float(rng.uniform(1.0, 2.0 + 2.0 * hard))
        if rng.random() < 0.1 + 0.3 * hard
        else 0.0,
        noise_sigma=float(rng.uniform(0.5, 3.0 + 4.0 * hard)),
        sharpen=float(rng.uniform(0.2, 0.9)) if rng.random() < 0.5 else 0.0,
        jpeg_quality=int(rng.integers(92 - int(22 * hard), 97)),
        distractors=int(rng.integers(0, 3 + int(3 * hard))),
    )
