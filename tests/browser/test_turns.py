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
    assert shown(page, "#message") == "Ann: B"  # said once, in its own line
    after(page, lambda: page.locator('#board circle.n[data-n="GG"]').click())
    until(page, f"!document.getElementById('owed').textContent.includes({owed!r})")
    assert rt.snapshot()["state"]["to_move"] == 1
    after(page, lambda: page.locator("#undo").click())
    until(page, f"document.getElementById('owed').textContent === {owed!r}")
    assert shown(page, "#owed") == owed
