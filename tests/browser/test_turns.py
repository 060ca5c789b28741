"""Issue 46 on a phone (360x740): what a player owes is said, and no game is lost by a tap."""

import pytest

from companion.service import commands as c
from tests.browser.test_play import after, paired_page, until

pytestmark = pytest.mark.slow


def shown(page, selector: str) -> str:
    """The element's text while it shows, else ''."""
    return page.evaluate(
        f"(() => {{ const e = document.querySelector({selector!r}); "
        "return e && !e.hidden && e.offsetParent !== null ? e.textContent : ''; })()"
    )


def test_a_removal_owed_after_a_gryb_is_said_on_the_page_and_again_after_undo(browser, site):
    rt = site.runtime
    rt.call(c.NewGame("25-mens-gryb", 2, {"depth": 3, "stones": 5}, ["Ann", "Bo"]))
    for node in "G GG R RR Y YY B".split():
        assert rt.call(c.Press(node)).ok
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    owed = "Ann made a GRYB: remove one of Bo's men"
    assert shown(page, "#owed") == owed
    assert shown(page, "#message") == "Ann placed a man on B"  # the owed part said once, in its own line
    # Played win or lose: the GRYB without points; no die, so no word of ROLL; OK would only refuse.
    assert page.locator("#grybs").inner_text().strip() == "G R Y B"
    assert page.locator("#die-note").is_hidden() and "idle" in page.locator("#ok").get_attribute("class")
    # The empty head node is not white like Player 1's stone; the checkboxes all one size.
    fill = "getComputedStyle(document.querySelector('#board circle.n[data-n=\"0\"]')).fill"
    assert page.evaluate(fill) not in ("rgb(255, 255, 255)", "rgb(232, 232, 232)")
    sizes = page.evaluate("[...document.querySelectorAll('.numbers-line input')].map((b) => b.offsetWidth)")
    assert len(sizes) == 3 and len(set(sizes)) == 1, sizes
    after(page, lambda: page.locator('#board circle.n[data-n="GG"]').click())
    until(page, f"!document.getElementById('owed').textContent.includes({owed!r})")
    assert rt.snapshot()["state"]["to_move"] == 1
    after(page, lambda: page.locator("#undo").click())
    until(page, f"document.getElementById('owed').textContent === {owed!r}")
    assert shown(page, "#owed") == owed


def test_a_new_game_asks_before_abandoning_the_one_under_way_which_scores_keeps(browser, site):
    rt = site.runtime
    first = rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"]))["game_id"]
    for node in ["0", "0", "G"]:
        assert rt.call(c.Press(node)).ok
    page = paired_page(browser, site, "/games")
    page.locator('.gamecard input[value="25-mens-gryb"]').check()  # a yes/no option in line with its name
    apart = page.locator("label.field:has(input[name='opt-headless'])").evaluate(
        "(l) => { const r = document.createRange(); r.selectNodeContents(l.firstChild); "
        "const mid = (b) => b.top + b.height / 2; "
        "const box = l.querySelector('input').getBoundingClientRect(); "
        "return Math.abs(mid(r.getBoundingClientRect()) - mid(box)); }"
    )  # measured at one moment: the page scrolls to the form smoothly
    assert apart < 6, apart
    page.locator('.gamecard input[value="ez-gryb"]').check()
    start = page.locator("form.newgame button[type=submit]")
    assert start.inner_text() == "Start EZ GRYB"  # the space display:inline-flex lost
    start.click()
    until(page, "!document.querySelector('.confirm').hidden")
    says = page.locator("#confirm-says").inner_text()
    assert says.startswith("'Drangles is under way") and "marked abandoned" in says, says
    assert rt.snapshot()["game_id"] == first  # asked, nothing changed
    page.locator("[data-abandon]").click()
    page.wait_for_url(site.url + "/")
    assert rt.snapshot()["game"]["id"] == "ez-gryb" and rt.snapshot()["game_id"] != first
    page.goto(site.url + "/history")
    row = page.locator(f'a.rowlink[href="/history/{first}"]')
    assert "abandoned" in row.inner_text() and "'Drangles" in row.inner_text()
    row.click()
    page.wait_for_url(f"{site.url}/history/{first}")
    assert "abandoned" in page.locator("main").inner_text()
