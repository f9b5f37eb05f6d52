"""The pixel check of icon visibility: things over icons that no item found explains.

Geometry decides which icons the items found cover. What it cannot know is what was not found:
a glass, a hand, a pretzel stick, a coin, or a game item the detection missed. So every icon
that the found items leave visible is compared with the photo: the coaster's art, rendered at
its pose as the camera saw it (:func:`vision.identify.as_seen`: its light and haze, clipped
to the photo's levels, as out of focus as its pixels show), should explain the icon's pixels,
within a pixel of the pose, or of the icon's own best placement when the coaster lies tilted
or lifted on a stack.
A blob of pixels that it does not explain (well above the item's own error level, larger than
noise; with the weaker disagreement it reaches) is something lying over the icon, unless the
art's print still shows through it (a shadow's edge or a lamp's glare darkens or pales the
print but does not hide it). Its outline runs where it hides half the art, as a blurred edge
is halfway across, around its pixels; it goes into the scene as a foreign object
(``Scene.foreign_mm``), which the scoring core treats as covering.

Pixels near the outline of another item lying above the coaster, or of a face-down coaster
(which covers nothing by the rules), are left to the geometry.

Frames: canvas px of the final rectified view (:class:`vision.detect.CanvasView`); outlines
returned in table mm.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from shapely.geometry import LineString

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from vision.detect import CanvasView
from vision.identify import FOCUS_BLUR_MM, IdentifiedItem, as_seen
from vision.occlusion import outlines_mask
from vision.plane import TablePlane

#: A pixel disagrees with the art when its error (summed BGR levels, after the item's light)
#: exceeds this many times the item's median error, and at least :data:`MIN_MISMATCH_LEVELS`.
MISMATCH_FACTOR = 3.0
MIN_MISMATCH_LEVELS = 90.0
#: A blob of such pixels takes in the pixels it reaches that disagree by this share of that
#: error or more (hysteresis): a stick or a crumb over an icon's print of its own colour
#: disagrees less there than over the coaster's ground, and its blob would stop at the icon's
#: edge (validation set: icons wrongly left visible 13 -> 7, wrongly covered 14 -> 16).
HYSTERESIS_SHARE = 0.5
#: A cover's outline runs where it hides at least this share of the art: where the photo lies
#: that share of the way from the lit art to the cover's own colour (:func:`_half_hidden`), as
#: a blurred edge is halfway across. The lens's blur and the comparison's spread a cover's
#: disagreement a photo pixel or more beyond its edge, and the hysteresis follows it there
#: (validation 150-229: the outlines of the covers found over true foreign objects lay a median
#: 1.5 mm outside them, 0.8 mm when trimmed at half).
COVERED_SHARE = 0.5
#: The cover's own colour is the photo's median over the blob's pixels that disagree most with
#: the art, from this percentile of their error up: a small cover, blurred, is seen pure
#: nowhere, and the median over all its pixels would mix in the art, so that half that colour's
#: share would lie outside the cover's edge.
_COVER_COLOUR_PERCENTILE = 90.0
#: Disagreeing blobs on a coaster smaller than this (mm^2), or than this many pixels of the
#: photo as decoded (working px), are noise, glare specks or JPEG artefacts; larger ones that
#: reach an icon are covers.
MIN_COVER_AREA_MM2 = 8.0
MIN_COVER_PHOTO_PIXELS = 9.0
#: A disagreeing blob through which the art's print still shows is light (a shadow, a glare),
#: not something lying on the coaster: the lit art varies by at least this much over it
#: (standard deviation about each channel's mean, BGR levels) and the photo follows it at
#: least this well (correlation of all levels together, about their mean: the print and the
#: coaster's colours both).
MIN_PRINT_STD_LEVELS = 15.0
MIN_PRINT_CORRELATION = 0.9
#: Where the art is too flat for that, a blob is a shadow when it darkens the art to this
#: share of its brightness or more (a dark object over it takes far more), keeping its colour:
#: chromaticities (each channel's share of the sum) within this distance, or, under the room's
#: fill light, the photo's mean levels the art's scaled (by that share or more) plus one level
#: alike in every channel, within this share of their sum in each channel.
MIN_SHADOW_BRIGHTNESS = 0.35
MAX_SHADOW_CHROMA_SHIFT = 0.04
#: Pixels this close to the outline of an item above, or of a face-down coaster, are left to
#: the geometry (mm).
EDGE_MARGIN_MM = 2.0
#: The art is compared with the photo after a blur of this sigma (mm) and allows this shift (mm):
#: the pose and the lens are known to about a pixel.
_BLUR_MM = 0.6
_SHIFT_MM = 0.8
#: Each icon may take a further shift (mm) of its own to match a coaster lifted on a stack...
_ICON_SHIFT_MM = 2.0
#: ...judged on at least this many of its pixels, and taken where it explains the worst of them
#: clearly better: this percentile of their error at most this share of it in place (the
#: art's edges a pixel off are the worst pixels of an icon in place).
_MIN_ICON_PIXELS = 20
_ICON_ERROR_PERCENTILE = 90.0
_ICON_SHIFT_GAIN = 0.85
#: The icon's placement is searched in steps of this (mm, at least a pixel), on at most this
#: many of its pixels.
_ICON_STEP_MM = 0.5
_MAX_ICON_SAMPLES = 2048
#: The art's focus is told on at most this many of the coaster's judged pixels.
_MAX_FOCUS_SAMPLES = 4096


@dataclass(frozen=True)
class IconCover:
    """Something lying on item ``item_index`` that reaches its icons ``icon_ids``: the outline
    (N, 2, table mm) and area (mm^2) of the part of it seen over the coaster. Whether it covers
    an icon, or only comes near, is the scoring core's decision on the outlines."""

    item_index: int
    icon_ids: tuple[str, ...]
    outline_mm: np.ndarray
    area_mm2: float


