"""The table plane model: distortion round trip and the joint fit of plane, distortion, poses."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.plane import (
    ItemObservation,
    ItemPose,
    TablePlane,
    camera_homographies,
    fit_table_plane,
    place_on_plane,
)

SIZE = (1600, 1200)


def _plane(k1: float = 0.0) -> TablePlane:
    h = np.array([[1.8, 0.2, 300.0], [-0.1, 1.5, 200.0], [0.0, 0.0004, 1.0]])
    return TablePlane(h, k1, 0.0, SIZE)


@pytest.mark.parametrize("k1", [0.0, 0.06, -0.04])
def test_image_to_table_inverts_table_to_image(k1: float) -> None:
    plane = _plane(k1)
    table = np.array([[0.0, 0.0], [300.0, 120.0], [650.0, 500.0], [-50.0, 400.0]])
    back = plane.image_to_table(plane.table_to_image(table))
    assert np.allclose(back, table, atol=1e-3)


def test_joint_fit_recovers_plane_distortion_and_poses() -> None:
    truth = _plane(0.05)
    rng = np.random.default_rng(3)
    poses = [
        ItemPose((float(x), float(y)), float(a))
        for x, y, a in zip(
            rng.uniform(0, 600, 8), rng.uniform(0, 500, 8), rng.uniform(-3, 3, 8), strict=True
        )
    ]
    observations = []
    for pose in poses:
        local = rng.uniform(-38, 38, (30, 2))
        px = truth.table_to_image(pose.local_to_table(local)) + rng.normal(0, 0.3, (30, 2))
        observations.append(ItemObservation(local, px))
    # start from a perturbed plane and poses, in the frame of the true homography
    start = truth.table_to_undistorted * np.array([[1.02, 0, 1], [0, 0.98, 1], [0, 0, 1]])
    start_poses = [
        ItemPose((p.center_mm[0] + 3, p.center_mm[1] - 2), p.angle_rad + 0.03) for p in poses
    ]
    start_poses[0] = poses[0]
    fit = fit_table_plane(observations, SIZE, start, start_poses)
    assert fit.rms_px < 0.6
    assert fit.plane.k1 > 0.02  # the barrel distortion is seen (k1 trades off with H a little)
    probe = np.array([[100.0, 100.0], [500.0, 400.0], [300.0, 250.0]])
    assert np.allclose(fit.plane.table_to_image(probe), truth.table_to_image(probe), atol=1.0)
    # the table frame is anchored on the (noisy) first item: compare the layout, not the frame
    got_c = np.array([p.center_mm for p in fit.poses])
    want_c = np.array([p.center_mm for p in poses])
    got_d = np.linalg.norm(got_c[:, None] - got_c[None], axis=2)
    want_d = np.linalg.norm(want_c[:, None] - want_c[None], axis=2)
    assert np.abs(got_d - want_d).max() < 0.8
    turn = [g.angle_rad - w.angle_rad for g, w in zip(fit.poses, poses, strict=True)]
    assert np.ptp(np.angle(np.exp(1j * np.array(turn)))) < 0.01


def test_joint_fit_keeps_a_phone_lens_when_some_items_do_not_fit_the_model() -> None:
    """Three of twelve items lie on others, so the camera sees them a little larger than their
    art (4 %): an unconstrained lens bends up to 11 % at the corners to absorb them (mean 4 %),
    the prior on k1, k2 keeps the lens close to the true one (no distortion)."""
    homography = np.array([[1.1, 0.2, 300.0], [-0.1, 1.0, 250.0], [0.0, 0.0003, 1.0]])
    truth = TablePlane(homography, 0.0, 0.0, SIZE)
    radius = np.linspace(0.0, 1.0, 21)
    bends = []
    for seed in range(12):
        rng = np.random.default_rng(seed)
        centres = np.column_stack([rng.uniform(-100, 900, 12), rng.uniform(-100, 800, 12)])
        poses = [
            ItemPose((x, y), a) for (x, y), a in zip(centres, rng.uniform(-3, 3, 12), strict=True)
        ]
        observations = []
        for k, pose in enumerate(poses):
            local = rng.uniform(-38, 38, (25, 2))
            seen = truth.table_to_image(pose.local_to_table(local * (1.04 if k >= 9 else 1.0)))
            observations.append(ItemObservation(local, seen + rng.normal(0, 0.3, (25, 2))))
        plane = fit_table_plane(observations, SIZE, homography, poses).plane
        bends.append(np.abs(plane.k1 * radius**2 + plane.k2 * radius**4).max())
    assert max(bends) < 0.07
    assert np.mean(bends) < 0.03


def test_item_is_placed_on_a_known_plane_without_its_stray_points() -> None:
    plane = _plane(0.05)
    pose = ItemPose((250.0, 320.0), 2.1)
    rng = np.random.default_rng(5)
    local = rng.uniform(-38, 38, (20, 2))
    px = plane.table_to_image(pose.local_to_table(local)) + rng.normal(0, 0.3, (20, 2))
    px[:3] += [25.0, -18.0]  # three features matched to the wrong place
    placed, fits = place_on_plane(plane, ItemObservation(local, px))
    assert np.hypot(*np.subtract(placed.center_mm, pose.center_mm)) < 0.3
    assert abs(placed.angle_rad - pose.angle_rad) < 0.005
    assert fits.tolist() == [False] * 3 + [True] * 17


def _square_edge_points(half_mm: float, per_side: int = 16) -> np.ndarray:
    """(4 * per_side, 2) side-local mm: points along the four sides of a square."""
    t = np.linspace(-0.8 * half_mm, 0.8 * half_mm, per_side)
    ones = np.full_like(t, half_mm)
    return np.concatenate(
        [np.stack(xy, axis=1) for xy in ((ones, t), (-ones, t), (t, ones), (t, -ones))]
    )


def test_points_measured_on_another_scale_are_placed_when_the_scale_may_vary() -> None:
    # a napkin's edge points in mm of a plane 9% off in scale: 142 mm apart for a 130 mm napkin
    plane = _plane(0.05)
    pose = ItemPose((250.0, 320.0), 0.7)
    true_local = _square_edge_points(65.0)
    px = plane.table_to_image(pose.local_to_table(true_local))
    observation = ItemObservation(true_local * 1.09, px)
    _, rigid_fits = place_on_plane(plane, observation)
    assert rigid_fits.sum() < 6
    placed, fits = place_on_plane(plane, observation, max_scale=1.15)
    assert fits.all()
    assert np.hypot(*np.subtract(placed.center_mm, pose.center_mm)) < 0.3
    assert abs(placed.angle_rad - pose.angle_rad) < 0.005
    # beyond the scale allowed, it does not fit
    far = ItemObservation(true_local * 1.3, px)
    assert place_on_plane(plane, far, max_scale=1.15)[1].sum() < 6


def test_pose_maps_local_to_table_and_back() -> None:
    pose = ItemPose((100.0, 50.0), np.deg2rad(30))
    local = np.array([[10.0, 0.0], [0.0, 10.0]])
    table = pose.local_to_table(local)
    # positive angle turns clockwise on the y-down table: +x goes towards +y
    assert table[0, 1] > 50.0
    assert np.allclose(pose.table_to_local(table), local)
    homogeneous = np.column_stack([local, np.ones(len(local))]) @ pose.local_to_table_matrix().T
    assert np.allclose(homogeneous[:, :2], table) and np.allclose(homogeneous[:, 2], 1.0)


def test_camera_homography_places_the_table_far_beyond_one_coaster() -> None:
    """One 100 mm coaster seen at 35 degrees tilt from 1.2 m, 15 features with 1.5 px of noise:
    the camera-consistent homography predicts where table points 600 mm away land (though the
    camera's focal length is not the typical one); a free homography of the same features
    does not."""
    size = (2016, 1512)
    focal = 0.85 * size[0]  # not the assumed typical focal length
    camera = np.array([[focal, 0, 1007.5], [0, focal, 755.5], [0, 0, 1]])
    rotation, _ = cv2.Rodrigues(np.array([np.radians(35.0), 0.1, 0.3]))
    truth = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], [-40.0, 30.0, 1200.0]])
    truth = TablePlane(truth / truth[2, 2], 0.0, 0.0, size)
    rng = np.random.default_rng(5)
    local = rng.uniform(-50, 50, (15, 2))
    px = truth.table_to_image(local) + rng.normal(0, 1.5, (15, 2))
    far = np.array([[600.0, 0.0], [-600.0, 0.0], [0.0, 600.0], [0.0, -600.0]])
    expected = truth.table_to_image(far)

    def error(hom: np.ndarray) -> float:
        return float(np.abs(TablePlane(hom, 0.0, 0.0, size).table_to_image(far) - expected).max())

    free, _ = cv2.findHomography(local, px, 0)
    placed = error(camera_homographies(local, px, size)[0])
    assert placed < 100.0
    assert placed < error(free) / 2


def _phone_view(
    size: tuple[int, int], focal_per_long_side: float, tilt_deg: float, distance_mm: float
) -> TablePlane:
    """A phone camera's view of the table (table mm -> px), principal point at the centre."""
    focal = focal_per_long_side * max(size)
    camera = np.array([[focal, 0, (size[0] - 1) / 2], [0, focal, (size[1] - 1) / 2], [0, 0, 1]])
    rotation, _ = cv2.Rodrigues(np.array([np.radians(tilt_deg), 0.05, 0.4]))
    hom = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], [-60.0, 40.0, distance_mm]])
    return TablePlane(hom / hom[2, 2], 0.0, 0.0, size)


