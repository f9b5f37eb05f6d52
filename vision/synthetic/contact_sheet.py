"""A contact sheet of synthetic photos: a grid of downscaled photos with a caption each."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.synthetic.generate import Sample


def contact_sheet(samples: list[Sample], columns: int = 4, tile_width_px: int = 400) -> np.ndarray:
    """Grid of the samples' photos (RGB uint8), each captioned with difficulty and scores."""
    if not samples:
        raise ValueError("a contact sheet needs at least one sample")
    tiles = []
    tile_h = tile_width_px * 3 // 4
    for sample in samples:
        img = sample.image_rgb
        scale = min(tile_width_px / img.shape[1], tile_h / img.shape[0])
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        tile = np.full((tile_h, tile_width_px, 3), 24, np.uint8)
        y0 = (tile_h - small.shape[0]) // 2
        x0 = (tile_width_px - small.shape[1]) // 2
        tile[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        scores = " ".join(f"{c} {m}" for c, m in sample.labels["scores"].items())
        caption = f"{sample.name} {sample.labels['difficulty']}: {scores}"
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


def save_contact_sheet(sheet_rgb: np.ndarray, path: str | Path) -> Path:
    """Save as a palette PNG (256 colours keeps a photo grid well under 1 MB)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet_rgb).quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
        out, optimize=True
    )
    return out
