"""Render a sampled round as a phone photo, with per-pixel semantic and instance masks.

Pipeline (all vectorised; no per-pixel Python):

1. sample a phone camera framing the whole game (:mod:`vision.synthetic.camera`);
2. render on an UNDISTORTED canvas large enough for the lens distortion: floor, the table top
   (procedural texture in the table plane, one ``cv2.warpPerspective``), the braided cord, then
   every item in toss order (``z``): soft shadow, cut edge (thickness) and the pre-scaled
   catalogue art warped straight to its bounding box, then distractor objects;
3. light (gradient, colour cast, cast shadows, glare);
4. lens distortion (one ``cv2.remap`` of image and masks);
5. sensor (defocus, depth of field, motion blur, noise).

Pixel coordinates are those of the photo as displayed, (x right, y down); the table frame is
that of :mod:`games.beer_pretzels.scene` (mm, y down) with heights above the table top.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from shapely import unary_union
from shapely.geometry import LineString, Polygon

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.geometry import item_polygon_mm
from games.beer_pretzels.scene import PlacedItem
from vision.synthetic.art import item_art
from vision.synthetic.camera import Camera, sample_camera
from vision.synthetic.cord import draw_cord, sample_cord_look
from vision.synthetic.distractors import Distractor, draw_distractors, sample_distractors
from vision.synthetic.effects import apply_light, apply_sensor
from vision.synthetic.foreign import ForeignObject
from vision.synthetic.scene_sampler import SampledRound
from vision.synthetic.semantic import SemanticClasses
from vision.synthetic.style import CAMERA_RANGES, PhotoLook
from vision.synthetic.textures import make_floor, make_table_surface

#: Largest table texture, in pixels (the texture is smooth; the warp interpolates it).
MAX_TABLE_TEXTURE_PX = 4_000_000


@dataclass(frozen=True)
class RenderedPhoto:
    """A rendered photo as displayed and its masks (all (H, W), displayed orientation).

    ``semantic``: uint8 class ids (:class:`~vision.synthetic.semantic.SemanticClasses`);
    ``instance``: uint16, ``i + 1`` where item ``i`` of the scene is the visible surface, else 0.
    """

    image_rgb: np.ndarray
    semantic: np.ndarray
    instance: np.ndarray
    camera: Camera
    table_kind: str
    distractors: tuple[Distractor, ...]
    tags: tuple[str, ...]


def item_thickness_mm(catalogue: Catalogue, item: PlacedItem) -> float:
    if item.kind is ItemKind.COASTER:
        return catalogue.coaster_thickness_mm
    return catalogue.napkin.thickness_mm


def _pose(item: PlacedItem) -> np.ndarray:
    """3x3: the shown side's art-local mm -> table mm (a back is the face mirrored in x)."""
    a = np.deg2rad(item.angle_deg)
    c, s = np.cos(a), np.sin(a)
    m = np.array([[c, -s, item.center_mm[0]], [s, c, item.center_mm[1]], [0.0, 0.0, 1.0]])
    if item.face is Face.DOWN:
        m = m @ np.diag([-1.0, 1.0, 1.0])
    return m


def _translate(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return p[:, :2] / p[:, 2:3]


class _Canvas:
    """The undistorted render target: image (float32 RGB), semantic and instance layers."""

    def __init__(self, camera: Camera):
        w, h = camera.size_px
        if camera.has_distortion:
            self.map_x, self.map_y = camera.undistortion_maps()
            lo_x = max(-0.35 * w, min(0.0, float(self.map_x.min())))
            lo_y = max(-0.35 * h, min(0.0, float(self.map_y.min())))
            hi_x = min(1.35 * w, max(w - 1.0, float(self.map_x.max())))
            hi_y = min(1.35 * h, max(h - 1.0, float(self.map_y.max())))
            self.offset = (float(np.floor(lo_x)) - 2.0, float(np.floor(lo_y)) - 2.0)
            self.size = (
                int(np.ceil(hi_x - self.offset[0])) + 3,
                int(np.ceil(hi_y - self.offset[1])) + 3,
            )
        else:
            self.map_x = self.map_y = None
            self.offset = (0.0, 0.0)
            self.size = (w, h)
        self.camera = camera
        cw, ch = self.size
        self.semantic = np.zeros((ch, cw), np.uint8)
        self.instance = np.zeros((ch, cw), np.uint16)

    def plane(self, height_mm: float) -> np.ndarray:
        """3x3: table mm at ``height_mm`` -> canvas px."""
        return self.camera.plane_homography(height_mm, self.offset)

    def px_per_mm(self, point_mm: tuple[float, float], height_mm: float = 0.0) -> float:
        """Local scale of the canvas at a table point (px per mm, the larger axis)."""
        h = self.plane(height_mm)
        p = np.array([point_mm, (point_mm[0] + 1.0, point_mm[1]), (point_mm[0], point_mm[1] + 1.0)])
        q = _apply(h, p)
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])))

    def to_photo(self, image: np.ndarray, nearest: bool = False) -> np.ndarray:
        """Resample a canvas layer to the distorted photo."""
        if self.map_x is None:
            return image
        interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        return cv2.remap(
            image,
            self.map_x - np.float32(self.offset[0]),
            self.map_y - np.float32(self.offset[1]),
            interp,
            borderMode=cv2.BORDER_REPLICATE,
        )


