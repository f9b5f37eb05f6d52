"""Centre-line fragments of the string: ordered, stitched, trimmed, and weighed near items.

Everything here is in analysis px, points as (x, y); lengths in string widths where they
describe the string (see :mod:`vision._string_loop`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.spatial import cKDTree

from vision._string_ridges import RIDGE_SIGMAS_PX, RidgeMaps

MIN_FRAGMENT_WIDTHS = 3.0
"""Centre-line pieces shorter than this many widths are noise, not string."""
OUTLINE_WIDTHS = 0.75
"""A centre line this close to an item (in string widths) runs along the item's outline..."""
OUTLINE_MAX_ANGLE_DEG = 35.0
"""...and within this angle of the outline's direction (a string crossing to the next item
runs across the outline)..."""
OUTLINE_SHARE = 0.7
"""...and a fragment with this share of its length so close is the outline, not string."""
TRIM_WIDTHS = 1.0
"""Arc length (widths) cut off each end of a centre line, where the ridge is unreliable."""
STITCH_GAP_WIDTHS = 0.75
"""Pieces whose ends are this close (in widths) and aligned are one piece of centre line..."""
STITCH_TURN_DEG = 50.0
"""...when each end points at the other within this angle."""
TANGENT_WIDTHS = 3.0
"""Arc length (widths) over which a fragment end's direction is measured."""
OUTLINE_TOLL_PER_WIDTH = 0.3
"""Cost per width of walking along a fragment next to an item: twice what a width of short
hidden gap costs (:data:`vision._string_loop.ITEM_GAP_WEIGHT`)."""


@dataclass(frozen=True)
class Fragment:
    """One visible stretch of centre line: ``points_px`` (M, 2) ordered, ``width_px`` (M,);
    ``toll``: the cost of walking along it (see :func:`weigh_item_contact`)."""

    points_px: np.ndarray
    width_px: np.ndarray
    toll: float = 0.0

    @property
    def length_widths(self) -> float:
        """Arc length in local string widths."""
        steps = np.linalg.norm(np.diff(self.points_px, axis=0), axis=1)
        local = 0.5 * (self.width_px[1:] + self.width_px[:-1])
        return float(np.sum(steps / local))

    def end(self, which: int) -> tuple[np.ndarray, np.ndarray, float]:
        """(position, outward unit direction, width) of end 0 (start) or 1 (end)."""
        points = self.points_px if which == 1 else self.points_px[::-1]
        widths = self.width_px if which == 1 else self.width_px[::-1]
        tip = points[-1]
        reach = TANGENT_WIDTHS * float(widths[-1])
        distance_back = np.linalg.norm(points - tip, axis=1)
        inside = np.flatnonzero(distance_back >= reach)
        base = points[inside[-1]] if inside.size else points[0]
        direction = tip - base
        norm = float(np.linalg.norm(direction))
        return tip, (direction / norm if norm > 0 else np.zeros(2)), float(widths[-1])


