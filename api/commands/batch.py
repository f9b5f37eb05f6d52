"""``tablescore batch DIR``: score every photo of a folder, resumably, locally or on a cluster."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from games.beer_pretzels.catalogue import CatalogueError, load_catalogue
from vision.batch.job import BatchConfig, BatchError, BatchSummary, run_batch
from vision.batch.local_runner import LocalPoolRunner
from vision.batch.results_log import ResultsLogError

_DESCRIPTION = """\
Score every photo in DIR (JPEG, PNG, WebP, HEIC; by extension or content) and append one
contract JSON per photo to the JSON Lines output, with the photo's "sha256" and "source".
Re-running skips photos already in the output (by content, not name), so an interrupted run
just continues. Photos the pipeline rejects are recorded as {"image", "sha256", "source",
"error": {"code", "message"}} and not retried unless --retry-errors; a vanished file, a crashed
worker or an internal error is retried on the next run. Also writes a CSV summary (photo,
colour, money, error) and a self-contained HTML report with annotated thumbnails.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "batch",
        help="score a folder of photos (resumable; local processes or a Dask cluster)",
        description=_DESCRIPTION,
    )
    parser.add_argument("folder", metavar="DIR", type=Path, help="folder of photos")
    parser.add_argument(
        "--out", type=Path, default=Path("results.jsonl"), help="JSON Lines output, appended to"
    )
    parser.add_argument("--csv", type=Path, help="CSV summary (default: OUT with .csv)")
    parser.add_argument("--report", type=Path, help="HTML report (default: OUT with .html)")
    parser.add_argument(
        "--annotate", type=Path, metavar="DIR", help="also write annotated JPEGs into this folder"
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="local worker processes (default: one per available core)",
    )
    parser.add_argument("--recursive", action="store_true", help="include sub-folders")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="score on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786)",
    )
    parser.add_argument(
        "--send-bytes",
        action="store_true",
        help="with --cluster: send each photo's bytes to the workers instead of its path",
    )
    parser.add_argument(
        "--retry-errors", action="store_true", help="score photos recorded as errors again"
    )
    parser.add_argument("--components", help="component catalogue folder (default: bundled)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.cluster and args.workers is not None:
        print("error: --workers is for local runs; a cluster has its own workers", file=sys.stderr)
        return 2
    if args.send_bytes and not args.cluster:
        print("error: --send-bytes needs --cluster", file=sys.stderr)
        return 2
    if args.workers is not None and args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.components and not args.cluster:  # a cluster's workers may see another filesystem
        try:
            load_catalogue(args.components)
        except CatalogueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    config = BatchConfig(
        folder=args.folder,
        out=args.out,
        csv=args.csv or args.out.with_suffix(".csv"),
        report=args.report or args.out.with_suffix(".html"),
        annotate_dir=args.annotate,
        recursive=args.recursive,
        retry_errors=args.retry_errors,
        components=args.components,
        progress=False if args.no_progress else None,
    )
    if args.cluster:
        try:
            from vision.batch.dask_runner import DaskRunner  # optional extra: imported on use
        except ImportError:
            print("error: --cluster needs Dask: pip install 'tablescore[cluster]'", file=sys.stderr)
            return 2
        runner = DaskRunner(args.cluster, send_bytes=args.send_bytes)
    else:
        runner = LocalPoolRunner(args.workers or len(os.sched_getaffinity(0)))
    print(f"scoring {args.folder} with {runner.describe()}", file=sys.stderr)
    try:
        summary = run_batch(config, runner)
    except (BatchError, ResultsLogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_summary(summary, config))
    return 130 if summary.interrupted else 0


def format_summary(summary: BatchSummary, config: BatchConfig) -> str:
    """The end-of-run summary: counts, errors (listed), timing and the files written."""
    lines = []
    if summary.interrupted:
        lines.append("interrupted: the photos finished so far are saved; run again to continue")
    opened = summary.opened
    if opened.truncated_bytes:
        lines.append(f"repaired {config.out}: cut off a partial last line")
    if opened.bad_lines:
        lines.append(f"warning: {config.out} lines {opened.bad_lines} are not records (ignored)")
    lines.append(
        f"{summary.photos_found} photos found: {summary.scored} scored, "
        f"{len(summary.errors)} errors, {summary.already_scored} already in the output, "
        f"{summary.duplicates} duplicate files, "
        f"{summary.left} left"
    )
    if summary.not_photos:
        shown = ", ".join(summary.not_photos[:5])
        more = f" and {len(summary.not_photos) - 5} more" if len(summary.not_photos) > 5 else ""
        lines.append(f"{len(summary.not_photos)} files are not photos: {shown}{more}")
    lines.extend(f"  error {code}: {name}" for name, code in summary.errors)
    mean = summary.mean_seconds_per_photo
    if mean is not None:
        rate = summary.photos_per_second or 0.0
        lines.append(
            f"{mean:.2f} s per photo (worker time), {rate:.2f} photos/s, "
            f"{summary.wall_seconds:.1f} s in all"
        )
    written = [f"{config.out} ({summary.records_in_output} records)"]
    written += [str(p) for p in (config.csv, config.report) if p is not None]
    if config.annotate_dir is not None:
        written.append(f"annotated copies in {config.annotate_dir}")
    lines.append("wrote " + ", ".join(written))
    return "\n".join(lines)
