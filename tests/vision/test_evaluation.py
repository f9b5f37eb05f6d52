import json
import math
from pathlib import Path

import pytest

from vision.evaluation import (
    GroundTruthError,
    evaluate_photo,
    format_summary,
    format_tag_table,
    load_ground_truth,
    match_items,
    photo_scale_px_per_mm,
    scores_exact,
    summarise,
    summarise_by_scale,
    summarise_by_tag,
)

DEVSET = Path(__file__).resolve().parents[2].parent / "shared" / "devset"


def _coaster(x, y, color="red", type_="beer", face="up", counted=True, icons=None):
    return {
        "kind": "coaster",
        "color": color,
        "type": type_ if face == "up" else None,
        "face": face,
        "center_px": [x, y],
        "counted": counted,
        "icons": icons
        if icons is not None
        else [
            {"id": "beer", "kind": "beer", "value": None, "visible": True},
            {"id": "p1", "kind": "pretzel", "value": 1, "visible": False},
        ],
    }


def _truth(items, scores=None, difficulty="easy"):
    return {
        "image": "a.jpg",
        "difficulty": difficulty,
        "scores": scores or {"red": 1},
        "items": items,
    }


def test_match_items_pairs_nearest_first_each_once():
    truth = [{"center_px": [0, 0]}, {"center_px": [30, 0]}]
    pred = [{"center_px": [28, 0]}, {"center_px": [5, 0]}, {"center_px": [200, 0]}, {}]
    assert match_items(pred, truth) == [(0, 1, 2.0), (1, 0, 5.0)]
    assert match_items([{"center_px": [0, 41]}], truth) == []


@pytest.mark.parametrize(
    ("pred", "exact"),
    [
        ({"red": 3, "blue": 2}, True),
        ({"red": 3, "blue": 2, "gray": 0}, True),
        ({"red": 3, "blue": 2, "gray": 4}, False),
        ({"red": 3}, False),
        ({"red": 3, "blue": 1}, False),
    ],
)
def test_scores_exact(pred, exact):
    assert scores_exact({"scores": pred}, {"scores": {"red": 3, "blue": 2}}) is exact


def test_item_attributes_are_compared_on_matched_pairs():
    truth = _truth(
        [
            _coaster(100, 100),
            _coaster(300, 100, color="blue", counted=False),
            _coaster(500, 500, face="down", counted=False),
        ]
    )
    pred = {
        "scores": {"red": 1},
        "items": [
            _coaster(103, 98),  # all right
            _coaster(
                305, 100, color="red", type_="soft", counted=True
            ),  # colour/type/counted wrong
            _coaster(900, 900),  # matches nothing
        ],
    }
    r = evaluate_photo(pred, truth, seconds=0.5)
    assert r.exact and r.players.accuracy == 1.0
    assert (r.found.right, r.found.total, r.extra) == (2, 3, 1)
    assert (r.items["color"].right, r.items["color"].total) == (1, 2)
    assert (r.items["type"].right, r.items["type"].total) == (1, 2)
    assert (r.items["counted"].right, r.items["counted"].total) == (1, 2)
    # Icons of the wrong-type coaster count as wrong; the right one's match.
    assert (r.items["icons"].right, r.items["icons"].total) == (2, 4)
    assert r.items["kind"].accuracy == 1.0 and r.items["face"].accuracy == 1.0


def test_icon_visibility_errors_are_counted():
    truth = _truth([_coaster(100, 100)])
    icons = [{"id": "beer", "visible": False}, {"id": "p1", "visible": False}]
    r = evaluate_photo({"scores": {"red": 1}, "items": [_coaster(100, 100, icons=icons)]}, truth)
    assert (r.items["icons"].right, r.items["icons"].total) == (1, 2)


def test_a_failed_photo_counts_wrong_everywhere():
    r = evaluate_photo(None, _truth([_coaster(1, 1)], {"red": 1, "blue": 0}), error="no_game_found")
    assert not r.exact and r.players.right == 0 and r.players.total == 2
    assert r.found.right == 0 and r.error == "no_game_found"


