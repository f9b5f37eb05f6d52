"""The scoring job run in the pool: the vision pipeline on a photo, plus its annotated JPEG."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.beer_pretzels.catalogue import Catalogue
from vision.art import art_library
from vision.pipeline import score_photo


@dataclass(frozen=True)
class ScoredUpload:
    """``contract``: the JSON contract of the photo (pixels of the photo as displayed);
    ``annotated_jpeg``: the photo with the scorer's findings drawn on it."""

    contract: dict[str, Any]
    annotated_jpeg: bytes


def score_upload(data: bytes, name: str, catalogue: Catalogue) -> ScoredUpload:
    """Score one photo (CPU-bound: call it through :class:`api.core.scoring_pool.ScoringPool`).

    Raises :class:`vision.errors.PhotoError` for a photo that cannot be scored.
    """
    scored = score_photo(data, name=name, catalogue=catalogue)
    return ScoredUpload(contract=scored.contract, annotated_jpeg=scored.annotated_jpeg())


def load_scorer(catalogues: Iterable[Catalogue]) -> None:
    """Load the art library of every catalogue (the scorer's reference images) ahead of the
    first photo; the libraries are cached for the life of the process."""
    for catalogue in catalogues:
        art_library(catalogue)
