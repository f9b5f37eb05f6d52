"""A new coaster set from photos: rectified art, proposed icon outlines, a catalogue folder.

The person photographs every side lying alone on a table (a few photos each, any angle) and
names the files ``coaster-{color}-{type}-face-{n}.jpg``, ``coaster-{color}-{type}-back-{n}.jpg``
(one back per colour and coaster shape is enough) and ``napkin-{color}-{face|back}-{n}.jpg``.
Then, in order:

1. :func:`find_side_photos` - the photos per side;
2. :func:`propose_shapes` -> editable :class:`ShapeRow` list (circle or rounded square, size);
3. :func:`rectify_sides` - every side's art square (10 px/mm, RGBA), all colours of a side
   turned onto the first colour's frame and lit alike (the scorer renders every colour at one
   pose and measures the light on what all colours print alike);
4. :func:`propose_icons` -> editable :class:`IconRow` list: each outline found on a face with a
   guessed kind and value, for the person to confirm;
5. :func:`write_catalogue` - ``components.json`` + ``art/``, loadable by
   :func:`games.beer_pretzels.catalogue.load_catalogue` and the scorer's ``--components PATH``.

Frames: side mm and art px as in :mod:`vision.calibration.art_frame`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, Shape, load_catalogue
from vision.calibration.art_frame import (
    ART_PX_PER_MM,
    flatten_outside,
    mm_to_art_px,
    shape_alpha,
)
from vision.calibration.fuse import fuse_views
from vision.calibration.outlines import ProposedIcon, propose_icon_outlines
from vision.calibration.rectify import (
    CalibrationPhotoError,
    RectifiedPhoto,
    agree_on_outline,
    find_item,
    mm_outline_in_photo,
    quarter_turn,
    rectify_photos,
    register,
    rotation_about_centre,
    square_homography,
    warp_to_art,
)
from vision.load import load_photo

#: Photo file suffixes looked at.
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic")
_NAME = re.compile(
    r"^(?:coaster-(?P<ccolor>[a-z0-9_]+)-(?P<type>[a-z0-9_]+)|napkin-(?P<ncolor>[a-z0-9_]+))"
    r"-(?P<face>face|back)(?:-(?P<n>\d+))?$"
)
#: Registration at this resolution when turning colours onto each other (px per mm).
_REGISTER_PX_PER_MM = 4.0
#: The item name of the napkin in shape rows.
NAPKIN = "napkin"


class CalibrationError(ValueError):
    """The photos or the confirmed tables do not make a complete, valid set."""


@dataclass(frozen=True)
class SideKey:
    """One printed side: ``kind`` 'coaster' or 'napkin', ``face`` 'face' or 'back';
    ``type_name`` is None for napkins (for a coaster back: the coaster photographed)."""

    kind: str
    color: str
    type_name: str | None
    face: str

    @property
    def label(self) -> str:
        parts = [self.kind, self.color, self.type_name, self.face]
        return "-".join(p for p in parts if p)

    @property
    def up_or_down(self) -> Face:
        """How the item lies when this side is seen: face up for its face."""
        return Face.UP if self.face == "face" else Face.DOWN

    @property
    def item(self) -> str:
        """The shape row this side belongs to: its coaster type, or ``napkin``."""
        return self.type_name if self.kind == "coaster" and self.type_name else NAPKIN


def side_photo_name(side: SideKey, n: int, suffix: str = ".jpg") -> str:
    """File name of photo ``n`` of ``side`` (what :func:`find_side_photos` reads)."""
    return f"{side.label}-{n}{suffix}"


def find_side_photos(folder: str | Path) -> dict[SideKey, list[Path]]:
    """The calibration photos in ``folder``, per side, sorted by name.

    Raises :class:`CalibrationError` if the folder holds no photo named by the convention.
    """
    root = Path(folder)
    if not root.is_dir():
        raise CalibrationError(f"{root} is not a folder")
    found: dict[SideKey, list[Path]] = {}
    for path in sorted(root.iterdir()):
        if path.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        m = _NAME.match(path.stem.lower())
        if m is None:
            continue
        if m["ccolor"]:
            side = SideKey("coaster", m["ccolor"], m["type"], m["face"])
        else:
            side = SideKey("napkin", m["ncolor"], None, m["face"])
        found.setdefault(side, []).append(path)
    if not found:
        raise CalibrationError(
            f"no photo in {root} is named like coaster-COLOR-TYPE-face-1.jpg or "
            "napkin-COLOR-back-1.jpg"
        )
    return found


def sides_to_photograph(catalogue: Catalogue) -> list[SideKey]:
    """Every side a set needs: each coaster face, one back per colour and coaster shape,
    napkin face and back per colour."""
    sides = []
    for color in catalogue.color_names:
        seen_shapes: list[Shape] = []
        for t in catalogue.coaster_types:
            sides.append(SideKey("coaster", color, t.type, "face"))
            if t.shape not in seen_shapes:
                seen_shapes.append(t.shape)
                sides.append(SideKey("coaster", color, t.type, "back"))
        sides += [SideKey("napkin", color, None, "face"), SideKey("napkin", color, None, "back")]
    return sides


@dataclass
class ShapeRow:
    """The shape of one coaster type or of the napkin (``item`` = 'napkin'); edit and confirm.

    ``kind``: 'circle' or 'rounded_square'; ``size_mm``: diameter or side; ``corner_radius_mm``
    for rounded squares. ``roundness``: what the photo showed (area over ellipse area, ~1.0 for
    a circle), for information.
    """

    item: str
    kind: str
    size_mm: float
    corner_radius_mm: float = 0.0
    roundness: float | None = None

    def shape(self) -> Shape:
        if self.kind not in ("circle", "rounded_square"):
            raise CalibrationError(f"{self.item}: shape must be circle or rounded_square")
        if self.size_mm <= 0 or not 0 <= self.corner_radius_mm < self.size_mm / 2:
            raise CalibrationError(f"{self.item}: size and corner radius are not plausible")
        if self.kind == "circle":
            return Shape("circle", float(self.size_mm))
        return Shape("rounded_square", float(self.size_mm), float(self.corner_radius_mm))


#: A rounded square fills less of its fitted ellipse than a circle: below this, a square.
_SQUARE_ROUNDNESS = 0.97


def propose_shapes(
    photos: dict[SideKey, list[Path]], reference: Catalogue | None = None
) -> list[ShapeRow]:
    """One row per coaster type (and the napkin), the shape kind read from a face photo and
    sizes from ``reference`` (default: the bundled set): same-named type, else same kind."""
    reference = reference or load_catalogue()
    rows: dict[str, ShapeRow] = {}
    for side, paths in sorted(photos.items(), key=lambda kv: (kv[0].face != "face", kv[0].label)):
        if side.item in rows:
            continue
        item = find_item(load_photo(paths[0]).image_bgr)
        roundness = item.roundness
        kind = "rounded_square" if roundness < _SQUARE_ROUNDNESS else "circle"
        rows[side.item] = _reference_row(side.item, kind, roundness, reference)
    return [rows[k] for k in sorted(rows, key=lambda k: (k == NAPKIN, k))]


def _reference_row(item: str, kind: str, roundness: float, reference: Catalogue) -> ShapeRow:
    if item == NAPKIN:
        s = reference.napkin.shape
        return ShapeRow(item, s.kind, s.size_mm, s.corner_radius_mm, roundness)
    shapes = [t.shape for t in reference.coaster_types if t.type == item]
    shapes += [t.shape for t in reference.coaster_types if t.shape.kind == kind]
    s = shapes[0] if shapes else Shape(kind, 85.0, 6.0 if kind == "rounded_square" else 0.0)
    if s.kind != kind:
        s = next((t.shape for t in reference.coaster_types if t.shape.kind == kind), s)
    return ShapeRow(item, kind, s.size_mm, s.corner_radius_mm, roundness)


@dataclass(frozen=True)
class RectifiedSide:
    """One side's art, built from its photos.

    ``art_bgra``: (N, N, 4) uint8 at 10 px/mm in the frame shared by all colours of the side;
    ``photos``: each photo with its photo px -> side mm homography (same frame);
    ``agreement_mm``: median distance (mm) between matched features of the art and the other
    photos' rectified views (0 for one photo): how well the photos agree on the view;
    ``skipped``: names of photos in which the item could not be found or fitted.
    """

    side: SideKey
    shape: Shape
    art_bgra: np.ndarray = field(repr=False)
    photos: tuple[RectifiedPhoto, ...] = field(repr=False)
    agreement_mm: float
    skipped: tuple[str, ...] = ()


def rectify_side(side: SideKey, paths: list[Path], shape: Shape) -> RectifiedSide:
    """The art of one side from its photos: all usable photos fix the view together and agree
    on the outline (:func:`agree_on_outline`); the art is blended from all of them
    (:func:`vision.calibration.fuse.fuse_views`: each pixel from the photos least shaded
    there), laid onto the one that shows the item largest (most pixels per mm) among those
    whose own outline was kept. Photos in which the item cannot be found or fitted are skipped
    (listed in ``skipped``) while one remains."""
    images, skipped, reasons = [], [], []
    for path in paths:
        image = load_photo(path).image_bgr
        try:
            item = find_item(image)
            if shape.kind == "rounded_square":
                square_homography(item.contour_px, shape)
        except CalibrationPhotoError as exc:
            skipped.append(path.name)
            reasons.append(f"{path.name}: {exc}")
            continue
        images.append(image)
    if not images:
        raise CalibrationError(f"{side.label}: no usable photo ({'; '.join(reasons)})")
    try:
        rectified = agree_on_outline(rectify_photos(images, shape), shape.size_mm)
    except CalibrationPhotoError as exc:
        raise CalibrationError(f"{side.label}: {exc}") from exc
    sharpest = max(
        range(len(rectified)),
        key=lambda k: (rectified[k].own_outline, int(rectified[k].item.mask.sum())),
    )
    alpha = shape_alpha(shape)
    views = [warp_to_art(r.image_bgr, r.photo_to_mm, shape.size_mm) for r in rectified]
    art = fuse_views(views, sharpest, shape)
    agreement = 0.0
    if len(rectified) > 1:
        residuals = []
        for k, view in enumerate(views):
            if k == sharpest:
                continue
            r = register(view, art, shape.size_mm, ART_PX_PER_MM)
            residuals.append(r.residual_mm if r is not None else np.inf)
        agreement = float(np.median(residuals))
    bgra = np.dstack([art, alpha])
    return RectifiedSide(
        side, shape, flatten_outside(bgra), tuple(rectified), agreement, tuple(skipped)
    )


def turn_side(side: RectifiedSide, angle_rad: float) -> RectifiedSide:
    """The same side with its frame turned by ``angle_rad`` about the centre (art and photos)."""
    turn = rotation_about_centre(angle_rad)
    n = side.art_bgra.shape[0]
    size = side.shape.size_mm
    to_px = np.array(
        [
            [ART_PX_PER_MM, 0, size / 2 * ART_PX_PER_MM - 0.5],
            [0, ART_PX_PER_MM, size / 2 * ART_PX_PER_MM - 0.5],
            [0, 0, 1],
        ]
    )
    m = (to_px @ turn @ np.linalg.inv(to_px))[:2]
    art = cv2.warpAffine(
        side.art_bgra, m, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    art[:, :, 3] = side.art_bgra[:, :, 3]
    photos = tuple(dataclasses.replace(p, photo_to_mm=turn @ p.photo_to_mm) for p in side.photos)
    return RectifiedSide(
        side.side, side.shape, flatten_outside(art), photos, side.agreement_mm, side.skipped
    )


def side_group(side: SideKey, shape: Shape) -> tuple:
    """Sides that must share one frame across colours: a coaster face per type, a coaster back
    per shape, the napkin face, the napkin back."""
    if side.kind == "coaster" and side.face == "face":
        return ("coaster-face", side.type_name)
    return (side.kind, side.face, shape)


def rectify_sides(
    photos: dict[SideKey, list[Path]],
    shapes: list[ShapeRow],
    colors: list[str] | None = None,
    progress: bool = False,
) -> dict[SideKey, RectifiedSide]:
    """Rectify every side; its photo's light falling off across it is divided out
    (:func:`flatten_light`); all colours of a side are turned onto the first colour's frame and
    lit alike: the colours' arts are first white-balanced onto each other by their brightest
    print (:func:`balance_white`, which undoes a strong colour cast of one photo), then each
    gets the gains that match its neutral print to the colours' consensus (per-pixel median),
    so one photo's glare or cast does not set everyone's light.

    ``colors``: colour order (default: sorted names); the first colour is the reference.
    """
    by_item = {row.item: row.shape() for row in shapes}
    missing = sorted({s.item for s in photos} - set(by_item))
    if missing:
        raise CalibrationError(f"no shape row for: {', '.join(missing)}")
    order = colors or sorted({s.color for s in photos})
    rank = {c: k for k, c in enumerate(order)}
    sides = sorted(photos, key=lambda s: (rank.get(s.color, len(rank)), s.label))
    result: dict[SideKey, RectifiedSide] = {}
    groups: dict[tuple, list[SideKey]] = {}
    for n, side in enumerate(sides):
        if progress:
            print(f"[{n + 1}/{len(sides)}] {side.label}", flush=True)
        shape = by_item[side.item]
        rectified = rectify_side(side, photos[side], shape)
        rectified = dataclasses.replace(rectified, art_bgra=flatten_light(rectified.art_bgra))
        members = groups.setdefault(side_group(side, shape), [])
        if members:
            rectified = turn_side(rectified, _turn_onto(rectified, result[members[0]]))
        members.append(side)
        result[side] = rectified
    for members in groups.values():
        if len(members) < 2:
            continue
        balanced = balance_white([result[k].art_bgra for k in members])
        for k, art in zip(members, balanced, strict=True):
            result[k] = dataclasses.replace(result[k], art_bgra=art)
        consensus = np.median(np.stack([result[k].art_bgra for k in members]), axis=0)
        consensus = consensus.astype(np.uint8)
        for k in members:
            lit = match_light(result[k].art_bgra, consensus)
            result[k] = dataclasses.replace(result[k], art_bgra=lit)
    return result


#: Pixels of a side's art taken as its cream print, for :func:`flatten_light`: unsaturated, and
#: at least this share of the side's brightest print (:data:`_WHITE_PERCENTILE`).
_CREAM_SHARE = 0.75
#: Fewest cream pixels :func:`flatten_light` fits the light's fall-off on.
_MIN_CREAM_PIXELS = 2000


def _well_inside(art_bgra: np.ndarray) -> np.ndarray:
    """(H, W) bool: the art's opaque pixels at least 7 px (0.7 mm) from its edge."""
    opaque = (art_bgra[:, :, 3] > 250).astype(np.uint8)
    return cv2.erode(opaque, np.ones((15, 15), np.uint8)) > 0


