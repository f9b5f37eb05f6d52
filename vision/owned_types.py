"""Each player owns one coaster of each type: two face-up coasters of one colour and one type
cannot both be right.

A coaster mostly hidden under others shows its rim and a piece of one icon, and icons repeat
across types (the $1 pretzel is printed on the beer, double and triple coasters; a round rim
is the beer's, the double's and the soft's), so it can be read as the type of a coaster of its
colour that lies on the table already. Another reading of a coaster through a few stray
features can land a few centimetres off the coaster, as the same type. On the held-out and dev
photos, 79 of 330 showed such a conflict (29 of them scored wrong), and in each the rest of the
game is what tells which reading is wrong: the colour's other coasters take types of their own.

:func:`one_coaster_per_type`, once the stacking order is known, ranks the coasters of each
conflict by how well their art explains their pixels that no item above them covers
(:func:`vision.art_fit.art_correlation`), and keeps the best. Each other one is read again as
each type its colour has not shown, of either shape (a coaster mostly hidden shows too little
of its outline to tell a round one from a square one), laid where the coaster lies and over
the icon that holds most of its features (:func:`vision.coaster_types.rival_placements`), its
pose refined. The best such reading replaces it when its art explains the pixels as well as a
hidden coaster needs to be found (:data:`vision.hidden.MIN_CORRELATION`). Otherwise it stays as
read, and :func:`type_conflicts` names the coasters for a person to check.

Dropping such a coaster instead, when its own art explains it poorly, was tried and not kept:
on the 300 held-out photos, 11 of the 24 it would drop were real coasters (mostly hidden ones,
whose type no art explained well), and a dropped item changes what else is found (the string
traced around the items, the plane chosen among two by the items it places): 2 photos gained,
3 lost.

With five players the rules take a coaster type out of the box before the round
(:data:`games.beer_pretzels.scoring.FIVE_PLAYER_REMOVED_TYPES`), so a face-up coaster read as
such a type in a five-player round is a misread too, and as read it links nothing and covers
nothing (held-out-reference 0197: a blue triple coaster at the bottom of a stack read as the
gray soft one broke the chain of three coasters to the string; on those 300 photos 9 coasters
in 8 photos were read so, and none lies there). :func:`coasters_in_play` reads each such
coaster again as the type in play, of any colour, whose art explains its uncovered pixels best,
the same way, and keeps the reading on the same terms.

Frames: canvas px of the final rectified view (:class:`vision.detect.CanvasView`), table mm.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary, Side
from vision.art_fit import art_correlation, ink_arts, refine_pose
from vision.coaster_types import MIN_CLEAR_SHARE, local_view, rival_placements
from vision.detect import CanvasView
from vision.hidden import MIN_CORRELATION, covered_mask
from vision.identify import IdentifiedItem, identify
from vision.plane import ItemPose

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Reading:
    """A coaster face read at ``pose`` (table mm) and how well its art explains the pixels."""

    side: Side
    pose: ItemPose
    correlation: float


def one_coaster_per_type(
    library: ArtLibrary,
    view: CanvasView,
    items: list[IdentifiedItem],
    z: list[int],
    light_bgr: np.ndarray | None = None,
) -> list[IdentifiedItem]:
    """``items`` (stacking ranks ``z``) with every face-up coaster that repeats a type its
    colour shows already read again as a free type where one explains it (module docstring);
    ``light_bgr``: the scene light (:func:`vision.identify.identify`), when known.
    Items keep their order; a re-read coaster is identified again in its colour."""
    out = list(items)
    for members in _conflicts(items):
        above = [_items_above(items, z, k, members) for k in members]
        own = [
            _correlation(view, library, items[k].side, items[k].pose, covers)
            for k, covers in zip(members, above, strict=True)
        ]
        ranked = sorted(range(len(members)), key=lambda i: -own[i])
        for i in ranked[1:]:
            k = members[i]
            coaster = items[k]
            free = _free_sides(library, out, k)
            best = _best_reading(view, library, coaster, free, above[i])
            if best is not None and best.correlation >= MIN_CORRELATION:
                log.debug(
                    "%s %s read again as %s (%.2f, own %.2f)",
                    coaster.color,
                    coaster.side,
                    best.side,
                    best.correlation,
                    own[i],
                )
                out[k] = _read_as(
                    library, view, coaster, best, frozenset({coaster.color}), light_bgr
                )
    return out


def coasters_in_play(
    library: ArtLibrary,
    view: CanvasView,
    items: list[IdentifiedItem],
    z: list[int],
    removed_types: Collection[str],
    light_bgr: np.ndarray | None = None,
) -> list[IdentifiedItem]:
    """``items`` (stacking ranks ``z``) with every face-up coaster of a type out of the round
    (``removed_types``: :func:`vision.players.removed_types`) read again as the face-up type in
    play, of either shape, whose art explains its pixels clear of the items above best, where
    one explains them as well as a hidden coaster needs to be found
    (:data:`vision.hidden.MIN_CORRELATION`); its colour is then told again among all colours
    (module docstring). Items keep their order."""
    if not removed_types:
        return items
    in_play = [
        side
        for side in library.sides
        if side.kind is ItemKind.COASTER
        and side.face is Face.UP
        and side.type_name not in removed_types
    ]
    out = list(items)
    for k, coaster in enumerate(items):
        if not (_is_face_up_coaster(coaster) and coaster.side.type_name in removed_types):
            continue
        best = _best_reading(view, library, coaster, in_play, _items_above(items, z, k, [k]))
        if best is not None and best.correlation >= MIN_CORRELATION:
            log.debug(
                "%s %s out of play read again as %s (%.2f)",
                coaster.color,
                coaster.side,
                best.side,
                best.correlation,
            )
            out[k] = _read_as(library, view, coaster, best, None, light_bgr)
    return out


def type_conflicts(items: list[IdentifiedItem]) -> list[str]:
    """A warning for each colour and type that more than one face-up coaster of ``items``
    (indexed as in the contract) still shows."""
    return [
        f"items {', '.join(map(str, members))} are all read as the "
        f"{items[members[0]].color} {items[members[0]].side.type_name} coaster, of which a "
        "player owns one: check them in the photo"
        for members in _conflicts(items)
    ]


def _is_face_up_coaster(item: IdentifiedItem) -> bool:
    return item.side.kind is ItemKind.COASTER and item.side.face is Face.UP


def _conflicts(items: list[IdentifiedItem]) -> list[list[int]]:
    """Indices of the face-up coasters of each (colour, type) read more than once."""
    groups: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for k, item in enumerate(items):
        if _is_face_up_coaster(item):
            groups[(item.color, item.side.type_name)].append(k)
    return [members for members in groups.values() if len(members) > 1]


def _items_above(
    items: list[IdentifiedItem], z: list[int], k: int, members: list[int]
) -> list[IdentifiedItem]:
    """The items lying above item ``k`` (a face-down coaster hides pixels too), leaving out
    the other readings of its conflict (``members``): two readings of one coaster must not
    hide each other."""
    return [other for j, other in enumerate(items) if j not in members and z[j] > z[k]]


def _free_sides(library: ArtLibrary, items: list[IdentifiedItem], k: int) -> list[Side]:
    """The coaster faces whose type no other face-up coaster of item ``k``'s colour shows."""
    coaster = items[k]
    claimed = {
        item.side.type_name
        for j, item in enumerate(items)
        if j != k and _is_face_up_coaster(item) and item.color == coaster.color
    }
    return [
        side
        for side in library.sides
        if side.kind is ItemKind.COASTER and side.face is Face.UP and side.type_name not in claimed
    ]


