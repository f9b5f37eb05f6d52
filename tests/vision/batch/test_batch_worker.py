"""The per-photo worker function: a record for every file, never an exception."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from batch_fixtures import DEVSET
from PIL import Image

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


def test_bytes_are_scored_like_the_file(tmp_path: Path) -> None:
    pytest.importorskip("vision.pipeline", reason="the vision pipeline is not available")
    outcome = score_file(b"definitely not a photo", "junk.jpg", source="/photos/junk.jpg")
    assert outcome.error_code == "unreadable_image"
    assert outcome.record["source"] == "/photos/junk.jpg"
    assert outcome.annotated_jpeg is None


def test_real_photo_gives_contract_record_and_small_annotated_jpeg() -> None:
    pytest.importorskip("vision.pipeline", reason="the vision pipeline is not available")
    if not DEVSET.is_dir():
        pytest.skip("shared devset not available")
    path = DEVSET / "0009.jpg"
    outcome = score_file(str(path), "0009.jpg", annotated_long_side_px=200)
    record = outcome.record
    assert outcome.error_code is None, record.get("error")
    assert record["image"] == "0009.jpg" and record["source"] == str(path)
    assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert record["game"] == "beer-and-pretzels" and isinstance(record["scores"], dict)
    assert outcome.annotated_jpeg is not None
    with Image.open(io.BytesIO(outcome.annotated_jpeg)) as annotated:
        assert annotated.format == "JPEG" and max(annotated.size) <= 200
    assert outcome.seconds > 0