def flatten_light(art_bgra: np.ndarray) -> np.ndarray:
    """``art_bgra`` (BGRA uint8, art px) with the light's smooth fall-off across it divided out.

    A photo's light is rarely even over a coaster: it falls off towards one side, or a soft
    shadow darkens a corner, and the rectified art keeps that shading. The scorer lights each
    item's art with one gain per channel, so baked-in shading looks, in every table photo, like
    something lying on the darker part (the icon pixel check then reports a cover). The cream
    print is the same cream all over the side: a quadratic surface in (x, y) fitted to the log
    brightness of its pixels is the fall-off, divided out so that the art keeps its mean
    brightness. Arts with too little cream are returned as they are.
    """
    inside = _well_inside(art_bgra)
    if inside.sum() < _MIN_CREAM_PIXELS:
        return art_bgra
    art = art_bgra[:, :, :3].astype(np.float32)
    brightness = art.max(axis=2)
    saturation = cv2.cvtColor(art_bgra[:, :, :3], cv2.COLOR_BGR2HSV)[:, :, 1]
    white = np.percentile(brightness[inside], _WHITE_PERCENTILE)
    cream = inside & (saturation < _NEUTRAL_SATURATION) & (brightness >= _CREAM_SHARE * white)
    ys, xs = np.nonzero(cream)
    if len(xs) < _MIN_CREAM_PIXELS:
        return art_bgra
    step = max(1, len(xs) // 20000)
    n = art_bgra.shape[0]

    def terms(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u, v = x / n - 0.5, y / n - 0.5
        return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)

    coeffs, *_ = np.linalg.lstsq(
        terms(xs[::step].astype(float), ys[::step].astype(float)),
        np.log(brightness[ys[::step], xs[::step]]),
        rcond=None,
    )
    gy, gx = np.mgrid[0:n, 0 : art_bgra.shape[1]].astype(np.float32)
    log_field = terms(gx, gy) @ coeffs.astype(np.float32)
    log_field -= log_field[inside].mean()
    out = art_bgra.copy()
    out[:, :, :3] = np.clip(art / np.exp(log_field)[:, :, None], 0, 255).astype(np.uint8)
    return flatten_outside(out)


#: Percentile (per channel, of a side's inside pixels) taken as its brightest print: the cream
#: and white that every colour prints alike cover more than the remaining share of any side.
_WHITE_PERCENTILE = 95.0


def balance_white(arts_bgra: list[np.ndarray]) -> list[np.ndarray]:
    """The arts (BGRA uint8, one side in several colours, same frame) with per-channel gains
    that give each the same brightest print (the colours' median of their
    :data:`_WHITE_PERCENTILE` percentiles): a first, cast-proof step before :func:`match_light`.

    A photo under warm or green light tints the cream print so much that it no longer looks
    unsaturated, and the neutral print :func:`match_light` measures its gains on goes missing
    (a teal coaster under tungsten light stays green); the brightest print is cream whatever
    the player colour, so scaling it alike removes most of such a cast.
    """
    whites = []
    for art in arts_bgra:
        inside = art[:, :, 3] > 250
        if inside.sum() < 200:
            whites.append(None)
            continue
        pixels = art[:, :, :3][inside].astype(np.float32)
        whites.append(np.maximum(np.percentile(pixels, _WHITE_PERCENTILE, axis=0), 1.0))
    known = [w for w in whites if w is not None]
    if not known:
        return list(arts_bgra)
    target = np.median(np.stack(known), axis=0)
    balanced = []
    for art, white in zip(arts_bgra, whites, strict=True):
        if white is None:
            balanced.append(art)
            continue
        out = art.copy()
        gains = np.clip(target / white, 0.3, 3.0)
        out[:, :, :3] = np.clip(art[:, :, :3].astype(np.float32) * gains, 0, 255).astype(np.uint8)
        balanced.append(flatten_outside(out))
    return balanced


#: Pixels printed alike in every colour (cream, paper, black) have at most this HSV saturation.
_NEUTRAL_SATURATION = 60
#: After the first fit, a pixel is printed alike when it differs by less than this (levels).
_ALIKE_LEVELS = 25.0


def match_light(art_bgra: np.ndarray, reference_bgra: np.ndarray) -> np.ndarray:
    """``art_bgra`` with per-channel gains that make its neutral print (cream, paper, black,
    icon drawings: the same in every colour) match ``reference_bgra``'s, same side and frame
    (the reference: another colour's art, or the colours' per-pixel median).

    The scorer measures a photo's light on the pixels all colours print alike, so the art of
    all colours of a side must show them alike; photos of different colours are taken under
    different light. Gains: median ratio on unsaturated pixels, refined by least squares on
    the pixels that then agree; then a smooth brightness factor per pixel (:func:`_shading`)
    removes what one photo's shadows or glare left on its neutral print.
    """
    inside = _well_inside(art_bgra)
    art = art_bgra[:, :, :3].astype(np.float32)
    ref = reference_bgra[:, :, :3].astype(np.float32)
    sat_art = cv2.cvtColor(art_bgra[:, :, :3], cv2.COLOR_BGR2HSV)[:, :, 1]
    sat_ref = cv2.cvtColor(reference_bgra[:, :, :3], cv2.COLOR_BGR2HSV)[:, :, 1]
    neutral = inside & (sat_art < _NEUTRAL_SATURATION) & (sat_ref < _NEUTRAL_SATURATION)
    bright = neutral & (art.min(axis=2) > 60)
    if bright.sum() < 200:
        return art_bgra
    gains = np.median(ref[bright] / art[bright], axis=0)
    alike = inside & (np.abs(art * gains - ref).max(axis=2) < _ALIKE_LEVELS)
    if alike.sum() >= 200:
        a, r = art[alike], ref[alike]
        gains = (a * r).sum(axis=0) / np.maximum((a * a).sum(axis=0), 1e-6)
    lit = art * np.clip(gains, 0.3, 3.0)
    lit *= _shading(lit, ref, bright)[:, :, None]
    out = art_bgra.copy()
    out[:, :, :3] = np.clip(lit, 0, 255).astype(np.uint8)
    return flatten_outside(out)


#: Reach (mm, Gaussian sigma) of one neutral pixel's say in :func:`_shading`.
_SHADING_SIGMA_MM = 3.0
#: Weight (share of a full neighbourhood of neutral pixels) below which the shading is left at 1.
_SHADING_MIN_SUPPORT = 0.005


def _shading(lit: np.ndarray, ref: np.ndarray, neutral: np.ndarray) -> np.ndarray:
    """(H, W) brightness factors that make ``lit``'s neutral print as bright as ``ref``'s
    everywhere: a shadow or a glare spot of one photo, local where one gain per channel is not.

    The ratio of the references' brightness to the art's on the ``neutral`` pixels is spread to
    their surroundings by normalised convolution (:data:`_SHADING_SIGMA_MM`); far from any
    neutral pixel it fades to 1.
    """
    ratio = ref.mean(axis=2) / np.maximum(lit.mean(axis=2), 1.0)
    weight = neutral.astype(np.float32)
    sigma = _SHADING_SIGMA_MM * ART_PX_PER_MM
    support = cv2.GaussianBlur(weight, (0, 0), sigma)
    spread = cv2.GaussianBlur(np.clip(ratio, 0.4, 2.5) * weight, (0, 0), sigma)
    floor = _SHADING_MIN_SUPPORT
    return ((spread + floor) / (support + floor)).astype(np.float32)


def _turn_onto(side: RectifiedSide, reference: RectifiedSide) -> float:
    """The turn (radians) laying ``side``'s art onto ``reference``'s (same side, other colour):
    quarter turns for squares, SIFT features on the ink channel for circles."""
    view, ref = _small(side.art_bgra), _small(reference.art_bgra)
    if side.shape.kind == "rounded_square":
        return quarter_turn(view, ref)
    r = register(view, ref, side.shape.size_mm, _REGISTER_PX_PER_MM)
    if r is None:
        raise CalibrationError(
            f"{side.side.label}: cannot turn it onto {reference.side.label} "
            "(too few common features)"
        )
    return r.angle_rad


def _small(art_bgra: np.ndarray) -> np.ndarray:
    n = round(art_bgra.shape[0] * _REGISTER_PX_PER_MM / ART_PX_PER_MM)
    return cv2.resize(art_bgra[:, :, :3], (n, n), interpolation=cv2.INTER_AREA)


@dataclass
class IconRow:
    """One proposed icon of a coaster type; edit ``kind`` ('pretzel' or 'beer'), ``value``
    (dollars, pretzels only), ``icon_id`` and ``keep``. ``width_mm``/``height_mm``: the size of
    the outline's box, for information; ``outline_mm``: (N, 2) side-local mm."""

    coaster_type: str
    icon_id: str
    kind: str
    value: int | None
    width_mm: float
    height_mm: float
    keep: bool = True
    outline_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)), repr=False)


