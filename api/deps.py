"""Shared state of a running app and the dependencies routes take (``Annotated[..., Depends]``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session

from api.core.catalogues import CatalogueRegistry
from api.core.config import Settings
from api.core.db import Database
from api.core.scoring_pool import ScoringPool
from api.core.storage import ContentStore
from api.schemas import ID_PATTERN


@dataclass
class ScorerState:
    """Whether the scorer's reference data is loaded (``error`` says why not, if it failed)."""

    loaded: bool = False
    error: str | None = None


@dataclass
class Services:
    """Everything a request may need, built once per application by :func:`api.app.create_app`."""

    settings: Settings
    db: Database
    photos: ContentStore
    annotated: ContentStore
    pool: ScoringPool
    catalogues: CatalogueRegistry
    scorer_state: ScorerState = field(default_factory=lambda: ScorerState())


def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    with services.db.session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


GameId = Annotated[str, Path(pattern=ID_PATTERN, description="the game's id")]
ScoringId = Annotated[str, Path(pattern=ID_PATTERN, description="the scored photo's id")]
RoundNumber = Annotated[int, Path(ge=1, le=1000, description="round number, from 1")]
