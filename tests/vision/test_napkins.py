"""Napkins found by the Hough vote of their straight edges (face and plain back)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.napkins import (
    _STRIP_ROWS,
    EDGE_OFFSETS,
    MAX_LINE_FIT_MOVE_MM,
    MAX_LINE_OVERRUN,
    _corner_votes,
    _edge_pixels,
    _Edges,
    _is_paper,
    _line_overrun,
    _Vote,
    _vote_cells,
    border_agreement,
    face_by_border,
    find_napkins,
    fit_to_lines,
    napkin_on_its_lines,
    on_its_border,
    shows_paper,
)
from vision.plane import ItemPose

PPM = 1.6


def _angle_gap_mod_90(a: float, b: float) -> float:
    d = (a - b) % (np.pi / 2)
    return float(min(d, np.pi / 2 - d))


def test_napkin_backs_and_faces_are_found_with_their_pose(catalogue) -> None:
    truth = [
        Placed(side(catalogue, "napkin", None, "down"), "red", (110.0, 100.0), np.deg2rad(17)),
        Placed(side(catalogue, "napkin", None, "down"), "gray", (300.0, 130.0), np.deg2rad(62)),
        Placed(side(catalogue, "napkin", None, "up"), "yellow", (180.0, 310.0), np.deg2rad(-8)),
    ]
    image = render_scene(
        catalogue, truth, table_homography(PPM, origin_px=(0.0, 0.0)), (640, 680), (90, 70, 50)
    )
    view = CanvasView(image, (0.0, 0.0), PPM)
    found = find_napkins(view, art_library(catalogue), [])
    assert len(found) == len(truth)
    for placed in truth:
        gaps = [np.hypot(*np.subtract(f.pose.center_mm, placed.center_mm)) for f in found]
        best = found[int(np.argmin(gaps))]
        assert min(gaps) < 1.0
        assert _angle_gap_mod_90(best.pose.angle_rad, placed.angle_rad) < np.deg2rad(1.0)


def test_a_napkin_half_under_another_is_found_with_the_one_on_top(catalogue) -> None:
    """A stack: the napkin on top takes its lines out of the vote, so the one under it, 41 mm
    away and a fifth of a turn off, still shows its own corner (the two share more than half
    their area, and one peak between them fitted neither)."""
    under = Placed(side(catalogue, "napkin", None, "down"), "yellow", (150.0, 150.0), 0.21)
    above = Placed(side(catalogue, "napkin", None, "down"), "red", (110.0, 160.0), 0.56)
    image = render_scene(
        catalogue,
        [under, above],
        table_homography(PPM, origin_px=(0.0, 0.0)),
        (520, 520),
        (90, 70, 50),
    )
    found = find_napkins(CanvasView(image, (0.0, 0.0), PPM), art_library(catalogue), [])
    assert len(found) == 2
    for placed in (under, above):
        gaps = [np.hypot(*np.subtract(f.pose.center_mm, placed.center_mm)) for f in found]
        best = found[int(np.argmin(gaps))]
        assert min(gaps) < 1.5
        assert _angle_gap_mod_90(best.pose.angle_rad, placed.angle_rad) < np.deg2rad(1.0)


def test_a_known_napkin_is_not_found_again(catalogue) -> None:
    napkin = Placed(side(catalogue, "napkin", None, "down"), "blue", (130.0, 120.0), 0.3)
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (420, 420), (90, 70, 50)
    )
    view = CanvasView(image, (0.0, 0.0), PPM)
    library = art_library(catalogue)
    (first,) = find_napkins(view, library, [])
    assert find_napkins(view, library, [first]) == []


def test_a_napkins_lines_end_at_its_corners_where_planks_run_on(catalogue) -> None:
    napkin = Placed(side(catalogue, "napkin", None, "down"), "gray", (200.0, 200.0), 0.0)
    image = render_scene(
        catalogue,
        [napkin],
        table_homography(PPM, origin_px=(0.0, 0.0)),
        (640, 640),
        (150, 150, 150),
    )
    centre, half_px = np.array([200.0, 200.0]) * PPM, 65.0 * PPM
    assert (
        _line_overrun(_edge_pixels(CanvasView(image, (0.0, 0.0), PPM)), centre, 0.0, half_px) < 0.02
    )
    # seams of planks along two of its sides, at its lines' places, running on across the table
    # (a square fitted to planks finds such lines)
    for offset in EDGE_OFFSETS:
        for y in (centre[1] - offset * half_px, centre[1] + offset * half_px):
            cv2.line(image, (0, round(y)), (639, round(y)), (20, 20, 20), 1)
    seams = _edge_pixels(CanvasView(image, (0.0, 0.0), PPM))
    assert _line_overrun(seams, centre, 0.0, half_px) > MAX_LINE_OVERRUN


def _random_edges(rng: np.random.Generator, n: int, size_px: tuple[int, int]) -> _Edges:
    points = rng.uniform(0, 1, (n, 2)) * size_px
    points = points[np.argsort(points[:, 1])]  # row-major, as edge pixels come
    angles = rng.uniform(0, 2 * np.pi, n)
    return _Edges(points, np.stack([np.cos(angles), np.sin(angles)], 1))


def test_the_vote_worked_out_in_strips_equals_the_whole_grid_at_once() -> None:
    """The sparse, strip-by-strip vote gives the dense grid's corner votes, and removing edge
    pixels gives the vote of the others."""
    rng = np.random.default_rng(5)
    size_px, half_px, cell = (310, 250), 40.0, 3.0
    grid = (int(np.ceil(size_px[0] / cell)) + 1, int(np.ceil(size_px[1] / cell)) + 1)
    edges = _random_edges(rng, 6000, size_px)
    vote = _Vote(edges, half_px, cell, grid)
    nx, ny = grid
    dense = np.bincount(
        _vote_cells(edges, half_px, cell, vote.n_bins, grid), minlength=4 * ny * nx * vote.n_bins
    )
    corners = _corner_votes(dense.astype(np.float32).reshape(4, ny, nx, vote.n_bins))
    assert ny > 2 * _STRIP_ROWS
    np.testing.assert_array_equal(vote.best, corners.max(axis=2))
    np.testing.assert_array_equal(vote.best_bin, corners.argmax(axis=2))
    gone = np.hypot(*(edges.points - (150.0, 120.0)).T) < 50.0  # a napkin's worth, updated
    vote.remove(edges.subset(gone))  # only around where their votes fell
    rest = _Vote(edges.subset(~gone), half_px, cell, grid)
    np.testing.assert_array_equal(vote.best, rest.best)


def _off_scale_view(
    catalogue, napkin: Placed, scale: float, table_bgr: tuple[int, int, int], blur_px: float
) -> CanvasView:
    """A 420 px view at :data:`PPM` of ``napkin`` on a plain table, drawn ``scale`` times as
    large as the view's scale says (a plane that far off) and blurred by ``blur_px``."""
    image = render_scene(
        catalogue,
        [napkin],
        table_homography(PPM * scale, origin_px=(0.0, 0.0)),
        (420, 420),
        table_bgr,
    )
    return CanvasView(cv2.GaussianBlur(image, (0, 0), blur_px), (0.0, 0.0), PPM)


