"""``tablescore batch``: argument checks and the end-of-run summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.cli import main
from api.commands.batch import format_summary
from vision.batch.job import BatchConfig, BatchSummary
from vision.batch.results_log import OpenReport


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--send-bytes"], "--send-bytes needs --cluster"),
        (["--cluster", "tcp://127.0.0.1:9", "--workers", "2"], "--workers is for local runs"),
        (["--workers", "0"], "at least 1"),
        (["--components", "/nonexistent/catalogue"], "error:"),
    ],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["batch", str(tmp_path), "--out", str(tmp_path / "r.jsonl"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_missing_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["batch", str(tmp_path / "nope"), "--out", str(tmp_path / "r.jsonl")])
    assert code == 2
    assert "not a folder" in capsys.readouterr().err


def test_annotating_into_the_photo_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["batch", str(tmp_path), "--out", str(tmp_path / "r.jsonl"), "--annotate", str(tmp_path)]
    )
    assert code == 2
    assert "own folder" in capsys.readouterr().err


def test_summary_lists_counts_errors_timing_and_files() -> None:
    config = BatchConfig(
        folder=Path("round1"),
        out=Path("results.jsonl"),
        csv=Path("results.csv"),
        report=Path("results.html"),
    )
    summary = BatchSummary(
        photos_found=6,
        not_photos=["notes.txt"],
        already_scored=2,
        duplicates=1,
        to_score=3,
        scored=1,
        errors=[("bad.jpg", "unreadable_image")],
        seconds_per_photo=[1.0, 2.0],
        wall_seconds=4.0,
        interrupted=True,
        records_in_output=4,
        opened=OpenReport(kept=2, truncated_bytes=17),
    )
    text = format_summary(summary, config)
    assert text.splitlines()[0].startswith("interrupted")
    assert "repaired results.jsonl" in text
    assert "6 photos found: 1 scored, 1 errors, 2 already in the output" in text
    assert "1 duplicate files, 1 left" in text
    assert "1 files are not photos: notes.txt" in text
    assert "error unreadable_image: bad.jpg" in text
    assert "1.50 s per photo (worker time), 0.50 photos/s" in text
    assert "results.jsonl (4 records), results.csv, results.html" in text
