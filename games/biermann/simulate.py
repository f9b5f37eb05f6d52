"""Seeded simulation of whole Biermann evenings through the referee state machine.

The dice come from the state's own seeded generator; the table's choices are drawn by simple
rules: the last to touch his nose is anyone at random, a doublet's sips go one by one to random
other players, the freed Biermann names a random other player, and (with the battle option) a
player battles exactly when it lowers his expected sips ignoring counter-battles:
``5/6 * (sips + 1) < sips``, i.e. from 6 sips on.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from games.biermann.state import CAUSES, BiermannState
from games.engine import CHANCE, JSON, Action


@dataclass(frozen=True)
class SimulationResult:
    """Sips per seat (by cause) after ``turns`` turns and ``rolls`` rolls."""

    players: list[str]
    sips: list[dict[str, int]]
    turns: int
    rolls: int

    def total_sips(self) -> list[int]:
        return [sum(s.values()) for s in self.sips]

    def to_json(self) -> dict[str, JSON]:
        return {
            "players": self.players,
            "turns": self.turns,
            "rolls": self.rolls,
            "sips": {p: dict(s) for p, s in zip(self.players, self.sips, strict=True)},
            "total_sips": dict(zip(self.players, self.total_sips(), strict=True)),
        }


def table_choice(state: BiermannState, rng: random.Random) -> Action:
    """The simulated table's input when a decision (not a roll) is expected."""
    p = state.pending[0]
    kind = p["kind"]
    players = state.players
    if kind == "nose":
        return {"type": "nose", "last": rng.choice(players)}
    if kind == "distribute":
        others = [n for i, n in enumerate(players) if i != state.roller]
        split: Counter[str] = Counter(rng.choice(others) for _ in range(int(p["sips"])))
        return {"type": "distribute", "sips": dict(split)}
    if kind == "name_biermann":
        return {
            "type": "name_biermann",
            "player": rng.choice([n for i, n in enumerate(players) if i != state.biermann]),
        }
    sips = int(p["sips"])
    return {"type": "battle_choice", "battle": 5 * (sips + 1) < 6 * sips}


def simulate(players: list[str], rounds: int, seed: int, battle: bool = False) -> SimulationResult:
    """Play ``rounds`` rounds (``rounds * len(players)`` turns) after the roll-off."""
    if rounds < 1:
        raise ValueError("simulate at least one round")
    state = BiermannState.new(players, seed, battle=battle, turns=rounds * len(players))
    choices = random.Random(seed ^ 0x5EED)
    while not state.is_terminal():
        who = state.current_player()
        action = state.chance_action() if who == CHANCE else table_choice(state, choices)
        state.apply(action)
    return SimulationResult(
        list(state.players), [dict(s) for s in state.sips], state.turns, state.rolls
    )


__all__ = ["CAUSES", "SimulationResult", "simulate", "table_choice"]
