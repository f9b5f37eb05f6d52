"""Find the boundary string and close it into the polygon of its centre line.

Stages, each in its own private module:

1. colour likelihood of "string" per pixel (:mod:`vision._string_color`), at an analysis
   resolution of about 1000 px on the long side, zero under known items (the string never lies
   on top of a coaster or napkin);
2. multi-scale ridges of that likelihood, bars that drop off on both sides (not the bright side
   of a step), and their one-pixel centre lines (:mod:`vision._string_ridges`);
3. centre-line fragments (:mod:`vision._string_fragments`) linked into the one closed loop,
   bridging gaps where the string runs under items (:mod:`vision._string_loop`);
4. sub-pixel refinement in the full working image wherever the string is visible, including
   bridged stretches that pass right next to visible string (:mod:`vision._string_refine`).

If the nominal colour finds no loop, or only a weak one, the search is repeated with the colour
model re-centred on what was found and with the cord's saturation shifted (warm light, sheen);
the most confident loop wins. If with an item mask still no loop is found, the whole search is
repeated allowing long gaps over table the mask calls free: the mask may lack an item.

When no colour model finds a loop (a cord of the table's own colour), the caller may search
where a learned segmenter sees string instead (:func:`find_boundary_where_seen`: its
probability map takes the colour likelihood's place in stages 2-3).

When the table plane is known, the caller tells the cord's width in the photo (a cord too
thin for the analysis image is looked for again in a finer one) and which loops are as long as
the cord on the table (others, such as a straw-coloured table's edge, are refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision._string_color import StringColour, calibrate, string_likelihood
from vision._string_fragments import Fragment, extract_fragments, weigh_item_contact
from vision._string_loop import LOOP_LENGTH_WIDTHS, LoopTrace, link_loop
from vision._string_refine import refine_centre_line
from vision._string_ridges import RIDGE_SIGMAS_PX, centre_line_mask, ridge_maps

ANALYSIS_LONG_SIDE_PX = 1008
"""Target long side (px) of the image the loop is searched in: the working image reduced by
the nearest whole factor (2016 -> 1008, 1600 -> 800). Refinement uses the working image."""
DEFAULT_STRING_RGB = (228, 211, 146)
MIN_CONFIDENCE = 0.35
"""Loops found with less confidence are not reported: chains of item outlines and table
texture (mostly when no item mask is given) close into such weak loops; the real string,
even half hidden, scores higher."""
MIN_ANALYSIS_STRING_WIDTH_PX = 2.5
"""The thinnest cord (analysis px) the ridge scales (:data:`RIDGE_SIGMAS_PX`) respond to well."""
CONFIDENT = 0.4
"""A loop found with less confidence (or none) is searched again with other colour models
(:func:`_alternative_colours`); the most confident result wins."""
ALTERNATIVE_CHROMA_FACTORS = (1.5, 1.0 / 1.5)
"""Saturation changes (C*/L* factors) tried when the nominal colour finds no good loop: a warm
light or a glossy sheen moves the cord's saturation more than its hue."""
ALTERNATIVE_HUE_SHIFTS_DEG = (-24.0, 24.0)
"""Hue shifts (deg, two model spreads) tried last, when no model of the cord's own hue finds a
loop even with long gaps allowed: under a cold or coloured light, or on a cord dyed a little
differently, the cord's hue moves farther than a cast the calibration follows (a straw cord
under blue light: hue 70 deg instead of 95). Tried only then, since other hues also find the
outlines of yellow and red items."""
WASHED_OUT_CHROMA_FACTOR = 0.5
"""Saturation factor tried with each hue last: a dull light or a thin, blurred cord greys it."""
EXPECTED_LENGTH_RATIO = 0.85
"""The loop's length in widths over :data:`LOOP_LENGTH_WIDTHS` expected in a photo: between
1 (seen square-on) and about 2/3 (strongly foreshortened by the camera's tilt)."""
SEEN_FULL_PROBABILITY = 0.5
"""A segmenter's string probability at which :func:`find_boundary_where_seen` takes a pixel for
string as fully as a pixel of the cord's exact colour (its argmax boundary against one rival
class): the model's coarse pixels blur a thin cord's probability below 1 even where it is
plainly seen, and the ridge thresholds are fractions of a full-contrast bar."""
CALIBRATION_LENGTH_SHARE = 0.5
"""Without a loop, the colour is taken from the longest fragments making up this share."""


