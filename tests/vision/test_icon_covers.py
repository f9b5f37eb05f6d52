"""The pixel check of icon visibility: a foreign object over an icon is found, an item above
is left to the geometry, and a clean photo, or one whose icons lie a pixel or two off the
coaster's pose, gives no covers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.icon_covers import _light_only, _pixels_outline, find_icon_covers
from vision.identify import FOCUS_BLUR_MM, IdentifiedItem, render
from vision.plane import ItemPose, TablePlane

PPM = 1.6
DATA = Path(__file__).resolve().parents[1] / "data"


def _identified(catalogue, view: CanvasView, placed: Placed) -> IdentifiedItem:
    pose = ItemPose(placed.center_mm, placed.angle_rad)
    rendering = render(art_library(catalogue), view, placed.side, placed.color, pose)
    return IdentifiedItem(
        placed.side, placed.color, pose, rendering, np.ones(3), 0.0, 1.0, np.zeros((0, 2))
    )


def _icon_centre_px(catalogue, placed: Placed, icon_id: str) -> tuple[int, int]:
    icon = catalogue.coaster_type(placed.side.type_name).icon(icon_id)
    local = np.asarray(icon.outline_mm.centroid.coords)
    table = ItemPose(placed.center_mm, placed.angle_rad).local_to_table(local)[0]
    return round(table[0] * PPM), round(table[1] * PPM)


@pytest.fixture
def triple(catalogue) -> Placed:
    return Placed(side(catalogue, "coaster", "triple"), "blue", (120.0, 110.0), np.deg2rad(25))


def _photo(catalogue, items: list[Placed]) -> np.ndarray:
    homography = table_homography(PPM, origin_px=(0.0, 0.0))
    return render_scene(catalogue, items, homography, (400, 380), (60, 110, 70))


def test_a_clean_photo_has_no_covers(catalogue, triple) -> None:
    view = CanvasView(_photo(catalogue, [triple]), (0.0, 0.0), PPM)
    assert find_icon_covers(view, catalogue, [_identified(catalogue, view, triple)], [0]) == []


def test_a_coin_over_an_icon_is_a_cover_of_that_icon_only(catalogue, triple) -> None:
    image = _photo(catalogue, [triple])
    centre = _icon_centre_px(catalogue, triple, "p2")
    cv2.circle(image, centre, 9, (175, 178, 180), -1)  # a silver coin, about 11 mm across
    view = CanvasView(image, (0.0, 0.0), PPM)
    covers = find_icon_covers(view, catalogue, [_identified(catalogue, view, triple)], [0])
    assert {(c.item_index, c.icon_ids) for c in covers} == {(0, ("p2",))}
    assert 20.0 < sum(c.area_mm2 for c in covers) < 130.0


def test_a_speck_smaller_than_nine_photo_pixels_is_no_cover(catalogue, triple) -> None:
    """A dark speck 5 mm across over an icon is a cover where the photo resolves it, but not
    where the photo shows the table at 0.5 px/mm: there it spans under nine photo pixels, as
    JPEG noise and the art's blurred edges do."""
    image = _photo(catalogue, [triple])
    cv2.circle(image, _icon_centre_px(catalogue, triple, "p2"), 4, (30, 30, 30), -1)
    view = CanvasView(image, (0.0, 0.0), PPM)
    items = [_identified(catalogue, view, triple)]
    assert [c.icon_ids for c in find_icon_covers(view, catalogue, items, [0])] == [("p2",)]
    distant = TablePlane(np.diag([0.5, 0.5, 1.0]), 0.0, 0.0, (200, 190))
    assert find_icon_covers(view, catalogue, items, [0], distant) == []


def test_an_item_above_is_left_to_the_geometry(catalogue, triple) -> None:
    centre = _icon_centre_px(catalogue, triple, "p1")
    above = Placed(
        side(catalogue, "coaster", "beer"), "red", (centre[0] / PPM + 40, centre[1] / PPM), 0.0
    )
    view = CanvasView(_photo(catalogue, [triple, above]), (0.0, 0.0), PPM)
    items = [_identified(catalogue, view, triple), _identified(catalogue, view, above)]
    assert find_icon_covers(view, catalogue, items, [0, 1]) == []


