"""Rule-engine games (Nachbarn, Biermann, Die Weinhändler) under ``/v1/games/{game}``.

Create a game (players, options, seed) and get its id and edit token; read its state and legal
actions with the id alone; post actions (and let the engine draw dice) with the edit token
(``X-Edit-Token``); ask the adviser. The engines live in :mod:`games` and are reached only
through :data:`games.engine.ENGINES`; each game is one ``rule_games`` row holding the engine's
JSON state.

Errors: an illegal action is a 409 problem ``illegal_action`` whose ``detail`` is the engine's
reason (the game is unchanged); players or options the engine refuses are a 422 problem
``bad_setup``; a change that raced another one on the same game is a 409 ``version_conflict``.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from api.core.problems import Problem
from api.core.security import hash_token, new_edit_token, new_game_id, token_matches
from api.deps import SessionDep
from api.models import RuleGame
from api.schemas import problem_responses
from games.engine import CHANCE, ENGINES, BadSetup, Engine, GameState, IllegalAction

router = APIRouter(prefix="/v1/games", tags=["rule games"], responses=problem_responses(422))

#: A player's name: printable, with at least one visible character.
PLAYER_NAME = r"^[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*$"
MAX_SEED = 2**31 - 1
MAX_ADVICE_NODES = 200_000

GameId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="the game's id")]
EditToken = Annotated[
    str | None,
    Header(alias="X-Edit-Token", description="the edit token returned when the game was made"),
]


class GameKind(StrEnum):
    """The rule engines the service hosts."""

    nachbarn = "nachbarn"
    biermann = "biermann"
    weinhaendler = "weinhaendler"


class RuleGameCreate(BaseModel):
    """Players in seat order, the engine's options and (optionally) the seed of its randomness."""

    players: list[Annotated[str, Field(min_length=1, max_length=40, pattern=PLAYER_NAME)]] = Field(
        min_length=1, max_length=16, examples=[["Anna", "Ben", "Cem"]]
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "nachbarn: board (37 cells), start_player; biermann: battle (bool), turns (int); "
            "weinhaendler: deck ({cards: [...]}), first_player"
        ),
    )
    seed: int | None = Field(
        default=None, ge=0, le=MAX_SEED, description="default: drawn at random (and returned)"
    )


class ScoreOut(BaseModel):
    player: str
    total: float
    breakdown: dict[str, Any]


class RuleGameOut(BaseModel):
    game_id: str
    game: GameKind
    players: list[str]
    seed: int
    options: dict[str, Any]
    version: int = Field(description="1 at creation, +1 per applied action")
    current_player: str | None = Field(
        description="the player to act, 'chance' for a dice roll, null once the game is over"
    )
    terminal: bool
    scores: list[ScoreOut]
    state: dict[str, Any] = Field(description="the engine's full state (its JSON form)")
    created_at: datetime
    updated_at: datetime


class RuleGameCreated(BaseModel):
    game_id: str
    edit_token: str = Field(description="keep it: posting actions needs it (X-Edit-Token)")
    game: RuleGameOut


class LegalActions(BaseModel):
    version: int
    current_player: str | None
    actions: list[dict[str, Any]]


class ActionIn(BaseModel):
    action: dict[str, Any] = Field(examples=[{"take": 17}, {"type": "roll", "dice": [3, 4]}])
    expected_version: int | None = Field(
        default=None, description="refuse (409) unless the game is still at this version"
    )


class ActionResult(BaseModel):
    events: list[dict[str, Any]] = Field(description="what the action caused, e.g. who drinks")
    game: RuleGameOut


class AdviceOut(BaseModel):
    action: dict[str, Any]
    explanation: str
    exact: bool = Field(description="true when the rest of the game was searched exhaustively")
    details: dict[str, Any]


def _engine(kind: GameKind) -> Engine:
    return ENGINES[kind.value]


def _load(session: Session, kind: GameKind, game_id: str) -> RuleGame:
    row = session.get(RuleGame, game_id)
    if row is None or row.game != kind.value:
        raise Problem(404, "game_not_found", f"no {kind.value} game with this id")
    return row


def _require_edit_token(row: RuleGame, token: str | None) -> None:
    if not token:
        raise Problem(401, "edit_token_missing", "changing a game needs its X-Edit-Token header")
    if not token_matches(token, row.edit_token_sha256):
        raise Problem(403, "edit_token_invalid", "the X-Edit-Token does not open this game")


def _state(kind: GameKind, row: RuleGame) -> GameState:
    return _engine(kind).from_json(row.state)


