"""The Nachbarn entry point for :data:`games.engine.ENGINES`.

Game options: ``board`` (37 cells: a colour, ``"gray"`` or ``null``; default: shuffled from the
seed), ``start_player`` (a player's name; default: drawn from the seed).

Adviser options: ``opponents`` (``"rational"``, the default: max-n; ``"random"``: expectimax
against random movers) and ``node_budget`` (positions searched, 1..1,000,000, default
:data:`~games.nachbarn.adviser.DEFAULT_NODE_BUDGET`).
"""

from __future__ import annotations

from games.engine import JSON, Advice, BadSetup, Engine, GameState, check_options
from games.nachbarn.adviser import DEFAULT_NODE_BUDGET, Opponents, advise
from games.nachbarn.state import MAX_PLAYERS, MIN_PLAYERS, NachbarnState

_OPTIONS = {"board", "start_player"}
_ADVISER_OPTIONS = {"opponents", "node_budget"}
MAX_NODE_BUDGET = 1_000_000


class NachbarnEngine(Engine):
    key = "nachbarn"
    title = "Nachbarn"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    has_adviser = True

    def new_game(self, players: list[str], options: dict[str, JSON], seed: int) -> NachbarnState:
        check_options(options, _OPTIONS, "Nachbarn")
        return NachbarnState.new(
            players, seed, board=options.get("board"), start_player=options.get("start_player")
        )

    def from_json(self, data: dict[str, JSON]) -> NachbarnState:
        return NachbarnState.from_json(data)

    def advise(self, state: GameState, options: dict[str, JSON] | None = None) -> Advice:
        if not isinstance(state, NachbarnState):
            raise BadSetup("not a Nachbarn game")
        options = options or {}
        check_options(options, _ADVISER_OPTIONS, "adviser")
        try:
            opponents = Opponents(options.get("opponents", Opponents.RATIONAL.value))
        except ValueError as exc:
            raise BadSetup("opponents must be 'rational' or 'random'") from exc
        budget = options.get("node_budget", DEFAULT_NODE_BUDGET)
        if (
            isinstance(budget, bool)
            or not isinstance(budget, int)
            or not 1 <= budget <= MAX_NODE_BUDGET
        ):
            raise BadSetup(f"node_budget must be a whole number from 1 to {MAX_NODE_BUDGET}")
        return advise(state, budget, opponents)
