"""Each player owns one napkin and five coasters: the colours read must allow that.

Colour is decided item by item (:func:`vision.identify.identify`). Under a coloured light, out
of focus or beside glare, two napkins sometimes read the same colour where every player has one
napkin, or a lone item reads as a colour no other item shows, which makes a fifth player and so
removes every ``soft`` coaster from the game (the rules take them out with five players).
:func:`one_of_each` re-decides those colours from how well every colour explains each item
(``IdentifiedItem.color_errors``):

1. where napkins share a colour, the napkins' colours are assigned so that no two share one, at
   the least total cost, the cost of a colour being how much worse it explains the napkin than
   its best colour (relative). A colour is only changed to one that explains the napkin at
   most :data:`RECOLOUR_MAX_EXCESS` worse than its best, and only on napkins whose pixels tell
   colours apart at all (some colour explains them :data:`MIN_COLOUR_EVIDENCE` worse than the
   best): a clearly read colour stays, and a napkin every colour explains alike (out of focus,
   mostly hidden) keeps its colour rather than take a guess; the conflict is then another
   mistake (a napkin found twice), left as it is. Two face-up coasters of one type reading one
   colour are left too: there a coaster's type read wrong is as likely as its colour (on the dev
   set the one such conflict close enough to re-colour was a type error; on 48 held-out photos
   no such conflict was close enough);
2. a face-up coaster whose pixels hardly tell colours apart (no colour explains it
   :data:`MIN_COLOUR_EVIDENCE` worse than its best: out of focus, under a warm light, its
   colour-bearing print mostly hidden) and that is the only item of its colour (a player with
   one item on the table) takes the colour, among those the other face-up items show, whose
   coaster of that type is still free, the best explained first. On the calibration photos a
   beer coaster every colour explained within 17% read as a colour nobody else showed. Only
   the lone colour is re-decided: when weakly read coasters were also moved off a colour whose
   coaster of that type another showed, or off a colour only weakly read items showed, 5
   held-out photos read a colour wrong that they had read right (a pale player's items all
   read weakly in haze) and 1 the other way;
3. where all five colours show, one of them on a single face-up item only or on ``soft``
   coasters only, and at least two face-up ``soft`` coasters of the other colours lie on the
   table, each item of that colour takes its best other colour, one whose item of that kind is
   still free if any: the rules' evidence (soft coasters) outweighs one item's colour, however
   clearly read (that item's type is then often wrong too: a "gray double" where every
   player's double is already on the table). A colour shown by soft coasters alone is as
   doubtful as a lone item: a player owns one soft coaster, and a textured table, a coin pile
   or a sliver beside an item matches the soft coaster's sparse print (one pretzel on plain
   ground) in the palest colour (held-out 0035: three such "gray soft" coasters);
4. a face-down item (a napkin's or a coaster's back) of a colour that no face-up item shows
   belongs to nobody playing, which cannot be: it takes its best colour among those shown (a
   napkin one whose napkin is still free, if any). Backs show little colour-dependent print,
   and under a warm light one colour's back reads as another's (on the held-out and
   calibration photos every such back was a player's napkin).

Face-down coasters take part in 4 only (their backs do not show the type).
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary
from vision.detect import CanvasView
from vision.identify import IdentifiedItem, identify

log = logging.getLogger(__name__)

#: Largest relative excess error (``(error - best) / best``) of a colour an item may be
#: re-coloured to.
RECOLOUR_MAX_EXCESS = 0.35
#: An item's pixels tell colours apart when its worst colour explains them this much worse
#: than its best (relative excess error).
MIN_COLOUR_EVIDENCE = 0.5
#: The coaster type the rules remove with five players.
_REMOVED_WITH_FIVE = "soft"
#: Players at which the soft coasters are removed.
_FIVE = 5
#: Face-up soft coasters (of the other colours) that show there are at most four players.
_SOFT_EVIDENCE = 2
#: Cost standing for "not allowed" in the assignment.
_FORBIDDEN = 1e6


def one_of_each(
    library: ArtLibrary,
    view: CanvasView,
    items: list[IdentifiedItem],
    light_bgr: np.ndarray | None = None,
) -> list[IdentifiedItem]:
    """``items`` with colours re-decided where they break one-of-each (module docstring), under
    the scene light ``light_bgr`` when known (:func:`vision.identify.identify`); the
    re-coloured items are identified again under their new colour (light, rendering), their
    side kept (a napkin's face or back, decided on its best colour's evidence)."""
    colors = library.catalogue.color_names
    chosen = [colors.index(it.color) for it in items]
    napkins = [
        k
        for k, item in enumerate(items)
        if item.side.kind is ItemKind.NAPKIN
        and item.color_errors
        and _excess(item).max() >= MIN_COLOUR_EVIDENCE
    ]
    if len({chosen[k] for k in napkins}) < len(napkins) <= len(colors):
        _assign(items, napkins, chosen)
    _coasters_without_colour_evidence(items, chosen)
    _five_players_without_soft(items, chosen)
    _backs_of_players(items, chosen)
    out = []
    for k, item in enumerate(items):
        color = colors[chosen[k]]
        if color != item.color:
            log.debug("%s read as %s, re-coloured %s", item.side, item.color, color)
            item = identify(
                library,
                view,
                item.side,
                item.pose,
                item.points_local_mm,
                frozenset({color}),
                keep_side=True,
                light_bgr=light_bgr,
            )
        out.append(item)
    return out


def _slot(item: IdentifiedItem) -> tuple[str, str | None] | None:
    """What a player owns one of: a face-up coaster's type, or a napkin; None for a back."""
    if item.side.kind is ItemKind.NAPKIN:
        return ("napkin", None)
    if item.side.face is Face.UP:
        return ("coaster", item.side.type_name)
    return None