def _out(kind: GameKind, row: RuleGame, state: GameState) -> RuleGameOut:
    return RuleGameOut(
        game_id=row.id,
        game=kind,
        players=list(state.players),
        seed=row.seed,
        options=row.options,
        version=row.version,
        current_player=state.current_player(),
        terminal=state.is_terminal(),
        scores=[ScoreOut(**s.to_json()) for s in state.scores()],
        state=state.to_json(),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _commit_change(session: Session, row: RuleGame, state: GameState) -> None:
    row.state = state.to_json()
    try:
        session.commit()
    except StaleDataError as exc:
        session.rollback()
        raise Problem(
            409, "version_conflict", "the game changed meanwhile: read it again and retry"
        ) from exc


@router.post(
    "/{game}",
    status_code=201,
    summary="start a game (players in seat order, options, seed)",
    responses=problem_responses(422),
)
def create_rule_game(
    game: GameKind, body: RuleGameCreate, request: Request, response: Response, session: SessionDep
) -> RuleGameCreated:
    """Start a game. The answer holds its id (enough to watch it) and its edit token (needed
    to post actions)."""
    seed = body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1)
    try:
        state = _engine(game).new_game(body.players, body.options, seed)
    except BadSetup as exc:
        raise Problem(422, "bad_setup", str(exc)) from exc
    token = new_edit_token()
    row = RuleGame(
        id=new_game_id(),
        game=game.value,
        edit_token_sha256=hash_token(token),
        seed=seed,
        options=body.options,
        state=state.to_json(),
    )
    session.add(row)
    session.commit()
    response.headers["Location"] = str(
        request.url_for("get_rule_game", game=game.value, game_id=row.id).path
    )
    return RuleGameCreated(game_id=row.id, edit_token=token, game=_out(game, row, state))


@router.get(
    "/{game}/{game_id}", summary="the game's state and scores", responses=problem_responses(404)
)
def get_rule_game(game: GameKind, game_id: GameId, session: SessionDep) -> RuleGameOut:
    row = _load(session, game, game_id)
    return _out(game, row, _state(game, row))


@router.get(
    "/{game}/{game_id}/actions",
    summary="the legal actions now",
    responses=problem_responses(404),
)
def get_legal_actions(game: GameKind, game_id: GameId, session: SessionDep) -> LegalActions:
    row = _load(session, game, game_id)
    state = _state(game, row)
    return LegalActions(
        version=row.version, current_player=state.current_player(), actions=state.legal_actions()
    )


@router.post(
    "/{game}/{game_id}/actions",
    summary="play an action (an illegal one is refused with the reason: 409)",
    responses=problem_responses(401, 403, 404, 409),
)
def post_action(
    game: GameKind,
    game_id: GameId,
    body: ActionIn,
    session: SessionDep,
    x_edit_token: EditToken = None,
) -> ActionResult:
    row = _load(session, game, game_id)
    _require_edit_token(row, x_edit_token)
    if body.expected_version is not None and body.expected_version != row.version:
        raise Problem(
            409,
            "version_conflict",
            f"the game is at version {row.version}, not {body.expected_version}",
        )
    state = _state(game, row)
    try:
        events = state.apply(body.action)
    except IllegalAction as exc:
        raise Problem(409, "illegal_action", exc.reason) from exc
    _commit_change(session, row, state)
    return ActionResult(events=events, game=_out(game, row, state))


@router.post(
    "/{game}/{game_id}/chance",
    summary="let the engine draw the random step (e.g. roll the dice) with the game's seed",
    responses=problem_responses(401, 403, 404, 409),
)
def post_chance(
    game: GameKind, game_id: GameId, session: SessionDep, x_edit_token: EditToken = None
) -> ActionResult:
    row = _load(session, game, game_id)
    _require_edit_token(row, x_edit_token)
    state = _state(game, row)
    if state.current_player() != CHANCE:
        raise Problem(409, "illegal_action", "the game does not wait for a random draw now")
    events = state.apply(state.chance_action())
    _commit_change(session, row, state)
    return ActionResult(events=events, game=_out(game, row, state))


@router.get(
    "/{game}/{game_id}/advice",
    summary="the adviser's move for the player to act, with an explanation",
    responses=problem_responses(404, 409),
)
def get_advice(
    game: GameKind,
    game_id: GameId,
    session: SessionDep,
    opponents: Annotated[
        str | None,
        Query(description="nachbarn: 'rational' (max-n, default) or 'random' (expectimax)"),
    ] = None,
    node_budget: Annotated[
        int | None,
        Query(ge=1, le=MAX_ADVICE_NODES, description="nachbarn: positions to search"),
    ] = None,
) -> AdviceOut:
    engine = _engine(game)
    if not engine.has_adviser:
        raise Problem(404, "no_adviser", f"{engine.title} has no adviser")
    row = _load(session, game, game_id)
    options = {
        k: v for k, v in (("opponents", opponents), ("node_budget", node_budget)) if v is not None
    }
    try:
        advice = engine.advise(_state(game, row), options)
    except BadSetup as exc:
        raise Problem(422, "bad_setup", str(exc)) from exc
    except IllegalAction as exc:
        raise Problem(409, "illegal_action", exc.reason) from exc
    return AdviceOut(**advice.to_json())
