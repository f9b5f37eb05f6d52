"""Third detection pass: whole coasters found by their outline, confirmed by their art."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest
from shapely import Polygon, contains_xy
from vision_scenes import Placed, render_scene, side, table_homography

from vision import outline_search
from vision.art import Side, art_library
from vision.detect import rectify
from vision.hidden import HiddenCoaster
from vision.identify import identify
from vision.outline_search import (
    OutlinePeak,
    find_coasters_by_outline,
    find_coasters_under_items,
    search_outlines,
)
from vision.plane import ItemPose, TablePlane
from vision.segmentation import CoasterProbabilities

PX_PER_MM = 1.0
#: Where the out-of-focus coaster lies (table mm).
LONE_MM = (330.0, 120.0)


def _scene(
    catalogue,
    lone: Placed | None,
    disc_bgr: tuple[int, int, int] | None = None,
    table_bgr: tuple[int, int, int] = (70, 90, 110),
    lone_cut_mm: float | None = None,
):
    """(image, plane, items placed) of three sharp coasters and, far from them, ``lone`` (or a
    plain disc of a coaster's size, ``disc_bgr``) blurred as a camera out of focus sees it, on
    a table of colour ``table_bgr``; with ``lone_cut_mm``, only the middle of ``lone`` shows
    (within that radius), table all around it."""
    known = [
        Placed(side(catalogue, "coaster", "triple"), "blue", (70.0, 70.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (170.0, 90.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (120.0, 190.0), np.deg2rad(140)),
    ]
    homography = table_homography(PX_PER_MM, origin_px=(30.0, 30.0))
    items = known + ([lone] if lone else [])
    image = render_scene(catalogue, items, homography, (460, 300), background_bgr=table_bgr)
    cx, cy = (np.array(LONE_MM) * PX_PER_MM + 30).astype(int)
    if lone_cut_mm is not None:
        ring = np.zeros(image.shape[:2], np.uint8)
        cv2.circle(ring, (int(cx), int(cy)), round(60 * PX_PER_MM), 1, -1)
        cv2.circle(ring, (int(cx), int(cy)), round(lone_cut_mm * PX_PER_MM), 0, -1)
        image[ring > 0] = table_bgr
    if disc_bgr is not None:
        cv2.circle(image, (int(cx), int(cy)), round(42.5 * PX_PER_MM), disc_bgr, -1, cv2.LINE_AA)
    # everything within 70 mm of the lone place out of focus (sigma 3 mm)
    blurred = cv2.GaussianBlur(image, (0, 0), 3.0 * PX_PER_MM)
    near = np.zeros(image.shape[:2], np.uint8)
    cv2.circle(near, (int(cx), int(cy)), round(70 * PX_PER_MM), 1, -1)
    image = np.where(near[:, :, None] > 0, blurred, image)
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    return image, plane, known


def _search(catalogue, image, plane, known):
    library = art_library(catalogue)
    found = [_Pose(k.side, ItemPose(k.center_mm, k.angle_rad)) for k in known]
    around = np.array([20.0, 20.0, 220.0, 250.0])
    peaks = search_outlines(image, plane, library, found, around, 0.4)
    return peaks, find_coasters_by_outline(image, plane, library, found, around, 0.4, 1.6)


@dataclass(frozen=True)
class _Pose:
    side: Side
    pose: ItemPose


@pytest.mark.parametrize(("type_name", "turn_deg"), [("double", 75.0), ("three", 200.0)])
def test_an_out_of_focus_coaster_is_found_whole_at_its_pose(catalogue, type_name, turn_deg):
    lone = Placed(side(catalogue, "coaster", type_name), "green", LONE_MM, np.deg2rad(turn_deg))
    image, plane, known = _scene(catalogue, lone)
    peaks, found = _search(catalogue, image, plane, known)
    assert any(np.hypot(*np.subtract(p.center_mm, LONE_MM)) < 4.0 for p in peaks)
    assert len(found) == 1
    assert found[0].side == lone.side
    assert np.hypot(*np.subtract(found[0].pose.center_mm, LONE_MM)) < 2.0
    turn = np.angle(np.exp(1j * (found[0].pose.angle_rad - lone.angle_rad)))
    assert abs(np.rad2deg(turn)) < 4.0  # the print sets a disc's turn too


@pytest.mark.parametrize(("type_name", "color"), [("double", "red"), ("triple", "blue")])
def test_a_coaster_left_face_down_is_found_whole_by_its_back(catalogue, type_name, color):
    """A back's print (a plain ground, the logo in a ring) keys few features: the outline
    search finds it, as a back of its shape, and hands on the points its colour is told by:
    its rim among them (the rest of a back is printed alike in every colour)."""
    back = side(catalogue, "coaster", type_name, "down")
    lone = Placed(back, color, LONE_MM, np.deg2rad(35.0))
    image, plane, known = _scene(catalogue, lone, table_bgr=(40, 35, 30))
    _, found = _search(catalogue, image, plane, known)
    assert [f.side for f in found] == [back]
    assert np.hypot(*np.subtract(found[0].pose.center_mm, LONE_MM)) < 2.0
    view = rectify(image, plane, np.array([250.0, 40.0, 410.0, 200.0]), px_per_mm=1.6)
    item = identify(art_library(catalogue), view, back, found[0].pose, found[0].points_local_mm)
    assert item.color == color


def test_a_coaster_of_nearly_the_tables_colour_is_found_by_its_faint_outline(catalogue):
    # a gray coaster out of focus on a gray-green table: its outline is a faint edge beside the
    # strong edges of its own print, which does not count against it
    lone = Placed(side(catalogue, "coaster", "double"), "gray", LONE_MM, np.deg2rad(30.0))
    image, plane, known = _scene(catalogue, lone, table_bgr=(122, 130, 124))
    peaks, found = _search(catalogue, image, plane, known)
    assert np.hypot(*np.subtract(peaks[0].center_mm, LONE_MM)) < 4.0
    assert [f.side for f in found] == [lone.side]


@pytest.mark.parametrize("type_name", ["triple", "double"])
def test_a_pale_coaster_out_of_focus_on_a_dark_table_is_found(catalogue, type_name):
    # its rim blurs into the dark table over a few mm: the art must be compared blurred over the
    # table, not with the coaster's own colour (or a mirror of its art) beyond its outline
    lone = Placed(side(catalogue, "coaster", type_name), "gray", LONE_MM, np.deg2rad(50.0))
    image, plane, known = _scene(catalogue, lone, table_bgr=(28, 22, 22))
    _, found = _search(catalogue, image, plane, known)
    assert [f.side for f in found] == [lone.side]
    assert np.hypot(*np.subtract(found[0].pose.center_mm, LONE_MM)) < 2.0


@pytest.mark.parametrize("table_bgr", [(70, 90, 110), (40, 35, 30)])
def test_a_plain_disc_of_a_coasters_size_is_not_a_coaster(catalogue, table_bgr):
    """Not even a back, whose plain ground inside a coloured rim the disc's blurred edge
    mimics (correlation 0.96): the back's logo does not show in its middle."""
    image, plane, known = _scene(catalogue, None, disc_bgr=(200, 200, 205), table_bgr=table_bgr)
    noise = np.random.default_rng(1).normal(0.0, 4.0, image.shape)  # a camera's sensor noise
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    peaks, found = _search(catalogue, image, plane, known)
    assert any(np.hypot(*np.subtract(p.center_mm, LONE_MM)) < 4.0 for p in peaks)
    assert found == []


@pytest.mark.parametrize(("cut_mm", "found"), [(30.0, False), (None, True)])
def test_the_middle_of_a_print_without_a_coasters_edge_is_not_a_coaster(
    catalogue, monkeypatch, cut_mm, found
):
    # a yellow soft coaster's pretzel on a disc of its ground, table all around it (as a coin
    # pile on a plain table is): the art matches, but no edge runs along a coaster's outline
    lone = Placed(side(catalogue, "coaster", "soft"), "yellow", LONE_MM, np.deg2rad(50.0))
    image, plane, known = _scene(catalogue, lone, lone_cut_mm=cut_mm)
    peak = OutlinePeak(lone.side.shape, LONE_MM, 0.0, 0.5)
    monkeypatch.setattr(outline_search, "search_outlines", lambda *args: [peak])
    _, coasters = _search(catalogue, image, plane, known)
    assert [c.side for c in coasters] == ([lone.side] if found else [])


@pytest.mark.parametrize(
    ("type_name", "peak_type", "turn_deg"),
    [("beer", "three", 40.0), ("double", "triple", 115.0), ("triple", "soft", 70.0)],
)
def test_an_outline_peak_of_the_other_shape_still_confirms_the_coaster_as_its_art_shows(
    catalogue, monkeypatch, type_name, peak_type, turn_deg
):
    """A disc's outline, partly hidden, can peak as a rounded square's (and the other way
    about): the peak only tells where to look, the art tells the shape and the turn."""
    lone = Placed(side(catalogue, "coaster", type_name), "red", LONE_MM, np.deg2rad(turn_deg))
    image, plane, known = _scene(catalogue, lone)
    peak_shape = side(catalogue, "coaster", peak_type).shape
    assert peak_shape != lone.side.shape
    peak = OutlinePeak(peak_shape, LONE_MM, np.deg2rad(turn_deg + 17.0), 0.5)
    monkeypatch.setattr(outline_search, "search_outlines", lambda *args: [peak])
    _, coasters = _search(catalogue, image, plane, known)
    assert [c.side for c in coasters] == [lone.side]
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, LONE_MM)) < 2.0
    turn = np.angle(np.exp(1j * (coasters[0].pose.angle_rad - lone.angle_rad)))
    assert abs(np.rad2deg(turn)) < 4.0


