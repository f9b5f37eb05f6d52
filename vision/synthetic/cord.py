"""Draw the braided boundary cord onto an undistorted render canvas.

The cord's centre line is given in table mm; ``plane_to_canvas`` maps the table plane at the
cord's mid height (half its thickness) to canvas pixels. Drawing is vectorised with cv2 fill and
line primitives on the cord's bounding box only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synthetic.loop import polyline_length_mm, resample_closed

_SUBPIXEL_BITS = 4
_SUBPIXEL = float(1 << _SUBPIXEL_BITS)


@dataclass(frozen=True)
class CordLook:
    """How the cord looks in one photo."""

    rgb: np.ndarray  # (3,) float32 base colour 0..255
    braid_pitch_mm: float  # distance between braid chevrons along the cord
    braid_depth: float  # darkening of the braid grooves, 0..1
    light_dir_px: tuple[float, float]  # unit vector towards the light, canvas px


def sample_cord_look(
    rng: np.random.Generator, string_rgb: tuple[int, int, int], light_dir_px: tuple[float, float]
) -> CordLook:
    rgb = np.clip(
        np.asarray(string_rgb, np.float32) * rng.uniform(0.85, 1.05) + rng.normal(0.0, 5.0, 3),
        0,
        255,
    ).astype(np.float32)
    return CordLook(
        rgb=rgb,
        braid_pitch_mm=float(rng.uniform(2.6, 4.0)),
        braid_depth=float(rng.uniform(0.2, 0.45)),
        light_dir_px=light_dir_px,
    )


def _to_canvas(h: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts_mm, np.ones(len(pts_mm))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def _fixed(pts: np.ndarray, origin: np.ndarray) -> np.ndarray:
    return np.round((pts - origin) * _SUBPIXEL).astype(np.int32).reshape(-1, 1, 2)


def draw_cord(
    canvas: np.ndarray,
    string_mask: np.ndarray,
    boundary_mm: np.ndarray,
    plane_to_canvas: np.ndarray,
    thickness_mm: float,
    look: CordLook,
    shadow_offset_px: tuple[float, float],
    shadow_blur_px: float,
) -> None:
    """Draw the cord in place.

    ``canvas``: (H, W, 3) float32 RGB 0..255; ``string_mask``: (H, W) uint8, set to 255 where
    the cord is (its full width); ``boundary_mm``: (N, 2) closed centre line (table mm).
    """
    h_img, w_img = canvas.shape[:2]
    n = max(len(boundary_mm), 960)
    centre_mm = resample_closed(boundary_mm, n)
    tangent = np.roll(centre_mm, -1, axis=0) - np.roll(centre_mm, 1, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
    half = thickness_mm / 2
    centre = _to_canvas(plane_to_canvas, centre_mm)
    left = _to_canvas(plane_to_canvas, centre_mm + normal * half)
    right = _to_canvas(plane_to_canvas, centre_mm - normal * half)
    width_px = np.linalg.norm(left - right, axis=1)
    pad = int(np.ceil(width_px.max() + abs(shadow_offset_px[0]) + abs(shadow_offset_px[1])))
    pad += int(3 * shadow_blur_px) + 4
    every = np.vstack([left, right])
    x0 = max(0, int(np.floor(every[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(every[:, 1].min())) - pad)
    x1 = min(w_img, int(np.ceil(every[:, 0].max())) + pad)
    y1 = min(h_img, int(np.ceil(every[:, 1].max())) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    origin = np.array([x0, y0], np.float64)
    roi = canvas[y0:y1, x0:x1]
    shape = (y1 - y0, x1 - x0)

    def band(fraction: float, shift: np.ndarray | None = None) -> np.ndarray:
        """Coverage (0..1) of the strip ``fraction`` of the cord's width around the centre."""
        a = centre + (left - centre) * fraction
        b = centre + (right - centre) * fraction
        if shift is not None:
            a, b = a + shift, b + shift
        mask = np.zeros(shape, np.uint8)
        cv2.fillPoly(mask, [_fixed(a, origin), _fixed(b, origin)], 255, cv2.LINE_AA, _SUBPIXEL_BITS)
        return mask.astype(np.float32) / 255.0

    # Soft shadow under the cord.
    shadow = band(1.1, np.asarray(shadow_offset_px, np.float64))
    if shadow_blur_px > 0.3:
        shadow = cv2.GaussianBlur(shadow, (0, 0), shadow_blur_px)
    roi *= (1.0 - 0.45 * shadow)[..., None]

    full = band(1.0)
    core = band(0.62, np.asarray(look.light_dir_px) * width_px.mean() * 0.12)
    shine = band(0.22, np.asarray(look.light_dir_px) * width_px.mean() * 0.22)
    shade = 0.62 + 0.3 * core + 0.16 * shine

    # Braid: chevrons of grooves along the cord, drawn when they are at least ~3 px apart.
    px_per_mm = float(np.median(width_px)) / thickness_mm
    pitch_px = look.braid_pitch_mm * px_per_mm
    if pitch_px >= 3.0:
        grooves = np.zeros(shape, np.uint8)
        length_mm = polyline_length_mm(centre_mm)
        k = int(length_mm / look.braid_pitch_mm)
        tip_mm = resample_closed(centre_mm, k)
        back_mm = (tip_mm + np.roll(tip_mm, 1, axis=0)) / 2  # half a pitch behind each tip
        t = np.roll(tip_mm, -1, axis=0) - np.roll(tip_mm, 1, axis=0)
        t /= np.linalg.norm(t, axis=1, keepdims=True)
        nrm = np.column_stack([-t[:, 1], t[:, 0]]) * (0.9 * half)
        tips = _fixed(_to_canvas(plane_to_canvas, tip_mm), origin).reshape(-1, 2)
        lefts = _fixed(_to_canvas(plane_to_canvas, back_mm + nrm), origin).reshape(-1, 2)
        rights = _fixed(_to_canvas(plane_to_canvas, back_mm - nrm), origin).reshape(-1, 2)
        line_w = max(1, round(pitch_px * 0.25))
        for c, lp, rp in zip(tips, lefts, rights, strict=True):
            cv2.line(grooves, tuple(c), tuple(lp), 255, line_w, cv2.LINE_AA, _SUBPIXEL_BITS)
            cv2.line(grooves, tuple(c), tuple(rp), 255, line_w, cv2.LINE_AA, _SUBPIXEL_BITS)
        shade = shade * (1.0 - look.braid_depth * grooves.astype(np.float32) / 255.0)
    colour = shade[..., None] * look.rgb
    roi *= (1.0 - full)[..., None]
    roi += colour * full[..., None]
    string_mask[y0:y1, x0:x1][full > 0.5] = 255
