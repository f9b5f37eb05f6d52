"""The table plane: one homography plus radial lens distortion, fitted jointly from all items.

Model
-----
A table point ``p_mm`` (table frame, mm, x right, y down) maps to the WORKING image as::

    u = H @ [p_mm, 1]                       (undistorted pixel, homogeneous)
    d = c + (u - c) * (1 + k1 r^2 + k2 r^4),  r = |u - c| / norm_px

with ``c`` the image centre and ``norm_px`` half the image diagonal (so k1, k2 are unitless and
independent of the focal length). An item's side-local point ``q`` (mm) lies on the table at
``center_mm + R(angle) q`` (see :mod:`games.beer_pretzels.scene`), so each matched art feature
is one observation of the model; all items share H, k1, k2.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares
from scipy.sparse import coo_matrix

#: Robust-loss scale of the joint fit (working-image px): residuals beyond it count linearly.
_LOSS_SCALE_PX = 1.5
#: Observations farther than this from the fitted model are dropped before the final fit (px).
_OUTLIER_PX = 4.0
#: Prior spread of the distortion coefficients k1 and k2 (unitless, radius in half diagonals):
#: a phone's main camera, once corrected by its own software, bends a photo's corner by a few
#: percent at most. Each coefficient's distance from zero in these units is one more residual,
#: weighed like one px of an observation's (under the same robust loss: far out it pulls
#: linearly), so features spread over the image still fit a real lens, while a few items off a
#: model that lacks them (lifted, or placed a little wrong) cannot bend the whole plane.
_DISTORTION_PRIOR = (0.1, 0.05)
#: Prior spread of how far the homography is from one a pinhole camera gives (principal point at
#: the image centre, square pixels): the cosine of the angle between the table's x and y axes
#: as the camera sees them, the log of their lengths' ratio, and the log of the focal length
#: over :data:`TYPICAL_FOCAL_PER_LONG_SIDE` (fitted along with the plane). Each is one more
#: residual, weighed like the distortion's. Features spread over the table fix all eight terms
#: of the homography without it; those of a few coasters lying close together leave its two
#: perspective terms free to take values no camera gives (held-out 0037: three coasters gave a
#: plane whose table axes met at 70 degrees; 0209: four gave axes 20 % apart in length), and
#: the table rectified with them looked nothing like its art away from those coasters.
_CAMERA_PRIOR = (0.02, 0.02, 0.3)


@dataclass(frozen=True)
class ItemPose:
    """An item side's pose on the table: ``center_mm`` and ``angle_rad`` (clockwise, y down)."""

    center_mm: tuple[float, float]
    angle_rad: float

    def local_to_table(self, points_local_mm: np.ndarray) -> np.ndarray:
        """Map (N, 2) side-local points (mm) to the table frame (mm)."""
        c, s = np.cos(self.angle_rad), np.sin(self.angle_rad)
        rotation_t = np.array([[c, s], [-s, c]])
        return np.asarray(points_local_mm, float) @ rotation_t + np.asarray(self.center_mm)

    def local_to_table_matrix(self) -> np.ndarray:
        """(3, 3) the same map as :meth:`local_to_table`, on homogeneous points (mm -> mm)."""
        c, s = np.cos(self.angle_rad), np.sin(self.angle_rad)
        x, y = self.center_mm
        return np.array([[c, -s, x], [s, c, y], [0.0, 0.0, 1.0]])

    def table_to_local(self, points_table_mm: np.ndarray) -> np.ndarray:
        """Map (N, 2) table points (mm) into the side-local frame (mm)."""
        c, s = np.cos(self.angle_rad), np.sin(self.angle_rad)
        rotation = np.array([[c, -s], [s, c]])
        return (np.asarray(points_table_mm, float) - np.asarray(self.center_mm)) @ rotation