def test_a_napkin_back_is_found_on_a_plane_a_few_percent_off_in_scale(catalogue) -> None:
    """The first plane can be a few per cent off in scale: a napkin back drawn 4% larger than
    the view's scale says still shows its thin stripe, a little out of its place."""
    back = Placed(side(catalogue, "napkin", None, "down"), "green", (120.0, 115.0), np.deg2rad(28))
    view = _off_scale_view(catalogue, back, 1.04, (150, 150, 150), 1.0)
    found = find_napkins(view, art_library(catalogue), [])
    assert len(found) == 1
    centre_mm = np.asarray(back.center_mm) * 1.04  # where the view's scale puts it
    assert np.hypot(*np.subtract(found[0].pose.center_mm, centre_mm)) < 2.0


def test_no_napkin_on_a_striped_table(catalogue) -> None:
    image = np.full((500, 600, 3), (60, 90, 130), np.uint8)
    for x in range(0, 600, 23):  # parallel planks: straight edges, no corners
        image[:, x : x + 3] = (40, 60, 90)
    view = CanvasView(image, (0.0, 0.0), PPM)
    assert find_napkins(view, art_library(catalogue), []) == []


def _napkin_on_wood(catalogue, napkin: Placed) -> CanvasView:
    """A 760 px view at :data:`PPM` of ``napkin`` on light wood streaked along y."""
    rng = np.random.default_rng(7)
    grain = np.cumsum(rng.normal(0, 6, 760)).clip(-40, 40)
    wood = np.empty((760, 760, 3), np.uint8)
    wood[:] = (np.array([120, 170, 205]) + grain[None, :, None]).clip(0, 255)
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (760, 760), (0, 0, 0)
    )
    return CanvasView(np.where(image.sum(axis=2, keepdims=True) > 0, image, wood), (0.0, 0.0), PPM)