def find_icon_covers(
    view: CanvasView,
    catalogue: Catalogue,
    items: list[IdentifiedItem],
    z: list[int],
    plane: TablePlane | None = None,
) -> list[IconCover]:
    """Covers of the icons of every face-up coaster in ``items`` (stacking ranks ``z``).

    ``plane`` (table mm -> working px) tells how many pixels of the photo as decoded each
    coaster spans; None: the photo is as fine as the view."""
    covers = []
    for k, item in enumerate(items):
        if item.side.kind is not ItemKind.COASTER or item.side.face is not Face.UP:
            continue
        others = [
            other
            for j, other in enumerate(items)
            if j != k and (z[j] > z[k] or other.side.face is Face.DOWN)
        ]
        photo_px_per_mm = (
            view.px_per_mm if plane is None else plane.scale_px_per_mm(item.pose.center_mm)
        )
        covers += _covers_of(view, catalogue, k, item, others, photo_px_per_mm)
    return covers


def _covers_of(
    view: CanvasView,
    catalogue: Catalogue,
    index: int,
    item: IdentifiedItem,
    others: list[IdentifiedItem],
    photo_px_per_mm: float,
) -> list[IconCover]:
    x0, y0, x1, y1 = item.rendering.box
    if x1 - x0 < 4 or y1 - y0 < 4:
        return []
    ppm = view.px_per_mm
    inside = item.rendering.alpha > 0.99
    left_to_geometry = outlines_mask(view, others, item.rendering.box, EDGE_MARGIN_MM)
    judged = inside & ~left_to_geometry
    if judged.sum() < 50:
        return []
    icons = _icon_masks(view, catalogue, item)
    observed, predicted = _compared(view, item, judged)
    error, threshold = _error_map(view, observed, predicted, judged, icons)
    mismatch = (error > threshold) & judged
    speckless = np.ones((3, 3), np.uint8)
    mismatch = cv2.morphologyEx(mismatch.astype(np.uint8), cv2.MORPH_OPEN, speckless)
    min_area_mm2 = max(MIN_COVER_AREA_MM2, MIN_COVER_PHOTO_PIXELS / photo_px_per_mm**2)
    min_pixels = min_area_mm2 * ppm * ppm
    # each blob with the weaker disagreement around it that it reaches (hysteresis)
    reached = ((error > HYSTERESIS_SHARE * threshold) & judged).astype(np.uint8) | mismatch
    n, labels = cv2.connectedComponents(reached, connectivity=8)
    strong = np.bincount(labels[mismatch > 0], minlength=n)
    covers = []
    for blob in range(1, n):
        if strong[blob] < min_pixels:
            continue
        pixels = labels == blob
        if not any((pixels & mask).any() for mask in icons.values()):
            continue  # nor can any part of it reach an icon
        core = pixels & (mismatch > 0)
        if _light_only(observed[core], predicted[core]):
            continue
        for part in _half_hidden(observed, predicted, pixels, core, min_pixels):
            touched = [icon_id for icon_id, mask in icons.items() if (part & mask).any()]
            if not touched:
                continue
            contours, _ = cv2.findContours(
                part.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
            )
            outline_px = _pixels_outline(max(contours, key=cv2.contourArea).reshape(-1, 2))
            if outline_px is None:
                continue
            outline_mm = view.canvas_to_table(outline_px + np.array([x0, y0]))
            area = float(part.sum()) / (ppm * ppm)
            covers.append(IconCover(index, tuple(touched), outline_mm, area))
    return covers