def render_photo(
    rng: np.random.Generator,
    round_: SampledRound,
    catalogue: Catalogue,
    size_px: tuple[int, int],
    look: PhotoLook,
) -> RenderedPhoto:
    """Render ``round_`` as a photo of ``size_px`` (width, height) with ``look``."""
    classes = SemanticClasses.for_catalogue(catalogue)
    scene = round_.scene
    polygons = [item_polygon_mm(it, catalogue) for it in scene.items]
    frame_pts = np.vstack([round_.boundary_mm] + [np.asarray(p.exterior.coords) for p in polygons])
    camera = sample_camera(rng, size_px, frame_pts, CAMERA_RANGES[round_.difficulty])
    canvas = _Canvas(camera)
    tags: list[str] = []
    if camera.tilt_deg > 30:
        tags.append("tilt_gt30")

    # Light from azimuth/elevation: a shadow moves away from the light by h / tan(elevation).
    az = np.deg2rad(look.light_azimuth_deg)
    to_light_mm = np.array([np.cos(az), np.sin(az)])
    shadow_per_mm = -to_light_mm / np.tan(np.deg2rad(look.light_elevation_deg))

    image, table_gloss, table_tags = _draw_table(rng, canvas, round_, look, classes)
    tags.extend(table_tags)
    _draw_string(rng, canvas, image, round_, catalogue, to_light_mm, shadow_per_mm, classes)
    for index, (item, height) in enumerate(zip(scene.items, round_.heights_mm, strict=True)):
        _draw_item(rng, canvas, image, catalogue, index, item, height, look, shadow_per_mm, classes)
    for obj in round_.foreign:
        _draw_foreign(rng, canvas, image, obj, look, shadow_per_mm, classes)
    distractors = _place_distractors(
        rng, canvas, image, round_, catalogue, polygons, look, shadow_per_mm, classes
    )
    tags.extend(sorted({f"distractor_{d.kind.value}" for d in distractors}))

    lit, light_tags = apply_light(rng, image, look, table_gloss)
    tags.extend(light_tags)
    photo = canvas.to_photo(np.clip(lit, 0, 255))
    semantic = canvas.to_photo(canvas.semantic, nearest=True)
    instance = canvas.to_photo(canvas.instance, nearest=True)
    final, sensor_tags = apply_sensor(rng, photo, look)
    tags.extend(sensor_tags)
    return RenderedPhoto(
        image_rgb=final,
        semantic=np.ascontiguousarray(semantic),
        instance=np.ascontiguousarray(instance),
        camera=camera,
        table_kind=look.table_kind.value,
        distractors=distractors,
        tags=tuple(tags),
    )


def _draw_string(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    round_: SampledRound,
    catalogue: Catalogue,
    to_light_mm: np.ndarray,
    shadow_per_mm: np.ndarray,
    classes: SemanticClasses,
) -> None:
    """The cord, lit from ``to_light_mm`` (table direction), with its shadow."""
    cord_height = catalogue.string.thickness_mm / 2
    centre_mm = round_.boundary_mm.mean(axis=0)
    ground = canvas.plane(0.0)
    c, toward_light, shadow_end = _apply(
        ground, np.array([centre_mm, centre_mm + to_light_mm * 10.0, centre_mm + shadow_per_mm * 3])
    )
    light_dir_px = (toward_light - c) / max(float(np.linalg.norm(toward_light - c)), 1e-6)
    string_mask = np.zeros(canvas.semantic.shape, np.uint8)
    draw_cord(
        image,
        string_mask,
        round_.boundary_mm,
        canvas.plane(cord_height),
        catalogue.string.thickness_mm,
        sample_cord_look(
            rng, catalogue.string.rgb, (float(light_dir_px[0]), float(light_dir_px[1]))
        ),
        (float(shadow_end[0] - c[0]), float(shadow_end[1] - c[1])),
        max(0.5, 1.2 * canvas.px_per_mm(tuple(centre_mm), cord_height)),
    )
    canvas.semantic[string_mask > 0] = classes.string