@pytest.mark.parametrize("type_name", ["beer", "triple", "double"])
def test_icons_a_few_px_off_their_coaster_pose_have_no_cover_but_keep_a_coin(
    catalogue, type_name
) -> None:
    """A coaster lifted on a stack or a little turned shows its icons off centre a pixel or two
    off the pose its features give: rings of disagreement along the icon's edges, no cover."""
    coaster = Placed(side(catalogue, "coaster", type_name), "red", (120.0, 110.0), np.deg2rad(25))
    photo = _photo(catalogue, [coaster])
    view = CanvasView(photo, (0.0, 0.0), PPM)
    item = _identified(catalogue, view, coaster)
    icons = catalogue.coaster_type(type_name).icons
    moved = photo.copy()
    for icon in icons:  # each icon 2 px (1.25 mm) off, with the coaster around it
        local = np.asarray(icon.outline_mm.buffer(2.0).exterior.coords)
        ring = np.round(view.table_to_canvas(item.pose.local_to_table(local))).astype(np.int32)
        mask = np.zeros(photo.shape[:2], np.uint8)
        cv2.fillPoly(mask, [ring], 1)
        shifted = np.roll(photo, (2, 2), axis=(0, 1))
        moved[mask > 0] = shifted[mask > 0]
    assert find_icon_covers(CanvasView(moved, (0.0, 0.0), PPM), catalogue, [item], [0]) == []
    cv2.circle(moved, _icon_centre_px(catalogue, coaster, icons[0].id), 9, (175, 178, 180), -1)
    covers = find_icon_covers(CanvasView(moved, (0.0, 0.0), PPM), catalogue, [item], [0])
    assert icons[0].id in {i for c in covers for i in c.icon_ids}


@pytest.mark.parametrize("light", ["shadow", "glare"])
def test_light_over_an_icon_is_no_cover_but_a_coin_in_it_is(catalogue, triple, light) -> None:
    """A hand's shadow darkens the print and a lamp's glare pales it: the print still shows
    through, so neither covers the icon; a coin lying in the same light hides it."""
    image = _photo(catalogue, [triple]).astype(np.float32)
    centre = _icon_centre_px(catalogue, triple, "p2")
    spot = np.zeros(image.shape[:2], np.float32)
    cv2.circle(spot, centre, 22, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), 2.0)[:, :, None]
    if light == "shadow":
        lit = image * (1.0 - 0.55 * spot)
    else:
        lit = image + spot * (0.5 * (255.0 - image))
    photo = np.clip(lit, 0, 255).astype(np.uint8)
    view = CanvasView(photo, (0.0, 0.0), PPM)
    item = _identified(catalogue, view, triple)
    assert find_icon_covers(view, catalogue, [item], [0]) == []
    cv2.circle(photo, centre, 9, (175, 178, 180), -1)
    covers = find_icon_covers(CanvasView(photo, (0.0, 0.0), PPM), catalogue, [item], [0])
    assert "p2" in {i for c in covers for i in c.icon_ids}


#: How far out of focus the coaster is photographed (sigma, mm): beyond the largest blur an
#: identification tells (:data:`vision.identify.FOCUS_BLUR_MM`), as far coasters in a photo
#: focused near are.
PHOTO_BLUR_MM = 3.0


@pytest.mark.parametrize("type_name", ["beer", "triple"])
@pytest.mark.parametrize("told_blur_mm", [0.0, 1.5])
def test_a_coaster_out_of_focus_has_no_cover_but_keeps_a_coin(
    catalogue, type_name, told_blur_mm
) -> None:
    """A coaster far out of focus shows its icons' edges smeared over several mm: compared
    with the sharp art, the disagreement along them forms blobs as large as a cover (the beer
    mug's). Its art is compared as blurred as explains its pixels, whatever focus its
    identification told (on pixels that may lie under other items); a coin lying on it still
    hides an icon."""
    coaster = Placed(side(catalogue, "coaster", type_name), "blue", (120.0, 110.0), 0.4)
    sharp = _photo(catalogue, [coaster])
    photo = cv2.GaussianBlur(sharp, (0, 0), PHOTO_BLUR_MM * PPM)
    view = CanvasView(photo, (0.0, 0.0), PPM)
    item = replace(_identified(catalogue, view, coaster), focus_blur_mm=told_blur_mm)
    assert find_icon_covers(view, catalogue, [item], [0]) == []
    icon = catalogue.coaster_type(type_name).icons[0]
    cv2.circle(photo, _icon_centre_px(catalogue, coaster, icon.id), 9, (175, 178, 180), -1)
    covers = find_icon_covers(CanvasView(photo, (0.0, 0.0), PPM), catalogue, [item], [0])
    assert icon.id in {i for c in covers for i in c.icon_ids}


