"""Which item lies above which: decided from the pixels where items overlap.

Where two items overlap, the photo shows the upper one. Each item's art, rendered at its pose in
its colour with its light gains (:class:`vision.identify.IdentifiedItem`), predicts those pixels;
per pixel the item whose art explains it best is taken to be on top there (a third item lying
over both simply wins those pixels and gives no vote). The votes of each overlapping pair give a
directed "lies below" graph; a stacking order consistent with it (cycles broken at the weakest
evidence) gives every item its ``z``.

All in the rectified view's pixels (:class:`vision.detect.CanvasView`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.detect import CanvasView
from vision.hidden import Placement
from vision.identify import IdentifiedItem, as_seen

#: Overlaps smaller than this (mm^2) are not judged (too few pixels, all near edges).
MIN_OVERLAP_MM2 = 15.0
#: Pixels this close to an item's outline (mm) are left out of the votes (edges, shadows).
EDGE_MARGIN_MM = 1.5
#: A pixel's vote for the item whose art explains it better is the two arts' difference in error
#: over this many levels (summed BGR), at most a whole vote: where both explain it about as well
#: (paper beside paper, a print where the other's is alike, noise), it says little.
FULL_VOTE_LEVELS = 30.0


@dataclass(frozen=True)
class PairOrder:
    """The judged overlap of items ``lower`` and ``upper`` (indices): ``confidence`` in [0, 1]."""

    lower: int
    upper: int
    confidence: float
    pixels: int


@dataclass(frozen=True)
class Stacking:
    """``z[i]``: the stacking rank of item i (0 lowest); ``pairs``: the judged overlaps."""

    z: list[int]
    pairs: list[PairOrder]


def item_polygon_table_mm(item: Placement) -> Polygon:
    """The item's full outline in table mm."""
    local = np.asarray(item.side.shape.polygon_mm.exterior.coords)[:-1]
    return Polygon(item.pose.local_to_table(local))