def _coasters_seen(
    plane: TablePlane,
    blobs: list[tuple[tuple[float, float], int]],
    px_per_mm: float = PX_PER_MM,
):
    """What a segmenter sees at a quarter of the working image's resolution (``px_per_mm``
    image px per table mm): a coaster's disc (85 mm across) at each blob's centre (table mm) in
    its class channel (0-5; the names of the 6 channels end in ``face`` but for the last)."""
    w, h = plane.image_size_px
    probabilities = np.zeros((h // 4, w // 4, 6), np.float32)
    for centre_mm, channel in blobs:
        x, y = (plane.table_to_image(np.array([centre_mm]))[0] + 0.5) / 4 - 0.5
        radius = 42.5 * px_per_mm / 4
        disc = np.zeros(probabilities.shape[:2], np.uint8)
        cv2.circle(disc, (round(x * 16), round(y * 16)), round(radius * 16), 1, -1, cv2.LINE_AA, 4)
        probabilities[:, :, channel] = np.maximum(probabilities[:, :, channel], disc)
    names = (*(f"coaster_{k}_face" for k in range(5)), "coaster_back")
    return CoasterProbabilities(probabilities, names, (0.25, 0.25))


def _search_with(catalogue, image, plane, known, seen):
    library = art_library(catalogue)
    found = [_Pose(k.side, ItemPose(k.center_mm, k.angle_rad)) for k in known]
    around = np.array([20.0, 20.0, 220.0, 250.0])
    return find_coasters_by_outline(image, plane, library, found, around, 0.4, 1.6, seen)


@pytest.mark.parametrize(("type_name", "off_mm"), [("double", (2.5, -2.0)), ("three", (-3.0, 0.5))])
def test_a_coaster_the_segmenter_sees_is_compared_with_the_art_though_its_outline_is_faint(
    catalogue, monkeypatch, type_name, off_mm
):
    """Motion blur or a soft focus can leave a coaster's outline too faint to peak; where the
    segmenter sees a coaster (its blob a few mm off), the art is compared around it."""
    lone = Placed(side(catalogue, "coaster", type_name), "green", LONE_MM, np.deg2rad(100.0))
    image, plane, known = _scene(catalogue, lone)
    monkeypatch.setattr(outline_search, "_peaks", lambda *args: [])  # no outline peaks at all
    assert _search_with(catalogue, image, plane, known, None) == []
    blob = (LONE_MM[0] + off_mm[0], LONE_MM[1] + off_mm[1])
    found = _search_with(catalogue, image, plane, known, _coasters_seen(plane, [(blob, 2)]))
    assert [f.side for f in found] == [lone.side]
    assert np.hypot(*np.subtract(found[0].pose.center_mm, LONE_MM)) < 2.0
    turn = np.angle(np.exp(1j * (found[0].pose.angle_rad - lone.angle_rad)))
    assert abs(np.rad2deg(turn)) < 4.0


def test_where_the_segmenter_sees_a_coaster_on_plain_table_none_is_found(catalogue):
    image, plane, known = _scene(catalogue, None)
    seen = _coasters_seen(plane, [(LONE_MM, 0)])
    assert _search_with(catalogue, image, plane, known, seen) == []


def test_coasters_side_by_side_are_told_apart_by_their_colours(catalogue):
    """Two coasters touching make one blob of coaster; each colour's channel shows each. A blob
    over an item found is not searched, and none is limited to the outline search's reach."""
    image, plane, known = _scene(catalogue, None)
    library = art_library(catalogue)
    found = [_Pose(k.side, ItemPose(k.center_mm, k.angle_rad)) for k in known]
    around = np.array([20.0, 20.0, 60.0, 60.0])  # the far blobs lie beyond the outlines' reach
    pair = [((300.0, 200.0), 1), ((386.0, 200.0), 3)]
    seen = _coasters_seen(plane, [*pair, (known[1].center_mm, 0)])
    peaks = search_outlines(image, plane, library, found, around, 0.4, seen)
    likely = [p for p in peaks if p.off_mm > 0]
    for centre, _ in pair:
        assert any(np.hypot(*np.subtract(p.center_mm, centre)) < 3.0 for p in likely), centre
    assert not any(np.hypot(*np.subtract(p.center_mm, known[1].center_mm)) < 40 for p in likely)
    assert all(p.off_mm == outline_search.LIKELY_OFF_MM for p in likely)


def test_nothing_is_searched_over_the_items_found(catalogue):
    image, plane, known = _scene(catalogue, None)
    peaks, found = _search(catalogue, image, plane, known)
    for peak in peaks:
        for k in known:
            assert np.hypot(*np.subtract(peak.center_mm, k.center_mm)) > 40.0
    assert found == []


def test_a_table_shown_nowhere_readable_is_not_searched(catalogue):
    image, plane, known = _scene(catalogue, None)
    found = [_Pose(k.side, ItemPose(k.center_mm, k.angle_rad)) for k in known]
    around = np.array([20.0, 20.0, 220.0, 250.0])
    # the photo shows the table at 1 px/mm: asking for 5 px/mm leaves nothing readable
    assert search_outlines(image, plane, art_library(catalogue), found, around, 5.0) == []


def _under_scene(catalogue, type_name: str, turn_deg: float):
    """(image, plane, hidden, found) of a coaster half under a napkin found above it, beside a
    found beer coaster; the hidden coaster is the one the search must find."""
    hidden = Placed(
        side(catalogue, "coaster", type_name), "green", (200.0, 120.0), np.deg2rad(turn_deg)
    )
    napkin = Placed(side(catalogue, "napkin"), "yellow", (255.0, 125.0), np.deg2rad(10.0))
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (80.0, 120.0), np.deg2rad(-40.0))
    homography = table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0))
    image = render_scene(catalogue, [beer, hidden, napkin], homography, (640, 480))
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    found = [_Pose(p.side, ItemPose(p.center_mm, p.angle_rad)) for p in (beer, napkin)]
    return image, plane, hidden, found


