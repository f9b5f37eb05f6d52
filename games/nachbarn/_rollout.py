"""Monte Carlo playouts for the Nachbarn adviser: finish a position many times, average scores.

Positions use the adviser's compact arrays: ``board`` holds a colour code (0..4, the order of
:data:`games.nachbarn.state.COLOURS`) per cell or -1 for an empty cell (the gray stone's cell is
-1 too, its index is ``gray``); ``counts[seat][code]`` the stones on each tray; ``points[seat]``
each tray's own points.

In a playout the other seats move uniformly at random (the adviser's ``random`` opponent model)
and the advised seat follows a fixed policy (:func:`advised_move`). Playouts draw from a
``random.Random`` the caller seeds, so the averages are reproducible.
"""

from __future__ import annotations

import math
import random

from games.nachbarn.board import NEIGHBOURS
from games.nachbarn.state import COLOURS, RARE_COLOUR, RARE_POINTS

_RARE = COLOURS.index(RARE_COLOUR)


def gain(code: int, held: int) -> int:
    """Points a stone of colour ``code`` adds to a tray that holds ``held`` of that colour."""
    return RARE_POINTS if code == _RARE else 2 * held + 1


def utility(final: float, risk: float) -> float:
    """A risk-averse value of a final score: ``-exp(-final / risk)`` (points; always < 0).

    Concave: a few points more matter most where the final score is low, so a move that keeps
    the game from ending early with few points is worth more than its mean suggests.
    """
    return -math.exp(-final / risk)


def advised_move(board: list[int], counts: list[int], moves: list[int]) -> int:
    """The advised seat's playout move: the most points now, then the most stones next to it.

    The second key keeps the gray stone away from dead ends, where a random opponent would end
    the game; the last key (lower cell) makes it deterministic.
    """
    best, best_key = moves[0], None
    for cell in moves:
        free = sum(1 for nb in NEIGHBOURS[cell] if board[nb] >= 0)
        key = (gain(board[cell], counts[board[cell]]), free, -cell)
        if best_key is None or key > best_key:
            best, best_key = cell, key
    return best


def playouts(
    board: list[int],
    counts: list[list[int]],
    points: list[float],
    gray: int,
    mover: int,
    me: int,
    runs: int,
    rng: random.Random,
    risk: float,
) -> tuple[list[float], float, int]:
    """Playouts to the end: each seat's mean own points, the advised seat's mean utility, moves.

    The utility of a final score ``x`` (own points + the next seat's) is ``-exp(-x / risk)``
    (see :func:`utility`).
    """
    n = len(points)
    total = [0.0] * n
    util = 0.0
    steps = 0
    draw = rng.random
    for _ in range(runs):
        b = list(board)
        c = [list(t) for t in counts]
        p = list(points)
        g, m = gray, mover
        while True:
            moves = [cell for cell in NEIGHBOURS[g] if b[cell] >= 0]
            if not moves:
                break
            mine = m == me
            cell = advised_move(b, c[m], moves) if mine else moves[int(draw() * len(moves))]
            code = b[cell]
            p[m] += gain(code, c[m][code])
            c[m][code] += 1
            b[cell] = -1
            g = cell
            m = (m + 1) % n
            steps += 1
        for i in range(n):
            total[i] += p[i]
        util += utility(p[me] + p[(me + 1) % n], risk)
    return [t / runs for t in total], util / runs, steps
