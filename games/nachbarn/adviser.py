"""The Nachbarn move adviser: search over final scores (own points + the next player's).

Two opponent models (:class:`Opponents`):

* ``RATIONAL`` (default, the spec's): **max-n** — every player maximises his own final score.
* ``RANDOM``: **expectimax** — the advised player maximises his expected final score while the
  others pick uniformly among their legal moves (casual tables; what the benchmark plays).

First the adviser tries to search the rest of the game within a node budget. When every line of
play reaches the end, the result is **exact**: perfect play for the rest of the game under the
model. Otherwise the search is bounded, and how positions beyond the horizon are valued depends
on the model:

* ``RATIONAL``: iterative deepening; the best move of the deepest finished iteration is
  returned, and positions at the depth limit are valued by the **reachable-stones heuristic**:
  each player's points now plus his share of the stones still reachable by the gray stone — the
  stones connected to it through occupied cells, split evenly between the players and each
  valued at what it would add to that player's tray (10 for the rare colour, ``2k + 1`` for a
  colour he holds ``k`` of) — and the final score is that estimate plus the next player's. So
  the heuristic likes material and a large connected area around the gray stone.
* ``RANDOM``: expectimax :data:`PLAYOUT_PLIES` plies deep (the advised move and the two replies
  in a 3-player game), positions there valued by **Monte Carlo playouts**: the mean final
  scores of :data:`PLAYOUTS_PER_LEAF` games finished with the others moving at random and the
  advised player taking the stone worth most to him (ties: the cell with the most stones next to
  it) — see :mod:`games.nachbarn._rollout`. Unlike the reachable-stones count, playouts see that
  random opponents soon walk the gray stone into a corner or along an empty trail and end the
  game early, which is what loses points against them. In this bounded search the advised
  player maximises the expected **risk-averse utility** ``-exp(-final / RISK)`` (``RISK`` = 30
  points; per playout and at game ends) rather than the expected final score: he gives up a
  little on average to avoid the lines where the game ends early with few points. The playouts
  draw from a generator seeded by the position, so advice is deterministic.

Ties between moves go to the move that gives the next player (whose points count for the mover
too) the most, then to the lower cell index. Perfect play (exact) always maximises the expected
final score itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from games.engine import Advice, IllegalAction
from games.nachbarn._rollout import playouts, utility
from games.nachbarn.board import NEIGHBOURS
from games.nachbarn.state import COLOURS, RARE_COLOUR, RARE_POINTS, NachbarnState

DEFAULT_NODE_BUDGET = 10_000
"""Positions the search to the end (and the bounded max-n search) may visit (about 0.1 s)."""
PLAYOUT_PLIES = 3
"""Depth of the bounded search against random opponents before playouts take over."""
PLAYOUTS_PER_LEAF = 24
"""Playouts that value each position at that depth."""
RISK = 30.0
"""Scale (points) of the advised player's risk-averse utility in the bounded random-model search."""

_RARE = COLOURS.index(RARE_COLOUR)
_EMPTY = -1

Finals = tuple[float, ...]


class Opponents(Enum):
    """How the adviser expects the other players to move."""

    RATIONAL = "rational"
    RANDOM = "random"


class _OutOfBudget(Exception):
    pass


@dataclass
class SearchResult:
    """One search: the move (a cell), the final scores expected after it, how far it looked."""

    cell: int
    finals: Finals
    depth: int
    exact: bool
    nodes: int


class _Search:
    """Make/unmake search on compact arrays (colour codes 0..4, -1 for an empty cell)."""

    def __init__(self, state: NachbarnState, budget: int, opponents: Opponents) -> None:
        code = {c: i for i, c in enumerate(COLOURS)}
        self.board = [code.get(s, _EMPTY) if s is not None else _EMPTY for s in state.board]
        self.counts = [[t[c] for c in COLOURS] for t in state.trays]
        self.points: list[float] = [float(p) for p in state.own_points()]
        self.n = len(state.players)
        self.me = state.to_move
        self.random_opponents = opponents is Opponents.RANDOM
        self.budget = budget
        self.nodes = 0
        self.cut = False
        self.playout_rng: random.Random | None = None
        self.playout_moves = 0

    def finals(self, own: list[float]) -> Finals:
        """Final scores, and (bounded random-model search) the advised seat's utility last."""
        n = self.n
        f = tuple(own[i] + own[(i + 1) % n] for i in range(n))
        if self.playout_rng is None:
            return f
        return (*f, utility(f[self.me], RISK))

    def estimate(self, gray: int, mover: int) -> Finals:
        """Estimated final scores at the search horizon (see the module docstring)."""
        if self.playout_rng is not None:
            own, util, moves = playouts(
                self.board,
                self.counts,
                self.points,
                gray,
                mover,
                self.me,
                PLAYOUTS_PER_LEAF,
                self.playout_rng,
                RISK,
            )
            self.playout_moves += moves
            return (*self.finals(own)[: self.n], util)
        board = self.board
        seen = {gray}
        frontier = [gray]
        reachable = [0] * len(COLOURS)
        stones = 0
        while frontier:
            cell = frontier.pop()
            for nb in NEIGHBOURS[cell]:
                if nb not in seen and board[nb] != _EMPTY:
                    seen.add(nb)
                    frontier.append(nb)
                    reachable[board[nb]] += 1
                    stones += 1
        if not stones:
            return self.finals(self.points)
        own = []
        for i in range(self.n):
            counts = self.counts[i]
            worth = sum(
                k * (RARE_POINTS if c == _RARE else 2 * counts[c] + 1)
                for c, k in enumerate(reachable)
            )
            own.append(self.points[i] + worth / self.n)
        return self.finals(own)

    def value(self, gray: int, mover: int, depth: int) -> Finals:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        board = self.board
        moves = [c for c in NEIGHBOURS[gray] if board[c] != _EMPTY]
        if not moves:
            return self.finals(self.points)
        if depth == 0:
            self.cut = True
            return self.estimate(gray, mover)
        if self.random_opponents and mover != self.me:
            children = [self._child(mover, cell, depth) for cell in moves]
            return tuple(sum(column) / len(children) for column in zip(*children, strict=True))
        return self._best(mover, moves, depth)[1]

    def _best(self, mover: int, moves: list[int], depth: int) -> tuple[int, Finals]:
        nxt = (mover + 1) % self.n
        key = mover
        if mover == self.me and self.playout_rng is not None:
            key = self.n  # the advised seat's utility
        best_cell, best = -1, None
        for cell in sorted(moves):
            v = self._child(mover, cell, depth)
            if best is None or (v[key], v[nxt]) > (best[key], best[nxt]):
                best_cell, best = cell, v
        assert best is not None
        return best_cell, best

    def _child(self, mover: int, cell: int, depth: int) -> Finals:
        board, counts, points = self.board, self.counts[mover], self.points
        colour = board[cell]
        gain = RARE_POINTS if colour == _RARE else 2 * counts[colour] + 1
        board[cell] = _EMPTY
        counts[colour] += 1
        points[mover] += gain
        try:
            return self.value(cell, (mover + 1) % self.n, depth - 1)
        finally:
            points[mover] -= gain
            counts[colour] -= 1
            board[cell] = colour

    def root(self, gray: int, depth: int) -> tuple[int, Finals]:
        moves = [c for c in NEIGHBOURS[gray] if self.board[c] != _EMPTY]
        return self._best(self.me, moves, depth)