def test_an_overexposed_coaster_has_no_cover(catalogue) -> None:
    """In an overexposed photo the cream of the beer mug, lit brighter than white, shows white:
    the art lit as its identification found it (gains over 1, a haze) is clipped alike."""
    beer = Placed(side(catalogue, "coaster", "beer"), "green", (120.0, 110.0), 0.4)
    gains, haze = np.array([1.2, 1.2, 1.1], np.float32), 40.0
    lit = _photo(catalogue, [beer]).astype(np.float32) * gains + haze
    view = CanvasView(np.clip(lit, 0, 255).astype(np.uint8), (0.0, 0.0), PPM)
    item = replace(_identified(catalogue, view, beer), gains=gains, haze=haze)
    assert find_icon_covers(view, catalogue, [item], [0]) == []


@pytest.mark.parametrize("type_name", ["beer", "triple", "double"])
def test_a_sharp_coaster_off_its_pose_is_compared_with_its_sharp_art(catalogue, type_name) -> None:
    """A sharp coaster whose identification told it out of focus, photographed two pixels off
    its pose (as features give a coaster on a stack): the blurred art disagrees less with it
    pixel for pixel, but the sharp art explains it within the pose's tolerance, and no icon is
    covered; a coin lying on it still hides an icon."""
    coaster = Placed(side(catalogue, "coaster", type_name), "gray", (120.0, 110.0), 0.4)
    photo = np.roll(_photo(catalogue, [coaster]), (2, 1), axis=(0, 1))
    view = CanvasView(photo, (0.0, 0.0), PPM)
    item = replace(_identified(catalogue, view, coaster), focus_blur_mm=FOCUS_BLUR_MM[-1])
    assert find_icon_covers(view, catalogue, [item], [0]) == []
    icon = catalogue.coaster_type(type_name).icons[0]
    cv2.circle(photo, _icon_centre_px(catalogue, coaster, icon.id), 9, (175, 178, 180), -1)
    covers = find_icon_covers(CanvasView(photo, (0.0, 0.0), PPM), catalogue, [item], [0])
    assert icon.id in {i for c in covers for i in c.icon_ids}


def test_a_coaster_blurred_in_a_photo_is_compared_with_its_blurred_art(catalogue) -> None:
    """Validation photo 0113 (``tablescore synth --recipe val``): a blue double coaster far out
    of focus and smeared by the camera's motion, its icon p2 plainly visible. Its view and the
    four items around it, as the pipeline identified them, are saved in
    ``tests/data/icons_out_of_focus_0113.npz``. Over its plain ground every focus explains the
    photo about alike (the median error is that of the ground); over the icons' edges only
    the blurred art does. (Synthetic blur, noise, motion and colour offsets did not reproduce
    the failure, hence the saved view.) Told by the mean error, its art is compared blurred and
    p2 has no cover (told by the median, a 323 mm^2 cover hid it)."""
    data = np.load(DATA / "icons_out_of_focus_0113.npz")
    view = CanvasView(data["image_bgr"], tuple(data["origin_mm"]), float(data["px_per_mm"]))
    library = art_library(catalogue)
    sides = {s.label: s for s in library.sides}
    items = []
    for k, label in enumerate(data["labels"]):
        pose = ItemPose(tuple(data["centers_mm"][k]), float(data["angles_rad"][k]))
        side_seen, color = sides[str(label)], str(data["colors"][k])
        items.append(
            IdentifiedItem(
                side_seen,
                color,
                pose,
                render(library, view, side_seen, color, pose),
                data["gains"][k].astype(np.float32),
                float(data["hazes"][k]),
                1.0,
                np.zeros((0, 2)),
                focus_blur_mm=float(data["focus_blur_mm"][k]),
            )
        )
    covers = find_icon_covers(view, catalogue, items, [int(z) for z in data["z"]])
    target = int(data["target"])
    assert items[target].side.type_name == "double"
    assert "p2" not in {i for c in covers if c.item_index == target for i in c.icon_ids}