@pytest.mark.parametrize(("type_name", "turn_deg"), [("triple", 25.0), ("soft", 160.0)])
def test_a_coaster_partly_under_an_item_is_found_by_its_outline_and_art(
    catalogue, type_name, turn_deg
):
    image, plane, hidden, found = _under_scene(catalogue, type_name, turn_deg)
    library = art_library(catalogue)
    around = np.array([40.0, 40.0, 320.0, 200.0])
    coasters = find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6)
    assert len(coasters) == 1
    assert coasters[0].side == hidden.side
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 2.0
    assert 0.25 < coasters[0].visible_share < 0.9
    # its colour is judged on its part clear of the items above it only
    table = coasters[0].pose.local_to_table(coasters[0].points_local_mm)
    assert len(table) > 0
    for item in found:
        outline = Polygon(item.pose.local_to_table(item.side.shape.polygon_mm.exterior.coords))
        assert not contains_xy(outline, table[:, 0], table[:, 1]).any()


@pytest.mark.parametrize("turn_deg", [0.0, 30.0])
def test_a_disc_coaster_half_under_a_square_one_is_found(catalogue, turn_deg):
    # the square's straight edges beside the disc's arc: the disc's outline must still be
    # examined, and its art fitted from a start off in angle and in both axes
    hidden = Placed(
        side(catalogue, "coaster", "double"), "blue", (200.0, 120.0), np.deg2rad(turn_deg)
    )
    above = Placed(side(catalogue, "coaster", "triple"), "green", (240.0, 130.0), np.deg2rad(15))
    coasters = _found_under(catalogue, hidden, above)
    assert [c.side for c in coasters] == [hidden.side]
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 1.0


