"""Tell each detected item's colour (and napkin face/back, back shape) from its pixels.

Works in a rectified view (:class:`vision.detect.CanvasView`), where an item is its art
rotated and shifted. For each candidate colour the art is rendered at the item's pose and
compared with the observed pixels where the item is surely visible (around its matched
features), after a per-channel gain that absorbs the light's colour and brightness and an
offset alike in every channel that absorbs light added on top (haze, glare, a washed-out
exposure), with the art sharp or blurred as a camera out of focus would show it. The colour
whose art explains the pixels best wins; the same comparison decides a napkin's face from its
back, and a face-down coaster's shape.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary, Side
from vision.detect import CanvasView, SideDetection
from vision.plane import ItemPose

#: Radius around each matched feature taken as surely visible (mm).
VISIBLE_RADIUS_MM = 5.0
#: Blurs (sigma, mm on the table) the art is compared at: an item out of focus shows its thin
#: coloured prints (a napkin's border, a coaster back's rim) mixed with the paper around them,
#: which the sharp art of the palest colour would explain best.
FOCUS_BLUR_MM = (0.0, 0.75, 1.5)


@dataclass(frozen=True)
class Rendering:
    """An item side's art drawn into a canvas box ``(x0, y0, x1, y1)`` (canvas px).

    ``bgr``: (h, w, 3) float32; ``alpha``: (h, w) float32 in [0, 1], the item's shape.
    """

    box: tuple[int, int, int, int]
    bgr: np.ndarray
    alpha: np.ndarray


@dataclass(frozen=True)
class IdentifiedItem:
    """A detected item with its colour and side decided.

    ``gains``: per-channel factors (B, G, R) mapping art colours to observed ones, and
    ``haze``: light added alike to every channel on top (levels): observed ~ gains * art + haze
    on the item's colour-dependent pixels;
    ``color_margin``: how much better the chosen colour explains the pixels than the runner-up
    (relative, 0 = tie); ``points_local_mm``: the matched art features (side-local mm);
    ``color_errors``: how badly each colour of the catalogue (in its order) explains the
    item's colour-dependent pixels (summed BGR levels, median; lower is better);
    ``focus_blur_mm``: the blur (sigma, mm on the table, one of :data:`FOCUS_BLUR_MM`) at
    which its art explained the photo best: how far out of focus the camera saw it.
    """

    side: Side
    color: str
    pose: ItemPose
    rendering: Rendering
    gains: np.ndarray
    haze: float
    color_margin: float
    points_local_mm: np.ndarray
    color_errors: tuple[float, ...] = ()
    focus_blur_mm: float = 0.0


def local_to_canvas_matrix(view: CanvasView, pose: ItemPose) -> np.ndarray:
    """(3, 3) affine map: side-local mm -> canvas px."""
    c, s = np.cos(pose.angle_rad), np.sin(pose.angle_rad)
    p = view.px_per_mm
    cx, cy = view.table_to_canvas(np.array([pose.center_mm]))[0]
    return np.array([[p * c, -p * s, cx], [p * s, p * c, cy], [0.0, 0.0, 1.0]])


def art_to_box_matrix(
    view: CanvasView, side: Side, pose: ItemPose, box: tuple[int, int, int, int]
) -> np.ndarray:
    """(2, 3) affine map: px of the side's art at the view's scale -> px of the canvas ``box``
    (x0, y0, x1, y1) with the side placed at ``pose``."""
    p = view.px_per_mm
    half = side.shape.size_mm / 2
    art_to_local = np.array([[1 / p, 0, 0.5 / p - half], [0, 1 / p, 0.5 / p - half], [0, 0, 1.0]])
    shift = np.array([[1, 0, -box[0]], [0, 1, -box[1]], [0, 0, 1.0]])
    return (shift @ local_to_canvas_matrix(view, pose) @ art_to_local)[:2]


def item_box(view: CanvasView, side: Side, pose: ItemPose) -> tuple[int, int, int, int]:
    """Canvas box around the item (clipped to the canvas), (x0, y0, x1, y1)."""
    h, w = view.image_bgr.shape[:2]
    cx, cy = view.table_to_canvas(np.array([pose.center_mm]))[0]
    r = side.shape.half_extent_mm * view.px_per_mm + 2
    x0, y0 = int(np.clip(np.floor(cx - r), 0, w)), int(np.clip(np.floor(cy - r), 0, h))
    x1, y1 = int(np.clip(np.ceil(cx + r) + 1, 0, w)), int(np.clip(np.ceil(cy + r) + 1, 0, h))
    return x0, y0, x1, y1


def render(
    library: ArtLibrary,
    view: CanvasView,
    side: Side,
    color: str,
    pose: ItemPose,
    box: tuple[int, int, int, int] | None = None,
) -> Rendering:
    """Draw ``side`` in ``color`` at ``pose`` into ``box`` (default: the box around it)."""
    box = box if box is not None else item_box(view, side, pose)
    x0, y0, x1, y1 = box
    art = library.art_rgba(side, color, view.px_per_mm)
    m = art_to_box_matrix(view, side, pose, box)
    size = (max(1, x1 - x0), max(1, y1 - y0))
    bgr = cv2.warpAffine(
        art[:, :, :3].astype(np.float32),
        m,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    alpha = cv2.warpAffine(
        art[:, :, 3].astype(np.float32) / 255, m, size, flags=cv2.INTER_LINEAR, borderValue=0
    )
    return Rendering(box, bgr, alpha)


def as_seen(view: CanvasView, item: IdentifiedItem) -> tuple[np.ndarray, np.ndarray]:
    """The photo over the item's canvas box and the item's art as the camera saw it there:
    ``(observed, predicted)``, (h, w, 3) float32 BGR levels.

    The art is lit as its identification explained it: times the light's gains, blurred as
    far out of focus as the item was seen (``focus_blur_mm``, over the photo's own pixels
    around the item, as a camera mixes them), plus the haze; and clipped to the levels a photo
    holds (0-255): in an overexposed photo a cream print lit brighter than white shows white."""
    x0, y0, x1, y1 = item.rendering.box
    observed = view.image_bgr[y0:y1, x0:x1].astype(np.float32)
    predicted = item.rendering.bgr * item.gains
    if item.focus_blur_mm > 0:
        a = item.rendering.alpha[:, :, None]
        sigma_px = item.focus_blur_mm * view.px_per_mm
        predicted = cv2.GaussianBlur(predicted * a + observed * (1 - a), (0, 0), sigma_px)
    return observed, np.clip(predicted + np.float32(item.haze), 0.0, 255.0)


def visible_mask(view: CanvasView, box: tuple, pose: ItemPose, points_local_mm: np.ndarray):
    """Box-sized bool mask of pixels near the item's matched features (surely visible)."""
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = view.table_to_canvas(pose.local_to_table(points_local_mm)) - [x0, y0]
    r = max(1, round(VISIBLE_RADIUS_MM * view.px_per_mm))
    for x, y in pts:
        cv2.circle(mask, (round(x), round(y)), r, 1, -1)
    return mask > 0