def _place_distractors(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    round_: SampledRound,
    catalogue: Catalogue,
    polygons: list[Polygon],
    look: PhotoLook,
    shadow_per_mm: np.ndarray,
    classes: SemanticClasses,
) -> tuple[Distractor, ...]:
    """Glasses, bowls, phones and coins beside the game, never covering an item or the string
    as seen by the camera; drawn in place."""
    cord_height = catalogue.string.thickness_mm / 2
    loop = np.vstack([round_.boundary_mm, round_.boundary_mm[:1]])
    seen = [
        Polygon(_apply(canvas.plane(h), np.asarray(p.exterior.coords)))
        for p, h in zip(polygons, round_.heights_mm, strict=True)
    ]
    seen.append(LineString(_apply(canvas.plane(cord_height), loop)).buffer(6.0))
    play_area = unary_union(
        [Polygon(round_.boundary_mm).buffer(60.0), *[p.buffer(40.0) for p in polygons]]
    )
    distractors = sample_distractors(
        rng, look.distractors, round_.table_mm, play_area, unary_union(seen), canvas.plane
    )
    draw_distractors(
        rng,
        image,
        canvas.semantic,
        classes.distractor,
        distractors,
        canvas.plane,
        (float(shadow_per_mm[0]), float(shadow_per_mm[1])),
        look.shadow_strength,
    )
    return distractors


