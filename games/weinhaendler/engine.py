"""The Die Weinhändler entry point for :data:`games.engine.ENGINES`.

Options: ``deck`` (a JSON deck, see :mod:`games.weinhaendler.cards`; default: the default
deck) and ``first_player`` (a player's name; default: drawn from the seed). The adviser is the
search-based computer player.
"""

from __future__ import annotations

from games.engine import JSON, Advice, BadSetup, Engine, GameState, IllegalAction, check_options
from games.weinhaendler.cards import deck_from_json
from games.weinhaendler.cellar import slot_of
from games.weinhaendler.players import SearchPlayer
from games.weinhaendler.state import MAX_PLAYERS, MIN_PLAYERS, WeinhaendlerState

_OPTIONS = {"deck", "first_player"}


class WeinhaendlerEngine(Engine):
    key = "weinhaendler"
    title = "Die Weinhändler"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    has_adviser = True

    def new_game(
        self, players: list[str], options: dict[str, JSON], seed: int
    ) -> WeinhaendlerState:
        check_options(options, _OPTIONS, "Weinhändler")
        deck = deck_from_json(options["deck"]) if options.get("deck") is not None else None
        first = options.get("first_player")
        if first is not None and first not in players:
            raise BadSetup(f"first_player {first!r} is not one of the players")
        return WeinhaendlerState.new(
            players, seed, deck=deck, first=None if first is None else players.index(first)
        )

    def from_json(self, data: dict[str, JSON]) -> WeinhaendlerState:
        return WeinhaendlerState.from_json(data)

    def advise(self, state: GameState, options: dict[str, JSON] | None = None) -> Advice:
        if not isinstance(state, WeinhaendlerState):
            raise BadSetup("not a Weinhändler game")
        if options:
            raise BadSetup(f"the Weinhändler adviser takes no options, got {sorted(options)}")
        if state.is_terminal():
            raise IllegalAction("the game is over: there is no move to advise")
        player = SearchPlayer(seed=state.round)
        action = player.choose(state)
        if state.phase == "auction":
            why = (
                "Monte-Carlo search over bids: each candidate bid was played out in "
                f"{player.rollouts} reshuffled worlds with greedy opponents; this one leaves the "
                "hand worth the most cellar points"
            )
        else:
            why = (
                "beam search over placement orders: points now plus a bonus for open formations "
                "(two of one wine with the third place free)"
            )
        details: dict[str, JSON] = {"phase": state.phase}
        if state.phase == "auction":
            details["planned_offer"] = player.planned_offer
        else:
            details["next_placements"] = [
                {"card": card, "cellar": k, "slot": list(slot_of(slot))}
                for card, k, slot in player.planned_placements
            ]
        return Advice(action=action, explanation=why, exact=False, details=details)
