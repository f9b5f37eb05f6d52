"""Labels of rendered photos checked against the rendered geometry (masks) and the scoring core."""

import cv2
import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from games.beer_pretzels.catalogue import Face, ItemKind, load_catalogue
from games.beer_pretzels.geometry import icon_polygons_mm, item_polygon_mm
from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import score_scene
from vision.synthetic.camera import Camera
from vision.synthetic.generate import SynthOptions, make_sample
from vision.synthetic.scene_sampler import Difficulty
from vision.synthetic.semantic import SemanticClasses

CATALOGUE = load_catalogue()
SIZE = (960, 720)


@pytest.fixture(scope="module")
def samples():
    hard = SynthOptions(size_px=SIZE, difficulty=Difficulty.HARD, exif_share=0.0)
    medium = SynthOptions(size_px=SIZE[::-1], difficulty=Difficulty.MEDIUM, exif_share=0.0)
    easy = SynthOptions(size_px=SIZE, difficulty=Difficulty.EASY, exif_share=0.0)
    # Photo 4 of set 5 (hard) has pretzel sticks lying on the game.
    return [make_sample(5, i, o, CATALOGUE) for i, o in ((4, hard), (1, medium), (2, easy))]


def _foreign(labels) -> list[Polygon]:
    return [Polygon(f["outline_mm"]) for f in labels["foreign"]]


def _camera(labels) -> Camera:
    c = labels["camera"]
    return Camera(
        size_px=(labels["width"], labels["height"]),
        f_px=c["f_px"],
        R=np.array(c["R"]),
        center_mm=np.array(c["center_mm"]),
        k1=c["k1"],
        k2=c["k2"],
    )


def _items(labels) -> list[PlacedItem]:
    """The scene back from the labels (a face-down coaster gets a type of its shape)."""
    return [
        PlacedItem(
            kind=ItemKind(it["kind"]),
            color=it["color"],
            type=it["type"] if it["type"] is not None else _type_of_shape(it),
            face=Face(it["face"]),
            center_mm=tuple(it["center_mm"]),
            angle_deg=it["angle_deg"],
            z=it["z"],
        )
        for it in labels["items"]
    ]


def _type_of_shape(item) -> str | None:
    if item["kind"] == "napkin":
        return None
    return next(t.type for t in CATALOGUE.coaster_types if t.shape.kind == item["shape"])


def _fill(polygon_px, shape) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(polygon_px) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return mask.astype(bool)


def _parallax_px(camera: Camera, point_mm, height_mm: float, rise_mm: float) -> float:
    """How far (px) a point moves in the photo when raised by ``rise_mm``: the bound of how far
    an item lying higher can reach past its footprint as seen by the camera."""
    base = camera.project(np.array([point_mm]), height_mm)[0]
    ray = camera.center_mm - np.array([*point_mm, -height_mm])
    horizontal = ray[:2] / max(abs(ray[2]), 1e-6) * rise_mm
    raised = camera.project(np.array([np.asarray(point_mm) + horizontal]), height_mm + rise_mm)[0]
    up = camera.project(np.array([point_mm]), height_mm + rise_mm)[0]
    return float(max(np.linalg.norm(up - base), np.linalg.norm(raised - base)))


def test_scores_come_from_the_scoring_core(samples):
    for s in samples:
        labels = s.labels
        scene = Scene(
            boundary_mm=tuple(map(tuple, labels["boundary_mm"])),
            items=tuple(_items(labels)),
            foreign_mm=tuple(tuple(map(tuple, f["outline_mm"])) for f in labels["foreign"]),
        )
        again = score_scene(scene, CATALOGUE, players=labels["turn_order"])
        assert again.scores == labels["scores"]
        assert [r.counted for r in again.items] == [it["counted"] for it in labels["items"]]
        visible = [[i.visible for i in r.icons] for r in again.items]
        assert visible == [[i["visible"] for i in it["icons"]] for it in labels["items"]]


def test_visible_icons_have_no_item_above_them_in_the_instance_mask(samples):
    checked = 0
    for s in samples:
        camera = _camera(s.labels)
        items = s.labels["items"]
        placed = _items(s.labels)
        for k, item in enumerate(items):
            if item["kind"] != "coaster" or item["face"] != "up":
                continue
            above = range(k + 1, len(items))
            rise = max((items[j]["height_mm"] - item["height_mm"] for j in above), default=0.0)
            outlines = icon_polygons_mm(placed[k], CATALOGUE)
            for icon in item["icons"]:
                if not icon["visible"]:
                    continue
                outline = np.asarray(outlines[icon["id"]].exterior.coords)[:-1]
                centre = outline.mean(axis=0)
                tol = 1.5 + _parallax_px(camera, centre, item["height_mm"], max(rise, 0.0))
                poly_px = camera.project(outline, item["height_mm"])
                region = _fill(poly_px, s.instance.shape)
                region = cv2.erode(
                    region.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=int(np.ceil(tol))
                ).astype(bool)
                if not region.any():
                    continue
                values = s.instance[region]
                assert (values == k + 1).all(), (s.name, k, icon["id"], np.unique(values))
                checked += 1
    assert checked > 20


def test_center_px_projects_back_to_the_item_centre(samples):
    checked = 0
    for s in samples:
        camera = _camera(s.labels)
        items = s.labels["items"]
        polygons = [item_polygon_mm(it, CATALOGUE) for it in _items(s.labels)]
        for k, item in enumerate(items):
            assert np.allclose(
                camera.project(np.array([item["center_mm"]]), item["height_mm"])[0],
                item["center_px"],
                atol=0.02,
            )
            # Where nothing lies over the centre (with room for parallax), the photo shows it.
            centre = Point(item["center_mm"]).buffer(15.0)
            above = [polygons[j] for j in range(k + 1, len(items))] + _foreign(s.labels)
            if any(p.intersects(centre) for p in above):
                continue
            x, y = (round(v) for v in item["center_px"])
            assert s.instance[y, x] == k + 1, (s.name, k)
            checked += 1
    assert checked > 10


