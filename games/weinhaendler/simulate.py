"""Whole games of Die Weinhändler played by computer players."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.weinhaendler.cards import Card
from games.weinhaendler.players import ComputerPlayer
from games.weinhaendler.state import WeinhaendlerState


@dataclass(frozen=True)
class GameResult:
    """Final points per seat, the winners and how long the game was."""

    players: list[str]
    points: list[int]
    winners: list[str]
    rounds: int
    actions: int


def play_game(
    seats: Sequence[ComputerPlayer],
    seed: int,
    deck: list[Card] | None = None,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one seeded game to the end, seat ``i`` driven by ``seats[i]``."""
    players = list(names) if names is not None else [f"{p.name}-{i}" for i, p in enumerate(seats)]
    state = WeinhaendlerState.new(players, seed, deck=deck)
    actions = 0
    while not state.is_terminal():
        state.apply(seats[state.to_act].choose(state))
        actions += 1
    return GameResult(players, list(state.points), state.winners(), state.round, actions)
