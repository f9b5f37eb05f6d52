"""Link centre-line fragments of the string into one closed loop.

Everything here is in analysis px, points as (x, y). Lengths are also measured in *string
widths*: because the string's width and a stretch of its length shrink together with distance
from the camera, the loop's length in local widths is about the same in every photo
(2000 mm / 6 mm = 333, down to about 2/3 of that where perspective foreshortens it). Gaps and
thresholds are therefore stated in widths, never in pixels.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.spatial import cKDTree

from vision._string_ridges import RIDGE_SIGMAS_PX, RidgeMaps

LOOP_LENGTH_WIDTHS = 2000.0 / 6.0
"""The string's length over its thickness (catalogue: 2 m of 6 mm cord)."""
MIN_LOOP_WIDTHS = 0.45 * LOOP_LENGTH_WIDTHS
"""A closed chain shorter than this (perspective foreshortening included) is not the loop."""
MAX_LOOP_WIDTHS = 1.6 * LOOP_LENGTH_WIDTHS
"""...and one longer than this (width underestimated by 1.6x at most) is not either."""
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
MAX_OPEN_GAP_WIDTHS = 8.0
"""Longest gap over free table (glare, a blurred stretch): 8 widths = 48 mm."""
MAX_GAP_WIDTHS = 80.0
"""Longest gap in all, under coasters/napkins: 480 mm, about three overlapping napkins."""
ITEM_GAP_WEIGHT = 0.15
"""Cost per width of a short gap hidden under an item, relative to a gap over free table..."""
HIDDEN_GAP_SCALE_WIDTHS = 20.0
"""...rising with the hidden length: a 20-width (120 mm) hidden stretch costs twice as much
per width as a short one."""
OUTLINE_TOLL_PER_WIDTH = 2.0 * ITEM_GAP_WEIGHT
"""Cost per width of walking along a fragment next to an item (twice a hidden gap's)."""
BEND_WEIGHT = 4.0
"""Cost (in widths of gap) of a 90-degree turn at one end of a link."""
MAX_LINK_TURN_DEG = 80.0
"""A link may leave a fragment end at most this far from the end's direction..."""
MAX_HIDDEN_EXTRA_TURN_DEG = 40.0
"""...plus this much times the gap's hidden share: under an item the string may curve."""
MIN_SEEN_FRACTION = 0.3
"""At least this share of a loop's length must be seen string, not bridged gaps."""
GAP_SAMPLES = 24
"""Points along a gap at which the item mask is read."""
ANCHOR_TRIES = 5
"""How many of the longest fragments are tried as the start of the loop."""


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


@dataclass(frozen=True)
class LoopTrace:
    """A closed loop: ``points_px`` (N, 2) in order; ``observed`` (N,) bool, False on points
    interpolated across a gap; ``width_px`` (N,) string width; ``observed_widths`` and
    ``total_widths`` its seen and whole length in string widths."""

    points_px: np.ndarray
    observed: np.ndarray
    width_px: np.ndarray
    observed_widths: float
    total_widths: float


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


@dataclass(frozen=True)
class _Link:
    cost: float
    end_a: int  # endpoint id = 2 * fragment + which end
    end_b: int
    gap_widths: float