def extract_fragments(centre_lines: np.ndarray, ridges: RidgeMaps) -> list[Fragment]:
    """Ordered centre-line fragments from a one-pixel-thin (H, W) bool mask.

    Junction pixels (three or more branches) are removed so that every piece is a simple path.
    Pieces that continue one another across a tiny break (a removed junction, a one-pixel gap;
    see :func:`_stitch`) are joined, which also drops the little spurs that thinning leaves on
    a wide cord; what stays shorter than :data:`MIN_FRAGMENT_WIDTHS` is dropped.
    """
    thin = centre_lines.astype(np.uint8)
    # Connected lines too short to make one fragment even before they are cut at junctions
    # (no string is thinner than the narrowest ridge scale) are noise: drop them up front.
    _, labels, stats, _ = cv2.connectedComponentsWithStats(thin, connectivity=8)
    min_pixels = MIN_FRAGMENT_WIDTHS * 2 * RIDGE_SIGMAS_PX[0]
    small = stats[:, cv2.CC_STAT_AREA] < min_pixels
    small[0] = False
    thin[small[labels]] = 0
    neighbours = cv2.filter2D(thin, -1, np.ones((3, 3), np.float32), borderType=cv2.BORDER_CONSTANT)
    thin[neighbours >= 4] = 0
    contours, _ = cv2.findContours(thin, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    # A piece's contour walks it there and back: 2 points per pixel. Pieces shorter than a
    # fragment's minimum are still kept for stitching, down to about 2 string widths.
    min_contour = 2 * 2 * 2 * RIDGE_SIGMAS_PX[0]
    paths = [
        _open_path(contour[:, 0, :]) for contour in contours if contour.shape[0] >= min_contour
    ]
    if not paths:
        return []
    fragments = []
    for path in _stitch(paths, ridges.width_px):
        points = _smooth(path.astype(np.float64))
        widths = ridges.width_px[path[:, 1], path[:, 0]].astype(np.float64)
        widths = np.maximum(_smooth_1d(widths, 15), 1.0)
        if Fragment(points_px=points, width_px=widths).length_widths < MIN_FRAGMENT_WIDTHS:
            continue
        points, widths = _trim_ends(points, widths)
        if points.shape[0] >= 3:
            fragments.append(Fragment(points_px=points, width_px=widths))
    return fragments


def _trim_ends(points: np.ndarray, widths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cut :data:`TRIM_WIDTHS` string widths of arc length (at most a quarter of the length)
    off both ends of a centre line.

    Where a centre line ends (the string goes under an item, a junction was cut) the ridge
    fades and bends toward whatever is next to it; the ends would misdirect the bridging.
    """
    steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(steps)])
    trim = np.minimum(TRIM_WIDTHS * widths, 0.25 * arc[-1])
    keep = (arc >= trim) & (arc[-1] - arc >= trim)
    return points[keep], widths[keep]


def weigh_item_contact(fragments: list[Fragment], distance_to_items: np.ndarray) -> list[Fragment]:
    """Drop fragments that are an item's outline; charge a toll on those that touch items.

    The thickness edge of a coaster or napkin and its contact shadow make a thin line right
    along the item's outline, just outside the item mask, often of a string-like colour on a
    light table. A fragment most of whose length (:data:`OUTLINE_SHARE`) lies within
    :data:`OUTLINE_WIDTHS` string widths of an item is such a line and is dropped. The stretch
    of any other fragment that close to an item costs :data:`OUTLINE_TOLL_PER_WIDTH` per width
    to walk along, more than bridging under the item, so that the loop does not detour along
    outlines. (A short stretch of real string between two items that is dropped is bridged
    under them by the linker.)

    ``distance_to_items``: (H, W) float32, analysis px from each pixel to the nearest item.
    """
    kept = []
    height, width = distance_to_items.shape
    for fragment in fragments:
        xs = np.clip(np.round(fragment.points_px[:, 0]).astype(int), 0, width - 1)
        ys = np.clip(np.round(fragment.points_px[:, 1]).astype(int), 0, height - 1)
        near = distance_to_items[ys, xs] <= np.maximum(OUTLINE_WIDTHS * fragment.width_px, 2.0)
        near &= _along_outline(fragment.points_px, xs, ys, distance_to_items)
        if np.mean(near) >= OUTLINE_SHARE:
            continue
        steps = np.linalg.norm(np.diff(fragment.points_px, axis=0), axis=1)
        near_steps = near[1:] & near[:-1]
        near_widths = float(np.sum(steps[near_steps] / fragment.width_px[1:][near_steps]))
        toll = fragment.toll + OUTLINE_TOLL_PER_WIDTH * near_widths
        kept.append(Fragment(fragment.points_px, fragment.width_px, toll))
    return kept


def _along_outline(
    points: np.ndarray, xs: np.ndarray, ys: np.ndarray, distance_to_items: np.ndarray
) -> np.ndarray:
    """(M,) bool: the centre line runs along the nearest item's outline (within
    :data:`OUTLINE_MAX_ANGLE_DEG`), not across it; the outline's normal is the gradient of the
    distance to the items."""
    height, width = distance_to_items.shape
    grad_x = distance_to_items[ys, np.minimum(xs + 1, width - 1)]
    grad_x = grad_x - distance_to_items[ys, np.maximum(xs - 1, 0)]
    grad_y = distance_to_items[np.minimum(ys + 1, height - 1), xs]
    grad_y = grad_y - distance_to_items[np.maximum(ys - 1, 0), xs]
    tangent = np.gradient(points, axis=0) if points.shape[0] > 1 else np.zeros_like(points)
    tangent_norm = np.maximum(np.linalg.norm(tangent, axis=1), 1e-9)
    grad_norm = np.maximum(np.hypot(grad_x, grad_y), 1e-9)
    across = np.abs(tangent[:, 0] * grad_x + tangent[:, 1] * grad_y) / (tangent_norm * grad_norm)
    return across <= np.sin(np.radians(OUTLINE_MAX_ANGLE_DEG))


def _stitch(paths: list[np.ndarray], width_map: np.ndarray) -> list[np.ndarray]:
    """Join pixel paths whose ends meet across a tiny break, keeping direction.

    Two ends are joined when they are at most :data:`STITCH_GAP_WIDTHS` string widths (and at
    least 2 px) apart and both point at each other within :data:`STITCH_TURN_DEG`; the closest
    pairs first, each end once, never closing a ring.
    """
    tips = []
    for path in paths:
        width = float(np.mean(width_map[path[:, 1], path[:, 0]]))
        reach = max(2, min(len(path) - 1, round(2 * width)))
        for tip, base in ((path[0], path[reach]), (path[-1], path[-1 - reach])):
            direction = (tip - base).astype(np.float64)
            direction /= max(float(np.linalg.norm(direction)), 1e-9)
            tips.append((tip.astype(np.float64), direction, width))
    positions = np.array([tip[0] for tip in tips])
    directions = np.array([tip[1] for tip in tips])
    widths = np.array([tip[2] for tip in tips])
    max_gap = np.maximum(STITCH_GAP_WIDTHS * widths, 2.0)
    pairs = cKDTree(positions).query_pairs(float(max_gap.max()) + 1.5, output_type="ndarray")
    if pairs.size:
        first, second = pairs[:, 0], pairs[:, 1]
        offsets = positions[second] - positions[first]
        distances = np.linalg.norm(offsets, axis=1)
        unit = offsets / np.maximum(distances, 1e-9)[:, None]
        min_cos = np.cos(np.radians(STITCH_TURN_DEG))
        cos_a = np.einsum("ij,ij->i", directions[first], unit)
        cos_b = -np.einsum("ij,ij->i", directions[second], unit)
        # Ends within a width (8-neighbours, or overlapping side by side) may lie in any
        # position relative to each other; there only the two directions must agree.
        close = distances <= np.maximum(widths[first], widths[second])
        opposed = -np.einsum("ij,ij->i", directions[first], directions[second]) >= min_cos
        facing = (close & opposed) | ((cos_a >= min_cos) & (cos_b >= min_cos))
        limit = np.maximum(max_gap[first], max_gap[second]) + 0.5
        ok = facing & (distances <= limit) & (first // 2 != second // 2)
        order = np.argsort(distances[ok] + (2.0 - cos_a[ok] - cos_b[ok]))
        first, second = first[ok][order], second[ok][order]
    else:
        first = second = np.empty(0, int)

    parent = list(range(len(paths)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    partner: dict[int, int] = {}
    for a, b in zip(first.tolist(), second.tolist(), strict=True):
        if a in partner or b in partner or root(a // 2) == root(b // 2):
            continue
        parent[root(b // 2)] = root(a // 2)
        partner[a], partner[b] = b, a

    joined = []
    visited = np.zeros(len(paths), bool)
    for start in range(2 * len(paths)):
        if visited[start // 2] or start in partner:
            continue
        pieces, entry = [], start  # enter the chain at a free end
        while True:
            index = entry // 2
            visited[index] = True
            pieces.append(paths[index] if entry % 2 == 0 else paths[index][::-1])
            leave = entry ^ 1
            if leave not in partner:
                break
            entry = partner[leave]
        joined.append(np.concatenate(pieces))
    return joined


def _open_path(contour: np.ndarray) -> np.ndarray:
    """The simple path a contour of a one-pixel-thin piece walks along (it goes there and back).

    The walk reverses at the piece's ends; the longest run between two reversals is the path.
    A closed ring (no reversals) is cut open at its first point.
    """
    count = contour.shape[0]
    if count < 3:
        return contour
    previous = np.concatenate([contour[-1:], contour[:-1]])
    following = np.concatenate([contour[1:], contour[:1]])
    reversals = np.flatnonzero(np.all(previous == following, axis=1))
    if reversals.size == 0:
        return contour
    if reversals.size == 1:
        start, length = int(reversals[0]), count // 2 + 1
    else:
        spans = np.diff(np.append(reversals, reversals[0] + count))
        longest = int(np.argmax(spans))
        start, length = int(reversals[longest]), int(spans[longest]) + 1
    return contour[(np.arange(length) + start) % count]


def _smooth_1d(values: np.ndarray, window: int) -> np.ndarray:
    """Moving average along axis 0 of (N,) or (N, 2) float64 values, ends replicated."""
    window = max(1, min(window, values.shape[0]) | 1)
    if window == 1:
        return values
    column = values.reshape(values.shape[0], -1)
    smoothed = cv2.blur(column, (1, window), borderType=cv2.BORDER_REPLICATE)
    return smoothed.reshape(values.shape)


def _smooth(points: np.ndarray) -> np.ndarray:
    """Light smoothing of pixel-staircase centre lines (ends kept in place)."""
    smoothed = _smooth_1d(points, 5)
    smoothed[0], smoothed[-1] = points[0], points[-1]
    return smoothed