def search(
    state: NachbarnState,
    node_budget: int = DEFAULT_NODE_BUDGET,
    opponents: Opponents = Opponents.RATIONAL,
) -> SearchResult:
    """The best move for the player to move (see the module docstring for the search)."""
    if state.is_terminal():
        raise IllegalAction("the game is over: there is no move to advise")
    remaining_stones = sum(1 for s in state.board if s is not None) - 1
    if opponents is Opponents.RANDOM:
        return _search_random(state, node_budget, remaining_stones)
    result: SearchResult | None = None
    total_nodes = 0
    for depth in range(1, remaining_stones + 1):
        s = _Search(state, node_budget - total_nodes, opponents)
        try:
            cell, finals = s.root(state.gray, depth)
        except _OutOfBudget:
            break
        total_nodes += s.nodes
        result = SearchResult(cell, finals, depth, not s.cut, total_nodes)
        if not s.cut:
            break
    if result is None:  # not even one ply fitted in the budget: look one ply ahead anyway
        s = _Search(state, 10**9, opponents)
        cell, finals = s.root(state.gray, 1)
        result = SearchResult(cell, finals, 1, False, s.nodes)
    return result


def _search_random(state: NachbarnState, node_budget: int, remaining_stones: int) -> SearchResult:
    """Expectimax to the end within ``node_budget``, else a few plies and playouts beyond."""
    s = _Search(state, node_budget, Opponents.RANDOM)
    try:
        cell, finals = s.root(state.gray, remaining_stones)
        return SearchResult(cell, finals, remaining_stones, True, s.nodes)
    except _OutOfBudget:
        spent = s.nodes
    s = _Search(state, 10**9, Opponents.RANDOM)
    s.playout_rng = random.Random(repr((state.board, state.to_move, state.trays)))
    cell, finals = s.root(state.gray, PLAYOUT_PLIES)
    nodes = spent + s.nodes + s.playout_moves
    # Not "exact" even when every line ended within the plies: it maximised the utility.
    return SearchResult(cell, finals[: s.n], PLAYOUT_PLIES, False, nodes)


def advise(
    state: NachbarnState,
    node_budget: int = DEFAULT_NODE_BUDGET,
    opponents: Opponents = Opponents.RATIONAL,
) -> Advice:
    """The adviser's move with an explanation that says whether it is perfect play."""
    r = search(state, node_budget, opponents)
    name = state.players[state.to_move]
    colour = state.board[r.cell]
    model = (
        "everyone maximising his own final score"
        if opponents is Opponents.RATIONAL
        else "the others moving at random"
    )
    expected = round(r.finals[state.to_move], 2)
    if r.exact:
        how = (
            f"perfect play: the rest of the game ({r.nodes} positions) was searched to the end "
            f"with {model}; {name} finishes with {expected}"
        )
    else:
        beyond = (
            "points plus a share of the stones still reachable"
            if opponents is Opponents.RATIONAL
            else f"the mean of {PLAYOUTS_PER_LEAF} seeded playouts to the end"
        )
        how = (
            f"bounded search: {r.depth} plies ahead ({r.nodes} positions) with {model}, "
            f"positions beyond valued by {beyond}; {name} is then estimated at {expected}"
        )
    return Advice(
        action={"take": r.cell},
        explanation=f"take the {colour} stone on cell {r.cell} — {how}",
        exact=r.exact,
        details={
            "depth": r.depth,
            "nodes": r.nodes,
            "opponents": opponents.value,
            "expected_finals": {
                p: round(v, 2) for p, v in zip(state.players, r.finals, strict=True)
            },
        },
    )