@dataclass(frozen=True)
class TablePlane:
    """Table plane (mm) <-> working image (px) with radial distortion about the image centre."""

    table_to_undistorted: np.ndarray  # (3, 3) homography, table mm -> undistorted working px
    k1: float
    k2: float
    image_size_px: tuple[int, int]  # (width, height) of the working image

    @property
    def _centre(self) -> np.ndarray:
        w, h = self.image_size_px
        return np.array([w / 2.0, h / 2.0])

    @property
    def _norm(self) -> float:
        w, h = self.image_size_px
        return float(np.hypot(w, h) / 2.0)

    def table_to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Map (N, 2) table points (mm) to working-image pixels (N, 2)."""
        u = _apply_h(self.table_to_undistorted, np.asarray(points_mm, float).reshape(-1, 2))
        return self.distort(u)

    def image_to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Map (N, 2) working-image pixels to table points (mm)."""
        u = self.undistort(np.asarray(points_px, float).reshape(-1, 2))
        return _apply_h(np.linalg.inv(self.table_to_undistorted), u)

    def distort(self, undistorted_px: np.ndarray) -> np.ndarray:
        c, n = self._centre, self._norm
        v = (undistorted_px - c) / n
        r2 = (v**2).sum(axis=1, keepdims=True)
        return c + v * n * (1 + self.k1 * r2 + self.k2 * r2**2)

    def undistort(self, distorted_px: np.ndarray) -> np.ndarray:
        c, n = self._centre, self._norm
        vd = (distorted_px - c) / n
        v = vd.copy()
        for _ in range(8):
            r2 = (v**2).sum(axis=1, keepdims=True)
            v = vd / (1 + self.k1 * r2 + self.k2 * r2**2)
        return c + v * n

    def scale_px_per_mm(self, point_mm: tuple[float, float]) -> float:
        """Local image scale at a table point: working px per table mm (geometric mean)."""
        p = np.array([point_mm, (point_mm[0] + 1, point_mm[1]), (point_mm[0], point_mm[1] + 1)])
        q = self.table_to_image(p)
        jac = np.stack([q[1] - q[0], q[2] - q[0]], axis=1)
        return float(np.sqrt(abs(np.linalg.det(jac))))


#: Focal length of a typical phone's main camera, in px per px of the image's long side
#: (26 mm-equivalent lenses: 0.6-0.87).
TYPICAL_FOCAL_PER_LONG_SIDE = 0.75


#: Where IPPE's second pose reprojects one item's features within this factor of the first's
#: error, the two are not told apart by them (a coaster 30 px across, blurred: held-out 0037's
#: two poses, tilted 5 and 37 degrees, were 0.39 and 0.40 px off; the table was at 35).
IPPE_AMBIGUOUS_ERROR_RATIO = 1.5


def camera_homographies(
    points_local_mm: np.ndarray, points_px: np.ndarray, image_size_px: tuple[int, int]
) -> list[np.ndarray]:
    """Homographies (item-local mm -> working px) of one flat item, as a phone camera sees it:
    the likelier first, and the other of the two poses that mirror each other where the item's
    features do not tell them apart (:data:`IPPE_AMBIGUOUS_ERROR_RATIO`).

    A free homography fitted to one coaster's features gets its perspective (the two terms that
    make far parts of the table smaller) from a few cm of art, so it can be far off across
    the table. Here a pinhole camera with the typical phone focal length
    (:data:`TYPICAL_FOCAL_PER_LONG_SIDE`), square pixels and its principal point at the image
    centre is placed instead (IPPE, :func:`cv2.solvePnPGeneric`): the item's foreshortening
    fixes the table's tilt up to a mirror ambiguity, settled by the smaller reprojection error
    where it can be. ``points_local_mm`` (N, 2) and ``points_px`` (N, 2) are matched pairs,
    N >= 4.
    """
    camera = _phone_camera(image_size_px)
    objects = np.column_stack([points_local_mm, np.zeros(len(points_local_mm))])
    _, rvecs, tvecs, errors = cv2.solvePnPGeneric(
        objects.astype(np.float64),
        np.asarray(points_px, np.float64),
        camera,
        None,
        flags=cv2.SOLVEPNP_IPPE,
    )
    errors = np.asarray(errors, float).ravel()
    order = np.argsort(errors)
    errors = errors[order]
    homographies = [
        _homography_of_pose(np.concatenate([rvecs[k].ravel(), tvecs[k].ravel()]), camera)
        for k in order
    ]
    ambiguous = len(errors) > 1 and errors[1] <= IPPE_AMBIGUOUS_ERROR_RATIO * max(errors[0], 1e-9)
    return homographies[:2] if ambiguous else homographies[:1]


