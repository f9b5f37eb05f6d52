"""One batch run: list the folder's photos, skip those already scored, score the rest, write.

The run is resumable by content: a photo whose SHA-256 already has a record in the output is
not scored again, whatever its name; two files with the same bytes are scored once. Records are
appended one by one as results arrive (see :mod:`vision.batch.results_log`), so an interrupted
run keeps everything finished before the interruption; the CSV summary and the HTML report are
rewritten from the whole output at the end of every run, interrupted or not.

Error policy: a photo the pipeline rejects (``unreadable_image``, ``image_too_large``,
``image_too_small``, ``no_game_found``) gives the same error for the same bytes, so its record
is final unless the run asks for ``retry_errors``. Errors that are not the photo's fault
(:data:`vision.batch.worker.RUN_ERROR_CODES`: the file vanished, a worker died, a pipeline bug)
are recorded too, and their photos are scored again by the next run.
"""

from __future__ import annotations

import os
import signal
import statistics
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from vision.batch.csv_summary import write_csv_summary
from vision.batch.discovery import discover_photos
from vision.batch.hashing import file_sha256
from vision.batch.html_report import ReportTotals, thumbnail_jpeg, write_html_report
from vision.batch.results_log import OpenReport, ResultsLog
from vision.batch.tasks import PhotoTask, ScoreOptions
from vision.batch.worker import RUN_ERROR_CODES, PhotoOutcome, error_record

#: Long side of the report's thumbnails and of the annotated JPEG workers return when no
#: annotated copies are requested, px.
THUMBNAIL_LONG_SIDE_PX = 320

#: Long side of the annotated copies written with ``annotate_dir``, px.
ANNOTATED_LONG_SIDE_PX = 2048


class Runner(Protocol):
    """Where photos are scored: :class:`vision.batch.local_runner.LocalPoolRunner` or
    :class:`vision.batch.dask_runner.DaskRunner`."""

    def describe(self) -> str: ...

    def run(
        self, tasks: list[PhotoTask], options: ScoreOptions
    ) -> Generator[PhotoOutcome, None, None]: ...


@dataclass(frozen=True)
class BatchConfig:
    """What to score and where to write it. ``csv``/``report``/``annotate_dir``: None to skip.
    ``progress``: show a progress bar (None: only when stderr is a terminal)."""

    folder: Path
    out: Path
    csv: Path | None = None
    report: Path | None = None
    annotate_dir: Path | None = None
    recursive: bool = False
    retry_errors: bool = False
    components: str | None = None
    progress: bool | None = None


@dataclass
class BatchSummary:
    """What one run did. Counts are photos (files); ``seconds_per_photo``: worker time of each
    photo scored by this run (0.0 for a photo whose worker gave no answer)."""

    photos_found: int = 0
    not_photos: list[str] = field(default_factory=list)
    already_scored: int = 0
    duplicates: int = 0
    to_score: int = 0
    scored: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (name, error code)
    seconds_per_photo: list[float] = field(default_factory=list)
    wall_seconds: float = 0.0
    interrupted: bool = False
    records_in_output: int = 0
    opened: OpenReport = field(default_factory=OpenReport)

    @property
    def left(self) -> int:
        """Photos of this run not scored (an interrupted run): the next run takes them."""
        return self.to_score - len(self.seconds_per_photo)

    @property
    def mean_seconds_per_photo(self) -> float | None:
        return statistics.fmean(self.seconds_per_photo) if self.seconds_per_photo else None

    @property
    def photos_per_second(self) -> float | None:
        done = self.scored + len(self.errors)
        return done / self.wall_seconds if done and self.wall_seconds > 0 else None


class BatchError(ValueError):
    """The run cannot start: bad folder or output paths."""


def run_batch(config: BatchConfig, runner: Runner) -> BatchSummary:
    """Score the folder of ``config`` with ``runner``; returns the summary.

    Ctrl-C (KeyboardInterrupt), or a ``kill`` (SIGTERM) of this process, stops the run cleanly:
    the summary says ``interrupted``, everything scored so far is in the output, and the worker
    processes are shut down (killed at once, this process would leave them behind, idle and
    holding their memory). Raises :class:`BatchError` for unusable paths,
    :class:`vision.batch.results_log.ResultsLogError` when the output is locked by another run.
    """
    with _terminate_as_ctrl_c():
        return _run_batch(config, runner)


def _run_batch(config: BatchConfig, runner: Runner) -> BatchSummary:
    _check_paths(config)
    started = time.perf_counter()
    summary = BatchSummary()
    thumbnails: dict[str, bytes] = {}
    log, summary.opened = ResultsLog.open(config.out, retry=_retry_policy(config.retry_errors))
    outcomes: Generator[PhotoOutcome, None, None] | None = None
    bar: tqdm | None = None
    try:
        tasks = _plan(config, log, summary)
        summary.to_score = len(tasks)
        options = ScoreOptions(
            components=config.components,
            annotated_long_side_px=(
                ANNOTATED_LONG_SIDE_PX if config.annotate_dir else THUMBNAIL_LONG_SIDE_PX
            ),
        )
        bar = tqdm(
            total=len(tasks),
            unit="photo",
            desc="scoring",
            disable=None if config.progress is None else not config.progress,
        )
        outcomes = runner.run(tasks, options)
        for outcome in outcomes:
            with _ctrl_c_deferred():  # a record and its counts are written whole
                _keep(outcome, config, log, summary, thumbnails)
            bar.set_postfix(errors=len(summary.errors), refresh=False)
            bar.update()
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if bar is not None:
            bar.close()
        log.close()
        if outcomes is not None:
            outcomes.close()  # stops the runner: pending photos cancelled, workers shut down
        records = log.all_records()
        summary.records_in_output = len(records)
        summary.wall_seconds = time.perf_counter() - started
        _write_summaries(config, records, thumbnails, summary)
    return summary


