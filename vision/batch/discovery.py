"""Which files of a folder are photos to score.

A file is a photo when its name ends in a photo extension (whatever its content: a broken
``.jpg`` is reported as an error, not silently dropped) or when its first bytes are those of a
JPEG, PNG, WebP or HEIC image (whatever its name). Hidden files and folders (name starting with
``.``) and the paths in ``exclude`` are skipped; everything else is listed as not a photo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vision.load import sniff_format

#: File name suffixes (lower case) of the formats :func:`vision.load.load_photo` reads.
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".jpe", ".png", ".webp", ".heic", ".heif"})

#: Bytes read to sniff the format of a file without a photo extension.
_SNIFF_BYTES = 64


@dataclass(frozen=True)
class Discovered:
    """The files of a folder, sorted by name (relative POSIX path).

    ``photos``: (name, absolute path) of each photo to score; ``not_photos``: names of the
    other files, listed so that the summary can say what was left out.
    """

    photos: list[tuple[str, Path]]
    not_photos: list[str]


def discover_photos(
    folder: str | os.PathLike[str], *, recursive: bool = False, exclude: tuple[Path, ...] = ()
) -> Discovered:
    """List the photos in ``folder`` (and its sub-folders when ``recursive``).

    Names are paths relative to ``folder`` with ``/`` separators. ``exclude``: files and
    folders never listed (the batch's own outputs when they lie inside ``folder``).
    Raises :class:`NotADirectoryError` when ``folder`` is not a folder.
    """
    root = Path(folder).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"not a folder: {folder}")
    excluded = {p.resolve() for p in exclude}
    photos: list[tuple[str, Path]] = []
    not_photos: list[str] = []
    for path in _walk(root, recursive, excluded):
        name = path.relative_to(root).as_posix()
        if is_photo_file(path):
            photos.append((name, path))
        else:
            not_photos.append(name)
    photos.sort()
    not_photos.sort()
    return Discovered(photos, not_photos)


def is_photo_file(path: Path) -> bool:
    """True when ``path`` has a photo extension or starts with a photo format's magic bytes."""
    if path.suffix.lower() in PHOTO_SUFFIXES:
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    return sniff_format(head) is not None


def _walk(root: Path, recursive: bool, excluded: set[Path]) -> list[Path]:
    files: list[Path] = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if path.resolve() in excluded:
            continue
        if entry.is_dir(follow_symlinks=False):  # no symlinked folders: no loops
            if recursive:
                files.extend(_walk(path, recursive, excluded))
        elif entry.is_file():
            files.append(path)
    return files
