"""Fixtures: a folder of real dev-set photos and bad files, and one local batch run of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from batch_fixtures import DEVSET, DEVSET_PHOTOS, LocalRun

from vision.batch.job import BatchConfig, run_batch
from vision.batch.local_runner import LocalPoolRunner
from vision.batch.results_log import read_records


@pytest.fixture(scope="session")
def photo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 dev-set photos, a copy of one under another name, 3 broken photos and a text file."""
    pytest.importorskip("vision.pipeline", reason="the vision pipeline is not available")
    if not DEVSET.is_dir():
        pytest.skip("shared devset not available")
    folder = tmp_path_factory.mktemp("photos")
    for name in DEVSET_PHOTOS:
        shutil.copyfile(DEVSET / name, folder / name)
    shutil.copyfile(DEVSET / DEVSET_PHOTOS[0], folder / f"copy-of-{DEVSET_PHOTOS[0]}")
    (folder / "empty.jpg").write_bytes(b"")
    (folder / "random.jpg").write_bytes(bytes(range(256)) * 40)
    jpeg = (DEVSET / "0023.jpg").read_bytes()
    (folder / "truncated.jpg").write_bytes(jpeg[: len(jpeg) // 3])
    (folder / "notes.txt").write_text("round 3, table 2\n")
    return folder


@pytest.fixture(scope="session")
def local_run(photo_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> LocalRun:
    """The folder scored once by 2 local worker processes, with annotated copies."""
    out = tmp_path_factory.mktemp("local")
    config = BatchConfig(
        folder=photo_folder,
        out=out / "results.jsonl",
        csv=out / "results.csv",
        report=out / "report.html",
        annotate_dir=out / "annotated",
        progress=False,
    )
    summary = run_batch(config, LocalPoolRunner(2))
    return LocalRun(config, summary, read_records(config.out))
