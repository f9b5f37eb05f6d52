"""Things on the table that are not game items: beer glasses and bottles, bowls of pretzels,
phones, coins.

They stand on the table outside the play area and, as seen by the camera, never cover a game
item or the string (so they never change a score). Positions are table mm; drawing happens on
the undistorted render canvas via plane homographies (``plane_to_canvas(height_mm)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry


class DistractorKind(StrEnum):
    GLASS = "glass"
    BOTTLE = "bottle"
    BOWL = "bowl"
    PHONE = "phone"
    COINS = "coins"


@dataclass(frozen=True)
class Distractor:
    """One object: ``kind``, its footprint centre (table mm), size and height (mm)."""

    kind: DistractorKind
    center_mm: tuple[float, float]
    radius_mm: float  # radius of a round object, half the diagonal of a phone
    height_mm: float
    angle_deg: float = 0.0
    parts: tuple[tuple[float, float, float], ...] = ()  # coins: (dx mm, dy mm, radius mm)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "center_mm": [round(self.center_mm[0], 1), round(self.center_mm[1], 1)],
            "height_mm": round(self.height_mm, 1),
        }


PlaneToCanvas = Callable[[float], np.ndarray]

#: Radius of a round object's top rim relative to its base (a glass widens, a bottle's neck).
_TOP_RADIUS = {DistractorKind.GLASS: 1.12, DistractorKind.BOTTLE: 0.42}


def _project(h: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts_mm, np.ones(len(pts_mm))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def _circle(center: tuple[float, float], radius: float, n: int = 48) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([center[0] + radius * np.cos(t), center[1] + radius * np.sin(t)])


def _phone_corners(d: Distractor) -> np.ndarray:
    a = np.deg2rad(d.angle_deg)
    w, h = 36.0, 75.0
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return local @ rot.T + np.asarray(d.center_mm)


def outline_px(d: Distractor, plane_to_canvas: PlaneToCanvas) -> np.ndarray:
    """The object's silhouette on the canvas (convex hull of its base and top), (N, 2) px."""
    if d.kind is DistractorKind.PHONE:
        base = _phone_corners(d)
        pts = np.vstack(
            [_project(plane_to_canvas(0.0), base), _project(plane_to_canvas(d.height_mm), base)]
        )
    elif d.kind is DistractorKind.COINS:
        pts = np.vstack(
            [
                _project(
                    plane_to_canvas(z), _circle((d.center_mm[0] + dx, d.center_mm[1] + dy), r, 16)
                )
                for dx, dy, r in d.parts
                for z in (0.0, d.height_mm)
            ]
        )
    else:
        ring = _circle(d.center_mm, d.radius_mm)
        top_r = d.radius_mm * _TOP_RADIUS.get(d.kind, 1.0)
        top = _circle(d.center_mm, top_r)
        pts = np.vstack(
            [_project(plane_to_canvas(0.0), ring), _project(plane_to_canvas(d.height_mm), top)]
        )
    hull = cv2.convexHull(pts.astype(np.float32))
    return hull.reshape(-1, 2).astype(np.float64)


def sample_distractors(
    rng: np.random.Generator,
    count: int,
    table_mm: tuple[float, float],
    play_area_mm: BaseGeometry,
    keep_clear_px: BaseGeometry,
    plane_to_canvas: PlaneToCanvas,
) -> tuple[Distractor, ...]:
    """Up to ``count`` objects on the table, outside ``play_area_mm`` (table mm) and, as seen
    on the canvas, clear of ``keep_clear_px`` (the items and the string, canvas px)."""
    placed: list[Distractor] = []
    taken: list[Polygon] = []
    for _ in range(count):
        kind = list(DistractorKind)[int(rng.integers(len(DistractorKind)))]
        for _ in range(25):
            center = (float(rng.uniform(0, table_mm[0])), float(rng.uniform(0, table_mm[1])))
            d = _make(rng, kind, center)
            footprint = Point(center).buffer(d.radius_mm + 10.0)
            if footprint.intersects(play_area_mm) or any(footprint.intersects(t) for t in taken):
                continue
            if not (d.radius_mm < center[0] < table_mm[0] - d.radius_mm):
                continue
            if not (d.radius_mm < center[1] < table_mm[1] - d.radius_mm):
                continue
            try:
                silhouette = Polygon(outline_px(d, plane_to_canvas))
            except ValueError:
                continue
            if not silhouette.is_valid or silhouette.buffer(4.0).intersects(keep_clear_px):
                continue
            placed.append(d)
            taken.append(footprint)
            break
    return tuple(placed)


