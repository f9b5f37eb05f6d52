import numpy as np
import pytest

from vision.synthetic.camera import Camera, CameraRanges, rotation_from_angles, sample_camera


def _camera(k1=0.0, k2=0.0, tilt=30.0, yaw=40.0, roll=2.0, size=(1600, 1200)):
    R = rotation_from_angles(tilt, yaw, roll)
    centre = np.array([500.0, 400.0, 0.0]) - R[2] * 1100.0
    return Camera(size, 1250.0, R, centre, k1, k2, tilt, yaw, roll)


def test_straight_down_camera_sees_the_table_as_an_image():
    R = rotation_from_angles(0.0, 0.0, 0.0)
    assert np.allclose(R, np.eye(3))
    cam = Camera((1000, 800), 1000.0, R, np.array([0.0, 0.0, -1000.0]))
    px = cam.project(np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]]))
    assert np.allclose(px, [[500, 400], [600, 400], [500, 500]])


def test_tilted_camera_sees_the_far_side_at_the_top():
    R = rotation_from_angles(35.0, 0.0, 0.0)
    cam = Camera((1000, 800), 1000.0, R, -R[2] * 1000.0)
    near, far = cam.project(np.array([[0.0, 300.0], [0.0, -300.0]]))
    assert far[1] < near[1]
    assert cam.center_mm[2] < 0  # above the table


@pytest.mark.parametrize("height", [0.0, 2.0, 7.5])
def test_plane_homography_matches_projection_without_distortion(height):
    cam = _camera()
    pts = np.random.default_rng(0).uniform(200, 800, (20, 2))
    h = cam.plane_homography(height, offset_px=(-30.0, 12.0))
    q = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    via_h = q[:, :2] / q[:, 2:3] + np.array([-30.0, 12.0])
    assert np.allclose(via_h, cam.project(pts, height), atol=1e-6)


@pytest.mark.parametrize(("k1", "k2"), [(0.08, -0.01), (-0.05, 0.01), (0.0, 0.0)])
def test_undistortion_maps_invert_the_lens(k1, k2):
    cam = _camera(k1, k2)
    plain = _camera()
    map_x, map_y = cam.undistortion_maps()
    assert map_x.shape == (1200, 1600)
    h = plain.plane_homography(0.0)
    for u, v in [(0, 0), (1599, 1199), (800, 10), (333, 777), (1599, 0)]:
        undistorted = np.array([map_x[v, u], map_y[v, u], 1.0])
        table = np.linalg.solve(h, undistorted)
        back = cam.project(table[None, :2] / table[2])[0]
        assert np.allclose(back, (u, v), atol=0.05)


def test_sampled_camera_frames_every_point():
    pts = np.random.default_rng(1).uniform((300, 200), (1300, 1100), (200, 2))
    for seed in range(10):
        for size in [(1600, 1200), (1200, 1600)]:
            cam = sample_camera(np.random.default_rng(seed), size, pts, CameraRanges())
            px = cam.project(pts)
            assert (px >= 0).all() and (px[:, 0] < size[0]).all() and (px[:, 1] < size[1]).all()
            assert 0.0 <= cam.tilt_deg <= 45.0
            assert cam.to_json()["height_mm"] > 0
