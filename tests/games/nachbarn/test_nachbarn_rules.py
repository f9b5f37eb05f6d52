"""Nachbarn: board, moves, end, scoring (hand-worked from the spec), adviser."""

import json
import random
from collections import Counter

import pytest

from games.engine import BadSetup, IllegalAction
from games.nachbarn.adviser import Opponents, advise, search
from games.nachbarn.board import CELL_COUNT, CELLS, NEIGHBOURS
from games.nachbarn.engine import NachbarnEngine
from games.nachbarn.state import COLOURS, GRAY, SUPPLY, NachbarnState

CENTRE = CELLS.index((0, 0))


def cell(q: int, r: int) -> int:
    return CELLS.index((q, r))


def state_with_trays(players: list[str], trays: list[dict[str, int]]) -> NachbarnState:
    """A finished game (gray alone on the board) with the given trays."""
    board: list[str | None] = [None] * CELL_COUNT
    board[CENTRE] = GRAY
    full = [{c: t.get(c, 0) for c in COLOURS} for t in trays]
    return NachbarnState(players, board, 0, full)


def test_board_is_a_radius_3_hexagon():
    assert CELL_COUNT == 37
    degree = Counter(len(n) for n in NEIGHBOURS)
    # 6 corners with 3 neighbours, 12 other rim cells with 4, 19 inner cells with 6
    assert degree == {3: 6, 4: 12, 6: 19}
    assert all(a in NEIGHBOURS[b] for a in range(CELL_COUNT) for b in NEIGHBOURS[a])


def test_seeded_setup_places_all_37_stones():
    state = NachbarnState.new(["A", "B", "C"], seed=11)
    assert Counter(state.board) == SUPPLY
    assert state.to_json() == NachbarnState.new(["A", "B", "C"], seed=11).to_json()
    assert state.board != NachbarnState.new(["A", "B", "C"], seed=12).board


def test_scoring_three_players_next_player_sum():
    # A: 3 red (9) + 1 black (10) = 19; B: 2 blue + 2 yellow = 8; C: 5 green = 25
    state = state_with_trays(
        ["A", "B", "C"], [{"red": 3, "black": 1}, {"blue": 2, "yellow": 2}, {"green": 5}]
    )
    scores = {s.player: s for s in state.scores()}
    assert [scores[p].breakdown["own"] for p in "ABC"] == [19, 8, 25]
    # final: A+B, B+C, C+A
    assert [scores[p].total for p in "ABC"] == [27, 33, 44]
    assert scores["A"].breakdown["next_player"] == "B"
    assert scores["A"].breakdown["by_colour"] == {"red": 9, "black": 10}
    assert [scores[p].breakdown["winner"] for p in "ABC"] == [False, False, True]


def test_scoring_four_players_and_shared_win():
    # A: 8 red = 64; B: 4 black = 40; C: one each of blue, green, yellow = 3; D: 3 blue = 9
    state = state_with_trays(
        ["A", "B", "C", "D"],
        [{"red": 8}, {"black": 4}, {"blue": 1, "green": 1, "yellow": 1}, {"blue": 3}],
    )
    assert [s.total for s in state.scores()] == [104, 43, 12, 73]
    # A: 2 green = 4, C: 2 green = 4, B and D nothing: every final sum is 4, all share the win
    tied = state_with_trays(["A", "B", "C", "D"], [{"green": 2}, {}, {"green": 2}, {}])
    assert [s.total for s in tied.scores()] == [4, 4, 4, 4]
    assert all(s.breakdown["winner"] for s in tied.scores())


def test_explicit_board_position_ends_after_three_turns():
    board: list[str | None] = [None] * CELL_COUNT
    board[cell(0, 0)] = GRAY
    board[cell(1, 0)], board[cell(2, 0)], board[cell(3, 0)] = "red", "black", "red"
    state = NachbarnEngine().new_game(["A", "B", "C"], {"board": board, "start_player": "B"}, 0)
    assert state.current_player() == "B"
    taken = []
    while not state.is_terminal():
        (only,) = state.legal_actions()  # a line of stones: every move is forced
        taken.append(state.apply(only)[0]["colour"])
    assert taken == ["red", "black", "red"]
    assert len(state.moves) == 3
    own = {s.player: s.breakdown["own"] for s in state.scores()}
    assert own == {"B": 1, "C": 10, "A": 1}
    assert state.board[cell(3, 0)] == GRAY
    assert state.board.count(GRAY) == 1


def test_gray_moves_into_the_freed_cell_and_leaves_an_empty_one():
    state = NachbarnState.new(["A", "B", "C"], seed=5)
    old = state.gray
    target = state.legal_actions()[0]["take"]
    state.apply({"take": target})
    assert state.gray == target and state.board[target] == GRAY and state.board[old] is None


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"take": 99}, "not on the board"),
        ({"take": "3"}, "take"),
        ({"take": 3, "extra": 1}, "take"),
        ({"take": True}, "take"),
    ],
)
def test_illegal_moves_are_refused(action, reason):
    state = NachbarnState.new(["A", "B", "C"], seed=1)
    before = state.to_json()
    with pytest.raises(IllegalAction, match=reason):
        state.apply(action)
    assert state.to_json() == before


