"""Die Weinhändler rules: deal, auction, exchange, cellar, refill, end (``spec/weinhaendler.md``).

Cards are ids into ``deck`` (kept in the state so a custom deck survives JSON). A round:

1. **Auction** (phase ``auction``). Starting with the first player and going round among those
   still bidding, the player to act adds cards one at a time (``{"type": "add", "card": id}``,
   undo with ``{"type": "take_back", "card": id}``) and then announces the new total
   (``{"type": "announce"}``: at least one card added this turn, and the total must differ from
   every other player's current total), or passes (``{"type": "pass"}``: cards added this
   turn go back to the hand, earlier offered cards stay). The auction ends when all passed.
2. **Exchange** (automatic): offers ranked by total, highest first; equal totals (only empty
   offers can tie) rank the earlier passer lower. The highest takes the public offer, each next
   one the offer ranked above his, the lowest offer becomes the public offer; taken cards go to
   the hand.
3. **Cellar** (phase ``cellar``): from the first player round the table, each player places any
   number of hand cards (``{"type": "place", "card": id, "cellar": k, "slot": [r, j]}``) and
   then says ``{"type": "done"}``. Rules and scoring in :mod:`games.weinhaendler.cellar`.
4. **Refill** the public offer to 4 from the draw pile; the next player becomes first player.
   If the draw pile is then empty, this is the last round; after its cellar phase (where all
   remaining hand cards may be placed) the game is over.
"""

from __future__ import annotations

import random
from typing import Self

from games.engine import (
    JSON,
    Action,
    BadSetup,
    GameState,
    IllegalAction,
    PlayerScore,
    check_players,
    copy_rng,
    require_action_dict,
    rng_from_json,
    rng_to_json,
)
from games.weinhaendler.cards import Card, deck_from_json, default_deck
from games.weinhaendler.cellar import (
    FORMATIONS,
    SLOTS,
    Cellar,
    completed_formations,
    flat,
    recount,
    slot_of,
    targets,
    valid_slot,
)

MIN_PLAYERS, MAX_PLAYERS = 3, 5
HAND_SIZE = 5
PUBLIC_OFFER_SIZE = 4


