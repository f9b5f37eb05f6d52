"""A second look at the colour of coasters whose matched features could not tell it.

:func:`vision.identify.identify` decides a colour on the pixels near the item's matched
features, the only ones surely showing it before the stacking order is known. Features gather
on the printed pretzels and labels, whose colours are alike on every coaster, so a coaster
whose coloured ground shows only away from its features (the bottom of a stack, a coaster
half under a napkin) can come out a near tie between colours. Once the stacking order is
known, every pixel of the coaster's outline that no item above it covers shows it (or a thing
no item explains, which the median then outvotes): the colour is decided again there. A new
colour is taken only when it wins there clearly (by :data:`RECHECK_MARGIN` or more) and its art
explains those pixels about as well as the first look's art explained the features'
surroundings (:data:`MAX_ERROR_GROWTH`): pixels it explains far worse do not all show this
coaster (something no item explains lies on it, or a few features matched where there is no
coaster at all, and the table's plain ground reads as the palest colour). Otherwise the first
decision stands, light gains and all, so that a second near tie changes nothing.
A face-up coaster that earns money and whose colour is a near tie even so is named in a
warning, for a person to check.

Frames: canvas px of the final rectified view (:class:`vision.detect.CanvasView`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary
from vision.detect import CanvasView
from vision.hidden import Placement
from vision.identify import IdentifiedItem, identify, item_box, render, visible_mask
from vision.occlusion import outlines_mask

#: Coasters whose colour won by less than this (relative margin) are looked at again.
RECHECK_MARGIN = 0.1
#: A new colour's median error on the uncovered pixels may be at most this many times the first
#: look's on the features' surroundings.
MAX_ERROR_GROWTH = 1.5
#: Pixels this close to the coaster's own outline or to an item above it (mm) are left out:
#: the poses are known to a pixel or so, and edges carry shadows.
EDGE_MARGIN_MM = 2.0


def uncovered_mask(
    library: ArtLibrary, view: CanvasView, item: Placement, others: Sequence[Placement]
) -> np.ndarray:
    """Mask of ``item``'s canvas box (:func:`vision.identify.item_box`): inside its outline
    (at least :data:`EDGE_MARGIN_MM` in) and away from every item in ``others``."""
    box = item_box(view, item.side, item.pose)
    margin = max(1, round(EDGE_MARGIN_MM * view.px_per_mm))
    colour = library.reference_colors()[0]  # the shape is alike in every colour
    alpha = render(library, view, item.side, colour, item.pose, box).alpha
    inside = cv2.erode((alpha > 0.99).astype(np.uint8), np.ones((2 * margin + 1,) * 2, np.uint8))
    return (inside > 0) & ~outlines_mask(view, others, box, EDGE_MARGIN_MM)


def recheck_colours(
    library: ArtLibrary,
    view: CanvasView,
    items: list[IdentifiedItem],
    z: list[int],
    light_bgr: np.ndarray | None = None,
) -> list[IdentifiedItem]:
    """``items`` with the colour of each coaster that won by less than :data:`RECHECK_MARGIN`
    decided again on its uncovered pixels (stacking ranks ``z``, 0 lowest), where those show
    more of it than its features' surroundings; a coaster is replaced only when another colour
    wins there by :data:`RECHECK_MARGIN` or more and explains them within
    :data:`MAX_ERROR_GROWTH` of the first look's error. ``light_bgr``: the scene light
    (:func:`vision.identify.identify`), when known."""
    rechecked = list(items)
    for k, item in enumerate(items):
        if item.side.kind is not ItemKind.COASTER or item.color_margin >= RECHECK_MARGIN:
            continue
        above = [other for j, other in enumerate(items) if j != k and z[j] > z[k]]
        seen = uncovered_mask(library, view, item, above)
        box = item_box(view, item.side, item.pose)
        if seen.sum() <= visible_mask(view, box, item.pose, item.points_local_mm).sum():
            continue
        again = identify(
            library,
            view,
            item.side,
            item.pose,
            item.points_local_mm,
            keep_side=True,
            seen=seen,
            light_bgr=light_bgr,
        )
        if (
            again.color != item.color
            and again.color_margin >= RECHECK_MARGIN
            and min(again.color_errors) <= MAX_ERROR_GROWTH * min(item.color_errors)
        ):
            rechecked[k] = again
    return rechecked


def colour_doubts(
    library: ArtLibrary, items: list[IdentifiedItem], earning: Sequence[bool]
) -> list[str]:
    """A warning for each face-up coaster (``items``' index, as in the contract) that earns money
    (``earning``: it counts and shows an icon) and whose colour still won by less than
    :data:`RECHECK_MARGIN`, naming the colour it is hard to tell from."""
    names = library.catalogue.color_names
    doubts = []
    for k, (item, earns) in enumerate(zip(items, earning, strict=True)):
        if (
            not earns
            or item.side.kind is not ItemKind.COASTER
            or item.side.face is not Face.UP
            or item.color_margin >= RECHECK_MARGIN
            or len(item.color_errors) != len(names)
        ):
            continue
        rival = min(
            (error, name)
            for error, name in zip(item.color_errors, names, strict=True)
            if name != item.color
        )[1]
        doubts.append(
            f"item {k} (the {item.color} {item.side.type_name} coaster): its colour is hard "
            f"to tell from {rival}; check it in the photo"
        )
    return doubts
