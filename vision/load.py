"""Load a phone photo into the working image: sniffed format, guarded size, EXIF applied.

The working image is the photo *as displayed* (EXIF orientation applied), downscaled so that its
long side is at most ``working_long_side_px``. Every later stage works in its pixels;
``LoadedPhoto.working_to_displayed`` maps them back to the displayed photo's pixels, the frame of
the JSON contract.

Guards, all checked before any pixel is decoded:

* bytes: more than ``max_bytes`` -> :class:`ImageTooLarge`; empty -> :class:`UnreadableImage`;
* format: sniffed from the magic bytes (JPEG, PNG, WebP, HEIC/HEIF), never from the file name;
  anything else -> :class:`UnreadableImage`;
* pixels: the header's width x height above ``max_pixels`` (a decompression bomb, or a photo far
  larger than any phone makes) -> :class:`ImageTooLarge`;
* short side below :data:`MIN_SHORT_SIDE_PX` -> :class:`ImageTooSmall`: at 320 px a coaster in a
  whole-table photo is about 15 px across, too few to read its printed icons.

A truncated or corrupt file -> :class:`UnreadableImage`. JPEGs much larger than the working size
are decoded at 1/2, 1/4 or 1/8 scale in the DCT (Pillow's draft mode), so a 12 MP photo never
costs a full-size decode; the last step to the working size is an area-average resize. When
the reduction lands a little under the working size (3000x4000 at 1/2 is 1500x2000, not
1512x2016) the reduced image is used as it is.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
import pillow_heif
from PIL import Image

from vision.errors import ImageTooLarge, ImageTooSmall, PhotoError, UnreadableImage

pillow_heif.register_heif_opener()

# The pixel-count guard below replaces Pillow's own (which only warns between 89 MP and 179 MP).
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)

MIN_SHORT_SIDE_PX = 320
"""Smallest accepted short side of the displayed photo, px."""
DRAFT_MIN_FRACTION = 0.9
"""A JPEG may be decoded at a DCT reduction whose long side is down to this fraction of the
working long side; that smaller image is then the working image."""

_EXIF_ORIENTATION_TAG = 0x0112
_TRANSPOSE_FOR_ORIENTATION: dict[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}


class PhotoFormat(Enum):
    """Image container formats the loader accepts, identified from the file's first bytes."""

    JPEG = "JPEG"
    PNG = "PNG"
    WEBP = "WEBP"
    HEIF = "HEIF"


@dataclass(frozen=True)
class LoadedPhoto:
    """A decoded photo at working resolution.

    ``image_bgr``: (H, W, 3) uint8 BGR, the working image (EXIF orientation applied, long side
    <= the requested working long side). ``displayed_size_px``: (width, height) of the photo as
    displayed. ``working_to_displayed``: multiply working px by this to get displayed-photo px
    (>= 1.0; exactly 1.0 when the photo was not downscaled).

    Pixel coordinates put pixel centres at whole numbers (as OpenCV does). A working pixel
    averages a block of ``working_to_displayed`` displayed pixels, so the exact conversion is
    :meth:`to_displayed_px` (plain multiplication is off by ``(factor - 1) / 2`` displayed px,
    half a pixel for a 2x reduction).
    """

    image_bgr: np.ndarray
    displayed_size_px: tuple[int, int]
    working_to_displayed: float

    def to_displayed_px(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) float64 displayed-photo px of (N, 2) working-image px (x, y)."""
        return working_to_displayed_px(points_px, self.working_to_displayed)

    def to_working_px(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) float64 working-image px of (N, 2) displayed-photo px (x, y)."""
        return displayed_to_working_px(points_px, self.working_to_displayed)


def working_to_displayed_px(points_px: np.ndarray, working_to_displayed: float) -> np.ndarray:
    """(N, 2) float64 displayed-photo px of (N, 2) working-image px (x, y), for a working
    image reduced by ``working_to_displayed`` (pixel centres at whole numbers in both)."""
    return (np.asarray(points_px, dtype=np.float64) + 0.5) * working_to_displayed - 0.5


def displayed_to_working_px(points_px: np.ndarray, working_to_displayed: float) -> np.ndarray:
    """(N, 2) float64 working-image px of (N, 2) displayed-photo px (x, y): the inverse of
    :func:`working_to_displayed_px`."""
    return (np.asarray(points_px, dtype=np.float64) + 0.5) / working_to_displayed - 0.5


def sniff_format(data: bytes) -> PhotoFormat | None:
    """The container format from the magic bytes at the start of ``data``; None if unknown."""
    if data[:3] == b"\xff\xd8\xff":
        return PhotoFormat.JPEG
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return PhotoFormat.PNG
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return PhotoFormat.WEBP
    if data[4:8] == b"ftyp":
        box_size = int.from_bytes(data[:4], "big")
        brands = {data[8:12]}
        brands.update(data[i : i + 4] for i in range(16, min(box_size, len(data), 64), 4))
        if brands & _HEIF_BRANDS:
            return PhotoFormat.HEIF
    return None


