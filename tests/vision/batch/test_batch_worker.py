"""The per-photo worker function: a record for every file, never an exception."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

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


#: A worker process whose NumPy was loaded before the worker set its thread variables, as in a
#: "spawn" child re-importing a main module that imports NumPy: prints the thread pools left.
_PRELOADED_NUMPY_WORKER = """
import json, os
os.environ.pop("OPENBLAS_NUM_THREADS", None)
os.environ.pop("OMP_NUM_THREADS", None)
import numpy
from threadpoolctl import threadpool_info
from vision.batch.worker import init_worker
init_worker()
import cv2
print(json.dumps({"pools": threadpool_info(), "cv2": cv2.getNumThreads()}))
"""


def test_worker_runs_every_native_pool_with_one_thread() -> None:
    pytest.importorskip("vision.pipeline", reason="the vision pipeline is not available")
    result = subprocess.run(
        [sys.executable, "-c", _PRELOADED_NUMPY_WORKER],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    state = json.loads(result.stdout.splitlines()[-1])
    assert state["pools"], "NumPy's BLAS should be listed"
    assert {pool["num_threads"] for pool in state["pools"]} == {1}
    assert state["cv2"] == 1
