"""Link centre-line fragments of the string into one closed loop.

Everything here is in analysis px, points as (x, y). Lengths are also measured in *string
widths*: because the string's width and a stretch of its length shrink together with distance
from the camera, the loop's length in local widths is about the same in every photo
(2000 mm / 6 mm = 333, down to about 2/3 of that where perspective foreshortens it). Gaps and
thresholds are therefore stated in widths, never in pixels.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from vision._string_fragments import Fragment

LOOP_LENGTH_WIDTHS = 2000.0 / 6.0
"""The string's length over its thickness (catalogue: 2 m of 6 mm cord)."""
MIN_LOOP_WIDTHS = 0.45 * LOOP_LENGTH_WIDTHS
"""A closed chain shorter than this (perspective foreshortening included) is not the loop."""
MAX_LOOP_WIDTHS = 1.6 * LOOP_LENGTH_WIDTHS
"""...and one longer than this (width underestimated by 1.6x at most) is not either."""
MAX_OPEN_GAP_WIDTHS = 8.0
"""Longest gap over free table (glare, a blurred stretch) at the plain cost: 8 widths = 48 mm."""
UNEXPLAINED_GAP_WEIGHT = 3.0
"""Extra cost per width of a gap's open stretch beyond :data:`MAX_OPEN_GAP_WIDTHS` when an
item mask is given and such gaps are allowed (:func:`link_loop`'s ``unexplained_gaps``): the
mask is a hint, not a complete list (an item the detector missed hides the string too)."""
MAX_GAP_WIDTHS = 80.0
"""Longest gap in all, under coasters/napkins: 480 mm, about three overlapping napkins."""
ITEM_GAP_WEIGHT = 0.15
"""Cost per width of a short gap hidden under an item, relative to a gap over free table..."""
HIDDEN_GAP_SCALE_WIDTHS = 20.0
"""...rising with the hidden length: a 20-width (120 mm) hidden stretch costs twice as much
per width as a short one."""
BEND_WEIGHT = 4.0
"""Cost (in widths of gap) of a 90-degree turn at one end of a link."""
MAX_LINK_TURN_DEG = 80.0
"""A link may leave a fragment end at most this far from the end's direction..."""
MAX_HIDDEN_EXTRA_TURN_DEG = 40.0
"""...plus this much times the gap's hidden share: under an item the string may curve."""
MIN_SEEN_FRACTION = 0.3
"""At least this share of a loop's length must be seen string, not bridged gaps."""
MIN_ROUNDNESS = 0.3
"""A loop must enclose at least this share of the area a circle of its length would
(4 pi area / length^2, in the image): a cord laid in a loop encloses the table it marks out
(an ellipse of 6:1 seen square-on, or of 3:1 seen at a slant that halves its depth, still
does), while a chain that runs out along the cord and back along a parallel ridge or an item's
outline (a crescent, a figure of eight) encloses next to nothing."""
GAP_SAMPLES = 24
"""Points along a gap at which the item mask is read."""
ANCHOR_TRIES = 5
"""How many of the longest fragments are tried as the start of the loop."""


@dataclass(frozen=True)
class LoopTrace:
    """A closed loop: ``points_px`` (N, 2) in order; ``observed`` (N,) bool, False on points
    interpolated across a gap; ``width_px`` (N,) string width; ``observed_widths`` and
    ``total_widths`` its seen and whole length in string widths; ``length_on_table``: whether
    its length was found to fit the cord's on the table (a known table plane)."""

    points_px: np.ndarray
    observed: np.ndarray
    width_px: np.ndarray
    observed_widths: float
    total_widths: float
    length_on_table: bool = False


@dataclass(frozen=True)
class _Link:
    cost: float
    end_a: int  # endpoint id = 2 * fragment + which end
    end_b: int
    gap_widths: float


def link_loop(
    fragments: list[Fragment],
    item_mask: np.ndarray | None,
    *,
    unexplained_gaps: bool = False,
    length_fits: Callable[[np.ndarray], bool] | None = None,
) -> LoopTrace | None:
    """The best closed loop through the fragments, bridging gaps (long ones under items).

    ``item_mask``: (H, W) bool in analysis px, True under coasters/napkins, or None.

    The longest fragments are tried in turn as anchors (the string is by far the longest thin
    structure of its colour). From an anchor's end, the cheapest way back to its start through
    other fragments is found with Dijkstra's algorithm: walking along a fragment is free, each
    link costs its gap (see :func:`_candidate_links`). Of the loops whose length is plausible
    for the string and that enclose an area (:data:`MIN_ROUNDNESS`), the one seen over the
    greatest length wins.

    With an item mask, gaps over free table longer than :data:`MAX_OPEN_GAP_WIDTHS` are
    refused unless ``unexplained_gaps``; then they are allowed at a surcharge (an item the mask
    lacks, e.g. one the detector missed, hides the string there).

    ``length_fits``: when the table plane is known, whether a loop (its (N, 2) points, analysis
    px) is as long as the cord on the table; loops that are not are refused.
    """
    if not fragments:
        return None
    ends = [fragment.end(which) for fragment in fragments for which in (0, 1)]
    links = _candidate_links(ends, item_mask, unexplained_ok=unexplained_gaps)
    return _best_loop(fragments, ends, links, length_fits)