def _read_as(
    library: ArtLibrary,
    view: CanvasView,
    coaster: IdentifiedItem,
    reading: _Reading,
    allowed_colors: frozenset[str] | None,
    light_bgr: np.ndarray | None,
) -> IdentifiedItem:
    """``coaster`` identified again as ``reading``'s face at its pose, its matched features
    carried over, its colour told among ``allowed_colors`` (None: all)."""
    points = reading.pose.table_to_local(coaster.pose.local_to_table(coaster.points_local_mm))
    return identify(
        library,
        view,
        reading.side,
        reading.pose,
        points,
        allowed_colors,
        keep_side=True,
        light_bgr=light_bgr,
    )


def _correlation(
    view: CanvasView,
    library: ArtLibrary,
    side: Side,
    pose: ItemPose,
    above: list[IdentifiedItem],
) -> float:
    """How well ``side``'s art at ``pose`` explains the view where ``above`` do not cover it."""
    local = local_view(view, side, pose)
    covered = covered_mask(local, above)
    return art_correlation(local, ink_arts(library, side, local.px_per_mm), pose, covered)


def _best_reading(
    view: CanvasView,
    library: ArtLibrary,
    coaster: IdentifiedItem,
    sides: list[Side],
    above: list[IdentifiedItem],
) -> _Reading | None:
    """The best of ``sides`` read where ``coaster`` lies (its pose and the placements over
    its matched icon), each started at its best placement and refined; None without sides."""
    if not sides:
        return None
    local = local_view(view, coaster.side, coaster.pose)
    covered = covered_mask(local, above)
    placements: dict[Side, list[ItemPose]] = defaultdict(list)
    for side, poses in rival_placements(
        library, coaster.side, coaster.pose, coaster.points_local_mm
    ):
        placements[side] += poses
    best: _Reading | None = None
    for side in sides:
        arts = ink_arts(library, side, local.px_per_mm)
        # a face of the coaster's own shape is among the placements at its pose already
        poses = list(dict.fromkeys([coaster.pose, *placements[side]]))
        start = max(poses, key=lambda p: art_correlation(local, arts, p, covered, MIN_CLEAR_SHARE))
        score, refined = refine_pose(local, arts, start, covered, MIN_CLEAR_SHARE)
        if best is None or score > best.correlation:
            best = _Reading(side, refined, score)
    return best
