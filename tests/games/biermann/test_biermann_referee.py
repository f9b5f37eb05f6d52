"""Biermann: roll effects, exact probabilities, the referee state machine, the simulator."""

import json
import random
from fractions import Fraction

import pytest

from games.biermann.dice import (
    OUTCOMES,
    expected_rolls_per_turn,
    expected_sips_per_roll,
    no_action_rolls,
    p_no_action,
    roll_effects,
    turn_length_probability,
)
from games.biermann.simulate import simulate
from games.biermann.state import BiermannState
from games.engine import CHANCE, IllegalAction

PLAYERS = ["Ann", "Ben", "Cem", "Dora"]


def roll(a: int, b: int) -> dict:
    return {"type": "roll", "dice": [a, b]}


def drinks(events: list[dict]) -> list[tuple[str, int, str]]:
    return [(e["player"], e["sips"], e["cause"]) for e in events if e["type"] == "drink"]


def in_play(biermann: str = "Ann", battle: bool = False) -> BiermannState:
    """A game past the roll-off with ``biermann`` as Biermann (everyone else rolls 12)."""
    state = BiermannState.new(PLAYERS, seed=0, battle=battle)
    for name in PLAYERS:
        state.apply(roll(1, 1) if name == biermann else roll(6, 6))
    assert state.players[state.biermann] == biermann
    return state


def test_eight_of_36_rolls_cause_nothing():
    assert sorted(no_action_rolls()) == sorted(
        [(1, 4), (4, 1), (4, 5), (5, 4), (4, 6), (6, 4), (5, 6), (6, 5)]
    )
    assert p_no_action() == Fraction(8, 36)


def test_a_turn_lasts_four_and_a_half_rolls_on_average():
    assert expected_rolls_per_turn() == Fraction(9, 2)
    # the geometric distribution sums to 1 and its mean is 4.5 (checked numerically to 400 rolls)
    probs = [turn_length_probability(k) for k in range(1, 400)]
    assert float(sum(probs)) == pytest.approx(1.0)
    assert float(sum(k * p for k, p in zip(range(1, 400), probs, strict=True))) == pytest.approx(
        4.5
    )


def test_expected_sips_per_roll_by_role():
    per_roll = expected_sips_per_roll()
    # a 3 on a die: 11 rolls, plus 1-2 and 2-1 for the sum 3
    assert per_roll["biermann"] == Fraction(13, 36)
    assert per_roll["left_neighbour"] == Fraction(4, 36)  # 1-5, 5-1, 2-4, 4-2 (not 3-3)
    assert per_roll["right_neighbour"] == Fraction(4, 36)  # 2-6, 6-2, 3-5, 5-3 (not 4-4)
    assert per_roll["handed_out"] == Fraction(2 + 3 + 4 + 5 + 6, 36)


@pytest.mark.parametrize(
    ("dice", "biermann", "left", "right", "nose", "roller", "hand_out"),
    [
        ((3, 3), True, False, False, False, False, 3),
        ((1, 2), True, False, False, False, False, 0),
        ((2, 4), False, True, False, False, False, 0),
        ((4, 4), False, False, False, False, False, 4),
        ((3, 5), True, False, True, False, False, 0),
        ((3, 4), True, False, False, True, False, 0),
        ((1, 1), False, False, False, False, True, 0),
        ((5, 5), False, False, False, False, False, 5),
        ((5, 6), False, False, False, False, False, 0),
    ],
)
def test_roll_effects_table(dice, biermann, left, right, nose, roller, hand_out):
    fx = roll_effects(*dice)
    assert (fx.biermann_sip, fx.left_sip, fx.right_sip, fx.nose, fx.roller_sip, fx.hand_out) == (
        biermann,
        left,
        right,
        nose,
        roller,
        hand_out,
    )
    assert fx == roll_effects(*reversed(dice))


