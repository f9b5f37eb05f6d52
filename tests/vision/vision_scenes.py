"""Small synthetic table photos for the vision stage tests: catalogue art composited on a plain
background through a known table-plane homography (table mm -> image px)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind, load_catalogue
from vision.art import Side, art_library
from vision.plane import ItemPose
from vision.segmentation import CoasterProbabilities
from vision.synthetic.semantic import SemanticClasses


@dataclass(frozen=True)
class Placed:
    """An item side at a pose on the table (mm, radians, clockwise on the y-down table)."""

    side: Side
    color: str
    center_mm: tuple[float, float]
    angle_rad: float

    @property
    def pose(self) -> ItemPose:
        return ItemPose(self.center_mm, self.angle_rad)


def side(catalogue: Catalogue, kind: str, type_name: str | None = None, face: str = "up") -> Side:
    """The library side of a coaster type's face or back, or of a napkin's face or back."""
    for s in art_library(catalogue).sides:
        if s.kind is not ItemKind(kind) or s.face is not Face(face):
            continue
        if kind == "napkin" or (face == "up" and s.type_name == type_name):
            return s
        if face == "down" and s.shape == catalogue.coaster_type(type_name).shape:
            return s
    raise KeyError((kind, type_name, face))


def table_homography(px_per_mm: float, tilt: float = 0.0, origin_px=(40.0, 40.0)) -> np.ndarray:
    """A table mm -> image px homography: scale, shift and a mild perspective ``tilt``."""
    return np.array(
        [[px_per_mm, 0.0, origin_px[0]], [0.0, px_per_mm, origin_px[1]], [0.0, tilt, 1.0]]
    )


def phone_homography(
    px_per_mm: float, tilt_deg: float, centre_mm: tuple[float, float], size_px: tuple[int, int]
) -> np.ndarray:
    """A table mm -> image px homography as a phone camera gives it (focal length 0.75 of the
    long side, principal point at the image centre): tilted ``tilt_deg`` about the table's x
    axis, ``centre_mm`` at the image centre, seen there at ``px_per_mm`` across x."""
    w, h = size_px
    focal = 0.75 * max(w, h)
    camera = np.array([[focal, 0.0, (w - 1) / 2], [0.0, focal, (h - 1) / 2], [0.0, 0.0, 1.0]])
    tilt = np.radians(tilt_deg)
    rotation = np.array(
        [[1.0, 0.0, 0.0], [0.0, np.cos(tilt), -np.sin(tilt)], [0.0, np.sin(tilt), np.cos(tilt)]]
    )
    shift = np.array([0.0, 0.0, focal / px_per_mm]) - rotation[:, :2] @ np.asarray(centre_mm)
    homography = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], shift])
    return homography / homography[2, 2]


def render_scene(
    catalogue: Catalogue,
    items: list[Placed],
    homography: np.ndarray,
    size_px: tuple[int, int],
    background_bgr: tuple[int, int, int] = (70, 90, 110),
) -> np.ndarray:
    """Composite ``items`` (bottom first) onto a plain background (BGR uint8 image)."""
    w, h = size_px
    image = np.empty((h, w, 3), np.float32)
    image[:] = background_bgr
    library = art_library(catalogue)
    ppm = float(np.sqrt(abs(np.linalg.det(homography[:2, :2])))) * 2
    for item in items:
        art = library.art_rgba(item.side, item.color, ppm)
        half = item.side.shape.size_mm / 2
        art_to_local = np.array(
            [[1 / ppm, 0, 0.5 / ppm - half], [0, 1 / ppm, 0.5 / ppm - half], [0, 0, 1.0]]
        )
        c, s = np.cos(item.angle_rad), np.sin(item.angle_rad)
        local_to_table = np.array(
            [[c, -s, item.center_mm[0]], [s, c, item.center_mm[1]], [0, 0, 1]]
        )
        m = homography @ local_to_table @ art_to_local
        bgr = cv2.warpPerspective(
            art[:, :, :3].astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR
        )
        alpha = cv2.warpPerspective(
            art[:, :, 3].astype(np.float32) / 255, m, (w, h), flags=cv2.INTER_LINEAR
        )[:, :, None]
        image = image * (1 - alpha) + bgr * alpha
    return np.clip(image, 0, 255).astype(np.uint8)


def coasters_seen(
    homography: np.ndarray,
    seen: list[tuple[Placed, float]],
    size_px: tuple[int, int],
    model_scale: float,
) -> CoasterProbabilities:
    """The segmenter's coaster map of a scene of ``size_px`` (width, height; working px), at
    ``model_scale`` model px per working px: each item of ``seen`` painted over its outline
    with its probability for the face of its colour, zero elsewhere (the table)."""
    names = SemanticClasses.for_catalogue(load_catalogue()).names()
    classes = tuple(names[k] for k in sorted(names) if names[k].startswith("coaster"))
    w, h = (round(v * model_scale) for v in size_px)
    probabilities = np.zeros((len(classes), h, w), np.float32)
    for item, probability in seen:
        outline = item.pose.local_to_table(np.asarray(item.side.shape.polygon_mm.exterior.coords))
        image_px = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), homography).reshape(-1, 2)
        model_px = (image_px + 0.5) * model_scale - 0.5
        channel = probabilities[classes.index(f"coaster_face_{item.color}")]
        cv2.fillPoly(channel, [np.round(model_px).astype(np.int32)], probability)
    return CoasterProbabilities(
        np.ascontiguousarray(probabilities.transpose(1, 2, 0)), classes, (model_scale, model_scale)
    )