@pytest.mark.parametrize("gap_mm", [13.0, 15.0])
def test_a_coaster_mostly_under_one_of_its_shape_is_not_taken_for_it_seen_again(catalogue, gap_mm):
    """A soft coaster four fifths under a beer coaster (both discs, centres ``gap_mm`` apart):
    its crescent's art is matched clear of the beer coaster, so it is a coaster of its own (its
    icon lies under the beer coaster, so any disc type may be read there)."""
    hidden = Placed(side(catalogue, "coaster", "soft"), "green", (200.0, 120.0), np.deg2rad(50))
    above = Placed(
        side(catalogue, "coaster", "beer"), "yellow", (200.0 + gap_mm, 121.0), np.deg2rad(-20)
    )
    coasters = _found_under(catalogue, hidden, above)
    assert [c.side.shape for c in coasters] == [hidden.side.shape]
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 2.0


def _found_under(catalogue, hidden: Placed, above: Placed):
    """The coasters found under the items found: ``above`` on ``hidden``, and a beer coaster
    beside them."""
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (80.0, 120.0), np.deg2rad(-40.0))
    homography = table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0))
    image = render_scene(catalogue, [beer, hidden, above], homography, (640, 480))
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    found = [_Pose(p.side, ItemPose(p.center_mm, p.angle_rad)) for p in (beer, above)]
    around = np.array([40.0, 40.0, 320.0, 200.0])
    library = art_library(catalogue)
    return find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6)


