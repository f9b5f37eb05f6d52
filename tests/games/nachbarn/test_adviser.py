"""Nachbarn adviser against random opponents: playouts and the bounded expectimax search."""

import math
import random

import pytest

from games.nachbarn._rollout import advised_move, playouts, utility
from games.nachbarn.adviser import PLAYOUTS_PER_LEAF, Opponents, advise, search
from games.nachbarn.board import CELL_COUNT, CELLS, NEIGHBOURS
from games.nachbarn.state import COLOURS, GRAY, NachbarnState

RED, YELLOW, GREEN, BLUE, BLACK = (COLOURS.index(c) for c in COLOURS)


def cell(q: int, r: int) -> int:
    return CELLS.index((q, r))


def trap_or_open_board() -> list[str | None]:
    """Gray in the centre; west a black stone in a two-cell pocket, east 15 stones (q >= 1)."""
    board: list[str | None] = [None] * CELL_COUNT
    board[cell(0, 0)] = GRAY
    board[cell(-1, 0)] = "black"
    board[cell(-2, 0)] = "red"
    common = ["red", "yellow", "green", "blue"]
    east = [i for i, (q, _) in enumerate(CELLS) if q >= 1]
    for k, i in enumerate(east):
        board[i] = common[k % 4]
    return board


def test_playouts_of_a_forced_line_are_exact_and_count_moves():
    board = [-1] * CELL_COUNT
    for q in (1, 2, 3):
        board[cell(q, 0)] = RED
    counts = [[0] * len(COLOURS) for _ in range(3)]
    own, _, moves = playouts(
        board, counts, [0.0, 0.0, 0.0], cell(0, 0), 0, 0, 5, random.Random(1), 30.0
    )
    assert own == [1.0, 1.0, 1.0]
    assert moves == 15
    assert board.count(RED) == 3 and counts == [[0] * len(COLOURS)] * 3  # inputs untouched


def test_playouts_of_a_finished_position_change_nothing():
    board = [-1] * CELL_COUNT
    counts = [[1, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 1]]
    own, util, moves = playouts(
        board, counts, [1.0, 4.0, 10.0], 18, 2, 0, 3, random.Random(0), 30.0
    )
    assert own == [1.0, 4.0, 10.0] and moves == 0
    assert util == pytest.approx(utility(1.0 + 4.0, 30.0)) == pytest.approx(-math.exp(-5 / 30))


def test_playouts_are_reproducible_from_the_seed():
    state = NachbarnState.new(["A", "B", "C"], seed=5)
    code = {c: i for i, c in enumerate(COLOURS)}
    board = [code.get(s, -1) if s else -1 for s in state.board]
    counts = [[0] * len(COLOURS) for _ in range(3)]
    runs = [
        playouts(board, counts, [0.0] * 3, state.gray, 0, 1, 20, random.Random(seed), 30.0)
        for seed in (7, 7, 8)
    ]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    own, _, moves = runs[0]
    assert 20 * 3 <= moves <= 20 * 36
    assert all(p > 0 for p in own)


def test_advised_playout_move_takes_points_then_avoids_dead_ends():
    board = [-1] * CELL_COUNT
    gray = cell(0, 0)
    board[cell(1, 0)] = RED  # no stone next to it: a dead end
    board[cell(-1, 0)] = RED
    board[cell(-2, 0)] = GREEN
    moves = [c for c in NEIGHBOURS[gray] if board[c] >= 0]
    assert advised_move(board, [0] * len(COLOURS), moves) == cell(-1, 0)
    board[cell(1, 0)] = BLACK  # 10 points beat one more stone to walk to
    assert advised_move(board, [0] * len(COLOURS), moves) == cell(1, 0)
    board[cell(1, 0)] = BLUE  # a third blue (5 points) beats a first red (1)
    assert advised_move(board, [0, 0, 0, 2, 0], moves) == cell(1, 0)


def test_random_model_prefers_a_long_game_to_a_rare_stone_that_ends_it():
    state = NachbarnState(["A", "B", "C"], trap_or_open_board(), 0)
    bounded = advise(state, node_budget=200, opponents=Opponents.RANDOM)
    assert not bounded.exact
    assert f"{PLAYOUTS_PER_LEAF} seeded playouts" in bounded.explanation
    # Taking the black stone: the next player must take the red one, then the game is over
    # with A on 10 + 1 points; the east side holds 15 stones.
    assert bounded.action["take"] in (cell(1, 0), cell(1, -1))
    assert bounded.details["expected_finals"]["A"] > 11


def test_random_model_advice_is_deterministic_and_legal_through_a_game():
    state = NachbarnState.new(["A", "B", "C"], seed=11)
    rng = random.Random(3)
    exact_seen = bounded_seen = False
    while not state.is_terminal():
        if state.to_move == 0:
            first = search(state, node_budget=2000, opponents=Opponents.RANDOM)
            again = search(state.copy(), node_budget=2000, opponents=Opponents.RANDOM)
            assert first == again
            assert {"take": first.cell} in state.legal_actions()
            exact_seen |= first.exact
            bounded_seen |= not first.exact
            state.apply({"take": first.cell})
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert exact_seen and bounded_seen
