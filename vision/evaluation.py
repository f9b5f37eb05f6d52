"""Compare scorer output with ground truth: photo, player, item, icon and timing metrics.

Ground truth is a folder of photos with one JSON each (the dev set's format, or the synthetic
sets' of :mod:`vision.synthetic`): any ``*.json`` holding ``image`` (the photo's file name),
``scores`` and ``items``. Predictions are contract JSON objects
(``spec/beer-and-pretzels.md``). Pixel coordinates on both sides are in the photo as displayed.

Items are paired by centre distance: all (predicted, true) pairs within :data:`MATCH_RADIUS_PX`
are taken greedily, nearest first, each item at most once (the dev set's protocol). Paired items
are then compared on kind, colour, face, type (face-up coasters), counted and, per icon id,
visibility. Two more checks, where the ground truth has what they need:

- *stacking*: every two paired items whose true outlines (``polygon_px``) overlap by at least
  :data:`MIN_STACKED_SHARE` of the smaller one are stacked the same way round (``z``) as in the
  truth: the order decides which icons a cover hides;
- *boundary*: the intersection over union of the predicted string loop (``boundary_px``) and
  the true one, 0 for a photo with no loop found or no prediction.

Each photo's *scale* is how many displayed px per mm its face-up coasters span (the median over
them of the square root of the true outline's area over the shape's area in mm^2): the summary
by scale (:func:`summarise_by_scale`) tells a set's coarse photos from the reference photos'
range.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from games.beer_pretzels.catalogue import Catalogue, load_catalogue

#: Largest centre distance (displayed px) at which a predicted item may pair a true one.
MATCH_RADIUS_PX = 40.0
#: Two paired items count as stacked when their true outlines overlap by this share of the
#: smaller one's area or more (a few mm along an edge decides no icon).
MIN_STACKED_SHARE = 0.01
#: A photo's string loop counts as found when its IoU with the true one reaches this.
BOUNDARY_FOUND_IOU = 0.9
#: Summary rows, in order (``all`` first).
DIFFICULTIES = ("all", "easy", "medium", "hard")
#: Edges (displayed px per mm) of the photo-scale groups of :func:`summarise_by_scale`. The dev
#: set's photos span 0.82-3.51 px/mm; a coarser photo shows a 1 mm decision in under a pixel.
SCALE_EDGES_PX_PER_MM = (0.8, 1.5)


class GroundTruthError(ValueError):
    """A ground-truth folder or file that cannot be read."""


@dataclass(frozen=True)
class GroundTruthPhoto:
    """A photo (``image_path``) and its ground-truth JSON (``truth``)."""

    image_path: Path
    truth: dict[str, Any]

    @property
    def difficulty(self) -> str:
        return str(self.truth.get("difficulty", "unknown"))


def load_ground_truth(folder: str | Path, limit: int | None = None) -> list[GroundTruthPhoto]:
    """The photos of ``folder`` that have a ground-truth JSON next to them, sorted by name.

    JSON files that are not photo ground truth (e.g. an ``index.json``) are skipped.
    """
    root = Path(folder)
    if not root.is_dir():
        raise GroundTruthError(f"{root} is not a folder")
    photos = []
    for path in sorted(root.glob("*.json")):
        try:
            truth = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise GroundTruthError(f"cannot read {path}: {exc}") from exc
        if not (isinstance(truth, dict) and {"image", "scores", "items"} <= truth.keys()):
            continue
        image = root / str(truth["image"])
        if not image.is_file():
            raise GroundTruthError(f"{path} names photo {truth['image']!r}, which is missing")
        photos.append(GroundTruthPhoto(image_path=image, truth=truth))
        if limit is not None and len(photos) >= limit:
            break
    if not photos:
        raise GroundTruthError(f"no photos with ground-truth JSON in {root}")
    return photos


@dataclass
class Tally:
    """``right`` out of ``total`` decisions."""

    right: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.right += int(ok)
        self.total += 1

    def merge(self, other: Tally) -> None:
        self.right += other.right
        self.total += other.total

    @property
    def accuracy(self) -> float | None:
        return self.right / self.total if self.total else None


#: Item-level tallies of a photo, by name.
ITEM_METRICS = ("kind", "color", "face", "type", "counted", "icons")


@dataclass
class PhotoEvaluation:
    """How one prediction compares with its ground truth.

    ``found``: true items paired with a prediction (out of all true items); ``extra``:
    predicted items paired with nothing. ``error`` is the scorer's error code when it failed.
    ``misstacked``: the stacked pairs (true item indices) the prediction turns the other way
    round.
    """

    image: str
    difficulty: str
    tags: tuple[str, ...]
    exact: bool
    players: Tally
    found: Tally
    extra: int
    items: dict[str, Tally] = field(default_factory=lambda: {m: Tally() for m in ITEM_METRICS})
    stacking: Tally = field(default_factory=Tally)
    misstacked: list[tuple[int, int]] = field(default_factory=list)
    boundary_iou: float | None = None
    seconds: float | None = None
    error: str | None = None
    scale_px_per_mm: float | None = None


def match_items(
    predicted: Sequence[dict[str, Any]],
    truth: Sequence[dict[str, Any]],
    radius_px: float = MATCH_RADIUS_PX,
) -> list[tuple[int, int, float]]:
    """Pairs ``(predicted index, true index, distance px)``, nearest first, each item once."""
    candidates = []
    for i, p in enumerate(predicted):
        pc = p.get("center_px")
        if not _is_point(pc):
            continue
        for j, t in enumerate(truth):
            tc = t["center_px"]
            d = ((pc[0] - tc[0]) ** 2 + (pc[1] - tc[1]) ** 2) ** 0.5
            if d <= radius_px:
                candidates.append((d, i, j))
    pairs, used_p, used_t = [], set(), set()
    for d, i, j in sorted(candidates):
        if i in used_p or j in used_t:
            continue
        used_p.add(i)
        used_t.add(j)
        pairs.append((i, j, d))
    return pairs


def _is_point(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int | float) for v in value)
    )


def scores_exact(predicted: dict[str, Any], truth: dict[str, Any]) -> bool:
    """Every true colour's money right, and no money for a colour that is not in play."""
    pred = predicted.get("scores") or {}
    if any(pred.get(c) != m for c, m in truth["scores"].items()):
        return False
    return all(m == 0 for c, m in pred.items() if c not in truth["scores"])