@pytest.mark.parametrize(("lying", "covers"), [("shadow", False), ("crumb", True)])
def test_a_shadow_on_flat_print_below_an_icon_is_no_cover_but_a_crumb_is(
    catalogue, lying, covers
) -> None:
    """An item lying above casts a shadow on the flat gray ground of a coaster, up to the
    beer mug's outline: too flat a print to show through it, but it keeps the ground's colour
    and darkens it as light does. A brown crumb of the same shape there covers the mug."""
    beer = Placed(side(catalogue, "coaster", "beer"), "gray", (120.0, 110.0), 0.0)
    image = _photo(catalogue, [beer]).astype(np.float32)
    outline = catalogue.coaster_type("beer").icon("beer").outline_mm.exterior.coords
    mug_px = ItemPose(beer.center_mm, beer.angle_rad).local_to_table(np.asarray(outline)) * PPM
    bottom = int(mug_px[:, 1].max())
    band = np.zeros(image.shape[:2], np.float32)  # from the mug's bottom 9 mm down
    cv2.rectangle(
        band, (int(mug_px[:, 0].min()), bottom - 1), (int(mug_px[:, 0].max()), bottom + 14), 1.0, -1
    )
    band = cv2.GaussianBlur(band, (0, 0), 1.0)[:, :, None]
    if lying == "shadow":
        image = image * (1.0 - 0.45 * band)
    else:
        image = image * (1.0 - band) + np.array([40.0, 60.0, 95.0], np.float32) * band
    view = CanvasView(np.clip(image, 0, 255).astype(np.uint8), (0.0, 0.0), PPM)
    found = find_icon_covers(view, catalogue, [_identified(catalogue, view, beer)], [0])
    assert ("beer" in {i for c in found for i in c.icon_ids}) is covers


def test_a_stick_of_the_pretzels_brown_reaching_into_an_icon_covers_it(catalogue, triple) -> None:
    """A pretzel stick (5 mm thick, of the printed pretzel's brown, a little out of focus) from
    the coaster's ground to the middle of a pretzel icon: over the ground it disagrees with the
    art at once; over the icon's print only weakly, and the blob of the strong part alone stops
    near the icon's edge (5 mm^2 into it). The cover found reaches into the icon."""
    image = _photo(catalogue, [triple])
    centre = np.array(_icon_centre_px(catalogue, triple, "p2"))
    outside = centre + np.round(np.array([np.cos(4.0), np.sin(4.0)]) * 30 * PPM).astype(int)
    cv2.line(image, tuple(map(int, outside)), tuple(map(int, centre)), (52, 123, 204), 8)
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 1.0), (0.0, 0.0), PPM)
    covers = find_icon_covers(view, catalogue, [_identified(catalogue, view, triple)], [0])
    icon = catalogue.coaster_type("triple").icon("p2")
    pose = ItemPose(triple.center_mm, triple.angle_rad)
    icon_mm = Polygon(pose.local_to_table(np.asarray(icon.outline_mm.exterior.coords)))
    reached = sum(Polygon(c.outline_mm).buffer(0).intersection(icon_mm).area for c in covers)
    assert reached > 20.0  # mm^2: well into the icon (the stick covers about 60 there)


@pytest.mark.parametrize(("gap_mm", "covers"), [(1.0, False), (-1.5, True)])
def test_a_blurred_crumb_covers_an_icon_only_where_it_lies_over_it(
    catalogue, triple, gap_mm, covers
) -> None:
    """A dark crumb 8 mm across beside icon p2, ``gap_mm`` clear of its outline (negative:
    lying that far over it), photographed out of focus (sigma 1.5 mm, as a photo at about
    0.6 px/mm shows the table): its disagreement with the art spreads beyond its edge, past a
    1 mm gap, but the outline found runs where it hides half the art. Outlined where it
    disagrees, the crumb 1 mm clear took a 65 mm^2 cover over p2."""
    pose = ItemPose(triple.center_mm, triple.angle_rad)
    icon_local = np.asarray(catalogue.coaster_type("triple").icon("p2").outline_mm.exterior.coords)
    rightmost = icon_local[np.argmax(icon_local[:, 0])]
    radius_mm = 4.0
    beside = np.array([[rightmost[0] + gap_mm + radius_mm, rightmost[1]]])  # coaster mm
    centre_mm = pose.local_to_table(beside)[0]
    image = _photo(catalogue, [triple])
    centre_px = tuple(int(v) for v in np.round(centre_mm * PPM))
    cv2.circle(image, centre_px, round(radius_mm * PPM), (40, 60, 95), -1)
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 1.5 * PPM), (0.0, 0.0), PPM)
    found = find_icon_covers(view, catalogue, [_identified(catalogue, view, triple)], [0])
    assert ("p2" in {i for c in found for i in c.icon_ids}) is covers