def test_polygon_px_encloses_the_instance_mask(samples):
    for s in samples:
        camera = _camera(s.labels)
        for k, item in enumerate(s.labels["items"]):
            mask = s.instance == k + 1
            if not mask.any():
                continue
            thickness = (
                CATALOGUE.coaster_thickness_mm
                if item["kind"] == "coaster"
                else CATALOGUE.napkin.thickness_mm
            )
            tol = 2.0 + _parallax_px(
                camera, item["center_mm"], item["height_mm"] - thickness, thickness
            )
            region = _fill(item["polygon_px"], mask.shape).astype(np.uint8)
            grown = cv2.dilate(region, np.ones((3, 3), np.uint8), iterations=int(np.ceil(tol)))
            assert not (mask & ~grown.astype(bool)).any(), (s.name, k)


def test_uncovered_items_fill_their_polygon(samples):
    checked = 0
    for s in samples:
        polygons = [item_polygon_mm(it, CATALOGUE) for it in _items(s.labels)]
        items = s.labels["items"]
        for k, item in enumerate(items):
            near = polygons[k].buffer(20.0)
            above = [polygons[j] for j in range(k + 1, len(items))] + _foreign(s.labels)
            if any(p.intersects(near) for p in above):
                continue
            region = _fill(item["polygon_px"], s.instance.shape)
            mask = s.instance == k + 1
            iou = (region & mask).sum() / max((region | mask).sum(), 1)
            assert iou > 0.85, (s.name, k, iou)
            checked += 1
    assert checked > 5


def test_semantic_mask_agrees_with_instances(samples):
    classes = SemanticClasses.for_catalogue(CATALOGUE)
    for s in samples:
        items = s.labels["items"]
        assert (s.semantic == classes.string).sum() > 100
        assert (s.semantic == classes.table).sum() > 0.1 * s.semantic.size
        for k, item in enumerate(items):
            mask = s.instance == k + 1
            if not mask.any():
                continue
            if item["kind"] == "napkin":
                want = classes.napkin
            elif item["face"] == "down":
                want = classes.coaster_back
            else:
                want = classes.coaster_face(item["color"])
            assert (s.semantic[mask] == want).mean() > 0.99
        assert {int(k) for k in s.labels["semantic_classes"]} == set(classes.names())


def test_labels_follow_the_contract(samples):
    for s in samples:
        labels = s.labels
        h, w = s.image_rgb.shape[:2]
        assert (labels["width"], labels["height"]) == (w, h)
        assert labels["game"] == "beer-and-pretzels"
        assert set(labels["scores"]) == set(labels["turn_order"]) == set(labels["players"])
        for color, player in labels["players"].items():
            assert player["money"] == labels["scores"][color]
            coins = player["coins"]
            assert 5 * coins["5"] + coins["1"] == player["money"]
        assert [it["z"] for it in labels["items"]] == list(range(len(labels["items"])))
        for item in labels["items"]:
            assert {"center_px", "polygon_px", "anchored", "counted", "icons"} <= item.keys()
            if item["face"] == "down" and item["kind"] == "coaster":
                assert item["type"] is None and not item["counted"]
        assert len(labels["boundary_px"]) == len(labels["boundary_mm"])
        assert labels["difficulty"] in {"easy", "medium", "hard"}


def test_snacks_on_the_game_hide_icons_and_are_not_items(samples):
    s = samples[0]
    foreign = _foreign(s.labels)
    assert foreign and "foreign_object" in s.labels["tags"]
    placed = _items(s.labels)
    hidden = 0
    for item, labelled in zip(placed, s.labels["items"], strict=True):
        outlines = icon_polygons_mm(item, CATALOGUE)
        for icon in labelled["icons"]:
            if any(outlines[icon["id"]].intersects(f) for f in foreign):
                assert not icon["visible"]
                hidden += 1
    assert hidden > 0
    assert any("not a game item" in w for w in s.labels["warnings"])
    classes = SemanticClasses.for_catalogue(CATALOGUE)
    camera = _camera(s.labels)
    drawn = 0
    for f in s.labels["foreign"]:
        top = camera.project(np.asarray(f["outline_mm"]), f["height_mm"])
        region = cv2.erode(_fill(top, s.instance.shape).astype(np.uint8), np.ones((3, 3)), 1)
        drawn += int(region.sum())
        assert (s.instance[region > 0] == 0).all()
        assert (s.semantic[region > 0] == classes.distractor).all()
    assert drawn > 10


def test_boundary_px_runs_along_the_drawn_string(samples):
    classes = SemanticClasses.for_catalogue(CATALOGUE)
    for s in samples:
        string = (s.semantic == classes.string).astype(np.uint8)
        near_string = cv2.dilate(string, np.ones((3, 3), np.uint8)).astype(bool)
        h, w = string.shape
        on, free = 0, 0
        for x, y in np.round(np.asarray(s.labels["boundary_px"])).astype(int):
            if not (0 <= x < w and 0 <= y < h) or s.semantic[y, x] not in (
                classes.string,
                classes.table,
            ):
                continue  # under an item: the string does not show there
            free += 1
            on += bool(near_string[y, x])
        assert free > 100 and on / free > 0.97, (s.name, on, free)
