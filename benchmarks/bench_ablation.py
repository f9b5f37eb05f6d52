"""Ablation: the pipeline with vs without the learned segmenter on a held-out HARD synthetic split.

The split (rendered into ``--photos`` when missing; photo i of seed ``--seed`` at ``--size``,
hard difficulty, 15 % EXIF-rotated) was never used for training or tuning: the segmenter trains
on seed 1_000_000 and is selected on 2_000_000 (``models/segmenter/dataset.py``). Each photo is
scored twice by :func:`vision.pipeline.score_photo`, with ``TABLESCORE_SEGMENTER=0`` and ``=1``,
and compared with the ground truth by :mod:`vision.evaluation`: photo-level exact accuracy
(every player's money right), item recall, counted accuracy and seconds per photo. Also printed:
photos where only one of the two paths is exact.

Usage: python benchmarks/bench_ablation.py [--photos DIR] [--n 40] [--seed 3100000]
       [--size 1600x1200] [--json OUT] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from games.beer_pretzels.catalogue import load_catalogue
from vision.errors import PhotoError
from vision.evaluation import (
    GroundTruthPhoto,
    PhotoEvaluation,
    evaluate_photo,
    load_ground_truth,
    summarise,
)
from vision.pipeline import score_photo
from vision.segmentation import ENABLED_ENV
from vision.synthetic.generate import SynthOptions, make_sample, photo_name, write_sample
from vision.synthetic.recipes import parse_size
from vision.synthetic.scene_sampler import Difficulty

MODES = {"without model": "0", "with model": "1"}
METRICS = (
    ("exact (all money right)", "exact_accuracy"),
    ("per-player money", "player_accuracy"),
    ("items found (recall)", "item_recall"),
    ("items precision", "item_precision"),
    ("counted accuracy", "counted_accuracy"),
    ("icons accuracy", "icons_accuracy"),
    ("scorer errors", "errors"),
    ("s/photo (median)", "seconds_per_photo_median"),
)


def render_missing(folder: Path, seed: int, n: int, size: tuple[int, int]) -> None:
    catalogue = load_catalogue()
    options = SynthOptions(size_px=size, difficulty=Difficulty.HARD)
    for index in range(n):
        if not (folder / f"{photo_name(index)}.json").exists():
            write_sample(make_sample(seed, index, options, catalogue), folder)


def _score_photo_both(photo: GroundTruthPhoto) -> dict[str, PhotoEvaluation]:
    """One photo scored by both paths in turn (same process, same code)."""
    catalogue = load_catalogue()
    evaluations = {}
    for name, mode in MODES.items():
        os.environ[ENABLED_ENV] = mode
        started = time.perf_counter()
        try:
            contract = score_photo(photo.image_path, catalogue=catalogue).contract
            error = None
        except PhotoError as exc:
            contract, error = None, exc.code
        seconds = time.perf_counter() - started
        evaluations[name] = evaluate_photo(contract, photo.truth, seconds=seconds, error=error)
    return evaluations


def score_both(folder: Path, n: int, workers: int = 1) -> dict[str, list[PhotoEvaluation]]:
    """Each photo scored by both paths in turn, photos spread over ``workers`` processes."""
    photos = load_ground_truth(folder, limit=n)
    results: dict[str, list[PhotoEvaluation]] = {name: [] for name in MODES}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for photo, evaluations in zip(photos, pool.map(_score_photo_both, photos), strict=True):
            for name in MODES:
                results[name].append(evaluations[name])
            print(
                f"{photo.image_path.name}: exact "
                + " / ".join(str(evaluations[name].exact) for name in MODES),
                flush=True,
            )
    return results


def _fmt(value: float | int | None, key: str) -> str:
    if value is None:
        return "-"
    if key == "errors":
        return str(value)
    if key.startswith("seconds"):
        return f"{value:.2f}"
    return f"{100 * value:.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=Path("var/ablation-hard"))
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=3_100_000)
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--json", type=Path, default=None, help="write the summaries here")
    parser.add_argument("--workers", type=int, default=1, help="processes scoring photos")
    args = parser.parse_args(argv)
    render_missing(args.photos, args.seed, args.n, parse_size(args.size))

    results = score_both(args.photos, args.n, args.workers)
    summaries = {name: summarise(r)["all"].to_json() for name, r in results.items()}
    print(f"hard split: {args.n} photos, seed {args.seed}, {args.size}")
    print("metric".ljust(26) + "".join(name.rjust(16) for name in summaries))
    for label, key in METRICS:
        row = "".join(_fmt(s[key], key).rjust(16) for s in summaries.values())
        print(label.ljust(26) + row)
    off, on = results["without model"], results["with model"]
    gained = [a.image for a, b in zip(off, on, strict=True) if b.exact and not a.exact]
    lost = [a.image for a, b in zip(off, on, strict=True) if a.exact and not b.exact]
    print(f"exact only with the model: {gained}")
    print(f"exact only without it:     {lost}")
    if args.json is not None:
        args.json.write_text(json.dumps(summaries | {"gained": gained, "lost": lost}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