@dataclass(frozen=True)
class Boundary:
    """The boundary string's centre line.

    ``polygon_px``: (N, 2) float64 (x, y) in the WORKING image's pixels (pixel centres at whole
    numbers, as in OpenCV), a closed loop (the first point is not repeated), a vertex about
    every 2 px. ``confidence``: 0..1, mostly the share of the loop's length
    that was actually seen (the rest is bridged under items or across short gaps).
    ``by_colour``: whether the cord was told by its colour (:func:`find_boundary`) or only
    where a segmenter sees it (:func:`find_boundary_where_seen`).
    """

    polygon_px: np.ndarray
    confidence: float
    by_colour: bool = True


def is_detectable_string_rgb(string_rgb: tuple[int, int, int]) -> bool:
    """Whether a string of this colour (sRGB 0-255) can be told by colour: not too grey or dark."""
    try:
        StringColour.from_rgb(string_rgb)
    except ValueError:
        return False
    return True


def find_boundary(
    image_bgr: np.ndarray,
    *,
    item_mask: np.ndarray | None = None,
    string_rgb: tuple[int, int, int] = DEFAULT_STRING_RGB,
    string_width_px: float | None = None,
    length_fits: Callable[[np.ndarray], bool] | None = None,
) -> Boundary | None:
    """The string loop in a working image, or None when no plausible closed loop is found.

    ``image_bgr``: (H, W, 3) uint8 working image. ``item_mask``: (H, W) bool, True where
    coasters/napkins lie (the string may pass under them), or None when unknown.
    ``string_rgb``: the string's nominal colour (sRGB 0-255).
    ``string_width_px``: the cord's width in working px where the items lie, when known (from
    the table plane). If the analysis image finds no loop and shows the cord thinner than
    :data:`MIN_ANALYSIS_STRING_WIDTH_PX`, the loop is searched again in a finer one.
    ``length_fits``: when the table plane is known, whether a closed loop ((N, 2) working px)
    is as long as the cord on the table; loops that are not (a table's edge, a chain of item
    outlines) are refused.
    """
    _check_inputs(image_bgr, item_mask)
    reduction = _analysis_reduction(image_bgr)
    reductions = [reduction]
    if string_width_px is not None and string_width_px / reduction < MIN_ANALYSIS_STRING_WIDTH_PX:
        finer = max(1, int(string_width_px // MIN_ANALYSIS_STRING_WIDTH_PX))
        if finer < reduction:
            reductions.append(finer)
    for reduction in reductions:
        found = _search_at(image_bgr, item_mask, string_rgb, reduction, length_fits)
        if found is not None:
            return _refined(image_bgr, item_mask, reduction, *found)
    return None


def find_boundary_where_seen(
    image_bgr: np.ndarray,
    string_seen: np.ndarray,
    *,
    item_mask: np.ndarray | None = None,
    string_rgb: tuple[int, int, int] = DEFAULT_STRING_RGB,
    string_width_px: float | None = None,
    length_fits: Callable[[np.ndarray], bool] | None = None,
) -> Boundary | None:
    """The string loop through where a learned segmenter sees the string, or None.

    For a cord no colour model of :func:`find_boundary` tells from the table (a table of the
    cord's own colour, a washed-out cord on a bright cloth). ``string_seen``: (h, w) float32
    0..1, the segmenter's string probability at any resolution covering the working image; it
    takes the place of the colour likelihood at the analysis resolution. Its bars are as wide
    as the model's coarse pixels, not the cord, so lengths and gaps are measured in
    ``string_width_px`` (the cord's width in working px, from the table plane) when it is
    given. The other arguments are those of :func:`find_boundary`; ``string_rgb`` is only where
    the colour re-estimated under the loop, for the refinement, starts.
    """
    _check_inputs(image_bgr, item_mask)
    reduction = _analysis_reduction(image_bgr)
    small_bgr = _reduced(image_bgr, reduction)
    search_items = _SearchItems.from_mask(_reduce_mask(item_mask, reduction, small_bgr.shape[:2]))
    height, width = small_bgr.shape[:2]
    likelihood = cv2.resize(string_seen, (width, height), interpolation=cv2.INTER_LINEAR)
    likelihood = np.minimum(likelihood / np.float32(SEEN_FULL_PROBABILITY), np.float32(1.0))
    cord_width = None if string_width_px is None else string_width_px / reduction
    fits = None if length_fits is None else _in_analysis_px(length_fits, reduction)
    search = _LoopSearch(small_bgr, search_items, False, fits)
    fragments = search.fragments_in(likelihood, cord_width)
    trace = search.linked(fragments)
    if search_items.covered is not None and _weak(trace):
        # as in the colour search: the mask may lack an item the string hides under
        retry = replace(search, unexplained_gaps=True).linked(fragments)
        if retry is not None and (trace is None or _confidence(retry) > _confidence(trace)):
            trace = retry
    if not _reportable(trace):
        return None
    nominal = StringColour.from_rgb(string_rgb)
    colour = _calibrated_colour(small_bgr, nominal, trace, []) or nominal
    return replace(_refined(image_bgr, item_mask, reduction, colour, trace), by_colour=False)


def _check_inputs(image_bgr: np.ndarray, item_mask: np.ndarray | None) -> None:
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError(
            f"image_bgr must be (H, W, 3) uint8, got {image_bgr.shape} {image_bgr.dtype}"
        )
    height, width = image_bgr.shape[:2]
    if item_mask is not None and item_mask.shape != (height, width):
        raise ValueError(f"item_mask must be {(height, width)}, got {item_mask.shape}")


def _analysis_reduction(image_bgr: np.ndarray) -> int:
    """The whole factor that brings the working image near :data:`ANALYSIS_LONG_SIDE_PX`."""
    return max(1, round(max(image_bgr.shape[:2]) / ANALYSIS_LONG_SIDE_PX))


def _refined(
    image_bgr: np.ndarray,
    item_mask: np.ndarray | None,
    reduction: int,
    colour: StringColour,
    trace: LoopTrace,
) -> Boundary:
    """The boundary of a loop found in the analysis image reduced ``reduction`` times, its
    centre line refined in the working image with the colour model ``colour``."""
    # Analysis px -> working px (pixel centres: x_work + 0.5 = (x_small + 0.5) * reduction).
    points_px = (trace.points_px + 0.5) * reduction - 0.5
    widths_px = trace.width_px * reduction
    polygon_px = refine_centre_line(
        image_bgr, points_px, trace.observed, widths_px, item_mask=item_mask, colour=colour
    )
    return Boundary(polygon_px=polygon_px, confidence=_confidence(trace))


def _search_at(
    image_bgr: np.ndarray,
    item_mask: np.ndarray | None,
    string_rgb: tuple[int, int, int],
    reduction: int,
    length_fits: Callable[[np.ndarray], bool] | None,
) -> tuple[StringColour, LoopTrace] | None:
    """The most confident loop (analysis px) in the working image reduced ``reduction`` times,
    with the colour model that found it, or None when no loop is confident enough."""
    small_bgr = _reduced(image_bgr, reduction)
    small_items = _reduce_mask(item_mask, reduction, small_bgr.shape[:2])
    search_items = _SearchItems.from_mask(small_items)

    nominal = StringColour.from_rgb(string_rgb)
    fits = None if length_fits is None else _in_analysis_px(length_fits, reduction)
    # last, when the cord's hue and saturation found nothing: the hue shifted too
    for hue_shifted in (False, True):
        colour, trace = _search_colours(small_bgr, search_items, nominal, False, hue_shifted, fits)
        if search_items.covered is not None and _weak(trace):
            # The mask may lack an item the string hides under (one the detector missed):
            # allow long gaps over "free" table too, at a surcharge, before giving up.
            retry_colour, retry = _search_colours(
                small_bgr, search_items, nominal, True, hue_shifted, fits
            )
            if retry is not None and (trace is None or _confidence(retry) > _confidence(trace)):
                colour, trace = retry_colour, retry
        if not _weak(trace):
            break
    if not _reportable(trace):
        return None
    return colour, trace


def _reduced(image_bgr: np.ndarray, reduction: int) -> np.ndarray:
    """The analysis image: the working image area-reduced by a whole factor (cheap and exact;
    the last rows and columns that do not fill a block are dropped)."""
    if reduction == 1:
        return image_bgr
    height, width = image_bgr.shape[:2]
    size = (max(1, width // reduction), max(1, height // reduction))
    return cv2.resize(
        image_bgr[: size[1] * reduction, : size[0] * reduction], size, interpolation=cv2.INTER_AREA
    )


def _reportable(trace: LoopTrace | None) -> bool:
    """Whether a loop is reported: confident enough, or too weak only by the width's ruler
    (:func:`_seen_enough_on_table`)."""
    return trace is not None and (not _weak(trace) or _seen_enough_on_table(trace))


def _seen_enough_on_table(trace: LoopTrace) -> bool:
    """Whether a loop too weak by :func:`_confidence` is still taken: its length fits the
    cord's on the table, and :data:`MIN_CONFIDENCE` of it is seen. The width a blurred or
    steeply tilted cord shows is a poor ruler (validation 0007: a loop 0.99 of the cord's length
    on the table measured half of it in widths, and was discounted to 0.34 though 0.59 of it
    was seen); it still ranks the loops, and a stronger one found any other way wins."""
    seen = trace.observed_widths / max(trace.total_widths, 1e-9)
    return trace.length_on_table and seen >= MIN_CONFIDENCE


@dataclass(frozen=True)
class _SearchItems:
    """The item mask in analysis px, prepared for the search (all None without a mask):
    ``covered`` (H, W) bool, ``distance_px`` to the nearest item, ``gap_mask`` the mask grown
    by a little more than a centre line's trimmed end, for judging what a gap hides."""

    covered: np.ndarray | None
    distance_px: np.ndarray | None
    gap_mask: np.ndarray | None

    @classmethod
    def from_mask(cls, covered: np.ndarray | None) -> _SearchItems:
        if covered is None:
            return cls(None, None, None)
        distance_px = cv2.distanceTransform((~covered).astype(np.uint8), cv2.DIST_L2, 3)
        reach = int(np.ceil(2 * RIDGE_SIGMAS_PX[1]))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        gap_mask = cv2.dilate(covered.astype(np.uint8), kernel) > 0
        return cls(covered, distance_px, gap_mask)


def _in_analysis_px(
    length_fits: Callable[[np.ndarray], bool], reduction: int
) -> Callable[[np.ndarray], bool]:
    """``length_fits`` (told a loop in working px) for a loop in analysis px."""

    def fits(points_px: np.ndarray) -> bool:
        return length_fits((points_px + 0.5) * reduction - 0.5)

    return fits


def _search_colours(
    small_bgr: np.ndarray,
    items: _SearchItems,
    nominal: StringColour,
    unexplained_gaps: bool,
    hue_shifted: bool,
    length_fits: Callable[[np.ndarray], bool] | None,
) -> tuple[StringColour, LoopTrace | None]:
    """The loop with the nominal colour model or, if it finds none or a weak one, the most
    confident with the :func:`_alternative_colours` (and, with ``hue_shifted``, the
    :func:`_hue_shifted_colours`); and the colour model that found it.
    ``unexplained_gaps``, ``length_fits``: see :func:`vision._string_loop.link_loop`."""
    search = _LoopSearch(small_bgr, items, unexplained_gaps, length_fits)
    trace, fragments = search.loop(nominal)
    colour = nominal
    if trace is None or _confidence(trace) < CONFIDENT:
        alternatives = _alternative_colours(small_bgr, nominal, trace, fragments)
        if hue_shifted:
            alternatives += _hue_shifted_colours(nominal)
        for alternative in alternatives:
            retry, _ = search.loop(alternative)
            if retry is not None and (trace is None or _confidence(retry) > _confidence(trace)):
                colour, trace = alternative, retry
                if _confidence(trace) >= CONFIDENT:
                    break
    return colour, trace


@dataclass(frozen=True)
class _LoopSearch:
    """Stages 1-3 in the analysis image ``small_bgr``, for one colour model at a time."""

    small_bgr: np.ndarray
    items: _SearchItems
    unexplained_gaps: bool
    length_fits: Callable[[np.ndarray], bool] | None

    def loop(self, colour: StringColour) -> tuple[LoopTrace | None, list[Fragment]]:
        """Likelihood of ``colour``, ridges, centre-line fragments, and the closed loop through
        them (None if there is none)."""
        fragments = self.fragments_in(string_likelihood(self.small_bgr, colour))
        return self.linked(fragments), fragments

    def fragments_in(
        self, likelihood: np.ndarray, cord_width_px: float | None = None
    ) -> list[Fragment]:
        """Ridges and centre-line fragments of an (H, W) float32 0..1 likelihood of string in
        the analysis image (modified in place: zero under items). ``cord_width_px``: the width
        (analysis px) lengths are measured in, or None for the ridges' own."""
        if self.items.covered is not None:
            likelihood[self.items.covered] = 0.0
        ridges = ridge_maps(likelihood, self.items.covered)
        if cord_width_px is not None:
            width_px = np.where(ridges.strength > 0, np.float32(cord_width_px), np.float32(0))
            ridges = replace(ridges, width_px=width_px)
        fragments = extract_fragments(centre_line_mask(ridges), ridges)
        if self.items.distance_px is not None:
            fragments = weigh_item_contact(fragments, self.items.distance_px)
        return fragments

    def linked(self, fragments: list[Fragment]) -> LoopTrace | None:
        """The closed loop through ``fragments`` (None if there is none)."""
        return link_loop(
            fragments,
            self.items.gap_mask,
            unexplained_gaps=self.unexplained_gaps,
            length_fits=self.length_fits,
        )


def _alternative_colours(
    small_bgr: np.ndarray,
    nominal: StringColour,
    trace: LoopTrace | None,
    fragments: list[Fragment],
) -> list[StringColour]:
    """Colour models to try after the nominal one: first re-centred on what was found, then
    the nominal hue at :data:`ALTERNATIVE_CHROMA_FACTORS` times its saturation."""
    alternatives = []
    calibrated = _calibrated_colour(small_bgr, nominal, trace, fragments)
    if calibrated is not None and calibrated != nominal:
        alternatives.append(calibrated)
    for factor in ALTERNATIVE_CHROMA_FACTORS:
        alternatives.append(StringColour(nominal.hue_deg, nominal.chroma_ratio * factor))
    return alternatives


def _hue_shifted_colours(nominal: StringColour) -> list[StringColour]:
    """Colour models tried last: the hue shifted by :data:`ALTERNATIVE_HUE_SHIFTS_DEG` at the
    nominal saturation, at :data:`ALTERNATIVE_CHROMA_FACTORS` times it and at
    :data:`WASHED_OUT_CHROMA_FACTOR` times it, then the nominal hue washed out."""
    factors = (1.0, *ALTERNATIVE_CHROMA_FACTORS, WASHED_OUT_CHROMA_FACTOR)
    shifted = [
        StringColour(nominal.hue_deg + shift, nominal.chroma_ratio * factor)
        for shift in ALTERNATIVE_HUE_SHIFTS_DEG
        for factor in factors
    ]
    return [
        *shifted,
        StringColour(nominal.hue_deg, nominal.chroma_ratio * WASHED_OUT_CHROMA_FACTOR),
    ]


def _weak(trace: LoopTrace | None) -> bool:
    """No loop, or one too weak to report (:data:`MIN_CONFIDENCE`)."""
    return trace is None or _confidence(trace) < MIN_CONFIDENCE


def _calibrated_colour(
    small_bgr: np.ndarray,
    nominal: StringColour,
    trace: LoopTrace | None,
    fragments: list[Fragment],
) -> StringColour | None:
    """The string's colour re-estimated from the pixels under the loop's seen stretches or,
    with no loop, under the longest fragments (the string is the longest thin line of its
    colour): those that together make up :data:`CALIBRATION_LENGTH_SHARE` of all fragments'
    length."""
    if trace is not None:
        points = trace.points_px[trace.observed]
    elif fragments:
        longest = sorted(fragments, key=lambda fragment: -fragment.length_widths)
        lengths = np.cumsum([fragment.length_widths for fragment in longest])
        count = int(np.searchsorted(lengths, CALIBRATION_LENGTH_SHARE * lengths[-1])) + 1
        points = np.concatenate([fragment.points_px for fragment in longest[:count]])
    else:
        return None
    height, width = small_bgr.shape[:2]
    xs = np.clip(np.round(points[:, 0]).astype(int), 0, width - 1)
    ys = np.clip(np.round(points[:, 1]).astype(int), 0, height - 1)
    return calibrate(nominal, small_bgr[ys, xs])


def _confidence(trace: LoopTrace) -> float:
    """0..1: the loop's seen share, discounted when its length in widths is implausible."""
    seen = trace.observed_widths / max(trace.total_widths, 1e-9)
    length_ratio = trace.total_widths / LOOP_LENGTH_WIDTHS
    # 1 at the expected length, falling (in log) to 0 at a factor of 2 either way.
    off_by = abs(np.log(length_ratio / EXPECTED_LENGTH_RATIO)) / np.log(2.0)
    plausible = float(np.clip(1.0 - off_by, 0.0, 1.0))
    return float(np.clip(seen, 0.0, 1.0)) * (0.5 + 0.5 * plausible)


def _reduce_mask(
    mask: np.ndarray | None, reduction: int, shape: tuple[int, int]
) -> np.ndarray | None:
    """(h, w) bool: True wherever any part of the ``reduction`` x ``reduction`` block was True."""
    if mask is None:
        return None
    if reduction == 1:
        return mask.astype(bool)
    height, width = shape
    cropped = mask[: height * reduction, : width * reduction].astype(np.uint8)
    # An exact block average (whole factor); any covered pixel makes the block covered.
    return cv2.resize(cropped, (width, height), interpolation=cv2.INTER_AREA) > 0