def link_loop(fragments: list[Fragment], item_mask: np.ndarray | None) -> LoopTrace | None:
    """The best closed loop through the fragments, bridging gaps (long ones under items).

    ``item_mask``: (H, W) bool in analysis px, True under coasters/napkins, or None.

    The longest fragments are tried in turn as anchors (the string is by far the longest thin
    structure of its colour). From an anchor's end, the cheapest way back to its start through
    other fragments is found with Dijkstra's algorithm: walking along a fragment is free, each
    link costs its gap (see :func:`_candidate_links`). Of the loops whose length is plausible
    for the string, the one seen over the greatest length wins.
    """
    if not fragments:
        return None
    ends = [fragment.end(which) for fragment in fragments for which in (0, 1)]
    links = _candidate_links(fragments, ends, item_mask)
    adjacency: list[list[tuple[int, float]]] = [[] for _ in ends]
    for link in links:
        # A link's cost includes the toll of the fragment it leads into.
        adjacency[link.end_a].append((link.end_b, link.cost + fragments[link.end_b // 2].toll))
        adjacency[link.end_b].append((link.end_a, link.cost + fragments[link.end_a // 2].toll))

    order = sorted(range(len(fragments)), key=lambda index: -fragments[index].length_widths)
    best: LoopTrace | None = None
    for anchor in order[:ANCHOR_TRIES]:
        partner = _cheapest_return(anchor, adjacency)
        if partner is None:
            continue
        trace = _trace_loop(fragments, ends, partner, anchor)
        if not MIN_LOOP_WIDTHS <= trace.total_widths <= MAX_LOOP_WIDTHS:
            continue
        if trace.observed_widths < MIN_SEEN_FRACTION * trace.total_widths:
            continue
        if best is None or trace.observed_widths > best.observed_widths:
            best = trace
    return best


def _cheapest_return(
    anchor: int, adjacency: list[list[tuple[int, float]]]
) -> dict[int, int] | None:
    """Links ({end: partner end}, both directions) of the cheapest walk that leaves fragment
    ``anchor`` at its end (1) and comes back into its start (0); None if there is none.

    Nodes are fragment ends one *leaves* from; following a link into end ``e`` of a fragment
    means walking the fragment and leaving from its other end ``e ^ 1``.
    """
    start, goal = 2 * anchor + 1, 2 * anchor
    distance = {start: 0.0}
    came_from: dict[int, tuple[int, int]] = {}  # leave-end -> (previous leave-end, arrival end)
    best_cost, best_last = np.inf, -1
    heap = [(0.0, start)]
    while heap:
        cost, leave = heapq.heappop(heap)
        if cost > distance.get(leave, np.inf) or cost >= best_cost:
            if cost >= best_cost:
                break
            continue
        for arrive, link_cost in adjacency[leave]:
            total = cost + link_cost
            if arrive == goal:
                if total < best_cost:
                    best_cost, best_last = total, leave
                continue
            if arrive // 2 == anchor:
                continue
            following = arrive ^ 1
            if total < distance.get(following, np.inf):
                distance[following] = total
                came_from[following] = (leave, arrive)
                heapq.heappush(heap, (total, following))
    if best_last < 0:
        return None
    partner = {best_last: goal, goal: best_last}
    leave = best_last
    while leave != start:
        previous, arrive = came_from[leave]
        partner[previous] = arrive
        partner[arrive] = previous
        leave = previous
    return partner


def _candidate_links(
    fragments: list[Fragment],
    ends: list[tuple[np.ndarray, np.ndarray, float]],
    item_mask: np.ndarray | None,
) -> list[_Link]:
    positions = np.array([end[0] for end in ends])
    directions = np.array([end[1] for end in ends])
    widths = np.array([end[2] for end in ends])
    count = len(ends)
    first, second = np.triu_indices(count, k=1)
    offsets = positions[second] - positions[first]
    distances = np.linalg.norm(offsets, axis=1)
    width_pairs = 0.5 * (widths[first] + widths[second])
    near = distances <= MAX_GAP_WIDTHS * width_pairs
    # A fragment may link to itself only to close a loop, which it cannot do through its own
    # tip; the two ends of one fragment are a candidate like any other pair.
    first, second = first[near], second[near]
    offsets, distances, width_pairs = offsets[near], distances[near], width_pairs[near]
    unit = offsets / np.maximum(distances, 1e-9)[:, None]
    cos_a = np.einsum("ij,ij->i", directions[first], unit)
    cos_b = -np.einsum("ij,ij->i", directions[second], unit)
    # Ends within a width of each other (touching, or overlapping side by side) may lie in any
    # position relative to each other; there the link's bend is that between the directions.
    close = distances <= width_pairs
    opposed = -np.einsum("ij,ij->i", directions[first], directions[second])
    cos_a[close] = opposed[close]
    cos_b[close] = opposed[close]
    loosest_cos = np.cos(np.radians(MAX_LINK_TURN_DEG + MAX_HIDDEN_EXTRA_TURN_DEG))
    turn_ok = (cos_a >= loosest_cos) & (cos_b >= loosest_cos)
    # Without an item mask nothing tells a gap under an item from one over free table: any gap
    # up to the longest is allowed, all at the free-table cost (short ones still win).
    max_open_widths = MAX_OPEN_GAP_WIDTHS if item_mask is not None else MAX_GAP_WIDTHS
    keep = np.flatnonzero(turn_ok)
    first, second = first[keep], second[keep]
    distances, width_pairs = distances[keep], width_pairs[keep]
    cos_a, cos_b = cos_a[keep], cos_b[keep]
    hidden = _hidden_fractions(positions[first], positions[second], item_mask)
    gap_widths = distances / width_pairs
    open_widths = (1.0 - hidden) * gap_widths
    max_turn = np.radians(MAX_LINK_TURN_DEG + MAX_HIDDEN_EXTRA_TURN_DEG * hidden)
    ok = (open_widths <= max_open_widths) & (np.minimum(cos_a, cos_b) >= np.cos(max_turn))
    # Hidden stretches cost more per width the longer they are: a long stretch out of sight is
    # less likely than two shorter ones either side of a piece of string seen in between.
    hidden_widths = hidden * gap_widths
    cost = open_widths + ITEM_GAP_WEIGHT * hidden_widths * (
        1.0 + hidden_widths / HIDDEN_GAP_SCALE_WIDTHS
    )
    cost += BEND_WEIGHT * ((1.0 - cos_a) + (1.0 - cos_b))
    links = [
        _Link(
            cost=float(cost[index]),
            end_a=int(first[index]),
            end_b=int(second[index]),
            gap_widths=float(gap_widths[index]),
        )
        for index in np.flatnonzero(ok)
    ]
    links.sort(key=lambda link: link.cost)
    return links


def _hidden_fractions(
    starts: np.ndarray, stops: np.ndarray, item_mask: np.ndarray | None
) -> np.ndarray:
    """(K,) share of each straight gap starts[k] -> stops[k] that lies under items (0 without a
    mask), from :data:`GAP_SAMPLES` points evenly spread along it."""
    if item_mask is None or starts.shape[0] == 0:
        return np.zeros(starts.shape[0])
    t = (np.arange(GAP_SAMPLES) + 0.5) / GAP_SAMPLES
    points = starts[:, None, :] + t[None, :, None] * (stops - starts)[:, None, :]
    height, width = item_mask.shape
    xs = np.clip(np.round(points[..., 0]).astype(int), 0, width - 1)
    ys = np.clip(np.round(points[..., 1]).astype(int), 0, height - 1)
    return item_mask[ys, xs].mean(axis=1)


def _trace_loop(
    fragments: list[Fragment],
    ends: list[tuple[np.ndarray, np.ndarray, float]],
    partner: dict[int, int],
    first_fragment: int,
) -> LoopTrace:
    """Walk the closed chain: each fragment in its direction of travel, then the gap to the next."""
    points: list[np.ndarray] = []
    observed: list[np.ndarray] = []
    widths: list[np.ndarray] = []
    observed_widths = 0.0
    total_widths = 0.0
    entry = 2 * first_fragment  # enter at its start, leave at its end
    while True:
        fragment_index = entry // 2
        fragment = fragments[fragment_index]
        forward = entry % 2 == 0
        path = fragment.points_px if forward else fragment.points_px[::-1]
        path_widths = fragment.width_px if forward else fragment.width_px[::-1]
        points.append(path)
        observed.append(np.ones(len(path), bool))
        widths.append(path_widths)
        observed_widths += fragment.length_widths
        total_widths += fragment.length_widths
        exit_end = entry ^ 1
        next_entry = partner[exit_end]
        gap_width = 0.5 * (ends[exit_end][2] + ends[next_entry][2])
        gap = _bridge(ends[exit_end], ends[next_entry])
        if len(gap):
            points.append(gap)
            observed.append(np.zeros(len(gap), bool))
            widths.append(np.full(len(gap), gap_width))
        total_widths += float(np.linalg.norm(ends[next_entry][0] - ends[exit_end][0])) / gap_width
        entry = next_entry
        if entry // 2 == first_fragment:
            break
    return LoopTrace(
        points_px=np.concatenate(points),
        observed=np.concatenate(observed),
        width_px=np.concatenate(widths),
        observed_widths=observed_widths,
        total_widths=total_widths,
    )


def _bridge(
    leaving: tuple[np.ndarray, np.ndarray, float], arriving: tuple[np.ndarray, np.ndarray, float]
) -> np.ndarray:
    """Interior points of a cubic Hermite curve across a gap, about one per px.

    ``leaving`` is the end the walk leaves (its direction points into the gap); ``arriving``
    is the end it enters next (its direction points into the gap from the other side).
    """
    start, start_dir, _ = leaving
    stop, stop_dir, _ = arriving
    distance = float(np.linalg.norm(stop - start))
    samples = int(distance)
    if samples < 2:
        return np.empty((0, 2))
    t = np.linspace(0.0, 1.0, samples + 1)[1:-1, None]
    h00 = 2 * t**3 - 3 * t**2 + 1
    h10 = t**3 - 2 * t**2 + t
    h01 = -2 * t**3 + 3 * t**2
    h11 = t**3 - t**2
    return h00 * start + h10 * distance * start_dir + h01 * stop + h11 * distance * (-stop_dir)
