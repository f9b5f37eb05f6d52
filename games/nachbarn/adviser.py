"""The Nachbarn move adviser: max-n search over final scores.

Every player is assumed to maximise his own *final* score (own points + the next player's),
as in the spec. The search is iterative deepening over the plies still to play, within a node
budget:

* When an iteration reaches the end of every line of play (no line is cut by the depth limit),
  the result is **exact**: perfect max-n play for the rest of the game.
* Otherwise the best move of the deepest finished iteration is returned, and the leaves at the
  depth limit are valued by the **heuristic**: every player's final score *if the game ended
  now* (trays as they would be after the searched moves) — a material count. The horizon
  grows by itself as the game shrinks and the tree gets smaller.

Ties between moves are broken in favour of the move that gives the next player (whose points
count for the mover too) the most, then by cell index, so advice is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine import Advice, IllegalAction
from games.nachbarn.board import NEIGHBOURS
from games.nachbarn.state import COLOURS, RARE_COLOUR, RARE_POINTS, NachbarnState

DEFAULT_NODE_BUDGET = 20_000
"""Positions one piece of advice may visit (about 0.1 s on a laptop core)."""

_RARE = COLOURS.index(RARE_COLOUR)
_EMPTY = -1


class _OutOfBudget(Exception):
    pass


@dataclass
class SearchResult:
    """The outcome of one search: the move, the expected final scores, how far it looked."""

    cell: int
    finals: tuple[int, ...]
    depth: int
    exact: bool
    nodes: int


class _Search:
    """Make/unmake max-n search on compact arrays (colour codes, -1 for an empty cell)."""

    def __init__(self, state: NachbarnState, budget: int) -> None:
        code = {c: i for i, c in enumerate(COLOURS)}
        self.board = [_EMPTY if s is None or s not in code else code[s] for s in state.board]
        self.counts = [[t[c] for c in COLOURS] for t in state.trays]
        self.points = state.own_points()
        self.n = len(state.players)
        self.budget = budget
        self.nodes = 0
        self.cut = False

    def finals(self) -> tuple[int, ...]:
        p, n = self.points, self.n
        return tuple(p[i] + p[(i + 1) % n] for i in range(n))

    def value(self, gray: int, mover: int, depth: int) -> tuple[int, ...]:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        board = self.board
        moves = [c for c in NEIGHBOURS[gray] if board[c] != _EMPTY]
        if not moves:
            return self.finals()
        if depth == 0:
            self.cut = True
            return self.finals()
        best: tuple[int, ...] | None = None
        nxt = (mover + 1) % self.n
        for cell in moves:
            v = self._child(gray, mover, cell, depth)
            if best is None or (v[mover], v[nxt]) > (best[mover], best[nxt]):
                best = v
        assert best is not None
        return best

    def _child(self, gray: int, mover: int, cell: int, depth: int) -> tuple[int, ...]:
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

    def root(self, gray: int, mover: int, depth: int) -> tuple[int, tuple[int, ...]]:
        nxt = (mover + 1) % self.n
        best_cell, best = -1, None
        for cell in sorted(c for c in NEIGHBOURS[gray] if self.board[c] != _EMPTY):
            v = self._child(gray, mover, cell, depth)
            if best is None or (v[mover], v[nxt]) > (best[mover], best[nxt]):
                best_cell, best = cell, v
        assert best is not None
        return best_cell, best


def search(state: NachbarnState, node_budget: int = DEFAULT_NODE_BUDGET) -> SearchResult:
    """Best move for the player to move by iterative-deepening max-n within ``node_budget``."""
    if state.is_terminal():
        raise IllegalAction("the game is over: there is no move to advise")
    mover = state.to_move
    result: SearchResult | None = None
    total_nodes = 0
    remaining_stones = sum(1 for s in state.board if s is not None) - 1
    for depth in range(1, remaining_stones + 1):
        s = _Search(state, node_budget - total_nodes)
        try:
            cell, finals = s.root(state.gray, mover, depth)
        except _OutOfBudget:
            break
        total_nodes += s.nodes
        result = SearchResult(cell, finals, depth, not s.cut, total_nodes)
        if not s.cut:
            break
    if result is None:  # even one ply did not fit: take the best immediate gain
        s = _Search(state, 10**9)
        cell, finals = s.root(state.gray, mover, 1)
        result = SearchResult(cell, finals, 1, False, s.nodes)
    return result


def advise(state: NachbarnState, node_budget: int = DEFAULT_NODE_BUDGET) -> Advice:
    """The adviser's move with an explanation that says whether it is perfect play."""
    r = search(state, node_budget)
    mover = state.to_move
    colour = state.board[r.cell]
    expected = dict(zip(state.players, r.finals, strict=True))
    if r.exact:
        how = (
            f"perfect play: the rest of the game ({r.nodes} positions) was searched to the end; "
            f"with best play by everyone {state.players[mover]} finishes with {r.finals[mover]}"
        )
    else:
        how = (
            f"bounded search: {r.depth} plies ahead ({r.nodes} positions), positions beyond "
            "valued by the final scores as if the game ended there; "
            f"{state.players[mover]} is then at {r.finals[mover]}"
        )
    return Advice(
        action={"take": r.cell},
        explanation=f"take the {colour} stone on cell {r.cell} — {how}",
        exact=r.exact,
        details={"depth": r.depth, "nodes": r.nodes, "expected_finals": expected},
    )