def fit_gains(observed: np.ndarray, art: np.ndarray) -> np.ndarray:
    """Per-channel least-squares gains g with observed ~ g * art, (3,)."""
    num = (observed * art).sum(axis=0)
    den = (art * art).sum(axis=0) + 1e-6
    return np.clip(num / den, 0.05, 5.0)


def _colour_spread(arts: np.ndarray) -> np.ndarray:
    """Per pixel, the largest difference between the colours' arts (levels), (h, w)."""
    return (arts.max(axis=0) - arts.min(axis=0)).max(axis=2)


def _neutral_gains(
    observed_box: np.ndarray,
    arts: np.ndarray,
    neutral: np.ndarray,
    light_bgr: np.ndarray | None = None,
) -> np.ndarray | None:
    """Light gains fitted on the ``neutral`` pixels, or None when too few of them show.

    ``light_bgr``: the scene light's gains (B, G, R), when known: only its brightness is fitted
    then (one factor for all three channels), its colour kept."""
    if neutral.sum() < _MIN_PIXELS:
        return None
    return _fitted_light(observed_box[neutral], arts[0][neutral], light_bgr)


def _fitted_light(
    observed: np.ndarray, art: np.ndarray, light_bgr: np.ndarray | None
) -> np.ndarray:
    """Gains (B, G, R) with ``observed`` ~ gains * ``art`` ((N, 3) each): per channel
    (:func:`fit_gains`), or ``light_bgr`` times one least-squares brightness factor."""
    if light_bgr is None:
        return fit_gains(observed, art)
    lit = art * light_bgr
    brightness = float((observed * lit).sum()) / (float((lit * lit).sum()) + 1e-6)
    return light_bgr * np.clip(brightness, 0.05, 5.0)