def test_border_agreement_tells_a_printed_border_from_wood_grain(catalogue) -> None:
    back = side(catalogue, "napkin", None, "down")
    napkin = Placed(back, "yellow", (120.0, 110.0), np.deg2rad(20))
    view = _napkin_on_wood(catalogue, napkin)
    library = art_library(catalogue)
    assert (
        border_agreement(view, library, back, "yellow", ItemPose((120.0, 110.0), napkin.angle_rad))
        > 0.9
    )
    # the same napkin placed on bare wood, or a few mm off its border, does not look printed
    on_wood = ItemPose((340.0, 330.0), np.deg2rad(20))
    off_border = ItemPose((126.0, 110.0), np.deg2rad(20))
    assert border_agreement(view, library, back, "yellow", on_wood) < 0.3
    assert border_agreement(view, library, back, "yellow", off_border) < 0.3


@pytest.mark.parametrize("face", ["up", "down"])
def test_a_napkin_placed_a_few_mm_off_is_moved_onto_its_border(catalogue, face) -> None:
    napkin = Placed(side(catalogue, "napkin", None, face), "blue", (120.0, 110.0), np.deg2rad(20))
    view = _napkin_on_wood(catalogue, napkin)
    library = art_library(catalogue)
    off = ItemPose((125.0, 104.0), napkin.angle_rad)  # 7.8 mm off
    assert border_agreement(view, library, napkin.side, "blue", off) < 0.3
    settled = on_its_border(view, library, napkin.side, "blue", off)
    assert np.hypot(*np.subtract(settled.center_mm, napkin.center_mm)) < 1.0
    assert settled.angle_rad == off.angle_rad
    assert border_agreement(view, library, napkin.side, "blue", settled) > 0.9
    # bare wood has no border to settle on
    on_wood = ItemPose((340.0, 330.0), napkin.angle_rad)
    moved = on_its_border(view, library, napkin.side, "blue", on_wood)
    assert border_agreement(view, library, napkin.side, "blue", moved) < 0.3
    # paper inside the one, wood inside the other
    size_mm = napkin.side.shape.size_mm
    assert shows_paper(view, settled, size_mm)
    assert not shows_paper(view, moved, size_mm)


