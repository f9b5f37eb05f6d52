"""Ground-truth labels of a synthetic photo: the public contract JSON plus dev-set extras.

Every decision (anchored, counted, icon visible, money) comes from
:func:`games.beer_pretzels.scoring.score_scene` on the sampled scene; this module only adds
where things are in the photo: ``center_px`` (centre of the item's top surface, amodal),
``polygon_px`` (outline of the top surface, amodal), ``boundary_px`` (the cord's centre line at
half its thickness above the table), all in pixels of the photo as displayed (EXIF applied),
through the same camera the renderer used. Each item also carries ``shape`` (``circle`` /
``rounded_square``), which a face-down coaster shows although its ``type`` is ``null``. Field
names follow the spec's contract and the dev set's ground truth (``../shared/devset/README.md``),
so one evaluation reads both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.beer_pretzels.catalogue import Catalogue
from games.beer_pretzels.geometry import item_polygon_mm
from games.beer_pretzels.scoring import SceneScore
from vision.synthetic.render import RenderedPhoto
from vision.synthetic.scene_sampler import SampledRound
from vision.synthetic.semantic import SemanticClasses

GAME = "beer-and-pretzels"


def _round_points(points: np.ndarray, digits: int = 1) -> list[list[float]]:
    return [[round(float(x), digits), round(float(y), digits)] for x, y in points]


def photo_labels(
    name: str,
    round_: SampledRound,
    photo: RenderedPhoto,
    score: SceneScore,
    catalogue: Catalogue,
) -> dict[str, Any]:
    """The ground-truth JSON of one photo (contract fields first, then the extras)."""
    camera = photo.camera
    verdict = score.to_dict()
    items = []
    for item, height, decided in zip(
        round_.scene.items, round_.heights_mm, verdict["items"], strict=True
    ):
        outline = np.asarray(item_polygon_mm(item, catalogue).exterior.coords)[:-1]
        decided = dict(decided)
        decided["center_px"] = [
            round(float(v), 2) for v in camera.project(np.array([item.center_mm]), height)[0]
        ]
        decided["polygon_px"] = _round_points(camera.project(outline, height))
        decided["center_mm"] = [round(v, 3) for v in decided["center_mm"]]
        decided["angle_deg"] = round(decided["angle_deg"], 3)
        decided["height_mm"] = round(height, 3)
        decided["shape"] = catalogue.item_shape(item.kind, item.type).kind
        items.append(decided)
    boundary = round_.boundary_mm
    cord_mid_mm = catalogue.string.thickness_mm / 2
    width, height_px = camera.size_px
    tags = set(round_.tags) | set(photo.tags) | _outcome_tags(score)
    tags.add(f"size_{width}x{height_px}")
    classes = SemanticClasses.for_catalogue(catalogue)
    return {
        "image": name,
        "game": GAME,
        "width": width,
        "height": height_px,
        "scores": verdict["scores"],
        "players": verdict["players"],
        "turn_order": list(round_.players),
        "items": items,
        "boundary_px": _round_points(camera.project(boundary, cord_mid_mm)),
        "boundary_mm": _round_points(boundary, 2),
        "warnings": verdict["warnings"],
        "foreign": [
            {
                **f.to_json(),
                "outline_px": _round_points(camera.project(np.asarray(f.outline_mm), f.height_mm)),
            }
            for f in round_.foreign
        ],
        "difficulty": round_.difficulty.value,
        "tags": sorted(tags),
        "camera": camera.to_json(),
        "table_mm": [round(round_.table_mm[0], 1), round(round_.table_mm[1], 1)],
        "table_kind": photo.table_kind,
        "distractors": [d.to_json() for d in photo.distractors],
        "semantic_classes": {str(k): v for k, v in sorted(classes.names().items())},
        "components_version": str(catalogue.version),
    }


def _outcome_tags(score: SceneScore) -> set[str]:
    """Tags that describe the verdict (what a scorer must get right), not the toss."""
    tags: set[str] = set()
    for r in score.items:
        if r.counted and not r.anchored:
            tags.add("linked_outside")
        if not r.counted and r.item.face.value == "up":
            tags.add("not_counted_item")
        if r.uncertain or any(icon.uncertain for icon in r.icons):
            tags.add("uncertain_decision")
        if r.uncertain:
            tags.add("near_touch")  # a link or anchor gap within 2 mm of the touch threshold
        for icon in r.icons:
            if icon.uncertain:
                tags.add("near_miss_icon" if icon.visible else "sliver_cover")
        if any(not icon.visible for icon in r.icons) and r.item.face.value == "up":
            tags.add("covered_icon")
    return tags
