"""The CSV summary and the HTML report of a batch."""

from __future__ import annotations

import base64
import csv
import io
import re
from pathlib import Path

from PIL import Image

from vision.batch.csv_summary import write_csv_summary
from vision.batch.html_report import ReportTotals, thumbnail_jpeg, write_html_report

RECORDS = [
    {"image": "b.jpg", "sha256": "bb", "scores": {"red": 10, "blue": 0}, "warnings": []},
    {"image": "a<x>.jpg", "sha256": "aa", "error": {"code": "no_game_found", "message": "<none>"}},
    {"image": "c.jpg", "sha256": "cc", "scores": {}, "warnings": ["a glass covers an icon"]},
]


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 40)).save(buffer, format="JPEG")
    return buffer.getvalue()


def test_csv_one_row_per_player_errors_and_empty_photos_listed(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "results.csv"
    write_csv_summary(RECORDS, path)
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows == [
        ["photo", "colour", "money", "error"],
        ["a<x>.jpg", "", "", "no_game_found"],
        ["b.jpg", "red", "10", ""],
        ["b.jpg", "blue", "0", ""],
        ["c.jpg", "", "", ""],
    ]


def test_thumbnail_keeps_aspect_and_bounds_long_side() -> None:
    with Image.open(io.BytesIO(thumbnail_jpeg(_jpeg(2000, 1500), 320))) as small:
        assert small.format == "JPEG" and small.size == (320, 240)


def test_html_report_is_self_contained_and_escaped(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    totals = ReportTotals(photos=3, errors=1, mean_seconds_per_photo=1.25)
    write_html_report(RECORDS, {"bb": _jpeg(64, 48)}, path, totals)
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    images = re.findall(r"src='data:image/jpeg;base64,([A-Za-z0-9+/=]+)'", page)
    assert len(images) == 1
    assert Image.open(io.BytesIO(base64.b64decode(images[0]))).size == (64, 48)
    assert "red $10" in page and "blue $0" in page
    assert "a&lt;x&gt;.jpg" in page and "&lt;none&gt;" in page and "<none>" not in page
    assert "a glass covers an icon" in page
    assert "1.25 s per photo" in page
    assert "http://" not in page and "https://" not in page  # nothing fetched when opened
    # rows sorted by photo name
    assert page.index("a&lt;x&gt;.jpg") < page.index("b.jpg") < page.index("c.jpg")
