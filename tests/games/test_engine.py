"""The common engine interface, exercised the same way on all three games."""

import json
import random

import pytest

from games.engine import (
    CHANCE,
    ENGINES,
    BadSetup,
    GameState,
    IllegalAction,
    rng_from_json,
    rng_to_json,
)

# seeded games per engine in the step-by-step tests (a Weinhändler game has ~200 actions)
GAMES = {"nachbarn": 30, "biermann": 15, "weinhaendler": 4}

SETUPS = {
    "nachbarn": (["Ann", "Ben", "Cem"], {}),
    "biermann": (["Ann", "Ben", "Cem", "Dora"], {"turns": 12, "battle": True}),
    "weinhaendler": (["Ann", "Ben", "Cem"], {}),
}

GARBAGE_ACTIONS = [
    None,
    "take",
    [1, 2],
    {},
    {"type": "no-such-action"},
    {"take": -1},
    {"type": "roll", "dice": [0, 7]},
    {"type": "place", "card": 999, "cellar": 0, "slot": [0, 0]},
]


def random_action(state: GameState, rng: random.Random) -> dict:
    """Uniform over the legal actions, except that Biermann rarely ends or penalises."""
    if state.current_player() == CHANCE:
        return state.chance_action()
    actions = state.legal_actions()
    if state.game == "biermann":
        table = [a for a in actions if a["type"] not in ("penalty", "end")]
        if table and rng.random() > 0.03:
            return rng.choice(table)
        return rng.choice([a for a in actions if a["type"] == "penalty"])
    return rng.choice(actions)


def test_registry_holds_the_three_games():
    assert set(ENGINES) == {"nachbarn", "biermann", "weinhaendler"}
    for key, engine in ENGINES.items():
        assert engine.key == key


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_same_seed_same_game_and_json_round_trip_at_every_step(key):
    engine = ENGINES[key]
    players, options = SETUPS[key]
    for seed in range(GAMES[key]):
        state = engine.new_game(players, options, seed)
        twin = engine.new_game(players, options, seed)
        rng, twin_rng = random.Random(seed), random.Random(seed)
        steps = 0
        while not state.is_terminal():
            restored = engine.from_json(json.loads(json.dumps(state.to_json())))
            assert restored.to_json() == state.to_json()
            assert restored.legal_actions() == state.legal_actions()
            replay = random.Random()
            replay.setstate(rng.getstate())
            action = random_action(state, rng)
            # the restored state (and its RNG) continues exactly like the original
            assert random_action(restored, replay) == action
            assert random_action(twin, twin_rng) == action
            state.apply(action)
            twin.apply(action)
            steps += 1
            assert steps < 5000
        assert twin.to_json() == state.to_json()
        assert state.legal_actions() == []
        assert state.current_player() is None


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_illegal_actions_are_refused_and_change_nothing(key):
    engine = ENGINES[key]
    players, options = SETUPS[key]
    rng = random.Random(7)
    for seed in range(max(1, GAMES[key] // 5)):
        state = engine.new_game(players, options, seed)
        while not state.is_terminal():
            before = json.dumps(state.to_json(), sort_keys=True)
            for garbage in GARBAGE_ACTIONS:
                with pytest.raises(IllegalAction) as info:
                    state.apply(garbage)
                assert info.value.reason
            assert json.dumps(state.to_json(), sort_keys=True) == before
            state.apply(random_action(state, rng))
        with pytest.raises(IllegalAction):
            state.apply(random_action(engine.new_game(players, options, seed), rng))


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_copy_is_independent(key):
    engine = ENGINES[key]
    players, options = SETUPS[key]
    state = engine.new_game(players, options, 3)
    clone = state.copy()
    before = state.to_json()
    rng = random.Random(0)
    for _ in range(5):
        if clone.is_terminal():
            break
        clone.apply(random_action(clone, rng))
    assert state.to_json() == before


@pytest.mark.parametrize(
    ("key", "players", "options"),
    [
        ("nachbarn", ["a", "b"], {}),
        ("nachbarn", ["a", "b", "c", "d", "e"], {}),
        ("nachbarn", ["a", "a", "b"], {}),
        ("nachbarn", ["a", "b", "c"], {"colour": "red"}),
        ("biermann", ["a", "b"], {}),
        ("biermann", ["a", "b", "c"], {"turns": 0}),
        ("weinhaendler", ["a", "b"], {}),
        ("weinhaendler", ["a", "b", "c", "d", "e", "f"], {}),
        ("weinhaendler", ["a", "b", "c"], {"deck": {"cards": [{"wine": "x"}]}}),
    ],
)
def test_bad_setups_are_refused_with_a_reason(key, players, options):
    with pytest.raises(BadSetup, match=r"\w"):
        ENGINES[key].new_game(players, options, 0)


@pytest.mark.parametrize("key", sorted(SETUPS))
def test_from_json_refuses_garbage(key):
    with pytest.raises(BadSetup):
        ENGINES[key].from_json({"players": ["a", "b", "c"]})


def test_rng_state_survives_json():
    rng = random.Random(42)
    rng.random()
    clone = rng_from_json(json.loads(json.dumps(rng_to_json(rng))))
    assert [clone.random() for _ in range(5)] == [rng.random() for _ in range(5)]
