"""Accuracy and speed of the vision pipeline on a folder of photos with ground truth.

    python benchmarks/bench_pipeline.py [FOLDER] [--limit N] [--only 0003,0017] [--verbose]

FOLDER defaults to ``/work/shared/devset`` (photos + ground-truth JSON, the dev set's format).
Prints per photo the money found vs true, then: photo-level exact accuracy, per-player accuracy,
item recall/precision and colour/type/face accuracy, stacking-order (z) accuracy over
overlapping pairs, anchored/counted/icon-visible accuracy, median and mean seconds per photo
(end to end, including decoding; wall-clock and this process's CPU time, all threads) and the
process's peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

from shapely.geometry import Polygon

from vision.errors import PhotoError
from vision.evaluation import (
    Tally,
    evaluate_photo,
    format_summary,
    load_ground_truth,
    match_items,
    summarise,
)
from vision.pipeline import score_photo

DEFAULT_FOLDER = Path("/work/shared/devset")


def _extra_tallies(predicted: dict, truth: dict, tallies: dict[str, Tally]) -> list[str]:
    """z order of overlapping pairs and anchored; returns lines describing item errors."""
    pred_items, true_items = predicted["items"], truth["items"]
    pairs = match_items(pred_items, true_items)
    notes = []
    by_true = {j: i for i, j, _ in pairs}
    for i, j, _ in pairs:
        p, t = pred_items[i], true_items[j]
        tallies["anchored"].add(p["anchored"] == t["anchored"])
        wrong = [
            k
            for k in ("kind", "color", "face", "type", "counted")
            if p.get(k) != t.get(k) and not (k == "type" and t["face"] == "down")
        ]
        if wrong:
            notes.append(
                f"    item {t['color']} {t['type'] or t['kind']} {t['face']} z{t['z']}: "
                + ", ".join(f"{k} {p.get(k)} != {t.get(k)}" for k in wrong)
            )
    for j, t in enumerate(true_items):
        if j not in by_true:
            notes.append(f"    MISSED {t['color']} {t['type'] or t['kind']} {t['face']} z{t['z']}")
    matched = set(by_true.values())
    for i, p in enumerate(pred_items):
        if i not in matched:
            notes.append(f"    EXTRA {p['color']} {p['type'] or p['kind']} {p['face']}")
    polys = {j: Polygon(t["polygon_px"]).buffer(0) for j, t in enumerate(true_items)}
    keys = sorted(by_true)
    for a_pos, a in enumerate(keys):
        for b in keys[a_pos + 1 :]:
            if polys[a].intersection(polys[b]).area < 50:
                continue
            ta, tb = true_items[a]["z"], true_items[b]["z"]
            pa, pb = pred_items[by_true[a]]["z"], pred_items[by_true[b]]["z"]
            ok = (ta < tb) == (pa < pb)
            tallies["z_pairs"].add(ok)
            if not ok:
                notes.append(
                    f"    z wrong: {true_items[a]['color']} {true_items[a]['type'] or 'napkin'} vs "
                    f"{true_items[b]['color']} {true_items[b]['type'] or 'napkin'}"
                )
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_FOLDER))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--only", default=None, help="comma-separated photo stems")
    parser.add_argument("--verbose", action="store_true", help="list item errors per photo")
    args = parser.parse_args(argv)
    photos = load_ground_truth(args.folder)
    if args.only:
        wanted = set(args.only.split(","))
        photos = [p for p in photos if p.image_path.stem in wanted]
    if args.limit:
        photos = photos[: args.limit]
    evaluations = []
    extra = {"anchored": Tally(), "z_pairs": Tally()}
    seconds, cpu_seconds = [], []
    for photo in photos:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            contract = score_photo(photo.image_path, name=photo.truth["image"]).contract
            error = None
        except PhotoError as exc:
            contract, error = None, exc.code
        elapsed = time.perf_counter() - started
        seconds.append(elapsed)
        cpu_seconds.append(time.process_time() - cpu_started)
        evaluation = evaluate_photo(contract, photo.truth, seconds=elapsed, error=error)
        evaluations.append(evaluation)
        notes = [] if contract is None else _extra_tallies(contract, photo.truth, extra)
        truth_scores = photo.truth["scores"]
        got = {} if contract is None else contract["scores"]
        diff = " ".join(f"{c}:{got.get(c)}/{m}" for c, m in truth_scores.items() if got.get(c) != m)
        status = "OK " if evaluation.exact else "BAD"
        print(
            f"{photo.image_path.name} {status} {elapsed:5.2f}s cpu {cpu_seconds[-1]:5.2f}s "
            f"{photo.difficulty:6s} "
            f"found {evaluation.found.right}/{evaluation.found.total} extra {evaluation.extra} "
            f"{error or ''} {diff}",
            flush=True,
        )
        if args.verbose:
            for line in notes:
                print(line)
    print()
    print(format_summary(summarise(evaluations)))
    exact = sum(e.exact for e in evaluations)
    print(f"\nexact photos: {exact}/{len(evaluations)}")
    for name, tally in extra.items():
        acc = "-" if tally.accuracy is None else f"{100 * tally.accuracy:.1f}%"
        print(f"{name} accuracy: {acc} ({tally.right}/{tally.total})")
    if seconds:
        median, mean = statistics.median(seconds), statistics.fmean(seconds)
        print(f"s/photo: median {median:.2f}, mean {mean:.2f}")
        median, mean = statistics.median(cpu_seconds), statistics.fmean(cpu_seconds)
        print(f"CPU s/photo: median {median:.2f}, mean {mean:.2f}")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS: {peak_kb / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
