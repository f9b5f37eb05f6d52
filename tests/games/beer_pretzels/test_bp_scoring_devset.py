"""score_scene on the ground-truth poses of the 30 dev-set photos reproduces their ground truth.

The dev set (``../shared/devset``) gives, per photo, every item's pose on the table (centre,
angle, face, z) and the boundary in mm, with the true anchored / counted flags, icon visibility
and money. This pins down the frame conventions (angle direction, back mirroring), the string
thickness, the touch threshold and face-down handling.
"""

import json
from pathlib import Path

import pytest

from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import score_scene

DEVSET = Path(__file__).resolve().parents[3].parent / "shared" / "devset"
PHOTOS = sorted(DEVSET.glob("[0-9][0-9][0-9][0-9].json"))

pytestmark = pytest.mark.skipif(not PHOTOS, reason="shared dev set not available")


def scene_from_truth(truth: dict) -> Scene:
    items = tuple(
        PlacedItem(
            kind=it["kind"],
            color=it["color"],
            type=it["type"],
            face=it["face"],
            center_mm=tuple(it["center_mm"]),
            angle_deg=it["angle_deg"],
            z=it["z"],
        )
        for it in truth["items"]
    )
    return Scene(boundary_mm=tuple(map(tuple, truth["boundary_mm"])), items=items)


def _score(path: Path):
    truth = json.loads(path.read_text())
    return truth, score_scene(scene_from_truth(truth), players=truth["players"])


@pytest.mark.parametrize("path", PHOTOS, ids=[p.stem for p in PHOTOS])
def test_devset_money_counted_and_icons(path):
    truth, result = _score(path)
    assert result.scores == truth["scores"]
    for want, got in zip(truth["items"], result.items, strict=True):
        where = f"{path.stem} item {got.index}"
        assert got.counted == want["counted"], where
        assert [i.id for i in got.icons] == [i["id"] for i in want["icons"]], where
        assert [i.visible for i in got.icons] == [i["visible"] for i in want["icons"]], where
    face_down = sum(it["face"] == "down" and it["kind"] == "coaster" for it in truth["items"])
    assert sum("face down" in w for w in result.warnings) == face_down


def test_devset_anchored_agrees_with_geometry():
    """Anchored agrees on all but one of the 624 items.

    The exception (0000, item 16, a coaster lifted onto another one) is marked anchored by the
    ground truth although its outline lies 3 mm from the cord (7 mm from the centre line, in the
    photo's own pixel ground truth too); it counts through a napkin either way, so no money
    depends on it. Any further disagreement fails.
    """
    disagreements = []
    for path in PHOTOS:
        truth, result = _score(path)
        for want, got in zip(truth["items"], result.items, strict=True):
            if got.anchored != want["anchored"]:
                assert got.counted and want["counted"], f"{path.stem} item {got.index}"
                disagreements.append((path.stem, got.index))
    assert len(disagreements) <= 1, disagreements


def test_devset_thin_icon_decisions_are_flagged_with_their_margin():
    """Each icon decision the ground truth lists as hanging on < 1.9 mm (a sliver cover or a
    near miss that changes someone's money) is flagged uncertain, with the same margin."""
    for path in PHOTOS:
        truth, result = _score(path)
        margins = [icon.margin_mm for item in result.items for icon in item.icons if icon.uncertain]
        for decision in truth["decisions"]:
            if decision["what"] in ("icon_gap", "icon_cover") and decision["mm"] < 1.9:
                assert any(abs(m - decision["mm"]) < 0.1 for m in margins), (path.stem, decision)
