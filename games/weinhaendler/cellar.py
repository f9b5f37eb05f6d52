"""Cellars: 15-place pyramids, their placement rules and formation scoring.

Slot ``(r, j)``: row ``r`` = 0 (bottom, 5 places) .. 4 (top, 1 place), ``j`` = 0.. from the
left. ``(r, j)`` rests on ``(r-1, j)`` and ``(r-1, j+1)``. A cellar is stored flat: a list of
15 entries (card id or ``None``), slot ``(r, j)`` at index ``ROW_START[r] + j``.

Placement rules (spec, with its decisions): the bottom row is filled first, left to right with
no gaps, and completely before anything goes above it; an upper slot takes a card once both
slots under it are filled; cards never move; a full bottle may cover an empty bottle in any of
the player's cellars (the empty bottle leaves the game); a new cellar opens when the last one
is full and holds no empty bottle.

Formations: three in a row in one row, three along either diagonal, and the two triangles.
A formation scores when its third wine card arrives (empty bottles form nothing): 4 points for
one wine three times, 1 point for three different wines, 0 otherwise. As a slot only ever
changes from empty (or empty bottle) to a wine card, every formation scores at most once.
"""

from __future__ import annotations

from collections.abc import Sequence

ROW_LENGTHS = (5, 4, 3, 2, 1)
ROW_START = (0, 5, 9, 12, 14)
SLOTS = 15
SAME_WINE_POINTS = 4
DIFFERENT_WINES_POINTS = 1

Cellar = list[int | None]
"""One cellar: 15 card ids or ``None`` (flat, see the module docstring)."""


def flat(r: int, j: int) -> int:
    return ROW_START[r] + j


def slot_of(index: int) -> tuple[int, int]:
    """``(r, j)`` of a flat index."""
    for r in range(len(ROW_LENGTHS) - 1, -1, -1):
        if index >= ROW_START[r]:
            return r, index - ROW_START[r]
    raise ValueError(index)


def valid_slot(r: int, j: int) -> bool:
    return 0 <= r < len(ROW_LENGTHS) and 0 <= j < ROW_LENGTHS[r]


def _formations() -> list[tuple[str, tuple[int, int, int]]]:
    found: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    for r in range(len(ROW_LENGTHS)):
        for j in range(ROW_LENGTHS[r]):
            found.append(("row", ((r, j), (r, j + 1), (r, j + 2))))
            found.append(("diagonal", ((r, j), (r + 1, j), (r + 2, j))))
            found.append(("diagonal", ((r, j), (r + 1, j - 1), (r + 2, j - 2))))
            found.append(("triangle", ((r, j), (r, j + 1), (r + 1, j))))
            found.append(("triangle", ((r + 1, j), (r + 1, j + 1), (r, j + 1))))
    return [
        (kind, (flat(*a), flat(*b), flat(*c)))
        for kind, (a, b, c) in found
        if valid_slot(*a) and valid_slot(*b) and valid_slot(*c)
    ]


FORMATIONS: list[tuple[str, tuple[int, int, int]]] = _formations()
"""Every formation of a cellar: its kind (row / diagonal / triangle) and three flat slots."""

FORMATIONS_AT: list[list[int]] = [
    [i for i, (_, slots) in enumerate(FORMATIONS) if s in slots] for s in range(SLOTS)
]
"""For each flat slot, the indices into :data:`FORMATIONS` that contain it."""

SUPPORTS: list[tuple[int, int] | None] = [
    None if r == 0 else (flat(r - 1, j), flat(r - 1, j + 1))
    for r in range(len(ROW_LENGTHS))
    for j in range(ROW_LENGTHS[r])
]


def formation_points(wines: Sequence[str | None]) -> int:
    """Points of three wines (``None`` = not a wine card: forms nothing)."""
    if any(w is None for w in wines):
        return 0
    distinct = len(set(wines))
    if distinct == 1:
        return SAME_WINE_POINTS
    return DIFFERENT_WINES_POINTS if distinct == 3 else 0


def open_slots(cellar: Cellar) -> list[int]:
    """Empty flat slots of ``cellar`` that may take a card now (not counting covers)."""
    bottom = ROW_LENGTHS[0]
    filled_bottom = 0
    while filled_bottom < bottom and cellar[filled_bottom] is not None:
        filled_bottom += 1
    if filled_bottom < bottom:
        return [filled_bottom]
    result = []
    for s in range(bottom, SLOTS):
        support = SUPPORTS[s]
        assert support is not None
        if cellar[s] is None and cellar[support[0]] is not None and cellar[support[1]] is not None:
            result.append(s)
    return result


def empty_bottle_slots(cellar: Cellar, wine_of: Sequence[str | None]) -> list[int]:
    """Flat slots of ``cellar`` holding an empty bottle."""
    return [s for s, c in enumerate(cellar) if c is not None and wine_of[c] is None]


def targets(
    cellars: Sequence[Cellar], is_wine: bool, wine_of: Sequence[str | None]
) -> list[tuple[int, int]]:
    """Where a card may go: ``(cellar index, flat slot)``; index ``len(cellars)`` = new cellar.

    ``wine_of[card]`` is each card's wine (``None`` for an empty bottle).
    """
    result: list[tuple[int, int]] = []
    if is_wine:
        for k, cellar in enumerate(cellars):
            result += [(k, s) for s in empty_bottle_slots(cellar, wine_of)]
    if not cellars:
        return [(0, 0)]
    last = cellars[-1]
    free = open_slots(last)
    result += [(len(cellars) - 1, s) for s in free]
    if not free and all(c is not None for c in last) and not empty_bottle_slots(last, wine_of):
        result.append((len(cellars), 0))
    return result


def completed_formations(
    cellar: Cellar, slot: int, wine_of: Sequence[str | None]
) -> list[tuple[int, int]]:
    """Formations through ``slot`` whose three slots now all hold wine cards, with their points.

    ``wine_of[card]`` is the card's wine (``None`` for an empty bottle). Call after placing.
    Returns ``(formation index, points)`` pairs.
    """
    result = []
    for f in FORMATIONS_AT[slot]:
        wines = [None if cellar[s] is None else wine_of[cellar[s]] for s in FORMATIONS[f][1]]
        if all(w is not None for w in wines):
            result.append((f, formation_points(wines)))
    return result


def recount(
    cellars: Sequence[Cellar], wine_of: Sequence[str | None], stars_of: Sequence[int]
) -> int:
    """Points of finished cellars from scratch: stars of the cards in them + formations."""
    total = 0
    for cellar in cellars:
        total += sum(stars_of[c] for c in cellar if c is not None)
        for _, slots in FORMATIONS:
            wines = [None if cellar[s] is None else wine_of[cellar[s]] for s in slots]
            total += formation_points(wines)
    return total