@pytest.mark.parametrize(("type_name", "turn_deg"), [("triple", 25.0), ("beer", 160.0)])
def test_a_coaster_partly_under_an_item_the_segmenter_sees_is_compared_with_the_art(
    catalogue, monkeypatch, type_name, turn_deg
):
    """Where the part of a coaster clear of the items above it shows too little of its outline
    to peak, the segmenter's colour there still has the art compared; a blob in the back's
    channel (a coaster face down, which should have been removed) is not searched so."""
    image, plane, hidden, found = _under_scene(catalogue, type_name, turn_deg)
    library = art_library(catalogue)
    around = np.array([40.0, 40.0, 320.0, 200.0])
    monkeypatch.setattr(outline_search, "partial_outline_peaks", lambda *args: [])
    assert find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6) == []
    for channel, expected in ((5, []), (2, [hidden.side])):
        seen = _coasters_seen(plane, [(hidden.center_mm, channel)], PX_PER_MM * 1.6)
        coasters = find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6, seen)
        assert [c.side for c in coasters] == expected
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 2.0


@pytest.mark.parametrize("type_name", ["three", "beer"])
def test_a_coaster_under_an_item_farther_from_the_segmenters_place_than_its_grid_is_found(
    catalogue, monkeypatch, type_name
):
    """The segmenter's disc slid under the items found scores alike wherever its colour stays
    inside, so the coaster's centre can lie past the grid the art is first compared on (14 mm
    off here, the grid reaching 9 mm): where the art fits best on the grid's edge, the grid
    is laid again around that place, and the coaster found."""
    image, plane, hidden, found = _under_scene(catalogue, type_name, 25.0)
    library = art_library(catalogue)
    around = np.array([40.0, 40.0, 320.0, 200.0])
    place = (hidden.center_mm[0] - 14.0, hidden.center_mm[1])
    peak = OutlinePeak(hidden.side.shape, place, 0.0, 0.5, outline_search.PARTIAL_OFF_MM)
    monkeypatch.setattr(outline_search, "partial_outline_peaks", lambda *args: [])
    monkeypatch.setattr(outline_search, "likely_partial_peaks", lambda *args: [peak])
    seen = _coasters_seen(plane, [(place, 2)], PX_PER_MM * 1.6)
    coasters = find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6, seen)
    assert [c.side for c in coasters] == [hidden.side]
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 2.0
    monkeypatch.setattr(outline_search, "OFF_WALK_SHARE", 1.0)  # the grid alone
    coasters = find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6, seen)
    assert all(np.hypot(*np.subtract(c.pose.center_mm, hidden.center_mm)) > 2.0 for c in coasters)


