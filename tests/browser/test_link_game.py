"""A whole linked game by taps in Debian's Chromium: two `gryb-companion run --sim` processes and a real
Mosquitto. Alba's page chooses 25 Men's GRYB with four men each and links it; Bran's page joins with the
code; each player taps their moves on their own page, the LEDs showing the stones (`run --sim`'s
``stones = "leds"``: nothing to carry out on a cloth), until Alba's GRYB takes a man of Bran's and Bran
is down to three."""

import time

import pytest
from link.broker import Broker
from link.processes import Process

from browser.test_play import after, until

pytestmark = pytest.mark.slow

# Alba fills the G corner's bottom quadrangle (a GRYB of level 4) and then takes Bran's man on BBBB.
PLAN = {"alba": ["GGGG", "GGGR", "GGGY", "GGGB", "BBBB"], "bran": ["BBBB", "BBBR", "BBBY"]}


@pytest.fixture
def boards(tmp_path):
    broker = Broker(tmp_path)
    broker.start()
    made = []
    try:
        for name in ("alba", "bran"):
            made.append(Process(name, tmp_path / name, broker.url))
        yield made
    finally:
        for board in made:
            board.stop()
        broker.stop()


def pair_here(page) -> None:
    """Pair the simulator's own page: it is the board, so its sheet shows the code to type."""
    page.locator("#watching [data-pair]").click()
    until(page, "document.querySelector('#pair-shown .codeview').textContent.length === 4")
    for colour in page.locator("#pair-shown .codeview").text_content():
        page.locator(f"#pair-panel .key[data-c='{colour}']").click()
    page.wait_for_selector("#pair-open[data-paired='yes']", timeout=15000)


def tap(page, node: str) -> None:
    after(page, lambda: page.locator(f"#board circle.n[data-n='{node}']").click())


def test_two_boards_play_a_whole_game_by_taps_on_their_pages(browser, boards, artifacts):
    pages, problems = {}, []
    for board in boards:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(board.url + "/")
        pair_here(page)
        pages[board.name] = page
    alba, bran = boards
    a, b = pages["alba"], pages["bran"]

    a.goto(alba.url + "/games")
    a.locator("label.gamecard", has=a.locator("input[value='25-mens-gryb']")).click()
    form = a.locator("form[data-game='25-mens-gryb']")
    form.locator("input[name='opt-stones']").fill("4")
    form.locator("button[type='submit']").click()
    a.wait_for_url(alba.url + "/")
    a.goto(alba.url + "/link")
    until(a, "document.querySelector('#options').textContent.includes('stones 4')")
    assert a.locator("#host [name=game]").input_value() == "25-mens-gryb"
    a.click("#host button[type=submit]")
    until(a, "document.querySelector('#code').textContent.startsWith('Match code: ')")
    code = a.locator("#code").text_content().removeprefix("Match code: ")
    b.goto(bran.url + "/link")
    b.fill("#join [name=match_code]", code)
    b.click("#join button[type=submit]")
    for board in boards:
        deadline = time.monotonic() + 15
        while not board.get("/api/state")["link"]:
            assert time.monotonic() < deadline, f"the game did not begin on {board.name}"
            time.sleep(0.05)
    for board in boards:
        pages[board.name].goto(board.url + "/")
        until(pages[board.name], "document.body.dataset.version > 0")
    assert bran.get("/api/state")["game"]["settings"]["stones"] == 4
    assert all(board.get("/api/state")["settings"]["stones"] == "leds" for board in boards)

    plan = {name: list(nodes) for name, nodes in PLAN.items()}
    chores = 0
    deadline = time.monotonic() + 40
    while True:
        states = {board.name: board.get("/api/state") for board in boards}
        if all(s["state"]["over"] and not s["table"]["chores"] for s in states.values()):
            break
        assert time.monotonic() < deadline, (plan, {n: s["table"] for n, s in states.items()})
        tapped = False
        for board in boards:
            state, page = states[board.name], pages[board.name]
            game = state["state"]
            if state["table"]["chores"]:  # stones on a cloth: none while the LEDs are the stones
                tap(page, state["table"]["chores"][0]["node"])
                tapped, chores = True, chores + 1
            elif not game["over"] and state["link"]["seats"][game["to_move"]] == board.name:
                tap(page, plan[board.name].pop(0))
                tapped = True
        if not tapped:
            time.sleep(0.02)  # the move is on its way through the broker

    end_a, end_b = (board.get("/api/state") for board in boards)
    assert end_a["state"] == end_b["state"] and end_a["state"]["winners"] == [0]
    assert plan == {"alba": [], "bran": []} and "BBBB" not in end_b["state"]["stones"] and chores == 0
    assert alba.get("/api/link")["refused"] == bran.get("/api/link")["refused"] == 0
    b.screenshot(path=artifacts / "web-link-game.png", full_page=True)
    assert not problems, problems