def _half_hidden(
    observed: np.ndarray,
    predicted: np.ndarray,
    blob: np.ndarray,
    core: np.ndarray,
    min_pixels: float,
) -> list[np.ndarray]:
    """The parts of a disagreeing ``blob`` (box-sized bool) that hide at least
    :data:`COVERED_SHARE` of the art: where the photo ``observed`` lies that share of the way
    from the lit art ``predicted`` (BGR levels, as :func:`_compared`) to the cover's own colour,
    each part with at least ``min_pixels`` of the blob's strongly disagreeing ``core``.

    The cover's colour is the photo's median over the core pixels that disagree most
    (:data:`_COVER_COLOUR_PERCENTILE`). Every pixel is judged against the art under it, so a
    stick keeps its extent over an icon's print as over the coaster's ground."""
    core_error = np.abs(observed[core] - predicted[core]).sum(axis=1)
    most = core_error >= np.percentile(core_error, _COVER_COLOUR_PERCENTILE)
    cover_bgr = np.median(observed[core][most], axis=0)
    art = predicted[blob]
    towards_cover = cover_bgr - art
    share = ((observed[blob] - art) * towards_cover).sum(axis=1) / np.maximum(
        (towards_cover**2).sum(axis=1), 1e-6
    )
    hidden = np.zeros(blob.shape, np.uint8)
    hidden[blob] = share >= COVERED_SHARE
    n, labels = cv2.connectedComponents(hidden, connectivity=8)
    strong = np.bincount(labels[core & (hidden > 0)], minlength=n)
    return [labels == part for part in range(1, n) if strong[part] >= min_pixels]


def _pixels_outline(contour_px: np.ndarray) -> np.ndarray | None:
    """The outline (N, 2, box px) of the blob whose boundary pixels' centres ``contour_px``
    (N, 2) traces (:func:`cv2.findContours`): half a pixel out from those centres, each pixel
    being a unit square. A blob that reaches a pixel of an icon then overlaps the icon's
    outline; its traced centres alone stop half a pixel short of it. None for a single pixel."""
    if len(contour_px) < 2:
        return None
    ring = LineString(np.vstack([contour_px, contour_px[:1]]).astype(np.float64))
    grown = ring.buffer(0.5, join_style="mitre", cap_style="square")
    exterior = grown.geoms[0].exterior if grown.geom_type == "MultiPolygon" else grown.exterior
    return np.asarray(exterior.coords)[:-1]


def _icon_masks(
    view: CanvasView, catalogue: Catalogue, item: IdentifiedItem
) -> dict[str, np.ndarray]:
    """Per icon id, a box-sized bool mask of the icon's outline, grown by a pixel."""
    x0, y0, x1, y1 = item.rendering.box
    masks = {}
    for icon in catalogue.coaster_type(item.side.type_name or "").icons:
        outline_local = np.asarray(icon.outline_mm.exterior.coords)[:-1]
        outline_px = view.table_to_canvas(item.pose.local_to_table(outline_local)) - (x0, y0)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round(outline_px).astype(np.int32)], 1)
        masks[icon.id] = cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0
    return masks


