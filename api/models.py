"""Database tables (SQLAlchemy 2, typed). Schema changes go through Alembic (api/migrations)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, TypeDecorator, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utc_now() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite drops the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value if value.tzinfo else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, datetime: UTCDateTime}  # noqa: RUF012


class Photo(Base):
    """An uploaded photo; its bytes live on disk under ``photos/<sha256[:2]>/<sha256>``."""

    __tablename__ = "photos"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size_bytes: Mapped[int] = mapped_column(Integer)
    media_type: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)


class Scoring(Base):
    """One run of the scorer on a photo: the contract JSON and the annotated JPEG's hash."""

    __tablename__ = "scorings"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    photo_sha256: Mapped[str] = mapped_column(ForeignKey("photos.sha256"), index=True)
    annotated_sha256: Mapped[str] = mapped_column(String(64))
    components: Mapped[str] = mapped_column(String(64))
    result: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    photo: Mapped[Photo] = relationship()


class Game(Base):
    """A Beer & Pretzels game; ``id`` is unguessable, the edit token is kept only as a hash."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    edit_token_sha256: Mapped[str] = mapped_column(String(64))
    components: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    players: Mapped[list[Player]] = relationship(
        back_populates="game", order_by="Player.seat", cascade="all, delete-orphan"
    )
    rounds: Mapped[list[Round]] = relationship(
        back_populates="game", order_by="Round.number", cascade="all, delete-orphan"
    )


class Player(Base):
    """A player of a game, by seat (0 = first, then clockwise) and colour."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        UniqueConstraint("game_id", "color"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int]
    name: Mapped[str] = mapped_column(String(40))
    color: Mapped[str] = mapped_column(String(32))

    game: Mapped[Game] = relationship(back_populates="players")


class Round(Base):
    """A played round: its number (1-based) and the scoring of its photo."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    scoring_id: Mapped[str] = mapped_column(ForeignKey("scorings.id"))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    game: Mapped[Game] = relationship(back_populates="rounds")
    scoring: Mapped[Scoring] = relationship()
    corrections: Mapped[list[Correction]] = relationship(
        back_populates="round", order_by="Correction.id", cascade="all, delete-orphan"
    )


class Correction(Base):
    """A person's correction of a round's money; the newest one is in force, all are kept."""

    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"), index=True)
    money: Mapped[dict[str, Any]]
    corrected_by: Mapped[str] = mapped_column(String(80))
    note: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    round: Mapped[Round] = relationship(back_populates="corrections")


class RuleGame(Base):
    """A game of a rule engine (``game``: nachbarn / biermann / weinhaendler, see
    :data:`games.engine.ENGINES`): the engine's JSON state; ``version`` is 1 at creation and
    grows by one per applied action, guarding against two concurrent changes (optimistic
    locking)."""

    __tablename__ = "rule_games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    edit_token_sha256: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int]
    options: Mapped[dict[str, Any]]
    state: Mapped[dict[str, Any]]
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(default=utc_now, onupdate=utc_now)

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
