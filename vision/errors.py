"""Errors the pipeline raises for a photo it cannot score; each carries a stable ``code``.

The service maps every :class:`PhotoError` to a 4xx problem response and the CLI to a JSON
object with an ``error`` field: they are the user's photo's fault, never a crash.
"""

from __future__ import annotations


class PhotoError(ValueError):
    """A photo that cannot be scored. ``code`` is a stable machine-readable identifier."""

    code = "photo_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnreadableImage(PhotoError):
    """Not an image, a truncated file, or a format we cannot decode."""

    code = "unreadable_image"


class ImageTooLarge(PhotoError):
    """Too many bytes or pixels (decompression-bomb guard)."""

    code = "image_too_large"


class ImageTooSmall(PhotoError):
    """Too few pixels to see the coasters' printed icons."""

    code = "image_too_small"


class NoGameFound(PhotoError):
    """The photo shows no Beer & Pretzels items."""

    code = "no_game_found"
