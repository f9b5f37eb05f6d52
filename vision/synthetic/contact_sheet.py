"""A contact sheet of synthetic photos: a grid of downscaled photos with a caption each; every
second photo also shows its labels (item outlines: green counted, red not counted, grey face-down
coaster; the boundary's centre line in magenta), to show that they sit where the render put
things."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.synthetic.generate import Sample


def contact_sheet(samples: list[Sample], columns: int = 4, tile_width_px: int = 400) -> np.ndarray:
    """Grid of the samples' photos (RGB uint8), captioned with difficulty and scores; the labels
    are drawn over every second photo."""
    if not samples:
        raise ValueError("a contact sheet needs at least one sample")
    tiles = []
    tile_h = tile_width_px * 3 // 4
    for n, sample in enumerate(samples):
        img = sample.image_rgb
        scale = min(tile_width_px / img.shape[1], tile_h / img.shape[0])
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if n % 2 == 1:
            _draw_labels(small, sample.labels, scale)
        tile = np.full((tile_h, tile_width_px, 3), 24, np.uint8)
        y0 = (tile_h - small.shape[0]) // 2
        x0 = (tile_width_px - small.shape[1]) // 2
        tile[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        scores = " ".join(f"{c} {m}" for c, m in sample.labels["scores"].items())
        shown = " (labels)" if n % 2 == 1 else ""
        caption = f"{sample.name} {sample.labels['difficulty']}{shown}: {scores}"
        cv2.rectangle(tile, (0, tile_h - 20), (tile_width_px, tile_h), (0, 0, 0), -1)
        cv2.putText(
            tile,
            caption,
            (6, tile_h - 6),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
        tiles.append(tile)
    while len(tiles) % columns:
        tiles.append(np.full_like(tiles[0], 24))
    rows = [np.hstack(tiles[i : i + columns]) for i in range(0, len(tiles), columns)]
    return np.vstack(rows)


def _draw_labels(tile_rgb: np.ndarray, labels: dict, scale: float) -> None:
    """Item outlines and the boundary of ``labels`` on a photo downscaled by ``scale``."""

    def pts(points) -> np.ndarray:
        return np.round(np.asarray(points) * scale * 16).astype(np.int32)

    cv2.polylines(tile_rgb, [pts(labels["boundary_px"])], True, (255, 0, 255), 1, cv2.LINE_AA, 4)
    for item in labels["items"]:
        if item["face"] == "down" and item["kind"] == "coaster":
            colour = (150, 150, 150)
        else:
            colour = (40, 230, 60) if item["counted"] else (255, 40, 40)
        cv2.polylines(tile_rgb, [pts(item["polygon_px"])], True, colour, 1, cv2.LINE_AA, 4)


def save_contact_sheet(sheet_rgb: np.ndarray, path: str | Path) -> Path:
    """Save as a palette PNG (256 colours keeps a photo grid well under 1 MB)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet_rgb).quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
        out, optimize=True
    )
    return out
