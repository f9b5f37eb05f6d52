"""Close calls of a sampled round: verdicts a millimetre of measurement would flip.

The reference photos (the dev set's ground truth: its ``decisions`` and ``min_margin_px``) keep
every decision a measured photo could get wrong well clear of its threshold: an icon covered by
at least 1.05 mm or missed by at least 1.38 mm, an item or the string missed by 3 mm or more;
items that touch abut (gap 0.25-0.41 mm, under the 0.5 mm of the rules) and items that touch
the string lie over its edge. A set made with a decision margin (:class:`SynthOptions`
``decision_margin_mm``) keeps only rounds whose verdict stands at that margin, as the
reference photos do; a set without one keeps every close call (a harder test than the
reference photos).

All distances in table-plane mm.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.beer_pretzels.catalogue import Catalogue
from games.beer_pretzels.scene import Scene
from games.beer_pretzels.scoring import TOUCH_MM, SceneScore, score_scene


def closest_icon_call_mm(score: SceneScore) -> float | None:
    """The smallest margin (mm) of an icon's visibility (the gap to the nearest cover of a
    visible icon, the depth of the deepest cover of a covered one) among the scorer's uncertain
    icon decisions; ``None`` when none is uncertain."""
    margins = [
        icon.margin_mm for item in score.items for icon in item.icons if icon.margin_mm is not None
    ]
    return min(margins) if margins else None


def counting_stands(
    scene: Scene,
    score: SceneScore,
    catalogue: Catalogue,
    players: Sequence[str],
    margin_mm: float,
) -> bool:
    """Whether every item's ``counted`` verdict in ``score`` stays the same when items (and the
    string) up to ``margin_mm`` farther apart than the rules' touch gap are taken to touch:
    no item misses an anchor or a link by less than the margin where that would change who
    counts. Touches themselves (gaps at most the rules' 0.5 mm) are contacts, not close calls."""
    allowing = TOUCH_MM + margin_mm
    wider = score_scene(
        scene, catalogue, players=players, cord_touch_mm=allowing, link_touch_mm=allowing
    )
    return all(a.counted == b.counted for a, b in zip(score.items, wider.items, strict=True))


def clear_of_close_calls(
    scene: Scene,
    score: SceneScore,
    catalogue: Catalogue,
    players: Sequence[str],
    margin_mm: float,
) -> bool:
    """Whether the round's verdict stands at ``margin_mm`` (mm): every uncertain icon decision
    at least that far from flipping, and no near miss of an anchor or link within it."""
    closest = closest_icon_call_mm(score)
    if closest is not None and closest < margin_mm:
        return False
    return counting_stands(scene, score, catalogue, players, margin_mm)