def light_gains(
    library: ArtLibrary, view: CanvasView, detections: list[SideDetection], most: int = 8
) -> np.ndarray | None:
    """The light's per-channel gains (B, G, R) mapping art colours to ``view``'s colours.

    Median, over the (at most ``most``) coaster detections with the most matched features, of
    the gains fitted on their neutral art pixels (printed alike in every colour) near those
    features; None when no coaster shows enough of them. Measured before the items' colours
    are known, so that colour tests that precede identification can discount the light.
    """
    coasters = [d for d in detections if d.side.kind is ItemKind.COASTER]
    coasters.sort(key=lambda d: -len(d.points_local_mm))
    colors = library.catalogue.color_names
    found = []
    for d in coasters[:most]:
        box = item_box(view, d.side, d.pose)
        x0, y0, x1, y1 = box
        renderings = [render(library, view, d.side, color, d.pose, box) for color in colors]
        arts = np.stack([r.bgr for r in renderings])
        inside = visible_mask(view, box, d.pose, d.points_local_mm)
        inside &= renderings[0].alpha > 0.99
        neutral = inside & (_colour_spread(arts) < _NEUTRAL_SPREAD)
        gains = _neutral_gains(view.image_bgr[y0:y1, x0:x1].astype(np.float32), arts, neutral)
        if gains is not None:
            found.append(gains)
    return np.median(found, axis=0) if found else None


def _colour_error(
    observed_box: np.ndarray,
    lit_art: np.ndarray,
    alpha: np.ndarray,
    telling: np.ndarray,
    px_per_mm: float,
) -> tuple[float, float, float]:
    """How badly one colour's art explains the observed pixels, at the focus that explains them
    best (:data:`FOCUS_BLUR_MM`), the haze found then, and that focus blur.

    ``observed_box`` and ``lit_art`` (the art times the light's gains) are (h, w, 3) float32
    canvas boxes, ``alpha`` the item's shape and ``telling`` the pixels compared. The art is
    blurred over the photo's own pixels around the item, as a camera out of focus mixes them.
    Light added alike to every channel (glare, haze, a washed-out exposure) brightens and greys
    a colour without changing which channel leads: the median residual is discounted. Returns
    the median summed |residual| (levels), that haze (levels) and the blur (sigma, mm).
    """
    best = (np.inf, 0.0, 0.0)
    for blur_mm in FOCUS_BLUR_MM:
        seen = lit_art
        if blur_mm > 0:
            a = alpha[:, :, None]
            seen = cv2.GaussianBlur(
                lit_art * a + observed_box * (1 - a), (0, 0), blur_mm * px_per_mm
            )
        residual = observed_box[telling] - seen[telling]
        haze = float(np.median(residual))
        error = float(np.median(np.abs(residual - haze).sum(axis=1)))
        if error < best[0]:
            best = (error, haze, blur_mm)
    return best


def _candidate_sides(library: ArtLibrary, side: Side) -> list[Side]:
    """Sides one detection may turn out to be: a napkin's face or back."""
    if side.kind is ItemKind.NAPKIN:
        return [s for s in library.sides if s.kind is ItemKind.NAPKIN]
    return [side]


