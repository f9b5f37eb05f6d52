"""The unit of work a runner schedules, and the options every photo of a run is scored with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.batch.worker import PhotoOutcome, error_record


@dataclass(frozen=True)
class PhotoTask:
    """One photo to score: its ``name`` in the results (path relative to the batch folder),
    its absolute ``path`` (as the client sees it) and the SHA-256 the client hashed."""

    name: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class ScoreOptions:
    """``components``: component catalogue folder as seen by the workers (None: bundled set).
    ``annotated_long_side_px``: long side of the annotated JPEG each worker returns, px."""

    components: str | None = None
    annotated_long_side_px: int = 320


def failed_outcome(task: PhotoTask, code: str, message: str) -> PhotoOutcome:
    """The outcome of a photo whose worker gave no answer (it died or the call failed)."""
    record = error_record(task.name, task.sha256, str(task.path), code, message)
    return PhotoOutcome(record, None, 0.0)
