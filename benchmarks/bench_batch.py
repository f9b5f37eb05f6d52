"""Throughput of ``tablescore batch``: 1 vs 2 local worker processes, and a Dask cluster.

Builds a folder of at least ``--photos`` distinct photos from the dev set (each dev-set photo
as is, then re-encoded at other JPEG qualities so that every file has its own content hash),
then scores it three times into fresh outputs:

* the local process pool with 1 worker, then with 2 workers (pool start-up included);
* a Dask ``LocalCluster`` of 2 worker processes x 1 thread, started beforehand (an existing
  cluster), photos read from the shared path.

Prints photos per second, the 2-worker speed-up (target >= 1.7x on a 2-core machine), the
cluster's throughput relative to the 2-worker pool (target within 15%), and the CPU seconds per
photo of each run: the scoring threads' own CPU time (the pipeline) and that of the whole run
(workers, client and cluster processes together); their difference is what the batch layer
costs (process start-up, extra threads, serialisation, scheduler). On a machine busy with other
work the wall-clock figures measure the competition, the CPU figures still show what running
photos in parallel costs.

The cluster runs with :data:`vision.batch.dask_runner.CLUSTER_CONFIG` (the settings the README
recommends for a scoring cluster); ``--dask-defaults`` runs it with Dask's defaults instead.

    python benchmarks/bench_batch.py [--photos 40] [--devset /work/shared/devset]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path

from PIL import Image

from vision.batch.discovery import PHOTO_SUFFIXES
from vision.batch.hashing import file_sha256
from vision.batch.job import BatchConfig, BatchSummary, Runner, run_batch
from vision.batch.local_runner import LocalPoolRunner
from vision.batch.tasks import PhotoTask, ScoreOptions
from vision.batch.worker import PhotoOutcome

#: JPEG qualities of the re-encoded copies, in the order they are made.
REENCODE_QUALITIES = (88, 80, 72, 92, 84, 76)


def build_folder(devset: Path, count: int, folder: Path, max_long_side_px: int | None) -> int:
    """Fill ``folder`` with ``count`` photos of distinct content; returns their number.

    ``max_long_side_px``: use only dev-set photos whose long side is at most this (None: all).
    """
    sources = sorted(p for p in devset.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
    if max_long_side_px is not None:
        sources = [p for p in sources if _long_side_px(p) <= max_long_side_px]
    if not sources:
        raise SystemExit(f"no photos in {devset}")
    written = 0
    for round_index in range(-1, len(REENCODE_QUALITIES)):
        for source in sources:
            if written == count:
                return written
            if round_index < 0:
                (folder / source.name).write_bytes(source.read_bytes())
            else:
                quality = REENCODE_QUALITIES[round_index]
                (folder / f"{source.stem}-q{quality}.jpg").write_bytes(_reencode(source, quality))
            written += 1
    return written


def _long_side_px(path: Path) -> int:
    with Image.open(path) as image:
        return max(image.size)


def _reencode(source: Path, quality: int) -> bytes:
    with Image.open(source) as image:
        exif = image.info.get("exif", b"")
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="JPEG", quality=quality, exif=exif)
    return buffer.getvalue()


class ScoringCpu:
    """A runner passed through, adding up the scoring threads' CPU seconds of its outcomes."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.seconds = 0.0

    def describe(self) -> str:
        return self.runner.describe()

    def run(
        self, tasks: list[PhotoTask], options: ScoreOptions
    ) -> Generator[PhotoOutcome, None, None]:
        for outcome in self.runner.run(tasks, options):
            self.seconds += outcome.cpu_seconds
            yield outcome


def timed_run(
    folder: Path, runner: Runner, out_dir: Path, label: str
) -> tuple[BatchSummary, float]:
    """Score ``folder`` into a fresh output and print a line; returns the summary and the
    scoring threads' CPU seconds."""
    out = out_dir / f"{label}.jsonl"
    config = BatchConfig(folder=folder, out=out, progress=False)
    scoring = ScoringCpu(runner)
    summary = run_batch(config, scoring)
    done = summary.scored + len(summary.errors)
    mean = summary.mean_seconds_per_photo or 0.0
    print(
        f"{label:<18} {done:>4} photos {summary.wall_seconds:>7.1f} s "
        f"{done / summary.wall_seconds:>6.3f} photos/s   worker wall {mean:.2f} s/photo   "
        f"errors {len(summary.errors)}",
        flush=True,
    )
    return summary, scoring.seconds


def cpu_seconds() -> float:
    """CPU seconds (user + system) used so far by this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=40, help="photos in the folder (>= 40)")
    parser.add_argument("--devset", type=Path, default=Path("/work/shared/devset"))
    parser.add_argument(
        "--max-long-side",
        type=int,
        default=None,
        help="only dev-set photos at most this many px on their long side",
    )
    parser.add_argument("--no-cluster", action="store_true", help="skip the Dask cluster run")
    parser.add_argument(
        "--dask-defaults",
        action="store_true",
        help="run the cluster with Dask's default settings, not dask_runner.CLUSTER_CONFIG",
    )
    args = parser.parse_args()

    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as scratch:
        folder = Path(scratch) / "photos"
        folder.mkdir()
        count = build_folder(args.devset, args.photos, folder, args.max_long_side)
        hashes = {file_sha256(p) for p in folder.iterdir()}  # also warms the page cache
        print(
            f"{count} photos ({len(hashes)} distinct), {cores} cores available, "
            f"load average {os.getloadavg()[0]:.1f} before"
        )
        # label -> (wall s, CPU s of the whole run, CPU s of the scoring threads)
        runs: dict[str, tuple[float, float, float]] = {}
        for workers in (1, 2):
            label = f"local, {workers} worker{'s' if workers > 1 else ''}"
            cpu = cpu_seconds()
            summary, scoring = timed_run(folder, LocalPoolRunner(workers), Path(scratch), label)
            runs[label] = (summary.wall_seconds, cpu_seconds() - cpu, scoring)
        if not args.no_cluster:
            import dask
            from distributed import LocalCluster

            from vision.batch.dask_runner import CLUSTER_CONFIG, DaskRunner

            cpu = cpu_seconds()
            with (
                dask.config.set({} if args.dask_defaults else CLUSTER_CONFIG),
                LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                ) as cluster,
            ):
                runner = DaskRunner(cluster.scheduler_address)
                summary, scoring = timed_run(folder, runner, Path(scratch), "dask, 2 workers")
            runs["dask, 2 workers"] = (summary.wall_seconds, cpu_seconds() - cpu, scoring)
        print(f"load average {os.getloadavg()[0]:.1f} after")
        print("CPU s/photo: scoring threads (the pipeline), whole run (workers, client, cluster)")
        for label, (_, cpu, scoring) in runs.items():
            print(
                f"{label:<18} scoring {scoring / count:.2f}   whole run {cpu / count:.2f}   "
                f"batch overhead {(cpu - scoring) / count:.2f}"
            )
        one, two = runs["local, 1 worker"][0], runs["local, 2 workers"][0]
        print(f"speed-up 2 vs 1 worker: {one / two:.2f}x (target >= 1.7x)")
        if "dask, 2 workers" in runs:
            dask = runs["dask, 2 workers"][0]
            print(
                f"cluster vs local pool (2 workers): {two / dask:.2f}x the throughput, "
                f"{abs(dask - two) / two:.0%} apart (target within 15%)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
