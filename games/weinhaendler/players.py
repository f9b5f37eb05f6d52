"""Computer players for Die Weinhändler: a greedy one and a stronger search-based one.

A player is asked for one action at a time (``choose(state) -> action``) for the seat to act.

**Greedy.** Auction: on its first turn of an auction it offers one card — the one with the
fewest stars, the priciest among those (the most euros for the least points given up), skipping
cards whose total would equal another offer — and passes afterwards. Cellar: it repeatedly makes
the placement with the largest immediate gain (stars + formations completed) while that gain is
positive, then stops (empty bottles stay in hand as cheap bids).

**Search** (the stronger one). Auction: Monte-Carlo search over its bids. Candidates are
passing and offering one card or a pair of its low-star cards; each is tried in ``rollouts``
determinised worlds (the cards it cannot see — other hands and the draw pile — reshuffled),
the rest of the auction is played out with greedy bidders, and the outcome is valued by the
points it can make from the hand it ends with (a greedy placement in its own cellars). Cellar:
a beam search over placement sequences maximising points gained plus a potential for open
formations (two cards of one wine with the third place still free: +1.5; two different wines:
+0.3).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from games.engine import Action
from games.weinhaendler.cellar import (
    FORMATIONS,
    SLOTS,
    Cellar,
    completed_formations,
    slot_of,
    targets,
)
from games.weinhaendler.state import WeinhaendlerState

SAME_WINE_PAIR_POTENTIAL = 1.5
MIXED_PAIR_POTENTIAL = 0.3


class ComputerPlayer(Protocol):
    name: str

    def choose(self, state: WeinhaendlerState) -> Action:
        """The action for the seat to act (``state.to_act``)."""
        ...


def placement_gain(
    state: WeinhaendlerState, cellars: list[Cellar], card: int, k: int, s: int
) -> int:
    """Points placing ``card`` at cellar ``k`` (``len(cellars)`` = a new one), slot ``s`` earns."""
    cellar = cellars[k] if k < len(cellars) else [None] * SLOTS
    old = cellar[s]
    cellar[s] = card
    try:
        return state.stars_of[card] + sum(
            p for _, p in completed_formations(cellar, s, state.wine_of)
        )
    finally:
        cellar[s] = old


def _place_into(cellars: list[Cellar], card: int, k: int, s: int) -> None:
    if k == len(cellars):
        cellars.append([None] * SLOTS)
    cellars[k][s] = card


def greedy_cellar_plan(
    state: WeinhaendlerState, cellars: list[Cellar], hand: list[int]
) -> tuple[int, list[tuple[int, int, int]]]:
    """Greedy placements (card, cellar, slot) of ``hand`` into copies of ``cellars``; total gain.

    ``cellars`` and ``hand`` are modified (pass copies).
    """
    total, plan = 0, []
    while hand:
        best: tuple[int, int, int, int] | None = None
        for card in hand:
            for k, s in targets(cellars, state.wine_of[card] is not None, state.wine_of):
                gain = placement_gain(state, cellars, card, k, s)
                if best is None or gain > best[0]:
                    best = (gain, card, k, s)
        if best is None or best[0] <= 0:
            break
        gain, card, k, s = best
        _place_into(cellars, card, k, s)
        hand.remove(card)
        total += gain
        plan.append((card, k, s))
    return total, plan


def _place_action(card: int, k: int, s: int) -> Action:
    return {"type": "place", "card": card, "cellar": k, "slot": list(slot_of(s))}


def _collides(state: WeinhaendlerState, seat: int, extra_cents: int) -> bool:
    total = state.offer_total(seat) + extra_cents
    return any(state.offer_total(o) == total for o in range(len(state.players)) if o != seat)


def greedy_bid(state: WeinhaendlerState) -> Action:
    """The greedy auction step (see the module docstring)."""
    seat = state.to_act
    if state.turn_added:
        return {"type": "announce"} if state.legal_announce() else {"type": "pass"}
    if state.offers[seat]:
        return {"type": "pass"}
    for card in sorted(state.hands[seat], key=lambda c: (state.stars_of[c], -state.price_of[c])):
        if not _collides(state, seat, state.price_of[card]):
            return {"type": "add", "card": card}
    return {"type": "pass"}


@dataclass
class GreedyPlayer:
    """Immediate gain only (see the module docstring)."""

    name: str = "greedy"

    def choose(self, state: WeinhaendlerState) -> Action:
        if state.phase == "auction":
            return greedy_bid(state)
        seat = state.to_act
        cellars = [list(c) for c in state.cellars[seat]]
        _, plan = greedy_cellar_plan(state, cellars, list(state.hands[seat]))
        return _place_action(*plan[0]) if plan else {"type": "done"}


def formation_potential(state: WeinhaendlerState, cellars: list[Cellar]) -> float:
    """Heuristic worth of formations with two wine cards and the third place still free."""
    value = 0.0
    wine_of = state.wine_of
    for cellar in cellars:
        for _, slots in FORMATIONS:
            wines = [None if cellar[s] is None else wine_of[cellar[s]] for s in slots]
            free = sum(1 for s in slots if cellar[s] is None)
            known = [w for w in wines if w is not None]
            if free == 1 and len(known) == 2:
                value += SAME_WINE_PAIR_POTENTIAL if known[0] == known[1] else MIXED_PAIR_POTENTIAL
    return value


@dataclass
class SearchPlayer:
    """Monte-Carlo bids and beam-searched cellars (see the module docstring)."""

    name: str = "search"
    rollouts: int = 4
    beam_width: int = 4
    seed: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _plan: list[int] = field(init=False, repr=False, default_factory=list)
    _cellar_key: tuple[int, int] = field(init=False, repr=False, default=(-1, -1))
    _cellar_plan: list[tuple[int, int, int]] = field(init=False, repr=False, default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: WeinhaendlerState) -> Action:
        return self._bid(state) if state.phase == "auction" else self._cellar(state)

    @property
    def planned_offer(self) -> list[int]:
        """The cards of this auction turn's chosen bid (empty when passing)."""
        return list(self._plan)

    @property
    def planned_placements(self) -> list[tuple[int, int, int]]:
        """The placements (card, cellar, flat slot) still planned for this cellar phase."""
        return list(self._cellar_plan)

    # ------------------------------------------------------------------ auction
    def _bid(self, state: WeinhaendlerState) -> Action:
        seat = state.to_act
        added = state.turn_added
        if added and set(added) <= set(self._plan):  # carrying out this turn's plan
            rest = [c for c in self._plan if c in state.hands[seat]]
            if rest:
                return {"type": "add", "card": rest[0]}
            return {"type": "announce"} if state.legal_announce() else {"type": "pass"}
        best_value, best = float("-inf"), None
        for extra in self._candidates(state, seat):
            value = self._rollout_value(state, seat, extra)
            if value > best_value:
                best_value, best = value, extra
        if best is None:
            self._plan = []
            return {"type": "pass"}
        self._plan = [*added, *best]
        return {"type": "add", "card": best[0]} if best else {"type": "announce"}

    def _candidates(self, state: WeinhaendlerState, seat: int) -> list[list[int] | None]:
        """``None`` = pass; a list = the cards to add (to any added this turn), then announce."""
        hand = state.hands[seat]
        cheap = sorted(hand, key=lambda c: (state.stars_of[c], -state.price_of[c]))[:3]
        extras: list[list[int]] = [[]] if state.turn_added else []
        extras += [[c] for c in hand]
        extras += [[a, b] for i, a in enumerate(cheap) for b in cheap[i + 1 :]]
        valid: list[list[int] | None] = [None]
        valid += [
            extra
            for extra in extras
            if not _collides(state, seat, sum(state.price_of[c] for c in extra))
        ]
        return valid

    def _determinise(self, state: WeinhaendlerState, seat: int) -> WeinhaendlerState:
        world = state.copy()
        hidden = list(world.draw)
        for other in range(len(world.players)):
            if other != seat:
                hidden += world.hands[other]
        self._rng.shuffle(hidden)
        for other in range(len(world.players)):
            if other != seat:
                size = len(world.hands[other])
                world.hands[other], hidden = hidden[:size], hidden[size:]
        world.draw = hidden
        return world

    def _rollout_value(self, state: WeinhaendlerState, seat: int, extra: list[int] | None) -> float:
        total = 0.0
        for _ in range(self.rollouts):
            world = self._determinise(state, seat)
            for card in extra or []:
                world.apply({"type": "add", "card": card})
            world.apply({"type": "pass"} if extra is None else {"type": "announce"})
            while world.phase == "auction":
                world.apply(greedy_bid(world))
            gain, _ = greedy_cellar_plan(
                world, [list(c) for c in world.cellars[seat]], list(world.hands[seat])
            )
            total += gain
        return total / self.rollouts

    # ------------------------------------------------------------------ cellar
    def _cellar(self, state: WeinhaendlerState) -> Action:
        seat = state.to_act
        key = (state.round, seat)
        if key != self._cellar_key or not self._plan_applies(state, seat):
            self._cellar_key = key
            self._cellar_plan = self._beam(state, seat)
        if not self._cellar_plan:
            return {"type": "done"}
        return _place_action(*self._cellar_plan.pop(0))

    def _plan_applies(self, state: WeinhaendlerState, seat: int) -> bool:
        if not self._cellar_plan:
            return True
        card, k, s = self._cellar_plan[0]
        return card in state.hands[seat] and (k, s) in state.placement_targets(seat, card)

    def _beam(self, state: WeinhaendlerState, seat: int) -> list[tuple[int, int, int]]:
        start_cellars = [list(c) for c in state.cellars[seat]]
        base = formation_potential(state, start_cellars)
        beam = [(base, 0, start_cellars, list(state.hands[seat]), list[tuple[int, int, int]]())]
        best = beam[0]
        while beam:
            children = []
            for _, gained, cellars, hand, plan in beam:
                for card in set(hand):
                    for k, s in targets(cellars, state.wine_of[card] is not None, state.wine_of):
                        gain = placement_gain(state, cellars, card, k, s)
                        if gain <= 0:
                            continue
                        new_cellars = [list(c) for c in cellars]
                        _place_into(new_cellars, card, k, s)
                        new_hand = list(hand)
                        new_hand.remove(card)
                        score = gained + gain + formation_potential(state, new_cellars)
                        children.append(
                            (score, gained + gain, new_cellars, new_hand, [*plan, (card, k, s)])
                        )
            children.sort(key=lambda c: c[0], reverse=True)
            beam = children[: self.beam_width]
            if beam and beam[0][0] > best[0]:
                best = beam[0]
        return best[4]
