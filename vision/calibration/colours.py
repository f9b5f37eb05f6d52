"""Colours under one table's light: fit the scorer's colour model from a photo of the coasters.

How the scorer tells colours (:func:`vision.identify.identify`): every colour of a side is its
art; a photo's light is measured as per-channel gains on the pixels all colours print alike
(cream, paper, black), and an item's colour is the one whose art, times those gains, best
explains the *telling* pixels (where the colours' arts differ). So the colour model is the art's
telling pixels: when a set's inks look different under a table's light than in the art (a
camera's colour response, a photographed catalogue), colours get confused.

:func:`fit_colours` takes items of known colour (from :func:`find_items`, confirmed by the
person in the :class:`ItemColourRow` table), and fits per colour an affine colour map
(3 x 4) from the art's telling pixels to the observed ones (light removed); :func:`write_fitted`
writes a catalogue copy whose art has those pixels re-coloured (neutral print unchanged, so the
light is still measured the same way). :func:`colour_confusion` compares catalogues on photos.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind, load_catalogue
from vision.art import ArtLibrary, Side, art_library
from vision.detect import CanvasView, coarse_table_plane, detect_sides, rectify
from vision.identify import IdentifiedItem, identify, item_box, render, visible_mask
from vision.load import load_photo, working_to_displayed_px
from vision.plane import TablePlane

#: A pixel tells colours apart when the colours' arts differ by more than this (levels).
TELLING_SPREAD = 60.0
#: Pixels printed alike in every colour differ by less than this (levels).
NEUTRAL_SPREAD = 12.0
#: Fewest telling pixels per colour for a fit.
MIN_SAMPLES = 300


@dataclass(frozen=True)
class FoundItem:
    """An item found in a photo, with the pixels its colour is told from.

    ``art_by_color``: per colour name, (N, 3) float32 BGR of the art's telling pixels rendered at
    the item's pose; ``observed``: (N, 3) the photo's pixels there divided by the light gains
    (so comparable with the art).
    """

    item: IdentifiedItem
    art_by_color: dict[str, np.ndarray] = field(repr=False)
    observed: np.ndarray = field(repr=False)


@dataclass
class ItemColourRow:
    """One found item; confirm or correct ``color`` (the scorer's guess is ``detected``).
    ``center_px``: where the item is in the photo (working px)."""

    item: int
    side: str
    detected: str
    color: str
    margin: float
    center_px: tuple[float, float]


@dataclass(frozen=True)
class ColourScene:
    """Items found in one photo (rectified ``view`` of ``plane``) with their colour samples."""

    view: CanvasView
    plane: TablePlane
    items: list[FoundItem]
    working_to_displayed: float = 1.0

    def center_px(self, k: int) -> tuple[float, float]:
        """Item ``k``'s centre in the photo as displayed (px)."""
        centre = self.plane.table_to_image(np.array([self.items[k].item.pose.center_mm]))
        x, y = working_to_displayed_px(centre, self.working_to_displayed)[0]
        return (float(x), float(y))

    def rows(self) -> list[ItemColourRow]:
        """The table the person confirms (detected colour proposed)."""
        return [
            ItemColourRow(
                k,
                f.item.side.label,
                f.item.color,
                f.item.color,
                round(f.item.color_margin, 3),
                tuple(round(v, 1) for v in self.center_px(k)),
            )
            for k, f in enumerate(self.items)
        ]

    def rows_from_labels(
        self, labels: list[tuple[tuple[float, float], str]], radius_px: float = 60.0
    ) -> list[ItemColourRow]:
        """Rows confirmed from known labels ((centre px as displayed, colour) per item, e.g.
        of a synthetic photo): each found item takes the colour of the nearest label within
        ``radius_px``; items without one are left out."""
        rows = []
        for row in self.rows():
            near = [
                (np.hypot(x - row.center_px[0], y - row.center_px[1]), color)
                for (x, y), color in labels
            ]
            distance, color = min(near) if near else (np.inf, "")
            if distance <= radius_px:
                row.color = color
                rows.append(row)
        return rows


def find_items(photo: str | os.PathLike | bytes, catalogue: Catalogue) -> ColourScene:
    """Find every item side in ``photo`` with the scorer's stages and sample its colours."""
    library = art_library(catalogue)
    loaded = load_photo(photo)
    image = loaded.image_bgr
    h, w = image.shape[:2]
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    found = []
    for d in detect_sides(view, library):
        item = identify(library, view, d.side, d.pose, d.points_local_mm)
        sampled = _sample(library, view, item)
        if sampled is not None:
            found.append(sampled)
    return ColourScene(view, plane, found, loaded.working_to_displayed)


def _sample(library: ArtLibrary, view: CanvasView, item: IdentifiedItem) -> FoundItem | None:
    box = item_box(view, item.side, item.pose)
    x0, y0, x1, y1 = box
    observed = view.image_bgr[y0:y1, x0:x1].astype(np.float32)
    arts = {
        c: render(library, view, item.side, c, item.pose, box).bgr
        for c in library.catalogue.color_names
    }
    alpha = render(library, view, item.side, item.color, item.pose, box).alpha
    stack = np.stack(list(arts.values()))
    spread = (stack.max(axis=0) - stack.min(axis=0)).max(axis=2)
    near = visible_mask(view, box, item.pose, item.points_local_mm) & (alpha > 0.99)
    telling = near & (spread > TELLING_SPREAD)
    if telling.sum() < 20:
        return None
    gains = np.maximum(item.gains, 1e-3)
    return FoundItem(
        item=item,
        art_by_color={c: a[telling] for c, a in arts.items()},
        observed=observed[telling] / gains,
    )


@dataclass(frozen=True)
class ColourMap:
    """Affine map of one colour's art pixels to how they look under the fitted light:
    ``bgr' = matrix @ [b, g, r, 1]`` (levels), fitted on ``samples`` pixels, ``rms`` levels."""

    matrix: np.ndarray
    samples: int
    rms: float

    def apply(self, bgr: np.ndarray) -> np.ndarray:
        flat = bgr.reshape(-1, 3).astype(np.float32)
        out = np.column_stack([flat, np.ones(len(flat), np.float32)]) @ self.matrix.T
        return out.reshape(bgr.shape)


def fit_colours(scenes: list[ColourScene], rows: list[list[ItemColourRow]]) -> dict[str, ColourMap]:
    """Per colour, the affine map from its art's telling pixels to the observed ones, fitted on
    every item confirmed as that colour (``rows[k]`` confirms ``scenes[k]``); colours with too
    few pixels are left out (their art stays as it is). Trimmed least squares (two rounds)."""
    pairs: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for scene, confirmed in zip(scenes, rows, strict=True):
        for row in confirmed:
            found = scene.items[row.item]
            if row.color not in found.art_by_color:
                raise ValueError(f"item {row.item}: unknown colour {row.color!r}")
            art, obs = pairs.setdefault(row.color, ([], []))
            art.append(found.art_by_color[row.color])
            obs.append(found.observed)
    maps = {}
    for color, (art_parts, obs_parts) in pairs.items():
        art, obs = np.concatenate(art_parts), np.concatenate(obs_parts)
        if len(art) < MIN_SAMPLES:
            continue
        design = np.column_stack([art, np.ones(len(art), np.float32)]).astype(np.float64)
        keep = np.ones(len(art), bool)
        identity = np.hstack([np.eye(3), np.zeros((3, 1))])
        for _ in range(2):
            matrix = _ridge(design[keep], obs[keep].astype(np.float64), identity)
            residual = np.linalg.norm(design @ matrix.T - obs, axis=1)
            keep = residual <= np.percentile(residual, 80)
        rms = float(np.sqrt(np.mean(residual[keep] ** 2)))
        maps[color] = ColourMap(matrix.astype(np.float32), int(keep.sum()), rms)
    return maps


#: Pull of the colour maps towards "no change" (share of the data's weight).
RIDGE = 0.05


def _ridge(design: np.ndarray, target: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """(3, 4) least-squares map design -> target, pulled towards ``prior`` (few or noisy
    pixels, e.g. slightly misplaced art, must not turn a colour into something else)."""
    gram = design.T @ design
    lam = RIDGE * np.trace(gram) / gram.shape[0]
    solution = np.linalg.solve(gram + lam * np.eye(4), design.T @ target + lam * prior.T)
    return solution.T


def write_fitted(catalogue: Catalogue, maps: dict[str, ColourMap], out_dir: str | Path) -> Path:
    """A copy of ``catalogue`` in ``out_dir`` whose art has the telling pixels of each fitted
    colour re-coloured by its map (blended in by how much the pixel tells colours apart) and
    whose ``rgb`` values are mapped likewise; returns the folder."""
    out = Path(out_dir)
    if out.resolve() == catalogue.root.resolve():
        raise ValueError("write the fitted catalogue to a new folder, not over the original")
    out.mkdir(parents=True, exist_ok=True)
    raw = json.loads((catalogue.root / "components.json").read_text(encoding="utf-8"))
    library = art_library(catalogue)
    done: set[Path] = set()
    for side in library.sides:
        for type_name in _types_of(catalogue, side):
            paths = {
                c: catalogue.art_path(side.kind, c, type_name, side.face)
                for c in catalogue.color_names
            }
            arts = {c: cv2.imread(str(p), cv2.IMREAD_UNCHANGED) for c, p in paths.items()}
            if any(a is None for a in arts.values()):
                raise FileNotFoundError(f"art of {side.label} is missing in {catalogue.root}")
            stack = np.stack([a[:, :, :3].astype(np.float32) for a in arts.values()])
            spread = (stack.max(axis=0) - stack.min(axis=0)).max(axis=2)
            weight = np.clip((spread - NEUTRAL_SPREAD) / (TELLING_SPREAD - NEUTRAL_SPREAD), 0, 1)
            for color, art in arts.items():
                target = out / paths[color].relative_to(catalogue.root)
                target.parent.mkdir(parents=True, exist_ok=True)
                if color in maps:
                    bgr = art[:, :, :3].astype(np.float32)
                    mapped = maps[color].apply(bgr)
                    w = weight[:, :, None]
                    art = art.copy()
                    art[:, :, :3] = np.clip(bgr * (1 - w) + mapped * w, 0, 255).astype(np.uint8)
                    cv2.imwrite(str(target), art, [cv2.IMWRITE_PNG_COMPRESSION, 3])
                elif paths[color] not in done:
                    shutil.copyfile(paths[color], target)
                done.add(paths[color])
    for entry in raw["colors"]:
        if entry["name"] in maps:
            bgr = np.array(entry["rgb"][::-1], np.float32)[None, None]
            mapped = np.clip(maps[entry["name"]].apply(bgr)[0, 0], 0, 255)
            entry["rgb"] = [int(v) for v in np.rint(mapped[::-1])]
    raw["name"] = f"{raw['name']}-light-fitted"
    (out / "components.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return load_catalogue(out).root


def _types_of(catalogue: Catalogue, side: Side) -> list[str | None]:
    """Coaster types whose art files show ``side`` (a back is stored once per type)."""
    if side.kind is ItemKind.NAPKIN:
        return [None]
    if side.face is Face.UP:
        return [side.type_name]
    return [t.type for t in catalogue.coaster_types if t.shape == side.shape]


def colour_confusion(
    scenes: list[ColourScene], rows: list[list[ItemColourRow]], catalogue: Catalogue
) -> tuple[list[str], np.ndarray]:
    """Colour names and the (C, C) confusion (true row, decided column) when ``catalogue``'s
    colour model decides each confirmed item: the item's telling pixels against each colour's
    art (rendered from ``catalogue`` at the same pose), light removed as the scorer does."""
    names = list(catalogue.color_names)
    library = art_library(catalogue)
    matrix = np.zeros((len(names), len(names)), int)
    for scene, confirmed in zip(scenes, rows, strict=True):
        for row in confirmed:
            found = scene.items[row.item]
            decided = decide_colour(library, scene.view, found)
            matrix[names.index(row.color), names.index(decided)] += 1
    return names, matrix


def decide_colour(library: ArtLibrary, view: CanvasView, found: FoundItem) -> str:
    """The colour the scorer decides for ``found`` with ``library``'s art."""
    item = found.item
    return identify(library, view, item.side, item.pose, item.points_local_mm).color


def cluster_points(scenes: list[ColourScene], rows: list[list[ItemColourRow]]):
    """For a scatter of the colour clusters: per confirmed item its mean observed telling colour
    (light removed) as (x, y) chromaticity ``(r / (r+g+b), g / (r+g+b))`` and its colour name."""
    points, names = [], []
    for scene, confirmed in zip(scenes, rows, strict=True):
        for row in confirmed:
            b, g, r = scene.items[row.item].observed.mean(axis=0)
            total = max(float(r + g + b), 1e-6)
            points.append((float(r) / total, float(g) / total))
            names.append(row.color)
    return np.array(points).reshape(-1, 2), names


def art_chromaticity(catalogue: Catalogue) -> dict[str, tuple[float, float]]:
    """Per colour the chromaticity ``(r, g)`` of its catalogue ``rgb`` (for the same plot)."""
    out = {}
    for c in catalogue.colors:
        r, g, b = (float(v) for v in c.rgb)
        total = max(r + g + b, 1e-6)
        out[c.name] = (r / total, g / total)
    return out
