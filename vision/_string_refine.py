"""Sub-pixel refinement of the string's centre line in the full working image.

The loop found at analysis resolution is resampled every :data:`STEP_PX` working px. At each
point the colour likelihood is sampled along the normal; the string is the band around the
peak of that profile after a box filter one string-width wide (a matched filter for a flat
bar), bounded by its half-peak crossings, and its centre is the band's middle, or half a width
in from the visible edge where an item hides the other edge. Offsets are smoothed along the loop
(median, then mean) so that the braid's texture does not make the line wiggle; stretches
bridged under items follow the shift of their refined ends.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision._string_color import StringColour, string_likelihood

STEP_PX = 2.0
"""Spacing of the output polygon's vertices along the loop, working px."""
PROFILE_SAMPLE_PX = 0.5
"""Spacing of likelihood samples across the string, working px."""
SEARCH_WIDTHS = 1.0
"""Half-length of a profile beyond the half-width, in string widths."""
MIN_PEAK_LIKELIHOOD = 0.2
"""A profile whose filtered peak is below this shows no string (the point moves with its
neighbours)."""
BRIDGED_SNAP_WIDTHS = 0.5
"""A point on a bridged gap moves at most this many widths (plus 1 px) onto visible string."""
ITEM_EDGE_WIDTHS = 1.0 / 3.0
"""How far (string widths) an item's thickness edge and shadow reach past its outline: a
coaster is 2 mm thick, a third of the 6 mm cord."""
MIN_WIDTH_SAMPLES = 20
"""Unhidden profiles needed to measure the string's width in the working image."""
SMOOTH_WIDTHS = 1.5
"""Window (in string widths) over which offsets are smoothed along the loop."""
BAND_WIDTH_WINDOW_WIDTHS = 20.0
"""Window (in string widths along the loop) of the running median of the measured band width."""


