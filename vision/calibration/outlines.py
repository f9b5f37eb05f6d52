"""Propose icon outlines on a rectified coaster face: the closed black lines around the icons.

Every icon of the game is printed inside a ~1.5 mm black line; its outline (catalogue
convention) is the OUTER boundary of that line. On a face's art square (10 px/mm, see
:mod:`vision.calibration.art_frame`) the line is the darkest ink: pixels darker than a level
between the face's darkest ink and its median brightness, away from the coaster's printed edge.
A proposal is a dark region whose outer boundary encloses an icon-sized area with a hole (the
line is closed around the icon's cream interior).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Shape
from vision.calibration.art_frame import ART_PX_PER_MM, art_px_to_mm, polygon_alpha

#: Area range of an icon outline (mm^2): a $1 pretzel is ~580, the soft pretzel ~1850.
ICON_AREA_MM2 = (150.0, 4000.0)
#: The enclosed holes must cover at least this share of the outline's area (a closed line).
MIN_HOLE_SHARE = 0.2
#: Printed dark edge of the coaster ignored (mm from the edge).
EDGE_IGNORED_MM = 1.5
#: Vertices of a proposed outline (the catalogue needs >= 128).
OUTLINE_VERTICES = 192
#: Smoothing of the traced boundary along its length (art px).
_SMOOTH_PX = 1.5


@dataclass(frozen=True)
class ProposedIcon:
    """An icon outline found on a face: (N, 2) side-local mm, closed (first vertex not
    repeated), positive shoelace area on the raw (x, y) numbers (catalogue convention)."""

    outline_mm: np.ndarray

    @property
    def centre_mm(self) -> tuple[float, float]:
        c = self.outline_mm.mean(axis=0)
        return (float(c[0]), float(c[1]))

    @property
    def size_mm(self) -> tuple[float, float]:
        """Width and height of the axis-aligned box around the outline (mm)."""
        span = self.outline_mm.max(axis=0) - self.outline_mm.min(axis=0)
        return (float(span[0]), float(span[1]))

    @property
    def area_mm2(self) -> float:
        return shoelace_area(self.outline_mm)


def shoelace_area(points: np.ndarray) -> float:
    """Signed shoelace area of a closed polygon (N, 2) on its raw numbers."""
    x, y = points[:, 0], points[:, 1]
    return float(0.5 * (x @ np.roll(y, -1) - y @ np.roll(x, -1)))


def dark_line_mask(face_bgr: np.ndarray, shape: Shape) -> np.ndarray:
    """(N, N) bool: pixels of the face dark enough to be the black line (inside the shape)."""
    value = cv2.GaussianBlur(face_bgr.max(axis=2).astype(np.float32), (0, 0), 0.7)
    inside = polygon_alpha(shape.polygon_mm.buffer(-EDGE_IGNORED_MM), shape.size_mm) > 128
    darkest = float(np.percentile(value[inside], 1))
    median = float(np.median(value[inside]))
    level = max(35.0, darkest + 0.45 * (median - darkest))
    return (value < level) & inside


def propose_icon_outlines(
    face_bgr: np.ndarray, shape: Shape, vertices: int = OUTLINE_VERTICES
) -> list[ProposedIcon]:
    """Icon outlines on a face art square (N, N, 3) BGR at 10 px/mm, largest first."""
    if face_bgr.shape[:2] != (round(shape.size_mm * ART_PX_PER_MM),) * 2:
        raise ValueError(
            f"the face must be the {shape.size_mm:g} mm art square at {ART_PX_PER_MM:g} px/mm"
        )
    dark = dark_line_mask(face_bgr, shape).astype(np.uint8)
    contours, hierarchy = cv2.findContours(dark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    hierarchy = hierarchy[0]
    px2 = ART_PX_PER_MM**2
    found = []
    for k, contour in enumerate(contours):
        if hierarchy[k][3] != -1:  # a hole, not an outer boundary
            continue
        filled = cv2.contourArea(contour) / px2
        if not ICON_AREA_MM2[0] <= filled <= ICON_AREA_MM2[1]:
            continue
        holes, child = 0.0, hierarchy[k][2]
        while child != -1:
            holes += cv2.contourArea(contours[child]) / px2
            child = hierarchy[child][0]
        if holes < MIN_HOLE_SHARE * filled:
            continue
        found.append(ProposedIcon(_resampled_mm(contour[:, 0, :], shape.size_mm, vertices)))
    found.sort(key=lambda icon: -icon.area_mm2)
    # a drawing inside an icon (the pretzel's own dark contour) is not an icon
    kept: list[ProposedIcon] = []
    for icon in found:
        if not any(_inside(icon.outline_mm, outer.outline_mm) for outer in kept):
            kept.append(icon)
    return kept


def _inside(inner_mm: np.ndarray, outer_mm: np.ndarray) -> bool:
    ring = outer_mm.astype(np.float32).reshape(-1, 1, 2)
    x, y = (float(v) for v in inner_mm.mean(axis=0))
    return cv2.pointPolygonTest(ring, (x, y), False) > 0


def _resampled_mm(contour_px: np.ndarray, size_mm: float, vertices: int) -> np.ndarray:
    """A traced pixel boundary -> smooth closed outline of ``vertices`` points (mm, 0.01)."""
    pts = contour_px.astype(np.float64)
    radius = max(1, int(3 * _SMOOTH_PX))
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) / _SMOOTH_PX) ** 2)
    kernel /= kernel.sum()
    padded = np.concatenate([pts[-radius:], pts, pts[:radius]])
    smooth = np.stack([np.convolve(padded[:, i], kernel, mode="valid") for i in (0, 1)], axis=1)
    # a traced pixel boundary runs through pixel centres on the line's edge pixels: move it half
    # a pixel outwards so it lies on the edge between dark and light pixels
    closed = np.vstack([smooth, smooth[:1]])
    steps = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(steps)])
    targets = np.linspace(0.0, s[-1], vertices, endpoint=False)
    ring = np.stack([np.interp(targets, s, closed[:, i]) for i in (0, 1)], axis=1)
    if shoelace_area(ring) < 0:
        ring = ring[::-1]
    tangent = np.roll(ring, -1, axis=0) - np.roll(ring, 1, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True) + 1e-12
    # positive area on y-down numbers: the outward normal is (t_y, -t_x)
    outward = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)
    ring = ring + 0.5 * outward
    return np.round(art_px_to_mm(ring, size_mm), 2)
