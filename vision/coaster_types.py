"""Re-decide the type of coasters found by features that their art does not explain.

The feature passes (:mod:`vision.detect`) find a coaster by the features of any part of its art.
Icons repeat across types (the $1 pretzel is printed on the beer, double and triple coasters),
so a coaster seen through a few features of one icon can be taken for another type that holds
a like icon, and placed where that icon sits on it: the outline and the other icons then fall
on the table or on other items, and the placed art correlates poorly with the photo. On 78
validation and held-out photos (132 face-up coasters with 20 matched features or fewer), the
misread ones correlated -0.04 to 0.48, their true placement 0.67 to 0.95; rightly read ones
correlated 0.22 to 0.97, and the best rival of each (another type, or the same type anchored
on another of its icons) reached 0.62 only once, 0.03 above it.

:func:`recheck_type` compares a face-up coaster's art at its pose with the view's ink, over its
pixels clear of the other items (:func:`vision.art_fit.art_correlation`). When it falls short of
:data:`MIN_CORRELATION` (the correlation a hidden coaster needs to be found,
:data:`vision.hidden.MIN_CORRELATION`), competing placements are tried: every coaster face with
one of its icons laid over the icon of the found coaster that holds most of its matched features,
turned about that icon by each of :data:`RIVAL_TURNS_DEG` (a pose from a few features of one
icon can be that far off in turn), and every coaster face of the same shape at the same pose
(features on the shared rim print); each is started at its turn that correlates best and refined
(:func:`vision.art_fit.refine_pose`) where :data:`MIN_CLEAR_SHARE` of it shows clear of the
other items. The best replaces the coaster when it reaches
:data:`MIN_CORRELATION` and beats the coaster's own refined art by :data:`MIN_GAIN`. When a
rival placement is a coaster found already, the coaster was a second reading of it through
one of its icons, and is dropped if that coaster's art explains the pixels better (of two
readings of one coaster, the right one stays whichever is checked).

Frames: *canvas px* (the view's pixels), *table mm*, *side-local mm* (see :mod:`vision.art`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shapely import contains_xy

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary, Side
from vision.art_fit import MAX_SHIFT_MM, art_correlation, ink_arts, refine_pose
from vision.detect import CanvasView
from vision.hidden import MIN_CORRELATION, Placement, covered_mask
from vision.plane import ItemPose

#: A rival placement is judged only where this share of its art or more is clear of the other
#: items: a few pixels agree with any art.
MIN_CLEAR_SHARE = 0.3
#: How much better than the coaster's own art (refined) a competing placement must correlate.
MIN_GAIN = 0.25
#: A rival placement this close to an item found (centre, mm; turn, deg) is that item.
SAME_PLACE_MM = 4.0
SAME_TURN_DEG = 8.0
#: Matched features within this of an icon's outline count as on that icon (mm).
_ON_ICON_MM = 2.0
#: Turns (deg, from the found coaster's) a rival laid over its matched icon is tried at, about
#: that icon. A coaster placed by a few features of one icon can be off in turn: held-out doubles
#: read as triples through one icon were 23 deg off, and the double's art at the found turn
#: correlated under 0.5 where at its own turn it correlated 0.92. Steps of 5 deg leave the
#: hill-climb at most 2.5 deg and, 20 mm from the icon, 0.9 mm to go.
RIVAL_TURNS_DEG = tuple(range(-30, 31, 5))


@dataclass(frozen=True)
class FoundSide:
    """An item side found by its features: ``pose`` in table mm, the matched features in the
    side's frame (``points_local_mm``, (N, 2) side-local mm)."""

    side: Side
    pose: ItemPose
    points_local_mm: np.ndarray


def recheck_types(
    view: CanvasView, library: ArtLibrary, found: list[FoundSide], also: list[Placement]
) -> list[FoundSide]:
    """``found`` with every coaster face re-checked by :func:`recheck_type` against the other
    items (``found`` and ``also``: their pixels are not compared), second readings dropped.
    Each is checked against the ones before it as already re-checked: a coaster first placed
    off, through one icon, covers where it truly lies, and hides that a later reading of the
    same coaster through another icon is a second reading."""
    out: list[FoundSide] = []
    for k, item in enumerate(found):
        checked: FoundSide | None = item
        if item.side.kind is ItemKind.COASTER and item.side.face is Face.UP:
            checked = recheck_type(view, library, item, [*out, *found[k + 1 :], *also])
        if checked is not None:
            out.append(checked)
    return out


