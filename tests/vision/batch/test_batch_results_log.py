"""The resumable JSON Lines output: durable appends, repair of a partial last line, retries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.batch.results_log import ResultsLog, ResultsLogError, read_records


def _record(i: int, error: str | None = None) -> dict:
    record = {"image": f"{i}.jpg", "sha256": f"{i:064x}", "source": f"/p/{i}.jpg"}
    if error:
        record["error"] = {"code": error, "message": "m"}
    else:
        record["scores"] = {"red": i}
    return record


def _never(record: dict) -> bool:
    return False


def _write(path: Path, records: list[dict]) -> None:
    with ResultsLog.open(path, retry=_never)[0] as log:
        for record in records:
            log.append(record)


def test_append_then_reopen_knows_every_photo(tmp_path: Path) -> None:
    path = tmp_path / "out" / "results.jsonl"
    _write(path, [_record(1), _record(2, "unreadable_image")])
    log, report = ResultsLog.open(path, retry=_never)
    with log:
        assert f"{1:064x}" in log and f"{2:064x}" in log and f"{3:064x}" not in log
        assert report.kept == 2 and report.truncated_bytes == 0
    assert read_records(path) == [_record(1), _record(2, "unreadable_image")]


def test_partial_last_line_is_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, [_record(1), _record(2)])
    data = path.read_bytes()
    path.write_bytes(data[:-20])  # killed in the middle of writing record 2
    log, report = ResultsLog.open(path, retry=_never)
    with log:
        assert report.truncated_bytes > 0
        assert f"{2:064x}" not in log
        log.append(_record(2))
    assert read_records(path) == [_record(1), _record(2)]
    assert path.read_bytes() == data


def test_whole_last_record_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, [_record(1), _record(2)])
    path.write_bytes(path.read_bytes()[:-1])
    log, report = ResultsLog.open(path, retry=_never)
    log.close()
    assert report.kept == 2 and report.truncated_bytes == 0
    assert path.read_bytes().endswith(b"}\n")


def test_unparseable_middle_line_is_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_record(1)) + "\nnot json\n" + json.dumps(_record(2)) + "\n")
    log, report = ResultsLog.open(path, retry=_never)
    log.close()
    assert report.bad_lines == [2] and report.kept == 2


def test_records_to_retry_are_removed_atomically(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    _write(path, [_record(1), _record(2, "worker_crashed"), _record(3, "no_game_found")])
    nosha = {
        "image": "gone.jpg",
        "sha256": None,
        "source": "/p/gone.jpg",
        "error": {"code": "photo_missing", "message": "m"},
    }
    _write(path, [nosha])

    def retry(record: dict) -> bool:
        return record.get("error", {}).get("code") == "worker_crashed"

    log, report = ResultsLog.open(path, retry=retry)
    with log:
        assert report.removed_for_retry == 2  # the crash, and the file that had no hash
        assert f"{2:064x}" not in log and f"{3:064x}" in log
        log.append(_record(2))  # still the locked, live file after the rewrite
    assert [r["image"] for r in read_records(path)] == ["1.jpg", "3.jpg", "2.jpg"]
    assert not list(tmp_path.glob("*.tmp"))


def test_second_writer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    log, _ = ResultsLog.open(path, retry=_never)
    with log, pytest.raises(ResultsLogError, match="another batch run"):
        ResultsLog.open(path, retry=_never)


def test_not_strict_json_is_refused(tmp_path: Path) -> None:
    log, _ = ResultsLog.open(tmp_path / "r.jsonl", retry=_never)
    with log, pytest.raises(ValueError):
        log.append({**_record(1), "confidence": float("nan")})
    assert (tmp_path / "r.jsonl").read_bytes() == b""
