"""The Biermann referee: rolls and reported choices in, drink events and the next input out.

Seats form a ring in the order of ``players``; the *left* neighbour of seat ``i`` is seat
``i + 1`` (the next roller), the *right* neighbour seat ``i - 1``.

Phases: ``rolloff`` (everyone rolls, lowest sum becomes the first Biermann, tied lowest roll
again), ``play`` (turns), ``over`` (the evening was ended, or the ``turns`` option reached).

Actions (JSON objects, key ``type``):

* ``{"type": "roll", "dice": [a, b]}`` — the dice as they fell (a roll-off, a turn or a battle
  roll). A roll is the dice's move: :meth:`BiermannState.current_player` is
  :data:`~games.engine.CHANCE` then, and ``expected()["player"]`` says who rolls.
* ``{"type": "nose", "last": name}`` — after a 7: who touched his nose last.
* ``{"type": "distribute", "sips": {name: n, ...}}`` — after a doublet n-n (n >= 2): the
  roller's sips among the other players, adding up to n.
* ``{"type": "battle_choice", "battle": bool}`` — option ``battle``: the one who received all
  of a doublet's sips drinks them (``false``) or battles (``true``, then rolls once).
* ``{"type": "name_biermann", "player": name}`` — the Biermann rolled a 3 on his own action
  roll: he names the new Biermann.
* ``{"type": "penalty", "reason": r, "player": name?}`` — a penalty sip, reasons in
  :data:`PENALTY_REASONS`; ``player`` defaults to the one expected to roll or decide.
  ``die_off_table`` also means the roll is rolled again (nothing else changes).
* ``{"type": "end"}`` — the evening ends.

Decisions taken where the rules are silent: a battle roll only decides the battle (its 3s,
6s... cause nothing else); the Biermann who frees himself still drinks his sip first and then
names a successor (not himself); inputs pending after one roll are taken in the order nose,
distribution (with any battle), new Biermann.
"""

from __future__ import annotations

import itertools
import random
from typing import Self

from games.biermann.dice import OUTCOMES, check_die, roll_effects
from games.engine import (
    CHANCE,
    JSON,
    Action,
    BadSetup,
    GameState,
    IllegalAction,
    PlayerScore,
    check_players,
    require_action_dict,
    rng_from_json,
    rng_to_json,
)

MIN_PLAYERS = 3
PENALTY_REASONS: tuple[str, ...] = (
    "die_off_table",
    "sip_not_finished",
    "complaint",
    "complaint_about_penalty",
)
CAUSES: tuple[str, ...] = (
    "biermann",
    "left_neighbour",
    "right_neighbour",
    "last_to_nose",
    "one_one",
    "handed_out",
    "battle",
    "penalty",
)
"""Why someone drank; the keys of each player's score breakdown."""


