"""Find coasters and napkins by matching the catalogue art's SIFT features.

Two passes:

1. :func:`coarse_table_planes`: coaster faces are matched in the (downscaled) working image with
   full homographies; the confident ones give a first table-plane homography (where there
   are none, small coasters matched as affine maps give it; where only one is, they give a
   second candidate).
2. :func:`detect_sides`: the image is rectified onto the table plane (:func:`rectify`) at a fixed
   scale, where every item is its art rotated and shifted; all sides (faces, backs, napkins) are
   matched there with similarity transforms, one RANSAC instance after another, and overlapping
   hypotheses are resolved greedily so that each image feature explains at most one item.

Both passes end with a look for coasters out of focus (:data:`OUT_OF_FOCUS_BLUR_MM`): their art
blurred as a camera sees a coaster outside its depth of field, where the printed art found none.

Frames: *working px* (the loaded working image), *table mm* (the plane's frame), *canvas px*
(the rectified view: ``canvas = (table_mm - origin_mm) * px_per_mm``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary, Side, SideTemplate, ink_channel
from vision.errors import NoGameFound
from vision.plane import (
    ItemObservation,
    ItemPose,
    PlaneFit,
    TablePlane,
    camera_homographies,
    fit_table_plane,
    pose_of_similarity,
)
from vision.segmentation import ItemRegion

#: Long side of the image searched in the coarse pass (px).
COARSE_LONG_SIDE_PX = 1100
#: Photos smaller than this (long side, px) are also searched upsampled when nothing is found.
UPSAMPLED_LONG_SIDE_PX = 2400
#: Template scale of the coarse pass (px/mm).
COARSE_TEMPLATE_PX_PER_MM = 2.0
#: Scale of the rectified table view (px/mm): about the resolution of a phone photo's items.
CANVAS_PX_PER_MM = 1.6
#: Largest rectified view (px); the scale is lowered for very wide views.
MAX_CANVAS_PIXELS = 6_000_000
#: Most pixels :func:`rectify` makes, whatever it is asked: a view planned at 0.5 px/mm over all
#: of the table a 4096-px working image shows at :data:`MIN_IMAGE_PX_PER_MM` holds about 20 M;
#: bounds gone wrong (an item placed kilometres away) must end in an error, not in gigabytes.
MAX_VIEW_PIXELS = 4 * MAX_CANVAS_PIXELS
#: Spacing of the exactly computed points of the rectification map (canvas px).
_MAP_GRID_PX = 8
#: Table regions seen coarser than this (working px per mm) are not searched.
MIN_IMAGE_PX_PER_MM = 0.4
#: Lowe's ratio test threshold.
RATIO = 0.8
#: Minimum RANSAC inliers for an item hypothesis in the canvas / in the coarse pass.
MIN_INLIERS = 8
MIN_COARSE_INLIERS = 15
#: The coarse pass's last look, for coasters too small to give a homography of their own: each is
#: matched as an affine map with this many inliers, and this many coasters must be found.
MIN_SMALL_COASTER_INLIERS = 10
MIN_SMALL_COASTERS = 2
#: Where not even that finds a plane, the last resort: the affine matches need only this many
#: inliers (as many as an item's in the rectified view, :data:`MIN_INLIERS`). Coasters 50-60 px
#: across in a dim, grainy or soft photo keep 8-9 of their features (held-out 0030, 0202, 0262:
#: no game found at 10). A wrong plane costs nothing there: the rectified view must still show
#: items, found at the usual thresholds, or no game is found.
MIN_FAINT_COASTER_INLIERS = 8
#: The coarse joint fit of several coasters is doubtful where it drops features or its residual
#: (rms, working px) is over this: those of clearly visible coasters fit within 0.3-0.8 px
#: (held-out 0000-0018), one started from a skewed free homography 1.3-1.8 (held-out 0019, 0070,
#: fresh held-out 0322; see :func:`_coarse_planes`)...
DOUBTFUL_RMS_PX = 1.0
#: ...and it is then also started from each camera pose of this many of the strongest coasters...
COARSE_START_COASTERS = 2
#: ...and such a fit replaces the free start's, keeping as many features, where its residual is
#: below this share of the free start's (rms).
CLEARLY_BETTER = 0.9
#: Gradient magnitude (ink levels per px, Sobel) above which a pixel is an edge.
_EDGE_MIN_GRADIENT = 40.0
#: |cos| of the angle between art and photo edge directions for a pixel to agree.
_EDGE_MIN_COS = 0.9
#: A hypothesis needs this many agreeing edge pixels per mm^2 of canvas scale squared...
_MIN_SUPPORT_PX_PER_MM2 = 120.0
#: ...and this share of its agreeing edge pixels not explained by a stronger item.
_MIN_FREE_SUPPORT = 0.5
#: Gaussian blur (sigma, mm on the item) of the art in the second look for coasters out of focus.
OUT_OF_FOCUS_BLUR_MM = 1.0
#: Largest factor between a feature's size in the view and in the template.
_MAX_SCALE_ERROR = 1.4
#: Hough cells: item centre (share of the item's radius), angle (rad) and log2 scale; a cluster
#: needs this many votes.
_VOTE_CELL = 0.2
_VOTE_ANGLE_RAD = np.deg2rad(20.0)
_VOTE_LOG_SCALE = 0.5
_MIN_VOTES = 4
#: Neighbours looked at per image feature (the best, its twins and the first rival).
_KNN = 5
#: Image features matched per block (bounds the distance matrix's memory).
_MATCH_CHUNK = 4096


@dataclass(frozen=True)
class CanvasView:
    """A rectified view of the table: ``canvas px = (table mm - origin_mm) * px_per_mm``."""

    image_bgr: np.ndarray
    origin_mm: tuple[float, float]
    px_per_mm: float

    def table_to_canvas(self, points_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(points_mm, float) - self.origin_mm) * self.px_per_mm

    def canvas_to_table(self, points_px: np.ndarray) -> np.ndarray:
        return np.asarray(points_px, float) / self.px_per_mm + self.origin_mm

    def bounds_mm(self) -> np.ndarray:
        """(xmin, ymin, xmax, ymax; table mm) that :func:`rectify` turns into this view's very
        pixels."""
        h, w = self.image_bgr.shape[:2]
        x1, y1 = self.canvas_to_table(np.array([[w - 0.5, h - 0.5]]))[0]
        return np.array([*self.origin_mm, x1, y1])

    def around(self, centre_mm: tuple[float, float], reach_px: float) -> CanvasView:
        """The part of the view within ``reach_px`` (canvas px, a square) of ``centre_mm``
        (table mm), as a view of its own: the same pixels and scale, its origin moved to the
        crop's corner."""
        h, w = self.image_bgr.shape[:2]
        cx, cy = self.table_to_canvas(np.array([centre_mm]))[0]
        x0, y0 = max(0, int(cx - reach_px)), max(0, int(cy - reach_px))
        x1, y1 = min(w, int(cx + reach_px) + 1), min(h, int(cy + reach_px) + 1)
        origin = self.canvas_to_table(np.array([[x0, y0]], float))[0]
        return CanvasView(
            self.image_bgr[y0:y1, x0:x1], (float(origin[0]), float(origin[1])), self.px_per_mm
        )

    @cached_property
    def ink(self) -> np.ndarray:
        """(H, W) uint8 ink channel of the view (:func:`vision.art.ink_channel`), computed once."""
        return ink_channel(self.image_bgr)

    @cached_property
    def ink_gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """Sobel x and y gradients (float32, ink levels per px) of the ink channel smoothed by a
        Gaussian of 1 px; computed once, shared by the detection stages."""
        return _gradients(self.ink)


