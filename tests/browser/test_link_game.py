"""A whole linked game by taps in Debian's Chromium: two `gryb-companion run --sim` processes and a real
Mosquitto. Alba's page chooses 25 Men's GRYB with four men each and links it; Bran's page joins with the
code; each player taps their moves on their own page, the LEDs showing the stones (`run --sim`'s
``stones = "leds"``: nothing to carry out on a cloth), until Alba's GRYB takes a man of Bran's and Bran
is down to three. Then a whole Multiverse game the same way, each page showing its own player's board."""

import random
import time

import pytest
from link.broker import Broker
from link.processes import Process

from browser.test_play import after, marked, until

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


def linked_pages(browser, boards, game: str, options: dict, problems: list) -> dict:
    """Each board's page paired; Alba's chooses ``game`` with ``options`` on the Games page and links it,
    Bran's joins with the code; both pages back on the board once the game has begun on both."""
    pages = {}
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
    a.locator("label.gamecard", has=a.locator(f"input[value='{game}']")).click()
    form = a.locator(f"form[data-game='{game}']")
    for name, value in options.items():
        form.locator(f"input[name='opt-{name}']").fill(str(value))
    form.locator("button[type='submit']").click()
    a.wait_for_url(alba.url + "/")
    a.goto(alba.url + "/link")
    for name, value in options.items():
        until(
            a, f"document.querySelector('#options').textContent.includes('{name.replace('_', ' ')} {value}')"
        )
    assert a.locator("#host [name=game]").input_value() == game
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
    settings = bran.get("/api/state")["game"]["settings"]
    assert settings | options == settings
    return pages


def test_two_boards_play_a_whole_game_by_taps_on_their_pages(browser, boards, artifacts):
    problems = []
    pages = linked_pages(browser, boards, "25-mens-gryb", {"stones": 4}, problems)
    alba, bran = boards
    b = pages["bran"]
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


def presses(action: str) -> list[str]:
    """The nodes to tap for a Multiverse action: a ring placed (``GR``), moved (``G-GR``), or the
    conduit marker moved (``conduit:R``)."""
    return action.removeprefix("conduit:").split("-")


def test_two_boards_play_a_whole_multiverse_game_by_taps_each_showing_its_own_board(
    browser, boards, artifacts
):
    """Multiverse made short (a board of depth 2, two rings each, three turns each without a capture end
    it): the rolls are the boards' commit-reveal, each player taps the die's node or a move on their own
    page, and each page shows its own player's board, whoever is to move (docs/linking.md)."""
    problems = []
    pages = linked_pages(browser, boards, "multiverse", {"depth": 2, "rings": 2, "stall": 3}, problems)
    alba, bran = boards
    seats, rng, taps, looked = {"alba": 0, "bran": 1}, random.Random(47), 0, set()
    deadline = time.monotonic() + 40
    while True:
        states = {board.name: board.get("/api/state") for board in boards}
        if all(s["state"]["over"] for s in states.values()):
            break
        assert time.monotonic() < deadline, {n: (s["state"], s["table"]) for n, s in states.items()}
        tapped = False
        for board in boards:
            state, page, me = states[board.name], pages[board.name], seats[board.name]
            game = state["state"]
            assert game["shown_board"] == me and not state["table"]["chores"]  # the LEDs are the rings
            looked.add((board.name, game["to_move"]))
            if game["over"] or game["awaiting_roll"] or game["to_move"] != me:
                continue
            legal = [a for a in board.get("/api/legal")["legal"] if a != "roll"]
            stones = game["stones"]  # on this player's board: an opponent's ring where it shares the space
            takes = [a for a in legal if "-" in a and stones.get(a.split("-")[1], {}).get("player", me) != me]
            for node in presses((takes or legal)[rng.randrange(len(takes or legal))]):
                tap(page, node)
                taps += 1
            tapped = True
        if not tapped:
            time.sleep(0.02)  # the roll or the move is on its way through the broker

    end_a, end_b = (board.get("/api/state") for board in boards)
    assert end_a["state"]["boards"] == end_b["state"]["boards"]
    assert end_a["state"]["winners"] == end_b["state"]["winners"] and end_a["ply"] == end_b["ply"]
    assert end_a["state"]["winners"] or end_a["state"]["draw"] == "3 turns each without a capture"
    assert (end_a["state"]["shown_board"], end_b["state"]["shown_board"]) == (0, 1)
    assert looked >= {("alba", 1), ("bran", 0)} and taps >= 4  # each shows its own board on the other's turn
    for board, end in ((alba, end_a), (bran, end_b)):
        page = pages[board.name]
        until(page, f"document.body.dataset.version >= {end['version']}")
        alone = sorted(n for n, stone in end["state"]["stones"].items() if "players" not in stone)
        assert marked(page, ".stone") == alone, board.name
    assert alba.get("/api/link")["refused"] == bran.get("/api/link")["refused"] == 0
    pages["bran"].screenshot(path=artifacts / "web-link-multiverse.png", full_page=True)
    assert not problems, problems
