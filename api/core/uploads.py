"""Reading an uploaded photo: its bytes, a safe display name and its sniffed media type.

The media type comes from the file's first bytes (magic numbers), never from the file name or
the client's ``Content-Type``. The request's total size is already bounded by
:class:`api.core.middleware.BodySizeLimitMiddleware` while it streams in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastapi import UploadFile

from api.core.problems import Problem
from vision.load import PhotoFormat, sniff_format

MEDIA_TYPES = {
    PhotoFormat.JPEG: "image/jpeg",
    PhotoFormat.PNG: "image/png",
    PhotoFormat.WEBP: "image/webp",
    PhotoFormat.HEIF: "image/heic",
}

_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._ -]+")


@dataclass(frozen=True)
class UploadedPhoto:
    """An uploaded photo: ``data`` (raw bytes), ``name`` (for the contract's ``image`` field) and
    ``media_type`` (sniffed)."""

    data: bytes
    name: str
    media_type: str


def display_name(filename: str | None) -> str:
    """The last path component of ``filename``, restricted to safe characters (<= 120 chars)."""
    base = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE_NAME_CHARS.sub("_", base).strip(" .")[:120]
    return cleaned or "upload"


async def read_photo(upload: UploadFile) -> UploadedPhoto:
    """The uploaded photo, or a 415/422 problem when it is empty or not an image we decode."""
    data = await upload.read()
    if not data:
        raise Problem(422, "empty_upload", "the uploaded photo is empty (0 bytes)")
    photo_format = sniff_format(data[:64])
    if photo_format is None:
        raise Problem(
            415,
            "unsupported_media_type",
            "the upload is not a JPEG, PNG, WebP or HEIC image (judged from its bytes)",
        )
    return UploadedPhoto(
        data=data, name=display_name(upload.filename), media_type=MEDIA_TYPES[photo_format]
    )