@dataclass(frozen=True)
class SideDetection:
    """One item side found in the canvas, with its matched features.

    ``pose`` is in table mm; ``points_local_mm`` / ``points_canvas_px`` are the (N, 2) inlier
    feature pairs (side-local mm, canvas px); ``out_of_focus``: found by the art blurred as a
    camera out of focus sees it (its features are placed less exactly).
    """

    side: Side
    pose: ItemPose
    points_local_mm: np.ndarray
    points_canvas_px: np.ndarray
    out_of_focus: bool = False

    @property
    def n_inliers(self) -> int:
        return len(self.points_local_mm)


@dataclass(frozen=True)
class _Hypothesis:
    template: SideTemplate  # the side's features it was matched to
    transform: np.ndarray  # (3, 3) local mm -> image px
    keypoint_ids: np.ndarray
    template_ids: np.ndarray

    @property
    def side(self) -> Side:
        return self.template.side


#: SIFT's contrast threshold for the photo's features (OpenCV's default: 0.04). A gray coaster's
#: print shows in the ink channel at about half the contrast of the other colours' (its ground
#: is 128 levels, theirs 20-35), and a small or blurred one kept too few keypoints at the
#: default (validation 0133, 0193: gray coasters in full view missed). The art's templates keep
#: the default: printed art is sharp and at full contrast.
SIFT_CONTRAST_THRESHOLD = 0.02
#: Canvas px per pixel of the segmenter's item region rectified (:func:`region_in_view`).
_REGION_VIEW_STEP_PX = 4
#: Side of the tiles SIFT runs on (px), see :func:`_sift_features`.
_SIFT_TILE_PX = 1024
#: Image around each tile given to SIFT with it (px): more than the reach of the largest
#: features' descriptors and of the scale space's blur.
_SIFT_TILE_OVERLAP_PX = 96
#: Tiles start on multiples of this (px): SIFT's octaves halve the image from its corner, and
#: 32 px keeps five of them on one grid (the tile size less its overlap, 928, is such a one).
_SIFT_GRID_PX = 32


@dataclass(frozen=True)
class _Features:
    """SIFT features of an image: (N, 2) positions px, (N,) angles deg and sizes px, (N, 128)."""

    points: np.ndarray
    angles_deg: np.ndarray
    sizes_px: np.ndarray
    descriptors: np.ndarray


def _sift_features(gray: np.ndarray, mask: np.ndarray | None = None) -> _Features:
    """SIFT features of ``gray`` (px of that image), found tile by tile.

    SIFT's scale space of a whole 6 MP view takes about 1.4 GB; run on tiles of
    :data:`_SIFT_TILE_PX` (each with :data:`_SIFT_TILE_OVERLAP_PX` of its neighbours around it,
    keeping the features whose centre lies in the tile itself) it takes about 0.4 GB and finds
    the same features (but for a few in 10,000 at tile borders), in the same order. Each tile
    is cut down to where ``gray`` is not flat (and ``mask`` is set), with the same overlap
    around: a rectified view's corners beyond the photo are black, a tenth of its pixels.
    """
    sift = cv2.SIFT_create(contrastThreshold=SIFT_CONTRAST_THRESHOLD)
    h, w = gray.shape[:2]
    varying = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    if mask is not None:
        varying &= mask > 0
    over = _SIFT_TILE_OVERLAP_PX
    points, angles, sizes, descriptors = [], [], [], []
    for y0 in range(0, h, _SIFT_TILE_PX):
        for x0 in range(0, w, _SIFT_TILE_PX):
            ya, xa = max(0, y0 - over), max(0, x0 - over)
            yb, xb = min(h, y0 + _SIFT_TILE_PX + over), min(w, x0 + _SIFT_TILE_PX + over)
            rows = np.flatnonzero(varying[ya:yb, xa:xb].any(axis=1))
            columns = np.flatnonzero(varying[ya:yb, xa:xb].any(axis=0))
            if len(rows) == 0:
                continue  # nothing varies: no features
            # the varying part of the tile with the overlap around it, its corner on the
            # sampling grid of SIFT's coarser octaves (features would move by a fraction of a px)
            ya, yb = max(ya, _on_grid(ya + rows[0] - over)), min(yb, ya + rows[-1] + 1 + over)
            xa, xb = max(xa, _on_grid(xa + columns[0] - over)), min(xb, xa + columns[-1] + 1 + over)
            tile_mask = None if mask is None else mask[ya:yb, xa:xb]
            keypoints, found = sift.detectAndCompute(gray[ya:yb, xa:xb], tile_mask)
            if found is None:
                continue
            at = np.array([kp.pt for kp in keypoints], dtype=np.float64).reshape(-1, 2)
            at += np.array([xa, ya])
            core = at - np.array([x0, y0])
            own = ((core >= 0) & (core < _SIFT_TILE_PX)).all(axis=1)
            points.append(at[own])
            angles.append(np.array([kp.angle for kp in keypoints], dtype=np.float64)[own])
            sizes.append(np.array([kp.size for kp in keypoints], dtype=np.float64)[own])
            descriptors.append(found[own])
    if not points:
        return _Features(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros((0, 128), np.float32))
    points_px, angles_deg, sizes_px = map(np.concatenate, (points, angles, sizes))
    # in OpenCV's order for a whole image: by x, then y, size and angle
    order = np.lexsort((angles_deg, sizes_px, points_px[:, 1], points_px[:, 0]))
    return _Features(
        points_px[order], angles_deg[order], sizes_px[order], np.concatenate(descriptors)[order]
    )


