"""A whole game of Beer & Pretzels: players, rounds with a rotating start player, totals, winners.

Rules (``spec/beer-and-pretzels.md``, "A game"): 2-5 players sit in a circle, each with a colour;
there are as many rounds as players and each player starts exactly one, clockwise from the first
seat (round ``k``, counted from 1, is started by seat ``k``). With five players the ``soft``
coasters are removed (see :data:`~games.beer_pretzels.scoring.FIVE_PLAYER_REMOVED_TYPES`). After
the last round the players with the most money win; ties share the win.

A round's money comes from a scored photo (:meth:`BeerPretzelsGame.play_round`) or is typed in
(:meth:`BeerPretzelsGame.record_round`). A person may correct it afterwards
(:meth:`BeerPretzelsGame.correct_round`); the original is kept alongside the correction and the
correction is what counts. The game round-trips through JSON (:meth:`BeerPretzelsGame.to_dict`,
:meth:`BeerPretzelsGame.from_dict`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.beer_pretzels.catalogue import Catalogue, IconKind, load_catalogue
from games.beer_pretzels.scene import Scene
from games.beer_pretzels.scoring import FIVE_PLAYER_REMOVED_TYPES, SceneScore, score_scene

GAME_KEY = "beer-and-pretzels"
MIN_PLAYERS = 2
MAX_PLAYERS = 5
_FORMAT_VERSION = 1


class GameError(ValueError):
    """An operation the game does not allow: bad players, a round too many, bad money."""


@dataclass(frozen=True)
class RoundRecord:
    """One played round: who started it and the money per colour ($).

    ``money`` is what was scored (or typed in); ``corrected`` a person's correction of it, if
    any. :attr:`final` is what counts.
    """

    number: int
    start_player: str
    money: dict[str, int]
    corrected: dict[str, int] | None = None
    warnings: tuple[str, ...] = ()

    @property
    def final(self) -> dict[str, int]:
        return dict(self.corrected if self.corrected is not None else self.money)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "start_player": self.start_player,
            "money": dict(self.money),
            "corrected": None if self.corrected is None else dict(self.corrected),
            "warnings": list(self.warnings),
        }


class BeerPretzelsGame:
    """The state of one game; ``players`` are colours in seat order, clockwise."""

    def __init__(self, players: Sequence[str], catalogue: Catalogue | None = None) -> None:
        self.catalogue = catalogue if catalogue is not None else load_catalogue()
        self.players: tuple[str, ...] = _check_players(players, self.catalogue)
        self.rounds: list[RoundRecord] = []

    # --- where the game stands ----------------------------------------------------------------

    @property
    def n_rounds(self) -> int:
        """Rounds in the whole game: one per player."""
        return len(self.players)

    @property
    def finished(self) -> bool:
        return len(self.rounds) == self.n_rounds

    @property
    def next_round(self) -> int | None:
        """Number (from 1) of the round to play next; ``None`` once the game is over."""
        return None if self.finished else len(self.rounds) + 1

    @property
    def start_player(self) -> str | None:
        """The colour that starts the next round; ``None`` once the game is over."""
        return None if self.finished else self.players[len(self.rounds)]

    @property
    def removed_types(self) -> tuple[str, ...]:
        """Coaster types not used in this game (the ``soft`` ones with five players)."""
        return FIVE_PLAYER_REMOVED_TYPES if len(self.players) == 5 else ()

    @property
    def max_round_money(self) -> int:
        """The most one colour can make in a round ($): every pretzel visible, doubled."""
        pretzels = sum(
            icon.value or 0
            for t in self.catalogue.coaster_types
            if t.type not in self.removed_types
            for icon in t.icons
            if icon.kind is IconKind.PRETZEL
        )
        return 2 * pretzels

    @property
    def totals(self) -> dict[str, int]:
        """Money per colour over the rounds played so far ($), corrections applied."""
        totals = dict.fromkeys(self.players, 0)
        for record in self.rounds:
            for color, money in record.final.items():
                totals[color] += money
        return totals

    @property
    def winners(self) -> list[str]:
        """The colours with the most money so far (all of them on a tie), in seat order.

        Once :attr:`finished`, these are the winners of the game.
        """
        totals = self.totals
        best = max(totals.values())
        return [color for color in self.players if totals[color] == best]

    # --- playing ------------------------------------------------------------------------------

    def score_round(self, scene: Scene) -> SceneScore:
        """Score a photo's scene with this game's players and rules (records nothing)."""
        return score_scene(
            scene, self.catalogue, players=self.players, removed_types=self.removed_types
        )

    def play_round(self, scene: Scene) -> tuple[SceneScore, RoundRecord]:
        """Score ``scene`` and record it as the next round."""
        result = self.score_round(scene)
        return result, self.record_round(result.scores, warnings=result.warnings)

    def record_round(self, money: Mapping[str, int], warnings: Sequence[str] = ()) -> RoundRecord:
        """Record the next round's money per colour ($); colours left out made $0."""
        if self.finished:
            raise GameError(f"the game is over: all {self.n_rounds} rounds have been played")
        record = RoundRecord(
            number=len(self.rounds) + 1,
            start_player=self.players[len(self.rounds)],
            money=self._check_money(money),
            warnings=tuple(warnings),
        )
        self.rounds.append(record)
        return record

    def correct_round(self, number: int, money: Mapping[str, int]) -> RoundRecord:
        """Correct round ``number`` (from 1) by hand; colours left out keep their money.

        The scored money stays in the record next to the correction.
        """
        if not isinstance(number, int) or not 1 <= number <= len(self.rounds):
            raise GameError(
                f"no round {number!r} to correct: {len(self.rounds)} round(s) played so far"
            )
        original = self.rounds[number - 1]
        corrected = original.final | self._check_money(money, fill=False)
        record = RoundRecord(
            number=original.number,
            start_player=original.start_player,
            money=original.money,
            corrected=corrected,
            warnings=original.warnings,
        )
        self.rounds[number - 1] = record
        return record

    def _check_money(self, money: Mapping[str, int], fill: bool = True) -> dict[str, int]:
        if not isinstance(money, Mapping):
            raise GameError("money must map colours to whole dollars")
        top = self.max_round_money
        checked = dict.fromkeys(self.players, 0) if fill else {}
        for color, amount in money.items():
            if color not in self.players:
                raise GameError(f"colour {color!r} is not in this game: {', '.join(self.players)}")
            if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= top:
                raise GameError(
                    f"{color}'s money must be a whole number of dollars from 0 to {top}, "
                    f"got {amount!r}"
                )
            checked[color] = amount
        return checked

    # --- JSON ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The game as JSON: players, rounds, and (derived, for readers) totals and winners."""
        return {
            "game": GAME_KEY,
            "version": _FORMAT_VERSION,
            "players": list(self.players),
            "rounds": [record.to_dict() for record in self.rounds],
            "totals": self.totals,
            "finished": self.finished,
            "winners": self.winners if self.finished else [],
        }

    @classmethod
    def from_dict(cls, data: Any, catalogue: Catalogue | None = None) -> BeerPretzelsGame:
        """Restore a game saved by :meth:`to_dict` (derived fields are recomputed)."""
        if not isinstance(data, Mapping) or data.get("game") != GAME_KEY:
            raise GameError(f"not a saved {GAME_KEY} game")
        if data.get("version") != _FORMAT_VERSION:
            raise GameError(f"unsupported saved-game version {data.get('version')!r}")
        game = cls(_field(data, "players", list), catalogue)
        for n, raw in enumerate(_field(data, "rounds", list), start=1):
            if not isinstance(raw, Mapping):
                raise GameError(f"round {n} must be an object")
            record = game.record_round(
                _field(raw, "money", Mapping), warnings=_field(raw, "warnings", list)
            )
            if raw.get("number") != n or raw.get("start_player") != record.start_player:
                raise GameError(
                    f"round {n} does not follow the seat order (expected number {n}, "
                    f"start player {record.start_player})"
                )
            corrected = raw.get("corrected")
            if corrected is not None:
                game.correct_round(n, corrected)
        return game


def _check_players(players: Sequence[str], catalogue: Catalogue) -> tuple[str, ...]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise GameError("players must be a list of colours in seat order")
    colors = tuple(players)
    if not MIN_PLAYERS <= len(colors) <= MAX_PLAYERS:
        raise GameError(
            f"Beer & Pretzels needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(colors)}"
        )
    unknown = [c for c in colors if c not in catalogue.color_names]
    if unknown:
        raise GameError(
            f"unknown colour(s) {', '.join(map(repr, unknown))}; choose from "
            f"{', '.join(catalogue.color_names)}"
        )
    if len(set(colors)) != len(colors):
        raise GameError(f"every player needs a different colour, got {', '.join(colors)}")
    return colors


def _field(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise GameError(f"field {key!r} is missing or not a {kind.__name__}")
    return value