@pytest.mark.parametrize("gap_mm", [62.0, 66.0])
def test_a_coaster_partly_under_an_item_not_found_the_segmenter_sees_is_still_compared(
    catalogue, monkeypatch, gap_mm
):
    """A coaster partly under a napkin found and partly under a coaster the features missed
    (centres ``gap_mm`` apart): the segmenter sees the missed coaster's colour over 11-16% of
    the disc searched for the hidden one. The hidden one's art is still compared there, and
    found."""
    hidden = Placed(side(catalogue, "coaster", "triple"), "green", (200.0, 120.0), 0.4)
    missed = Placed(side(catalogue, "coaster", "double"), "blue", (200.0, 120.0 - gap_mm), 1.2)
    napkin = Placed(side(catalogue, "napkin"), "yellow", (290.0, 125.0), np.deg2rad(10.0))
    homography = table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0))
    image = render_scene(catalogue, [hidden, missed, napkin], homography, (640, 480))
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    found = [_Pose(napkin.side, ItemPose(napkin.center_mm, napkin.angle_rad))]
    seen = _coasters_seen(plane, [(hidden.center_mm, 2), (missed.center_mm, 3)], PX_PER_MM * 1.6)
    seen.probabilities[:, :, 2] *= 1 - seen.probabilities[:, :, 3]  # the missed one lies above
    monkeypatch.setattr(outline_search, "partial_outline_peaks", lambda *args: [])
    library = art_library(catalogue)
    around = np.array([40.0, 40.0, 320.0, 200.0])
    coasters = find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6, seen)
    hits = [c for c in coasters if c.side == hidden.side]
    assert len(hits) == 1
    assert np.hypot(*np.subtract(hits[0].pose.center_mm, hidden.center_mm)) < 2.0


def test_a_coaster_the_segmenter_sees_beside_an_item_with_nothing_under_it_is_not_found(catalogue):
    """The segmenter's colour next to an item found, where the table is bare: the art finds
    nothing there."""
    _, plane, hidden, found = _under_scene(catalogue, "triple", 25.0)
    items = [
        Placed(f.side, c, f.pose.center_mm, f.pose.angle_rad)
        for f, c in zip(found, ("red", "yellow"), strict=True)
    ]
    bare = render_scene(
        catalogue, items, table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0)), (640, 480)
    )
    around = np.array([40.0, 40.0, 320.0, 200.0])
    seen = _coasters_seen(plane, [(hidden.center_mm, 2)], PX_PER_MM * 1.6)
    library = art_library(catalogue)
    assert find_coasters_under_items(bare, plane, library, found, around, 0.4, 1.6, seen) == []


