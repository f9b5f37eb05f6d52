"""Accuracy and speed of the vision pipeline on a folder of photos with ground truth.

    python benchmarks/bench_pipeline.py [FOLDER] [--limit N] [--only 0003,0017] [--verbose]
                                        [--one-thread] [--stages]

FOLDER defaults to ``/work/shared/devset`` (photos + ground-truth JSON, the dev set's format).
Prints per photo the money found vs true, then: photo-level exact accuracy, per-player accuracy,
item recall/precision and colour/type/face accuracy, stacking-order (z) accuracy over
overlapping pairs and the string loop's IoU (:mod:`vision.evaluation`), anchored accuracy,
median and mean seconds per photo (end to end, including decoding; wall-clock and this
process's CPU time, all threads) and the process's peak RSS.

``--one-thread`` pins OpenCV and the BLAS libraries to one thread (the speed target is per
core; CPU time is also what stays reliable on a busy machine). ``--stages`` adds the mean CPU
seconds per photo spent in each pipeline stage (and in SIFT, the ratio test and Hough voting
inside them; a stage called inside another, as ``identify`` is inside ``_coasters_under``, counts
in both). A first photo is scored untimed to load the art templates.
"""

from __future__ import annotations

import os
import sys

if "--one-thread" in sys.argv:  # before numpy and OpenCV load their thread pools
    for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_name] = "1"

import argparse
import resource
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import cv2

import vision.detect
import vision.hidden
import vision.pipeline
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
#: Pipeline stages timed by ``--stages`` (functions looked up in vision.pipeline).
STAGES = (
    "load_photo",
    "coarse_table_planes",
    "rectify",
    "detect_sides",
    "find_napkins",
    "_fit_plane",
    "find_coasters_by_outline",
    "recheck_types",
    "identify",
    "find_hidden_coasters",
    "_coasters_under",
    "_napkins_on_their_lines",
    "one_of_each",
    "stacking_order",
    "recheck_colours",
    "one_coaster_per_type",
    "settle_on_art",
    "find_boundary",
    "find_icon_covers",
)
#: Helpers timed inside the stages: (module, function, label).
INNER = (
    (vision.detect, "_sift_features", "  SIFT (coarse, canvas, hidden)"),
    (vision.detect, "_ratio_matches", "  ratio test"),
    (vision.detect, "_vote_instances", "  Hough voting + RANSAC"),
)


def _time_stages() -> dict[str, float]:
    """Wrap the pipeline's stage functions so that their CPU seconds add up in the result."""
    spent: dict[str, float] = defaultdict(float)

    def timed(function: Callable, label: str) -> Callable:
        def run(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - started

        return run

    for name in STAGES:
        setattr(vision.pipeline, name, timed(getattr(vision.pipeline, name), name))
    for module, name, label in INNER:
        wrapped = timed(getattr(module, name), label)
        setattr(module, name, wrapped)
        if hasattr(vision.hidden, name):  # imported by name there too
            setattr(vision.hidden, name, wrapped)
    return spent


def _extra_tallies(
    predicted: dict, truth: dict, tallies: dict[str, Tally], misstacked: list[tuple[int, int]]
) -> list[str]:
    """Anchored; returns lines describing item errors, the ``misstacked`` pairs (true item
    indices, :attr:`vision.evaluation.PhotoEvaluation.misstacked`) among them."""
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
    for a, b in misstacked:
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
    parser.add_argument(
        "--one-thread", action="store_true", help="pin OpenCV and BLAS to one thread"
    )
    parser.add_argument("--stages", action="store_true", help="CPU seconds per pipeline stage")
    args = parser.parse_args(argv)
    if args.one_thread:
        cv2.setNumThreads(1)
    photos = load_ground_truth(args.folder)
    if args.only:
        wanted = set(args.only.split(","))
        photos = [p for p in photos if p.image_path.stem in wanted]
    if args.limit:
        photos = photos[: args.limit]
    if photos:  # untimed: loads the art templates
        score_photo(photos[0].image_path)
    spent = _time_stages() if args.stages else {}
    evaluations = []
    extra = {"anchored": Tally()}
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
        notes = (
            []
            if contract is None
            else _extra_tallies(contract, photo.truth, extra, evaluation.misstacked)
        )
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
    if spent and photos:
        print("CPU s/photo by stage (mean):")
        for label, total in spent.items():
            print(f"  {label:34s} {total / len(photos):6.2f}")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS: {peak_kb / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