def refine_centre_line(
    image_bgr: np.ndarray,
    points_px: np.ndarray,
    observed: np.ndarray,
    widths_px: np.ndarray,
    *,
    item_mask: np.ndarray | None,
    colour: StringColour,
) -> np.ndarray:
    """(N, 2) float64 refined closed centre line in working px.

    ``points_px`` (M, 2) closed loop in working px, ``observed`` (M,) bool (False where
    bridged), ``widths_px`` (M,) string width in working px; ``item_mask`` (H, W) bool or None;
    ``colour`` the string's colour model.
    """
    points, observed, widths = _resample_closed(points_px, observed, widths_px, STEP_PX)
    normals = _normals(points, widths)

    max_width = float(np.max(widths))
    half_span = 0.5 * max_width + SEARCH_WIDTHS * max_width
    offsets = np.arange(-half_span, half_span + 1e-9, PROFILE_SAMPLE_PX, dtype=np.float64)
    # Bridged points are examined too: where the bridge runs over free table next to an item
    # the string is often visible there after all (its centre-line fragment was trimmed).
    sample_x = points[:, 0:1] + offsets[None, :] * normals[:, 0:1]
    sample_y = points[:, 1:2] + offsets[None, :] * normals[:, 1:2]
    samples = cv2.remap(
        image_bgr,
        sample_x.astype(np.float32),
        sample_y.astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    profile = string_likelihood(samples, colour)
    occluded = np.zeros(profile.shape, bool)
    if item_mask is not None:
        height, width = item_mask.shape
        xs = np.clip(np.round(sample_x).astype(int), 0, width - 1)
        ys = np.clip(np.round(sample_y).astype(int), 0, height - 1)
        occluded = item_mask[ys, xs]
        profile[occluded] = 0.0
    centre, good = _profile_centres(profile, occluded, widths / PROFILE_SAMPLE_PX)
    offset = offsets[0] + centre * PROFILE_SAMPLE_PX
    # A bridged point only snaps to string right next to it, never to a line farther away.
    near = np.abs(offset) <= BRIDGED_SNAP_WIDTHS * widths + 1.0
    found = good & (observed | near)
    shift = _smooth_along(np.where(found, offset, 0.0), found, widths)
    displacement = _fill_gaps(shift[:, None] * normals, found)
    return points + displacement


def _profile_centres(
    profile: np.ndarray, occluded: np.ndarray, widths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Centre of the string in each row of ``profile`` (R, S) likelihood samples, in samples.

    ``occluded`` (R, S): samples under an item; ``widths`` (R,) the expected string width in
    samples. The string is the band around the peak of the profile filtered with a box one
    width wide, bounded by the half-peak crossings (to a fraction of a sample). Its centre is
    the band's middle; where an item hides one side of the band (the crossing there is at an
    occluded sample) the centre is half a string width in from the visible edge, the width
    being the band width measured on the unhidden rows nearby (:func:`_band_widths`).
    Returns (centres, found): rows without a clear band are not found.
    """
    rows, count = profile.shape
    index = np.arange(rows)
    box = max(1, round(float(np.median(widths)))) | 1
    filtered = cv2.blur(profile, (box, 1), borderType=cv2.BORDER_CONSTANT)
    peak = np.argmax(filtered, axis=1)
    level = 0.5 * filtered[index, peak]
    smooth = cv2.blur(profile, (3, 1), borderType=cv2.BORDER_CONSTANT)
    found, left_c, right_c, left_edge, right_edge = _crossings(smooth, peak, level)
    # An item's thickness edge and contact shadow lie on the string just outside the item's
    # outline: a band edge that close to an occluded sample is hidden too.
    reach = np.maximum(np.round(ITEM_EDGE_WIDTHS * widths).astype(int), 0)
    occluded_count = np.concatenate(
        [np.zeros((rows, 1), int), np.cumsum(occluded, axis=1)], axis=1
    )  # occluded_count[r, j] = occluded samples before j
    left_from = np.clip(left_c - reach, 0, count - 1)
    right_to = np.clip(right_c + reach, 0, count - 1)
    hidden_left = occluded_count[index, left_c + 1] > occluded_count[index, left_from]
    hidden_right = occluded_count[index, right_to + 1] > occluded_count[index, right_c]
    whole = found & ~hidden_left & ~hidden_right
    # Where an item covers part of the band, the box takes in hidden samples: its lower peak
    # would put the level lower, crossed farther out on the visible soft edge (the centre would
    # move away from the item). Those rows take the level of the whole rows nearby (no more
    # than half the top they show themselves, should the cord lie in a shadow there).
    partly = found & (hidden_left ^ hidden_right)
    if partly.any() and np.count_nonzero(whole) >= MIN_WIDTH_SAMPLES:
        top = filtered[index, peak]
        plateau = _along_whole_rows(top, whole, widths)
        near_peak = np.abs(np.arange(count)[None, :] - peak[:, None]) <= box // 2
        shown = np.where(near_peak, smooth, 0.0).max(axis=1)
        raised = partly & (plateau > top)
        level = np.where(raised, np.maximum(level, 0.5 * np.minimum(plateau, shown)), level)
        again, _, _, left_again, right_again = _crossings(smooth, peak, level)
        left_edge = np.where(raised & again, left_again, left_edge)
        right_edge = np.where(raised & again, right_again, right_edge)
    half_width = 0.5 * _band_widths(right_edge - left_edge, whole, widths)
    centre = 0.5 * (left_edge + right_edge)
    centre = np.where(hidden_left & ~hidden_right, right_edge - half_width, centre)
    centre = np.where(hidden_right & ~hidden_left, left_edge + half_width, centre)
    found &= filtered[index, peak] >= MIN_PEAK_LIKELIHOOD
    found &= (centre >= 0) & (centre <= count - 1)
    return centre, found & ~(hidden_left & hidden_right)


def _crossings(
    smooth: np.ndarray, peak: np.ndarray, level: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each row of ``smooth`` (R, S) falls below ``level`` (R,) on either side of
    ``peak`` (R,): (found, left_c, right_c, left_edge, right_edge), the last samples below
    the level (clipped inside the row) and the sub-sample crossings (linear interpolation
    between the last sample below the level and the first above it); rows whose band reaches
    the profile's ends, or whose level is too low, are not found."""
    rows, count = smooth.shape
    index = np.arange(rows)
    below = smooth < level[:, None]
    positions = np.arange(count)[None, :]
    left = np.where(below & (positions < peak[:, None]), positions, -1).max(axis=1)
    right = np.where(below & (positions > peak[:, None]), positions, count).min(axis=1)
    found = (level >= 0.5 * MIN_PEAK_LIKELIHOOD) & (left >= 0) & (right < count)
    left_c, right_c = np.clip(left, 0, count - 2), np.clip(right, 1, count - 1)
    low, high = smooth[index, left_c], smooth[index, left_c + 1]
    left_edge = left_c + np.clip((level - low) / np.maximum(high - low, 1e-6), 0.0, 1.0)
    low, high = smooth[index, right_c], smooth[index, right_c - 1]
    right_edge = right_c - np.clip((level - low) / np.maximum(high - low, 1e-6), 0.0, 1.0)
    return found, left_c, right_c, left_edge, right_edge


def _band_widths(measured: np.ndarray, whole: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """(R,) the string's band width (samples) at every row of a closed loop.

    ``measured`` (R,): band widths between the half-peak crossings, meaningful on the ``whole``
    rows (both edges seen); ``widths`` (R,): the trace's width estimates (samples). The band
    width is that of the whole rows nearby (:func:`_along_whole_rows`): it changes only slowly
    (with the distance to the camera), while the trace's per-point estimates are rough, and
    next to an item (where the width matters, see :func:`_profile_centres`) they are biased by
    the item's edge. With too few whole rows (:data:`MIN_WIDTH_SAMPLES`), the trace's own
    estimates.
    """
    if np.count_nonzero(whole) < MIN_WIDTH_SAMPLES:
        return widths.astype(np.float64)
    return _along_whole_rows(measured, whole, widths)


def _along_whole_rows(values: np.ndarray, whole: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """(R,) ``values`` of the ``whole`` rows (at least one) of a closed loop, at every row: the
    running median of the whole rows within :data:`BAND_WIDTH_WINDOW_WIDTHS` (``widths``: the
    string's width in samples, for the window's length), interpolated around the loop between
    them."""
    count = values.shape[0]
    rows_per_width = float(np.median(widths)) * PROFILE_SAMPLE_PX / STEP_PX
    half = max(1, round(0.5 * BAND_WIDTH_WINDOW_WIDTHS * rows_per_width))
    index = (np.arange(count)[:, None] + np.arange(-half, half + 1)[None, :]) % count
    window = np.where(whole[index], values[index], np.nan)
    seen = whole[index].any(axis=1)
    local = np.full(count, np.nan)
    local[seen] = np.nanmedian(window[seen], axis=1)
    rows = np.arange(count)
    return np.interp(rows, rows[seen], local[seen], period=count)


def _resample_closed(
    points: np.ndarray, observed: np.ndarray, widths: np.ndarray, step: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Resample a closed polyline every ``step`` px of arc length (attributes: nearest point)."""
    closed = np.vstack([points, points[:1]])
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(closed, axis=0), axis=1))])
    total = arc[-1]
    count = max(8, round(total / step))
    positions = np.linspace(0.0, total, count, endpoint=False)
    resampled = np.stack(
        [np.interp(positions, arc, closed[:, 0]), np.interp(positions, arc, closed[:, 1])], axis=1
    )
    nearest = np.clip(np.searchsorted(arc, positions, side="right") - 1, 0, len(points) - 1)
    return resampled, observed[nearest], np.interp(positions, arc[:-1], widths)


def _normals(points: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Unit normals of a closed polyline, tangents taken over about one string width."""
    reach = max(1, round(float(np.median(widths)) / STEP_PX))
    tangent = np.roll(points, -reach, axis=0) - np.roll(points, reach, axis=0)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    return np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)


def _smooth_along(values: np.ndarray, valid: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Median then mean filter of ``values`` over valid neighbours along a closed loop."""
    count = values.shape[0]
    half = max(1, round(SMOOTH_WIDTHS * float(np.median(widths)) / STEP_PX / 2))
    index = (np.arange(count)[:, None] + np.arange(-half, half + 1)[None, :]) % count
    window = np.where(valid[index], values[index], np.nan)
    all_invalid = ~np.any(valid[index], axis=1)
    window[all_invalid] = 0.0
    median = np.nanmedian(window, axis=1)
    median[~valid] = 0.0
    window = np.where(valid[index], median[index], np.nan)
    window[all_invalid] = 0.0
    mean = np.nanmean(window, axis=1)
    return np.where(valid, mean, 0.0)


def _fill_gaps(displacement: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Displacements of invalid points interpolated (around the loop) from valid neighbours."""
    if not valid.any() or valid.all():
        return displacement
    count = displacement.shape[0]
    index = np.arange(count)
    known = index[valid]
    filled = displacement.copy()
    for axis in range(2):
        filled[~valid, axis] = np.interp(
            index[~valid], known, displacement[valid, axis], period=count
        )
    return filled
