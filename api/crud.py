"""Reading and writing the database (and the photo files the rows point to).

Durability rule: files are written first (atomically, content-addressed), then the rows that
point to them are committed in ONE transaction. A crash between the two leaves at most an
unreferenced file, never a row without its file or half a round.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from api.core.problems import Problem
from api.core.security import hash_token, new_edit_token, new_game_id, new_scoring_id, token_matches
from api.core.storage import ContentStore
from api.core.uploads import UploadedPhoto
from api.deps import Services
from api.models import Correction, Game, Photo, Player, Round, Scoring

if TYPE_CHECKING:
    from api.core.scorer import ScoredUpload


def _insert_photo_if_new(session: Session, sha256: str, upload: UploadedPhoto) -> None:
    values = {"sha256": sha256, "size_bytes": len(upload.data), "media_type": upload.media_type}
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        statement = postgresql.insert(Photo).values(**values).on_conflict_do_nothing()
    elif dialect == "sqlite":
        statement = sqlite.insert(Photo).values(**values).on_conflict_do_nothing()
    else:
        if session.get(Photo, sha256) is None:
            session.add(Photo(**values))
            session.flush()
        return
    session.execute(statement)


def _write_files(
    services: Services, upload: UploadedPhoto, scored: ScoredUpload
) -> tuple[str, str]:
    photo_sha256 = services.photos.put(upload.data)
    annotated_sha256 = services.annotated.put(scored.annotated_jpeg)
    return photo_sha256, annotated_sha256


def _new_scoring(
    session: Session,
    upload: UploadedPhoto,
    scored: ScoredUpload,
    components: str,
    photo_sha256: str,
    annotated_sha256: str,
) -> Scoring:
    _insert_photo_if_new(session, photo_sha256, upload)
    scoring = Scoring(
        id=new_scoring_id(),
        photo_sha256=photo_sha256,
        annotated_sha256=annotated_sha256,
        components=components,
        result=scored.contract,
    )
    session.add(scoring)
    return scoring


def store_scoring(
    services: Services, upload: UploadedPhoto, scored: ScoredUpload, components: str
) -> Scoring:
    """Keep a scored photo (files, then one transaction); returns the new :class:`Scoring`."""
    photo_sha256, annotated_sha256 = _write_files(services, upload, scored)
    with services.db.session() as session:
        scoring = _new_scoring(session, upload, scored, components, photo_sha256, annotated_sha256)
        session.commit()
        return scoring


def get_scoring(session: Session, scoring_id: str) -> Scoring:
    scoring = session.get(Scoring, scoring_id)
    if scoring is None:
        raise Problem(404, "scoring_not_found", "no scored photo with this id")
    return scoring


# --- games ---------------------------------------------------------------------------------


def create_game(
    session: Session, players: list[tuple[str, str]], components: str
) -> tuple[Game, str]:
    """A new game of ``players`` ((name, colour) in seat order); returns it and its edit token
    (the only time the token is seen: just its hash is stored)."""
    token = new_edit_token()
    game = Game(id=new_game_id(), edit_token_sha256=hash_token(token), components=components)
    game.players = [
        Player(seat=seat, name=name, color=color) for seat, (name, color) in enumerate(players)
    ]
    session.add(game)
    session.commit()
    return load_game(session, game.id), token


def load_game(session: Session, game_id: str) -> Game:
    """The game with its players, rounds, scorings and corrections; 404 problem if unknown."""
    game = session.scalars(
        select(Game)
        .where(Game.id == game_id)
        .options(
            selectinload(Game.players),
            selectinload(Game.rounds).selectinload(Round.scoring).selectinload(Scoring.photo),
            selectinload(Game.rounds).selectinload(Round.corrections),
        )
        .execution_options(populate_existing=True)
    ).one_or_none()
    if game is None:
        raise Problem(404, "game_not_found", "no game with this id")
    return game


def require_edit_token(game: Game, token: str | None) -> None:
    """401 problem without a token, 403 with a wrong one."""
    if not token:
        raise Problem(401, "edit_token_missing", "changing a game needs its X-Edit-Token header")
    if not token_matches(token, game.edit_token_sha256):
        raise Problem(403, "edit_token_invalid", "the X-Edit-Token does not open this game")


def add_round(
    services: Services,
    game_id: str,
    number: int,
    upload: UploadedPhoto,
    scored: ScoredUpload,
) -> None:
    """Store round ``number`` of a game: files, then photo + scoring + round in one transaction.

    A 409 problem when another request stored that round first.
    """
    photo_sha256, annotated_sha256 = _write_files(services, upload, scored)
    with services.db.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise Problem(404, "game_not_found", "no game with this id")
        stored = session.scalar(select(func.count()).where(Round.game_id == game_id))
        if stored != number - 1:
            raise Problem(
                409, "round_conflict", f"round {number} was stored by another request meanwhile"
            )
        scoring = _new_scoring(
            session, upload, scored, game.components, photo_sha256, annotated_sha256
        )
        session.add(Round(game_id=game_id, number=number, scoring=scoring))
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            raise Problem(
                409, "round_conflict", f"round {number} was stored by another request meanwhile"
            ) from None


def find_round(game: Game, number: int) -> Round:
    for played in game.rounds:
        if played.number == number:
            return played
    raise Problem(404, "round_not_found", f"this game has no round {number}")


def rescore_round(
    services: Services, game_id: str, number: int, upload: UploadedPhoto, scored: ScoredUpload
) -> None:
    """Point round ``number`` at a new scoring of its photo (the old scoring stays readable)."""
    photo_sha256, annotated_sha256 = _write_files(services, upload, scored)
    with services.db.session() as session:
        game = load_game(session, game_id)
        played = find_round(game, number)
        played.scoring = _new_scoring(
            session, upload, scored, game.components, photo_sha256, annotated_sha256
        )
        session.commit()


def existing_file(store: ContentStore, sha256: str) -> Path:
    """The path of a stored file; a 404 problem if it was removed from the data folder."""
    path = store.path(sha256)
    if not path.is_file():
        raise Problem(404, "file_missing", "the stored file is no longer in the data folder")
    return path


def stored_photo(services: Services, scoring: Scoring) -> UploadedPhoto:
    """The original upload behind a scoring, read back from the content store."""
    return UploadedPhoto(
        data=existing_file(services.photos, scoring.photo_sha256).read_bytes(),
        name=str(scoring.result.get("image", "upload")),
        media_type=scoring.photo.media_type,
    )


def add_correction(
    session: Session,
    played: Round,
    money: dict[str, int],
    corrected_by: str,
    note: str | None,
) -> Correction:
    """Record a person's correction of a round's money (the newest correction is in force)."""
    correction = Correction(money=money, corrected_by=corrected_by, note=note)
    played.corrections.append(correction)
    session.commit()
    return correction
