"""A batch run on real photos: records, bad files, summaries, and resuming after interruptions."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from batch_fixtures import BAD_FILES, DEVSET_PHOTOS, LocalRun, without_timing
from PIL import Image

from vision.batch.job import BatchConfig, run_batch
from vision.batch.local_runner import LocalPoolRunner
from vision.batch.results_log import read_records

CONTRACT_KEYS = {"image", "game", "scores", "players", "items", "boundary_px", "warnings"}


def test_every_photo_recorded_once_with_hash_and_source(local_run: LocalRun) -> None:
    summary, records = local_run.summary, local_run.records
    folder = local_run.config.folder
    assert summary.photos_found == 7 and summary.duplicates == 1
    assert summary.scored == 3 and summary.not_photos == ["notes.txt"]
    assert sorted(r["image"] for r in records) == sorted({*DEVSET_PHOTOS, *BAD_FILES})
    for record in records:
        path = folder / record["image"]
        assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert record["source"] == str(path)
        if record["image"] in DEVSET_PHOTOS:
            assert record.keys() >= CONTRACT_KEYS and "error" not in record
            assert record["game"] == "beer-and-pretzels"
    assert summary.mean_seconds_per_photo is not None and summary.mean_seconds_per_photo > 0


def test_bad_files_are_error_records_not_crashes(local_run: LocalRun) -> None:
    errors = {r["image"]: r["error"] for r in local_run.records if "error" in r}
    assert set(errors) == BAD_FILES
    assert all(e["code"] == "unreadable_image" and e["message"] for e in errors.values())
    assert sorted(name for name, _ in local_run.summary.errors) == sorted(BAD_FILES)


def test_csv_report_and_annotated_copies(local_run: LocalRun) -> None:
    config, records = local_run.config, local_run.records
    with config.csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expected = sum(len(r["scores"]) or 1 for r in records if "error" not in r) + len(BAD_FILES)
    assert len(rows) == expected
    money = {(r["photo"], r["colour"]): int(r["money"]) for r in rows if r["colour"]}
    for record in records:
        for colour, value in record.get("scores", {}).items():
            assert money[(record["image"], colour)] == value
    page = config.report.read_text(encoding="utf-8")
    assert page.count("data:image/jpeg;base64,") == len(DEVSET_PHOTOS)
    for name in DEVSET_PHOTOS:
        with Image.open(config.annotate_dir / name) as annotated:
            assert annotated.format == "JPEG" and max(annotated.size) <= 2048
    assert not (config.annotate_dir / "random.jpg").exists()


def test_rerun_scores_nothing_and_changes_nothing(local_run: LocalRun, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    shutil.copyfile(local_run.config.out, out)
    config = BatchConfig(folder=local_run.config.folder, out=out, progress=False)
    summary = run_batch(config, LocalPoolRunner(2))
    assert summary.to_score == 0 and summary.already_scored == 7
    assert out.read_bytes() == local_run.config.out.read_bytes()


def test_resume_after_the_process_is_killed_mid_write(local_run: LocalRun, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "api.cli", "batch", str(local_run.config.folder)]
    command += ["--out", str(out), "--workers", "1", "--no-progress"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "no record written within 120 s"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)  # the batch and its worker, mid-run
    process.wait()
    written = read_records(out)
    assert len(written) < len(local_run.records)
    data = out.read_bytes()
    cut_by_kill = len(data) - (data.rfind(b"\n") + 1)  # almost always 0
    # As if the kill had also hit the write of the next record: half a line at the end.
    unwritten = next(r for r in local_run.records if r["sha256"] not in without_timing(written))
    partial = json.dumps(unwritten).encode()[:40]
    with out.open("ab") as handle:
        handle.write(partial)

    config = BatchConfig(folder=local_run.config.folder, out=out, progress=False)
    summary = run_batch(config, LocalPoolRunner(1))
    assert summary.opened.truncated_bytes == cut_by_kill + len(partial)
    done = summary.already_scored + summary.duplicates + summary.scored + len(summary.errors)
    assert done == summary.photos_found == 7
    assert summary.scored + len(summary.errors) == 6 - len(written)
    records = read_records(out)
    assert len(records) == len({r["sha256"] for r in records}) == len(local_run.records)
    assert without_timing(records) == without_timing(local_run.records)


def _processes_marked(marker: str) -> list[int]:
    """Pids of the live processes whose environment holds ``marker`` (Linux /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in environ and state != "Z":
            pids.append(int(entry.name))
    return pids


def test_a_killed_batch_stops_cleanly_and_leaves_no_worker_behind(
    local_run: LocalRun, tmp_path: Path
) -> None:
    """SIGTERM to the batch process alone (a ``kill``, a service manager's stop) stops the run
    as Ctrl-C does: the photos scored so far are kept, and its worker processes end with it."""
    if not Path("/proc/self/environ").exists():
        return  # the check of leftover processes reads Linux's /proc
    out = tmp_path / "results.jsonl"
    marker = f"TABLESCORE_TEST_RUN={os.getpid()}-{time.monotonic_ns()}"
    key, value = marker.split("=")
    command = [sys.executable, "-m", "api.cli", "batch", str(local_run.config.folder)]
    command += ["--out", str(out), "--workers", "2", "--no-progress"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, key: value}
    )
    deadline = time.monotonic() + 120
    while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "no record written within 120 s"
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    stdout, _ = process.communicate(timeout=120)
    assert process.returncode == 130
    assert b"interrupted" in stdout
    assert 1 <= len(read_records(out)) <= len(local_run.records)
    deadline = time.monotonic() + 10
    while _processes_marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_marked(marker) == []
