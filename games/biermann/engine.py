"""The Biermann entry point for :data:`games.engine.ENGINES`.

Options: ``battle`` (bool, default false: the advanced battle rule) and ``turns`` (the evening
ends after this many turns; default null: it ends with an ``{"type": "end"}`` action).
Biermann has no adviser: the table's choices are social, not strategic.
"""

from __future__ import annotations

from games.biermann.state import MIN_PLAYERS, BiermannState
from games.engine import JSON, Engine, check_options

_OPTIONS = {"battle", "turns"}


class BiermannEngine(Engine):
    key = "biermann"
    title = "Biermann"
    min_players = MIN_PLAYERS
    max_players = None
    has_adviser = False

    def new_game(self, players: list[str], options: dict[str, JSON], seed: int) -> BiermannState:
        check_options(options, _OPTIONS, "Biermann")
        return BiermannState.new(
            players, seed, battle=options.get("battle", False), turns=options.get("turns")
        )

    def from_json(self, data: dict[str, JSON]) -> BiermannState:
        return BiermannState.from_json(data)
