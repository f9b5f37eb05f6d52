"""The scorer against ground truth on a folder of photos: per-photo results, worst photos and
the confusion of colour, coaster type and face (for the accuracy-report notebook).

Ground truth is a folder in the format of :func:`vision.evaluation.load_ground_truth` (the dev
set, or a synthetic split written by ``tablescore synth``); metrics come from
:mod:`vision.evaluation`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Catalogue
from vision.errors import PhotoError
from vision.evaluation import (
    PhotoEvaluation,
    Summary,
    evaluate_photo,
    load_ground_truth,
    match_items,
    summarise,
)
from vision.pipeline import ScoredPhoto, score_photo

#: Item fields whose confusion can be tabulated.
CONFUSION_FIELDS = ("color", "type", "face", "kind")


@dataclass(frozen=True)
class PhotoResult:
    """One photo scored: its truth, the scorer's output (None when it failed) and the
    comparison."""

    image_path: Path
    truth: dict
    scored: ScoredPhoto | None
    evaluation: PhotoEvaluation

    @property
    def wrong_players(self) -> int:
        return self.evaluation.players.total - self.evaluation.players.right

    @property
    def item_mistakes(self) -> int:
        e = self.evaluation
        missed = e.found.total - e.found.right
        return missed + e.extra + sum(t.total - t.right for t in e.items.values())


def score_folder(
    folder: str | Path, catalogue: Catalogue | None = None, limit: int | None = None
) -> list[PhotoResult]:
    """Score every photo with ground truth in ``folder`` (the first ``limit``)."""
    results = []
    for photo in load_ground_truth(folder, limit):
        started = time.perf_counter()
        try:
            scored = score_photo(photo.image_path, catalogue=catalogue)
            contract, error = scored.contract, None
        except PhotoError as exc:
            scored, contract, error = None, None, exc.code
        seconds = time.perf_counter() - started
        evaluation = evaluate_photo(contract, photo.truth, seconds, error)
        results.append(PhotoResult(photo.image_path, photo.truth, scored, evaluation))
    return results


def by_difficulty(results: list[PhotoResult]) -> dict[str, Summary]:
    """Metrics for all photos and per difficulty (``vision.evaluation.summarise``)."""
    return summarise(r.evaluation for r in results)


def worst_photos(results: list[PhotoResult], n: int = 4) -> list[PhotoResult]:
    """The ``n`` worst photos: failures first, then wrong money, then most item mistakes."""
    return sorted(
        results,
        key=lambda r: (
            r.scored is not None,
            r.evaluation.exact,
            -r.wrong_players,
            -r.item_mistakes,
        ),
    )[:n]


def annotated_rgb(result: PhotoResult, max_long_side_px: int = 1200) -> np.ndarray | None:
    """The scorer's annotated picture of a photo as an RGB array (the plain photo when the
    scorer failed; None when the file is not a readable image)."""
    if result.scored is not None:
        data = np.frombuffer(result.scored.annotated_jpeg(max_long_side_px), np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    else:
        image = cv2.imread(str(result.image_path), cv2.IMREAD_COLOR)
        if image is None:
            return None
        h, w = image.shape[:2]
        factor = min(1.0, max_long_side_px / max(h, w))
        image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def confusion(results: list[PhotoResult], field: str) -> tuple[list[str], np.ndarray]:
    """Labels and the (L, L) confusion of item ``field`` (true row, predicted column) over the
    paired items of all photos; ``type`` counts face-up coasters only. A missed item counts as
    predicted ``"(missed)"``."""
    if field not in CONFUSION_FIELDS:
        raise ValueError(f"field must be one of {CONFUSION_FIELDS}, got {field!r}")
    pairs: list[tuple[str, str]] = []
    for r in results:
        true_items = r.truth["items"]
        predicted = [] if r.scored is None else r.scored.contract.get("items") or []
        matched = {j: i for i, j, _ in match_items(predicted, true_items)}
        for j, t in enumerate(true_items):
            if field == "type" and not (t["kind"] == "coaster" and t["face"] == "up"):
                continue
            p = predicted[matched[j]].get(field) if j in matched else "(missed)"
            pairs.append((str(t.get(field)), str(p)))
    labels = sorted(
        {a for a, _ in pairs} | {b for _, b in pairs}, key=lambda s: (s == "(missed)", s)
    )
    index = {label: k for k, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), int)
    for a, b in pairs:
        matrix[index[a], index[b]] += 1
    return labels, matrix