def recheck_type(
    view: CanvasView, library: ArtLibrary, coaster: FoundSide, others: list[Placement]
) -> FoundSide | None:
    """The coaster face ``coaster``, or the rival placement that explains the view better when
    its own art does not (module docstring); pixels covered by ``others`` are not compared.
    None when a rival placement is one of ``others`` (the same side within
    :data:`SAME_PLACE_MM` and :data:`SAME_TURN_DEG`) whose art explains the pixels around
    better than the coaster's (the two compared without each other's cover): the coaster is
    a second reading, through one of its icons, of a coaster found already."""
    side, pose = coaster.side, coaster.pose
    local = local_view(view, side, pose)
    covered = covered_mask(local, others)
    arts = ink_arts(library, side, local.px_per_mm)
    if art_correlation(local, arts, pose, covered) >= MIN_CORRELATION:
        return coaster
    rivals = rival_placements(library, side, pose, coaster.points_local_mm)
    placements = [(rival_side, p) for rival_side, poses in rivals for p in poses]
    twins = {id(t): t for t in (_placed_as(p, others) for p in placements) if t is not None}
    for twin in twins.values():
        rest = covered_mask(local, [o for o in others if o is not twin])
        theirs = art_correlation(
            local, ink_arts(library, twin.side, local.px_per_mm), twin.pose, rest
        )
        if theirs > art_correlation(local, arts, pose, rest):
            return None
    own = refine_pose(local, arts, pose, covered)[0]
    best, best_score = coaster, max(MIN_CORRELATION, own + MIN_GAIN)
    table_points = pose.local_to_table(coaster.points_local_mm)
    for rival_side, poses in rivals:
        rival_arts = ink_arts(library, rival_side, local.px_per_mm)
        start = max(
            poses, key=lambda p: art_correlation(local, rival_arts, p, covered, MIN_CLEAR_SHARE)
        )
        score, refined = refine_pose(local, rival_arts, start, covered, MIN_CLEAR_SHARE)
        if score >= best_score:
            best = FoundSide(rival_side, refined, refined.table_to_local(table_points))
            best_score = score
    return best


def _placed_as(placement: tuple[Side, ItemPose], items: list[Placement]) -> Placement | None:
    """The one of ``items`` that is ``placement``'s side at about its pose, if any."""
    side, pose = placement
    for item in items:
        turn = np.angle(np.exp(1j * (item.pose.angle_rad - pose.angle_rad)))
        if (
            item.side == side
            and np.hypot(*np.subtract(item.pose.center_mm, pose.center_mm)) < SAME_PLACE_MM
            and abs(np.rad2deg(turn)) < SAME_TURN_DEG
        ):
            return item
    return None


def rival_placements(
    library: ArtLibrary, side: Side, pose: ItemPose, points_local_mm: np.ndarray
) -> list[tuple[Side, tuple[ItemPose, ...]]]:
    """Placements of other coaster faces that would show what the matched features saw, each
    with the poses it is tried at: each face's icons laid over the icon that holds most of the
    features, turned about it by :data:`RIVAL_TURNS_DEG`, and the faces of the same shape at
    the same pose."""
    faces = [s for s in library.sides if s.kind is ItemKind.COASTER and s.face is Face.UP]
    catalogue = library.catalogue
    icons = catalogue.coaster_type(side.type_name).icons
    held = [
        int(contains_xy(i.outline_mm.buffer(_ON_ICON_MM), *points_local_mm.T).sum()) for i in icons
    ]
    out = [(s, (pose,)) for s in faces if s != side and s.shape == side.shape]
    if not held or max(held) == 0:
        return out
    anchor_local = np.asarray(icons[int(np.argmax(held))].outline_mm.centroid.coords[0])
    anchor = pose.local_to_table(anchor_local[None])[0]
    for face in faces:
        for icon in catalogue.coaster_type(face.type_name).icons:
            icon_local = np.asarray(icon.outline_mm.centroid.coords)
            poses = []
            for turn_deg in RIVAL_TURNS_DEG:
                angle = pose.angle_rad + np.deg2rad(turn_deg)
                # side-local offsets turned onto the table
                offset = ItemPose((0.0, 0.0), angle).local_to_table(icon_local)[0]
                centre = anchor - offset
                if face == side and np.hypot(*(centre - pose.center_mm)) < MAX_SHIFT_MM:
                    continue  # the found placement itself
                poses.append(ItemPose((float(centre[0]), float(centre[1])), angle))
            if poses:
                out.append((face, tuple(poses)))
    return out


def local_view(view: CanvasView, side: Side, pose: ItemPose) -> CanvasView:
    """The part of ``view`` any rival placement of the coaster can reach (same pixels, same
    scale; its origin moved to the crop's corner)."""
    reach = (3 * side.shape.half_extent_mm + MAX_SHIFT_MM) * view.px_per_mm + 2
    return view.around(pose.center_mm, reach)