def propose_icons(
    sides: dict[SideKey, RectifiedSide], reference: Catalogue | None = None
) -> list[IconRow]:
    """Icon outlines per coaster type, found on the reference colour's face, with kind and
    value guessed from the closest icon size of ``reference`` (default: the bundled set)."""
    reference = reference or load_catalogue()
    known = [
        (icon.kind.value, icon.value, _box(np.asarray(icon.outline_mm.exterior.coords)))
        for t in reference.coaster_types
        for icon in t.icons
    ]
    rows: list[IconRow] = []
    faces: dict[str, RectifiedSide] = {}
    for key, side in sides.items():
        if key.kind == "coaster" and key.face == "face" and key.type_name not in faces:
            faces[key.type_name] = side
    for type_name in sorted(faces):
        side = faces[type_name]
        proposals = propose_icon_outlines(side.art_bgra[:, :, :3], side.shape)
        counts: dict[str, int] = {}
        for icon in sorted(proposals, key=lambda p: (p.centre_mm[1], p.centre_mm[0])):
            kind, value = _closest_kind(icon, known)
            counts[kind] = counts.get(kind, 0) + 1
            icon_id = "beer" if kind == "beer" and counts[kind] == 1 else f"{kind[0]}{counts[kind]}"
            w, h = icon.size_mm
            rows.append(
                IconRow(
                    type_name,
                    icon_id,
                    kind,
                    value,
                    round(w, 1),
                    round(h, 1),
                    outline_mm=icon.outline_mm,
                )
            )
    return rows


