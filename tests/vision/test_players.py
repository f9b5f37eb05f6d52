"""Who plays: the colours in play, and the five-player rule checked against the table."""

from __future__ import annotations

from games.beer_pretzels.scene import PlacedItem
from vision.players import five_colours_warning, players_in_play, removed_types

COLOURS = ("red", "yellow", "green", "blue", "gray")


def _coaster(color: str, type_: str, z: int, face: str = "up") -> PlacedItem:
    return PlacedItem("coaster", color, type_, face, (100.0 * z, 0.0), 0.0, z)


def _five_colours(soft_colours: tuple[str, ...]) -> list[PlacedItem]:
    """A beer coaster of every colour, and a soft one of each of ``soft_colours``."""
    items = [_coaster(color, "beer", z) for z, color in enumerate(COLOURS)]
    items += [_coaster(color, "soft", 10 + z) for z, color in enumerate(soft_colours)]
    return items


def test_players_are_the_colours_shown_face_up(catalogue) -> None:
    items = [
        _coaster("blue", "beer", 0),
        _coaster("red", "soft", 1),
        _coaster("gray", None, 2, "down"),
    ]
    assert players_in_play(items, catalogue) == ["red", "blue"]


def test_five_colours_take_the_soft_coasters_out(catalogue) -> None:
    for soft in ((), ("red",), ("red", "blue")):  # none, or a type misread or two
        items = _five_colours(soft)
        players = players_in_play(items, catalogue)
        assert removed_types(items, players) == ("soft",)
        assert five_colours_warning(items, players) == []


def test_soft_coasters_in_three_colours_deny_a_fifth_player(catalogue) -> None:
    """Held-out 0084: four players' soft coasters lie face up, and one misread coaster makes a
    fifth colour; the soft coasters stay in play, with a warning to check the colours."""
    items = _five_colours(("red", "blue", "green", "green"))
    players = players_in_play(items, catalogue)
    assert len(players) == 5
    assert removed_types(items, players) == ()
    (warning,) = five_colours_warning(items, players)
    assert "soft coasters lie face up in 3 colours" in warning


def test_fewer_than_five_players_keep_every_type(catalogue) -> None:
    items = [it for it in _five_colours(("red",)) if it.color != "gray"]
    players = players_in_play(items, catalogue)
    assert removed_types(items, players) == ()
    assert five_colours_warning(items, players) == []