def _on_grid(px: int) -> int:
    """``px`` rounded down to a multiple of :data:`_SIFT_GRID_PX`."""
    return px - px % _SIFT_GRID_PX


def _ratio_matches(
    descriptors: np.ndarray, template: SideTemplate, *, twin_aware: bool = True
) -> tuple[np.ndarray, ...]:
    """(image keypoint ids, template keypoint ids) passing a twin-aware ratio test.

    The ratio test compares the best template feature with the best one that is not its twin
    (a repeat of the same motif); an accepted image feature is paired with the best template
    feature and with its twins that are nearer than that rival, and RANSAC picks the right one.
    """
    n = len(template.descriptors)
    if len(descriptors) == 0 or n < 2:
        return np.zeros(0, int), np.zeros(0, int)
    k = min(_KNN, n)
    queries, trains = [], []
    # squared distance minus the query's squared norm, |t|^2 - 2 q.t, by one product with the
    # query padded by a 1; SIFT descriptors are whole numbers, so all this is exact in float32
    t_sq = (template.descriptors**2).sum(axis=1)
    padded_template = np.vstack([-2.0 * template.descriptors.T, t_sq[None, :]])
    padded = np.hstack([descriptors, np.ones((len(descriptors), 1), np.float32)])
    for start in range(0, len(descriptors), _MATCH_CHUNK):
        chunk = padded[start : start + _MATCH_CHUNK]
        nearest, partial_nearest = _k_smallest(chunk @ padded_template, k)
        q_sq = (chunk[:, :-1] ** 2).sum(axis=1)[:, None]
        dist = np.sqrt(np.maximum(partial_nearest + q_sq, 0))
        best = nearest[:, 0]
        if twin_aware:
            is_twin = template.twins[best[:, None], nearest]  # (m, k); column 0 is False
        else:
            is_twin = np.zeros_like(nearest, dtype=bool)
        is_twin[:, 0] = False
        rival_mask = ~is_twin
        rival_mask[:, 0] = False
        has_rival = rival_mask.any(axis=1)
        rival_col = np.argmax(rival_mask, axis=1)
        rival_dist = np.where(has_rival, dist[np.arange(len(best)), rival_col], np.inf)
        accepted = dist[:, 0] < RATIO * rival_dist
        pair = (is_twin & (dist < rival_dist[:, None])) & accepted[:, None]
        pair[:, 0] = accepted
        rows, cols = np.nonzero(pair)
        queries.append(rows + start)
        trains.append(nearest[rows, cols])
    return np.concatenate(queries).astype(int), np.concatenate(trains).astype(int)


