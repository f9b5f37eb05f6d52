"""Which files of a folder the batch treats as photos."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.batch.discovery import discover_photos, is_photo_file

JPEG_HEAD = b"\xff\xd8\xff\xe0" + b"\x00" * 60
PNG_HEAD = b"\x89PNG\r\n\x1a\n" + b"\x00" * 56


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("photo.jpg", JPEG_HEAD, True),
        ("PHOTO.JPEG", b"not really", True),  # a broken .jpeg is an error to report, not skipped
        ("photo.heic", b"", True),
        ("no_extension", PNG_HEAD, True),  # sniffed by content
        ("image.dat", JPEG_HEAD, True),
        ("notes.txt", b"hello", False),
        ("empty", b"", False),
    ],
)
def test_is_photo_file(tmp_path: Path, name: str, content: bytes, expected: bool) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert is_photo_file(path) is expected


def test_discover_sorted_relative_names_skips_hidden_and_excluded(tmp_path: Path) -> None:
    (tmp_path / "b.jpg").write_bytes(JPEG_HEAD)
    (tmp_path / "a.png").write_bytes(PNG_HEAD)
    (tmp_path / ".hidden.jpg").write_bytes(JPEG_HEAD)
    (tmp_path / "results.jsonl").write_text("{}\n")
    (tmp_path / "readme.txt").write_text("x")
    (tmp_path / "round2").mkdir()
    (tmp_path / "round2" / "c.jpg").write_bytes(JPEG_HEAD)
    (tmp_path / "annotated").mkdir()
    (tmp_path / "annotated" / "a.jpg").write_bytes(JPEG_HEAD)

    flat = discover_photos(tmp_path, exclude=(tmp_path / "results.jsonl",))
    assert [name for name, _ in flat.photos] == ["a.png", "b.jpg"]
    assert flat.not_photos == ["readme.txt"]
    assert all(path.is_absolute() and path.is_file() for _, path in flat.photos)

    deep = discover_photos(tmp_path, recursive=True, exclude=(tmp_path / "annotated",))
    assert [name for name, _ in deep.photos] == ["a.png", "b.jpg", "round2/c.jpg"]


def test_discover_rejects_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(JPEG_HEAD)
    with pytest.raises(NotADirectoryError):
        discover_photos(tmp_path / "a.jpg")
