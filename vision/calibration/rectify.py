"""Find one item lying alone on a table in a photo and warp it to its fronto-parallel art square.

Stages (each a plain function):

1. :func:`find_item` - the item is the largest region that does not look like the table (the
   table's colour is learnt from the photo's border); returns its outer contour (working px).
2. the contour gives the item's shape in the photo: a rounded square by its four straight edges
   (:func:`square_homography`, exact under perspective), a circle by its ellipse
   (:func:`circle_homographies`). A circle alone fixes the view only up to a two-fold ambiguity
   and the camera's focal length, so :func:`rectify_photos` picks, per photo, the focal length
   and branch that make several photos of the same side agree.
3. :func:`warp_to_art` - the photo resampled to the art square at 10 px/mm.

Frames: *photo px* (the working image of :func:`vision.load.load_photo`, x right, y down),
*side mm* (origin at the item centre, x right, y down), *art px* (see
:mod:`vision.calibration.art_frame`). Homographies here map photo px -> side mm.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Shape
from vision.art import ink_channel
from vision.calibration.art_frame import ART_PX_PER_MM

#: Width of the photo border that shows the table (share of the short side).
BORDER_SHARE = 0.04
#: The item must cover at least this share of the photo.
MIN_ITEM_SHARE = 0.02
#: Phone main and tele lenses, 35 mm equivalent focal lengths (mm) tried for round items.
FOCAL_EQ_MM = (20.0, 22.0, 24.0, 26.0, 28.0, 30.0, 33.0, 38.0, 45.0, 52.0)
FULL_FRAME_DIAGONAL_MM = 43.27
#: Resolution of the small views used to check that photos agree (px per mm).
_CHECK_PX_PER_MM = 4.0


class CalibrationPhotoError(ValueError):
    """A calibration photo in which no single item can be found or rectified."""


@dataclass(frozen=True)
class ItemInPhoto:
    """The item found in a photo: its outer contour (N, 2) and mask (H, W) bool, photo px."""

    contour_px: np.ndarray
    mask: np.ndarray

    @property
    def roundness(self) -> float:
        """Area over the area of the fitted ellipse: ~1 for a circle, ~0.92 for a rounded square."""
        (_, _), (a, b), _ = cv2.fitEllipse(self.contour_px.astype(np.float32))
        return float(cv2.contourArea(self.contour_px.astype(np.float32)) / (np.pi * a * b / 4))


def find_item(image_bgr: np.ndarray) -> ItemInPhoto:
    """The largest region of ``image_bgr`` that differs from the table (learnt from the border).

    Raises :class:`CalibrationPhotoError` when nothing item-sized stands out from the table.
    """
    h, w = image_bgr.shape[:2]
    blur = max(1.5, 0.003 * min(h, w))
    lab = cv2.cvtColor(cv2.GaussianBlur(image_bgr, (0, 0), blur), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    b = max(4, round(BORDER_SHARE * min(h, w)))
    border = np.concatenate(
        [
            lab[:b].reshape(-1, 3),
            lab[-b:].reshape(-1, 3),
            lab[:, :b].reshape(-1, 3),
            lab[:, -b:].reshape(-1, 3),
        ]
    )
    table = _table_colours(border)
    # the distance is smooth (blurred image): compute it at half size, interpolate it back
    half = cv2.resize(lab, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    distance = cv2.resize(_table_distance(half, table), (w, h), interpolation=cv2.INTER_LINEAR)
    border_d = _table_distance(border[None], table)[0]
    # Otsu between table and item, capped for strongly coloured items, kept above table noise
    clipped = np.clip(distance * (255 / 20), 0, 255).astype(np.uint8)
    otsu = cv2.threshold(clipped, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0] * 20 / 255
    threshold = max(1.3 * float(np.percentile(border_d, 99)), min(4.0, otsu))
    mask = (distance > threshold).astype(np.uint8)
    k = max(3, round(min(h, w) / 150)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3 * k, 3 * k), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        raise CalibrationPhotoError("no item stands out from the table in this photo")
    largest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(largest) < MIN_ITEM_SHARE * h * w:
        raise CalibrationPhotoError("the largest region that is not table is too small")
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [largest], -1, 1, -1)
    # specks and crumbs touching the item: cut thin attachments, keep the item's body
    size = int(np.sqrt(cv2.contourArea(largest)) * 0.06) | 1
    filled = cv2.morphologyEx(
        filled, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    )
    body, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not body:
        raise CalibrationPhotoError("no item stands out from the table in this photo")
    largest = max(body, key=cv2.contourArea)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [largest], -1, 1, -1)
    hull = cv2.convexHull(largest)
    if len(hull) < 8:
        raise CalibrationPhotoError("the item's outline is too small to fit")
    dense, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(dense, key=cv2.contourArea)[:, 0, :].astype(np.float64)
    # keep the outline points on the convex hull (dents are shadows or glare, not the edge)
    hull_mask = np.zeros((h + 2, w + 2), np.uint8)
    cv2.fillPoly(hull_mask, [hull[:, 0, :] + 1], 1)
    to_hull_edge = cv2.distanceTransform(hull_mask, cv2.DIST_L2, 3)
    xy = np.round(outline).astype(np.int64) + 1
    near_hull = to_hull_edge[xy[:, 1], xy[:, 0]] < 3.5
    return ItemInPhoto(contour_px=outline[near_hull], mask=filled > 0)


#: Colours of a table (a checked cloth has two or three).
_TABLE_COLOURS = 4


def _table_colours(border: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The table's colours learnt from ``border`` ((N, 3) Lab): (centre, spread) pairs."""
    sample = border[:: max(1, len(border) // 20000)]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    k = min(_TABLE_COLOURS, len(sample))
    _, labels, centres = cv2.kmeans(sample, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    colours = []
    for c in range(k):
        members = sample[labels.ravel() == c]
        if len(members) >= 10:
            spread = np.median(np.abs(members - centres[c]), axis=0) * 1.4826 + [4.0, 2.0, 2.0]
            colours.append((centres[c], spread.astype(np.float32)))
    return colours


def _table_distance(lab: np.ndarray, table: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Distance of each Lab pixel (..., 3) to the nearest table colour, in units of that
    colour's spread; lightness counts half (shadows and light fall-off change it most)."""
    best = np.full(lab.shape[:-1], np.inf, np.float32)
    weights = np.array([0.25, 1.0, 1.0], np.float32)
    for centre, spread in table:
        z = (lab - centre) / spread
        best = np.minimum(best, np.sqrt((z * z) @ weights))
    return best


def ellipse_conic(contour_px: np.ndarray) -> np.ndarray:
    """(3, 3) symmetric conic matrix C (x^T C x = 0, photo px) of the ellipse fitted to a contour,
    refitted once without the 10 % farthest points."""
    pts = contour_px.astype(np.float32)
    for _ in range(2):
        (cx, cy), (a, b), angle = cv2.fitEllipseDirect(pts)
        conic = _conic_from_ellipse(cx, cy, a / 2, b / 2, np.deg2rad(angle))
        hom = np.column_stack([pts, np.ones(len(pts))]).astype(np.float64)
        residual = np.abs(np.einsum("ij,jk,ik->i", hom, conic, hom))
        pts = pts[residual <= np.percentile(residual, 90)]
    return conic


def _conic_from_ellipse(cx: float, cy: float, a: float, b: float, theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    # points p with ((R^T (p - c)) / (a, b))^2 = 1
    to_unit = np.array([[c / a, s / a, 0], [-s / b, c / b, 0], [0, 0, 1]]) @ np.array(
        [[1, 0, -cx], [0, 1, -cy], [0, 0, 1]]
    )
    return to_unit.T @ np.diag([1.0, 1.0, -1.0]) @ to_unit


def focal_px(image_size_px: tuple[int, int], focal_eq_mm: float) -> float:
    """Focal length in pixels of a lens of ``focal_eq_mm`` (35 mm equivalent)."""
    return focal_eq_mm / FULL_FRAME_DIAGONAL_MM * float(np.hypot(*image_size_px))


def circle_homographies(
    conic: np.ndarray, radius_mm: float, image_size_px: tuple[int, int], f_px: float
) -> list[np.ndarray]:
    """The two photo px -> side mm homographies that turn ``conic`` into the circle of
    ``radius_mm`` about the origin, for a pinhole camera of focal ``f_px`` centred on the photo.

    The in-plane turn is arbitrary (fixed later by registration).
    """
    w, h = image_size_px
    k = np.array([[f_px, 0, w / 2], [0, f_px, h / 2], [0, 0, 1.0]])
    cone = k.T @ conic @ k
    values, vectors = np.linalg.eigh(cone)
    if (values > 0).sum() == 1:
        values, vectors = -values[::-1], vectors[:, ::-1]
    order = np.argsort(values)[::-1]
    l1, l2, l3 = values[order]
    e1, e3 = vectors[:, order[0]], vectors[:, order[2]]
    homographies = []
    for sign in (1.0, -1.0):
        normal = sign * np.sqrt((l1 - l2) / (l1 - l3)) * e1 + np.sqrt((l2 - l3) / (l1 - l3)) * e3
        normal = normal if normal[2] > 0 else -normal
        to_view = _rotation_onto_z(normal)
        virtual = k @ to_view @ np.linalg.inv(k)
        c_virtual = np.linalg.inv(virtual).T @ conic @ np.linalg.inv(virtual)
        centre, radius_px = _circle_of(c_virtual)
        scale = radius_mm / radius_px
        to_mm = np.array(
            [[scale, 0, -scale * centre[0]], [0, scale, -scale * centre[1]], [0, 0, 1]]
        )
        homographies.append(to_mm @ virtual)
    return homographies


def _rotation_onto_z(v: np.ndarray) -> np.ndarray:
    """Rotation matrix taking unit vector ``v`` onto (0, 0, 1) (the smallest turn)."""
    v = v / np.linalg.norm(v)
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(v, z)
    s, c = np.linalg.norm(axis), float(v @ z)
    if s < 1e-12:
        return np.eye(3)
    axis = axis / s
    kx = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + s * kx + (1 - c) * kx @ kx


def _circle_of(conic: np.ndarray) -> tuple[np.ndarray, float]:
    """Centre and mean radius of the (nearly circular) ellipse ``conic``."""
    a = conic[:2, :2]
    centre = -np.linalg.solve(a, conic[:2, 2])
    value = float(centre @ a @ centre + 2 * conic[:2, 2] @ centre + conic[2, 2])
    axes = np.sqrt(-value / np.linalg.eigvalsh(a))
    return centre, float(np.sqrt(axes[0] * axes[1]))


def square_homography(contour_px: np.ndarray, shape: Shape) -> np.ndarray:
    """Photo px -> side mm homography of a rounded square from its four straight edges.

    Each edge's middle part (away from the rounded corners) is fitted with a line; the four
    intersections are the corners of the square of ``shape.size_mm`` the edges lie on.
    """
    pts = contour_px.astype(np.float32)
    hull = cv2.convexHull(pts)
    perimeter = cv2.arcLength(hull, True)
    quad = None
    for eps in np.linspace(0.01, 0.1, 19):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad = approx[:, 0, :].astype(np.float64)
            break
    if quad is None:
        raise CalibrationPhotoError("the item does not look like a rounded square")
    lines = []
    for k in range(4):
        p, q = quad[k], quad[(k + 1) % 4]
        d = q - p
        length = float(np.linalg.norm(d))
        t = ((contour_px - p) @ d) / length**2
        rel = contour_px - p
        off = np.abs(d[0] * rel[:, 1] - d[1] * rel[:, 0]) / length
        keep = (t > 0.2) & (t < 0.8) & (off < 0.03 * length)
        if keep.sum() < 5:
            raise CalibrationPhotoError("an edge of the rounded square is not visible")
        vx, vy, x0, y0 = cv2.fitLine(
            contour_px[keep].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        lines.append(np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0]))
    corners = []
    for k in range(4):
        c = np.cross(lines[k - 1], lines[k])
        corners.append(c[:2] / c[2])
    corners_px = np.array(corners)
    half = shape.size_mm / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    if _signed_area(corners_px) < 0:
        square = square[::-1]
    return cv2.getPerspectiveTransform(corners_px.astype(np.float32), square.astype(np.float32))


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(0.5 * (x @ np.roll(y, -1) - y @ np.roll(x, -1)))


def warp_to_art(
    image_bgr: np.ndarray, photo_to_mm: np.ndarray, size_mm: float, px_per_mm: float = ART_PX_PER_MM
) -> np.ndarray:
    """The photo resampled onto the side's art square, (N, N, 3) uint8 BGR."""
    n = round(size_mm * px_per_mm)
    mm_to_px = np.array(
        [
            [px_per_mm, 0, size_mm / 2 * px_per_mm - 0.5],
            [0, px_per_mm, size_mm / 2 * px_per_mm - 0.5],
            [0, 0, 1],
        ]
    )
    return cv2.warpPerspective(
        image_bgr,
        mm_to_px @ photo_to_mm,
        (n, n),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def rotation_about_centre(angle_rad: float) -> np.ndarray:
    """(3, 3) turn of side mm about the item centre."""
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class Registration:
    """How a view of a side turns onto a reference view: ``angle_rad`` about the centre, the
    median distance (mm) between matched features after the turn, and the match count;
    ``similarity`` (3, 3): the fitted turn, scale and shift, view side mm -> reference side mm.
    """

    angle_rad: float
    residual_mm: float
    matches: int
    similarity: np.ndarray = field(repr=False)

    @property
    def scale(self) -> float:
        """How much larger the reference shows the side than the view (1 when they agree)."""
        return float(np.hypot(self.similarity[0, 0], self.similarity[1, 0]))


def _features(view_bgr: np.ndarray, size_mm: float, px_per_mm: float):
    sift = cv2.SIFT_create(nfeatures=1500)
    n = view_bgr.shape[0]
    mask = np.zeros((n, n), np.uint8)
    cv2.circle(mask, (n // 2, n // 2), int(n * 0.47), 255, -1)
    keypoints, descriptors = sift.detectAndCompute(ink_channel(view_bgr), mask)
    pts = np.array([kp.pt for kp in keypoints], np.float64).reshape(-1, 2)
    return (pts + 0.5) / px_per_mm - size_mm / 2, descriptors


def register(
    view_bgr: np.ndarray, reference_bgr: np.ndarray, size_mm: float, px_per_mm: float
) -> Registration | None:
    """The turn about the centre that lays ``view_bgr`` onto ``reference_bgr`` (both art squares
    of one side at ``px_per_mm``), from SIFT matches of their ink channels; None if too few."""
    return _register_features(
        _features(view_bgr, size_mm, px_per_mm), _features(reference_bgr, size_mm, px_per_mm)
    )


def quarter_turn(view_bgr: np.ndarray, reference_bgr: np.ndarray) -> float:
    """The multiple of 90 degrees (radians) that best lays a square side's art square onto a
    reference one (highest correlation of the ink channels; works on plain sides too)."""
    ref = ink_channel(reference_bgr).astype(np.float32)
    ref = (ref - ref.mean()) / (ref.std() + 1e-6)
    best_k, best_score = 0, -np.inf
    for k in range(4):
        # art rows are y down: np.rot90 turns counter-clockwise on screen, i.e. by -90 degrees
        turned = np.rot90(ink_channel(view_bgr), -k).astype(np.float32)
        score = float(((turned - turned.mean()) / (turned.std() + 1e-6) * ref).mean())
        if score > best_score:
            best_k, best_score = k, score
    return best_k * np.pi / 2


def _register_features(view, reference) -> Registration | None:
    (p, dp), (q, dq) = view, reference
    if dp is None or dq is None or len(p) < 8 or len(q) < 8:
        return None
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(dp, dq, k=2)
    good = [m[0] for m in pairs if len(m) == 2 and m[0].distance < 0.8 * m[1].distance]
    if len(good) < 8:
        return None
    src = p[[m.queryIdx for m in good]]
    dst = q[[m.trainIdx for m in good]]
    m, inliers = cv2.estimateAffinePartial2D(
        src.astype(np.float32),
        dst.astype(np.float32),
        method=cv2.RANSAC,
        ransacReprojThreshold=1.5,
        maxIters=3000,
    )
    if m is None or inliers is None or inliers.sum() < 6:
        return None
    inl = inliers.ravel() > 0
    angle = float(np.arctan2(m[1, 0], m[0, 0]))
    turned = src[inl] @ rotation_about_centre(angle)[:2, :2].T
    residual = float(np.median(np.linalg.norm(turned - dst[inl], axis=1)))
    return Registration(angle, residual, int(inl.sum()), np.vstack([m, [0.0, 0.0, 1.0]]))


@dataclass(frozen=True)
class RectifiedPhoto:
    """One photo of a side, rectified: ``photo_to_mm`` (3, 3) photo px -> side mm (already
    turned onto the side's reference frame), the item found, and the working image;
    ``own_outline`` is False when the view was laid onto another photo's outline instead
    (:func:`agree_on_outline`)."""

    image_bgr: np.ndarray
    item: ItemInPhoto
    photo_to_mm: np.ndarray
    own_outline: bool = True


def rectify_photos(images_bgr: list[np.ndarray], shape: Shape) -> list[RectifiedPhoto]:
    """Rectify several photos of ONE side, all turned onto the first photo's frame.

    Rounded squares: exact from their edges, turned by quarter turns onto the first. Circles:
    each photo's focal length (from :data:`FOCAL_EQ_MM`) and branch are the ones under which
    the photos' rectified views agree best (smallest summed feature residual); a single
    photo of a round side gets the branch with the smaller tilt at 26 mm. Raises
    :class:`CalibrationPhotoError`.
    """
    if not images_bgr:
        raise CalibrationPhotoError("no photos given for this side")
    items = [find_item(img) for img in images_bgr]
    size = shape.size_mm
    if shape.kind == "circle":
        _, chosen = _most_agreeing(images_bgr, _circle_options(images_bgr, items, shape), size)
        return [
            RectifiedPhoto(img, it, _normalised(h))
            for img, it, h in zip(images_bgr, items, chosen, strict=True)
        ]
    exact = [square_homography(it.contour_px, shape) for it in items]
    first = warp_to_art(images_bgr[0], exact[0], size, _CHECK_PX_PER_MM)
    return [
        RectifiedPhoto(img, it, _normalised(rotation_about_centre(turn) @ h))
        for img, it, h in zip(images_bgr, items, exact, strict=True)
        for turn in [quarter_turn(warp_to_art(img, h, size, _CHECK_PX_PER_MM), first)]
    ]


#: Two photos' outlines of one side differ in size by more than this share when one of them
#: missed part of the item (see :func:`agree_on_outline`).
OUTLINE_SCALE_TOLERANCE = 0.02


def agree_on_outline(photos: list[RectifiedPhoto], size_mm: float) -> list[RectifiedPhoto]:
    """The photos of one side with the outlines that missed part of the item corrected.

    A pale item on a pale table (a napkin's cream margin on a beige cloth) loses its outer band
    to the table in :func:`find_item`, and its outline is then the printed border's: that
    photo's rectified view shows the side some percent too large (8% for a 5 mm margin on a
    130 mm napkin). An outline found too large is rarer and slighter (a soft shadow joining the
    item: at most 1.3% on the variant set's 90 photos), so of photos that disagree on the
    side's size (by their registered features, more than :data:`OUTLINE_SCALE_TOLERANCE`),
    the one showing it smallest has the true outline, and every photo showing it larger is
    laid onto that one by the registered similarity. Photos that cannot be registered are kept
    as they are; so are all with a single photo.
    """
    if len(photos) < 2:
        return list(photos)
    reference = max(range(len(photos)), key=lambda k: int(photos[k].item.mask.sum()))
    ref_view = _check_features(photos[reference], size_mm)
    onto_reference = [
        Registration(0.0, 0.0, 0, np.eye(3))
        if k == reference
        else _register_features(_check_features(photo, size_mm), ref_view)
        for k, photo in enumerate(photos)
    ]
    scales = [r.scale if r is not None else np.nan for r in onto_reference]
    truest = onto_reference[int(np.nanargmax(scales))]
    assert truest is not None  # the reference itself has a scale
    onto_truest = np.linalg.inv(truest.similarity)
    agreed = []
    for photo, r in zip(photos, onto_reference, strict=True):
        if r is not None and r.scale < truest.scale * (1 - OUTLINE_SCALE_TOLERANCE):
            to_mm = onto_truest @ r.similarity @ photo.photo_to_mm
            photo = RectifiedPhoto(photo.image_bgr, photo.item, _normalised(to_mm), False)
        agreed.append(photo)
    return agreed


def _check_features(photo: RectifiedPhoto, size_mm: float):
    view = warp_to_art(photo.image_bgr, photo.photo_to_mm, size_mm, _CHECK_PX_PER_MM)
    return _features(view, size_mm, _CHECK_PX_PER_MM)


def _normalised(h: np.ndarray) -> np.ndarray:
    return h / h[2, 2]


def _circle_options(images_bgr, items, shape: Shape) -> list[list[np.ndarray]]:
    """Per photo, the two branch homographies at every focal length of :data:`FOCAL_EQ_MM`
    (photos of one side may come from different lenses or zooms); a single photo: the branch
    with the smaller tilt at 26 mm."""
    conics = [ellipse_conic(it.contour_px) for it in items]
    sizes = [(img.shape[1], img.shape[0]) for img in images_bgr]
    radius = shape.size_mm / 2
    if len(images_bgr) == 1:
        options = circle_homographies(conics[0], radius, sizes[0], focal_px(sizes[0], 26.0))
        return [[min(options, key=_tilt)]]
    return [
        [h for f_eq in FOCAL_EQ_MM for h in circle_homographies(c, radius, s, focal_px(s, f_eq))]
        for c, s in zip(conics, sizes, strict=True)
    ]


def _tilt(h: np.ndarray) -> float:
    return float(np.hypot(h[2, 0], h[2, 1]) / abs(h[2, 2]))


#: Cost of a pair of views that cannot be registered at all (mm).
_UNREGISTERED_MM = 50.0


#: Photos whose choices are tried together in :func:`_most_agreeing`; each further photo then
#: takes the option that agrees best with them (the combinations grow as options ** photos).
_JOINTLY_CHOSEN = 3


def _most_agreeing(
    images_bgr: list[np.ndarray], per_photo: list[list[np.ndarray]], size_mm: float
) -> tuple[float, list[np.ndarray]]:
    """The choice of one homography per photo whose small rectified views agree best: the
    summed pairwise registration residual (mm) and the chosen homographies, each turned onto
    the first photo's frame. The first :data:`_JOINTLY_CHOSEN` photos are chosen together
    (every combination), each further one against them."""
    views = [
        [
            _features(warp_to_art(img, h, size_mm, _CHECK_PX_PER_MM), size_mm, _CHECK_PX_PER_MM)
            for h in options
        ]
        for img, options in zip(images_bgr, per_photo, strict=True)
    ]
    registered: dict[tuple[int, int, int, int], Registration | None] = {}

    def residual(i: int, a: int, j: int, b: int) -> float:
        if (i, a, j, b) not in registered:
            registered[(i, a, j, b)] = _register_features(views[j][b], views[i][a])
        r = registered[(i, a, j, b)]
        return r.residual_mm if r is not None else _UNREGISTERED_MM

    joint = range(min(len(views), _JOINTLY_CHOSEN))
    pairs = list(itertools.combinations(joint, 2))
    best: tuple[float, tuple[int, ...]] | None = None
    for combination in itertools.product(*[range(len(views[k])) for k in joint]):
        cost = sum(residual(i, combination[i], j, combination[j]) for i, j in pairs)
        if best is None or cost < best[0]:
            best = (cost, combination)
    assert best is not None
    cost, combination = best
    choice = list(combination)
    for j in range(len(joint), len(views)):
        costs = [sum(residual(i, choice[i], j, b) for i in joint) for b in range(len(views[j]))]
        choice.append(int(np.argmin(costs)))
        cost += min(costs)
    chosen = []
    for k, c in enumerate(choice):
        r = registered.get((0, choice[0], k, c)) if k > 0 else None
        turn = rotation_about_centre(r.angle_rad if r is not None else 0.0)
        chosen.append(turn @ per_photo[k][c])
    return cost, chosen


def mm_outline_in_photo(photo_to_mm: np.ndarray, outline_mm: np.ndarray) -> np.ndarray:
    """(N, 2) side-local mm -> photo px (for drawing a side's outline on its photo)."""
    inv = np.linalg.inv(photo_to_mm)
    p = np.column_stack([outline_mm, np.ones(len(outline_mm))]) @ inv.T
    return p[:, :2] / p[:, 2:3]