def test_nothing_is_found_under_items_with_nothing_under_them(catalogue):
    _, plane, _, found = _under_scene(catalogue, "triple", 25.0)
    colours = ("red", "yellow")
    items = [
        Placed(f.side, c, f.pose.center_mm, f.pose.angle_rad)
        for f, c in zip(found, colours, strict=True)
    ]
    bare = render_scene(
        catalogue, items, table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0)), (640, 480)
    )
    around = np.array([40.0, 40.0, 320.0, 200.0])
    library = art_library(catalogue)
    assert find_coasters_under_items(bare, plane, library, found, around, 0.4, 1.6) == []


@pytest.mark.parametrize("table_bgr", [(28, 24, 24), (70, 90, 110)])
def test_the_string_along_an_items_edge_is_not_a_coaster_under_it(catalogue, table_bgr):
    # the cord runs 15 mm off a napkin's edge: with the napkin's edge it bounds a coaster-sized
    # band, and the cord's ridge makes a colour step at the outline, but the table is the same
    # on both sides of it a little farther out
    napkin = Placed(side(catalogue, "napkin", face="down"), "gray", (200.0, 150.0), 0.0)
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (60.0, 60.0), np.deg2rad(-40.0))
    homography = table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0))
    image = render_scene(catalogue, [beer, napkin], homography, (640, 480), table_bgr)
    cord_y = 150.0 - napkin.side.shape.size_mm / 2 - 15.0
    ends = np.array([[120.0, cord_y], [290.0, cord_y]]) * PX_PER_MM * 1.6 + 30.0
    (x0, y0), (x1, y1) = np.round(ends).astype(int)
    cord_px = round(6.0 * PX_PER_MM * 1.6)
    cv2.line(image, (x0, y0), (x1, y1), (146, 211, 228), cord_px, cv2.LINE_AA)
    image = cv2.GaussianBlur(image, (0, 0), 1.0)
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    found = [_Pose(p.side, ItemPose(p.center_mm, p.angle_rad)) for p in (beer, napkin)]
    around = np.array([20.0, 20.0, 330.0, 250.0])
    library = art_library(catalogue)
    assert find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6) == []


def test_a_square_coaster_mostly_under_a_disc_one_near_its_centre_is_found(catalogue):
    # their centres 27 mm apart, nearer than half a coaster: were the disc a square, the
    # square would be the disc seen again; a coaster of another shape is another coaster
    hidden = Placed(side(catalogue, "coaster", "triple"), "yellow", (200.0, 120.0), np.deg2rad(20))
    above = Placed(side(catalogue, "coaster", "double"), "green", (222.0, 136.0), np.deg2rad(70))
    coasters = _found_under(catalogue, hidden, above)
    assert [c.side for c in coasters] == [hidden.side]
    assert np.hypot(*np.subtract(coasters[0].pose.center_mm, hidden.center_mm)) < 1.5


def _grainy_gray_coaster(catalogue):
    """(image, plane, coaster, found): a gray coaster in full view beside a napkin found, in a
    soft, grainy photo (blur 2 px, noise 40 levels): its art correlates about 0.57."""
    coaster = Placed(
        side(catalogue, "coaster", "double"), "gray", (190.0, 120.0), np.deg2rad(100.0)
    )
    napkin = Placed(side(catalogue, "napkin"), "yellow", (300.0, 125.0), np.deg2rad(10.0))
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (80.0, 120.0), np.deg2rad(-40.0))
    homography = table_homography(PX_PER_MM * 1.6, origin_px=(30.0, 30.0))
    image = render_scene(catalogue, [beer, coaster, napkin], homography, (640, 480), (60, 70, 80))
    grain = np.random.default_rng(3).normal(0.0, 40.0, image.shape)
    image = np.clip(cv2.GaussianBlur(image, (0, 0), 2.0) + grain, 0, 255).astype(np.uint8)
    plane = TablePlane(homography, 0.0, 0.0, (image.shape[1], image.shape[0]))
    found = [_Pose(p.side, ItemPose(p.center_mm, p.angle_rad)) for p in (beer, napkin)]
    return image, plane, coaster, found