@pytest.mark.parametrize("color", ["yellow", "green", "blue", "gray"])
def test_a_stick_over_a_coasters_ground_with_its_tip_on_an_icon_covers_it(
    catalogue, triple, color
) -> None:
    """A pretzel stick (5 mm thick, blurred by 1.25 mm as a photo at about 1.2 px/mm shows it)
    across the coaster's ground, its tip 2 mm into icon p2, covers it whatever the coaster's
    colour. Told over all levels together, a yellow ground's channels (blue lowest, red
    highest) varied as a print would (by 64 levels), and the stick's brown, keeping their
    order, followed it at 0.94, as if the print showed through: p2 was left visible
    (held-out-reference 0092: a yellow beer coaster's mug, at 0.96). Over a red ground, this
    blurred, the brown differs by less than :data:`vision.icon_covers.MIN_MISMATCH_LEVELS`:
    not found, a limit of its own."""
    triple = replace(triple, color=color)
    pose = ItemPose(triple.center_mm, triple.angle_rad)
    icon_local = np.asarray(catalogue.coaster_type("triple").icon("p2").outline_mm.exterior.coords)
    rightmost = icon_local[np.argmax(icon_local[:, 0])]
    along = np.array([[-2.0, 0.0], [25.0, 0.0]])  # the tip 2 mm into the icon, the tail out
    tip, tail = pose.local_to_table(rightmost + along)
    image = _photo(catalogue, [triple])
    ends = [tuple(int(v) for v in np.round(end * PPM)) for end in (tail, tip)]
    cv2.line(image, ends[0], ends[1], (40, 90, 160), 8)
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 2.0), (0.0, 0.0), PPM)
    found = find_icon_covers(view, catalogue, [_identified(catalogue, view, triple)], [0])
    assert "p2" in {i for c in found for i in c.icon_ids}


@pytest.mark.parametrize(
    ("lying", "light"),
    [("shadow", True), ("shadow in fill light", True), ("stick", False), ("coin", False)],
)
def test_on_a_flat_coloured_ground_a_shadow_is_light_and_a_stick_is_not(lying, light) -> None:
    """A disagreeing blob on a yellow coaster's flat ground (BGR levels, a little texture). A
    shadow darkens it; in the room's fill light, it also pales it (0.46 times the art plus 40
    levels, as held-out-reference 0193's shadow): both are light. A brown stick or a silver
    coin over it is not. Told over all levels together, the yellow's channels varied as a
    print, and the stick, keeping their order, was taken for light."""
    rng = np.random.default_rng(0)
    art = np.array([48.0, 161.0, 215.0]) + rng.normal(0.0, 3.0, (200, 3))
    photo = {
        "shadow": 0.6 * art,
        "shadow in fill light": 0.46 * art + 40.0,
        "stick": np.array([40.0, 90.0, 160.0]) + rng.normal(0.0, 3.0, (200, 3)),
        "coin": np.array([175.0, 178.0, 180.0]) + rng.normal(0.0, 3.0, (200, 3)),
    }[lying]
    assert _light_only(photo, art) is light


def test_a_neutral_shadow_on_a_gray_coasters_flat_ground_is_light() -> None:
    """A gray coaster's ground (BGR 118, 120, 125) darkened to a neutral 80, 80, 80: its colour
    is kept (chromaticities within 0.01). Fitted as the art scaled plus a level alike in every
    channel, the near-alike channels trade the scale for the level (scale 0, level 80), as if
    no light were left: the plain scaling tells it."""
    rng = np.random.default_rng(0)
    art = np.array([118.0, 120.0, 125.0]) + rng.normal(0.0, 3.0, (200, 3))
    photo = np.array([80.0, 80.0, 80.0]) + rng.normal(0.0, 3.0, (200, 3))
    assert _light_only(photo, art)


def test_a_covers_outline_runs_around_its_pixels_not_through_their_centres() -> None:
    """A blob of 3 x 2 pixels is outlined as the 3 x 2 px rectangle its pixels cover: one that
    reaches a pixel of an icon then overlaps the icon's outline."""
    centres = np.array([[0, 0], [0, 1], [2, 1], [2, 0]])  # as cv2.findContours traces them
    outline = Polygon(_pixels_outline(centres))
    assert outline.area == pytest.approx(6.0)
    assert outline.bounds == pytest.approx((-0.5, -0.5, 2.5, 1.5))