def _best_loop(
    fragments: list[Fragment],
    ends: list[tuple[np.ndarray, np.ndarray, float]],
    links: list[_Link],
    length_fits: Callable[[np.ndarray], bool] | None,
) -> LoopTrace | None:
    """The plausible loop seen over the greatest length, from the :data:`ANCHOR_TRIES` longest
    fragments as anchors, through the given links; None if none. Plausible: its length in
    widths (and, with ``length_fits``, on the table), the share of it seen and its roundness."""
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
        if _roundness(trace.points_px) < MIN_ROUNDNESS:
            continue
        if length_fits is not None:
            if not length_fits(trace.points_px):
                continue
            trace = replace(trace, length_on_table=True)
        if best is None or trace.observed_widths > best.observed_widths:
            best = trace
    return best


def _roundness(points_px: np.ndarray) -> float:
    """0..1: the area a closed polygon ((N, 2) points, any unit) encloses over that of a circle
    of its length (1 for a circle). Lobes that wind in opposite directions (a figure of eight)
    cancel; a polygon folded back along itself encloses nothing."""
    x, y = points_px[:, 0], points_px[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    length = float(np.linalg.norm(np.roll(points_px, -1, axis=0) - points_px, axis=1).sum())
    return 4.0 * np.pi * area / length**2 if length > 0 else 0.0


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
    ends: list[tuple[np.ndarray, np.ndarray, float]],
    item_mask: np.ndarray | None,
    *,
    unexplained_ok: bool,
) -> list[_Link]:
    """Every plausible link between two fragment ends, cheapest first.

    ``ends``: (position, outward direction, width) per end id; ``item_mask`` analysis px.
    A link is plausible when its gap is at most :data:`MAX_GAP_WIDTHS` long, with a mask at
    most :data:`MAX_OPEN_GAP_WIDTHS` of it over free table unless ``unexplained_ok``, and both
    ends point along it (within :data:`MAX_LINK_TURN_DEG`, more when hidden). Its cost: the
    open widths, plus the hidden widths at :data:`ITEM_GAP_WEIGHT` rising with their length,
    plus :data:`BEND_WEIGHT` per unit of (1 - cos) of each end's turn, plus (with a mask)
    :data:`UNEXPLAINED_GAP_WEIGHT` per open width beyond :data:`MAX_OPEN_GAP_WIDTHS`.
    """
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
    keep = np.flatnonzero(turn_ok)
    first, second = first[keep], second[keep]
    distances, width_pairs = distances[keep], width_pairs[keep]
    cos_a, cos_b = cos_a[keep], cos_b[keep]
    hidden = _hidden_fractions(positions[first], positions[second], item_mask)
    gap_widths = distances / width_pairs
    open_widths = (1.0 - hidden) * gap_widths
    max_turn = np.radians(MAX_LINK_TURN_DEG + MAX_HIDDEN_EXTRA_TURN_DEG * hidden)
    ok = np.minimum(cos_a, cos_b) >= np.cos(max_turn)
    if item_mask is not None and not unexplained_ok:
        ok &= open_widths <= MAX_OPEN_GAP_WIDTHS
    # Hidden stretches cost more per width the longer they are: a long stretch out of sight is
    # less likely than two shorter ones either side of a piece of string seen in between.
    hidden_widths = hidden * gap_widths
    cost = open_widths + ITEM_GAP_WEIGHT * hidden_widths * (
        1.0 + hidden_widths / HIDDEN_GAP_SCALE_WIDTHS
    )
    cost += BEND_WEIGHT * ((1.0 - cos_a) + (1.0 - cos_b))
    if item_mask is not None:
        # Without a mask nothing tells a gap under an item from one over free table: any gap
        # up to the longest costs the free-table rate (short ones still win). With a mask, a
        # long open gap (when allowed) is taken as hiding under an item the mask lacks.
        unexplained = np.maximum(open_widths - MAX_OPEN_GAP_WIDTHS, 0.0)
        cost += UNEXPLAINED_GAP_WEIGHT * unexplained
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