def _make(
    rng: np.random.Generator, kind: DistractorKind, center: tuple[float, float]
) -> Distractor:
    if kind is DistractorKind.GLASS:
        return Distractor(kind, center, float(rng.uniform(32, 42)), float(rng.uniform(110, 170)))
    if kind is DistractorKind.BOTTLE:
        return Distractor(kind, center, float(rng.uniform(29, 36)), float(rng.uniform(200, 250)))
    if kind is DistractorKind.BOWL:
        return Distractor(kind, center, float(rng.uniform(65, 100)), float(rng.uniform(40, 65)))
    if kind is DistractorKind.PHONE:
        return Distractor(kind, center, 84.0, 8.0, float(rng.uniform(0, 180)))
    n = int(rng.integers(2, 8))
    parts = tuple(
        (float(rng.normal(0, 22)), float(rng.normal(0, 22)), float(rng.choice([10.0, 11.6, 12.9])))
        for _ in range(n)
    )
    return Distractor(kind, center, 60.0, 2.0, 0.0, parts)


def draw_distractors(
    rng: np.random.Generator,
    canvas: np.ndarray,
    semantic: np.ndarray,
    semantic_class: int,
    distractors: tuple[Distractor, ...],
    plane_to_canvas: PlaneToCanvas,
    shadow_mm_per_mm: tuple[float, float],
    shadow_strength: float,
) -> None:
    """Draw ``distractors`` (with shadows) in place on ``canvas`` ((H, W, 3) float32 RGB) and
    mark their pixels in ``semantic`` ((H, W) uint8). ``shadow_mm_per_mm`` is the table-plane
    shift of a shadow per mm of height."""
    h_img, w_img = canvas.shape[:2]
    ground = plane_to_canvas(0.0)
    for d in distractors:
        sil = outline_px(d, plane_to_canvas)
        shift = np.asarray(shadow_mm_per_mm) * d.height_mm
        if d.kind is DistractorKind.COINS:
            foot = np.vstack(
                [
                    _circle((d.center_mm[0] + dx, d.center_mm[1] + dy), r, 16)
                    for dx, dy, r in d.parts
                ]
            )
        elif d.kind is DistractorKind.PHONE:
            foot = _phone_corners(d)
        else:
            foot = _circle(d.center_mm, d.radius_mm)
        shadow_pts = _project(ground, np.vstack([foot, foot + shift]))
        lo = np.floor(np.vstack([sil, shadow_pts]).min(axis=0)).astype(int) - 30
        hi = np.ceil(np.vstack([sil, shadow_pts]).max(axis=0)).astype(int) + 30
        x0, y0 = max(0, lo[0]), max(0, lo[1])
        x1, y1 = min(w_img, hi[0]), min(h_img, hi[1])
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        roi = canvas[y0:y1, x0:x1]
        origin = np.array([x0, y0])
        shadow = np.zeros(roi.shape[:2], np.float32)
        hull = cv2.convexHull((shadow_pts - origin).astype(np.float32)).astype(np.int32)
        cv2.fillPoly(shadow, [hull], 1.0)
        size_px = float(np.ptp(sil[:, 0]) + 1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.06 * size_px))
        roi *= (1.0 - shadow_strength * shadow)[..., None]
        _draw_body(rng, roi, origin, d, plane_to_canvas)
        body = np.zeros(roi.shape[:2], np.uint8)
        cv2.fillPoly(body, [np.round(sil - origin).astype(np.int32)], 1)
        semantic[y0:y1, x0:x1][body > 0] = semantic_class


def _fill(roi: np.ndarray, pts: np.ndarray, rgb, alpha: float = 1.0) -> None:
    mask = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    roi *= 1.0 - a
    roi += a * np.asarray(rgb, np.float32)


