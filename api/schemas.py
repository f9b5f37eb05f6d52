"""Request and response bodies (pydantic) of the HTTP API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ProblemDetails(BaseModel):
    """An RFC 9457 problem (media type ``application/problem+json``)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(examples=["urn:tablescore:problem:unreadable_image"])
    title: str
    status: int
    detail: str
    code: str = Field(description="stable machine-readable error code")
    instance: str | None = None
    request_id: str | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting problem bodies for ``statuses``."""
    return {
        status: {
            "model": ProblemDetails,
            "content": {
                "application/problem+json": {
                    "schema": {"$ref": "#/components/schemas/ProblemDetails"}
                }
            },
            "description": "problem details (RFC 9457)",
        }
        for status in statuses
    }


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class ReadinessCheck(BaseModel):
    ok: bool
    detail: str


class ScoringLoad(BaseModel):
    admitted: int = Field(description="photos being scored or waiting for a slot now")
    capacity: int = Field(description="photos admitted at most; more get 503 + Retry-After")
    concurrent: int = Field(description="photos scored at the same time")


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, ReadinessCheck]
    scoring: ScoringLoad


class ColorOut(BaseModel):
    name: str
    rgb: list[int] = Field(description="printed colour, 0-255")


class ComponentSet(BaseModel):
    name: str
    version: int
    default: bool
    colors: list[ColorOut]
    coaster_types: list[str]


# --- the scorer's contract (../shared/spec/beer-and-pretzels.md) ---------------------------


class Coins(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    fives: int = Field(alias="5", ge=0)
    ones: int = Field(alias="1", ge=0)


class PlayerResult(BaseModel):
    """One colour's money in a photo."""

    model_config = ConfigDict(extra="allow")

    money: int = Field(ge=0, description="dollars")
    pretzels: list[int] = Field(description="values of the counted, entirely visible pretzels")
    beer_visible: bool
    coins: Coins


class IconResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    kind: Literal["pretzel", "beer"]
    value: int | None = None
    visible: bool
    uncertain: bool = False


class ItemResult(BaseModel):
    """A coaster or napkin found in the photo (pixels of the photo as displayed)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["coaster", "napkin"]
    color: str
    type: str | None
    face: Literal["up", "down"]
    center_px: list[float]
    polygon_px: list[list[float]]
    z: int
    anchored: bool
    counted: bool
    icons: list[IconResult] = Field(default_factory=list)


class PhotoResult(BaseModel):
    """The scorer's result for one photo: exactly the project's JSON contract."""

    model_config = ConfigDict(extra="allow")

    image: str
    game: Literal["beer-and-pretzels"]
    scores: dict[str, int] = Field(description="money per colour present (dollars)")
    players: dict[str, PlayerResult]
    items: list[ItemResult]
    boundary_px: list[list[float]] | None
    warnings: list[str]
    timing_ms: dict[str, float]


class ScoreResponse(PhotoResult):
    """The contract of a scored photo, plus where to fetch it again and its annotated image."""

    scoring_id: str = Field(description="id of this scoring (unguessable)")
    annotated_image_url: str = Field(description="GET it: the annotated photo as JPEG")


# --- games ---------------------------------------------------------------------------------


#: Printable text with at least one visible character (no control characters, no NUL).
VISIBLE_TEXT = r"^[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*$"
#: Ids made by :mod:`api.core.security` (URL-safe base64).
ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


class PlayerIn(BaseModel):
    name: str = Field(min_length=1, max_length=40, pattern=VISIBLE_TEXT, examples=["Anna"])
    color: str = Field(min_length=1, max_length=32, examples=["red"])


class GameCreate(BaseModel):
    """Players in seat order: the first starts round 1, then clockwise."""

    players: list[PlayerIn] = Field(min_length=1, max_length=16)
    components: str | None = Field(
        default=None, max_length=64, description="component set name (default: bundled)"
    )


class PlayerOut(BaseModel):
    seat: int = Field(description="0 = first player, then clockwise")
    name: str
    color: str


class CorrectionIn(BaseModel):
    """A person's money for a round, per colour (colours left out keep the scorer's money)."""

    money: dict[str, Annotated[int, Field(ge=0, le=10_000)]] = Field(
        min_length=1, examples=[{"red": 12}]
    )
    corrected_by: str = Field(min_length=1, max_length=80, pattern=VISIBLE_TEXT, examples=["Anna"])
    note: str | None = Field(default=None, max_length=500, pattern=r"^[^\x00]*$")


class CorrectionOut(BaseModel):
    money: dict[str, int] = Field(description="the round's money per colour after this correction")
    corrected_by: str
    note: str | None
    created_at: datetime


class RoundOut(BaseModel):
    number: int = Field(description="1-based")
    start_player: str = Field(description="colour of the player who tossed first")
    money: dict[str, int] = Field(description="money per colour in force (corrected if so)")
    scored_money: dict[str, int] = Field(description="money per colour as scored from the photo")
    corrected: bool
    corrections: list[CorrectionOut] = Field(description="oldest first; the last is in force")
    warnings: list[str]
    scoring_id: str
    annotated_image_url: str
    photo_url: str
    created_at: datetime


class NextRound(BaseModel):
    number: int
    start_player: str


class Scoreboard(BaseModel):
    game_id: str
    components: str
    created_at: datetime
    players: list[PlayerOut]
    rounds: list[RoundOut]
    totals: dict[str, int] = Field(description="money per colour over the rounds played")
    finished: bool
    winners: list[str] = Field(description="colours with the most money once finished (ties)")
    next_round: NextRound | None


class GameCreated(BaseModel):
    game_id: str
    edit_token: str = Field(description="needed (X-Edit-Token) to change the game; shown once")
    scoreboard: Scoreboard


class RoundDetail(BaseModel):
    round: RoundOut
    result: PhotoResult = Field(description="the scorer's full result for the round's photo")
    scoreboard: Scoreboard