def evaluate_photo(
    predicted: dict[str, Any] | None,
    truth: dict[str, Any],
    seconds: float | None = None,
    error: str | None = None,
    radius_px: float = MATCH_RADIUS_PX,
    catalogue: Catalogue | None = None,
) -> PhotoEvaluation:
    """Compare one contract prediction (``None`` when the scorer failed) with ground truth;
    items pair within ``radius_px`` (displayed px). ``catalogue`` gives the coasters' shapes the
    photo's scale is measured by (default: the bundled one)."""
    true_items = truth["items"]
    result = PhotoEvaluation(
        image=str(truth["image"]),
        difficulty=str(truth.get("difficulty", "unknown")),
        tags=tuple(str(t) for t in truth.get("tags") or ()),
        exact=False,
        players=Tally(),
        found=Tally(0, len(true_items)),
        extra=0,
        seconds=seconds,
        error=error,
        scale_px_per_mm=photo_scale_px_per_mm(truth, catalogue),
    )
    true_loop = _polygon(truth.get("boundary_px"))
    if true_loop is not None:
        result.boundary_iou = 0.0
    if predicted is None:
        result.players = Tally(0, len(truth["scores"]))
        return result
    pred_scores = predicted.get("scores") or {}
    for color, money in truth["scores"].items():
        result.players.add(pred_scores.get(color) == money)
    result.exact = scores_exact(predicted, truth)
    pred_items = [p for p in predicted.get("items") or [] if isinstance(p, dict)]
    pairs = match_items(pred_items, true_items, radius_px)
    result.found.right = len(pairs)
    result.extra = len(pred_items) - len(pairs)
    for i, j, _ in pairs:
        _compare_item(pred_items[i], true_items[j], result.items)
    result.stacking, result.misstacked = _compare_stacking(pred_items, true_items, pairs)
    loop = _polygon(predicted.get("boundary_px"))
    if true_loop is not None and loop is not None:
        result.boundary_iou = loop.intersection(true_loop).area / loop.union(true_loop).area
    return result


