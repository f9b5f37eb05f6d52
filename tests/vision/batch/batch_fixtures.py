"""Shared pieces of the batch tests: the photo folder's contents, a local run, comparisons."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.batch.job import BatchConfig, BatchSummary

DEVSET = Path("/work/shared/devset")
#: Small dev-set photos (1600x1200, and 1200x1600), so the batch tests stay fast.
DEVSET_PHOTOS = ("0005.jpg", "0009.jpg", "0027.jpg")
BAD_FILES = {"empty.jpg", "random.jpg", "truncated.jpg"}


@dataclass(frozen=True)
class LocalRun:
    config: BatchConfig
    summary: BatchSummary
    records: list[dict[str, Any]]


def without_timing(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Records by sha256, without the fields that measure time."""
    return {r["sha256"]: {k: v for k, v in r.items() if k != "timing_ms"} for r in records}