#: The signals that stop a run: Ctrl-C and ``kill``.
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def _terminate_as_ctrl_c() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt as Ctrl-C does (unless SIGTERM is
    ignored). Only possible in the main thread; elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) and SIGTERM until the block is done, then raise
    KeyboardInterrupt.

    Only possible in the main thread; elsewhere a no-op; a signal that is ignored stays so.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda signum, frame: received.append(signum))
        for signum in _STOP_SIGNALS
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if any(previous[signum] is not signal.SIG_IGN for signum in received):
        raise KeyboardInterrupt


def _check_paths(config: BatchConfig) -> None:
    if not config.folder.is_dir():
        raise BatchError(f"not a folder: {config.folder}")
    if config.annotate_dir and config.annotate_dir.resolve() == config.folder.resolve():
        raise BatchError("the annotated copies need their own folder, not the photos' folder")
    for path in (config.out, config.csv, config.report):
        if path is not None and path.is_dir():
            raise BatchError(f"{path} is a folder, expected a file path")


def _retry_policy(retry_errors: bool) -> Callable[[dict[str, Any]], bool]:
    """Which records of the output to drop so that their photos are scored again."""

    def retry(record: dict[str, Any]) -> bool:
        error = record.get("error")
        return bool(error) and (retry_errors or error.get("code") in RUN_ERROR_CODES)

    return retry


def _plan(config: BatchConfig, log: ResultsLog, summary: BatchSummary) -> list[PhotoTask]:
    """The photos still to score, each once, largest file first; unreadable files are
    recorded at once.

    Largest first: big photos take longest, and starting them early keeps every worker busy
    until the end instead of leaving one finishing a big photo alone.
    """
    outputs = (config.out, config.csv, config.report, config.annotate_dir)
    exclude = tuple(p for p in outputs if p is not None)
    found = discover_photos(config.folder, recursive=config.recursive, exclude=exclude)
    summary.photos_found = len(found.photos)
    summary.not_photos = found.not_photos
    tasks: list[PhotoTask] = []
    size_bytes: dict[str, int] = {}
    for name, path in found.photos:
        try:
            sha256 = file_sha256(path)
            size = path.stat().st_size
        except OSError as exc:
            message = f"cannot read: {exc.strerror or exc}"
            log.append(error_record(name, None, str(path), "photo_missing", message))
            summary.errors.append((name, "photo_missing"))
            continue
        if sha256 in log:
            summary.already_scored += 1
        elif sha256 in size_bytes:
            summary.duplicates += 1
        else:
            size_bytes[sha256] = size
            tasks.append(PhotoTask(name, path, sha256))
    tasks.sort(key=lambda task: size_bytes[task.sha256], reverse=True)
    return tasks


def _keep(
    outcome: PhotoOutcome,
    config: BatchConfig,
    log: ResultsLog,
    summary: BatchSummary,
    thumbnails: dict[str, bytes],
) -> None:
    """Write one photo's outcome: annotated copy first, then its record (durable)."""
    record = outcome.record
    if outcome.annotated_jpeg is not None:
        if config.annotate_dir is not None:
            path = annotated_path(config.annotate_dir, record["image"])
            _write_atomically(path, outcome.annotated_jpeg)
            thumbnails[record["sha256"]] = thumbnail_jpeg(
                outcome.annotated_jpeg, THUMBNAIL_LONG_SIDE_PX
            )
        else:
            thumbnails[record["sha256"]] = outcome.annotated_jpeg
    try:
        log.append(record)
    except ValueError as exc:  # not strict JSON (NaN): a pipeline bug, recorded as such
        record = error_record(
            record["image"], record["sha256"], record["source"], "internal_error", str(exc)
        )
        log.append(record)
    summary.seconds_per_photo.append(outcome.seconds)
    if "error" in record:
        summary.errors.append((record["image"], record["error"]["code"]))
    else:
        summary.scored += 1


def annotated_path(annotate_dir: Path, name: str) -> Path:
    """Where the annotated copy of photo ``name`` goes: the same relative path under
    ``annotate_dir``, with ``.jpg`` appended unless the name already ends in .jpg/.jpeg."""
    suffix = Path(name).suffix.lower()
    return annotate_dir / (name if suffix in (".jpg", ".jpeg") else name + ".jpg")


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _write_summaries(
    config: BatchConfig,
    records: list[dict[str, Any]],
    thumbnails: dict[str, bytes],
    summary: BatchSummary,
) -> None:
    if config.csv is not None:
        write_csv_summary(records, config.csv)
    if config.report is None:
        return
    if config.annotate_dir is not None:
        for record in records:
            copy = annotated_path(config.annotate_dir, record["image"])
            if "error" not in record and record["sha256"] not in thumbnails and copy.is_file():
                thumbnails[record["sha256"]] = thumbnail_jpeg(
                    copy.read_bytes(), THUMBNAIL_LONG_SIDE_PX
                )
    totals = ReportTotals(
        photos=len(records),
        errors=sum(1 for r in records if "error" in r),
        mean_seconds_per_photo=summary.mean_seconds_per_photo,
    )
    write_html_report(records, thumbnails, config.report, totals)
