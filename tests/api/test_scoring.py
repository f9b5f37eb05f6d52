"""``POST /v1/beer-pretzels/score`` on a real server: devset photos against the library's
result and the ground truth, the annotated JPEG, and every kind of bad upload."""

from __future__ import annotations

import hashlib
import io
import struct
import threading
import time
import zlib
from pathlib import Path

import httpx
import pytest
from live_server import Server, assert_problem
from PIL import Image

from vision.pipeline import score_photo

#: Two devset photos (1600 x 1200 landscape, 1200 x 1600 portrait). The whole devset goes
#: through the API, against the library and the ground truth, in benchmarks/api_devset.py.
PHOTOS = ["0003", "0013"]


def _score(client: httpx.Client, name: str, data: bytes, **form: str) -> httpx.Response:
    return client.post("/v1/beer-pretzels/score", files={"photo": (name, data)}, data=form)


@pytest.mark.parametrize("stem", PHOTOS)
def test_devset_photo_scores_like_the_library(
    server: Server, client: httpx.Client, devset: Path, stem: str
):
    data = (devset / f"{stem}.jpg").read_bytes()
    # The claimed content type is wrong on purpose: the service sniffs the bytes.
    response = client.post(
        "/v1/beer-pretzels/score", files={"photo": (f"{stem}.jpg", data, "text/plain")}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    library = score_photo(data, name=f"{stem}.jpg").contract
    assert body["image"] == f"{stem}.jpg"
    assert body["game"] == "beer-and-pretzels"
    for key in ("scores", "players", "items", "boundary_px", "warnings"):
        assert body[key] == library[key], key

    again = client.get(f"/v1/beer-pretzels/scorings/{body['scoring_id']}")
    assert again.status_code == 200
    assert again.json()["scores"] == body["scores"]

    image = client.get(body["annotated_image_url"])
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/jpeg"
    assert Image.open(io.BytesIO(image.content)).format == "JPEG"

    original_url = f"/v1/beer-pretzels/scorings/{body['scoring_id']}/photo"
    assert client.get(original_url).content == data
    # A photo removed from the data folder by hand is a 404, not a crash.
    digest = hashlib.sha256(data).hexdigest()
    (server.data_dir / "photos" / digest[:2] / digest).unlink()
    assert_problem(client.get(original_url), 404, "file_missing")


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` px, with one tiny compressed row."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def _jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 190, 170)).save(out, "JPEG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "status", "code"),
    [
        ("notes.jpg", b"these are not the pixels you are looking for" * 20, 415, None),
        ("empty.jpg", b"", 422, "empty_upload"),
        ("bomb.png", _png_header_only(60_000, 60_000), 413, "image_too_large"),
        ("tiny.jpg", _jpeg(40, 30), 422, "image_too_small"),
    ],
    ids=["not-an-image", "empty", "decompression-bomb", "too-small"],
)
def test_bad_uploads_are_problems(
    client: httpx.Client, name: str, data: bytes, status: int, code: str | None
):
    assert_problem(_score(client, name, data), status, code)


def test_truncated_photo_is_unreadable(client: httpx.Client, devset: Path):
    data = (devset / "0003.jpg").read_bytes()
    assert_problem(_score(client, "cut.jpg", data[: len(data) // 3]), 422, "unreadable_image")


def test_a_table_without_the_game_is_refused(client: httpx.Client):
    response = _score(client, "plain.jpg", _jpeg(1600, 1200))
    body = assert_problem(response, 422)
    assert body["code"] in {"no_game_found", "unreadable_image"}


def test_content_is_sniffed_not_the_declared_type(client: httpx.Client, devset: Path):
    data = (devset / "0003.jpg").read_bytes()
    disguised = client.post(
        "/v1/beer-pretzels/score", files={"photo": ("table.jpg", b"MZ" + data[2:], "image/jpeg")}
    )
    assert_problem(disguised, 415, "unsupported_media_type")


def test_unknown_component_set_and_missing_photo(client: httpx.Client, devset: Path):
    data = (devset / "0003.jpg").read_bytes()
    assert_problem(_score(client, "a.jpg", data, components="deluxe"), 422, "unknown_components")
    assert_problem(client.post("/v1/beer-pretzels/score", data={"x": "1"}), 422, "validation_error")
    assert_problem(client.post("/v1/beer-pretzels/score", json={"photo": "x"}), 422)
    assert_problem(client.get("/v1/beer-pretzels/scorings/nope"), 404, "scoring_not_found")
    assert_problem(client.get("/v1/beer-pretzels/scorings/nope/annotated.jpg"), 404)


def test_streamed_body_over_the_limit_is_refused(server: Server):
    def chunks():
        yield b"--b\r\nContent-Disposition: form-data; name=photo; filename=a.jpg\r\n\r\n"
        for _ in range(30):
            yield b"\xff" * 1_000_000

    with server.client() as http:
        response = http.post(
            "/v1/beer-pretzels/score",
            content=chunks(),
            headers={"Content-Type": "multipart/form-data; boundary=b"},
        )
    assert_problem(response, 413, "request_too_large")


@pytest.fixture(scope="module")
def narrow_server(tmp_path_factory: pytest.TempPathFactory):
    """A server with one scoring slot and no queue."""
    running = Server(
        tmp_path_factory.mktemp("narrow"),
        {"TABLESCORE_MAX_CONCURRENT_SCORINGS": "1", "TABLESCORE_MAX_QUEUED_SCORINGS": "0"},
    )
    running.start()
    yield running
    running.stop()


def test_saturated_scorer_answers_503_with_retry_after(narrow_server: Server, devset: Path):
    data = (devset / "0003.jpg").read_bytes()
    first: list[httpx.Response] = []

    def upload() -> None:
        with narrow_server.client() as http:
            first.append(_score(http, "0003.jpg", data))

    with narrow_server.client() as http:
        assert http.get("/readyz").json()["scoring"] == {
            "admitted": 0,
            "capacity": 1,
            "concurrent": 1,
        }
        busy_thread = threading.Thread(target=upload)
        busy_thread.start()
        deadline = time.monotonic() + 30
        while http.get("/readyz").json()["scoring"]["admitted"] == 0:
            assert time.monotonic() < deadline and busy_thread.is_alive()
            time.sleep(0.05)
        refused = _score(http, "0003.jpg", data)
        busy_thread.join()
        body = assert_problem(refused, 503, "scoring_busy")
        assert "retry" in body["detail"]
        assert int(refused.headers["retry-after"]) > 0
        assert first[0].status_code == 200, first[0].text
        assert http.get("/readyz").json()["scoring"]["admitted"] == 0
