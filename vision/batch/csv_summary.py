"""The batch's CSV summary: one row per player per photo (photo, colour, money, error)."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

CSV_COLUMNS = ("photo", "colour", "money", "error")


def summary_rows(records: list[dict[str, Any]]) -> list[dict[str, str | int]]:
    """Rows for ``records`` (contract or error records), sorted by photo name.

    A scored photo gives one row per colour in its ``scores`` (money in dollars), in the
    contract's order; a photo with no player, or one that could not be scored, gives one row
    with empty colour and money (and the error code).
    """
    rows: list[dict[str, str | int]] = []
    for record in sorted(records, key=lambda r: r["image"]):
        error = record.get("error")
        scores: dict[str, int] = {} if error else record.get("scores", {})
        if not scores:
            code = error["code"] if error else ""
            rows.append({"photo": record["image"], "colour": "", "money": "", "error": code})
        for colour, money in scores.items():
            rows.append({"photo": record["image"], "colour": colour, "money": money, "error": ""})
    return rows


def write_csv_summary(records: list[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write :func:`summary_rows` of ``records`` to ``path`` (UTF-8, header row first)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(summary_rows(records))
    os.replace(temporary, path)