def test_a_faint_coaster_the_segmenter_is_sure_of_needs_less_of_the_art(catalogue, monkeypatch):
    """A gray coaster's print shows at half the others' contrast: soft and grainy, its art
    correlates under :data:`MIN_CORRELATION`. Where the segmenter sees its face over the whole
    disc, that is enough; where it is unsure (a probability of 0.8), it is not."""
    image, plane, coaster, found = _grainy_gray_coaster(catalogue)
    library = art_library(catalogue)
    around = np.array([40.0, 40.0, 320.0, 200.0])
    monkeypatch.setattr(outline_search, "partial_outline_peaks", lambda *args: [])

    def search(probability: float):
        seen = _coasters_seen(plane, [(coaster.center_mm, 4)], PX_PER_MM * 1.6)
        seen.probabilities[:] *= probability
        return find_coasters_under_items(image, plane, library, found, around, 0.4, 1.6, seen)

    (sure,) = search(1.0)
    assert sure.side == coaster.side
    assert sure.correlation >= outline_search.SURE_SEEN_MIN_CORRELATION
    assert sure.correlation < outline_search.MIN_CORRELATION
    assert np.hypot(*np.subtract(sure.pose.center_mm, coaster.center_mm)) < 2.0
    assert search(0.8) == []
    monkeypatch.setattr(outline_search, "SURE_SEEN_MIN_CORRELATION", 0.62)
    assert search(1.0) == []


def test_the_coarse_look_correlates_each_place_over_its_own_clear_pixels():
    """Each place's correlation is the plain normalised one over the pixels clear there, so a
    place is not judged on what another place has covered; too few clear pixels give -1."""
    rng = np.random.default_rng(7)
    observed = rng.normal(100.0, 20.0, (3, 400)).astype(np.float32)
    arts = rng.normal(0.0, 1.0, (5, 400)).astype(np.float32)
    observed[0] += 15.0 * arts[2]  # the first place shows the third art
    masks = rng.random((3, 400)) > 0.3
    masks[2, 20:] = False  # the last place shows 20 pixels or fewer
    correlation = outline_search._masked_correlation(observed, masks, arts)
    for c in range(2):
        for k in range(5):
            m = masks[c]
            expected = np.corrcoef(observed[c, m], arts[k, m])[0, 1]
            assert correlation[c, k] == pytest.approx(expected, abs=1e-4)
    assert (correlation[2] == -1.0).all()
    assert correlation[0].argmax() == 2


@pytest.mark.parametrize("off_mm", [outline_search.PARTIAL_OFF_MM, 0.0])
def test_a_place_the_segmenter_sees_is_one_coaster_whichever_shape_confirms_it(
    catalogue, monkeypatch, off_mm
):
    """The segmenter's place is looked at for either shape; where both confirm a coaster (20
    mm apart), only the better-correlated is kept. Two outline peaks (``off_mm`` 0) are two
    places, and both are kept."""
    disc = side(catalogue, "coaster", "double")
    square = side(catalogue, "coaster", "three")
    place = (200.0, 120.0)
    peaks = [OutlinePeak(s.shape, place, 0.0, 0.5, off_mm) for s in (disc, square)]
    coasters = {
        disc.shape: HiddenCoaster(disc, ItemPose((180.0, 120.0), 0.0), np.zeros((0, 2)), 0.67, 0.3),
        square.shape: HiddenCoaster(
            square, ItemPose((200.0, 120.0), 0.0), np.zeros((0, 2)), 0.88, 0.3
        ),
    }
    monkeypatch.setattr(outline_search, "_confirm", lambda *args: coasters[args[4].shape])
    kept = outline_search._confirm_all(None, None, None, [], peaks, [], 1.6)
    expected = [square, disc] if off_mm == 0 else [square]
    assert [c.side for c in kept] == expected
