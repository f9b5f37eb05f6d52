"""The wine cards: 7 wines x 9 cards (3 slim 1-star, 3 angular 2-star, 3 large 3-star) and
3 empty bottles (no star, EUR 0.20). Prices are in euro cents.

The published deck's prices are unknown, so the default deck (decided in the spec) gives every
wine card a distinct price: 1-star cards 100..300 cents, 2-star 350..550, 3-star 600..800, in
steps of 10 cents dealt round-robin over the wines (the k-th price of a tier goes to wine
``k % 7``). A JSON deck file replaces it: ``{"cards": [{"wine": "Riesling" | null,
"stars": 0..3, "price_cents": int}, ...]}`` (``null`` wine = empty bottle, which has 0 stars).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from games.engine import JSON, BadSetup

WINES: tuple[str, ...] = (
    "Riesling",
    "Silvaner",
    "Spätburgunder",
    "Dornfelder",
    "Trollinger",
    "Lemberger",
    "Müller-Thurgau",
)
EMPTY_BOTTLE_PRICE_CENTS = 20
_TIER_START_CENTS = {1: 100, 2: 350, 3: 600}
_PRICE_STEP_CENTS = 10


@dataclass(frozen=True)
class Card:
    """One card: its wine (``None`` for an empty bottle), stars and price in euro cents."""

    wine: str | None
    stars: int
    price_cents: int

    @property
    def is_empty_bottle(self) -> bool:
        return self.wine is None

    def to_json(self) -> dict[str, JSON]:
        return {"wine": self.wine, "stars": self.stars, "price_cents": self.price_cents}


def default_deck() -> list[Card]:
    """The 66-card default deck (63 wine cards, 3 empty bottles)."""
    cards: list[Card] = []
    for stars, start in _TIER_START_CENTS.items():
        for k in range(3 * len(WINES)):
            cards.append(Card(WINES[k % len(WINES)], stars, start + _PRICE_STEP_CENTS * k))
    cards += [Card(None, 0, EMPTY_BOTTLE_PRICE_CENTS) for _ in range(3)]
    return cards


def deck_from_json(data: JSON) -> list[Card]:
    """A deck from its JSON form (see the module docstring); ``BadSetup`` when malformed."""
    if isinstance(data, dict):
        data = data.get("cards")
    if not isinstance(data, list) or not data:
        raise BadSetup('a deck is {"cards": [{"wine", "stars", "price_cents"}, ...]}')
    cards = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise BadSetup(f"deck card {i} is not an object")
        wine, stars, price = entry.get("wine"), entry.get("stars"), entry.get("price_cents")
        if wine is not None and (not isinstance(wine, str) or not wine):
            raise BadSetup(f"deck card {i}: wine must be a name or null (empty bottle)")
        if isinstance(stars, bool) or not isinstance(stars, int) or not 0 <= stars <= 3:
            raise BadSetup(f"deck card {i}: stars must be 0..3")
        if wine is None and stars != 0:
            raise BadSetup(f"deck card {i}: an empty bottle has no stars")
        if isinstance(price, bool) or not isinstance(price, int) or price <= 0:
            raise BadSetup(f"deck card {i}: price_cents must be a positive whole number")
        cards.append(Card(wine, stars, price))
    return cards


def load_deck(path: str | Path) -> list[Card]:
    """Read a JSON deck file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadSetup(f"cannot read deck file {path}: {exc}") from exc
    return deck_from_json(data)