def test_rolloff_lowest_becomes_biermann_and_ties_roll_again():
    state = BiermannState.new(PLAYERS, seed=0)
    assert state.current_player() == CHANCE
    assert state.expected()["player"] == "Ann"
    for dice in [(1, 2), (5, 5), (2, 1), (6, 6)]:  # Ann and Cem tie on 3
        events = state.apply(roll(*dice))
    assert events[-1] == {"type": "rolloff_tie", "players": ["Ann", "Cem"]}
    assert state.expected()["player"] == "Ann"
    state.apply(roll(4, 4))
    state.apply(roll(1, 1))
    assert state.players[state.biermann] == "Cem"
    assert state.expected() == {"input": "roll", "player": "Dora", "purpose": "turn"}


def test_turn_passes_left_after_a_no_action_roll():
    state = in_play("Ann")
    assert state.expected()["player"] == "Ben"
    assert drinks(state.apply(roll(2, 4))) == [("Cem", 1, "left_neighbour")]
    assert drinks(state.apply(roll(2, 6))) == [("Ann", 1, "right_neighbour")]
    assert state.expected()["player"] == "Ben"  # action rolls: Ben rolls again
    state.apply(roll(1, 4))
    assert state.expected()["player"] == "Cem" and state.turns == 1


def test_a_three_makes_the_biermann_drink_once_and_the_nose_is_reported():
    state = in_play("Ann")
    events = state.apply(roll(3, 4))  # a 3 and a 7
    assert drinks(events) == [("Ann", 1, "biermann")]
    assert state.expected()["input"] == "nose"
    with pytest.raises(IllegalAction, match="expects nose"):
        state.apply(roll(1, 4))
    assert drinks(state.apply({"type": "nose", "last": "Dora"})) == [("Dora", 1, "last_to_nose")]
    assert state.expected()["input"] == "roll"