def _compared(
    view: CanvasView, item: IdentifiedItem, judged: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The photo over the item's box and its art there as the camera saw it (lit, plus the
    haze, clipped to the photo's levels: :func:`vision.identify.as_seen`), float32 BGR levels,
    both after the light blur of :data:`_BLUR_MM`. The art is blurred as far out of focus
    (one of :data:`vision.identify.FOCUS_BLUR_MM`) as explains the ``judged`` pixels (box-sized
    bool) best: the identification's focus was told on pixels that may lie under other items.
    A sharp art against a coaster seen out of focus disagrees all along the icons' edges, in
    blobs as large as a cover; a blurred art against a sharp coaster disagrees as much.

    "Best" is told by the error the covers are then judged by, which allows the pose's
    :data:`_SHIFT_MM`: told without it, a pose a pixel off favours the most blurred art, whose
    smeared edges disagree less with edges a pixel away than the sharp art in place does. And
    it is told by the mean of that error, not its median: the median is that of the coaster's
    plain ground, which every focus explains about alike, so that the choice turns on a tenth
    of a level; the icons' edges, where the covers are found, are in the mean (validation
    photo 0113: the median chose the sharp art for a coaster far out of focus, 30.9 against
    31.1 levels, and found a 323 mm^2 cover on a visible icon)."""
    sigma = max(0.5, _BLUR_MM * view.px_per_mm)
    seen = [as_seen(view, replace(item, focus_blur_mm=blur_mm)) for blur_mm in FOCUS_BLUR_MM]
    observed = cv2.GaussianBlur(seen[0][0], (0, 0), sigma)
    predictions = [cv2.GaussianBlur(predicted, (0, 0), sigma) for _, predicted in seen]
    shift = max(1, round(_SHIFT_MM * view.px_per_mm))
    samples = _spread_samples(judged, _MAX_FOCUS_SAMPLES)
    errors = [_mean_shifted_error(observed, p, samples, shift) for p in predictions]
    return observed, predictions[int(np.argmin(errors))]


def _spread_samples(region: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of at most ``most`` of the ``region`` pixels, evenly spread."""
    ys, xs = np.nonzero(region)
    if len(ys) > most:
        keep = np.linspace(0, len(ys) - 1, most).astype(int)
        ys, xs = ys[keep], xs[keep]
    return ys, xs


def _mean_shifted_error(
    observed: np.ndarray,
    predicted: np.ndarray,
    samples: tuple[np.ndarray, np.ndarray],
    shift: int,
) -> float:
    """Mean over the ``samples`` pixels (row, column indices) of :func:`_shifted_error` at
    the art's own placement (summed BGR levels)."""
    ys, xs = samples
    if len(ys) == 0:
        return 0.0
    h, w = observed.shape[:2]
    steps = range(-shift, shift + 1)
    dy, dx = np.array([(y, x) for y in steps for x in steps]).T[:, :, None]
    moved = predicted[(ys - dy) % h, (xs - dx) % w]  # np.roll(predicted, (dy, dx)) there
    return float(np.abs(observed[ys, xs] - moved).sum(axis=2).min(axis=0).mean())