def test_summaries_by_difficulty():
    photos = [
        evaluate_photo({"scores": {"red": 1}, "items": []}, _truth([], difficulty="easy"), 1.0),
        evaluate_photo({"scores": {"red": 2}, "items": []}, _truth([], difficulty="hard"), 3.0),
        evaluate_photo(None, _truth([], difficulty="hard"), 2.0, error="no_game_found"),
    ]
    summaries = summarise(photos)
    assert list(summaries) == ["all", "easy", "hard"]
    all_ = summaries["all"].to_json()
    assert all_["photos"] == 3 and all_["exact_accuracy"] == pytest.approx(1 / 3)
    assert all_["errors"] == 1 and all_["seconds_per_photo_median"] == 2.0
    assert summaries["hard"].to_json()["exact_accuracy"] == 0.0
    assert all_["item_recall"] is None  # no items at all
    text = format_summary(summaries)
    assert "exact (all money right)" in text and "33.3%" in text and "hard" in text


def test_summaries_by_tag():
    a = _truth([]) | {"tags": ["table_cloth", "tilt_gt30"]}
    b = _truth([]) | {"tags": ["table_cloth"]}
    photos = [
        evaluate_photo({"scores": {"red": 1}}, a),
        evaluate_photo({"scores": {"red": 9}}, b),
    ]
    by_tag = summarise_by_tag(photos)
    assert list(by_tag) == ["table_cloth", "tilt_gt30"]
    assert by_tag["table_cloth"].to_json()["exact_accuracy"] == 0.5
    assert by_tag["tilt_gt30"].to_json()["exact_accuracy"] == 1.0
    assert "table_cloth" in format_tag_table(by_tag)


def _outlined(item, scale_px_per_mm):
    """``item`` with the outline of a beer coaster (a disc 85 mm across) at that scale."""
    radius = 42.5 * scale_px_per_mm
    turns = [2 * math.pi * k / 256 for k in range(256)]
    outline = [[radius * math.cos(t), radius * math.sin(t)] for t in turns]
    return item | {"polygon_px": outline}


def test_a_photos_scale_is_its_face_up_coasters_median_px_per_mm():
    items = [_outlined(_coaster(0, 0), s) for s in (0.7, 1.0, 2.4)]
    items.append(_outlined(_coaster(0, 0, face="down"), 9.0))  # a back: its type is not known
    items.append(_coaster(0, 0))  # no outline
    assert photo_scale_px_per_mm(_truth(items)) == pytest.approx(1.0, rel=1e-3)
    assert photo_scale_px_per_mm(_truth([_coaster(0, 0)])) is None


def test_summaries_by_scale_group_coarse_photos_apart():
    photos = [
        evaluate_photo({"scores": {"red": money}}, _truth([_outlined(_coaster(0, 0), scale)]))
        for scale, money in ((0.5, 1), (0.6, 9), (1.0, 1), (2.2, 1))
    ]
    photos.append(evaluate_photo({"scores": {"red": 1}}, _truth([])))
    by_scale = summarise_by_scale(photos)
    assert list(by_scale) == ["< 0.8 px/mm", "0.8-1.5 px/mm", ">= 1.5 px/mm", "unknown"]
    assert [s.photos for s in by_scale.values()] == [2, 1, 1, 1]
    assert by_scale["< 0.8 px/mm"].to_json()["exact_accuracy"] == 0.5
    assert list(summarise_by_scale(photos, (1.0,))) == ["< 1 px/mm", ">= 1 px/mm", "unknown"]
    table = format_tag_table(by_scale, heading="scale")
    assert table.splitlines()[0].startswith("scale") and "0.8-1.5 px/mm" in table


