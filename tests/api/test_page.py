"""The phone web page in a real headless Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright): start a game, photograph a round, see each player's money and the scoreboard."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import Server

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PLAYERS = [("Grete", "gray"), ("Rolf", "red"), ("Gina", "green")]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def phone(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def _money(page, selector: str) -> dict[str, str]:
    rows = page.locator(selector)
    return {
        rows.nth(i).get_attribute("data-color"): rows.nth(i).locator(".amount").inner_text()
        for i in range(rows.count())
    }


def test_page_plays_a_round_from_a_photo(server: Server, phone, devset: Path) -> None:
    photo = devset / "0014.jpg"
    truth = json.loads(photo.with_suffix(".json").read_text())["scores"]
    phone.goto(server.base_url + "/")
    rows = phone.locator("#player-list li")
    playwright_api.expect(rows).to_have_count(3, timeout=60_000)  # the script fills the list
    for i, (name, color) in enumerate(PLAYERS):
        rows.nth(i).locator("input").fill(name)
        rows.nth(i).locator("select").select_option(color)
    phone.click("#start-game")
    phone.wait_for_selector("#game:not([hidden])")
    assert phone.inner_text("#next-round") == "Round 1: Grete tosses first."
    assert phone.get_attribute("#round-photo", "capture") == "environment"

    phone.set_input_files("#round-photo", str(photo))
    phone.wait_for_selector("#result:not([hidden]) #result-money li")
    shown = _money(phone, "#result-money li")
    assert shown == {color: f"${truth[color]}" for _, color in PLAYERS}
    phone.wait_for_function(
        "document.getElementById('result-image').naturalWidth > 0", timeout=30_000
    )
    assert phone.inner_text("#next-round") == "Round 2: Rolf tosses first."
    for _, color in PLAYERS:
        total = phone.locator(f"#scoreboard tr[data-color={color}] td.total").inner_text()
        assert total == f"${truth[color]}"

    # The scoreboard is kept by the server: a reload of the game's URL shows it again.
    phone.reload()
    phone.wait_for_selector("#scoreboard tr[data-color=gray]")
    playwright_api.expect(phone.locator("#round-list li")).to_have_count(1, timeout=60_000)


def test_page_shows_the_problem_of_a_bad_photo(server: Server, phone, tmp_path: Path) -> None:
    not_a_photo = tmp_path / "notes.jpg"
    not_a_photo.write_text("shopping list: pretzels, beer")
    phone.goto(server.base_url + "/")
    phone.set_input_files("#quick-photo", str(not_a_photo))
    phone.wait_for_selector("#message:not([hidden])")
    assert "not a JPEG, PNG, WebP or HEIC image" in phone.inner_text("#message")


def test_page_asks_once_for_the_api_key_of_a_closed_service(locked_server: Server, phone) -> None:
    asked: list[str] = []

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept("s3cret-key")

    phone.on("dialog", answer)
    phone.goto(locked_server.base_url + "/")
    phone.wait_for_selector("#player-list li select option", state="attached")
    rows = phone.locator("#player-list li")
    for i, name in enumerate(["Ann", "Bob", "Cid"]):
        rows.nth(i).locator("input").fill(name)
    phone.click("#start-game")
    phone.wait_for_selector("#game:not([hidden])")
    assert phone.inner_text("#next-round") == "Round 1: Ann tosses first."
    assert len(asked) == 1 and "API key" in asked[0]


def test_api_docs_render_without_the_internet(server: Server, browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith(server.base_url) else outside.append(request.url)
        ),
    )
    page.goto(server.base_url + "/docs")
    page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
    assert "tablescore" in page.inner_text(".swagger-ui .info .title")
    assert page.locator(".opblock").count() > 10  # every operation is listed
    context.close()
    assert outside == []