def identify(
    library: ArtLibrary,
    view: CanvasView,
    side: Side,
    pose: ItemPose,
    points_local_mm: np.ndarray,
    allowed_colors: frozenset[str] | None = None,
    keep_side: bool = False,
    seen: np.ndarray | None = None,
    light_bgr: np.ndarray | None = None,
) -> IdentifiedItem:
    """Decide the colour (and napkin face/back, back shape) of one detected item.

    The light (per-channel gains) is measured on the art's *neutral* pixels, printed the same
    in every colour (cream, black, paper); the colour is then the one whose art explains the
    *colour-dependent* pixels best. ``light_bgr``: the scene light's gains (:func:`light_gains`),
    when known: the colours are then compared under a light of its colour, only the
    brightness measured on the item. One light colours the whole table, while the few neutral
    pixels of one item, greyed by haze or a coloured table's reflection, can give it a light
    of another colour, under which a blue coaster's art fits no better than the gray one's
    (validation 0116: three blue items read as gray, a fifth player that put the soft coasters
    out of play). The colour chosen, the item is rendered under its own light as measured
    (``gains``, ``haze``): what local light the scene's misses (a glare's tint, a reflection)
    then stays out of the comparisons of its art with the photo (stacking, icon covers).
    Only pixels surely showing the item count: ``seen``, a mask of the canvas box
    :func:`item_box` gives, when known, else those near matched features.
    ``allowed_colors``: the colour is chosen among these only (all when None); ``keep_side``:
    the side stays ``side`` (a napkin's face or back is not decided again).
    """
    box = item_box(view, side, pose)
    x0, y0, x1, y1 = box
    observed_box = view.image_bgr[y0:y1, x0:x1].astype(np.float32)
    near_features = seen if seen is not None else visible_mask(view, box, pose, points_local_mm)
    colors = library.catalogue.color_names
    per_side = []
    for candidate in [side] if keep_side else _candidate_sides(library, side):
        renderings = [render(library, view, candidate, color, pose, box) for color in colors]
        arts = np.stack([r.bgr for r in renderings])
        inside = near_features & (renderings[0].alpha > 0.99)
        if inside.sum() < _MIN_PIXELS:
            inside = renderings[0].alpha > 0.99
        spread = _colour_spread(arts)
        telling = inside & (spread > _TELLING_SPREAD)
        if telling.sum() < _MIN_PIXELS:
            telling = inside
        observed = observed_box[inside]
        neutral = inside & (spread < _NEUTRAL_SPREAD)
        shared_gains = _neutral_gains(observed_box, arts, neutral, light_bgr)
        errors = []
        for k in range(len(colors)):
            gains = (
                shared_gains
                if shared_gains is not None
                else _fitted_light(observed, arts[k][inside], light_bgr)
            )
            lit = arts[k] * gains
            error, haze, blur_mm = _colour_error(
                observed_box, lit, renderings[0].alpha, telling, view.px_per_mm
            )
            errors.append((error, k, gains, haze, blur_mm))
        by_color = tuple(e[0] for e in errors)
        errors.sort(key=lambda e: e[0])
        if allowed_colors is not None:
            errors = [e for e in errors if colors[e[1]] in allowed_colors] or errors
        _, best, gains, haze, blur_mm = errors[0]
        if light_bgr is not None:  # the scene's light chose the colour; the item's own renders it
            gains = _neutral_gains(observed_box, arts, neutral)
            if gains is None:
                gains = fit_gains(observed, arts[best][inside])
            _, haze, blur_mm = _colour_error(
                observed_box, arts[best] * gains, renderings[0].alpha, telling, view.px_per_mm
            )
        whole = np.abs(observed - arts[best][inside] * gains).sum(axis=1)
        runner_up = errors[1][0] if len(errors) > 1 else errors[0][0]
        margin = (runner_up - errors[0][0]) / max(runner_up, 1e-6)
        per_side.append(
            (
                float(np.median(whole)),
                IdentifiedItem(
                    side=candidate,
                    color=colors[best],
                    pose=pose,
                    rendering=renderings[best],
                    gains=gains,
                    haze=haze,
                    color_margin=float(margin),
                    points_local_mm=points_local_mm,
                    color_errors=by_color,
                    focus_blur_mm=blur_mm,
                ),
            )
        )
    err, item = min(per_side, key=lambda r: r[0])
    if item.side.kind is ItemKind.COASTER and item.side.face is Face.DOWN:
        back, rendering = _back_shape(library, view, item.side, item.color, pose, item.gains, err)
        item = replace(item, side=back, rendering=rendering)
    return item


#: Fewest pixels a measurement is made on.
_MIN_PIXELS = 30
#: Art pixels whose colour variants differ by less than this (levels) are neutral...
_NEUTRAL_SPREAD = 12.0
#: ...and by more than this tell the colours apart.
_TELLING_SPREAD = 60.0


def _back_shape(
    library: ArtLibrary,
    view: CanvasView,
    side: Side,
    color: str,
    pose: ItemPose,
    gains: np.ndarray,
    interior_err: float,
) -> tuple[Side, Rendering]:
    """A face-down coaster's shape: the largest shape whose extra area looks like its rim.

    Backs differ only in shape; where a larger shape (rounded square) exceeds a smaller one
    (circle) the photo shows either that shape's coloured rim or whatever lies around it.
    """
    backs = [s for s in library.sides if s.kind is ItemKind.COASTER and s.face is Face.DOWN]
    largest = max(backs, key=lambda s: s.shape.half_extent_mm)
    box = item_box(view, largest, pose)
    renderings = {s: render(library, view, s, color, pose, box) for s in backs}
    x0, y0, x1, y1 = box
    observed_box = view.image_bgr[y0:y1, x0:x1].astype(np.float32)
    by_area = sorted(backs, key=lambda s: float(s.shape.polygon_mm.area))
    chosen = by_area[0]
    for larger in by_area[1:]:
        extra = (renderings[larger].alpha > 0.99) & (renderings[chosen].alpha < 0.01)
        if extra.sum() < 10:
            continue
        err = np.abs(observed_box[extra] - renderings[larger].bgr[extra] * gains).sum(axis=1)
        if float(np.median(err)) < 2.0 * interior_err + _SHAPE_ERR_SLACK:
            chosen = larger
    return chosen, renderings[chosen]


#: Allowed extra error (summed BGR levels) of a shape's rim over the item's interior error.
_SHAPE_ERR_SLACK = 30.0


def with_pose(item: IdentifiedItem, library: ArtLibrary, view: CanvasView, pose: ItemPose):
    """The same item re-rendered at a refined pose."""
    return replace(item, pose=pose, rendering=render(library, view, item.side, item.color, pose))
