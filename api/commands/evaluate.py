"""``tablescore evaluate DIR``: score a folder of photos with ground truth and print accuracy.

Runs :func:`vision.pipeline.score_photo` on every photo of ``DIR`` that has a ground-truth JSON
(the dev set's format or ``tablescore synth`` output) and prints photo-level exact accuracy,
per-player accuracy, item/colour/type/face/icon/counted accuracies by difficulty and seconds per
photo (:mod:`vision.evaluation`). ``--predictions FILE`` compares a JSON-lines file of contract
objects (one per photo, ``image`` = the photo's file name) instead of running the scorer.
``--by-tag`` and ``--by-scale`` add exact and per-player accuracy per ground-truth tag and per
photo scale (displayed px per mm of its coasters: coarser than the dev set's photos, or not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from vision.errors import PhotoError
from vision.evaluation import (
    MATCH_RADIUS_PX,
    GroundTruthError,
    GroundTruthPhoto,
    PhotoEvaluation,
    evaluate_photo,
    format_summary,
    format_tag_table,
    load_ground_truth,
    summarise,
    summarise_by_scale,
    summarise_by_tag,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="run the scorer over photos with ground-truth JSON and print accuracies",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    parser.add_argument("folder", help="folder of photos with ground-truth JSON")
    parser.add_argument("--limit", type=int, help="only the first N photos (by name)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--by-tag", action="store_true", help="also break exact/per-player accuracy down by tag"
    )
    parser.add_argument(
        "--by-scale",
        action="store_true",
        help="also break exact/per-player accuracy down by how many px per mm the photos show",
    )
    parser.add_argument(
        "--match-px",
        type=float,
        default=MATCH_RADIUS_PX,
        help=f"largest centre distance pairing items (default {MATCH_RADIUS_PX:g} px)",
    )
    parser.add_argument(
        "--predictions", metavar="FILE", help="JSON-lines predictions instead of running the scorer"
    )
    parser.set_defaults(run=run)


def _load_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """``image`` file name -> contract object, from a JSON-lines file."""
    out: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc})") from exc
        if not isinstance(obj, dict) or "image" not in obj:
            raise ValueError(f"{path}:{n}: each line must be an object with an 'image' field")
        out[Path(str(obj["image"])).name] = obj
    return out


def _prediction_or_error(record: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """A predictions-file record as (contract, None), or (None, error code) for a photo the
    scorer could not score (``tablescore batch`` writes ``{"image", "error": {"code", ...}}``)
    or that the file lacks."""
    if record is None:
        return None, "missing_prediction"
    error = record.get("error")
    if error is None:
        return record, None
    code = error.get("code") if isinstance(error, dict) else error
    return None, str(code or "error")


def _scorer() -> Callable[[GroundTruthPhoto], dict[str, Any]]:
    from vision.pipeline import score_photo  # the scorer is only needed when running it

    def run_one(photo: GroundTruthPhoto) -> dict[str, Any]:
        return score_photo(photo.image_path, name=photo.truth["image"]).contract

    return run_one


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit <= 0:
        print("error: --limit must be positive", file=sys.stderr)
        return 2
    if args.match_px <= 0:
        print("error: --match-px must be positive", file=sys.stderr)
        return 2
    try:
        photos = load_ground_truth(args.folder, args.limit)
        predictions = _load_predictions(Path(args.predictions)) if args.predictions else None
        score = None if predictions is not None else _scorer()
    except (GroundTruthError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(
            f"error: the scorer (vision.pipeline.score_photo) is unavailable: {exc}",
            file=sys.stderr,
        )
        return 2

    results: list[PhotoEvaluation] = []
    for photo in tqdm(photos, unit="photo", desc="evaluate", disable=args.json):
        name = photo.image_path.name
        if predictions is not None:
            predicted, error = _prediction_or_error(predictions.get(name))
            results.append(
                evaluate_photo(predicted, photo.truth, error=error, radius_px=args.match_px)
            )
            continue
        start = time.perf_counter()
        try:
            predicted, error = score(photo), None
        except PhotoError as exc:
            predicted, error = None, exc.code
        except Exception as exc:  # a scorer bug must not end the whole evaluation
            predicted, error = None, f"internal_error ({type(exc).__name__}: {exc})"
        seconds = time.perf_counter() - start
        results.append(
            evaluate_photo(predicted, photo.truth, seconds, error, radius_px=args.match_px)
        )

    summaries = summarise(results)
    if args.json:
        photos = [
            {
                "image": r.image,
                "difficulty": r.difficulty,
                "exact": r.exact,
                "boundary_iou": r.boundary_iou,
                "error": r.error,
                "seconds": r.seconds,
                "scale_px_per_mm": r.scale_px_per_mm,
            }
            for r in results
        ]
        report: dict[str, Any] = {
            "summary": {k: s.to_json() for k, s in summaries.items()},
            "photos": photos,
        }
        if args.by_tag:
            report["by_tag"] = {k: s.to_json() for k, s in summarise_by_tag(results).items()}
        if args.by_scale:
            report["by_scale"] = {k: s.to_json() for k, s in summarise_by_scale(results).items()}
        print(json.dumps(report, indent=1))
        return 0
    print(f"{len(results)} photos from {args.folder}")
    print(format_summary(summaries))
    if args.by_tag:
        print()
        print(format_tag_table(summarise_by_tag(results)))
    if args.by_scale:
        print()
        print(format_tag_table(summarise_by_scale(results), heading="scale"))
    for r in results:
        if r.error:
            print(f"  {r.image}: scorer error {r.error}")
    return 0
