"""A hand-held phone camera looking at the table: pinhole, radial distortion, sampled framing.

Conventions
-----------
* World frame = the table frame of :mod:`games.beer_pretzels.scene`, extended to 3-D: x right,
  y DOWN on the table (mm), z pointing INTO the table, so a point at height ``h`` above the table
  top has ``z = -h`` (right-handed).
* ``R`` maps world to camera axes: ``p_cam = R @ (p_world - center_mm)``; the camera looks along
  its +z axis, image x right, image y down.
* Undistorted normalised coordinates ``(x, y) = p_cam[:2] / p_cam[2]``; the lens distorts them
  radially: ``(x, y) * (1 + k1 r^2 + k2 r^4)`` with ``r^2 = x^2 + y^2``.
* Pixel = ``f_px * distorted + (W / 2, H / 2)``, in the photo as displayed (EXIF applied), pixel
  centres at integer coordinates (the cv2 convention).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

#: Diagonal of the 35 mm film frame; a phone's "equivalent focal length" is relative to it.
FULL_FRAME_DIAGONAL_MM = 43.27


@dataclass(frozen=True)
class Camera:
    """A posed pinhole camera with two-term radial distortion (see the module conventions)."""

    size_px: tuple[int, int]  # (width, height) of the displayed photo
    f_px: float
    R: np.ndarray  # (3, 3) world -> camera rotation
    center_mm: np.ndarray  # (3,) camera centre in the world frame (mm), z < 0 above the table
    k1: float = 0.0
    k2: float = 0.0
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0

    @property
    def principal_px(self) -> tuple[float, float]:
        return (self.size_px[0] / 2.0, self.size_px[1] / 2.0)

    def to_camera(self, points_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """World points ((N, 2) on the plane at ``height_mm``, or (N, 3)) -> camera frame (N, 3)."""
        pts = np.asarray(points_mm, dtype=np.float64)
        if pts.shape[-1] == 2:
            z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), pts.shape[:-1])
            pts = np.concatenate([pts, z[..., None]], axis=-1)
        return (pts - self.center_mm) @ self.R.T

    def project(self, points_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """World points -> displayed-photo pixels with lens distortion, (N, 2) float64."""
        cam = self.to_camera(points_mm, height_mm)
        xy = cam[..., :2] / cam[..., 2:3]
        r2 = (xy**2).sum(axis=-1, keepdims=True)
        xy = xy * (1.0 + self.k1 * r2 + self.k2 * r2 * r2)
        return xy * self.f_px + np.asarray(self.principal_px)

    def depth_mm(self, points_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Distance of world points along the optical axis (mm), (N,)."""
        return self.to_camera(points_mm, height_mm)[..., 2]

    def plane_homography(self, height_mm: float, offset_px: tuple[float, float] = (0.0, 0.0)):
        """3x3 homography: table mm on the plane at ``height_mm`` -> UNDISTORTED pixels.

        ``offset_px`` shifts the result (pixel = undistorted pixel - offset), for rendering on a
        canvas whose origin is not the photo's.
        """
        cx, cy = self.principal_px
        K = np.array(
            [[self.f_px, 0.0, cx - offset_px[0]], [0.0, self.f_px, cy - offset_px[1]], [0, 0, 1]]
        )
        t = -self.R @ self.center_mm
        M = np.column_stack([self.R[:, 0], self.R[:, 1], t - self.R[:, 2] * height_mm])
        return K @ M

    def undistortion_maps(self, step_px: int = 8) -> tuple[np.ndarray, np.ndarray]:
        """For every displayed pixel, the undistorted pixel it shows: (map_x, map_y) float32.

        Ready for ``cv2.remap(undistorted_image, map_x, map_y, ...)``. Computed on a grid every
        ``step_px`` pixels by fixed-point inversion of the distortion, then interpolated.
        """
        w, h = self.size_px
        cx, cy = self.principal_px
        pad = 2 * step_px
        gw, gh = (w + 2 * pad) // step_px + 2, (h + 2 * pad) // step_px + 2
        # Node k of the grid sits where cv2.resize puts it: pixel (k + 0.5) * step - 0.5 - pad.
        nodes_x = (np.arange(gw) + 0.5) * step_px - 0.5 - pad
        nodes_y = (np.arange(gh) + 0.5) * step_px - 0.5 - pad
        gx, gy = np.meshgrid(nodes_x, nodes_y)
        xd = (gx - cx) / self.f_px
        yd = (gy - cy) / self.f_px
        xu, yu = xd.copy(), yd.copy()
        for _ in range(12):
            r2 = xu * xu + yu * yu
            scale = 1.0 + self.k1 * r2 + self.k2 * r2 * r2
            xu, yu = xd / scale, yd / scale
        ux = (xu * self.f_px + cx).astype(np.float32)
        uy = (yu * self.f_px + cy).astype(np.float32)
        full = (gw * step_px, gh * step_px)
        map_x = cv2.resize(ux, full, interpolation=cv2.INTER_LINEAR)
        map_y = cv2.resize(uy, full, interpolation=cv2.INTER_LINEAR)
        return (
            np.ascontiguousarray(map_x[pad : pad + h, pad : pad + w]),
            np.ascontiguousarray(map_y[pad : pad + h, pad : pad + w]),
        )

    @property
    def has_distortion(self) -> bool:
        return self.k1 != 0.0 or self.k2 != 0.0

    def to_json(self) -> dict[str, Any]:
        """The camera as plain JSON (same fields as the dev set's ``camera``)."""
        return {
            "f_px": round(self.f_px, 2),
            "tilt_deg": round(self.tilt_deg, 2),
            "yaw_deg": round(self.yaw_deg, 2),
            "roll_deg": round(self.roll_deg, 2),
            "k1": round(self.k1, 5),
            "k2": round(self.k2, 5),
            "height_mm": round(float(-self.center_mm[2]), 1),
            "center_mm": [round(float(v), 2) for v in self.center_mm],
            "R": [[round(float(v), 7) for v in row] for row in self.R],
        }