def _copy_pending(pending: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    return [dict(p) for p in pending]


class BiermannState(GameState):
    """The referee's state. Seats are indices into ``players``; ``pending`` is a queue of
    decisions owed after the last roll (``{"kind": "nose" | "distribute" | "battle_choice" |
    "battle_roll" | "name_biermann", ...}``)."""

    game = "biermann"

    def __init__(
        self,
        players: list[str],
        battle: bool,
        max_turns: int | None,
        rng: random.Random,
    ) -> None:
        self.players = players
        self.battle = battle
        self.max_turns = max_turns
        self.rng = rng
        self.phase = "rolloff"
        self.rolloff_group: list[int] = list(range(len(players)))
        self.rolloff_sums: list[int] = []
        self.biermann: int | None = None
        self.roller = 0
        self.pending: list[dict[str, JSON]] = []
        self.sips: list[dict[str, int]] = [dict.fromkeys(CAUSES, 0) for _ in players]
        self.turns = 0
        self.rolls = 0

    # ------------------------------------------------------------------ setup / persistence
    @classmethod
    def new(
        cls, players: list[str], seed: int, battle: bool = False, turns: int | None = None
    ) -> BiermannState:
        names = check_players(players, MIN_PLAYERS, None)
        if not isinstance(battle, bool):
            raise BadSetup("option battle must be true or false")
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int)):
            raise BadSetup("option turns must be a whole number of turns or null")
        if turns is not None and turns < 1:
            raise BadSetup("option turns must be at least 1")
        return cls(names, battle, turns, random.Random(seed))

    def copy(self) -> Self:
        return type(self).from_json(self.to_json())

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "players": list(self.players),
            "options": {"battle": self.battle, "turns": self.max_turns},
            "phase": self.phase,
            "rolloff_group": list(self.rolloff_group),
            "rolloff_sums": list(self.rolloff_sums),
            "biermann": self.biermann,
            "roller": self.roller,
            "pending": _copy_pending(self.pending),
            "sips": [dict(s) for s in self.sips],
            "turns": self.turns,
            "rolls": self.rolls,
            "expected": self.expected(),
            "rng": rng_to_json(self.rng),
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> BiermannState:
        try:
            players = check_players(data["players"], MIN_PLAYERS, None)
            options = data["options"]
            state = cls(
                players, bool(options["battle"]), options["turns"], rng_from_json(data["rng"])
            )
            state.phase = str(data["phase"])
            state.rolloff_group = [int(i) for i in data["rolloff_group"]]
            state.rolloff_sums = [int(i) for i in data["rolloff_sums"]]
            state.biermann = None if data["biermann"] is None else int(data["biermann"])
            state.roller = int(data["roller"])
            state.pending = _copy_pending(data["pending"])
            state.sips = [{c: int(s[c]) for c in CAUSES} for s in data["sips"]]
            state.turns = int(data["turns"])
            state.rolls = int(data["rolls"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadSetup(f"not a Biermann state: {exc}") from exc
        if state.phase not in ("rolloff", "play", "over") or len(state.sips) != len(players):
            raise BadSetup("not a Biermann state: unknown phase or sips do not match the players")
        return state

    # ------------------------------------------------------------------ seats
    def left_of(self, seat: int) -> int:
        return (seat + 1) % len(self.players)

    def right_of(self, seat: int) -> int:
        return (seat - 1) % len(self.players)

    def _seat(self, name: JSON, what: str) -> int:
        if not isinstance(name, str) or name not in self.players:
            raise IllegalAction(f"{what} {name!r} is not a player in this game")
        return self.players.index(name)

    # ------------------------------------------------------------------ what comes next
    def _acting_seat(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase == "rolloff":
            return self.rolloff_group[len(self.rolloff_sums)]
        if self.pending:
            p = self.pending[0]
            return int(p["player"]) if "player" in p else self.roller
        return self.roller

    def expected(self) -> dict[str, JSON] | None:
        """The next input the referee waits for, e.g. ``{"input": "roll", "player": "Ann"}``."""
        seat = self._acting_seat()
        if seat is None:
            return None
        name = self.players[seat]
        if self.phase == "rolloff":
            return {"input": "roll", "player": name, "purpose": "roll-off for the first Biermann"}
        if not self.pending:
            return {"input": "roll", "player": name, "purpose": "turn"}
        p = self.pending[0]
        kind = p["kind"]
        if kind == "nose":
            return {"input": "nose", "player": name, "purpose": "who touched his nose last"}
        if kind == "distribute":
            return {"input": "distribute", "player": name, "sips": p["sips"]}
        if kind == "name_biermann":
            return {"input": "name_biermann", "player": name}
        giver = self.players[int(p["giver"])]
        if kind == "battle_choice":
            return {"input": "battle_choice", "player": name, "sips": p["sips"], "giver": giver}
        return {
            "input": "roll",
            "player": name,
            "purpose": "battle",
            "sips": p["sips"],
            "giver": giver,
        }

    def _expects_roll(self) -> bool:
        return self.phase == "rolloff" or (
            self.phase == "play" and (not self.pending or self.pending[0]["kind"] == "battle_roll")
        )

    def current_player(self) -> str | None:
        if self.phase == "over":
            return None
        if self._expects_roll():
            return CHANCE
        seat = self._acting_seat()
        return None if seat is None else self.players[seat]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def chance_action(self) -> Action:
        if not self._expects_roll() or self.phase == "over":
            raise IllegalAction("no roll is expected now")
        return {"type": "roll", "dice": [self.rng.randint(1, 6), self.rng.randint(1, 6)]}

    def legal_actions(self) -> list[Action]:
        if self.phase == "over":
            return []
        actions: list[Action] = []
        if self._expects_roll():
            actions = [{"type": "roll", "dice": [a, b]} for a, b in OUTCOMES]
        else:
            p = self.pending[0]
            kind = p["kind"]
            if kind == "nose":
                actions = [{"type": "nose", "last": name} for name in self.players]
            elif kind == "distribute":
                others = [n for i, n in enumerate(self.players) if i != self.roller]
                actions = [
                    {
                        "type": "distribute",
                        "sips": {n: k for n, k in zip(others, split, strict=True) if k},
                    }
                    for split in _splits(int(p["sips"]), len(others))
                ]
            elif kind == "battle_choice":
                actions = [{"type": "battle_choice", "battle": b} for b in (False, True)]
            elif kind == "name_biermann":
                actions = [
                    {"type": "name_biermann", "player": n}
                    for i, n in enumerate(self.players)
                    if i != self.biermann
                ]
        actions += [{"type": "penalty", "reason": r} for r in PENALTY_REASONS]
        actions.append({"type": "end"})
        return actions

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> list[dict[str, JSON]]:
        kind = require_action_dict(action).get("type")
        if self.phase == "over":
            raise IllegalAction("the evening is over")
        handlers = {
            "roll": self._roll,
            "nose": self._nose,
            "distribute": self._distribute,
            "battle_choice": self._battle_choice,
            "name_biermann": self._name_biermann,
            "penalty": self._penalty,
            "end": self._end,
        }
        handler = handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(f"unknown action type {kind!r}; types: {sorted(handlers)}")
        return handler(action)

    def _drink(self, seat: int, sips: int, cause: str) -> dict[str, JSON]:
        self.sips[seat][cause] += sips
        return {"type": "drink", "player": self.players[seat], "sips": sips, "cause": cause}

    def _expect_pending(self, kind: str) -> dict[str, JSON]:
        if self.phase != "play" or not self.pending or self.pending[0]["kind"] != kind:
            wanted = self.expected()
            raise IllegalAction(
                f"the referee expects {wanted['input'] if wanted else 'nothing'}, not {kind}"
            )
        return self.pending[0]

    def _roll(self, action: Action) -> list[dict[str, JSON]]:
        dice = action.get("dice")
        if not isinstance(dice, list) or len(dice) != 2:
            raise IllegalAction('a roll is {"type": "roll", "dice": [a, b]}')
        try:
            a, b = check_die(dice[0]), check_die(dice[1])
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc
        if not self._expects_roll():
            raise IllegalAction(f"the referee expects {self.expected()['input']}, not a roll")
        if self.phase == "rolloff":
            return self._rolloff_roll(a, b)
        self.rolls += 1
        if self.pending:
            return self._battle_roll(a, b)
        return self._turn_roll(a, b)

    def _rolloff_roll(self, a: int, b: int) -> list[dict[str, JSON]]:
        seat = self.rolloff_group[len(self.rolloff_sums)]
        self.rolloff_sums.append(a + b)
        events: list[dict[str, JSON]] = [
            {"type": "rolloff", "player": self.players[seat], "sum": a + b}
        ]
        if len(self.rolloff_sums) < len(self.rolloff_group):
            return events
        low = min(self.rolloff_sums)
        lowest = [s for s, v in zip(self.rolloff_group, self.rolloff_sums, strict=True) if v == low]
        self.rolloff_sums = []
        if len(lowest) > 1:
            self.rolloff_group = lowest
            events.append({"type": "rolloff_tie", "players": [self.players[s] for s in lowest]})
            return events
        self.biermann = lowest[0]
        self.roller = self.left_of(lowest[0])
        self.rolloff_group = []
        self.phase = "play"
        events.append({"type": "new_biermann", "player": self.players[lowest[0]]})
        return events

    def _turn_roll(self, a: int, b: int) -> list[dict[str, JSON]]:
        assert self.biermann is not None
        fx = roll_effects(a, b)
        roller = self.roller
        events: list[dict[str, JSON]] = [
            {"type": "roll", "player": self.players[roller], "dice": [a, b]}
        ]
        if not fx.is_action:
            self.turns += 1
            self.roller = self.left_of(roller)
            events.append({"type": "turn_passes", "player": self.players[self.roller]})
            if self.max_turns is not None and self.turns >= self.max_turns:
                self.phase = "over"
                events.append({"type": "over", "turns": self.turns})
            return events
        if fx.biermann_sip:
            events.append(self._drink(self.biermann, 1, "biermann"))
        if fx.left_sip:
            events.append(self._drink(self.left_of(roller), 1, "left_neighbour"))
        if fx.right_sip:
            events.append(self._drink(self.right_of(roller), 1, "right_neighbour"))
        if fx.roller_sip:
            events.append(self._drink(roller, 1, "one_one"))
        if fx.nose:
            self.pending.append({"kind": "nose"})
        if fx.hand_out:
            self.pending.append({"kind": "distribute", "sips": fx.hand_out})
        if fx.biermann_sip and roller == self.biermann:
            self.pending.append({"kind": "name_biermann"})
        return events

    def _nose(self, action: Action) -> list[dict[str, JSON]]:
        self._expect_pending("nose")
        seat = self._seat(action.get("last"), "last")
        self.pending.pop(0)
        return [self._drink(seat, 1, "last_to_nose")]

    def _distribute(self, action: Action) -> list[dict[str, JSON]]:
        p = self._expect_pending("distribute")
        split = action.get("sips")
        if not isinstance(split, dict):
            raise IllegalAction('a distribution is {"type": "distribute", "sips": {name: n}}')
        seats: list[tuple[int, int]] = []
        for name, n in split.items():
            seat = self._seat(name, "recipient")
            if seat == self.roller:
                raise IllegalAction("the roller hands his sips to the others, not to himself")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise IllegalAction(f"sips for {name} must be a whole number >= 0, got {n!r}")
            if n:
                seats.append((seat, n))
        total = sum(n for _, n in seats)
        if total != p["sips"]:
            raise IllegalAction(
                f"the doublet hands out {p['sips']} sips, the distribution has {total}"
            )
        self.pending.pop(0)
        if self.battle and len(seats) == 1:
            seat, n = seats[0]
            self.pending.insert(
                0,
                {
                    "kind": "battle_choice",
                    "player": seat,
                    "giver": self.roller,
                    "sips": n,
                    "cause": "handed_out",
                },
            )
            return [{"type": "may_battle", "player": self.players[seat], "sips": n}]
        return [self._drink(seat, n, "handed_out") for seat, n in seats]

    def _battle_choice(self, action: Action) -> list[dict[str, JSON]]:
        p = self._expect_pending("battle_choice")
        battle = action.get("battle")
        if not isinstance(battle, bool):
            raise IllegalAction(
                'a battle choice is {"type": "battle_choice", "battle": true|false}'
            )
        seat, sips = int(p["player"]), int(p["sips"])
        if not battle:
            self.pending.pop(0)
            return [self._drink(seat, sips, str(p["cause"]))]
        self.pending[0] = {**p, "kind": "battle_roll"}
        return [{"type": "battle", "player": self.players[seat], "sips": sips}]

    def _battle_roll(self, a: int, b: int) -> list[dict[str, JSON]]:
        p = self.pending.pop(0)
        seat, giver, sips = int(p["player"]), int(p["giver"]), int(p["sips"])
        events: list[dict[str, JSON]] = [
            {"type": "roll", "player": self.players[seat], "dice": [a, b]}
        ]
        if a != b:
            events.append(self._drink(seat, sips, "battle"))
            events.append(self._drink(seat, 1, "penalty"))
            return events
        self.pending.insert(
            0,
            {
                "kind": "battle_choice",
                "player": giver,
                "giver": seat,
                "sips": sips + a,
                "cause": "battle",
            },
        )
        events.append({"type": "may_battle", "player": self.players[giver], "sips": sips + a})
        return events

    def _name_biermann(self, action: Action) -> list[dict[str, JSON]]:
        self._expect_pending("name_biermann")
        seat = self._seat(action.get("player"), "new Biermann")
        if seat == self.biermann:
            raise IllegalAction("the Biermann frees himself: he must name somebody else")
        self.pending.pop(0)
        self.biermann = seat
        return [{"type": "new_biermann", "player": self.players[seat]}]

    def _penalty(self, action: Action) -> list[dict[str, JSON]]:
        reason = action.get("reason")
        if reason not in PENALTY_REASONS:
            raise IllegalAction(f"penalty reason must be one of {list(PENALTY_REASONS)}")
        name = action.get("player")
        if name is None:
            seat = self._acting_seat()
            assert seat is not None
        else:
            seat = self._seat(name, "player")
        event = self._drink(seat, 1, "penalty")
        return [{**event, "reason": reason}]

    def _end(self, action: Action) -> list[dict[str, JSON]]:
        if set(action) != {"type"}:
            raise IllegalAction('ending the evening is {"type": "end"}')
        self.phase = "over"
        return [{"type": "over", "turns": self.turns}]

    # ------------------------------------------------------------------ scores
    def scores(self) -> list[PlayerScore]:
        return [
            PlayerScore(player=name, total=sum(self.sips[i].values()), breakdown=dict(self.sips[i]))
            for i, name in enumerate(self.players)
        ]


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    """All ways to write ``total`` as an ordered sum of ``parts`` non-negative ints."""
    result = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        result.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(parts)))
    return result
