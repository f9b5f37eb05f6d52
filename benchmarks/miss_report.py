"""Which true items does the scorer miss, and how visible were they?

    python benchmarks/miss_report.py GROUND_TRUTH_DIR PREDICTIONS.jsonl

``PREDICTIONS.jsonl`` holds contract objects, one per photo (``tablescore batch DIR --out F``
or ``tablescore score --json``). Items are paired as in :mod:`vision.evaluation`. For every
true item without a predicted partner, prints its kind, colour, type, face, stacking level, the
share of its outline not covered by items above it (from the ground-truth outlines, displayed
px), how many of its icons are visible, and the photo's camera tilt and scale (displayed px
per mm, as :func:`vision.evaluation.photo_scale_px_per_mm` tells it).
Then the recall per visible-share bin: misses of well visible items are detection failures;
misses of items hidden under others matter only through links and occlusion.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon
from shapely.ops import unary_union

from vision.evaluation import (
    load_ground_truth,
    match_items,
    photo_scale_px_per_mm,
    scores_exact,
)

#: Upper edges of the visible-share bins of the recall table.
VISIBLE_BINS = (0.25, 0.5, 0.75, 0.9, 1.01)


def visible_shares(items: list[dict[str, Any]]) -> list[float]:
    """Per true item, the share of its outline area not covered by items above it (0..1)."""
    polygons = [Polygon(item["polygon_px"]).buffer(0) for item in items]
    shares = []
    for item, polygon in zip(items, polygons, strict=True):
        above = [p for other, p in zip(items, polygons, strict=True) if other["z"] > item["z"]]
        covered = unary_union(above).intersection(polygon).area if above else 0.0
        shares.append(1.0 - covered / polygon.area if polygon.area > 0 else 0.0)
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("truth_dir", type=Path)
    parser.add_argument("predictions", type=Path)
    args = parser.parse_args()
    predictions = {}
    for line in args.predictions.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            predictions[Path(str(record["image"])).name] = record
    found_by_bin: Counter[int] = Counter()
    total_by_bin: Counter[int] = Counter()
    misses: Counter[str] = Counter()
    for photo in load_ground_truth(args.truth_dir):
        truth = photo.truth
        predicted = predictions.get(photo.image_path.name)
        if predicted is None or "error" in predicted:
            print(f"{photo.image_path.name}: no prediction")
            continue
        pairs = match_items(predicted.get("items", []), truth["items"])
        paired_truth = {t for _, t, _ in pairs}
        shares = visible_shares(truth["items"])
        exact = scores_exact(predicted, truth)
        camera = truth.get("camera", {})
        head = (
            f"{photo.image_path.name} {truth.get('difficulty', '?'):6s} "
            f"{'exact' if exact else 'WRONG'} tilt {camera.get('tilt_deg', float('nan')):4.1f} "
            f"scale {photo_scale_px_per_mm(truth) or 0.0:.2f} px/mm "
            f"found {len(paired_truth)}/{len(truth['items'])} "
            f"extra {len(predicted.get('items', [])) - len(pairs)}"
        )
        print(head)
        for k, (item, share) in enumerate(zip(truth["items"], shares, strict=True)):
            b = next(i for i, edge in enumerate(VISIBLE_BINS) if share < edge)
            total_by_bin[b] += 1
            if k in paired_truth:
                found_by_bin[b] += 1
                continue
            icons = item.get("icons", [])
            seen = sum(1 for icon in icons if icon.get("visible"))
            what = f"{item['kind']} {item.get('type') or ''} {item['face']}".replace("  ", " ")
            misses[what] += 1
            print(
                f"    MISSED {item['color']:6s} {what:20s} z{item['z']:<2d} "
                f"visible {share:4.0%} icons seen {seen}/{len(icons)} "
                f"counted {item.get('counted')}"
            )
    print("\nrecall by visible share of the outline")
    low = 0.0
    for b, edge in enumerate(VISIBLE_BINS):
        n = total_by_bin[b]
        rate = f"{found_by_bin[b] / n:6.1%}" if n else "     -"
        print(f"  {low:4.0%}-{min(edge, 1.0):4.0%}: {found_by_bin[b]:4d}/{n:<4d} {rate}")
        low = edge
    print("\nmisses by kind:", dict(misses.most_common()))


if __name__ == "__main__":
    main()