def load_photo(
    source: str | os.PathLike | bytes,
    *,
    working_long_side_px: int = 2016,
    max_bytes: int = 40_000_000,
    max_pixels: int = 100_000_000,
) -> LoadedPhoto:
    """Decode a photo (file path or encoded bytes) into its working image.

    Raises :class:`UnreadableImage` (missing/empty/unknown/corrupt/truncated),
    :class:`ImageTooLarge` (over ``max_bytes`` or ``max_pixels``) or :class:`ImageTooSmall`
    (short side under :data:`MIN_SHORT_SIDE_PX`), each with a message meant for the user.
    """
    if working_long_side_px < MIN_SHORT_SIDE_PX:
        raise ValueError(f"working_long_side_px must be >= {MIN_SHORT_SIDE_PX}")
    data = _read_bytes(source, max_bytes)
    photo_format = sniff_format(data)
    if photo_format is None:
        raise UnreadableImage("not a JPEG, PNG, WebP or HEIC image")
    try:
        return _decode(data, photo_format, working_long_side_px, max_pixels)
    except PhotoError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"image has too many pixels ({exc})") from exc
    except MemoryError as exc:
        raise ImageTooLarge("image is too large to decode") from exc
    except Image.UnidentifiedImageError as exc:
        # Its message names the in-memory buffer, which means nothing to the user.
        raise UnreadableImage(f"corrupt or truncated {photo_format.value} image") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        # Pillow reports truncated/corrupt data as OSError (also SyntaxError/ValueError for
        # some broken headers); pillow-heif raises ValueError/RuntimeError subclasses of these.
        raise UnreadableImage(f"corrupt or truncated {photo_format.value} image ({exc})") from exc
    except RuntimeError as exc:
        raise UnreadableImage(f"cannot decode {photo_format.value} image ({exc})") from exc


def _read_bytes(source: str | os.PathLike | bytes, max_bytes: int) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    else:
        path = os.fspath(source)
        try:
            size = os.path.getsize(path)
            if size > max_bytes:
                raise ImageTooLarge(f"file is {size} bytes, more than the limit {max_bytes}")
            with open(path, "rb") as handle:
                data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise UnreadableImage(f"cannot read {path!r}: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise ImageTooLarge(f"image is {len(data)} bytes, more than the limit {max_bytes}")
    if not data:
        raise UnreadableImage("empty file (0 bytes)")
    return data


def _decode(
    data: bytes, photo_format: PhotoFormat, working_long_side_px: int, max_pixels: int
) -> LoadedPhoto:
    image = Image.open(io.BytesIO(data), formats=[photo_format.value])  # reads the header only
    stored_w, stored_h = image.size
    if stored_w * stored_h > max_pixels:
        raise ImageTooLarge(
            f"image is {stored_w}x{stored_h} px, more than the limit of {max_pixels} pixels"
        )
    orientation = _exif_orientation(image)
    swap = orientation in (5, 6, 7, 8)
    displayed_w, displayed_h = (stored_h, stored_w) if swap else (stored_w, stored_h)
    if min(displayed_w, displayed_h) < MIN_SHORT_SIDE_PX:
        raise ImageTooSmall(
            f"image is {displayed_w}x{displayed_h} px; the short side must be at least "
            f"{MIN_SHORT_SIDE_PX} px to read the coasters"
        )

    long_side = max(displayed_w, displayed_h)
    scale = min(1.0, working_long_side_px / long_side)
    working_w = max(1, round(displayed_w * scale))
    working_h = max(1, round(displayed_h * scale))
    if photo_format is PhotoFormat.JPEG and scale < 1.0:
        # The largest DCT reduction that keeps the long side near the working size; a little
        # under it (3000x4000 -> 1500x2000 for 2016) beats a full-size decode.
        reduction = next(
            (r for r in (8, 4, 2) if long_side / r >= DRAFT_MIN_FRACTION * working_long_side_px),
            1,
        )
        if reduction > 1:
            image.draft("RGB", (-(-stored_w // reduction), -(-stored_h // reduction)))
            drafted_w, drafted_h = (image.size[1], image.size[0]) if swap else image.size
            if max(drafted_w, drafted_h) <= working_long_side_px:
                working_w, working_h = drafted_w, drafted_h
    image.load()
    if orientation in _TRANSPOSE_FOR_ORIENTATION:
        image = image.transpose(_TRANSPOSE_FOR_ORIENTATION[orientation])
    rgb = _to_rgb_array(image)
    if rgb.shape[1] != working_w or rgb.shape[0] != working_h:
        rgb = cv2.resize(rgb, (working_w, working_h), interpolation=cv2.INTER_AREA)
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    return LoadedPhoto(
        image_bgr=bgr,
        displayed_size_px=(displayed_w, displayed_h),
        working_to_displayed=max(displayed_w, displayed_h) / max(working_w, working_h),
    )


def _exif_orientation(image: Image.Image) -> int:
    try:
        orientation = int(image.getexif().get(_EXIF_ORIENTATION_TAG, 1))
    except (OSError, ValueError, TypeError, SyntaxError):
        return 1  # an unreadable EXIF block is no reason to refuse the photo
    return orientation if 1 <= orientation <= 8 else 1


def _to_rgb_array(image: Image.Image) -> np.ndarray:
    """(H, W, 3) uint8 RGB from any Pillow mode (16-bit greyscale scaled, alpha dropped)."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        grey = np.asarray(image, dtype=np.float64)
        peak = 65535.0 if grey.max(initial=0) > 255 else 255.0
        grey8 = np.clip(grey * (255.0 / peak), 0, 255).astype(np.uint8)
        return np.repeat(grey8[:, :, None], 3, axis=2)
    if image.mode != "RGB":
        image = image.convert("RGB")
    return np.asarray(image, dtype=np.uint8)
