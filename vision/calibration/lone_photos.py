"""Synthetic calibration photos: one item lying alone, flat on a table, photographed by a phone.

Uses the synthetic renderer (:func:`vision.synthetic.render.render_photo`) with a round that
holds one item and no visible string (the renderer's loop is laid, tiny, under the item), so a
photo looks like what a person takes for the calibration notebook: random table, light, camera
angle (the ``easy`` camera: tilt <= 18 degrees) and lens. File names follow
:func:`vision.calibration.coaster_set.side_photo_name`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.scene import PlacedItem, Scene
from vision.calibration.coaster_set import SideKey, side_photo_name, sides_to_photograph
from vision.synthetic.generate import encode_jpeg
from vision.synthetic.render import render_photo
from vision.synthetic.scene_sampler import Difficulty, Landing, SampledRound
from vision.synthetic.style import sample_look

#: Table size around the lone item (mm) and where the item lies on it: a small table keeps every
#: object the renderer scatters on it (crumbs, glasses) in front of a close-up camera.
_TABLE_MM = (400.0, 400.0)
_CENTRE_MM = (200.0, 200.0)
#: Radius of the hidden loop under the item (mm).
_HIDDEN_LOOP_MM = 12.0


def photograph_side(
    rng: np.random.Generator,
    catalogue: Catalogue,
    side: SideKey,
    size_px: tuple[int, int] = (1600, 1200),
) -> np.ndarray:
    """A synthetic photo (H, W, 3) uint8 RGB of ``side`` lying alone at a random angle."""
    kind = ItemKind(side.kind)
    shape = catalogue.item_shape(kind, side.type_name)
    thickness = (
        catalogue.coaster_thickness_mm
        if kind is ItemKind.COASTER
        else catalogue.napkin.thickness_mm
    )
    item = PlacedItem(
        kind=kind,
        color=side.color,
        type=side.type_name,
        face=side.up_or_down,
        center_mm=_CENTRE_MM,
        angle_deg=float(rng.uniform(0.0, 360.0)),
        z=0,
        back_shape=shape.kind if side.up_or_down is Face.DOWN else None,
    )
    t = np.linspace(0.0, 2 * np.pi, 16, endpoint=False)
    loop = np.stack(
        [_CENTRE_MM[0] + _HIDDEN_LOOP_MM * np.cos(t), _CENTRE_MM[1] + _HIDDEN_LOOP_MM * np.sin(t)],
        axis=1,
    )
    round_ = SampledRound(
        scene=Scene(boundary_mm=tuple(map(tuple, loop.tolist())), items=(item,)),
        players=(side.color,),
        table_mm=_TABLE_MM,
        heights_mm=(thickness,),
        landings=(Landing.INSIDE,),
        difficulty=Difficulty.EASY,
        tags=(),
    )
    look = sample_look(rng, Difficulty.EASY)
    return render_photo(rng, round_, catalogue, size_px, look).image_rgb


def write_side_photos(
    catalogue: Catalogue,
    out_dir: str | Path,
    *,
    photos_per_side: int = 2,
    seed: int = 0,
    sides: list[SideKey] | None = None,
    size_px: tuple[int, int] = (1600, 1200),
    jpeg_quality: int = 92,
    keep_existing: bool = False,
) -> list[Path]:
    """Photograph every side of ``catalogue`` (or ``sides``) ``photos_per_side`` times into
    ``out_dir`` as JPEGs named for :func:`vision.calibration.coaster_set.find_side_photos`.
    ``keep_existing``: photos already there are kept (resuming an interrupted run)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for n, side in enumerate(sides if sides is not None else sides_to_photograph(catalogue)):
        for k in range(photos_per_side):
            path = out / side_photo_name(side, k + 1)
            if not (keep_existing and path.is_file()):
                rng = np.random.default_rng(np.random.SeedSequence((seed, n, k)))
                image = photograph_side(rng, catalogue, side, size_px)
                path.write_bytes(encode_jpeg(image, jpeg_quality))
            written.append(path)
    return written


#: Spacing of the items laid out for the all-coasters photo (mm, centre to centre).
_GRID_STEP_MM = 150.0


def photograph_all(
    rng: np.random.Generator,
    catalogue: Catalogue,
    size_px: tuple[int, int] = (1600, 1200),
    napkins: bool = True,
) -> tuple[np.ndarray, list[tuple[tuple[float, float], str]]]:
    """A synthetic photo (H, W, 3) uint8 RGB of every coaster face up (and every napkin),
    laid out apart in a grid (a row per colour) at random angles, and each item's label:
    (centre in photo px, colour name)."""
    items: list[PlacedItem] = []
    for row, color in enumerate(catalogue.color_names):
        kinds = [(ItemKind.COASTER, t) for t in catalogue.type_names]
        kinds += [(ItemKind.NAPKIN, None)] if napkins else []
        for col, (kind, type_name) in enumerate(kinds):
            centre = (200.0 + col * _GRID_STEP_MM, 200.0 + row * _GRID_STEP_MM)
            items.append(
                PlacedItem(
                    kind=kind,
                    color=color,
                    type=type_name,
                    face=Face.UP,
                    center_mm=centre,
                    angle_deg=float(rng.uniform(0.0, 360.0)),
                    z=len(items),
                )
            )
    first = items[0].center_mm
    t = np.linspace(0.0, 2 * np.pi, 16, endpoint=False)
    loop = np.stack(
        [first[0] + _HIDDEN_LOOP_MM * np.cos(t), first[1] + _HIDDEN_LOOP_MM * np.sin(t)], axis=1
    )
    span = np.array([it.center_mm for it in items]).max(axis=0) + 200.0
    heights = tuple(
        catalogue.coaster_thickness_mm
        if it.kind is ItemKind.COASTER
        else catalogue.napkin.thickness_mm
        for it in items
    )
    round_ = SampledRound(
        scene=Scene(boundary_mm=tuple(map(tuple, loop.tolist())), items=tuple(items)),
        players=tuple(catalogue.color_names),
        table_mm=(float(span[0]), float(span[1])),
        heights_mm=heights,
        landings=tuple(Landing.INSIDE for _ in items),
        difficulty=Difficulty.EASY,
        tags=(),
    )
    look = sample_look(rng, Difficulty.EASY)
    photo = render_photo(rng, round_, catalogue, size_px, look)
    labels = []
    for item, height in zip(items, heights, strict=True):
        x, y = photo.camera.project(np.array([item.center_mm]), height)[0]
        labels.append(((float(x), float(y)), item.color))
    return photo.image_rgb, labels