def _excess(item: IdentifiedItem) -> np.ndarray:
    """(colours,) how much worse each colour explains ``item`` than its best (relative)."""
    errors = np.asarray(item.color_errors, float)
    best = max(float(errors.min()), 1e-6)
    return (errors - best) / best


def _assign(items: list[IdentifiedItem], group: list[int], chosen: list[int]) -> None:
    """Colours of ``group`` (item indices) made distinct at the least total excess, in place."""
    cost = np.stack([_excess(items[k]) for k in group])
    log.debug(
        "one-of-each conflict: %s",
        [(items[k].color, np.round(cost[i], 2).tolist()) for i, k in enumerate(group)],
    )
    allowed = cost <= RECOLOUR_MAX_EXCESS
    allowed[np.arange(len(group)), [chosen[k] for k in group]] = True
    rows, cols = linear_sum_assignment(np.where(allowed, cost, _FORBIDDEN))
    if allowed[rows, cols].all():
        for r, c in zip(rows, cols, strict=True):
            chosen[group[r]] = int(c)


def _coasters_without_colour_evidence(items: list[IdentifiedItem], chosen: list[int]) -> None:
    """A face-up coaster every colour explains alike, the only item of its colour, re-coloured
    to a colour other items show whose coaster of that type is free (module docstring)."""
    face_up = [k for k, it in enumerate(items) if it.side.face is Face.UP and it.color_errors]
    for k in face_up:
        item = items[k]
        if item.side.kind is not ItemKind.COASTER or _excess(item).max() >= MIN_COLOUR_EVIDENCE:
            continue
        others = [j for j in range(len(items)) if j != k]
        if any(chosen[j] == chosen[k] for j in others):
            continue
        shown = {chosen[j] for j in others if items[j].side.face is Face.UP}
        taken = {chosen[j] for j in others if _slot(items[j]) == _slot(item)}
        free = shown - taken
        if free:
            excess = _excess(item)
            chosen[k] = min(free, key=lambda c: float(excess[c]))


def _five_players_without_soft(items: list[IdentifiedItem], chosen: list[int]) -> None:
    """The items of a fifth colour re-coloured when soft coasters show (module docstring)."""
    face_up = [k for k, it in enumerate(items) if it.side.face is Face.UP and it.color_errors]
    shown = Counter(chosen[k] for k in face_up)
    if len(shown) < _FIVE:
        return
    doubtful = [c for c, n in shown.items() if n == 1 or _soft_only(items, chosen, face_up, c)]
    if len(doubtful) != 1:
        return
    soft = [k for k in face_up if _is_soft(items[k]) and chosen[k] != doubtful[0]]
    if len(soft) < _SOFT_EVIDENCE:
        return
    for k in [k for k in face_up if chosen[k] == doubtful[0]]:
        taken = {chosen[j] for j in face_up if j != k and _slot(items[j]) == _slot(items[k])}
        excess = _excess(items[k])
        others = [c for c in range(len(excess)) if c != doubtful[0]]
        chosen[k] = min(others, key=lambda c: (c in taken, float(excess[c])))


def _is_soft(item: IdentifiedItem) -> bool:
    return item.side.kind is ItemKind.COASTER and item.side.type_name == _REMOVED_WITH_FIVE


def _soft_only(
    items: list[IdentifiedItem], chosen: list[int], face_up: list[int], color: int
) -> bool:
    """Whether the face-up items of ``color`` are all soft coasters."""
    return all(_is_soft(items[k]) for k in face_up if chosen[k] == color)


def _backs_of_players(items: list[IdentifiedItem], chosen: list[int]) -> None:
    """Face-down items of a colour no face-up item shows re-coloured (module docstring)."""
    shown = {chosen[k] for k, it in enumerate(items) if it.side.face is Face.UP}
    napkins = [k for k, it in enumerate(items) if it.side.kind is ItemKind.NAPKIN]
    for k, item in enumerate(items):
        if item.side.face is Face.UP or chosen[k] in shown or not item.color_errors:
            continue
        taken = {chosen[j] for j in napkins if j != k} if k in napkins else set()
        excess = _excess(item)
        chosen[k] = min(shown, key=lambda c: (c in taken, float(excess[c])), default=chosen[k])
