"""The common, small interface of the rule engines (in the spirit of OpenSpiel).

A game *state* is a mutable object that can be copied, serialised to JSON and restored. It says
who acts next (a player's name, :data:`CHANCE` for a dice roll or shuffle that the engine may
draw itself, or ``None`` once the game is over), lists the legal actions (JSON values: dicts of
strings, ints, lists), applies one (an illegal action raises :class:`IllegalAction` and leaves the
state exactly as it was), and scores the players with a breakdown.

Randomness is seeded: every state carries its own :class:`random.Random`, whose internal state
is part of the JSON, so a restored game draws the same numbers as the original would have.

:data:`ENGINES` maps a game's key (``"nachbarn"``, ``"biermann"``, ``"weinhaendler"``) to its
:class:`Engine`; the HTTP layer only talks to this registry.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Self

JSON = Any
"""A JSON value: dict / list / str / int / float / bool / None."""

Action = dict[str, JSON]
"""An action: a JSON object, e.g. ``{"take": 17}`` or ``{"type": "roll", "dice": [3, 4]}``."""

CHANCE = "chance"
"""The pseudo-player who acts when the next step is a random draw (dice, shuffle)."""


class IllegalAction(ValueError):
    """An action the current state does not allow; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadSetup(ValueError):
    """Players or options that cannot start a game (wrong player count, malformed board...)."""


@dataclass(frozen=True)
class PlayerScore:
    """One player's score: the total and its named parts (``breakdown`` is JSON)."""

    player: str
    total: float
    breakdown: dict[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"player": self.player, "total": self.total, "breakdown": self.breakdown}


@dataclass(frozen=True)
class Advice:
    """An adviser's recommended action and, in words, why (and how exact the search was)."""

    action: Action
    explanation: str
    exact: bool
    details: dict[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {
            "action": self.action,
            "explanation": self.explanation,
            "exact": self.exact,
            "details": self.details,
        }


def rng_to_json(rng: random.Random) -> list[JSON]:
    """The internal state of ``rng`` as a JSON list (restorable with :func:`rng_from_json`)."""
    version, internal, gauss_next = rng.getstate()
    return [version, list(internal), gauss_next]


def rng_from_json(data: list[JSON]) -> random.Random:
    """A :class:`random.Random` in exactly the state :func:`rng_to_json` recorded."""
    try:
        version, internal, gauss_next = data
        rng = random.Random()
        rng.setstate((int(version), tuple(int(x) for x in internal), gauss_next))
    except (TypeError, ValueError) as exc:
        raise BadSetup(f"invalid random-generator state: {exc}") from exc
    return rng


def copy_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state as ``rng``."""
    clone = random.Random()
    clone.setstate(rng.getstate())
    return clone


def check_options(options: dict[str, JSON], known: set[str] | frozenset[str], what: str) -> None:
    """Refuse option names outside ``known`` with :class:`BadSetup` naming ``what`` they tune."""
    unknown = set(options) - set(known)
    if unknown:
        raise BadSetup(f"unknown {what} option(s) {sorted(unknown)}; known: {sorted(known)}")


def check_players(players: list[str], low: int, high: int | None) -> list[str]:
    """Validate a list of distinct, non-empty player names with ``low..high`` entries."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadSetup("players must be a list of names (strings)")
    names = [p.strip() for p in players]
    if any(not p for p in names):
        raise BadSetup("player names must not be empty")
    if len(set(names)) != len(names):
        raise BadSetup("player names must be distinct")
    if len(names) < low or (high is not None and len(names) > high):
        wanted = f"{low} or more" if high is None else f"{low} to {high}"
        raise BadSetup(f"this game needs {wanted} players, got {len(names)}")
    return names


class GameState(ABC):
    """A game in progress. Subclasses keep all their data JSON-able and the RNG in ``rng``."""

    game: str
    players: list[str]
    rng: random.Random

    @abstractmethod
    def copy(self) -> Self:
        """An independent deep copy (including the random generator)."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """Everything needed to restore the state with the engine's ``from_json``."""

    @abstractmethod
    def current_player(self) -> str | None:
        """The player to act, :data:`CHANCE` for a random draw, ``None`` when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The actions :meth:`apply` accepts now (empty when the game is over)."""

    @abstractmethod
    def apply(self, action: Action) -> list[dict[str, JSON]]:
        """Carry out ``action`` and return the events it caused (e.g. who drinks).

        Raises :class:`IllegalAction` (state unchanged) when ``action`` is not legal now.
        """

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def scores(self) -> list[PlayerScore]:
        """Every player's score (final once terminal, running before), in seat order."""

    def chance_action(self) -> Action:
        """Draw the next random action with the state's own RNG (only when it is chance's turn).

        The default draws uniformly from the legal actions; games whose chance outcomes are not
        uniform override it.
        """
        if self.current_player() != CHANCE:
            raise IllegalAction("it is not a random draw's turn")
        actions = self.legal_actions()
        return actions[self.rng.randrange(len(actions))]


def require_action_dict(action: Action) -> dict[str, JSON]:
    """Check that ``action`` is a JSON object; the engines' first validation step."""
    if not isinstance(action, dict):
        raise IllegalAction("an action must be a JSON object")
    return action


class Engine(ABC):
    """A game's entry points: start, restore and (where one exists) advise."""

    key: str
    title: str
    min_players: int
    max_players: int | None
    has_adviser: bool

    @abstractmethod
    def new_game(self, players: list[str], options: dict[str, JSON], seed: int) -> GameState:
        """A fresh game; raises :class:`BadSetup` on bad players or options."""

    @abstractmethod
    def from_json(self, data: dict[str, JSON]) -> GameState:
        """Restore a state written by ``GameState.to_json``; raises :class:`BadSetup`."""

    def advise(self, state: GameState, options: dict[str, JSON] | None = None) -> Advice:
        """The recommended action for the player to act, with an explanation.

        ``options`` tune the adviser (documented per game); unknown ones raise ``BadSetup``.
        """
        raise IllegalAction(f"{self.title} has no adviser")


_ENGINES: dict[str, Engine] = {}


def _registry() -> dict[str, Engine]:
    """Build the registry on first use (the engine modules import this module)."""
    if not _ENGINES:
        from games.biermann.engine import BiermannEngine
        from games.nachbarn.engine import NachbarnEngine
        from games.weinhaendler.engine import WeinhaendlerEngine

        for engine in (NachbarnEngine(), BiermannEngine(), WeinhaendlerEngine()):
            _ENGINES[engine.key] = engine
    return _ENGINES


def __getattr__(name: str) -> dict[str, Engine]:
    # ``ENGINES`` is resolved lazily so that ``games.<game>.engine`` can import this module.
    if name == "ENGINES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
