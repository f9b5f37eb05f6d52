"""Light and sensor effects on a rendered photo: uneven light, colour cast, cast shadows, glare,
defocus, depth of field, motion blur and noise.

Images are (H, W, 3) RGB; light maps are computed at 1/8 resolution and upsampled (they are
smooth), so the full-resolution work is a handful of vectorised passes.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic.style import PhotoLook

_LOW_RES = 8


def _low_res_grid(w: int, h: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    lw, lh = max(8, w // _LOW_RES), max(8, h // _LOW_RES)
    aspect = w / h
    xs = np.linspace(-aspect, aspect, lw, dtype=np.float32)[None, :]
    ys = np.linspace(-1.0, 1.0, lh, dtype=np.float32)[:, None]
    return xs, ys, lw, lh


def _cast_shadow_mask(rng: np.random.Generator, lw: int, lh: int) -> tuple[np.ndarray, str]:
    """A soft shadow of a hand, a phone held up, or a person, entering from a frame edge."""
    mask = np.zeros((lh, lw), np.uint8)
    edge = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    start = [(t * lw, 0), (lw, t * lh), (t * lw, lh), (0, t * lh)][edge]
    inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][edge], np.float64)
    inward = inward + rng.normal(0.0, 0.3, 2)
    reach = rng.uniform(0.2, 0.55) * min(lw, lh)
    end = np.asarray(start) + inward / np.linalg.norm(inward) * reach
    kind = str(rng.choice(["hand", "phone", "person"]))
    if kind == "hand":
        arm = max(2, int(rng.uniform(0.08, 0.14) * min(lw, lh)))
        cv2.line(mask, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255, arm)
        palm = int(arm * rng.uniform(1.1, 1.6))
        cv2.circle(mask, (int(end[0]), int(end[1])), palm, 255, -1)
    elif kind == "phone":
        arm = max(2, int(rng.uniform(0.06, 0.1) * min(lw, lh)))
        cv2.line(mask, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255, arm)
        size = (int(arm * 1.6), int(arm * 3.0))
        box = cv2.boxPoints(((float(end[0]), float(end[1])), size, float(rng.uniform(0, 180))))
        cv2.fillPoly(mask, [box.astype(np.int32)], 255)
    else:
        axes = (int(reach * rng.uniform(0.8, 1.4)), int(reach * rng.uniform(0.5, 0.9)))
        cv2.ellipse(
            mask, (int(start[0]), int(start[1])), axes, rng.uniform(0, 180), 0, 360, 255, -1
        )
    blur = rng.uniform(0.02, 0.06) * min(lw, lh) + 1.0
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), blur)
    return soft, f"{kind}_shadow"


def apply_light(
    rng: np.random.Generator, image: np.ndarray, look: PhotoLook, table_gloss: float
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Multiply ``image`` ((H, W, 3) float32 RGB 0..255) by a light map and add glare.

    Returns the lit image (float32) and the tags of what was added.
    """
    h, w = image.shape[:2]
    xs, ys, lw, lh = _low_res_grid(w, h)
    tags: list[str] = []
    theta = rng.uniform(0.0, 2 * np.pi)
    gain = 1.0 + look.gradient * (np.cos(theta) * xs + np.sin(theta) * ys) / 1.6
    gain = gain - look.vignette * (xs**2 + ys**2) / 3.0
    spot = rng.uniform(-0.8, 0.8, 2)
    spot_size = rng.uniform(0.5, 1.4)
    gain = gain + rng.uniform(0.0, 0.25) * np.exp(
        -((xs - spot[0]) ** 2 + (ys - spot[1]) ** 2) / (2 * spot_size**2)
    )
    for _ in range(look.cast_shadows):
        mask, tag = _cast_shadow_mask(rng, lw, lh)
        gain = gain * (1.0 - rng.uniform(0.25, 0.55) * mask)
        tags.append(tag)
    gain3 = np.clip(gain, 0.05, 3.0)[..., None] * (
        look.exposure * np.asarray(look.color_cast, np.float32)
    )
    lit = image * cv2.resize(gain3.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    strength = look.glare * (0.3 + 0.7 * table_gloss)
    if strength > 0.05:
        glare = np.zeros((lh, lw), np.float32)
        centre = (rng.uniform(0.1, 0.9) * lw, rng.uniform(0.1, 0.9) * lh)
        axes = (rng.uniform(0.03, 0.12) * lw, rng.uniform(0.02, 0.08) * lw)
        cv2.ellipse(
            glare,
            (int(centre[0]), int(centre[1])),
            (max(1, int(axes[0])), max(1, int(axes[1]))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        glare = cv2.GaussianBlur(glare, (0, 0), max(1.0, axes[1] * 0.8))
        glare *= 200.0 * strength / max(float(glare.max()), 1e-6)
        tint = np.array([1.0, 0.98, 0.92], np.float32)
        lit += cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)[..., None] * tint
        if strength > 0.15:
            tags.append("glare")
    return lit, tuple(tags)


def apply_sensor(
    rng: np.random.Generator, image: np.ndarray, look: PhotoLook
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Blur, depth of field, motion blur and noise on ``image`` ((H, W, 3) float32 0..255).

    Returns the uint8 image and the tags of what was applied.
    """
    h, w = image.shape[:2]
    scale = max(w, h) / 1600.0
    tags: list[str] = []
    out = image
    sigma = look.defocus_px_at_1600 * scale
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if look.depth_of_field:
        far_sigma = rng.uniform(1.2, 3.0) * scale
        blurred = cv2.GaussianBlur(out, (0, 0), far_sigma)
        theta = rng.uniform(0.0, 2 * np.pi)
        xs, ys, _, _ = _low_res_grid(w, h)
        ramp = np.clip(
            0.5 + (np.cos(theta) * xs + np.sin(theta) * ys) * rng.uniform(0.4, 0.9), 0, 1
        )
        ramp = cv2.resize(ramp.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        out = out + (blurred - out) * ramp[..., None]
        tags.append("depth_of_field")
    length = look.motion_blur_px_at_1600 * scale
    if length >= 1.5:
        k = int(np.ceil(length)) | 1
        kernel = np.zeros((k, k), np.float32)
        cv2.line(kernel, (0, k // 2), (k - 1, k // 2), 1.0, 1)
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(float(kernel.sum()), 1e-6)
        out = cv2.filter2D(out, -1, kernel)
        tags.append("motion_blur")
    if look.sharpen > 0.0:
        soft = cv2.GaussianBlur(out, (0, 0), max(0.8, 0.9 * scale))
        out = out + (out - soft) * look.sharpen
    if look.noise_sigma > 0.2:
        # Demosaiced, denoised phone noise is spatially correlated: luma grain at half
        # resolution, colour blotches at a quarter.
        half = ((w + 1) // 2, (h + 1) // 2)
        quarter = ((w + 3) // 4, (h + 3) // 4)
        luma = rng.standard_normal((half[1], half[0]), dtype=np.float32) * look.noise_sigma
        chroma = rng.standard_normal((quarter[1], quarter[0], 3), dtype=np.float32)
        chroma *= 0.6 * look.noise_sigma
        grain = cv2.resize(chroma, half, interpolation=cv2.INTER_LINEAR) + luma[..., None]
        out = out + cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(out, 0, 255).astype(np.uint8), tuple(tags)
