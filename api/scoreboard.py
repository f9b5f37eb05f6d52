"""A stored game as the game rules see it, and its scoreboard.

The rules (seat order, one round per player, rotating start player, corrections, totals,
winners) are those of :class:`games.beer_pretzels.game.BeerPretzelsGame`: the stored rounds and
corrections are replayed into one, and the scoreboard is read off it.
"""

from __future__ import annotations

from fastapi import Request

from api.core.problems import Problem
from api.models import Game, Round
from api.schemas import CorrectionOut, NextRound, PlayerOut, RoundOut, Scoreboard
from games.beer_pretzels.catalogue import Catalogue
from games.beer_pretzels.game import BeerPretzelsGame, GameError


def new_rules_game(colors: list[str], catalogue: Catalogue) -> BeerPretzelsGame:
    """A fresh game of these colours (seat order); 422 problem when the rules refuse them."""
    try:
        return BeerPretzelsGame(colors, catalogue)
    except GameError as exc:
        raise Problem(422, "invalid_game", str(exc)) from None


def scored_money(game: Game, played: Round) -> dict[str, int]:
    """Money per player colour as scored from the round's photo ($; absent colours made $0)."""
    scores = played.scoring.result.get("scores", {})
    return {p.color: int(scores.get(p.color, 0)) for p in game.players}


def photo_warnings(game: Game, played: Round) -> list[str]:
    """The scorer's warnings, plus colours missing from the photo or foreign to the game."""
    result = played.scoring.result
    warnings = [str(w) for w in result.get("warnings", [])]
    scores = result.get("scores", {})
    colors = [p.color for p in game.players]
    warnings += [f"no {c} items in the photo: {c} made $0" for c in colors if c not in scores]
    warnings += [
        f"{c} items in the photo are not of this game's players: ignored"
        for c in scores
        if c not in colors
    ]
    return warnings


def replay(game: Game, catalogue: Catalogue) -> BeerPretzelsGame:
    """The rules' view of a stored game: every round recorded, every correction applied."""
    rules = BeerPretzelsGame([p.color for p in game.players], catalogue)
    for played in game.rounds:
        rules.record_round(scored_money(game, played), warnings=photo_warnings(game, played))
        for correction in played.corrections:
            rules.correct_round(played.number, correction.money)
    return rules


def corrected_money(
    game: Game, catalogue: Catalogue, number: int, money: dict[str, int]
) -> dict[str, int]:
    """Round ``number``'s money after applying ``money`` on top of what counts now; a 422
    problem when the rules refuse it (colour not in the game, amount out of range)."""
    rules = replay(game, catalogue)
    try:
        return rules.correct_round(number, money).final
    except GameError as exc:
        raise Problem(422, "invalid_correction", str(exc)) from None


def next_round(rules: BeerPretzelsGame) -> NextRound | None:
    if rules.next_round is None or rules.start_player is None:
        return None
    return NextRound(number=rules.next_round, start_player=rules.start_player)


def build_scoreboard(request: Request, game: Game, catalogue: Catalogue) -> Scoreboard:
    rules = replay(game, catalogue)
    rounds = []
    for played, record in zip(game.rounds, rules.rounds, strict=True):
        scoring_id = played.scoring.id
        rounds.append(
            RoundOut(
                number=record.number,
                start_player=record.start_player,
                money=record.final,
                scored_money=dict(record.money),
                corrected=record.corrected is not None,
                corrections=[
                    CorrectionOut(
                        money=dict(c.money),
                        corrected_by=c.corrected_by,
                        note=c.note,
                        created_at=c.created_at,
                    )
                    for c in played.corrections
                ],
                warnings=list(record.warnings),
                scoring_id=scoring_id,
                annotated_image_url=request.url_for("annotated_image", scoring_id=scoring_id).path,
                photo_url=request.url_for("original_photo", scoring_id=scoring_id).path,
                created_at=played.created_at,
            )
        )
    return Scoreboard(
        game_id=game.id,
        components=game.components,
        created_at=game.created_at,
        players=[PlayerOut(seat=p.seat, name=p.name, color=p.color) for p in game.players],
        rounds=rounds,
        totals=rules.totals,
        finished=rules.finished,
        winners=rules.winners if rules.finished else [],
        next_round=next_round(rules),
    )
