"""Beer & Pretzels games: create one, add each round's photo, read the scoreboard, correct a
round by hand. Reading needs only the game's unguessable id; changing it needs its edit token
(``X-Edit-Token``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Header, Request, Response, UploadFile
from starlette.concurrency import run_in_threadpool

from api import crud
from api.core.problems import Problem
from api.core.scorer import score_upload
from api.core.uploads import read_photo
from api.deps import GameId, RoundNumber, Services, ServicesDep, SessionDep
from api.models import Game
from api.schemas import (
    CorrectionIn,
    GameCreate,
    GameCreated,
    PhotoResult,
    RoundDetail,
    Scoreboard,
    problem_responses,
)
from api.scoreboard import build_scoreboard, corrected_money, new_rules_game, next_round, replay

router = APIRouter(
    prefix="/v1/beer-pretzels/games", tags=["games"], responses=problem_responses(422)
)

EditToken = Annotated[
    str | None,
    Header(alias="X-Edit-Token", description="the edit token returned when the game was made"),
]


def _scoreboard(request: Request, services: Services, game: Game) -> Scoreboard:
    return build_scoreboard(request, game, services.catalogues.get(game.components))


def _round_detail(request: Request, services: Services, game: Game, number: int) -> RoundDetail:
    scoreboard = _scoreboard(request, services, game)
    played = crud.find_round(game, number)
    return RoundDetail(
        round=scoreboard.rounds[number - 1],
        result=PhotoResult.model_validate(played.scoring.result),
        scoreboard=scoreboard,
    )


def _load_for_edit(services: Services, game_id: str, token: str | None) -> Game:
    with services.db.session() as session:
        game = crud.load_game(session, game_id)
        crud.require_edit_token(game, token)
        return game


def _reload(services: Services, game_id: str) -> Game:
    with services.db.session() as session:
        return crud.load_game(session, game_id)


@router.post(
    "",
    status_code=201,
    summary="start a game (players in seat order, each with a colour)",
    responses=problem_responses(422),
)
def create_game(
    body: GameCreate,
    request: Request,
    response: Response,
    session: SessionDep,
    services: ServicesDep,
) -> GameCreated:
    """Start a game. The answer holds the game's id (share it to let others watch the
    scoreboard) and its edit token (keep it: adding rounds and corrections need it)."""
    catalogue = services.catalogues.get(body.components)
    players = [(p.name.strip(), p.color) for p in body.players]
    new_rules_game([color for _, color in players], catalogue)
    game, token = crud.create_game(session, players, catalogue.name)
    location = str(request.url_for("get_game", game_id=game.id).path)
    response.headers["Location"] = location
    return GameCreated(
        game_id=game.id, edit_token=token, scoreboard=_scoreboard(request, services, game)
    )


@router.get("/{game_id}", summary="the scoreboard", responses=problem_responses(404))
def get_game(
    game_id: GameId, request: Request, session: SessionDep, services: ServicesDep
) -> Scoreboard:
    return _scoreboard(request, services, crud.load_game(session, game_id))


@router.post(
    "/{game_id}/rounds",
    status_code=201,
    summary="score the photo of the next round and add it to the game",
    responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 503),
)
async def add_round(
    game_id: GameId,
    request: Request,
    services: ServicesDep,
    photo: Annotated[UploadFile, File(description="JPEG, PNG, WebP or HEIC photo")],
    x_edit_token: EditToken = None,
) -> RoundDetail:
    """Score the photo as the game's next round. The round is stored whole (photo, result and
    round) or not at all."""
    game = await run_in_threadpool(_load_for_edit, services, game_id, x_edit_token)
    catalogue = services.catalogues.get(game.components)
    coming = next_round(replay(game, catalogue))
    if coming is None:
        raise Problem(409, "game_finished", "every round of this game has been played")
    upload = await read_photo(photo)
    scored = await services.pool.run(score_upload, upload.data, upload.name, catalogue)
    await run_in_threadpool(crud.add_round, services, game_id, coming.number, upload, scored)
    game = await run_in_threadpool(_reload, services, game_id)
    return _round_detail(request, services, game, coming.number)


@router.get(
    "/{game_id}/rounds/{number}",
    summary="a round: money, corrections and the scorer's full result",
    responses=problem_responses(404),
)
def get_round(
    game_id: GameId,
    number: RoundNumber,
    request: Request,
    session: SessionDep,
    services: ServicesDep,
) -> RoundDetail:
    return _round_detail(request, services, crud.load_game(session, game_id), number)


@router.post(
    "/{game_id}/rounds/{number}/corrections",
    status_code=201,
    summary="correct a round's money by hand (kept with who and when; the scored result stays)",
    responses=problem_responses(401, 403, 404, 422),
)
def correct_round(
    game_id: GameId,
    number: RoundNumber,
    body: CorrectionIn,
    request: Request,
    session: SessionDep,
    services: ServicesDep,
    x_edit_token: EditToken = None,
) -> RoundDetail:
    """Set some players' money for a round; the others keep theirs. The scored result and
    earlier corrections stay on record; the newest correction counts."""
    game = crud.load_game(session, game_id)
    crud.require_edit_token(game, x_edit_token)
    played = crud.find_round(game, number)
    catalogue = services.catalogues.get(game.components)
    money = corrected_money(game, catalogue, number, body.money)
    crud.add_correction(session, played, money, body.corrected_by.strip(), body.note)
    return _round_detail(request, services, crud.load_game(session, game_id), number)


@router.post(
    "/{game_id}/rounds/{number}/rescore",
    summary="score a round's stored photo again (e.g. after an update of the scorer)",
    responses=problem_responses(401, 403, 404, 422, 503),
)
async def rescore_round(
    game_id: GameId,
    number: RoundNumber,
    request: Request,
    services: ServicesDep,
    x_edit_token: EditToken = None,
) -> RoundDetail:
    """Run the scorer again on the round's photo as stored. Corrections stay in force; the
    previous result stays readable under its scoring id."""
    game = await run_in_threadpool(_load_for_edit, services, game_id, x_edit_token)
    played = crud.find_round(game, number)
    upload = await run_in_threadpool(crud.stored_photo, services, played.scoring)
    catalogue = services.catalogues.get(game.components)
    scored = await services.pool.run(score_upload, upload.data, upload.name, catalogue)
    await run_in_threadpool(crud.rescore_round, services, game_id, number, upload, scored)
    game = await run_in_threadpool(_reload, services, game_id)
    return _round_detail(request, services, game, number)