def test_joint_fit_of_coasters_close_together_keeps_a_camera_s_perspective() -> None:
    """Three coasters side by side, 0.53 px per mm, seen at 35 degrees by a camera whose focal
    length is not the typical one, 12 features each 1 px off: the plane fitted to them places
    table points 500 mm away within 20 px of where the camera sees them, in each of 8 draws of
    the noise; a free homography of the same features (poses known) is off by twice as much."""
    size = (1280, 960)
    truth = _phone_view(size, 0.83, 35.0, 1800.0)
    far = np.array([[500.0, 0.0], [-500.0, 0.0], [0.0, 500.0], [0.0, -500.0]])
    expected = truth.table_to_image(far)
    poses = [ItemPose((0.0, 0.0), 0.3), ItemPose((95.0, 10.0), -1.0), ItemPose((40.0, 90.0), 2.0)]
    fitted, free = [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        observations, table = [], []
        for pose in poses:
            local = rng.uniform(-40, 40, (12, 2))
            table.append(pose.local_to_table(local))
            px = truth.table_to_image(table[-1]) + rng.normal(0, 1.0, (12, 2))
            observations.append(ItemObservation(local, px))
        start = truth.table_to_undistorted @ np.diag([1.03, 0.97, 1.0])
        plane = fit_table_plane(observations, size, start, poses).plane
        fitted.append(np.abs(plane.table_to_image(far) - expected).max())
        px = np.concatenate([o.points_px for o in observations])
        homography, _ = cv2.findHomography(np.concatenate(table), px, 0)
        free.append(
            np.abs(TablePlane(homography, 0.0, 0.0, size).table_to_image(far) - expected).max()
        )
    assert max(fitted) < 20.0
    assert np.median(free) > 1.5 * np.median(fitted)


def test_one_small_coaster_leaves_both_mirror_poses_a_large_one_does_not() -> None:
    """A coaster 30 px across, its features 0.4 px off, is seen alike by a camera tilted 35
    degrees and by its mirror pose: both homographies are returned, one of them the table's.
    The same coaster 300 px across tells them apart: one is returned, the table's."""
    size = (1280, 960)
    local = np.random.default_rng(2).uniform(-45, 45, (24, 2))
    far = np.array([[400.0, 0.0], [-400.0, 0.0], [0.0, 400.0], [0.0, -400.0]])
    for distance_mm, expected_count in ((3200.0, 2), (320.0, 1)):
        truth = _phone_view(size, 0.75, 35.0, distance_mm)
        noise = np.random.default_rng(4).normal(0, 0.4, (24, 2))
        homographies = camera_homographies(local, truth.table_to_image(local) + noise, size)
        assert len(homographies) == expected_count
        reach = distance_mm / 8  # table points a little beyond the coaster
        errors = [
            np.abs(
                TablePlane(h, 0.0, 0.0, size).table_to_image(far * reach / 400)
                - truth.table_to_image(far * reach / 400)
            ).max()
            for h in homographies
        ]
        assert min(errors) < 0.05 * np.abs(truth.table_to_image(far * reach / 400)).max()
