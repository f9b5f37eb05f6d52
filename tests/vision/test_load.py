"""Tests for vision.load: formats, EXIF orientation, guards and clear errors."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageTooLarge, ImageTooSmall, UnreadableImage
from vision.load import MIN_SHORT_SIDE_PX, PhotoFormat, load_photo, sniff_format


def _test_card(width: int = 640, height: int = 480) -> np.ndarray:
    """RGB image with a red block at the top-left corner and a smooth gradient elsewhere."""
    ys, xs = np.mgrid[0:height, 0:width]
    rgb = np.stack([xs * 255 // width, ys * 255 // height, np.full_like(xs, 90)], axis=2)
    rgb = rgb.astype(np.uint8)
    rgb[: height // 8, : width // 8] = (255, 0, 0)
    return rgb


def _encode(rgb: np.ndarray, fmt: str, **save_kwargs) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format=fmt, **save_kwargs)
    return buffer.getvalue()


def _red_centroid(bgr: np.ndarray) -> np.ndarray:
    """(x, y) centroid of strongly red pixels, px."""
    red = (bgr[:, :, 2] > 200) & (bgr[:, :, 1] < 60) & (bgr[:, :, 0] < 60)
    ys, xs = np.nonzero(red)
    return np.array([xs.mean(), ys.mean()])


@pytest.mark.parametrize(
    ("fmt", "save_kwargs", "tolerance"),
    [
        ("JPEG", {"quality": 92}, 6),
        ("PNG", {}, 0),
        ("WEBP", {"lossless": True}, 0),
        ("HEIF", {"quality": 95}, 12),
    ],
)
def test_each_format_decodes_to_bgr(fmt: str, save_kwargs: dict, tolerance: int) -> None:
    rgb = _test_card(400, 320)
    photo = load_photo(_encode(rgb, fmt, **save_kwargs))
    assert photo.image_bgr.shape == (320, 400, 3)
    assert photo.image_bgr.dtype == np.uint8
    assert photo.displayed_size_px == (400, 320)
    assert photo.working_to_displayed == 1.0
    diff = np.abs(photo.image_bgr[:, :, ::-1].astype(int) - rgb.astype(int))
    assert np.median(diff) <= tolerance
    # BGR order: the red block is in channel 2.
    assert photo.image_bgr[10, 10, 2] > 200 and photo.image_bgr[10, 10, 0] < 60


def test_format_is_sniffed_not_taken_from_the_extension(tmp_path: Path) -> None:
    path = tmp_path / "photo.heic"  # really a PNG
    path.write_bytes(_encode(_test_card(), "PNG"))
    assert load_photo(path).image_bgr.shape == (480, 640, 3)
    assert load_photo(str(path)).displayed_size_px == (640, 480)


@pytest.mark.parametrize(
    ("orientation", "expected_size", "expected_red_corner"),
    [
        (1, (640, 480), "top_left"),
        (3, (640, 480), "bottom_right"),
        (6, (480, 640), "top_right"),
        (8, (480, 640), "bottom_left"),
    ],
)
def test_exif_orientation_is_applied(
    orientation: int, expected_size: tuple[int, int], expected_red_corner: str
) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _encode(_test_card(), "JPEG", quality=92, exif=exif.tobytes())
    photo = load_photo(data)
    width, height = expected_size
    assert photo.displayed_size_px == expected_size
    assert photo.image_bgr.shape == (height, width, 3)
    cx, cy = _red_centroid(photo.image_bgr)
    horizontal = "left" if cx < width / 2 else "right"
    vertical = "top" if cy < height / 2 else "bottom"
    assert f"{vertical}_{horizontal}" == expected_red_corner


def test_heic_orientation_is_applied_once() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    photo = load_photo(_encode(_test_card(400, 320), "HEIF", quality=95, exif=exif.tobytes()))
    assert photo.displayed_size_px == (320, 400)
    cx, cy = _red_centroid(photo.image_bgr)
    assert cx > 160 and cy < 200  # top-left corner turned to the top-right


def test_large_jpeg_is_reduced_to_the_working_size() -> None:
    data = _encode(_test_card(2400, 1800), "JPEG", quality=90)
    photo = load_photo(data, working_long_side_px=600)
    assert photo.image_bgr.shape == (450, 600, 3)
    assert photo.displayed_size_px == (2400, 1800)
    assert photo.working_to_displayed == pytest.approx(4.0)
    cx, cy = _red_centroid(photo.image_bgr)
    # The red block covers the top-left 300x225 displayed px: 75x56 working px.
    assert cx == pytest.approx(37.5, abs=2) and cy == pytest.approx(28, abs=2)


def test_pixel_conversion_matches_the_block_average() -> None:
    # One bright displayed pixel at (101, 60) in a 2x reduced PNG: its working pixel is
    # (50, 30), whose centre is the middle of displayed pixels 100-101 and 60-61.
    rgb = np.zeros((700, 1000, 3), np.uint8)
    rgb[60:62, 100:102] = 255
    photo = load_photo(_encode(rgb, "PNG"), working_long_side_px=500)
    assert photo.working_to_displayed == pytest.approx(2.0)
    ys, xs = np.nonzero(photo.image_bgr[:, :, 0] > 200)
    assert (xs.tolist(), ys.tolist()) == ([50], [30])
    displayed = photo.to_displayed_px(np.array([[50.0, 30.0]]))
    assert displayed.tolist() == [[100.5, 60.5]]
    assert photo.to_working_px(displayed).tolist() == [[50.0, 30.0]]


def test_jpeg_reduction_a_little_under_the_working_size_is_kept() -> None:
    data = _encode(_test_card(1000, 750), "JPEG", quality=90)
    photo = load_photo(data, working_long_side_px=520)  # 1/2 gives 500 px: close enough
    assert photo.image_bgr.shape == (375, 500, 3)
    assert photo.working_to_displayed == pytest.approx(2.0)


def test_large_png_is_resized_with_exact_scale() -> None:
    data = _encode(_test_card(1500, 1000), "PNG")
    photo = load_photo(data, working_long_side_px=600)
    assert photo.image_bgr.shape == (400, 600, 3)
    assert photo.working_to_displayed == pytest.approx(2.5)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG signature and IHDR claiming ``width`` x ``height`` with one tiny IDAT."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _truncated_jpeg() -> bytes:
    data = _encode(_test_card(), "JPEG", quality=92)
    return data[: len(data) // 2]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", UnreadableImage),
        (np.random.default_rng(4).bytes(5000), UnreadableImage),
        (b"GIF89a" + bytes(200), UnreadableImage),
        (_truncated_jpeg(), UnreadableImage),
        (_encode(_test_card(), "PNG")[:300], UnreadableImage),
        (_png_header_only(50_000, 50_000), ImageTooLarge),  # 2.5 GP bomb
        (_png_header_only(12_000, 10_000), ImageTooLarge),  # 120 MP > 100 MP limit
        (_encode(_test_card(200, 150), "PNG"), ImageTooSmall),
        (_encode(_test_card(1000, MIN_SHORT_SIDE_PX - 1), "JPEG"), ImageTooSmall),
    ],
    ids=[
        "zero_bytes",
        "random_bytes",
        "gif",
        "truncated_jpeg",
        "truncated_png",
        "png_bomb",
        "png_over_limit",
        "tiny",
        "short_side_319",
    ],
)
def test_bad_input_gives_a_clear_error(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        load_photo(data)
    assert info.value.message


def test_too_many_bytes(tmp_path: Path) -> None:
    data = _encode(_test_card(), "PNG")
    with pytest.raises(ImageTooLarge):
        load_photo(data, max_bytes=len(data) - 1)
    path = tmp_path / "big.png"
    path.write_bytes(data)
    with pytest.raises(ImageTooLarge):
        load_photo(path, max_bytes=len(data) - 1)


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(UnreadableImage):
        load_photo(tmp_path / "nope.jpg")


def test_sniff_format() -> None:
    assert sniff_format(_encode(_test_card(), "JPEG")) is PhotoFormat.JPEG
    assert sniff_format(_encode(_test_card(), "PNG")) is PhotoFormat.PNG
    assert sniff_format(_encode(_test_card(), "WEBP")) is PhotoFormat.WEBP
    assert sniff_format(_encode(_test_card(64, 64), "HEIF")) is PhotoFormat.HEIF
    assert sniff_format(b"hello world") is None


DEVSET = Path("/work/shared/devset")


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared devset not available")
def test_devset_photo_with_exif_rotation_matches_ground_truth_size() -> None:
    import json

    index = json.loads((DEVSET / "index.json").read_text())
    entries = index if isinstance(index, list) else index.get("photos", [])
    for entry in entries:
        name = entry["image"] if isinstance(entry, dict) else entry
        truth = json.loads((DEVSET / name).with_suffix(".json").read_text())
        if truth.get("exif_orientation", 1) != 1:
            photo = load_photo(DEVSET / name)
            assert photo.displayed_size_px == (truth["width"], truth["height"])
            assert max(photo.image_bgr.shape[:2]) <= 2016
            return
    pytest.skip("no EXIF-rotated photo in the devset")
