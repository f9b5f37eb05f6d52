"""Whether the learned segmenter sees a coaster's face where a coaster found under items shows.

A coaster found under items (:func:`vision.outline_search.find_coasters_under_items`) is
confirmed by its art over the few pixels clear of them, and an art's correlation over a thin
crescent can be met by something else: the item above's own edge and shadow, a neighbour's rim,
the cord on a table of the coaster's colour. The segmenter (:mod:`vision.segmentation`) judges
those pixels on its own, from what it learned coasters look like. Where it gives the found
colour's face almost no probability there, the coaster is taken for a false find.

Frames: the plane's *working image* px, *table mm*; the check is made in a rectified view of
the segmenter's probabilities at :data:`_SEEN_PX_PER_MM`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vision.detect import rectify
from vision.hidden import Placement, covered_mask
from vision.plane import TablePlane
from vision.segmentation import CoasterProbabilities

#: A coaster found under items is kept only if the segmenter gives its colour's face a mean
#: probability of at least this over the part of its outline clear of the items above. On
#: validation photos 150-229 of set seed 2_000_000 (the coasters so found and kept at `4dadde0`,
#: matched to the truth), the 150 right ones measure 0.17 or more (5th percentile 0.37), while 8
#: of the 18 extra coasters measure 0.01-0.06: the segmenter sees another coaster's face there
#: or the table.
MIN_UNDER_FACE_SEEN = 0.1
#: Scale (px per table mm) of the rectified probabilities the check averages; the segmenter's
#: own resolution is coarser than this at every photo scale we read.
_SEEN_PX_PER_MM = 2.0
#: The rectified square reaches this far (mm) beyond the coaster's extent, enough to hold its
#: outline grown by the cover margin.
_REACH_MARGIN_MM = 2.0


def face_seen_clear_of(
    seen: CoasterProbabilities,
    plane: TablePlane,
    coaster: Placement,
    color: str,
    above: Iterable[Placement],
) -> float | None:
    """Mean probability (0..1) the segmenter gives the face of ``color`` over ``coaster``'s
    outline clear of the items ``above`` (each outline grown by the cover margin of
    :func:`vision.hidden.covered_mask`); None where no part of it is clear, where the part
    clear lies beyond the photo, or where the segmenter has no class for that colour."""
    name = f"coaster_face_{color}"
    if name not in seen.class_names:
        return None
    centre = np.asarray(coaster.pose.center_mm, float)
    reach = coaster.side.shape.half_extent_mm + _REACH_MARGIN_MM
    channel = seen.probabilities[:, :, seen.class_names.index(name)]
    # the face's probability and, beside it, ones: what comes out 0 there lies beyond the photo
    stacked = np.dstack([channel, np.ones_like(channel)])
    bounds = np.array([*(centre - reach), *(centre + reach)])
    view = rectify(stacked, plane, bounds, px_per_mm=_SEEN_PX_PER_MM, image_scale=seen.scale)
    face, in_photo = view.image_bgr[:, :, 0], view.image_bgr[:, :, 1] > 0.5
    clear = covered_mask(view, [coaster]) & ~covered_mask(view, above) & in_photo
    if not clear.any():
        return None
    return float(face[clear].mean())


def seen_as_its_face(
    seen: CoasterProbabilities | None,
    plane: TablePlane,
    coaster: Placement,
    color: str,
    above: Iterable[Placement],
) -> bool:
    """Whether the coaster of ``color`` found under ``above`` may be kept: the segmenter gives
    its face :data:`MIN_UNDER_FACE_SEEN` or more where it shows (:func:`face_seen_clear_of`),
    or there is no segmenter, or nothing of it to judge."""
    if seen is None:
        return True
    probability = face_seen_clear_of(seen, plane, coaster, color, above)
    return probability is None or probability >= MIN_UNDER_FACE_SEEN
