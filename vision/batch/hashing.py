"""Content hashes of photo files: the key by which a batch recognises photos it already scored."""

from __future__ import annotations

import hashlib
import os

_CHUNK_BYTES = 1 << 20


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of the file's bytes, read in 1 MiB chunks (raises :class:`OSError`)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()