def test_taking_a_far_or_empty_cell_is_refused():
    state = NachbarnState.new(["A", "B", "C"], seed=2)
    far = next(c for c in range(CELL_COUNT) if c != state.gray and c not in NEIGHBOURS[state.gray])
    with pytest.raises(IllegalAction, match="not next to the gray"):
        state.apply({"take": far})
    old = state.gray
    state.apply(state.legal_actions()[0])
    with pytest.raises(IllegalAction, match="empty"):
        state.apply({"take": old})


@pytest.mark.parametrize(
    "board",
    [
        [None] * CELL_COUNT,
        ["red"] * CELL_COUNT,
        [GRAY, GRAY] + [None] * 35,
        [GRAY, "purple"] + [None] * 35,
        [GRAY],
    ],
)
def test_bad_explicit_boards_are_refused(board):
    with pytest.raises(BadSetup):
        NachbarnEngine().new_game(["A", "B", "C"], {"board": board}, 0)


@pytest.mark.parametrize("players", [["A", "B", "C"], ["A", "B", "C", "D"]])
def test_random_games_conserve_stones_and_recount(players):
    for seed in range(150):
        state = NachbarnState.new(players, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            on_trays = Counter()
            for tray in state.trays:
                on_trays.update(tray)
            on_board = Counter(s for s in state.board if s is not None)
            assert on_board + on_trays == SUPPLY
        # every stone taken was next to the gray stone's previous cell
        assert len(state.moves) == sum(sum(t.values()) for t in state.trays)
        own = [sum((10 * n if c == "black" else n * n) for c, n in t.items()) for t in state.trays]
        n = len(players)
        assert [s.total for s in state.scores()] == [own[i] + own[(i + 1) % n] for i in range(n)]


def brute_force(state: NachbarnState, me: int, opponents: Opponents) -> tuple[float, ...]:
    """Max-n (or expectimax for random opponents) by plain recursion: the reference."""
    if state.is_terminal():
        return tuple(s.total for s in state.scores())
    children = []
    for action in state.legal_actions():
        child = state.copy()
        child.apply(action)
        children.append(brute_force(child, me, opponents))
    mover = state.to_move
    if opponents is Opponents.RANDOM and mover != me:
        return tuple(sum(v[i] for v in children) / len(children) for i in range(len(state.players)))
    nxt = (mover + 1) % len(state.players)
    return max(children, key=lambda v: (v[mover], v[nxt]))


def reachable_stones(state: NachbarnState) -> int:
    seen, frontier = {state.gray}, [state.gray]
    while frontier:
        for nb in NEIGHBOURS[frontier.pop()]:
            if nb not in seen and state.board[nb] is not None:
                seen.add(nb)
                frontier.append(nb)
    return len(seen) - 1


def small_endgame(seed: int) -> NachbarnState:
    """A seeded game played randomly until at most 8 stones can still be reached."""
    rng = random.Random(seed)
    while True:  # a random line may also end the game abruptly: then deal again
        state = NachbarnState.new(["A", "B", "C"], rng.randrange(10**6))
        while not state.is_terminal() and reachable_stones(state) > 8:
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


@pytest.mark.parametrize("opponents", list(Opponents))
@pytest.mark.parametrize("seed", range(4))
def test_adviser_is_exact_in_small_endgames(seed, opponents):
    state = small_endgame(seed)
    result = search(state, node_budget=100_000, opponents=opponents)
    assert result.exact
    reference = brute_force(state, state.to_move, opponents)
    assert result.finals == pytest.approx(reference)
    advice = advise(state, node_budget=100_000, opponents=opponents)
    assert advice.exact and "perfect play" in advice.explanation
    child = state.copy()
    child.apply(advice.action)
    value = brute_force(child, state.to_move, opponents)
    assert value[state.to_move] == pytest.approx(reference[state.to_move])


def test_adviser_uses_bounded_search_early_and_says_so():
    state = NachbarnState.new(["A", "B", "C", "D"], seed=3)
    advice = advise(state, node_budget=3000)
    assert not advice.exact and advice.details["opponents"] == "rational"
    assert "bounded search" in advice.explanation
    assert advice.action in state.legal_actions()
    assert advice.details["nodes"] <= 3000


def test_adviser_refuses_a_finished_game():
    state = state_with_trays(["A", "B", "C"], [{}, {}, {}])
    with pytest.raises(IllegalAction):
        advise(state)


def test_state_json_is_plain_json():
    state = NachbarnState.new(["A", "B", "C"], seed=9)
    data = json.loads(json.dumps(state.to_json()))
    assert NachbarnState.from_json(data).to_json() == state.to_json()


def test_engine_adviser_options_are_checked():
    engine = NachbarnEngine()
    state = engine.new_game(["A", "B", "C"], {}, 4)
    advice = engine.advise(state, {"opponents": "random", "node_budget": 500})
    assert advice.details["opponents"] == "random" and advice.action in state.legal_actions()
    for bad in ({"opponents": "smart"}, {"node_budget": 0}, {"node_budget": "9"}, {"depth": 3}):
        with pytest.raises(BadSetup):
            engine.advise(state, bad)


def test_from_json_refuses_extra_stones():
    data = NachbarnState.new(["A", "B", "C"], seed=9).to_json()
    data["trays"][0]["red"] = 1  # all 8 red stones are still on the board
    with pytest.raises(BadSetup, match="more stones"):
        NachbarnState.from_json(data)
