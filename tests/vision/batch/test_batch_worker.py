"""The per-photo worker function: a record for every file, never an exception."""

from __future__ import annotations

import hashlib
from pathlib import Path

from vision.batch.worker import MAX_PHOTO_BYTES, score_file


def test_missing_file_is_a_run_error_without_hash(tmp_path: Path) -> None:
    outcome = score_file(str(tmp_path / "gone.jpg"), "gone.jpg")
    assert outcome.error_code == "photo_missing"
    assert outcome.record["sha256"] is None and outcome.record["image"] == "gone.jpg"
    assert outcome.record["source"] == str(tmp_path / "gone.jpg")


def test_oversized_file_is_refused_before_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.jpg"
    with path.open("wb") as handle:
        handle.truncate(MAX_PHOTO_BYTES + 1)  # sparse: costs no disk
    outcome = score_file(str(path), "huge.jpg")
    assert outcome.error_code == "image_too_large"
    assert outcome.record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
