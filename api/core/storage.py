"""Content-addressed files on disk: ``<root>/<sha256[:2]>/<sha256><suffix>``, written atomically.

A file is written to a temporary name in its final folder, flushed to disk and renamed into
place, so a reader (or a crash) never sees a half-written file. Writing the same content twice
is a no-op.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ContentStore:
    """Files named by the SHA-256 of their bytes under ``root``."""

    def __init__(self, root: Path, suffix: str = "") -> None:
        self.root = root
        self.suffix = suffix

    def path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / f"{sha256}{self.suffix}"

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically, durable on return); returns its SHA-256 hex digest."""
        digest = sha256_hex(data)
        target = self.path(digest)
        if target.is_file() and target.stat().st_size == len(data):
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as tmp:
                tmp.write(data)
                tmp.flush()
                os.fsync(tmp.fileno())
            os.replace(tmp_name, target)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        _fsync_dir(target.parent)
        return digest

    def get(self, sha256: str) -> bytes:
        """The stored bytes; raises FileNotFoundError when absent."""
        return self.path(sha256).read_bytes()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
