"""Nachbarn rules: setup, moves, end and scoring (see ``spec/nachbarn.md``).

A move is ``{"take": cell}``: the player to move takes the stone on ``cell`` (which must be a
neighbour of the gray stone), puts it on his tray, and the gray stone moves into ``cell``; the
gray stone's old cell becomes empty. The game ends when, at the start of a turn, no stone lies
next to the gray stone.

Scoring: the rare colour scores 10 per stone, each other colour ``n`` stones -> ``n**2``; a
player's final score is his own points plus the points of the next player in seat order.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Self

from games.engine import (
    JSON,
    Action,
    BadSetup,
    GameState,
    IllegalAction,
    PlayerScore,
    check_players,
    copy_rng,
    require_action_dict,
    rng_from_json,
    rng_to_json,
)
from games.nachbarn.board import CELL_COUNT, NEIGHBOURS

COMMON_COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
"""The four colours with 8 stones each (scored n squared)."""
RARE_COLOUR = "black"
"""The colour with only 4 stones (10 points each)."""
GRAY = "gray"
COLOURS: tuple[str, ...] = (*COMMON_COLOURS, RARE_COLOUR)
SUPPLY: dict[str, int] = {**dict.fromkeys(COMMON_COLOURS, 8), RARE_COLOUR: 4, GRAY: 1}
RARE_POINTS = 10
MIN_PLAYERS, MAX_PLAYERS = 3, 4


def colour_points(colour: str, count: int) -> int:
    """Points of ``count`` stones of one colour on a tray."""
    return RARE_POINTS * count if colour == RARE_COLOUR else count * count


def tray_points(tray: dict[str, int]) -> int:
    """A tray's own points (before adding the next player's)."""
    return sum(colour_points(c, n) for c, n in tray.items())


def shuffled_board(rng: random.Random) -> list[str]:
    """All 37 stones shuffled onto the 37 cells."""
    stones = [colour for colour, n in SUPPLY.items() for _ in range(n)]
    rng.shuffle(stones)
    return stones


def check_board(board: JSON) -> list[str | None]:
    """Validate an explicit board: 37 entries, a colour, ``"gray"`` or ``null`` (empty cell)."""
    if not isinstance(board, list) or len(board) != CELL_COUNT:
        raise BadSetup(f"board must be a list of {CELL_COUNT} cells (colour, 'gray' or null)")
    counts = Counter(board)
    unknown = [c for c in counts if c is not None and c not in SUPPLY]
    if unknown:
        raise BadSetup(f"unknown stone colour(s) {unknown}; colours are {[*COLOURS, GRAY]}")
    if counts[GRAY] != 1:
        raise BadSetup("the board must hold exactly one gray stone")
    for colour, n in counts.items():
        if colour is not None and n > SUPPLY[colour]:
            raise BadSetup(f"{n} {colour} stones on the board, the game has {SUPPLY[colour]}")
    return list(board)


class NachbarnState(GameState):
    """A Nachbarn game: the board (cell -> stone or ``None``), the trays, the seat to move."""

    game = "nachbarn"

    def __init__(
        self,
        players: list[str],
        board: list[str | None],
        to_move: int,
        trays: list[dict[str, int]] | None = None,
        moves: list[int] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.players = players
        self.board = board
        self.gray = board.index(GRAY)
        self.to_move = to_move
        self.trays = trays if trays is not None else [dict.fromkeys(COLOURS, 0) for _ in players]
        self.moves = moves if moves is not None else []
        self.rng = rng if rng is not None else random.Random(0)

    @classmethod
    def new(
        cls,
        players: list[str],
        seed: int,
        board: JSON = None,
        start_player: str | None = None,
    ) -> NachbarnState:
        """Set up a game: a shuffled board from ``seed`` unless ``board`` is given explicitly."""
        names = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
        rng = random.Random(seed)
        cells = shuffled_board(rng) if board is None else check_board(board)
        if start_player is None:
            start = rng.randrange(len(names))
        elif start_player in names:
            start = names.index(start_player)
        else:
            raise BadSetup(f"start_player {start_player!r} is not one of {names}")
        return cls(names, cells, start, rng=rng)

    def copy(self) -> Self:
        return type(self)(
            list(self.players),
            list(self.board),
            self.to_move,
            [dict(t) for t in self.trays],
            list(self.moves),
            copy_rng(self.rng),
        )

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "players": list(self.players),
            "board": list(self.board),
            "to_move": self.to_move,
            "trays": [dict(t) for t in self.trays],
            "moves": list(self.moves),
            "rng": rng_to_json(self.rng),
        }

    @classmethod
    def from_json(cls, data: dict[str, JSON]) -> NachbarnState:
        try:
            players = check_players(data["players"], MIN_PLAYERS, MAX_PLAYERS)
            board = check_board(data["board"])
            to_move = int(data["to_move"])
            trays = [{c: int(t.get(c, 0)) for c in COLOURS} for t in data["trays"]]
            moves = [int(m) for m in data["moves"]]
            rng = rng_from_json(data["rng"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadSetup(f"not a Nachbarn state: {exc}") from exc
        if not 0 <= to_move < len(players) or len(trays) != len(players):
            raise BadSetup("not a Nachbarn state: seat or trays do not match the players")
        stones = Counter(s for s in board if s is not None)
        for tray in trays:
            stones.update(tray)
        if any(n > SUPPLY[c] for c, n in stones.items()):
            raise BadSetup("not a Nachbarn state: more stones of a colour than the game has")
        return cls(players, board, to_move, trays, moves, rng)

    def takeable_cells(self) -> list[int]:
        """Cells next to the gray stone that hold a stone."""
        board = self.board
        return [c for c in NEIGHBOURS[self.gray] if board[c] is not None]

    def current_player(self) -> str | None:
        return None if self.is_terminal() else self.players[self.to_move]

    def legal_actions(self) -> list[Action]:
        return [{"take": c} for c in self.takeable_cells()]

    def apply(self, action: Action) -> list[dict[str, JSON]]:
        cell = require_action_dict(action).get("take")
        if set(action) != {"take"} or not isinstance(cell, int) or isinstance(cell, bool):
            raise IllegalAction('a Nachbarn move is {"take": <cell index 0..36>}')
        if self.is_terminal():
            raise IllegalAction("the game is over: no stone lies next to the gray stone")
        if not 0 <= cell < CELL_COUNT:
            raise IllegalAction(f"cell {cell} is not on the board (0..{CELL_COUNT - 1})")
        if cell not in NEIGHBOURS[self.gray]:
            raise IllegalAction(f"cell {cell} is not next to the gray stone (cell {self.gray})")
        colour = self.board[cell]
        if colour is None:
            raise IllegalAction(f"cell {cell} is empty")
        player = self.players[self.to_move]
        self.trays[self.to_move][colour] += 1
        self.board[self.gray] = None
        self.board[cell] = GRAY
        self.gray = cell
        self.moves.append(cell)
        self.to_move = (self.to_move + 1) % len(self.players)
        return [{"type": "take", "player": player, "cell": cell, "colour": colour}]

    def is_terminal(self) -> bool:
        board = self.board
        return all(board[c] is None for c in NEIGHBOURS[self.gray])

    def own_points(self) -> list[int]:
        """Each seat's own tray points."""
        return [tray_points(t) for t in self.trays]

    def scores(self) -> list[PlayerScore]:
        own = self.own_points()
        n = len(self.players)
        finals = [own[i] + own[(i + 1) % n] for i in range(n)]
        best = max(finals)
        terminal = self.is_terminal()
        return [
            PlayerScore(
                player=name,
                total=finals[i],
                breakdown={
                    "own": own[i],
                    "by_colour": {c: colour_points(c, k) for c, k in self.trays[i].items() if k},
                    "stones": {c: k for c, k in self.trays[i].items() if k},
                    "next_player": self.players[(i + 1) % n],
                    "next_player_points": own[(i + 1) % n],
                    "winner": terminal and finals[i] == best,
                },
            )
            for i, name in enumerate(self.players)
        ]