def _draw_body(
    rng: np.random.Generator,
    roi: np.ndarray,
    origin: np.ndarray,
    d: Distractor,
    plane_to_canvas: PlaneToCanvas,
) -> None:
    def px(z: float, pts: np.ndarray) -> np.ndarray:
        return _project(plane_to_canvas(z), pts) - origin

    if d.kind is DistractorKind.PHONE:
        corners = _phone_corners(d)
        body = cv2.convexHull(
            np.vstack([px(0.0, corners), px(d.height_mm, corners)]).astype(np.float32)
        )
        _fill(roi, body.reshape(-1, 2).astype(np.float64), rng.uniform(20, 70, 3))
        screen = px(d.height_mm, corners)
        _fill(roi, screen, np.full(3, rng.uniform(8, 30)))
        glint = screen.mean(axis=0) + (screen - screen.mean(axis=0)) * 0.6
        _fill(roi, glint[:3], np.full(3, 90.0), alpha=0.25)
        return
    if d.kind is DistractorKind.COINS:
        for dx, dy, r in d.parts:
            metal = np.array(
                [[200, 200, 205], [215, 175, 80], [184, 115, 70]][int(rng.integers(3))], np.float32
            )
            c = (d.center_mm[0] + dx, d.center_mm[1] + dy)
            side = cv2.convexHull(
                np.vstack([px(0.0, _circle(c, r)), px(d.height_mm, _circle(c, r))]).astype(
                    np.float32
                )
            )
            _fill(roi, side.reshape(-1, 2).astype(np.float64), metal * 0.6)
            _fill(roi, px(d.height_mm, _circle(c, r)), metal * rng.uniform(0.85, 1.1))
            _fill(roi, px(d.height_mm, _circle(c, r * 0.75)), metal * 0.8, alpha=0.5)
        return
    ring = _circle(d.center_mm, d.radius_mm)
    if d.kind is DistractorKind.BOTTLE:
        shoulder = px(d.height_mm * 0.62, ring)
        neck = _circle(d.center_mm, d.radius_mm * _TOP_RADIUS[d.kind])
        glass = rng.choice([[95, 52, 18], [38, 92, 45], [150, 160, 150]]).astype(np.float32)
        body = cv2.convexHull(np.vstack([px(0.0, ring), shoulder]).astype(np.float32))
        _fill(roi, body.reshape(-1, 2).astype(np.float64), glass, alpha=0.92)
        top = cv2.convexHull(np.vstack([shoulder, px(d.height_mm, neck)]).astype(np.float32))
        _fill(roi, top.reshape(-1, 2).astype(np.float64), glass * 0.85, alpha=0.92)
        _fill(roi, px(d.height_mm, neck), (200, 190, 150))  # the cap
        return
    if d.kind is DistractorKind.GLASS:
        top_r = d.radius_mm * 1.12
        top = _circle(d.center_mm, top_r)
        body = cv2.convexHull(np.vstack([px(0.0, ring), px(d.height_mm, top)]).astype(np.float32))
        body = body.reshape(-1, 2).astype(np.float64)
        if rng.random() < 0.7:  # beer with foam
            _fill(roi, body, rng.uniform([170, 95, 10], [225, 150, 50]), alpha=0.85)
            _fill(roi, px(d.height_mm * 0.93, _circle(d.center_mm, top_r * 0.97)), (238, 230, 205))
        else:  # water or empty
            _fill(roi, body, (200, 215, 220), alpha=0.3)
            _fill(roi, px(d.height_mm, top), (225, 235, 240), alpha=0.35)
        rim = np.round(px(d.height_mm, top) * 16).astype(np.int32)
        overlay = roi.copy()
        cv2.polylines(overlay, [rim], True, (245, 245, 245), 2, cv2.LINE_AA, 4)
        roi[:] = roi * 0.4 + overlay * 0.6
        return
    # bowl of real pretzels
    body = cv2.convexHull(
        np.vstack([px(0.0, _circle(d.center_mm, d.radius_mm * 0.7)), px(d.height_mm, ring)]).astype(
            np.float32
        )
    )
    colour = rng.uniform(40, 230, 3)
    _fill(roi, body.reshape(-1, 2).astype(np.float64), colour * 0.8)
    _fill(roi, px(d.height_mm, ring), colour)
    _fill(roi, px(d.height_mm, _circle(d.center_mm, d.radius_mm * 0.88)), colour * 0.6)
    for _ in range(int(rng.integers(6, 16))):
        r = d.radius_mm * 0.6 * np.sqrt(rng.uniform())
        t = rng.uniform(0, 2 * np.pi)
        c = (d.center_mm[0] + r * np.cos(t), d.center_mm[1] + r * np.sin(t))
        blob = _circle(c, rng.uniform(9, 15), 12)
        _fill(roi, px(d.height_mm * 0.6, blob), rng.uniform([120, 60, 20], [170, 95, 40]))
