"""Shared state of a running app and the dependencies routes take (``Annotated[..., Depends]``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from api.core.catalogues import CatalogueRegistry
from api.core.config import Settings
from api.core.db import Database
from api.core.scoring_pool import ScoringPool
from api.core.storage import ContentStore


@dataclass
class Services:
    """Everything a request may need, built once per application by :func:`api.app.create_app`."""

    settings: Settings
    db: Database
    photos: ContentStore
    annotated: ContentStore
    pool: ScoringPool
    catalogues: CatalogueRegistry


def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    with services.db.session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