def _phone_camera(image_size_px: tuple[int, int]) -> np.ndarray:
    """(3, 3) intrinsics of a typical phone camera for a working image of this size (px)."""
    w, h = image_size_px
    focal = TYPICAL_FOCAL_PER_LONG_SIDE * max(w, h)
    return np.array([[focal, 0, (w - 1) / 2], [0, focal, (h - 1) / 2], [0, 0, 1]])


def _homography_of_pose(pose: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Table mm -> px homography of a camera at ``pose`` (rotation vector, translation mm)."""
    rotation, _ = cv2.Rodrigues(pose[:3])
    hom = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], pose[3:]])
    return hom / hom[2, 2]


@dataclass(frozen=True)
class ItemObservation:
    """Matched art features of one item: side-local mm <-> working-image px, both (N, 2)."""

    points_local_mm: np.ndarray
    points_px: np.ndarray


@dataclass(frozen=True)
class PlaneFit:
    """Result of :func:`fit_table_plane`: the plane, each item's pose and the fit residual."""

    plane: TablePlane
    poses: tuple[ItemPose, ...]
    rms_px: float
    inlier_masks: tuple[np.ndarray, ...]


def _apply_h(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    q = points @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


def fit_table_plane(
    observations: list[ItemObservation],
    image_size_px: tuple[int, int],
    initial_table_to_image: np.ndarray,
    initial_poses: list[ItemPose],
    *,
    with_distortion: bool = True,
) -> PlaneFit:
    """Fit H, k1, k2 and every item pose to all observations at once (robust least squares).

    The table frame is fixed by the initial homography: the fit refines it, so poses stay in the
    frame of ``initial_table_to_image`` (table mm -> working px). The first item is the anchor of
    the gauge (its pose is held fixed). Distortion is only fitted when the observations span
    enough of the image to constrain it, and then held near none by :data:`_DISTORTION_PRIOR`.
    """
    if len(observations) != len(initial_poses) or not observations:
        raise ValueError("one initial pose per observation, at least one observation")
    local = np.concatenate([o.points_local_mm for o in observations])
    observed = np.concatenate([o.points_px for o in observations])
    owner = np.concatenate([np.full(len(o.points_px), i) for i, o in enumerate(observations)])
    n_items = len(observations)
    h0 = np.asarray(initial_table_to_image, float)
    h0 = h0 / h0[2, 2]
    w, h = image_size_px
    spread = np.ptp(observed, axis=0) / np.array([w, h]) if len(observed) else np.zeros(2)
    fit_distortion = with_distortion and n_items >= 4 and float(spread.min()) > 0.35
    mask = np.ones(len(observed), bool)

    # x: the homography's 8 free terms, k1 and k2 when fitted, the log focal ratio, the poses
    n_global = 11 if fit_distortion else 9

    def unpack(x: np.ndarray) -> tuple[TablePlane, np.ndarray]:
        hom = np.append(x[:8], 1.0).reshape(3, 3)
        k1, k2 = (x[8], x[9]) if fit_distortion else (0.0, 0.0)
        poses = np.vstack([initial_pose_vec[0], x[n_global:].reshape(-1, 3)])
        return TablePlane(hom, float(k1), float(k2), image_size_px), poses

    initial_pose_vec = np.array([[*p.center_mm, p.angle_rad] for p in initial_poses], float)
    x0 = np.concatenate(
        [
            h0.ravel()[:8],
            [0.0, 0.0] if fit_distortion else [],
            [_log_focal_ratio(h0, image_size_px)],
            initial_pose_vec[1:].ravel(),
        ]
    )

    def residuals(x: np.ndarray, keep: np.ndarray) -> np.ndarray:
        plane, poses = unpack(x)
        pose = poses[owner[keep]]
        c, s = np.cos(pose[:, 2]), np.sin(pose[:, 2])
        q = local[keep]
        table = np.stack(
            [c * q[:, 0] - s * q[:, 1] + pose[:, 0], s * q[:, 0] + c * q[:, 1] + pose[:, 1]], 1
        )
        residual = (plane.table_to_image(table) - observed[keep]).ravel()
        camera = _camera_terms(plane.table_to_undistorted, x[n_global - 1], image_size_px)
        priors = [camera / np.array(_CAMERA_PRIOR)]
        if fit_distortion:
            priors.insert(0, [plane.k1, plane.k2] / np.array(_DISTORTION_PRIOR))
        return np.concatenate([residual, *priors])

    def sparsity(keep: np.ndarray) -> coo_matrix:
        # each residual depends on the shared parameters but the focal length (the camera
        # prior's alone) and on its own item's pose only
        rows_owner = np.repeat(owner[keep], 2)
        n_rows = len(rows_owner)
        rows_g = np.repeat(np.arange(n_rows), n_global - 1)
        cols_g = np.tile(np.arange(n_global - 1), n_rows)
        has_pose = rows_owner > 0
        rows_p = np.repeat(np.flatnonzero(has_pose), 3)
        cols_p = (n_global + 3 * (rows_owner[has_pose] - 1))[:, None] + np.arange(3)
        rows = np.concatenate([rows_g, rows_p])
        cols = np.concatenate([cols_g, cols_p.ravel()])
        if fit_distortion:  # the distortion prior's rows: k1, k2 alone
            rows = np.concatenate([rows, [n_rows, n_rows + 1]])
            cols = np.concatenate([cols, [8, 9]])
            n_rows += 2
        # the camera prior's rows: the homography and the focal length
        camera_cols = np.array([*range(8), n_global - 1])
        rows = np.concatenate([rows, np.repeat(n_rows + np.arange(3), len(camera_cols))])
        cols = np.concatenate([cols, np.tile(camera_cols, 3)])
        n_rows += 3
        return coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, len(x0)))

    x = x0
    for _ in range(2):
        result = least_squares(
            residuals,
            x,
            args=(mask,),
            loss="soft_l1",
            f_scale=_LOSS_SCALE_PX,
            x_scale="jac",
            jac_sparsity=sparsity(mask),
            tr_solver="lsmr",
        )
        x = result.x
        all_res = residuals(x, np.ones(len(observed), bool))[: 2 * len(observed)].reshape(-1, 2)
        err = np.hypot(all_res[:, 0], all_res[:, 1])
        new_mask = err < _OUTLIER_PX
        # never let an item lose all its observations
        for i in range(n_items):
            sel = owner == i
            if new_mask[sel].sum() < 2:
                new_mask[sel] = err[sel] <= np.sort(err[sel])[min(1, sel.sum() - 1)]
        if np.array_equal(new_mask, mask):
            break
        mask = new_mask
    plane, poses = unpack(x)
    final = residuals(x, mask)[: 2 * int(mask.sum())].reshape(-1, 2)
    rms = float(np.sqrt((final**2).sum(axis=1).mean())) if len(final) else 0.0
    return PlaneFit(
        plane=plane,
        poses=tuple(ItemPose((float(p[0]), float(p[1])), float(p[2])) for p in poses),
        rms_px=rms,
        inlier_masks=tuple(mask[owner == i] for i in range(n_items)),
    )