class WeinhaendlerState(GameState):
    """A game of Die Weinhändler. Seats index ``players``; every list below is per seat."""

    game = "weinhaendler"

    def __init__(self, players: list[str], deck: list[Card], rng: random.Random) -> None:
        self.players = players
        self.deck = deck
        self.rng = rng
        self.wine_of: list[str | None] = [c.wine for c in deck]
        self.stars_of: list[int] = [c.stars for c in deck]
        self.price_of: list[int] = [c.price_cents for c in deck]
        n = len(players)
        self.draw: list[int] = []
        self.public: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.offers: list[list[int]] = [[] for _ in range(n)]
        self.turn_added: list[int] = []
        self.passed: list[int] = []
        self.cellars: list[list[Cellar]] = [[] for _ in range(n)]
        self.covered: list[list[int]] = [[] for _ in range(n)]
        self.points: list[int] = [0] * n
        self.log: list[list[dict[str, JSON]]] = [[] for _ in range(n)]
        self.phase = "auction"
        self.first = 0
        self.to_act = 0
        self.round = 1
        self.last_round = False

    # ------------------------------------------------------------------ setup / persistence
    @classmethod
    def new(
        cls, players: list[str], seed: int, deck: list[Card] | None = None, first: int | None = None
    ) -> WeinhaendlerState:
        names = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
        cards = default_deck() if deck is None else deck
        needed = HAND_SIZE * len(names) + PUBLIC_OFFER_SIZE + 1
        if len(cards) < needed:
            raise BadSetup(f"{len(names)} players need a deck of at least {needed} cards")
        state = cls(names, cards, random.Random(seed))
        order = list(range(len(cards)))
        state.rng.shuffle(order)
        for seat in range(len(names)):
            state.hands[seat] = [order.pop() for _ in range(HAND_SIZE)]
        state.public = [order.pop() for _ in range(PUBLIC_OFFER_SIZE)]
        state.draw = order
        state.first = state.rng.randrange(len(names)) if first is None else first
        state.to_act = state.first
        return state

    def copy(self) -> Self:
        other = type(self).__new__(type(self))
        other.players = self.players
        other.deck = self.deck
        other.wine_of, other.stars_of, other.price_of = self.wine_of, self.stars_of, self.price_of
        other.rng = copy_rng(self.rng)
        other.draw = list(self.draw)
        other.public = list(self.public)
        other.hands = [list(h) for h in self.hands]
        other.offers = [list(o) for o in self.offers]
        other.turn_added = list(self.turn_added)
        other.passed = list(self.passed)
        other.cellars = [[list(c) for c in cs] for cs in self.cellars]
        other.covered = [list(c) for c in self.covered]
        other.points = list(self.points)
        other.log = [list(entries) for entries in self.log]
        other.phase, other.first, other.to_act = self.phase, self.first, self.to_act
        other.round, other.last_round = self.round, self.last_round
        return other

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "players": list(self.players),
            "deck": [c.to_json() for c in self.deck],
            "draw": list(self.draw),
            "public": list(self.public),
            "hands": [list(h) for h in self.hands],
            "offers": [list(o) for o in self.offers],
            "turn_added": list(self.turn_added),
            "passed": list(self.passed),
            "cellars": [[list(c) for c in cs] for cs in self.cellars],
            "covered": [list(c) for c in self.covered],
            "points": list(self.points),
            "log": [[dict(e) for e in entries] for entries in self.log],
            "phase": self.phase,
            "first": self.first,
            "to_act": self.to_act,
            "round": self.round,
            "last_round": self.last_round,
            "rng": rng_to_json(self.rng),
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> WeinhaendlerState:
        try:
            players = check_players(data["players"], MIN_PLAYERS, MAX_PLAYERS)
            state = cls(players, deck_from_json(data["deck"]), rng_from_json(data["rng"]))
            state.draw = [int(c) for c in data["draw"]]
            state.public = [int(c) for c in data["public"]]
            state.hands = [[int(c) for c in h] for h in data["hands"]]
            state.offers = [[int(c) for c in o] for o in data["offers"]]
            state.turn_added = [int(c) for c in data["turn_added"]]
            state.passed = [int(s) for s in data["passed"]]
            state.cellars = [
                [[None if c is None else int(c) for c in cellar] for cellar in cs]
                for cs in data["cellars"]
            ]
            state.covered = [[int(c) for c in cs] for cs in data["covered"]]
            state.points = [int(p) for p in data["points"]]
            state.log = [[dict(e) for e in entries] for entries in data["log"]]
            state.phase = str(data["phase"])
            state.first, state.to_act = int(data["first"]), int(data["to_act"])
            state.round, state.last_round = int(data["round"]), bool(data["last_round"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadSetup(f"not a Weinhändler state: {exc}") from exc
        state._check_consistent()
        return state

    def _check_consistent(self) -> None:
        n = len(self.players)
        per_seat = (self.hands, self.offers, self.cellars, self.covered, self.points, self.log)
        if any(len(x) != n for x in per_seat) or self.phase not in ("auction", "cellar", "over"):
            raise BadSetup("not a Weinhändler state: per-player lists or phase do not match")
        if any(len(c) != SLOTS for cs in self.cellars for c in cs):
            raise BadSetup(f"not a Weinhändler state: a cellar has {SLOTS} places")
        cards = self.all_card_locations()
        if sorted(cards) != list(range(len(self.deck))):
            raise BadSetup("not a Weinhändler state: every card must be in exactly one place")

    def all_card_locations(self) -> list[int]:
        """Every card id found anywhere (draw, public, hands, offers, cellars, covered)."""
        cards = list(self.draw) + list(self.public)
        for seat in range(len(self.players)):
            cards += self.hands[seat] + self.offers[seat] + self.covered[seat]
            cards += [c for cellar in self.cellars[seat] for c in cellar if c is not None]
        return cards

    # ------------------------------------------------------------------ queries
    def offer_total(self, seat: int) -> int:
        """The current total of a seat's offer, euro cents (cards added this turn included)."""
        return sum(self.price_of[c] for c in self.offers[seat])

    def current_player(self) -> str | None:
        return None if self.phase == "over" else self.players[self.to_act]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def placement_targets(self, seat: int, card: int) -> list[tuple[int, int]]:
        """``(cellar, flat slot)`` pairs where ``seat`` may place ``card`` now."""
        return targets(self.cellars[seat], self.wine_of[card] is not None, self.wine_of)

    def legal_announce(self) -> bool:
        """Whether the bidder may announce now (cards added, total unlike every other offer)."""
        if not self.turn_added:
            return False
        total = self.offer_total(self.to_act)
        return all(
            self.offer_total(s) != total for s in range(len(self.players)) if s != self.to_act
        )

    def legal_actions(self) -> list[Action]:
        seat = self.to_act
        if self.phase == "auction":
            actions: list[Action] = [{"type": "add", "card": c} for c in self.hands[seat]]
            actions += [{"type": "take_back", "card": c} for c in self.turn_added]
            if self.legal_announce():
                actions.append({"type": "announce"})
            actions.append({"type": "pass"})
            return actions
        if self.phase == "cellar":
            actions = []
            for card in self.hands[seat]:
                for k, s in self.placement_targets(seat, card):
                    actions.append(
                        {"type": "place", "card": card, "cellar": k, "slot": list(slot_of(s))}
                    )
            actions.append({"type": "done"})
            return actions
        return []

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> list[dict[str, JSON]]:
        kind = require_action_dict(action).get("type")
        if self.phase == "over":
            raise IllegalAction("the game is over")
        handlers = (
            {
                "add": self._add,
                "take_back": self._take_back,
                "announce": self._announce,
                "pass": self._pass,
            }
            if self.phase == "auction"
            else {"place": self._place, "done": self._done}
        )
        handler = handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(
                f"in the {self.phase} phase the actions are {sorted(handlers)}, not {kind!r}"
            )
        return handler(action)

    def _card_arg(self, action: Action, where: list[int], where_name: str) -> int:
        card = action.get("card")
        if isinstance(card, bool) or not isinstance(card, int):
            raise IllegalAction(f'{{"type": "{action["type"]}"}} needs "card": <card id>')
        if card not in where:
            raise IllegalAction(f"card {card} is not in {self.players[self.to_act]}'s {where_name}")
        return card

    def _add(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        card = self._card_arg(action, self.hands[seat], "hand")
        self.hands[seat].remove(card)
        self.offers[seat].append(card)
        self.turn_added.append(card)
        return [{"type": "add", "player": self.players[seat], "card": card}]

    def _take_back(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        card = self._card_arg(action, self.turn_added, "cards added this turn")
        self.turn_added.remove(card)
        self.offers[seat].remove(card)
        self.hands[seat].append(card)
        return [{"type": "take_back", "player": self.players[seat], "card": card}]

    def _announce(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        if not self.turn_added:
            raise IllegalAction("add at least one card before announcing (or pass)")
        total = self.offer_total(seat)
        for other in range(len(self.players)):
            if other != seat and self.offer_total(other) == total:
                raise IllegalAction(
                    f"an offer of {total / 100:.2f} EUR equals {self.players[other]}'s offer"
                )
        self.turn_added = []
        events: list[dict[str, JSON]] = [
            {"type": "announce", "player": self.players[seat], "total_cents": total}
        ]
        return events + self._next_bidder()

    def _pass(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        for card in self.turn_added:
            self.offers[seat].remove(card)
            self.hands[seat].append(card)
        self.turn_added = []
        self.passed.append(seat)
        events: list[dict[str, JSON]] = [{"type": "pass", "player": self.players[seat]}]
        return events + self._next_bidder()

    def _next_bidder(self) -> list[dict[str, JSON]]:
        n = len(self.players)
        if len(self.passed) == n:
            return self._exchange()
        seat = self.to_act
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if candidate not in self.passed:
                self.to_act = candidate
                break
        return []

    def _exchange(self) -> list[dict[str, JSON]]:
        n = len(self.players)
        ranking = sorted(
            range(n), key=lambda s: (self.offer_total(s), self.passed.index(s)), reverse=True
        )
        received = [list(self.public)] + [list(self.offers[s]) for s in ranking[:-1]]
        events: list[dict[str, JSON]] = []
        new_public = list(self.offers[ranking[-1]])
        for seat, cards in zip(ranking, received, strict=True):
            self.hands[seat] += cards
            self.offers[seat] = []
            events.append({"type": "receive", "player": self.players[seat], "cards": cards})
        self.public = new_public
        events.append({"type": "public_offer", "cards": list(new_public)})
        self.passed = []
        self.phase = "cellar"
        self.to_act = self.first
        return events

    def _place(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        card = self._card_arg(action, self.hands[seat], "hand")
        k, slot = action.get("cellar"), action.get("slot")
        if (
            isinstance(k, bool)
            or not isinstance(k, int)
            or not isinstance(slot, list)
            or len(slot) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in slot)
            or not valid_slot(*slot)
        ):
            raise IllegalAction(
                'a placement is {"type": "place", "card": id, "cellar": k, "slot": [r, j]}'
            )
        s = flat(*slot)
        if (k, s) not in self.placement_targets(seat, card):
            raise IllegalAction(
                f"card {card} cannot go to cellar {k} slot {slot}: bottom row first from the left, "
                "upper places need both places below filled, only empty bottles may be covered"
            )
        return self._put(seat, card, k, s)

    def _put(self, seat: int, card: int, k: int, s: int) -> list[dict[str, JSON]]:
        cellars = self.cellars[seat]
        if k == len(cellars):
            cellars.append([None] * SLOTS)
        cellar = cellars[k]
        covered = cellar[s]
        if covered is not None:
            self.covered[seat].append(covered)
        cellar[s] = card
        self.hands[seat].remove(card)
        formations = [
            {
                "kind": FORMATIONS[f][0],
                "slots": [list(slot_of(x)) for x in FORMATIONS[f][1]],
                "points": pts,
            }
            for f, pts in completed_formations(cellar, s, self.wine_of)
        ]
        gained = self.stars_of[card] + sum(int(f["points"]) for f in formations)
        self.points[seat] += gained
        entry: dict[str, JSON] = {
            "card": card,
            "cellar": k,
            "slot": list(slot_of(s)),
            "stars": self.stars_of[card],
            "covered": covered,
            "formations": formations,
            "points": gained,
        }
        self.log[seat].append(entry)
        return [{"type": "place", "player": self.players[seat], **entry}]

    def _done(self, action: Action) -> list[dict[str, JSON]]:
        seat = self.to_act
        events: list[dict[str, JSON]] = [{"type": "done", "player": self.players[seat]}]
        n = len(self.players)
        nxt = (seat + 1) % n
        if nxt != self.first:
            self.to_act = nxt
            return events
        if self.last_round:
            self.phase = "over"
            events.append({"type": "over", "winners": self.winners()})
            return events
        while len(self.public) < PUBLIC_OFFER_SIZE and self.draw:
            self.public.append(self.draw.pop())
        self.last_round = not self.draw
        self.first = (self.first + 1) % n
        self.to_act = self.first
        self.phase = "auction"
        self.round += 1
        events.append(
            {
                "type": "refill",
                "public": list(self.public),
                "draw_left": len(self.draw),
                "last_round": self.last_round,
            }
        )
        return events

    # ------------------------------------------------------------------ scores
    def recount(self, seat: int) -> int:
        """A seat's points recomputed from its cellars alone (must equal ``points[seat]``)."""
        return recount(self.cellars[seat], self.wine_of, self.stars_of)

    def winners(self) -> list[str]:
        best = max(self.points)
        return [p for p, pts in zip(self.players, self.points, strict=True) if pts == best]

    def scores(self) -> list[PlayerScore]:
        winners = self.winners() if self.phase == "over" else []
        return [
            PlayerScore(
                player=name,
                total=self.points[seat],
                breakdown={
                    "stars": sum(int(e["stars"]) for e in self.log[seat]),
                    "formations": sum(
                        int(f["points"]) for e in self.log[seat] for f in e["formations"]
                    ),
                    "placements": [dict(e) for e in self.log[seat]],
                    "winner": name in winners,
                },
            )
            for seat, name in enumerate(self.players)
        ]
