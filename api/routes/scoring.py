"""Score a single photo: ``POST /v1/beer-pretzels/score``; read it back and its images."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from api import crud
from api.core.scorer import score_upload
from api.core.uploads import read_photo
from api.deps import ScoringId, ServicesDep, SessionDep
from api.models import Scoring
from api.schemas import ScoreResponse, problem_responses

router = APIRouter(prefix="/v1/beer-pretzels", tags=["scoring"], responses=problem_responses(422))

IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}


def score_response(request: Request, scoring: Scoring) -> ScoreResponse:
    return ScoreResponse.model_validate(
        {
            **scoring.result,
            "scoring_id": scoring.id,
            "annotated_image_url": str(
                request.url_for("annotated_image", scoring_id=scoring.id).path
            ),
        }
    )


@router.post(
    "/score",
    summary="score a photo of a Beer & Pretzels table",
    responses=problem_responses(413, 415, 422, 503),
)
async def score(
    request: Request,
    services: ServicesDep,
    photo: Annotated[UploadFile, File(description="JPEG, PNG, WebP or HEIC photo")],
    components: Annotated[
        str | None, Form(max_length=64, description="component set name (default: bundled)")
    ] = None,
) -> ScoreResponse:
    """Score the photo: each colour's money, the items found and the boundary (the project's
    JSON contract), plus the URL of the annotated image. Photos that cannot be scored give a
    problem with the error's ``code`` (e.g. ``unreadable_image``, ``no_game_found``)."""
    catalogue = services.catalogues.get(components)
    upload = await read_photo(photo)
    scored = await services.pool.run(score_upload, upload.data, upload.name, catalogue)
    scoring = await run_in_threadpool(crud.store_scoring, services, upload, scored, catalogue.name)
    return score_response(request, scoring)


@router.get(
    "/scorings/{scoring_id}",
    summary="a scored photo's result",
    responses=problem_responses(404),
)
def get_scoring(request: Request, scoring_id: ScoringId, session: SessionDep) -> ScoreResponse:
    return score_response(request, crud.get_scoring(session, scoring_id))


@router.get(
    "/scorings/{scoring_id}/annotated.jpg",
    summary="the annotated photo (JPEG)",
    response_class=FileResponse,
    responses={200: {"content": {"image/jpeg": {}}}, **problem_responses(404)},
)
def annotated_image(
    scoring_id: ScoringId, session: SessionDep, services: ServicesDep
) -> FileResponse:
    scoring = crud.get_scoring(session, scoring_id)
    return FileResponse(
        crud.existing_file(services.annotated, scoring.annotated_sha256),
        media_type="image/jpeg",
        headers=IMMUTABLE,
    )


@router.get(
    "/scorings/{scoring_id}/photo",
    summary="the photo as uploaded",
    response_class=FileResponse,
    responses={200: {"content": {"image/*": {}}}, **problem_responses(404)},
)
def original_photo(
    scoring_id: ScoringId, session: SessionDep, services: ServicesDep
) -> FileResponse:
    scoring = crud.get_scoring(session, scoring_id)
    return FileResponse(
        crud.existing_file(services.photos, scoring.photo_sha256),
        media_type=scoring.photo.media_type,
        headers=IMMUTABLE,
    )