def test_load_ground_truth_skips_other_json_and_checks_photos(tmp_path):
    (tmp_path / "index.json").write_text(json.dumps({"photos": []}))
    (tmp_path / "b.json").write_text(json.dumps(_truth([]) | {"image": "b.jpg"}))
    (tmp_path / "b.jpg").write_bytes(b"x")
    photos = load_ground_truth(tmp_path)
    assert [p.image_path.name for p in photos] == ["b.jpg"]
    (tmp_path / "c.json").write_text(json.dumps(_truth([]) | {"image": "c.jpg"}))
    with pytest.raises(GroundTruthError, match="missing"):
        load_ground_truth(tmp_path)
    with pytest.raises(GroundTruthError, match="not a folder"):
        load_ground_truth(tmp_path / "nope")


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared dev set not present")
def test_devset_loads_as_is():
    photos = load_ground_truth(DEVSET)
    assert len(photos) == 30
    perfect = [evaluate_photo(p.truth, p.truth) for p in photos]
    summary = summarise(perfect)["all"].to_json()
    assert summary["exact_accuracy"] == 1.0 and summary["icons_accuracy"] == 1.0
    by_tag = summarise_by_tag(perfect)
    assert by_tag["players5"].photos == sum("players5" in p.truth["tags"] for p in photos)
    scales = [photo.scale_px_per_mm for photo in perfect]
    assert min(scales) > 0.8 and max(scales) < 4.0  # 0.82-3.51 px/mm


def _square(x, y, half=50.0):
    return [[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]]


def _stacked(x, y, z, color):
    item = _coaster(x, y, color=color)
    return {**item, "polygon_px": _square(x, y), "z": z}


@pytest.mark.parametrize(("upper_z", "right"), [(5, 1), (0, 0)])
def test_the_stacking_order_of_overlapping_items_is_compared(upper_z, right):
    """Red lies over blue in the truth; yellow touches neither: one pair is judged."""
    truth = _truth([_stacked(100, 100, 1, "red"), _stacked(150, 100, 0, "blue")])
    truth["items"].append(_stacked(400, 100, 2, "yellow"))
    predicted = {
        "scores": {"red": 1},
        "items": [
            _stacked(102, 100, upper_z, "red"),
            _stacked(150, 101, 3, "blue"),
            _stacked(400, 100, 9, "yellow"),
        ],
    }
    r = evaluate_photo(predicted, truth)
    assert (r.stacking.right, r.stacking.total) == (right, 1)
    assert [sorted(pair) for pair in r.misstacked] == ([] if right else [[0, 1]])
    assert summarise([r])["all"].to_json()["stacking_accuracy"] == right


def test_items_overlapping_by_a_sliver_are_not_judged():
    truth = _truth([_stacked(100, 100, 1, "red"), _stacked(199.5, 100, 0, "blue")])
    predicted = {
        "scores": {"red": 1},
        "items": [_stacked(100, 100, 0, "red"), _stacked(199.5, 100, 1, "blue")],
    }
    assert evaluate_photo(predicted, truth).stacking.total == 0


def test_the_boundary_is_compared_by_intersection_over_union():
    truth = {**_truth([]), "boundary_px": _square(100, 100)}
    half_over = {"scores": {"red": 1}, "items": [], "boundary_px": _square(150, 100)}
    assert evaluate_photo(half_over, truth).boundary_iou == pytest.approx(50 / 150)
    none_found = {"scores": {"red": 1}, "items": [], "boundary_px": []}
    assert evaluate_photo(none_found, truth).boundary_iou == 0.0
    assert evaluate_photo(None, truth, error="no_game_found").boundary_iou == 0.0
    assert evaluate_photo(half_over, _truth([])).boundary_iou is None  # no true loop to compare
    same = evaluate_photo({**half_over, "boundary_px": _square(100, 100)}, truth)
    summary = summarise([same, evaluate_photo(half_over, truth)])["all"].to_json()
    assert summary["boundary_iou_mean"] == pytest.approx((1 + 1 / 3) / 2)
    assert summary["boundary_found"] == 0.5
    assert "boundary IoU (mean)" in format_summary(summarise([same]))