@pytest.mark.parametrize("face", ["up", "down"])
def test_a_napkin_out_of_focus_on_a_plane_a_little_off_in_scale_shows_its_border(
    catalogue, face
) -> None:
    """Drawn 3% larger than the view's scale says and blurred 2 mm: the stripe lies 2 mm off
    the profiles' samples and its thin lines are washed out, yet it is the printed border."""
    napkin = Placed(side(catalogue, "napkin", None, face), "red", (120.0, 115.0), np.deg2rad(-8))
    view = _off_scale_view(catalogue, napkin, 1.03, (40, 50, 150), 2.0 * PPM)
    pose = ItemPose(tuple(np.asarray(napkin.center_mm) * 1.03), napkin.angle_rad)
    assert border_agreement(view, art_library(catalogue), napkin.side, "red", pose) > 0.8


@pytest.mark.parametrize("turn_deg", [0.0, 90.0, 180.0])
@pytest.mark.parametrize("color", ["yellow", "gray"])
def test_the_border_tells_a_napkin_face_from_its_back_however_it_is_turned(
    catalogue, color, turn_deg
) -> None:
    """The palest colours, out of focus: the face's broad stripe and thin lines against the
    back's thin stripe, all around, with the napkin's angle known only modulo 90 degrees."""
    napkins = [
        Placed(side(catalogue, "napkin", None, "up"), color, (110.0, 110.0), np.deg2rad(12)),
        Placed(side(catalogue, "napkin", None, "down"), color, (290.0, 120.0), np.deg2rad(-30)),
    ]
    image = render_scene(
        catalogue, napkins, table_homography(PPM, origin_px=(0.0, 0.0)), (640, 400), (150, 160, 170)
    )
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 1.6), (0.0, 0.0), PPM)
    library = art_library(catalogue)
    for placed in napkins:
        pose = ItemPose(placed.center_mm, placed.angle_rad + np.deg2rad(turn_deg))
        face, votes = face_by_border(view, library, color, pose)
        assert face is placed.side.face
        assert votes > 0.9


def test_a_napkin_under_a_warm_light_is_paper_once_the_light_is_discounted(catalogue) -> None:
    napkin = Placed(side(catalogue, "napkin", None, "up"), "blue", (120.0, 120.0), np.deg2rad(5))
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (420, 420), (90, 140, 110)
    )
    warm = np.array([0.62, 0.85, 1.0])  # B, G, R: white paper looks cream
    lit = np.clip(image.astype(np.float32) * warm, 0, 255).astype(np.uint8)
    view = CanvasView(lit, (0.0, 0.0), PPM)
    library = art_library(catalogue)
    assert find_napkins(view, library, []) == []
    found = find_napkins(view, library, [], light_bgr=warm * 0.9)
    assert len(found) == 1
    assert np.hypot(*np.subtract(found[0].pose.center_mm, napkin.center_mm)) < 1.0


def test_a_napkin_showing_its_stripe_along_two_sides_only_is_paper() -> None:
    """A napkin's back partly under other items: its stripe shows along the left side and 60 %
    of the top one (40 % of the whole band), the rest is other items' white paper."""
    half_px = 65.0 * PPM
    image = np.full((400, 400, 3), (60, 90, 130), np.uint8)  # the table
    centre = np.array([200.0, 200.0])
    lo, hi = (centre - half_px).astype(int), (centre + half_px).astype(int)
    image[lo[1] : hi[1], lo[0] : hi[0]] = (235, 240, 242)  # paper, the napkin's and the others'
    inner, outer = round(57.5 * PPM), round(60.0 * PPM)
    red = (40, 40, 200)
    image[lo[1] : hi[1], 200 - outer : 200 - inner] = red  # the whole left side
    top_end = 200 - outer + round(0.6 * 2 * outer)
    image[200 - outer : 200 - inner, 200 - outer : top_end] = red  # 60 % of the top side
    view = CanvasView(image, (0.0, 0.0), PPM)
    assert _is_paper(view, centre, 0.0, half_px)
    # the same paper with its stripe along one side only is not taken for a napkin
    image[200 - outer : 200 - inner, 200 - outer : top_end] = (235, 240, 242)
    assert not _is_paper(CanvasView(image, (0.0, 0.0), PPM), centre, 0.0, half_px)