def rotation_from_angles(tilt_deg: float, yaw_deg: float, roll_deg: float) -> np.ndarray:
    """World -> camera rotation of a camera tilted ``tilt_deg`` from straight down.

    At zero angles the camera looks straight down with image x = table x and image y = table y.
    ``tilt`` turns the view towards the far side (the top of the image), ``yaw`` turns the
    camera about the vertical (clockwise on the table), ``roll`` about its optical axis.
    """
    t, y, r = np.deg2rad([tilt_deg, yaw_deg, roll_deg])
    rx = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    rz_yaw = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    rz_roll = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    camera_to_world = rz_yaw @ rx @ rz_roll
    return camera_to_world.T


@dataclass(frozen=True)
class CameraRanges:
    """Ranges a phone camera is sampled from (degrees, mm equivalent focal length, fill)."""

    max_tilt_deg: float = 45.0
    max_roll_deg: float = 4.0
    focal_eq_mm: tuple[float, float] = (22.0, 30.0)
    tele_share: float = 0.1  # share of shots with the 2x lens (~48-54 mm equivalent)
    k1: tuple[float, float] = (-0.06, 0.1)
    k2: tuple[float, float] = (-0.015, 0.015)
    fill: tuple[float, float] = (0.72, 0.96)  # share of the half-frame the game reaches


def sample_camera(
    rng: np.random.Generator,
    size_px: tuple[int, int],
    frame_points_mm: np.ndarray,
    ranges: CameraRanges,
) -> Camera:
    """A phone camera framing every point of ``frame_points_mm`` ((N, 2) table mm).

    Tilt is drawn in [0, max_tilt], yaw in [0, 360), the focal length from the phone ranges;
    the distance is then solved so that the farthest framed point reaches ``fill`` of the
    half-frame (lens distortion included), with the aim point jittered off the game's centre.
    """
    w, h = size_px
    tilt = float(ranges.max_tilt_deg * np.sqrt(rng.uniform(0.0, 1.0)))
    yaw = float(rng.uniform(0.0, 360.0))
    roll = float(rng.uniform(-ranges.max_roll_deg, ranges.max_roll_deg))
    if rng.random() < ranges.tele_share:
        focal_eq = float(rng.uniform(48.0, 54.0))
    else:
        focal_eq = float(rng.uniform(*ranges.focal_eq_mm))
    f_px = focal_eq / FULL_FRAME_DIAGONAL_MM * float(np.hypot(w, h))
    R = rotation_from_angles(tilt, yaw, roll)
    forward = R[2]  # camera +z in world coordinates
    pts = np.asarray(frame_points_mm, dtype=np.float64)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    target = np.array([*((lo + hi) / 2 + rng.normal(0.0, 0.04, 2) * (hi - lo)), 0.0])
    fill = float(rng.uniform(*ranges.fill))
    k1 = float(rng.uniform(*ranges.k1))
    k2 = float(rng.uniform(*ranges.k2))

    def reach(distance: float) -> float:
        """How far out the farthest point lands, as a share of the half-frame (distorted)."""
        px = Camera(size_px, f_px, R, target - forward * distance, k1, k2).project(pts)
        return float(
            max(np.abs(px[:, 0] - w / 2).max() / (w / 2), np.abs(px[:, 1] - h / 2).max() / (h / 2))
        )

    distance = 1500.0
    for _ in range(10):
        distance *= reach(distance) / fill
    while reach(distance) > fill + 0.005:
        distance *= 1.01
    return Camera(
        size_px=size_px,
        f_px=f_px,
        R=R,
        center_mm=target - forward * distance,
        k1=k1,
        k2=k2,
        tilt_deg=tilt,
        yaw_deg=yaw,
        roll_deg=roll,
    )