def _box(points: np.ndarray) -> np.ndarray:
    return points.max(axis=0) - points.min(axis=0)


def _closest_kind(icon: ProposedIcon, known: list) -> tuple[str, int | None]:
    """Kind and value of the reference icon whose (sorted) box size is nearest."""
    size = np.sort(np.array(icon.size_mm))
    if not known:
        return ("pretzel", 1)
    kind, value, _ = min(known, key=lambda k: float(np.linalg.norm(np.sort(k[2]) - size)))
    return kind, value


def rows_table(rows: Iterable[object]) -> str:
    """A plain-text table of dataclass rows (ShapeRow, IconRow) without array fields."""
    rows = list(rows)
    if not rows:
        return "(no rows)"
    names = [n for n, v in vars(rows[0]).items() if not isinstance(v, np.ndarray)]
    cells = [[str(getattr(r, n)) for n in names] for r in rows]
    widths = [max(len(n), *(len(c[k]) for c in cells)) for k, n in enumerate(names)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)) for cell in cells]
    return "\n".join(lines)


def measured_rgb(sides: dict[SideKey, RectifiedSide], color: str) -> tuple[int, int, int]:
    """The player colour as photographed: median of the saturated face pixels of ``color``."""
    pixels = []
    for key, side in sides.items():
        if key.color == color and key.kind == "coaster" and key.face == "face":
            art = side.art_bgra
            hsv = cv2.cvtColor(art[:, :, :3], cv2.COLOR_BGR2HSV)
            ok = (art[:, :, 3] > 250) & (hsv[:, :, 1] > 90) & (hsv[:, :, 2] > 50)
            if ok.sum() < 500:
                ok = (art[:, :, 3] > 250) & (hsv[:, :, 2] > 50)
            pixels.append(art[:, :, :3][ok])
    if not pixels:
        raise CalibrationError(f"no coaster face photographed in colour {color!r}")
    b, g, r = (int(v) for v in np.rint(np.median(np.concatenate(pixels), axis=0)))
    return (r, g, b)