def _camera_terms(
    table_to_undistorted: np.ndarray, log_focal_ratio: float, image_size_px: tuple[int, int]
) -> np.ndarray:
    """(3,) how far a homography (table mm -> undistorted working px) is from a pinhole camera's
    with the focal length ``exp(log_focal_ratio)`` times the typical one, principal point at the
    image centre: the cosine between the table's axes in the camera frame, the log of their
    lengths' ratio there, and ``log_focal_ratio`` itself (all zero for a typical camera)."""
    w, h = image_size_px
    focal = TYPICAL_FOCAL_PER_LONG_SIDE * max(w, h) * np.exp(log_focal_ratio)
    hom = np.asarray(table_to_undistorted, float)
    axes = np.vstack(
        [
            (hom[0, :2] - w / 2 * hom[2, :2]) / focal,
            (hom[1, :2] - h / 2 * hom[2, :2]) / focal,
            hom[2, :2],
        ]
    )
    x_len, y_len = np.linalg.norm(axes, axis=0)
    cosine = float(axes[:, 0] @ axes[:, 1]) / (x_len * y_len)
    return np.array([cosine, np.log(x_len / y_len), log_focal_ratio])


def _log_focal_ratio(table_to_undistorted: np.ndarray, image_size_px: tuple[int, int]) -> float:
    """The log focal ratio (see :func:`_camera_terms`) within a factor 1.65 either way with which
    the homography is closest to a camera's: where the fit starts."""
    candidates = np.linspace(-0.5, 0.5, 21)
    misfit = [
        np.abs(_camera_terms(table_to_undistorted, c, image_size_px)[:2]).sum() for c in candidates
    ]
    return float(candidates[int(np.argmin(misfit))])