def _light_only(observed: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether a disagreeing blob is light, not something lying on the coaster, given the
    photo's and the lit art's BGR levels over its pixels ((N, 3) each): the art's print shows
    through it (:func:`_print_shows`), or, over art too flat to show a print, it is a shadow
    (:func:`_shadow_on_flat_art`).

    Whether the art is flat is told about each channel's own mean: a coaster's colour alone
    (a yellow's low blue and high red) is no print, and a brown stick over a yellow ground
    keeps that much of it (held-out-reference 0092: told over all levels together, the art
    varied by 76 and the photo followed it at 0.96, so the stick over a beer mug's edge was
    taken for light; about each channel's mean, the art varies by 9 at most)."""
    if _about_channel_means(predicted).std() < MIN_PRINT_STD_LEVELS:
        return _shadow_on_flat_art(observed, predicted)
    return _print_shows(observed, predicted)


def _shadow_on_flat_art(observed: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether the blob darkens the art by a shadow's amount (to :data:`MIN_SHADOW_BRIGHTNESS`
    of its brightness, not below, and not brighter) and keeps its colour, plainly or under the
    room's fill light (:data:`MAX_SHADOW_CHROMA_SHIFT`): an item lying above or a hand casts such
    shadows on the flat ground around a coaster's icons; a stick, a crumb or a coin changes
    the colour or the brightness far more.

    A shadow takes the direct light and leaves the room's (and the lens's haze): the photo is
    the art scaled (by :data:`MIN_SHADOW_BRIGHTNESS` or more: a dark crumb blurred into a blue
    ground fits a scale below zero), plus a level alike in every channel, so a coloured ground
    darkens and pales at once (held-out-reference 0193: a yellow `three`'s ground seen at BGR
    63, 115, 136 against 48, 161, 215 in the light, 0.46 times the art plus 40 levels to
    within 4; a brown stick over a yellow ground is 45 levels off in red)."""
    seen, art = observed.mean(axis=0), predicted.mean(axis=0)
    brightness = float(seen.sum()) / max(float(art.sum()), 1e-6)
    if not MIN_SHADOW_BRIGHTNESS <= brightness < 1.0:
        return False
    return _scaled(seen, art) or _scaled_in_fill_light(seen, art)


def _scaled(seen: np.ndarray, art: np.ndarray) -> bool:
    """Whether mean BGR levels ``seen`` keep the colour of ``art``'s: chromaticities (each
    channel's share of the sum) within :data:`MAX_SHADOW_CHROMA_SHIFT`."""
    shift = np.abs(seen / max(float(seen.sum()), 1e-6) - art / max(float(art.sum()), 1e-6))
    return float(shift.max()) <= MAX_SHADOW_CHROMA_SHIFT


def _scaled_in_fill_light(seen: np.ndarray, art: np.ndarray) -> bool:
    """Whether mean BGR levels ``seen`` are ``art``'s scaled by :data:`MIN_SHADOW_BRIGHTNESS`
    or more, plus a level alike in every channel, to within :data:`MAX_SHADOW_CHROMA_SHIFT`
    of their sum in each channel. Over a gray art, whose channels are near alike, the fit can
    trade the scale for the level: a gray's plain shadow is told by :func:`_scaled`."""
    fit, *_ = np.linalg.lstsq(np.column_stack([art, np.ones(3)]), seen, rcond=None)
    scale, fill = float(fit[0]), float(fit[1])
    off = float(np.abs(seen - (scale * art + fill)).max()) / max(float(seen.sum()), 1e-6)
    return scale >= MIN_SHADOW_BRIGHTNESS and fill >= 0.0 and off <= MAX_SHADOW_CHROMA_SHIFT


def _print_shows(observed: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether the art's print still shows through a disagreeing blob, given the photo's and
    the lit art's BGR levels over its pixels ((N, 3) each), where the art varies
    (:data:`MIN_PRINT_STD_LEVELS`, told by :func:`_light_only`): the photo follows it
    (:data:`MIN_PRINT_CORRELATION`).
    Something lying on an icon hides its print; a shadow or a glare darkens or pales it. A
    glare so bright that it washes the print out is still taken for a cover."""
    art = predicted.ravel() - predicted.mean()
    seen = observed.ravel() - observed.mean()
    correlation = float(seen @ art) / (float(np.linalg.norm(seen) * np.linalg.norm(art)) + 1e-9)
    return correlation >= MIN_PRINT_CORRELATION


def _about_channel_means(levels: np.ndarray) -> np.ndarray:
    """BGR levels ((N, 3)) less each channel's mean over the N pixels."""
    return levels - levels.mean(axis=0)


def _error_map(
    view: CanvasView,
    observed: np.ndarray,
    predicted: np.ndarray,
    judged: np.ndarray,
    icons: dict[str, np.ndarray],
) -> tuple[np.ndarray, float]:
    """Per-pixel error (summed BGR levels) of the item's lit art ``predicted`` against the photo
    ``observed`` over its box (:func:`_compared`), where the photo disagrees with the art at
    every shift up to :data:`_SHIFT_MM`; over each icon (``icons``: box-sized masks) also
    around the icon's own best placement. And the error above which a pixel disagrees:
    :data:`MISMATCH_FACTOR` times the median error of the ``judged`` pixels at the coaster's
    own placement, at least :data:`MIN_MISMATCH_LEVELS`.

    Each icon is matched on its own as well: the art shifted by up to :data:`_ICON_SHIFT_MM`
    to where it explains the worst of the icon's ``judged`` pixels best, when clearly better
    than in place (:data:`_ICON_ERROR_PERCENTILE`, :data:`_ICON_SHIFT_GAIN`). A coaster lying on a
    stack stands a few mm above the table, its pose a little turned, and the icons off its
    centre end up a pixel or two off: thin rings of disagreement along the art's edges, which
    a shift of the whole icon removes, while something lying on the icon stays.
    """
    shift = max(1, round(_SHIFT_MM * view.px_per_mm))
    error = _shifted_error(observed, predicted, (0, 0), shift)
    threshold = max(MIN_MISMATCH_LEVELS, MISMATCH_FACTOR * float(np.median(error[judged])))
    reach = max(shift, round(_ICON_SHIFT_MM * view.px_per_mm))
    step = max(1, round(_ICON_STEP_MM * view.px_per_mm))  # finer is left to ``shift``
    for mask in icons.values():
        region = mask & judged
        if region.sum() < _MIN_ICON_PIXELS:
            continue
        ys, xs = np.nonzero(mask)
        margin = reach + shift  # the crop holds every pixel a shift brings over the icon
        crop = (
            slice(max(0, ys.min() - margin), ys.max() + 1 + margin),
            slice(max(0, xs.min() - margin), xs.max() + 1 + margin),
        )
        placed = _icon_placed(observed[crop], predicted[crop], region[crop], reach, step, shift)
        if placed is not None:
            error[crop] = np.where(mask[crop], placed, error[crop])
    return error, threshold


def _icon_placed(
    observed: np.ndarray,
    predicted: np.ndarray,
    region: np.ndarray,
    reach: int,
    step: int,
    shift: int,
) -> np.ndarray | None:
    """Per-pixel error (as :func:`_shifted_error`) around the shift of ``predicted`` by up to
    ``reach`` px (in ``step`` px) that explains the worst of the ``region`` pixels best (on at
    most :data:`_MAX_ICON_SAMPLES` of them), or None when no shift does clearly better than
    none (:data:`_ICON_ERROR_PERCENTILE`, :data:`_ICON_SHIFT_GAIN`)."""
    h, w = region.shape
    ys, xs = _spread_samples(region, _MAX_ICON_SAMPLES)  # enough for a percentile
    steps = range(-(reach // step) * step, reach + 1, step)
    shifts = [(dy, dx) for dy in steps for dx in steps]
    dy, dx = np.array(shifts).T[:, :, None]
    moved = predicted[(ys - dy) % h, (xs - dx) % w]  # np.roll(predicted, (dy, dx)) at the region
    errors = np.abs(observed[ys, xs] - moved).sum(axis=2)
    worst = np.percentile(errors, _ICON_ERROR_PERCENTILE, axis=1)
    worst_error = dict(zip(shifts, worst.tolist(), strict=True))
    best = min(worst_error, key=worst_error.__getitem__)
    if worst_error[best] > _ICON_SHIFT_GAIN * worst_error[(0, 0)]:
        return None  # in place already, or under something no shift explains
    return _shifted_error(observed, predicted, best, shift)


def _shifted_error(
    observed: np.ndarray, predicted: np.ndarray, at: tuple[int, int], shift: int
) -> np.ndarray:
    """Per-pixel least error (summed BGR levels) of ``predicted`` shifted by ``at`` (dy, dx px)
    and then by up to ``shift`` px more each way."""
    error = np.full(observed.shape[:2], np.inf, np.float32)
    for dy in range(at[0] - shift, at[0] + shift + 1):
        for dx in range(at[1] - shift, at[1] + shift + 1):
            moved = np.roll(predicted, (dy, dx), axis=(0, 1))
            error = np.minimum(error, np.abs(observed - moved).sum(axis=2))
    return error