def photo_scale_px_per_mm(
    truth: dict[str, Any], catalogue: Catalogue | None = None
) -> float | None:
    """How many displayed px per mm the photo's true face-up coasters span: the median over them
    of sqrt(outline area in px^2 / shape area in mm^2); None without such a coaster (or one of a
    type ``catalogue`` does not know)."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    scales = []
    for item in truth["items"]:
        if item.get("kind") != "coaster" or item.get("face") != "up":
            continue
        outline = _polygon(item.get("polygon_px"))
        try:
            shape = catalogue.coaster_type(str(item.get("type"))).shape
        except KeyError:
            continue
        if outline is not None:
            scales.append((outline.area / shape.polygon_mm.area) ** 0.5)
    return statistics.median(scales) if scales else None


def _polygon(points: Any) -> BaseGeometry | None:
    """The area ``points`` ([[x, y], ...]) enclose (a self-crossing loop made valid), or None
    for fewer than three points or no area."""
    if not isinstance(points, list) or len(points) < 3 or not all(map(_is_point, points)):
        return None
    area = Polygon(points).buffer(0)
    return area if area.area > 0 else None


def _compare_stacking(
    predicted: Sequence[dict[str, Any]],
    truth: Sequence[dict[str, Any]],
    pairs: Sequence[tuple[int, int, float]],
) -> tuple[Tally, list[tuple[int, int]]]:
    """Per two paired items stacked in the truth (:data:`MIN_STACKED_SHARE`), whether the
    prediction puts the same one on top; and the pairs (true indices) where it does not."""
    tally, wrong = Tally(), []
    outlines = {j: _polygon(truth[j].get("polygon_px")) for _, j, _ in pairs}
    for a, (i1, j1, _) in enumerate(pairs):
        for i2, j2, _ in pairs[a + 1 :]:
            o1, o2 = outlines[j1], outlines[j2]
            if o1 is None or o2 is None:
                continue
            if o1.intersection(o2).area < MIN_STACKED_SHARE * min(o1.area, o2.area):
                continue
            z1, z2 = predicted[i1].get("z"), predicted[i2].get("z")
            ordered = isinstance(z1, int | float) and isinstance(z2, int | float)
            right = ordered and (z1 > z2) == (truth[j1]["z"] > truth[j2]["z"])
            tally.add(right)
            if not right:
                wrong.append((j1, j2))
    return tally, wrong


def _compare_item(p: dict[str, Any], t: dict[str, Any], tallies: dict[str, Tally]) -> None:
    tallies["kind"].add(p.get("kind") == t["kind"])
    tallies["color"].add(p.get("color") == t["color"])
    tallies["face"].add(p.get("face") == t["face"])
    face_up_coaster = t["kind"] == "coaster" and t["face"] == "up"
    if face_up_coaster:
        tallies["type"].add(p.get("type") == t["type"])
    if "counted" in t:
        tallies["counted"].add(p.get("counted") == t["counted"])
    if face_up_coaster:
        seen = {i.get("id"): i.get("visible") for i in p.get("icons") or [] if isinstance(i, dict)}
        same_type = p.get("type") == t["type"]
        for icon in t.get("icons") or []:
            tallies["icons"].add(same_type and seen.get(icon["id"]) == icon["visible"])


@dataclass
class Summary:
    """Metrics over a group of photos."""

    photos: int = 0
    exact: int = 0
    errors: int = 0
    players: Tally = field(default_factory=Tally)
    found: Tally = field(default_factory=Tally)
    extra: int = 0
    items: dict[str, Tally] = field(default_factory=lambda: {m: Tally() for m in ITEM_METRICS})
    stacking: Tally = field(default_factory=Tally)
    boundary_ious: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(self, photo: PhotoEvaluation) -> None:
        self.photos += 1
        self.exact += int(photo.exact)
        self.errors += int(photo.error is not None)
        self.players.merge(photo.players)
        self.found.merge(photo.found)
        self.extra += photo.extra
        for name, tally in photo.items.items():
            self.items[name].merge(tally)
        self.stacking.merge(photo.stacking)
        if photo.boundary_iou is not None:
            self.boundary_ious.append(photo.boundary_iou)
        if photo.seconds is not None:
            self.seconds.append(photo.seconds)

    def to_json(self) -> dict[str, Any]:
        predicted = self.found.right + self.extra
        ious = self.boundary_ious
        return {
            "photos": self.photos,
            "exact_accuracy": self.exact / self.photos if self.photos else None,
            "player_accuracy": self.players.accuracy,
            "errors": self.errors,
            "item_recall": self.found.accuracy,
            "item_precision": self.found.right / predicted if predicted else None,
            **{f"{name}_accuracy": tally.accuracy for name, tally in self.items.items()},
            "stacking_accuracy": self.stacking.accuracy,
            "boundary_iou_mean": statistics.fmean(ious) if ious else None,
            "boundary_found": sum(v >= BOUNDARY_FOUND_IOU for v in ious) / len(ious)
            if ious
            else None,
            "seconds_per_photo_mean": statistics.fmean(self.seconds) if self.seconds else None,
            "seconds_per_photo_median": statistics.median(self.seconds) if self.seconds else None,
        }


def summarise(photos: Iterable[PhotoEvaluation]) -> dict[str, Summary]:
    """Summaries for all photos and per difficulty (only difficulties that occur, plus all)."""
    groups: dict[str, Summary] = {"all": Summary()}
    for photo in photos:
        groups["all"].add(photo)
        groups.setdefault(photo.difficulty, Summary()).add(photo)
    order = [d for d in DIFFICULTIES if d in groups] + sorted(set(groups) - set(DIFFICULTIES))
    return {d: groups[d] for d in order}


def summarise_by_tag(photos: Iterable[PhotoEvaluation]) -> dict[str, Summary]:
    """One summary per ground-truth tag (``table_cloth``, ``tilt_gt30``, ``sliver_cover``...),
    a photo counting in each of its tags; tags sorted by name."""
    groups: dict[str, Summary] = {}
    for photo in photos:
        for tag in photo.tags:
            groups.setdefault(tag, Summary()).add(photo)
    return {tag: groups[tag] for tag in sorted(groups)}


def summarise_by_scale(
    photos: Iterable[PhotoEvaluation], edges_px_per_mm: Sequence[float] = SCALE_EDGES_PX_PER_MM
) -> dict[str, Summary]:
    """One summary per photo-scale group (displayed px per mm, split at ``edges_px_per_mm``,
    ascending: ``"< 0.8 px/mm"``, ``"0.8-1.5 px/mm"``, ``">= 1.5 px/mm"``), coarsest first, then
    ``"unknown"`` for photos without a face-up coaster; only groups that occur."""
    edges = list(edges_px_per_mm)
    labels = [f"< {edges[0]:g} px/mm"]
    labels += [f"{lo:g}-{hi:g} px/mm" for lo, hi in pairwise(edges)]
    labels += [f">= {edges[-1]:g} px/mm", "unknown"]
    groups: dict[str, Summary] = {}
    for photo in photos:
        scale = photo.scale_px_per_mm
        label = labels[-1] if scale is None else labels[sum(scale >= e for e in edges)]
        groups.setdefault(label, Summary()).add(photo)
    return {label: groups[label] for label in labels if label in groups}


def format_tag_table(summaries: dict[str, Summary], heading: str = "tag") -> str:
    """A plain-text table: one row per group (a tag, or ``heading``'s kind of group) with
    photos, exact and per-player accuracy."""
    width = max([len(tag) for tag in summaries] + [len(heading)]) + 2
    lines = [heading.ljust(width) + "photos".rjust(8) + "exact".rjust(9) + "players".rjust(9)]
    for tag, summary in summaries.items():
        s = summary.to_json()
        lines.append(
            tag.ljust(width)
            + str(s["photos"]).rjust(8)
            + _pct(s["exact_accuracy"]).rjust(9)
            + _pct(s["player_accuracy"]).rjust(9)
        )
    return "\n".join(lines)


def format_summary(summaries: dict[str, Summary]) -> str:
    """A plain-text table: one row per metric, one column per difficulty group."""
    rows = [
        ("photos", lambda s: str(s["photos"])),
        ("exact (all money right)", lambda s: _pct(s["exact_accuracy"])),
        ("per-player money", lambda s: _pct(s["player_accuracy"])),
        ("scorer errors", lambda s: str(s["errors"])),
        ("items found (recall)", lambda s: _pct(s["item_recall"])),
        ("items precision", lambda s: _pct(s["item_precision"])),
        *[(f"{m} accuracy", lambda s, m=m: _pct(s[f"{m}_accuracy"])) for m in ITEM_METRICS],
        ("stacking order (pairs)", lambda s: _pct(s["stacking_accuracy"])),
        ("boundary IoU (mean)", lambda s: _ratio(s["boundary_iou_mean"])),
        (f"boundary IoU >= {BOUNDARY_FOUND_IOU:g}", lambda s: _pct(s["boundary_found"])),
        ("s/photo (mean)", lambda s: _secs(s["seconds_per_photo_mean"])),
        ("s/photo (median)", lambda s: _secs(s["seconds_per_photo_median"])),
    ]
    data = {name: summary.to_json() for name, summary in summaries.items()}
    width = max(len(r[0]) for r in rows) + 2
    lines = ["".ljust(width) + "".join(name.rjust(9) for name in data)]
    for label, fmt in rows:
        lines.append(label.ljust(width) + "".join(fmt(s).rjust(9) for s in data.values()))
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