def place_on_plane(
    plane: TablePlane, observation: ItemObservation, *, max_scale: float = 1.0
) -> tuple[ItemPose, np.ndarray]:
    """An item's pose on a known ``plane`` and the (N,) mask of its observations that fit it.

    The pose is the rigid motion (least squares) taking the side-local points (mm) to where
    their image points (working px) land on the table; it is fitted again without the points
    farther than :data:`_OUTLIER_PX` from it in the image (a few rounds at most, while at least
    two points remain). ``max_scale`` > 1: the local points may be measured on another scale
    (a napkin's edge points in mm of a coarser plane), by up to that factor either way; they
    are scaled about the side's centre (local origin) by the factor that fits them best (least
    squares, within the bounds) before the rigid motion, so the pose keeps its centre and angle.
    """
    local = np.asarray(observation.points_local_mm, float)
    table = plane.image_to_table(observation.points_px)
    keep = np.ones(len(local), bool)
    for _ in range(3):
        scaled = local * _scale_between(local[keep], table[keep], max_scale)
        pose, _ = rigid_fit(scaled[keep], table[keep])
        seen_px = plane.table_to_image(pose.local_to_table(scaled))
        fits = np.linalg.norm(seen_px - observation.points_px, axis=1) < _OUTLIER_PX
        if fits.sum() < 2 or np.array_equal(fits, keep):
            break
        keep = fits
    return pose, fits


def _scale_between(local_mm: np.ndarray, table_mm: np.ndarray, max_scale: float) -> float:
    """The factor (1 / ``max_scale`` .. ``max_scale``) by which the (N, 2) points ``local_mm``
    spread about their centroid as the matching ``table_mm`` spread about theirs (the root of
    the ratio of the sums of squared distances); 1.0 where ``max_scale`` is 1."""
    if max_scale <= 1.0:
        return 1.0
    a = local_mm - local_mm.mean(axis=0)
    b = table_mm - table_mm.mean(axis=0)
    spread = float((a * a).sum())
    if spread <= 0.0:
        return 1.0
    factor = float(np.sqrt((b * b).sum() / spread))
    return float(np.clip(factor, 1.0 / max_scale, max_scale))


def rigid_fit(local_mm: np.ndarray, table_mm: np.ndarray) -> tuple[ItemPose, np.ndarray]:
    """The rotation and translation (least squares, no scale) taking (N, 2) side-local points
    ``local_mm`` onto ``table_mm``, as an item pose; and each point's residual (N,) in mm."""
    a, b = local_mm - local_mm.mean(axis=0), table_mm - table_mm.mean(axis=0)
    angle = float(np.arctan2((a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum(), (a * b).sum()))
    pose = ItemPose((0.0, 0.0), angle)
    rotated = pose.local_to_table(local_mm)
    centre = (table_mm - rotated).mean(axis=0)
    residual = np.linalg.norm(rotated + centre - table_mm, axis=1)
    return ItemPose((float(centre[0]), float(centre[1])), angle), residual


def pose_of_similarity(local_to_table: np.ndarray) -> ItemPose:
    """The rigid pose of an item given its (3, 3) map item-local mm -> table mm, a homography
    that is nearly a rotation plus translation (e.g. the table's image homography inverted, times
    the item's): the translation, and the rotation closest to the linear part."""
    s = local_to_table / local_to_table[2, 2]
    angle = float(np.arctan2(s[1, 0] - s[0, 1], s[0, 0] + s[1, 1]))
    return ItemPose((float(s[0, 2]), float(s[1, 2])), angle)
