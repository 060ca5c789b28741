"""The Link boards page in Debian's Chromium: two companions on the simulator (as `run --sim` wires them)
and a real Mosquitto; one page opens a match and shows its code, the other enters it, both show the
match with both boards up and their round-trip times, and the game begins on both."""

from dataclasses import replace

import pytest
from link.broker import Broker

from browser.test_play import pair, until
from companion.assembly import Companion
from companion.service import config as config_mod


@pytest.fixture
def two(tmp_path):
    broker = Broker(tmp_path)
    broker.start()
    made = []
    for name in ("alba", "bran"):
        config = config_mod.load(None, sim=True)
        config = replace(
            config,
            state=replace(config.state, dir=str(tmp_path / name)),
            link=replace(config.link, url=broker.url, board=name),
        )
        companion = Companion(config, sim=True, port=0)
        companion.start()
        made.append(companion)
    yield made
    for companion in made:
        companion.stop()
    broker.stop()


def test_one_page_shows_a_match_code_and_the_other_joins_with_it(browser, two, artifacts):
    pages, problems = [], []
    for companion in two:
        page = browser.new_context().new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(companion.url + "/")
        pair(page, companion.runtime)
        page.goto(companion.url + "/settings")
        page.click("a[href='/link']")
        page.wait_for_load_state("networkidle")
        pages.append(page)
    a, b = pages
    a.fill("#host [name=game]", "25-mens-gryb")
    a.click("#host button[type=submit]")
    until(a, "document.querySelector('#code').textContent.startsWith('Match code: ')")
    code = a.locator("#code").text_content().removeprefix("Match code: ")
    b.fill("#join [name=match_code]", code.lower())
    b.click("#join button[type=submit]")
    for page in (a, b):
        until(
            page,
            "[...document.querySelectorAll('#match tbody tr')].filter(r => r.cells[2].textContent === 'up'"
            " && (r.cells[0].textContent.includes('this board') || r.cells[3].textContent.endsWith('ms')))"
            ".length === 2",
        )
    rows = a.evaluate("[...document.querySelectorAll('#match tbody tr')].map(r => r.cells[1].textContent)")
    assert rows == ["Player 1", "Player 2"]
    a.screenshot(path=artifacts / "web-link.png", full_page=True)
    for companion in two:
        state = companion.runtime.snapshot()
        assert state["game"]["id"] == "25-mens-gryb" and state["link"]["seats"] == ["alba", "bran"]
    assert not problems, problems
