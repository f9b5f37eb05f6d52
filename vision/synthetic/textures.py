"""Procedural table tops and floors: wood, cloth, laminate, dark bar tops, stone.

Textures are generated in the TABLE plane (pixel (i, j) of a texture covers table mm
``[i, i+1) / px_per_mm`` x ``[j, j+1) / px_per_mm``), as RGB float32 in 0..255, with vectorised
numpy/cv2 only (no per-pixel Python).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np


class TableKind(StrEnum):
    WOOD = "wood"
    CLOTH = "cloth"
    LAMINATE = "laminate"
    BARTOP = "bartop"
    STONE = "stone"


@dataclass(frozen=True)
class TableSurface:
    """A table-top texture: ``rgb`` (H, W, 3) float32 0..255 in the table plane, and how glossy
    the surface is (0 = matt cloth, 1 = lacquered bar top; scales lamp glare)."""

    kind: TableKind
    rgb: np.ndarray
    px_per_mm: float
    gloss: float
    tags: tuple[str, ...]


def value_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_px: float, octaves: int = 3
) -> np.ndarray:
    """Smooth fractal noise of ``shape`` (H, W), float32 roughly in -1..1.

    ``cell_px`` is the size of the coarsest noise cell in pixels; each octave halves it.
    """
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    cell = max(cell_px, 1.0)
    for _ in range(octaves):
        gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
        grid = rng.uniform(-1.0, 1.0, (gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        cell /= 2.0
        if cell < 1.0:
            break
    return out / total


def _jitter(rng: np.random.Generator, rgb: tuple[float, float, float], spread: float) -> np.ndarray:
    return np.clip(np.asarray(rgb, np.float32) + rng.normal(0.0, spread, 3), 0, 255)


_WOOD_TONES = (
    (196, 150, 100),  # pine
    (170, 118, 70),  # oak
    (128, 82, 50),  # teak
    (92, 58, 36),  # walnut
    (160, 148, 132),  # grey-washed
    (214, 184, 140),  # birch
)
_CLOTH_TONES = (
    (40, 110, 60),  # green felt
    (150, 30, 40),  # red
    (40, 60, 120),  # navy
    (235, 232, 222),  # white linen
    (200, 185, 150),  # beige
    (120, 120, 125),  # grey
    (70, 40, 80),  # aubergine
)
_LAMINATE_TONES = (
    (236, 236, 232),
    (214, 210, 200),
    (180, 182, 186),
    (200, 220, 215),
    (230, 215, 190),
    (120, 125, 130),
)
_BARTOP_TONES = ((38, 26, 20), (22, 22, 24), (52, 34, 24), (30, 36, 40))
_STONE_TONES = ((220, 218, 212), (90, 90, 92), (160, 150, 140), (40, 40, 44))


def streak_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_x_px: float, cell_y_px: float
) -> np.ndarray:
    """Anisotropic noise stretched along x (grain, brushed streaks), float32 about -1..1."""
    h, w = shape
    gh, gw = max(2, int(h / max(cell_y_px, 1.0)) + 2), max(2, int(w / max(cell_x_px, 1.0)) + 2)
    grid = rng.uniform(-1.0, 1.0, (gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _wood(rng: np.random.Generator, h: int, w: int, px_per_mm: float, base: np.ndarray):
    """Planks along x with streaky grain, ring figure, per-plank tint and dark seams."""
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    plank_px = rng.uniform(70.0, 220.0) * px_per_mm
    plank = (yy / plank_px).astype(np.int32)
    n_planks = int(h / plank_px) + 2
    tint = rng.normal(1.0, 0.07, n_planks).astype(np.float32)[plank]
    warp = value_noise(rng, (h, w), 150 * px_per_mm, 2) * rng.uniform(8.0, 30.0) * px_per_mm
    ring_period = rng.uniform(4.0, 14.0) * px_per_mm
    phase = rng.uniform(0, 500, n_planks).astype(np.float32)[plank]
    rings = np.sin((yy + warp + phase + xx * rng.uniform(0.0, 0.05)) * (2 * np.pi / ring_period))
    streaks = streak_noise(rng, (h, w), 250 * px_per_mm, rng.uniform(0.8, 2.5) * px_per_mm)
    fine = streak_noise(rng, (h, w), 40 * px_per_mm, 0.6 * px_per_mm)
    contrast = rng.uniform(0.12, 0.3)
    shade = tint * (1.0 - contrast + contrast * (0.5 + 0.35 * rings**3 + 0.35 * streaks))
    shade = shade + 0.03 * fine
    seam = np.abs(yy / plank_px - np.round(yy / plank_px)) * plank_px
    shade = shade * np.where(seam < 0.8 * max(px_per_mm, 1.0), 0.6, 1.0).astype(np.float32)
    return shade[..., None] * base


def _cloth(
    rng: np.random.Generator, h: int, w: int, px_per_mm: float, base: np.ndarray, gingham: bool
):
    """Felt or linen with wrinkles; gingham checks when ``gingham``."""
    wrinkles = value_noise(rng, (h, w), 160 * px_per_mm, 3)
    fibre = value_noise(rng, (h, w), max(1.5, 1.0 * px_per_mm), 2)
    shade = 0.92 + 0.07 * wrinkles + 0.05 * fibre
    rgb = shade[..., None] * base
    if gingham:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        check = rng.uniform(10.0, 28.0) * px_per_mm
        bx = (np.floor(xx / check) % 2).astype(np.float32)
        by = (np.floor(yy / check) % 2).astype(np.float32)
        cover = (bx + by) / 2.0  # 0 white, 0.5 tinted, 1 full colour
        white = np.array([240, 238, 232], np.float32)
        rgb = shade[..., None] * (white * (1 - cover[..., None]) + base * cover[..., None])
    return rgb


def _laminate(rng: np.random.Generator, h: int, w: int, px_per_mm: float, base: np.ndarray):
    cloud = value_noise(rng, (h, w), 200 * px_per_mm, 3)
    speck = rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
    speck = cv2.GaussianBlur(speck, (0, 0), 0.6)
    shade = 0.97 + 0.03 * cloud + 0.025 * speck
    return shade[..., None] * base


def _stone(rng: np.random.Generator, h: int, w: int, px_per_mm: float, base: np.ndarray):
    """Granite speckle or marble veins."""
    if rng.random() < 0.5:
        speck = value_noise(rng, (h, w), max(1.5, 2.0 * px_per_mm), 2)
        dots = (rng.random((h, w)) < 0.04).astype(np.float32)
        shade = 0.9 + 0.12 * speck - 0.35 * cv2.GaussianBlur(dots, (0, 0), 0.8)
    else:
        n = value_noise(rng, (h, w), 400 * px_per_mm, 2)
        n = n + 0.15 * value_noise(rng, (h, w), 30 * px_per_mm, 2)
        vein = np.abs(np.sin(n * rng.uniform(4, 9)))
        cloud = value_noise(rng, (h, w), 120 * px_per_mm, 2)
        shade = 0.9 + 0.05 * cloud - 0.25 * np.exp(-vein * rng.uniform(12, 30))
    return shade[..., None] * base


def make_table_surface(
    rng: np.random.Generator,
    kind: TableKind,
    table_mm: tuple[float, float],
    px_per_mm: float,
) -> TableSurface:
    """A ``kind`` table top covering ``table_mm`` (width, height) at ``px_per_mm``."""
    w = max(8, int(np.ceil(table_mm[0] * px_per_mm)))
    h = max(8, int(np.ceil(table_mm[1] * px_per_mm)))
    tags: tuple[str, ...] = (f"table_{kind.value}",)
    if kind is TableKind.WOOD:
        base = _jitter(rng, _WOOD_TONES[int(rng.integers(len(_WOOD_TONES)))], 12)
        rgb, gloss = _wood(rng, h, w, px_per_mm, base), float(rng.uniform(0.2, 0.7))
    elif kind is TableKind.CLOTH:
        base = _jitter(rng, _CLOTH_TONES[int(rng.integers(len(_CLOTH_TONES)))], 10)
        gingham = bool(rng.random() < 0.4)
        rgb, gloss = _cloth(rng, h, w, px_per_mm, base, gingham), 0.0
        if gingham:
            tags = (*tags, "table_gingham")
    elif kind is TableKind.LAMINATE:
        base = _jitter(rng, _LAMINATE_TONES[int(rng.integers(len(_LAMINATE_TONES)))], 8)
        rgb, gloss = _laminate(rng, h, w, px_per_mm, base), float(rng.uniform(0.3, 0.8))
    elif kind is TableKind.BARTOP:
        base = _jitter(rng, _BARTOP_TONES[int(rng.integers(len(_BARTOP_TONES)))], 5)
        maker = _wood if rng.random() < 0.6 else _stone
        rgb, gloss = maker(rng, h, w, px_per_mm, base), float(rng.uniform(0.7, 1.0))
    else:
        base = _jitter(rng, _STONE_TONES[int(rng.integers(len(_STONE_TONES)))], 8)
        rgb, gloss = _stone(rng, h, w, px_per_mm, base), float(rng.uniform(0.4, 0.9))
    return TableSurface(
        kind=kind,
        rgb=np.clip(rgb, 0, 255).astype(np.float32),
        px_per_mm=px_per_mm,
        gloss=gloss,
        tags=tags,
    )


def make_floor(rng: np.random.Generator, size_px: tuple[int, int]) -> np.ndarray:
    """What lies beyond the table edge (a dim, out-of-focus floor), (H, W, 3) float32 0..255."""
    w, h = size_px
    small = (max(4, w // 16), max(4, h // 16))
    base = _jitter(rng, (45, 40, 38), 18) * rng.uniform(0.4, 1.2)
    n = value_noise(rng, (small[1], small[0]), small[0] / 6, 2)
    rgb = (0.8 + 0.25 * n)[..., None] * base
    return cv2.resize(np.clip(rgb, 0, 255).astype(np.float32), (w, h), cv2.INTER_LINEAR)