def write_catalogue(
    out_dir: str | Path,
    sides: dict[SideKey, RectifiedSide],
    shapes: list[ShapeRow],
    icons: list[IconRow],
    *,
    name: str = "my-set",
    colors: list[str] | None = None,
    base: Catalogue | None = None,
) -> Path:
    """Write ``components.json`` + ``art/`` into ``out_dir`` and check it loads; returns it.

    ``colors``: order of the player colours (default: sorted; the first is the scorer's
    template colour). ``base`` (default: the bundled set) gives what photos cannot: coaster and
    napkin thickness and the string. Raises :class:`CalibrationError` naming what is missing.
    """
    base = base or load_catalogue()
    by_item = {row.item: row.shape() for row in shapes}
    colors = colors or sorted({s.color for s in sides})
    types = sorted({s.type_name for s in sides if s.kind == "coaster" and s.type_name})
    kept = [row for row in icons if row.keep]
    _check_icons(kept, types)
    art_of = _art_of(sides, by_item, colors, types)
    out = Path(out_dir)
    (out / "art").mkdir(parents=True, exist_ok=True)
    patterns = {
        "coaster_face": "art/coaster-{color}-{type}-face.png",
        "coaster_back": "art/coaster-{color}-{type}-back.png",
        "napkin_face": "art/napkin-{color}-face.png",
        "napkin_back": "art/napkin-{color}-back.png",
    }
    for (pattern, color, type_name), art in art_of.items():
        path = out / patterns[pattern].format(color=color, type=type_name or "")
        if not cv2.imwrite(str(path), art, [cv2.IMWRITE_PNG_COMPRESSION, 3]):
            raise CalibrationError(f"cannot write {path}")
    napkin = by_item.get(NAPKIN, base.napkin.shape)
    doc = {
        "name": name,
        "version": 1,
        "units": "mm",
        "art_px_per_mm": ART_PX_PER_MM,
        "colors": [{"name": c, "rgb": list(measured_rgb(sides, c))} for c in colors],
        "coaster_thickness": base.coaster_thickness_mm,
        "coaster_types": [
            {
                "type": t,
                "shape": _shape_json(by_item[t]),
                "icons": [
                    {
                        "id": row.icon_id,
                        "kind": row.kind,
                        "value": row.value if row.kind == "pretzel" else None,
                        "outline": np.round(row.outline_mm, 2).tolist(),
                    }
                    for row in kept
                    if row.coaster_type == t
                ],
            }
            for t in types
        ],
        "napkin": {"shape": _shape_json(napkin), "thickness": base.napkin.thickness_mm},
        "string": {
            "rgb": list(base.string.rgb),
            "thickness": base.string.thickness_mm,
            "length": base.string.length_mm,
        },
        "art": patterns,
    }
    (out / "components.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return load_catalogue(out).root


def _shape_json(shape: Shape) -> dict:
    if shape.kind == "circle":
        return {"kind": "circle", "diameter": shape.size_mm}
    return {
        "kind": "rounded_square",
        "size": shape.size_mm,
        "corner_radius": shape.corner_radius_mm,
    }


def _check_icons(rows: list[IconRow], types: list[str]) -> None:
    for t in types:
        mine = [r for r in rows if r.coaster_type == t]
        if not mine:
            raise CalibrationError(f"coaster type {t!r} has no icon: confirm at least one")
        ids = [r.icon_id for r in mine]
        if len(set(ids)) != len(ids):
            raise CalibrationError(f"coaster type {t!r}: icon ids must differ, got {ids}")
    for r in rows:
        if r.kind not in ("pretzel", "beer"):
            raise CalibrationError(f"{r.coaster_type}/{r.icon_id}: kind must be pretzel or beer")
        if r.kind == "pretzel" and not (isinstance(r.value, int) and r.value > 0):
            raise CalibrationError(f"{r.coaster_type}/{r.icon_id}: a pretzel needs a value > 0")
        if len(r.outline_mm) < 128:
            raise CalibrationError(f"{r.coaster_type}/{r.icon_id}: outline has < 128 vertices")


def _art_of(sides, by_item, colors, types) -> dict[tuple[str, str, str | None], np.ndarray]:
    """Every art PNG the catalogue needs, keyed (pattern, colour, type)."""
    art: dict[tuple[str, str, str | None], np.ndarray] = {}
    missing = []
    for color in colors:
        backs = {
            by_item[k.item]: s.art_bgra
            for k, s in sides.items()
            if k.color == color and k.kind == "coaster" and k.face == "back"
        }
        for t in types:
            face = sides.get(SideKey("coaster", color, t, "face"))
            if face is None:
                missing.append(f"coaster-{color}-{t}-face")
            else:
                art[("coaster_face", color, t)] = face.art_bgra
            back = backs.get(by_item[t])
            if back is None:
                missing.append(f"coaster-{color}-{t}-back (or any {by_item[t].kind} back)")
            else:
                art[("coaster_back", color, t)] = back
        for face in ("face", "back"):
            napkin = sides.get(SideKey("napkin", color, None, face))
            if napkin is None:
                missing.append(f"napkin-{color}-{face}")
            else:
                art[(f"napkin_{face}", color, None)] = napkin.art_bgra
    if missing:
        raise CalibrationError("photos missing for: " + ", ".join(missing))
    return art


def before_after(side: RectifiedSide, icons: list[IconRow] | None = None, height_px: int = 360):
    """One RGB picture: each photo with the fitted item outline (cyan), then the rectified art
    with the icon outlines of its type (magenta)."""
    shape = side.shape
    outline = np.asarray(shape.polygon_mm.exterior.coords)
    tiles = []
    for photo in side.photos:
        image = photo.image_bgr.copy()
        px = mm_outline_in_photo(photo.photo_to_mm, outline)
        width = max(2, round(image.shape[0] / 300))
        cv2.polylines(image, [np.round(px).astype(np.int32)], True, (255, 255, 0), width)
        tiles.append(image)
    art = side.art_bgra[:, :, :3].copy()
    for row in icons or []:
        if row.coaster_type == side.side.type_name and side.side.face == "face" and row.keep:
            pts = mm_to_art_px(row.outline_mm, shape.size_mm)
            cv2.polylines(art, [np.round(pts).astype(np.int32)], True, (255, 0, 255), 3)
    tiles.append(art)
    scaled = [
        cv2.resize(
            t, (round(t.shape[1] * height_px / t.shape[0]), height_px), interpolation=cv2.INTER_AREA
        )
        for t in tiles
    ]
    return cv2.cvtColor(np.hstack(scaled), cv2.COLOR_BGR2RGB)