def test_doublets_hand_out_sips_that_must_add_up():
    state = in_play("Ann")
    state.apply(roll(4, 4))  # Ben hands out 4
    assert state.expected() == {"input": "distribute", "player": "Ben", "sips": 4}
    before = state.to_json()
    for bad, reason in [
        ({"Cem": 3}, "hands out 4"),
        ({"Ben": 4}, "not to himself"),
        ({"Zoe": 4}, "not a player"),
        ({"Cem": -1, "Dora": 5}, ">= 0"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply({"type": "distribute", "sips": bad})
        assert state.to_json() == before
    assert len(state.legal_actions()) == 15 + 4 + 1  # C(4+2, 2) splits, penalties, end
    events = state.apply({"type": "distribute", "sips": {"Cem": 3, "Ann": 1}})
    assert drinks(events) == [("Cem", 3, "handed_out"), ("Ann", 1, "handed_out")]


def test_biermann_rolling_a_three_drinks_and_names_a_successor():
    state = in_play("Dora")  # Ann rolls first
    state.apply(roll(5, 6))
    state.apply(roll(5, 6))
    state.apply(roll(5, 6))
    assert state.expected()["player"] == "Dora"
    events = state.apply(roll(3, 3))
    assert drinks(events) == [("Dora", 1, "biermann")]
    state.apply({"type": "distribute", "sips": {"Ann": 3}})
    assert state.expected() == {"input": "name_biermann", "player": "Dora"}
    with pytest.raises(IllegalAction, match="somebody else"):
        state.apply({"type": "name_biermann", "player": "Dora"})
    state.apply({"type": "name_biermann", "player": "Ben"})
    assert state.players[state.biermann] == "Ben"
    # Dora keeps rolling; a 3 now makes Ben drink
    assert drinks(state.apply(roll(1, 2))) == [("Ben", 1, "biermann")]


def test_penalties_go_to_the_roller_and_a_die_off_the_table_is_rolled_again():
    state = in_play("Ann")
    before = state.expected()
    events = state.apply({"type": "penalty", "reason": "die_off_table"})
    assert drinks(events) == [("Ben", 1, "penalty")]
    assert state.expected() == before
    state.apply({"type": "penalty", "reason": "complaint"})
    state.apply({"type": "penalty", "reason": "complaint_about_penalty"})
    assert state.sips[1]["penalty"] == 3
    with pytest.raises(IllegalAction, match="reason"):
        state.apply({"type": "penalty", "reason": "bored"})


def test_battle_lost_costs_a_penalty_and_won_battle_turns_back():
    state = in_play("Ann", battle=True)
    state.apply(roll(2, 2))  # Ben hands out 2, all to Cem: Cem may battle
    events = state.apply({"type": "distribute", "sips": {"Cem": 2}})
    assert events == [{"type": "may_battle", "player": "Cem", "sips": 2}]
    state.apply({"type": "battle_choice", "battle": True})
    assert state.expected()["purpose"] == "battle" and state.current_player() == CHANCE
    state.apply(roll(5, 5))  # Cem wins: Ben owes 2 + 5, and may battle back
    assert state.expected() == {
        "input": "battle_choice",
        "player": "Ben",
        "sips": 7,
        "giver": "Cem",
    }
    state.apply({"type": "battle_choice", "battle": True})
    events = state.apply(roll(1, 3))  # Ben fails: 7 + 1 penalty; a battle roll's 3 does nothing
    assert drinks(events) == [("Ben", 7, "battle"), ("Ben", 1, "penalty")]
    assert state.expected() == {"input": "roll", "player": "Ben", "purpose": "turn"}

    state.apply(roll(6, 6))
    state.apply({"type": "distribute", "sips": {"Dora": 6}})
    assert drinks(state.apply({"type": "battle_choice", "battle": False})) == [
        ("Dora", 6, "handed_out")
    ]


def test_illegal_inputs_change_nothing():
    state = in_play("Ann")
    before = state.to_json()
    for action, reason in [
        (roll(0, 3), "1 to 6"),
        (roll(7, 1), "1 to 6"),
        ({"type": "roll", "dice": [1]}, "dice"),
        ({"type": "nose", "last": "Ann"}, "expects roll"),
        ({"type": "name_biermann", "player": "Ben"}, "expects roll"),
        ({"type": "end", "now": True}, "end"),
        ({"type": "fly"}, "unknown action"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply(action)
        assert state.to_json() == before


def test_the_evening_ends_after_the_given_turns():
    state = BiermannState.new(["A", "B", "C"], seed=1, turns=2)
    for _ in range(3):
        state.apply(roll(6, 6) if state.expected()["player"] != "A" else roll(1, 1))
    state.apply(roll(1, 4))
    assert not state.is_terminal()
    state.apply(roll(4, 5))
    assert state.is_terminal() and state.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        state.apply(roll(1, 4))


def test_simulated_turns_average_four_and_a_half_rolls():
    result = simulate(["A", "B", "C", "D"], rounds=2500, seed=3)
    assert result.turns == 10_000
    assert result.rolls / result.turns == pytest.approx(4.5, abs=0.1)
    # the per-role sips follow the exact expectations (Wald): e.g. the Biermann's 13/8 per turn
    total_biermann = sum(s["biermann"] for s in result.sips)
    assert total_biermann / result.turns == pytest.approx(13 / 8, rel=0.05)
    assert sum(result.total_sips()) == sum(sum(s.values()) for s in result.sips)


def test_simulation_is_reproducible_from_its_seed():
    a = simulate(PLAYERS, rounds=50, seed=9, battle=True)
    b = simulate(PLAYERS, rounds=50, seed=9, battle=True)
    c = simulate(PLAYERS, rounds=50, seed=10, battle=True)
    assert a == b
    assert a != c


def test_outcomes_are_the_36_ordered_pairs():
    assert len(OUTCOMES) == 36 and len(set(OUTCOMES)) == 36


def test_random_evenings_account_for_every_sip_and_survive_json():
    for seed in range(60):
        state = BiermannState.new(PLAYERS[: 3 + seed % 2], seed, battle=seed % 2 == 0, turns=6)
        rng = random.Random(seed)
        drunk = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                action = state.chance_action()
            else:
                action = rng.choice([a for a in state.legal_actions() if a["type"] != "end"])
            drunk += sum(e["sips"] for e in state.apply(action) if e["type"] == "drink")
            restored = BiermannState.from_json(json.loads(json.dumps(state.to_json())))
            assert restored.to_json() == state.to_json()
        assert sum(s.total for s in state.scores()) == drunk
        assert state.turns == 6
