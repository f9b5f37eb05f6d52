"""A self-contained HTML report of a batch: one table row per photo, thumbnails embedded.

The file needs nothing else to open in a browser: thumbnails of the annotated photos are
embedded as base64 ``data:`` URIs, styles are inline. Every text taken from the results is
HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image

from games.beer_pretzels.catalogue import load_catalogue

#: Swatch of a colour the bundled catalogue does not know.
_UNKNOWN_SWATCH_RGB = (90, 90, 90)

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ddd; padding: 6px 10px; text-align: left;
         vertical-align: middle; }
th { background: #f4f4f4; }
img { display: block; max-width: 320px; max-height: 320px; }
.money { display: inline-block; margin: 2px 4px; padding: 2px 8px; border-radius: 10px;
         color: #fff; font-weight: 600; }
.error { color: #b00020; }
.warn { color: #8a5a00; font-size: 0.9em; }
.summary span { margin-right: 1.5em; }
"""


@dataclass(frozen=True)
class ReportTotals:
    """Figures for the report's header: photos and errors in the output, mean worker seconds
    per photo of the run that wrote the report (None when it scored nothing)."""

    photos: int
    errors: int
    mean_seconds_per_photo: float | None


def thumbnail_jpeg(jpeg: bytes, long_side_px: int, quality: int = 75) -> bytes:
    """A JPEG of the image in ``jpeg`` scaled so its long side is at most ``long_side_px``."""
    with Image.open(io.BytesIO(jpeg)) as image:
        image.draft("RGB", (long_side_px, long_side_px))  # DCT-domain downscale: fast
        small = image.convert("RGB")
        small.thumbnail((long_side_px, long_side_px), Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        small.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def render_html_report(
    records: list[dict[str, Any]], thumbnails: dict[str, bytes], totals: ReportTotals
) -> str:
    """The report page for ``records`` (sorted by photo name); ``thumbnails``: JPEG bytes by
    the photo's ``sha256``."""
    mean = totals.mean_seconds_per_photo
    header = (
        f"<span>{totals.photos} photos</span>"
        f"<span>{totals.photos - totals.errors} scored</span>"
        f"<span>{totals.errors} errors</span>"
        + (f"<span>{mean:.2f} s per photo (this run)</span>" if mean is not None else "")
    )
    rows = "\n".join(
        _row(record, thumbnails.get(record.get("sha256") or ""))
        for record in sorted(records, key=lambda r: r["image"])
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<title>tablescore batch report</title>"
        f"<style>{_STYLE}</style></head><body>\n"
        "<h1>Beer &amp; Pretzels: batch report</h1>\n"
        f"<p class='summary'>{header}</p>\n"
        "<table><thead><tr><th>annotated photo</th><th>photo</th>"
        "<th>money per player</th><th>notes</th></tr></thead><tbody>\n"
        f"{rows}\n</tbody></table>\n</body></html>\n"
    )


def write_html_report(
    records: list[dict[str, Any]],
    thumbnails: dict[str, bytes],
    path: str | os.PathLike[str],
    totals: ReportTotals,
) -> None:
    """Write :func:`render_html_report` to ``path`` (UTF-8; replaced atomically)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(render_html_report(records, thumbnails, totals), encoding="utf-8")
    os.replace(temporary, path)


def _row(record: dict[str, Any], thumbnail: bytes | None) -> str:
    name = html.escape(record["image"])
    if thumbnail is not None:
        data = base64.b64encode(thumbnail).decode("ascii")
        picture = f"<img src='data:image/jpeg;base64,{data}' alt='{name}'>"
    else:
        picture = ""
    error = record.get("error")
    if error:
        money = ""
        notes = (
            f"<span class='error'>{html.escape(error['code'])}: "
            f"{html.escape(error['message'])}</span>"
        )
    else:
        money = " ".join(_money(colour, value) for colour, value in record["scores"].items())
        money = money or "no player"
        notes = "<br>".join(
            f"<span class='warn'>{html.escape(w)}</span>" for w in record.get("warnings", [])
        )
    return f"<tr><td>{picture}</td><td>{name}</td><td>{money}</td><td>{notes}</td></tr>"


@cache
def _swatches() -> dict[str, tuple[int, int, int]]:
    """Printed RGB of each player colour of the bundled catalogue."""
    return {colour.name: colour.rgb for colour in load_catalogue().colors}


def _money(colour: str, value: int) -> str:
    r, g, b = _swatches().get(colour, _UNKNOWN_SWATCH_RGB)
    return (
        f"<span class='money' style='background: rgb({r}, {g}, {b})'>"
        f"{html.escape(colour)} ${int(value)}</span>"
    )