def _k_smallest(values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(m, k) column indices and values of each row's ``k`` smallest of ``values`` (m, n),
    smallest first (of equal values, the lower index first); ``values`` is overwritten.

    ``k`` passes of a row-wise minimum: for the few neighbours the ratio test needs, several
    times faster than a partition of every row."""
    rows = np.arange(len(values))
    columns = np.empty((len(values), k), np.intp)
    smallest = np.empty((len(values), k), values.dtype)
    for j in range(k):
        columns[:, j] = values.argmin(axis=1)
        smallest[:, j] = values[rows, columns[:, j]]
        values[rows, columns[:, j]] = np.inf
    return columns, smallest


class _Model(Enum):
    """The map fitted from an item side's local mm to image px, with the least ratio of its two
    scales (px per mm, across / along the tilt) a plausible view of a flat item has."""

    HOMOGRAPHY = 0.25
    #: Tilts up to about 60 deg; fitted only to small coasters, where perspective is negligible.
    AFFINE = 0.45
    SIMILARITY = 0.7


def _is_plausible_view(t: np.ndarray, model: _Model) -> bool:
    """Orientation-preserving, not too anisotropic: a plausible view of a flat item."""
    a = t[:2, :2] / t[2, 2]
    if np.linalg.det(a) <= 0:
        return False
    s = np.linalg.svd(a, compute_uv=False)
    return bool(s[1] / s[0] > model.value)


def _select(hypotheses: list[_Hypothesis], min_inliers: int) -> list[_Hypothesis]:
    """Greedy: strongest first, each image feature explains at most one item."""
    claimed: set[int] = set()
    chosen: list[_Hypothesis] = []
    for hyp in sorted(hypotheses, key=lambda h: -len(h.keypoint_ids)):
        free = np.array([k not in claimed for k in hyp.keypoint_ids.tolist()], bool)
        if free.sum() < max(min_inliers, 0.6 * len(free)):
            continue
        chosen.append(
            _Hypothesis(hyp.template, hyp.transform, hyp.keypoint_ids[free], hyp.template_ids[free])
        )
        claimed.update(hyp.keypoint_ids.tolist())
    return chosen


@dataclass(frozen=True)
class _EdgeImage:
    """Unit gradient directions of an ink image where its edges are strong."""

    gx: np.ndarray
    gy: np.ndarray
    strong: np.ndarray


def _gradients(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel x and y gradients (float32) of ``ink`` smoothed by a Gaussian of 1 px."""
    smooth = cv2.GaussianBlur(ink.astype(np.float32), (0, 0), 1.0)
    return cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(
        smooth, cv2.CV_32F, 0, 1, ksize=3
    )


def _edges(gradients: tuple[np.ndarray, np.ndarray]) -> _EdgeImage:
    gx, gy = gradients
    mag = np.sqrt(gx**2 + gy**2) + 1e-6
    return _EdgeImage(gx / mag, gy / mag, mag > _EDGE_MIN_GRADIENT)


def _rendered_ink(
    library: ArtLibrary, side: Side, px_per_mm: float, local_to_canvas: np.ndarray, box: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """The side's ink art and its shape mask warped into canvas box (x0, y0, x1, y1)."""
    art = library.art_rgba(side, library.catalogue.colors[0].name, px_per_mm)
    size = art.shape[0]
    half = side.shape.size_mm / 2
    art_to_local = np.array(
        [
            [1 / px_per_mm, 0, 0.5 / px_per_mm - half],
            [0, 1 / px_per_mm, 0.5 / px_per_mm - half],
            [0, 0, 1],
        ]
    )
    x0, y0, x1, y1 = box
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    m = (shift @ local_to_canvas @ art_to_local)[:2]
    ink = ink_channel(art[:, :, :3]).astype(np.float32)
    alpha = art[:, :, 3].astype(np.float32) / 255
    # outside the shape: a value far from the rim's, so that the outline itself is an edge
    rim = float(np.median(ink[alpha > 0.5][:: max(1, size)]))
    outside = 255.0 if rim < 128 else 0.0
    ink = ink * alpha + outside * (1 - alpha)
    dsize = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(ink, m, dsize, flags=cv2.INTER_LINEAR, borderValue=outside)
    mask = cv2.warpAffine(alpha, m, dsize, flags=cv2.INTER_LINEAR, borderValue=0)
    return warped, mask


def _support(
    hyp: _Hypothesis, library: ArtLibrary, view_edges: _EdgeImage, px_per_mm: float
) -> np.ndarray:
    """Canvas pixels (flat indices) whose edge direction agrees with the hypothesis's art."""
    h, w = view_edges.strong.shape
    radius = hyp.side.shape.half_extent_mm * px_per_mm + 3
    cx, cy = hyp.transform[:2, 2]
    x0, y0 = max(0, int(cx - radius)), max(0, int(cy - radius))
    x1, y1 = min(w, int(cx + radius) + 1), min(h, int(cy + radius) + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return np.zeros(0, np.int64)
    ink, mask = _rendered_ink(library, hyp.side, px_per_mm, hyp.transform, (x0, y0, x1, y1))
    art_edges = _edges(_gradients(ink))
    region = (slice(y0, y1), slice(x0, x1))
    cos = art_edges.gx * view_edges.gx[region] + art_edges.gy * view_edges.gy[region]
    near_item = cv2.dilate((mask > 0.05).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    agree = art_edges.strong & view_edges.strong[region] & (np.abs(cos) > _EDGE_MIN_COS) & near_item
    ys, xs = np.nonzero(agree)
    return (ys + y0).astype(np.int64) * w + (xs + x0)


def _select_by_support(
    hypotheses: list[_Hypothesis],
    library: ArtLibrary,
    view: CanvasView,
    view_edges: _EdgeImage,
    claimed: np.ndarray | None = None,
) -> tuple[list[_Hypothesis], np.ndarray]:
    """Greedy explanation of the canvas's edges (``view_edges``, the view's): most supported
    first, each edge pixel once.

    ``claimed``: (H * W,) bool, the canvas pixels already explained by items chosen before.
    Returns the chosen hypotheses and the pixels explained then.
    """
    min_support = _MIN_SUPPORT_PX_PER_MM2 * view.px_per_mm**2
    scored = [(hyp, _support(hyp, library, view_edges, view.px_per_mm)) for hyp in hypotheses]
    claimed = np.zeros(view_edges.strong.size, bool) if claimed is None else claimed.copy()
    chosen: list[_Hypothesis] = []
    for hyp, support in sorted(scored, key=lambda hs: -len(hs[1])):
        free = support[~claimed[support]]
        if len(free) < max(min_support, _MIN_FREE_SUPPORT * len(support)):
            continue
        chosen.append(hyp)
        claimed[support] = True
    return chosen, claimed


def coarse_table_plane(image_bgr: np.ndarray, library: ArtLibrary) -> np.ndarray:
    """A first table-plane homography (table mm -> working px) from the clearest coaster faces:
    the first of :func:`coarse_table_planes`."""
    return coarse_table_planes(image_bgr, library)[0]


def coarse_table_planes(
    image_bgr: np.ndarray, library: ArtLibrary, items_seen: ItemRegion | None = None
) -> list[np.ndarray]:
    """First table-plane homographies (table mm -> working px) from the clearest coaster faces,
    the likelier first: one, or two or three where the coasters found leave a doubt.

    Searched first in a downscaled copy (cheap), then, when fewer than two coasters are clear
    there, at the working resolution, and last, when none is clear in a small photo, in a copy
    upsampled twice (small, blurred coasters give SIFT more to match at the finer scale).
    Where still no coaster gives a homography of its own, as in a distant photo whose coasters
    are 40-60 px across, :data:`MIN_SMALL_COASTERS` or more coasters matched as affine maps
    (printed or blurred art) are taken instead, from the copy where most are found; where these
    give no plane either, the same with fainter matches (:data:`MIN_FAINT_COASTER_INLIERS`).
    The table frame is that of the strongest coaster found; the plane is fitted jointly to the
    features of all coasters found, or, when only one is, placed as a phone camera would see
    that one (:func:`vision.plane.camera_homographies`; a small, blurred one may leave two
    poses, tilted either way, in doubt: both are candidates). A plane placed from one coaster
    can be skewed far from it (a small, blurred coaster gives its tilt poorly), so when several
    coasters are also matched as affine maps, their joint plane is another candidate: which
    reads the table best is only known by searching it (see
    :func:`vision.pipeline.score_photo`).
    ``items_seen``: where the segmenter sees items in ``image_bgr``; features are only taken
    there, and everywhere only if no plane is found so. None: everywhere.
    Raises :class:`NoGameFound` when no coaster face is clearly visible.
    """
    if items_seen is not None:
        try:
            return _coarse_table_planes(image_bgr, library, items_seen)
        except NoGameFound:
            pass
    return _coarse_table_planes(image_bgr, library, None)


def _coarse_table_planes(
    image_bgr: np.ndarray, library: ArtLibrary, items_seen: ItemRegion | None
) -> list[np.ndarray]:
    """:func:`coarse_table_planes` with features taken only in ``items_seen``, or everywhere."""
    h, w = image_bgr.shape[:2]
    chosen: list[_Hypothesis] = []
    long_side = max(h, w)
    factors = [min(1.0, COARSE_LONG_SIDE_PX / long_side), 1.0]
    if long_side < UPSAMPLED_LONG_SIDE_PX:
        factors.append(min(2.0, UPSAMPLED_LONG_SIDE_PX / long_side))
    copies: list[tuple[float, _Features]] = []  # (factor, features) of each copy searched
    for factor in dict.fromkeys(factors):
        resized = image_bgr
        if factor != 1.0:
            interpolation = cv2.INTER_AREA if factor < 1.0 else cv2.INTER_CUBIC
            resized = cv2.resize(image_bgr, None, fx=factor, fy=factor, interpolation=interpolation)
        where = None if items_seen is None else _region_in_copy(items_seen, resized.shape[:2])
        features = _sift_features(ink_channel(resized), where)
        copies.append((factor, features))
        chosen = _coarse_hypotheses(features, library)
        if len(chosen) >= 2 or (chosen and factor >= 1.0):
            break
    if not chosen:  # in the finest copy: coasters as a camera out of focus sees them
        chosen = _coarse_hypotheses(features, library, (OUT_OF_FOCUS_BLUR_MM,))
    planes = _coarse_planes(chosen, features, factor, (w, h)) if chosen else []
    if len(chosen) < MIN_SMALL_COASTERS:  # small coasters as affine maps, where most are found
        planes += _small_coaster_planes(copies, library, MIN_SMALL_COASTER_INLIERS, (w, h))
    if not planes:
        planes = _small_coaster_planes(copies, library, MIN_FAINT_COASTER_INLIERS, (w, h))
    if not planes:
        raise NoGameFound(
            "no Beer & Pretzels coaster is clearly visible in the photo; if the game is in it, "
            "take the photo closer, in good light, holding the phone still"
        )
    return planes


def _region_in_copy(items_seen: ItemRegion, shape: tuple[int, int]) -> np.ndarray:
    """``items_seen`` as (h, w) uint8 (255 where any of it reaches) of a copy of ``shape``
    (h, w) of the working image it was seen in, scaled alike in x and y."""
    h, w = shape
    return _set_where_any(cv2.resize(items_seen.mask, (w, h), interpolation=cv2.INTER_LINEAR))


def _set_where_any(region: np.ndarray) -> np.ndarray:
    """(h, w) uint8 mask of a resampled region (float, 0 outside it): 255 wherever any of it
    reaches, 0 elsewhere."""
    return np.where(region > 0, np.uint8(255), np.uint8(0))


def _coarse_planes(
    chosen: list[_Hypothesis], features: _Features, factor: float, image_size_px: tuple[int, int]
) -> list[np.ndarray]:
    """The homography (table mm -> working px) of the coasters ``chosen`` among the features of
    the working image's copy scaled by ``factor``, the strongest first (it gives the frame); of
    one coaster, the two mirror poses where its features do not tell them apart.

    Several coasters are fitted jointly (:func:`vision.plane.fit_table_plane`) from the
    strongest coaster's free homography; where that fit is doubtful (it drops features, or its
    residual is over :data:`DOUBTFUL_RMS_PX`), also from each pose a phone camera could see the
    first :data:`COARSE_START_COASTERS` coasters in (:func:`vision.plane.camera_homographies`).
    A free homography of a coaster 30 px across can be tilted far from the table (fresh held-out
    0322: 72 degrees where the table is at 28); the joint fit from there kept 23 of the two
    coasters' 40 features, from either coaster's camera pose all 40, at 27 degrees. The fit that
    keeps the most features wins; of those that keep as many, the free start's, unless another
    fits them clearly better (:data:`CLEARLY_BETTER`): most starts end in the same plane, a few
    hundredths of a px apart, and such a difference is no reason to move it.
    """
    points = features.points
    to_working = np.diag([1 / factor, 1 / factor, 1.0])
    observations = [
        ItemObservation(hyp.template.points_mm[hyp.template_ids], points[hyp.keypoint_ids] / factor)
        for hyp in chosen
    ]
    if len(chosen) == 1:
        return camera_homographies(
            observations[0].points_local_mm, observations[0].points_px, image_size_px
        )

    def fit_from(start: np.ndarray) -> PlaneFit:
        anchor = start / start[2, 2]  # coaster-local mm (the table frame) -> working px
        to_table = np.linalg.inv(anchor) @ to_working  # px of the copy -> table mm
        poses = [pose_of_similarity(to_table @ hyp.transform) for hyp in chosen]
        return fit_table_plane(observations, image_size_px, anchor, poses, with_distortion=False)

    strongest = to_working @ chosen[0].transform  # coaster-local mm -> working px
    best = fit_from(strongest)
    n_features = sum(len(observation.points_px) for observation in observations)
    if _features_kept(best) == n_features and best.rms_px <= DOUBTFUL_RMS_PX:
        return [best.plane.table_to_undistorted]
    for k, observation in enumerate(observations[:COARSE_START_COASTERS]):
        for seen in camera_homographies(
            observation.points_local_mm, observation.points_px, image_size_px
        ):
            if k:  # the strongest coaster's pose on this coaster's camera plane gives the frame
                strongest_pose = pose_of_similarity(np.linalg.inv(seen) @ strongest)
                seen = seen @ strongest_pose.local_to_table_matrix()
            fit = fit_from(seen)
            if _fits_better(fit, best):
                best = fit
    return [best.plane.table_to_undistorted]


def _fits_better(fit: PlaneFit, than: PlaneFit) -> bool:
    """Whether ``fit`` keeps more features than ``than``, or as many clearly better."""
    kept, other_kept = _features_kept(fit), _features_kept(than)
    return kept > other_kept or (kept == other_kept and fit.rms_px < CLEARLY_BETTER * than.rms_px)


def _features_kept(fit: PlaneFit) -> int:
    """How many observations a plane fit kept as inliers."""
    return sum(int(mask.sum()) for mask in fit.inlier_masks)


def _small_coaster_planes(
    copies: list[tuple[float, _Features]],
    library: ArtLibrary,
    min_inliers: int,
    image_size_px: tuple[int, int],
) -> list[np.ndarray]:
    """The joint plane (table mm -> working px; none or one) of the small coasters found in the
    copy of the working image where most are (:func:`_small_coasters`); ``copies``: (scale
    factor, features) of each copy searched."""
    small, factor, features = max(
        (
            (_small_coasters(copy_features, library, min_inliers), copy_factor, copy_features)
            for copy_factor, copy_features in copies
        ),
        key=lambda found: len(found[0]),
    )
    return _coarse_planes(small, features, factor, image_size_px) if small else []


def _small_coasters(
    features: _Features, library: ArtLibrary, min_inliers: int
) -> list[_Hypothesis]:
    """Coaster faces among ``features`` matched as affine maps (printed or blurred art), with
    ``min_inliers`` each; none unless :data:`MIN_SMALL_COASTERS` are."""
    found = _coarse_hypotheses(
        features,
        library,
        (0.0, OUT_OF_FOCUS_BLUR_MM),
        model=_Model.AFFINE,
        min_inliers=min_inliers,
    )
    return found if len(found) >= MIN_SMALL_COASTERS else []


def _coarse_hypotheses(
    features: _Features,
    library: ArtLibrary,
    blurs_mm: tuple[float, ...] = (0.0,),
    *,
    model: _Model = _Model.HOMOGRAPHY,
    min_inliers: int = MIN_COARSE_INLIERS,
) -> list[_Hypothesis]:
    """Coaster faces clearly visible among ``features`` (strongest first), matched to templates
    of the art blurred by each of ``blurs_mm`` as ``model`` maps."""
    hypotheses: list[_Hypothesis] = []
    for blur_mm in blurs_mm:
        for side in library.sides:
            if side.face is not Face.UP or side.type_name is None:
                continue
            template = library.template(side, COARSE_TEMPLATE_PX_PER_MM, blur_mm)
            query, train = _ratio_matches(features.descriptors, template)
            hypotheses += _vote_instances(
                template,
                features,
                query,
                train,
                scale_range=(0.1, 10.0),
                model=model,
                min_inliers=min_inliers,
                threshold_px=2.5,
            )
    return _select(hypotheses, min_inliers)


def table_footprint_mm(
    plane: TablePlane,
    image_size_px: tuple[int, int],
    readable_px_per_mm: float = MIN_IMAGE_PX_PER_MM,
) -> np.ndarray:
    """(xmin, ymin, xmax, ymax) in table mm of the image region where items can be read: where
    the image shows the table at ``readable_px_per_mm`` image px per mm or more."""
    w, h = image_size_px
    gx, gy = np.meshgrid(np.linspace(0, w - 1, 33), np.linspace(0, h - 1, 25))
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1)
    hom = np.linalg.inv(plane.table_to_undistorted)
    und = plane.undistort(grid)
    q = und @ hom[:, :2].T + hom[:, 2]
    # table points in front of the camera share the sign of w with the table origin's image
    origin_w = plane.table_to_undistorted[2, 2]
    in_front = q[:, 2] * np.sign(origin_w) > 1e-12
    table = q[:, :2] / q[:, 2:3]
    # local scale by finite differences on the grid
    step = np.array([1.0, 0.0])
    table_dx = plane.image_to_table(grid + step)
    table_dy = plane.image_to_table(grid + step[::-1])
    jac_det = np.abs(
        (table_dx[:, 0] - table[:, 0]) * (table_dy[:, 1] - table[:, 1])
        - (table_dx[:, 1] - table[:, 1]) * (table_dy[:, 0] - table[:, 0])
    )
    px_per_mm = 1.0 / np.sqrt(np.maximum(jac_det, 1e-12))
    keep = in_front & (px_per_mm >= readable_px_per_mm) & np.isfinite(table).all(axis=1)
    if not keep.any():
        raise NoGameFound("the table plane could not be placed in the photo")
    t = table[keep]
    return np.array([*t.min(axis=0), *t.max(axis=0)])


def canvas_px_per_mm(bounds_mm: np.ndarray) -> float:
    """The scale of the rectified view of the table region ``bounds_mm`` (xmin, ymin, xmax,
    ymax; mm): :data:`CANVAS_PX_PER_MM`, lowered (down to 0.5 px/mm) so that the view holds at
    most :data:`MAX_CANVAS_PIXELS`."""
    x0, y0, x1, y1 = (float(v) for v in bounds_mm)
    area = (x1 - x0) * (y1 - y0)
    if area * CANVAS_PX_PER_MM**2 <= MAX_CANVAS_PIXELS:
        return CANVAS_PX_PER_MM
    # quantised so that art and templates are prepared for a few scales only
    return max(float(np.floor(np.sqrt(MAX_CANVAS_PIXELS / area) / 0.05) * 0.05), 0.5)


def region_in_view(region: ItemRegion, plane: TablePlane, view: CanvasView) -> np.ndarray:
    """The segmenter's item ``region`` (:meth:`vision.segmentation.Segmentation.item_region`,
    of the working image that ``plane`` maps the table into) as (H, W) uint8 of ``view``'s
    canvas: 255 wherever any of it reaches, 0 elsewhere.

    Rectified at :data:`_REGION_VIEW_STEP_PX` canvas px per pixel, grown by one such pixel
    and enlarged: the region's own pixels are as coarse, its edge lies well clear of the items,
    and it holds all of the region rectified at the canvas's scale, which cost as much as
    rectifying the view itself."""
    h, w = view.image_bgr.shape[:2]
    coarse = rectify(
        region.mask,
        plane,
        view.bounds_mm(),
        px_per_mm=view.px_per_mm / _REGION_VIEW_STEP_PX,
        image_scale=region.scale,
    ).image_bgr
    grown = cv2.dilate(coarse, np.ones((3, 3), np.uint8))
    return _set_where_any(cv2.resize(grown, (w, h), interpolation=cv2.INTER_LINEAR))


def rectify(
    image_bgr: np.ndarray,
    plane: TablePlane,
    bounds_mm: np.ndarray | None = None,
    readable_px_per_mm: float = MIN_IMAGE_PX_PER_MM,
    px_per_mm: float | None = None,
    image_scale: tuple[float, float] = (1.0, 1.0),
) -> CanvasView:
    """Resample the working image onto the table plane (see :class:`CanvasView`).

    ``bounds_mm`` (xmin, ymin, xmax, ymax): the table region to cover; default: all of the table
    the photo shows at ``readable_px_per_mm`` image px per mm or more (:func:`table_footprint_mm`).
    ``px_per_mm``: the view's scale; default :func:`canvas_px_per_mm` of the region.
    ``image_scale``: (x, y) px of ``image_bgr`` per working px, when it is the working image
    resampled (any channels, e.g. a segmenter's class probabilities at its low resolution):
    ``image px + 0.5 = (working px + 0.5) * image_scale``. Raises :class:`NoGameFound` when
    the view would hold more than :data:`MAX_VIEW_PIXELS`.
    """
    h, w = image_bgr.shape[:2]
    if image_scale != (1.0, 1.0):  # the plane's image is the working image
        w, h = round(w / image_scale[0]), round(h / image_scale[1])
    if bounds_mm is None:
        bounds_mm = table_footprint_mm(plane, (w, h), readable_px_per_mm)
    x0, y0, x1, y1 = (float(v) for v in bounds_mm)
    ppm = canvas_px_per_mm(bounds_mm) if px_per_mm is None else px_per_mm
    cw, ch = int(np.ceil((x1 - x0) * ppm)), int(np.ceil((y1 - y0) * ppm))
    if cw * ch > MAX_VIEW_PIXELS:
        raise NoGameFound(
            f"the table view would be {cw} x {ch} px: the table plane was not placed in the photo"
        )
    view = CanvasView(np.zeros((1, 1, 3), np.uint8), (float(x0), float(y0)), ppm)
    # the map is smooth: compute it on a coarse grid and interpolate
    step = _MAP_GRID_PX
    gw, gh = cw // step + 2, ch // step + 2
    gx, gy = np.meshgrid(np.arange(gw, dtype=np.float64) * step, np.arange(gh) * step)
    table = view.canvas_to_table(np.stack([gx.ravel(), gy.ravel()], axis=1))
    scale = np.asarray(image_scale, float)
    coarse = (plane.table_to_image(table) + 0.5) * scale - 0.5
    coarse = coarse.astype(np.float32).reshape(gh, gw, 2)
    sx, sy = np.meshgrid(
        np.arange(cw, dtype=np.float32) / step, np.arange(ch, dtype=np.float32) / step
    )
    fine = cv2.remap(coarse, sx, sy, cv2.INTER_LINEAR)
    canvas = cv2.remap(
        image_bgr, fine[:, :, 0], fine[:, :, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    return CanvasView(canvas, view.origin_mm, ppm)


def _vote_instances(
    template: SideTemplate,
    features: _Features,
    query: np.ndarray,
    train: np.ndarray,
    *,
    scale_range: tuple[float, float],
    model: _Model,
    min_inliers: int,
    threshold_px: float,
) -> list[_Hypothesis]:
    """Every instance of ``template``'s side among the matches, by Hough voting then RANSAC.

    One match, with the SIFT orientation and size of both features, predicts the item's centre,
    angle and scale (image px per template px, within ``scale_range``). Votes are clustered in
    (log scale, centre, angle); each cluster seeds a RANSAC fit of ``model``
    whose consistent matches form one instance. Voting keeps RANSAC's inlier ratio high even
    when the same art appears many times in the photo.
    """
    if len(query) < min_inliers:
        return []
    ratio = features.sizes_px[query] / template.sizes_px[train]
    keep = (ratio >= scale_range[0]) & (ratio <= scale_range[1])
    query, train, ratio = query[keep], train[keep], ratio[keep]
    if len(query) < min_inliers:
        return []
    angle = np.deg2rad(features.angles_deg[query] - template.angles_deg[train])
    c, s = np.cos(angle), np.sin(angle)
    local_px = template.points_mm[train] * template.px_per_mm * ratio[:, None]
    image_px = features.points[query]
    centre = image_px - np.stack(
        [c * local_px[:, 0] - s * local_px[:, 1], s * local_px[:, 0] + c * local_px[:, 1]], 1
    )
    log_scale = np.log2(ratio)
    side = template.side
    radius_px = side.shape.half_extent_mm * template.px_per_mm * ratio
    src_all = template.points_mm[train].astype(np.float32)
    votes = _VoteCounts(_vote_cells(side, template, log_scale, centre, angle))
    centres_by_x, image_by_x = _ByX(centre[:, 0]), _ByX(image_px[:, 0])
    # farthest a template feature lies from the side's centre (mm)
    reach_mm = float(np.sqrt((src_all.astype(np.float64) ** 2).sum(axis=1)).max())
    alive = np.ones(len(query), bool)
    found: list[_Hypothesis] = []
    for _ in range(60):
        idx = np.flatnonzero(alive)
        if len(idx) < min_inliers:
            break
        top, count = votes.top()
        if count < _MIN_VOTES:
            break
        seed = votes.in_cell(top)
        seed = seed[alive[seed]]
        mean_c = np.median(centre[seed], axis=0)
        mean_a = np.angle(np.exp(1j * angle[seed]).mean())
        mean_r = float(np.median(radius_px[seed]))
        # only matches whose centre is within 0.5 * mean_r of mean_c can be near
        cand = centres_by_x.within(mean_c[0] - 0.5 * mean_r, mean_c[0] + 0.5 * mean_r)
        cand = cand[alive[cand]]
        alive[seed] = False
        votes.remove(seed)
        d_angle = np.abs(np.angle(np.exp(1j * (angle[cand] - mean_a))))
        near = cand[
            (np.linalg.norm(centre[cand] - mean_c, axis=1) < 0.5 * mean_r)
            & (d_angle < 2 * _VOTE_ANGLE_RAD)
            & (np.abs(log_scale[cand] - np.median(log_scale[seed])) < 2 * _VOTE_LOG_SCALE)
        ]
        if len(near) < min_inliers:
            continue
        t = _fit_transform(src_all[near], image_px[near], model, threshold_px)
        if t is None:
            continue
        # every still-unused match of this side that agrees with the fitted transform; an
        # affine map puts the template's features within its largest scale * reach_mm of the
        # centre
        cand = idx
        if model is not _Model.HOMOGRAPHY:
            largest_scale = float(np.linalg.svd(t[:2, :2], compute_uv=False)[0])
            bound = largest_scale * reach_mm + threshold_px
            cand = image_by_x.within(t[0, 2] - bound, t[0, 2] + bound)
            cand = cand[alive[cand] | np.isin(cand, seed)]
        predicted = _apply(t, src_all[cand])
        members = cand[np.linalg.norm(predicted - image_px[cand], axis=1) < threshold_px]
        members = members[np.unique(query[members], return_index=True)[1]]
        if len(members) < min_inliers:
            continue
        refit = _fit_transform(src_all[members], image_px[members], model, threshold_px)
        t = refit if refit is not None else t
        scale = float(np.sqrt(abs(np.linalg.det(t[:2, :2] / t[2, 2]))))
        scale_ok = scale_range[0] <= scale / template.px_per_mm <= scale_range[1]
        if not (scale_ok and _is_plausible_view(t, model)):
            continue
        found.append(_Hypothesis(template, t, query[members], train[members]))
        taken = np.flatnonzero(alive & np.isin(query, query[members]))
        alive[taken] = False
        votes.remove(taken)
    return found


class _VoteCounts:
    """How many live votes each Hough cell holds, as votes are taken out: ``cells`` (N, K) are
    the K cells of each of N votes (:func:`_vote_cells`), numbered 0.. in their sorted order."""

    def __init__(self, cells: np.ndarray) -> None:
        self.cells = cells
        flat = cells.ravel()
        self.counts = np.bincount(flat)
        order = np.argsort(flat, kind="stable")
        self.votes_by_cell = order // cells.shape[1]
        self.starts = np.searchsorted(flat[order], np.arange(len(self.counts) + 1))

    def top(self) -> tuple[int, int]:
        """The cell with the most live votes (the first in order on a tie) and their count."""
        top = int(np.argmax(self.counts))
        return top, int(self.counts[top])

    def in_cell(self, cell: int) -> np.ndarray:
        """Every vote (live or not) with ``cell`` among its cells, ascending."""
        return self.votes_by_cell[self.starts[cell] : self.starts[cell + 1]]

    def remove(self, taken: np.ndarray) -> None:
        """Take the live votes ``taken`` (indices) out of their cells' counts."""
        np.subtract.at(self.counts, self.cells[taken].ravel(), 1)


class _ByX:
    """Points sorted by x, to list those in an x range quickly."""

    def __init__(self, x: np.ndarray) -> None:
        self.order = np.argsort(x, kind="stable")
        self.sorted_x = x[self.order]

    def within(self, lo: float, hi: float) -> np.ndarray:
        """Ascending indices of the points with lo <= x <= hi (widened by a rounding margin)."""
        margin = 1e-6 * (1.0 + abs(lo) + abs(hi))
        a, b = np.searchsorted(self.sorted_x, [lo - margin, hi + margin])
        return np.sort(self.order[a:b])


def _vote_cells(
    side: Side,
    template: SideTemplate,
    log_scale: np.ndarray,
    centre_px: np.ndarray,
    angle_rad: np.ndarray,
) -> np.ndarray:
    """The Hough cells of each match's vote, as (N, 16) ids numbered in the cells' sorted order.

    Cells are log2 scale bins, then centre cells (image px, sized with the scale bin), then
    angle bins; each vote goes to the two nearest bins in each of the four (as Lowe's), so that
    a cluster straddling a bin border is still counted whole in one cell (with one bin per
    vote, a shift of a fraction of a pixel splits it). Ties between equally voted cells go to
    the first in that order.
    """
    n_angles = round(2 * np.pi / _VOTE_ANGLE_RAD)
    u_scale = log_scale / _VOTE_LOG_SCALE - 0.5
    u_angle = (angle_rad % (2 * np.pi)) / _VOTE_ANGLE_RAD - 0.5
    angle_bins = [(np.floor(u_angle).astype(np.int64) + da) % n_angles for da in (0, 1)]
    unit_cell = _VOTE_CELL * side.shape.half_extent_mm * template.px_per_mm
    keys = []
    for ds in (0, 1):
        ls = np.floor(u_scale).astype(np.int64) + ds
        cell = unit_cell * 2.0 ** ((ls + 0.5) * _VOTE_LOG_SCALE)
        ix0 = np.floor(centre_px[:, 0] / cell - 0.5).astype(np.int64)
        iy0 = np.floor(centre_px[:, 1] / cell - 0.5).astype(np.int64)
        for dx in (0, 1):
            for dy in (0, 1):
                keys += [np.stack([ls, ix0 + dx, iy0 + dy, ia], 1) for ia in angle_bins]
    stacked = np.stack(keys, 1)  # (N, 16, 4)
    flat_keys = stacked.reshape(-1, 4)
    flat_keys = flat_keys - flat_keys.min(axis=0)
    flat = np.ravel_multi_index(flat_keys.T, flat_keys.max(axis=0) + 1)
    return np.unique(flat, return_inverse=True)[1].reshape(len(log_scale), -1)


def _fit_transform(
    src: np.ndarray, dst: np.ndarray, model: _Model, threshold_px: float
) -> np.ndarray | None:
    """RANSAC fit of ``model`` as a (3, 3) matrix mapping ``src`` (mm) to ``dst`` (px)."""
    if model is _Model.HOMOGRAPHY:
        if len(src) < 6:
            return None
        t, inliers = cv2.findHomography(src, dst, cv2.RANSAC, threshold_px, maxIters=500)
        if t is None or inliers is None or inliers.sum() < 6:
            return None
        return t / t[2, 2]
    estimate = cv2.estimateAffine2D if model is _Model.AFFINE else cv2.estimateAffinePartial2D
    a, inliers = estimate(
        src, dst, method=cv2.RANSAC, ransacReprojThreshold=threshold_px, maxIters=500
    )
    if a is None or inliers is None or inliers.sum() < 3:
        return None
    return np.vstack([a, [0.0, 0.0, 1.0]])


def _apply(t: np.ndarray, points: np.ndarray) -> np.ndarray:
    q = points @ t[:2, :2].T + t[:2, 2]
    w = points @ t[2, :2] + t[2, 2]
    return q / w[:, None]


def _canvas_hypotheses(
    features: _Features,
    library: ArtLibrary,
    px_per_mm: float,
    sides: tuple[Side, ...],
    *,
    blur_mm: float = 0.0,
    unexplained: np.ndarray | None = None,
) -> list[_Hypothesis]:
    """Instances of ``sides`` among the canvas ``features`` (similarities at the view's scale),
    matched to templates of the art blurred by ``blur_mm``; ``unexplained`` (N,) bool limits
    the search to those features."""
    ids = np.arange(len(features.points)) if unexplained is None else np.flatnonzero(unexplained)
    hypotheses: list[_Hypothesis] = []
    for side in sides:
        template = library.template(side, px_per_mm, blur_mm)
        query, train = _ratio_matches(features.descriptors[ids], template)
        hypotheses += _vote_instances(
            template,
            features,
            ids[query],
            train,
            scale_range=(1 / _MAX_SCALE_ERROR, _MAX_SCALE_ERROR),
            model=_Model.SIMILARITY,
            min_inliers=MIN_INLIERS,
            threshold_px=3.0,
        )
    return hypotheses


def detect_sides(
    view: CanvasView, library: ArtLibrary, where: np.ndarray | None = None
) -> list[SideDetection]:
    """Every item side visible in the rectified ``view``, with pose (table mm) and features.

    The sides are matched to their art as printed; then coasters are looked for once more, among
    the features no chosen item explains, in the art as a camera out of focus sees it
    (:data:`OUT_OF_FOCUS_BLUR_MM`): far coasters in a photo focused nearer lose the fine print
    the sharp templates key on. ``where``: (H, W) uint8 of the canvas, features are only taken
    where it is set (:func:`region_in_view`: where items may lie), or None: everywhere.
    """
    features = _sift_features(view.ink, where)
    sharp = _canvas_hypotheses(features, library, view.px_per_mm, library.sides)
    view_edges = _edges(view.ink_gradients)
    chosen, claimed = _select_by_support(sharp, library, view, view_edges)
    unexplained = np.ones(len(features.points), bool)
    for hyp in chosen:
        unexplained[hyp.keypoint_ids] = False
    coasters = tuple(side for side in library.sides if side.kind is ItemKind.COASTER)
    blurred = _canvas_hypotheses(
        features,
        library,
        view.px_per_mm,
        coasters,
        blur_mm=OUT_OF_FOCUS_BLUR_MM,
        unexplained=unexplained,
    )
    chosen += _select_by_support(blurred, library, view, view_edges, claimed)[0]
    detections = []
    for hyp in chosen:
        t = hyp.transform
        centre_px = t[:2, 2]
        angle = float(np.arctan2(t[1, 0] - t[0, 1], t[0, 0] + t[1, 1]))
        centre_mm = view.canvas_to_table(centre_px[None])[0]
        detections.append(
            SideDetection(
                side=hyp.side,
                pose=ItemPose((float(centre_mm[0]), float(centre_mm[1])), angle),
                points_local_mm=hyp.template.points_mm[hyp.template_ids],
                points_canvas_px=features.points[hyp.keypoint_ids],
                out_of_focus=hyp.template.blur_mm > 0,
            )
        )
    return detections