def test_a_gray_back_washed_out_by_an_overexposed_photo_is_found_by_its_border(catalogue) -> None:
    """The gray back's pale stripe, blurred and washed out by an overexposed photo, is barely
    darker than its paper (the stripe test fails), but its border profiles still follow the
    art all around; a plain square of white paper beside it, with no printed border, is not
    taken for a napkin."""
    ppm = 1.0
    napkin = Placed(side(catalogue, "napkin", None, "down"), "gray", (110.0, 110.0), np.deg2rad(8))
    image = render_scene(
        catalogue, [napkin], table_homography(ppm, origin_px=(0.0, 0.0)), (400, 230), (70, 110, 60)
    )
    corners = np.array([[245, 45], [375, 45], [375, 175], [245, 175]], np.int32)
    cv2.fillPoly(image, [corners], (235, 236, 236))  # plain paper, no border printed
    bright = np.clip(image.astype(np.float32) * 1.4, 0, 255).astype(np.uint8)
    view = CanvasView(cv2.GaussianBlur(bright, (0, 0), 1.0), (0.0, 0.0), ppm)
    half_px = 65.0 * ppm
    assert not _is_paper(view, np.array([110.0, 110.0]), napkin.angle_rad, half_px)
    found = find_napkins(view, art_library(catalogue), [])
    assert len(found) == 1
    assert np.hypot(*np.subtract(found[0].pose.center_mm, napkin.center_mm)) < 1.5


@pytest.mark.parametrize("face", ["up", "down"])
def test_a_napkin_placed_a_little_off_is_fitted_back_onto_its_lines(catalogue, face) -> None:
    """A napkin's pose from a few features is a millimetre or so off; its paper's edge and
    stripe put it back within a few tenths of a millimetre and degree. A pose farther off than
    :data:`MAX_LINE_FIT_MOVE_MM` is left where it was."""
    napkin = Placed(side(catalogue, "napkin", None, face), "blue", (130.0, 120.0), np.deg2rad(23))
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (420, 420), (60, 80, 100)
    )
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 1.0), (0.0, 0.0), PPM)
    size_mm = catalogue.napkin.shape.size_mm
    near = ItemPose((131.2, 118.9), np.deg2rad(24.5))
    far = ItemPose((130.0 + MAX_LINE_FIT_MOVE_MM + 6.0, 120.0), np.deg2rad(23))
    fitted, kept = fit_to_lines(view, size_mm, [near, far])
    assert np.hypot(*np.subtract(fitted.center_mm, napkin.center_mm)) < 0.3
    assert _angle_gap_mod_90(fitted.angle_rad, napkin.angle_rad) < np.deg2rad(0.3)
    assert kept == far


@pytest.mark.parametrize(("face", "color"), [("down", "green"), ("down", "yellow"), ("up", "blue")])
def test_a_napkin_placed_far_off_by_its_features_is_placed_on_its_lines(
    catalogue, face, color
) -> None:
    """Placed 20 mm and 6 degrees off (a few features of its back matched), too far for its
    border to be found from there, the napkin is placed on its lines; bare wood holds none."""
    napkin = Placed(side(catalogue, "napkin", None, face), color, (120.0, 110.0), np.deg2rad(8))
    view = _napkin_on_wood(catalogue, napkin)
    library = art_library(catalogue)
    off = ItemPose((132.0, 94.0), np.deg2rad(14))
    placed = napkin_on_its_lines(view, library, off)
    assert placed is not None
    assert np.hypot(*np.subtract(placed.center_mm, napkin.center_mm)) < 0.5
    assert _angle_gap_mod_90(placed.angle_rad, napkin.angle_rad) < np.deg2rad(1.0)
    assert napkin_on_its_lines(view, library, ItemPose((340.0, 330.0), np.deg2rad(8))) is None
