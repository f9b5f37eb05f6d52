"""The Nachbarn entry point for :data:`games.engine.ENGINES`.

Options: ``board`` (37 cells: a colour, ``"gray"`` or ``null``; default: shuffled from the
seed), ``start_player`` (a player's name; default: drawn from the seed), ``node_budget`` (the
adviser's search budget in positions, default :data:`~games.nachbarn.adviser.DEFAULT_NODE_BUDGET`).
"""

from __future__ import annotations

from games.engine import JSON, Advice, BadSetup, Engine, GameState
from games.nachbarn.adviser import DEFAULT_NODE_BUDGET, advise
from games.nachbarn.state import MAX_PLAYERS, MIN_PLAYERS, NachbarnState

_OPTIONS = {"board", "start_player"}


class NachbarnEngine(Engine):
    key = "nachbarn"
    title = "Nachbarn"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    has_adviser = True

    def __init__(self, node_budget: int = DEFAULT_NODE_BUDGET) -> None:
        self.node_budget = node_budget

    def new_game(self, players: list[str], options: dict[str, JSON], seed: int) -> NachbarnState:
        unknown = set(options) - _OPTIONS
        if unknown:
            raise BadSetup(
                f"unknown Nachbarn option(s) {sorted(unknown)}; known: {sorted(_OPTIONS)}"
            )
        return NachbarnState.new(
            players, seed, board=options.get("board"), start_player=options.get("start_player")
        )

    def from_json(self, data: dict[str, JSON]) -> NachbarnState:
        return NachbarnState.from_json(data)

    def advise(self, state: GameState) -> Advice:
        if not isinstance(state, NachbarnState):
            raise BadSetup("not a Nachbarn game")
        return advise(state, self.node_budget)