def outlines_mask(
    view: CanvasView,
    items: Sequence[Placement],
    box: tuple[int, int, int, int],
    margin_mm: float,
) -> np.ndarray:
    """Mask of the canvas ``box`` (x0, y0, x1, y1): inside, or within ``margin_mm`` of, any of
    ``items``' full outlines."""
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for other in items:
        outline = np.asarray(item_polygon_table_mm(other).exterior.coords)
        px = view.table_to_canvas(outline) - (x0, y0)
        cv2.fillPoly(mask, [np.round(px).astype(np.int32)], 1)
    margin = max(1, round(margin_mm * view.px_per_mm))
    mask = cv2.dilate(mask, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    return mask > 0


def _error_map(view: CanvasView, item: IdentifiedItem) -> np.ndarray:
    """Per-pixel L1 error (summed BGR levels) of the item's art as the camera saw it
    (:func:`vision.identify.as_seen`) over its box; inf outside it. Sharp art against a blurred
    photo errs most on the item's own fine print, so that a neighbour's plain colour could
    explain its pixels better (held-out 48-95 0051: a soft coaster over a triple, 1.5 mm out
    of focus, read below it)."""
    observed, predicted = as_seen(view, item)
    err = np.abs(observed - predicted).sum(axis=2)
    err[item.rendering.alpha < 0.99] = np.inf
    return err


def stacking_order(view: CanvasView, items: list[IdentifiedItem]) -> Stacking:
    """Stacking ranks of ``items`` from the evidence in their overlaps."""
    n = len(items)
    polygons = [item_polygon_table_mm(it) for it in items]
    errors = [_error_map(view, it) for it in items]
    tree = shapely.STRtree(polygons)
    pairs: list[PairOrder] = []
    for i, j in zip(*tree.query(polygons, predicate="intersects"), strict=True):
        if i >= j:
            continue
        overlap = polygons[i].intersection(polygons[j]).buffer(-EDGE_MARGIN_MM)
        if overlap.is_empty or overlap.area < MIN_OVERLAP_MM2:
            continue
        votes = _votes(view, items, polygons, errors, overlap, (int(i), int(j)))
        if votes is None:
            continue
        vi, vj, pixels = votes
        if vi + vj == 0:
            continue
        upper, lower = (int(i), int(j)) if vi >= vj else (int(j), int(i))
        confidence = abs(vi - vj) / (vi + vj)
        pairs.append(PairOrder(lower, upper, float(confidence), pixels))
    return Stacking(z=_ranks(items, pairs, n), pairs=pairs)


def _votes(
    view: CanvasView,
    items: list[IdentifiedItem],
    polygons: list[Polygon],
    errors: list[np.ndarray],
    overlap: Polygon,
    pair: tuple[int, int],
) -> tuple[float, float, int] | None:
    """The votes of the pixels of ``overlap`` for each item of ``pair`` lying on top, and how
    many pixels voted: each pixel that one of the two explains best (a third item lying over
    both wins the others) votes for the one whose art errs less, by their difference in error
    over :data:`FULL_VOTE_LEVELS`, at most 1."""
    if overlap.geom_type != "Polygon":
        overlap = max(overlap.geoms, key=lambda g: g.area)
    pts = view.table_to_canvas(np.asarray(overlap.exterior.coords))
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    h, w = view.image_bgr.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(pts - [x0, y0]).astype(np.int32)], 1)
    region = mask > 0
    if region.sum() < 5:
        return None
    candidates = [k for k, poly in enumerate(polygons) if k in pair or poly.intersects(overlap)]
    stack = np.full((len(candidates), y1 - y0, x1 - x0), np.inf, np.float32)
    for row, k in enumerate(candidates):
        bx0, by0, bx1, by1 = items[k].rendering.box
        ix0, iy0, ix1, iy1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
        if ix1 <= ix0 or iy1 <= iy0:
            continue
        stack[row, iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0] = errors[k][
            iy0 - by0 : iy1 - by0, ix0 - bx0 : ix1 - bx0
        ]
    best = np.argmin(stack, axis=0)
    row_i, row_j = candidates.index(pair[0]), candidates.index(pair[1])
    voting = region & np.isfinite(stack.min(axis=0)) & ((best == row_i) | (best == row_j))
    # where one of the two has no art (inf: beyond its box), the other explains it fully
    # (taken on the voting pixels alone: elsewhere both may be inf, and inf - inf warns)
    margin = stack[row_j][voting] - stack[row_i][voting]
    vote = np.clip(margin / FULL_VOTE_LEVELS, -1.0, 1.0)
    return float(vote[vote > 0].sum()), float(-vote[vote < 0].sum()), int(voting.sum())


def _ranks(items: list[IdentifiedItem], pairs: list[PairOrder], n: int) -> list[int]:
    """Ranks bottom to top consistent with the pair orders (weakest evidence yields first)."""
    weight = np.zeros((n, n))
    for p in pairs:
        weight[p.lower, p.upper] += p.confidence * min(p.pixels, 400)
    remaining = set(range(n))
    order: list[int] = []

    def prior(k: int) -> tuple:
        # items judged against nothing: coasters (tossed first) below napkins; face-down last
        it = items[k]
        return (it.side.kind is ItemKind.NAPKIN, it.side.face is Face.DOWN, k)

    while remaining:
        rem = sorted(remaining)
        below_weight = {k: sum(weight[m, k] for m in rem if m != k) for k in rem}
        free = [k for k in rem if below_weight[k] == 0]
        if free:
            pick = min(free, key=prior)
        else:
            # a cycle: take the item with the least evidence of lying above the others
            above_weight = {k: sum(weight[k, m] for m in rem if m != k) for k in rem}
            pick = min(rem, key=lambda k: (below_weight[k] - above_weight[k], prior(k)))
        order.append(pick)
        remaining.remove(pick)
    z = [0] * n
    for rank, k in enumerate(order):
        z[k] = rank
    return z
