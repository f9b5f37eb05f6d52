"""The calibration end to end on a re-coloured, re-drawn variant of the default set.

    python benchmarks/bench_calibration.py [--photos 50] [--difficulty easy] [--work DIR]
                                           [--size 1600x1200|phone] [--with-truth] [--control]

1. writes a variant set (:func:`vision.calibration.variant.write_variant`: new colours, new
   icon placement) - the "printed game" whose catalogue is unknown to the scorer;
2. photographs every side lying alone, ``--per-side`` photos each (synthetic renderer);
3. builds a catalogue from those photos with the calibration library (the notebook's steps),
   confirming the icon table from the variant's truth as a person would;
4. renders ``--photos`` synthetic table photos of the variant and scores them with the built
   catalogue (and, with ``--with-truth``, with the variant's true catalogue: the ceiling);
5. with ``--control``, renders the *same* scenes (same seed, layout, camera and light) with the
   default set and scores them with the default catalogue: the scorer's accuracy on those photos
   without any new art. Variant-with-truth below the control is loss from the variant's art;
   the control itself below the target is loss from the photos (size, framing, light).

Prints seconds per stage, icon outline errors (mm), and the accuracy summary (photo-level exact
accuracy first). ``--work`` keeps photos and catalogues for a rerun (stages already done are
skipped).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from games.beer_pretzels.catalogue import Catalogue, load_catalogue
from vision.calibration.coaster_set import (
    find_side_photos,
    propose_icons,
    propose_shapes,
    rectify_sides,
    write_catalogue,
)
from vision.calibration.lone_photos import write_side_photos
from vision.calibration.variant import VARIANT_COLORS, check_against, write_variant
from vision.errors import PhotoError
from vision.evaluation import evaluate_photo, format_summary, summarise
from vision.pipeline import score_photo
from vision.synthetic.generate import SynthOptions, make_sample, write_sample
from vision.synthetic.recipes import parse_difficulty


def _stage(name: str, started: float) -> float:
    now = time.perf_counter()
    print(f"[{now - started:7.1f} s] {name}", flush=True)
    return now


def _score(folder: Path, n: int, catalogue: Catalogue) -> dict:
    evaluations = []
    for index in range(n):
        truth = json.loads((folder / f"{index:04d}.json").read_text(encoding="utf-8"))
        started = time.perf_counter()
        try:
            contract = score_photo(folder / truth["image"], catalogue=catalogue).contract
            error = None
        except PhotoError as exc:
            contract, error = None, exc.code
        evaluation = evaluate_photo(contract, truth, time.perf_counter() - started, error)
        evaluations.append(evaluation)
        print(f"  {truth['image']} {evaluation.difficulty:6s} exact={evaluation.exact}", flush=True)
    return summarise(evaluations)


def _render_scenes(folder: Path, n: int, seed: int, options: SynthOptions, catalogue) -> None:
    """Synthetic table photos 0..n-1 of ``catalogue`` into ``folder`` (existing ones kept)."""
    for index in range(n):
        if not (folder / f"{index:04d}.json").is_file():
            write_sample(make_sample(seed, index, options, catalogue=catalogue), folder)


def _size(text: str) -> tuple[int, int] | None:
    """``WxH`` (px) -> (W, H); ``phone`` -> None (drawn from the renderer's phone sizes)."""
    if text == "phone":
        return None
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"size must be WxH or 'phone', got {text!r}") from exc
    return w, h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=50, help="scored table photos (50)")
    parser.add_argument("--per-side", type=int, default=3, help="calibration photos per side")
    parser.add_argument("--difficulty", default="easy", help="easy|medium|hard|mix (easy)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--work", type=Path, help="keep everything in this folder")
    parser.add_argument(
        "--size",
        type=_size,
        default=(1600, 1200),
        help="table photo size WxH, or 'phone' for the renderer's phone sizes (1600x1200)",
    )
    parser.add_argument("--with-truth", action="store_true", help="also score with the truth")
    parser.add_argument(
        "--control",
        action="store_true",
        help="also score the same scenes drawn with the default set (its own catalogue)",
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-calibration-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    if not (work / "truth" / "components.json").is_file():
        write_variant(work / "truth", seed=args.seed, colors=VARIANT_COLORS)
    truth = load_catalogue(work / "truth")
    _stage("variant set written", started)
    write_side_photos(
        truth, work / "photos", photos_per_side=args.per_side, seed=args.seed, keep_existing=True
    )
    _stage("calibration photos rendered", started)

    photos = find_side_photos(work / "photos")
    shapes = propose_shapes(photos, truth)
    colors = list(truth.color_names)
    sides = rectify_sides(photos, shapes, colors=colors)
    agreement = [s.agreement_mm for s in sides.values() if len(s.photos) > 1]
    skipped = sum(len(s.skipped) for s in sides.values())
    _stage(f"{len(sides)} sides rectified ({skipped} photos skipped)", started)
    icons = propose_icons(sides, truth)
    checks = check_against(truth, sides, icons)
    guessed = sum(
        c.row.value == r.value and c.row.kind == r.kind for c, r in zip(checks, icons, strict=True)
    )
    built = load_catalogue(
        write_catalogue(
            work / "built", sides, shapes, [c.row for c in checks], name="built", colors=colors
        )
    )
    _stage("catalogue written", started)
    errors = [c.outline_error_mm for c in checks]
    print(
        f"icons: {len(checks)} proposed for {sum(len(x.icons) for x in truth.coaster_types)} "
        f"printed; kind+value guessed right: {guessed}/{len(checks)}"
    )
    print(
        f"outline error (Hausdorff, mm): max {max(errors):.2f}, mean {statistics.fmean(errors):.2f}"
    )
    print(f"photo agreement per side (mm): median {statistics.median(agreement or [0.0]):.2f}")

    size_name = "phone" if args.size is None else "x".join(map(str, args.size))
    scenes = work / f"scenes-{args.difficulty}-{size_name}"
    options = SynthOptions(
        size_px=args.size, difficulty=parse_difficulty(args.difficulty), exif_share=0.0
    )
    _render_scenes(scenes, args.photos, args.seed, options, truth)
    _stage(f"{args.photos} table photos rendered", started)
    print("\nscored with the calibrated catalogue:")
    print(format_summary(_score(scenes, args.photos, built)))
    _stage("scored (calibrated)", started)
    if args.with_truth:
        print("\nscored with the variant's true catalogue (ceiling):")
        print(format_summary(_score(scenes, args.photos, truth)))
        _stage("scored (truth)", started)
    if args.control:
        default = load_catalogue()
        control = work / f"control-{args.difficulty}-{size_name}"
        _render_scenes(control, args.photos, args.seed, options, default)
        print("\nthe same scenes drawn with the default set, scored with its catalogue (control):")
        print(format_summary(_score(control, args.photos, default)))
        _stage("scored (control)", started)
    print(f"\nwork folder: {work}")


if __name__ == "__main__":
    main()