def _draw_table(
    rng: np.random.Generator,
    canvas: _Canvas,
    round_: SampledRound,
    look: PhotoLook,
    classes: SemanticClasses,
) -> tuple[np.ndarray, float, tuple[str, ...]]:
    """Floor plus the visible part of the table top; returns the image, the table's gloss and
    its tags."""
    cw, ch = canvas.size
    image = make_floor(rng, canvas.size)
    ground = canvas.plane(0.0)
    corners_px = np.array([[0.0, 0.0], [cw, 0.0], [cw, ch], [0.0, ch]])
    corners_mm = _apply(np.linalg.inv(ground), corners_px)
    tw, th = round_.table_mm
    x0, y0 = np.maximum(corners_mm.min(axis=0), 0.0)
    x1, y1 = np.minimum(corners_mm.max(axis=0), (tw, th))
    if x1 <= x0 or y1 <= y0:
        return image, 0.0, (f"table_{look.table_kind.value}",)
    ppm = float(np.clip(0.8 * canvas.px_per_mm(tuple(round_.boundary_mm.mean(axis=0))), 0.35, 2.5))
    area = (x1 - x0) * (y1 - y0)
    budget = min(MAX_TABLE_TEXTURE_PX, 0.6 * cw * ch)
    ppm = min(ppm, float(np.sqrt(budget / area)))
    surface = make_table_surface(rng, look.table_kind, (x1 - x0, y1 - y0), ppm)
    tex_to_table = np.array(
        [[1 / ppm, 0.0, x0 + 0.5 / ppm], [0.0, 1 / ppm, y0 + 0.5 / ppm], [0.0, 0.0, 1.0]]
    )
    m = ground @ tex_to_table
    tex_h, tex_w = surface.rgb.shape[:2]
    tex = np.dstack([surface.rgb, np.ones((tex_h, tex_w), np.float32)])
    # Crop the texture to the table (it may overrun by a pixel); RGB is premultiplied by alpha.
    tex[int((th - y0) * ppm) + 1 :, :] = 0.0
    tex[:, int((tw - x0) * ppm) + 1 :] = 0.0
    image = _draw_table_edge(
        rng, canvas, image, round_.table_mm, surface.rgb.mean(axis=(0, 1)), classes
    )
    warped = cv2.warpPerspective(
        tex,
        m,
        canvas.size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[..., 3:4]
    image = image * (1.0 - alpha) + warped[..., :3]
    canvas.semantic[alpha[..., 0] > 0.5] = classes.table
    if rng.random() < 0.3:
        _draw_crumbs(rng, canvas, image, (x0, y0, x1, y1))
    return image.astype(np.float32), surface.gloss, surface.tags


def _draw_table_edge(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    table_mm: tuple[float, float],
    top_rgb: np.ndarray,
    classes: SemanticClasses,
) -> np.ndarray:
    """The table's sides (a darker band below its near edges, where they are in view)."""
    tw, th = table_mm
    corners = np.array([[0.0, 0.0], [tw, 0.0], [tw, th], [0.0, th]])
    thickness_mm = float(rng.uniform(18.0, 45.0))
    top = _apply(canvas.plane(0.0), corners)
    pts = np.vstack([top, _apply(canvas.plane(-thickness_mm), corners)])
    if not np.isfinite(pts).all() or np.abs(pts).max() > 1e6:
        return image
    cw, ch = canvas.size
    band = np.zeros((ch, cw), np.uint8)
    cv2.fillPoly(band, [cv2.convexHull(np.round(pts * 16).astype(np.int32))], 255, cv2.LINE_AA, 4)
    cv2.fillPoly(band, [np.round(top * 16).astype(np.int32)], 0, cv2.LINE_8, 4)
    found = cv2.findNonZero(band)
    if found is None:  # the table's edges are out of view
        return image
    x, y, bw, bh = cv2.boundingRect(found)
    side = (band[y : y + bh, x : x + bw].astype(np.float32) / 255.0)[..., None]
    roi = image[y : y + bh, x : x + bw]
    roi *= 1.0 - side
    roi += side * (top_rgb * rng.uniform(0.35, 0.6))
    canvas.semantic[y : y + bh, x : x + bw][side[..., 0] > 0.5] = classes.table
    return image


def _draw_crumbs(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    visible_mm: tuple[float, float, float, float],
) -> None:
    """Salt grains and pretzel crumbs scattered on the table (drawn in place)."""
    x0, y0, x1, y1 = visible_mm
    n = int(rng.integers(20, 200))
    pts_mm = rng.uniform((x0, y0), (x1, y1), (n, 2))
    pts_px = _apply(canvas.plane(0.0), pts_mm)
    ppm = canvas.px_per_mm((float((x0 + x1) / 2), float((y0 + y1) / 2)))
    salt = rng.random(n) < 0.5
    sizes = rng.uniform(0.4, 2.2, n) * ppm
    cw, ch = canvas.size
    for (u, v), is_salt, r in zip(pts_px, salt, sizes, strict=True):
        if r < 1.5 or not (0 <= u < cw and 0 <= v < ch):
            continue
        colour = (235, 232, 225) if is_salt else tuple(rng.uniform((120, 70, 25), (190, 120, 60)))
        cv2.circle(image, (int(u), int(v)), max(1, round(r / 2)), colour, -1)


def _draw_foreign(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    obj: ForeignObject,
    look: PhotoLook,
    shadow_per_mm: np.ndarray,
    classes: SemanticClasses,
) -> None:
    """A snack lying on the game: shadow, body and top, drawn in place; it hides what is under
    it in the instance mask."""
    outline = np.asarray(obj.outline_mm)
    base_mm = max(0.0, obj.height_mm - 4.0)
    top = _apply(canvas.plane(obj.height_mm), outline)
    body = np.vstack([top, _apply(canvas.plane(base_mm), outline)])
    shadow = _apply(canvas.plane(base_mm), outline + shadow_per_mm * 4.0)
    every = np.vstack([body, shadow])
    cw, ch = canvas.size
    ppm = canvas.px_per_mm(tuple(outline.mean(axis=0)), obj.height_mm)
    margin = int(np.ceil(6 * ppm)) + 4
    x0 = max(0, int(np.floor(every[:, 0].min())) - margin)
    y0 = max(0, int(np.floor(every[:, 1].min())) - margin)
    x1 = min(cw, int(np.ceil(every[:, 0].max())) + margin)
    y1 = min(ch, int(np.ceil(every[:, 1].max())) + margin)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    origin = np.array([x0, y0], np.float64)
    roi = image[y0:y1, x0:x1]

    def coverage(pts: np.ndarray) -> np.ndarray:
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        hull = cv2.convexHull(np.round((pts - origin) * 16).astype(np.int32))
        cv2.fillPoly(mask, [hull], 255, cv2.LINE_AA, 4)
        return mask.astype(np.float32) / 255.0

    dark = cv2.GaussianBlur(coverage(shadow), (0, 0), max(0.6, 1.5 * ppm))
    roi *= (1.0 - look.shadow_strength * dark)[..., None]
    rgb = np.asarray(obj.rgb, np.float32)
    side = coverage(body)
    roi *= (1.0 - side)[..., None]
    roi += side[..., None] * (rgb * 0.6)
    face = coverage(top)
    roi *= (1.0 - face)[..., None]
    roi += face[..., None] * (rgb * float(rng.uniform(0.9, 1.1)))
    for _ in range(int(rng.integers(1, 6))):  # salt grains
        u, v = top[int(rng.integers(len(top)))] * 0.3 + top.mean(axis=0) * 0.7 - origin
        cv2.circle(roi, (int(u), int(v)), max(1, round(0.8 * ppm)), (240, 238, 232), -1)
    hidden = np.maximum(side, face) > 0.5
    canvas.instance[y0:y1, x0:x1][hidden] = 0
    canvas.semantic[y0:y1, x0:x1][hidden] = classes.distractor


def _draw_item(
    rng: np.random.Generator,
    canvas: _Canvas,
    image: np.ndarray,
    catalogue: Catalogue,
    index: int,
    item: PlacedItem,
    height_mm: float,
    look: PhotoLook,
    shadow_per_mm: np.ndarray,
    classes: SemanticClasses,
) -> None:
    """Shadow, cut edge and art of one item, composited over ``image`` in place."""
    thickness = item_thickness_mm(catalogue, item)
    base_mm = height_mm - thickness
    art = item_art(catalogue, item.kind, item.color, item.type, item.face)
    level = art.level_for(canvas.px_per_mm(item.center_mm, height_mm))
    local = _pose(item) @ level.art_to_local()
    side = level.rgba.shape[0]
    square = np.array(
        [[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5], [-0.5, side - 0.5]]
    )
    shift_mm = shadow_per_mm * (height_mm + 0.5)
    h_top = canvas.plane(height_mm) @ local
    h_base = canvas.plane(base_mm) @ local
    h_mid = canvas.plane(base_mm + thickness / 2) @ local
    h_shadow = canvas.plane(max(base_mm, 0.0)) @ _translate(*shift_mm) @ local
    ppm = canvas.px_per_mm(item.center_mm, height_mm)
    blur_px = max(0.6, (1.5 + 0.8 * height_mm) * ppm)
    pts = np.vstack([_apply(h, square) for h in (h_top, h_base, h_shadow)])
    margin = int(np.ceil(3 * blur_px)) + 2
    cw, ch = canvas.size
    x0 = max(0, int(np.floor(pts[:, 0].min())) - margin)
    y0 = max(0, int(np.floor(pts[:, 1].min())) - margin)
    x1 = min(cw, int(np.ceil(pts[:, 0].max())) + margin)
    y1 = min(ch, int(np.ceil(pts[:, 1].max())) + margin)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    to_roi = _translate(-x0, -y0)
    size = (x1 - x0, y1 - y0)
    alpha_src = np.ascontiguousarray(level.rgba[..., 3])

    def warp(src: np.ndarray, h: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(
            src, to_roi @ h, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )

    top = warp(level.rgba, h_top)
    edge = np.maximum(warp(alpha_src, h_base), warp(alpha_src, h_mid))
    shadow = cv2.GaussianBlur(warp(alpha_src, h_shadow), (0, 0), blur_px)
    contact = cv2.GaussianBlur(edge, (0, 0), max(0.5, 1.2 * ppm))
    darkening = np.clip(look.shadow_strength * shadow + 0.25 * contact, 0.0, 0.85)
    roi = image[y0:y1, x0:x1]
    roi *= (1.0 - darkening)[..., None]
    edge_rgb = art.edge_rgb * float(rng.uniform(0.7, 0.9))
    roi *= (1.0 - edge)[..., None]
    roi += edge[..., None] * edge_rgb
    a = top[..., 3:4]
    # A coaster never lies perfectly flat: a faint brightness ramp across it.
    theta = rng.uniform(0.0, 2 * np.pi)
    ramp_x = np.linspace(-1.0, 1.0, size[0], dtype=np.float32)[None, :] * np.cos(theta)
    ramp_y = np.linspace(-1.0, 1.0, size[1], dtype=np.float32)[:, None] * np.sin(theta)
    shade = rng.uniform(0.95, 1.04) + rng.uniform(0.0, 0.05) * (ramp_x + ramp_y)
    roi *= 1.0 - a
    roi += top[..., :3] * (a * shade[..., None])
    covered = np.maximum(a[..., 0], edge) > 0.5
    canvas.instance[y0:y1, x0:x1][covered] = index + 1
    canvas.semantic[y0:y1, x0:x1][covered] = classes.item_class(item)
