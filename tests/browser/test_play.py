"""The whole page in a real browser, on the simulator: pair, choose EZ GRYB, play to a GRYB with taps that
go through the emulated Pico, undo, reload, screenshots; a computer seat; the live feed over a dropped
connection."""

import json
import os
import random
import shutil
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from companion.games import catalogue as catalogue_mod
from companion.games.catalogue import find
from companion.games.die import Die
from companion.rules import node as nd
from companion.service import commands as c
from companion.session.hands import _presses, said

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
PHONE = {"width": 360, "height": 740}
NARROW = {"width": 320, "height": 640}  # the narrowest phones: an iPhone SE with Display Zoom, small Androids
LAPTOP = {"width": 1280, "height": 800}


def version(page) -> int:
    return int(page.evaluate("document.body.dataset.version || 0"))


def until(page, expression: str, timeout: float = 15.0):
    """Poll a page expression from Python (wait_for_function needs 'unsafe-eval', which our CSP refuses)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.02)


def after(page, action):
    """Do something and wait until the page has drawn a newer snapshot."""
    v = version(page)
    action()
    until(page, f"(+document.body.dataset.version || 0) > {v}")


def marked(page, selector: str) -> list[str]:
    """The nodes (by name, sorted) of the board's marks that match ``selector``: a mark is a circle centred
    on its node."""
    return sorted(
        page.evaluate(f"""(() => {{
        const at = {{}};
        document.querySelectorAll('#board circle.n').forEach((n) => {{
            at[+n.getAttribute('cx') + ',' + +n.getAttribute('cy')] = n.dataset.n; }});
        return [...document.querySelectorAll('#board .marks {selector}')]
            .map((m) => at[+m.getAttribute('cx') + ',' + +m.getAttribute('cy')]); }})()""")
    )


def pair(page, runtime):
    page.locator("#watching [data-pair]").click()
    # On the laptop's simulator the page is the board: the pairing sheet shows the code as well. An
    # earlier, abandoned start (a tap on ROLL while watching) may answer late; its code must not show.
    until(
        page,
        "!document.querySelector('#pair-shown').hidden && "
        "document.querySelector('#pair-shown .codeview').textContent.length === 4",
    )
    code = page.locator("#pair-shown .codeview").text_content()
    assert code == "".join(runtime.board.effects.code)  # the code the board shows: the test sits at the table
    assert page.locator("#pair-shown").is_visible()
    for colour in code:
        page.locator(f"#pair-panel .key[data-c='{colour}']").click()
    page.wait_for_selector("#pair-open[data-paired='yes']", timeout=15000)
    page.wait_for_selector("#pair-panel", state="hidden", timeout=15000)


@pytest.mark.die("GGRGYGBG")  # Ann enters G, R, Y, B; Bo's rolls of G find nothing to do
@pytest.mark.cloth
def test_pair_choose_play_to_a_gryb_undo_and_reload(browser, site, artifacts):
    runtime, url = site.runtime, site.url
    errors = []
    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = phone.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(url + "/")
    until(page, "document.body.dataset.version > 0")
    assert time.perf_counter() - t0 < 3
    assert page.locator("#pair-open").inner_text() == "Pair"

    # Watching only: a tap on ROLL asks for pairing instead of rolling.
    page.locator("#roll").click()
    assert page.locator("#pair-panel").is_visible()
    page.locator("#pair-close").click()
    assert runtime.snapshot()["state"]["die"] is None
    pair(page, runtime)

    page.goto(url + "/games")
    page.locator("label.gamecard", has=page.locator("input[value='pyragryb']")).click()
    page.locator("label.gamecard", has=page.locator("input[value='ez-gryb']")).click()
    form = page.locator("form[data-game='ez-gryb']")
    # The chosen game's form opens under its card (not below the whole list), and only that one.
    assert form.evaluate("f => f.previousElementSibling.querySelector('input').value") == "ez-gryb"
    assert page.locator("form.newgame:not([hidden])").count() == 1
    until(
        page,
        "(() => { const r = document.querySelector(\"label.gamecard:has(input[value='ez-gryb'])\")"
        ".getBoundingClientRect(); return r.top >= 60 && r.top < 200; })()",
    )
    form.locator("input[name='name0']").fill("Ann")
    form.locator("input[name='name1']").fill("Bo")
    levels = form.locator("select[name='kind1'] option").evaluate_all("os => os.map(o => o.value)")
    assert levels == ["human", "easy", "medium", "hard"]  # a seat may be the computer at a level
    page.screenshot(path=artifacts / "web-games-phone.png", full_page=True)
    form.locator("button[type='submit']").click()
    page.wait_for_url(url + "/")
    until(page, "document.getElementById('turn-name').textContent.includes('Ann')")
    assert runtime.snapshot()["table"]["names"] == ["Ann", "Bo"]

    for colour in "GRYB":
        after(page, lambda: page.locator("#roll").click())
        assert page.locator("#die").inner_text() == colour
        after(page, lambda colour=colour: page.locator(f"#board circle.n[data-n='{colour}']").click())
        if colour != "B":  # Bo rolls G, has nothing to do, and the turn passes by itself
            after(page, lambda: page.locator("#roll").click())
    until(page, "document.querySelector('#scores tbody tr td.num').textContent === '1'")
    # Each tap on the page's board came in as a key event from the emulated Pico through the serial bridge.
    assert site.pressed == ["G", "R", "Y", "B"]
    assert "G R Y B" in page.locator("#grybs").inner_text()
    assert "Ann won" in page.locator("#turn-name").inner_text()
    assert page.locator("#board .gryb").count() == 1
    assert page.locator("#board .stone").count() == 4
    # The game's end leaves the board in view (scrolling down to Play again took it away, issue 46): OK,
    # under the board, plays the game again and says so.
    page.wait_for_timeout(800)  # as long as a smooth scroll would take
    assert page.evaluate("window.scrollY") == 0
    assert page.locator("#ok").inner_text() == "Play again" and "idle" not in page.locator(
        "#ok"
    ).get_attribute("class")
    # A tap gives the board the focus, but only the keyboard's focus is outlined (a phone drew its own ring).
    assert page.evaluate("getComputedStyle(document.getElementById('board')).outlineStyle") == "none"
    page.screenshot(path=artifacts / "web-phone-gryb.png")
    page.screenshot(path=artifacts / "web-phone-gryb-full.png", full_page=True)

    laptop = browser.new_context(viewport=LAPTOP)
    watcher = laptop.new_page()
    watcher.goto(url + "/")
    until(watcher, "document.body.dataset.version > 0")
    assert watcher.locator("#board .stone").count() == 4
    watcher.screenshot(path=artifacts / "web-laptop.png")

    # The watcher's page follows the phone's undo live, over the feed.
    after(page, lambda: page.locator("#undo").click())
    until(watcher, "document.querySelectorAll('#board .stone').length === 3")
    assert page.locator("#scores tbody tr td.num").first.inner_text() == "0"
    assert "lift" in page.locator("#chores").inner_text()
    assert page.locator("#board .chore").count() == 1
    before = runtime.snapshot()

    page.reload()
    until(page, "document.body.dataset.version > 0")
    assert version(page) == before["version"]
    assert page.locator("#board .stone").count() == 3 and page.locator("#board .chore").count() == 1
    assert "lift" in page.locator("#chores").inner_text()
    assert page.locator("#pair-open").inner_text() == "Paired"
    page.screenshot(path=artifacts / "web-phone.png")

    for name in ("web-phone-gryb.png", "web-laptop.png"):
        assert (artifacts / name).stat().st_size > 10000
    if os.environ.get("GRYB_UPDATE_DOCS_IMAGES"):  # a test run leaves the tracked docs alone otherwise
        shutil.copy(artifacts / "web-phone-gryb.png", DOCS_IMAGES / "web-phone.png")
        shutil.copy(artifacts / "web-laptop.png", DOCS_IMAGES / "web-laptop.png")
    assert not errors, errors
    laptop.close()
    phone.close()


@pytest.mark.parametrize("viewport", [PHONE, NARROW], ids=["phone", "narrow-paired"])
def test_other_pages_render_without_errors_or_csp_violations(browser, site, artifacts, viewport):
    url = site.url
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    if viewport is NARROW:  # the header at its widest: "Paired", on the narrowest phone
        page.goto(url + "/")
        pair(page, site.runtime)
    for path in ["/", "/games", "/history", "/settings", "/compose"]:
        page.goto(url + path)
        page.wait_for_load_state("networkidle") if path != "/" else until(
            page, "document.body.dataset.version > 0"
        )
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (path, overflow)  # nothing sticks out sideways at 360 px, nor at 320
        small = page.evaluate("""[...document.querySelectorAll('button:not(.linkish), .button, nav a')]
            .filter(e => e.offsetParent).map(e => e.getBoundingClientRect())
            .filter(r => r.height < 40 || r.width < 40).length""")
        assert small == 0, path
        # ... and nothing is cut off at the sides (the header hides what overflows it, so the width of the
        # document alone would not tell).
        cut = page.evaluate("""[...document.querySelectorAll('button, .button, nav a, .brand')]
            .filter(e => e.offsetParent && !e.closest('.sheet'))
            .map(e => [e.textContent.trim(), e.getBoundingClientRect()])
            .filter(([, r]) => r.left < 0 || r.right > window.innerWidth).map(([t]) => t)""")
        assert cut == [], (path, cut)
        # A link in a line of text, or a button that looks like one, is a tap target of 24 px at least (WCAG
        # 2.2 target size) all the way down: its lower edge not taken by the next line's text.
        links = page.evaluate(
            """[...document.querySelectorAll('main a:not(.button, .rowlink), button.linkish')]
            .filter(e => e.offsetParent).map(e => {
                e.scrollIntoView({block: 'center'});
                const mine = (x, y) => e.contains(document.elementFromPoint(x, y));
                return [e.textContent, [...e.getClientRects()].every(r => {
                    const x = r.left + Math.min(r.width / 2, 20);
                    return r.height >= 24 && mine(x, r.top + 0.5) && mine(x, r.bottom - 0.5); })]; })"""
        )
        assert links and all(ok for _, ok in links), (path, links)
    if viewport is PHONE:
        page.screenshot(path=artifacts / "web-settings-phone.png", full_page=True)
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
    assert not problems, problems
    ctx.close()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_every_players_board_never_covers_the_buttons(browser, site, viewport):
    """Multiverse shows every player's board beside the cloth's. On a laptop that strip once took the
    panel's column and pushed ROLL, OK and UNDO under the (sticky) board, where no click reached them."""
    site.runtime.call(c.NewGame("multiverse", 4, {}, None, None, None, abandon=True))
    site.runtime.call(c.Roll())  # the node die: player 1 places a ring where it says
    site.runtime.call(c.Press(site.runtime.snapshot()["table"]["targets"][0]))
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0 && !document.getElementById('boards').hidden")
    assert page.locator("#boards figure").count() == 4
    assert page.locator("#boards figcaption").all_text_contents() == [
        "Player 1: 1 ring",
        "Player 2: 0 rings",
        "Player 3: 0 rings",
        "Player 4: 0 rings",
    ]
    # The first screen has the cloth's board and the buttons: on a phone the four boards come after them.
    roll = page.locator("#roll").bounding_box()
    assert roll["y"] + roll["height"] <= viewport["height"], roll
    for button in ("roll", "ok", "undo", "hint"):
        page.locator(f"#{button}").scroll_into_view_if_needed()
        on_top = page.evaluate(f"""(() => {{
            const b = document.getElementById('{button}').getBoundingClientRect();
            const e = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
            return e && e.id; }})()""")
        assert on_top == button, (button, on_top)
    if viewport is LAPTOP:  # side by side: the buttons right of the board
        roll, board = page.locator("#roll").bounding_box(), page.locator("#board").bounding_box()
        assert roll["x"] >= board["x"] + board["width"]
    ctx.close()


def test_rings_of_several_players_in_one_space_are_drawn_in_slices(browser, site):
    """On Multiverse's shown board, rings of two players can stand in one space (each simultaneous with
    it through another conduit): the page draws that stone in slices of both colours, not as one player's."""
    rt, rng = site.runtime, random.Random(0)
    rt.call(c.NewGame("multiverse", 3, {}, None, None, None, abandon=True))
    rt.board.die = Die(4)
    deadline = time.monotonic() + 60
    while True:
        s = rt.call(c.Snapshot())
        shared = {
            name: stone["players"]
            for name, stone in s["state"]["stones"].items()
            if len(stone.get("players", ())) > 1
        }
        if shared:
            break
        assert time.monotonic() < deadline and not s["state"]["over"], "no shared space came up"
        step(rt, rng, s)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, f"document.body.dataset.version >= {s['version']}")
    colours = s["colours"]
    for name, players in shared.items():
        drawn = page.evaluate(f"""(() => {{
            const n = document.querySelector('#board circle.n[data-n="{name}"]');
            const at = (e) => e.tagName === 'circle' ? [+e.getAttribute('cx'), +e.getAttribute('cy')]
                : e.getAttribute('d').slice(1).split(' ')[0].split(',').map(Number);
            return [...document.querySelectorAll('#board .marks .stone, #board .marks .slice')]
                .filter((e) => at(e)[0] === +n.getAttribute('cx') && at(e)[1] === +n.getAttribute('cy'))
                .map((e) => [+e.dataset.player, e.getAttribute('fill')]); }})()""")
        assert drawn == [[q, colours[q]] for q in players], (name, drawn)
    page.context.close()


def test_player_numbers_on_the_stones_for_telling_the_colours_apart(browser, site):
    """A colour-blind player ticks "Player numbers on the stones" (this device only, no pairing needed):
    every stone and every colour chip carries its player's number, which stays the player's when the
    start moves round; the choice outlives a reload and unticking takes the numbers away."""
    rt, rng = site.runtime, random.Random(5)
    rt.call(c.NewGame("pyragryb", 3, {}, None, None, None, abandon=True))
    rt.board.die = Die(4)
    while len((s := rt.call(c.Snapshot()))["state"]["stones"]) < 4:
        step(rt, rng, s)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, f"document.body.dataset.version >= {s['version']}")
    assert page.locator("#board text.num").count() == 0 and page.locator("#scores .chip text").count() == 0
    page.locator("#numbers").check()
    stones = s["state"]["stones"]

    def numbers_drawn():
        return page.evaluate("""(() => {
            const at = {};
            document.querySelectorAll('#board circle.n').forEach((n) => {
                at[n.getAttribute('cx') + ',' + n.getAttribute('cy')] = n.dataset.n; });
            return Object.fromEntries([...document.querySelectorAll('#board .marks text.num')]
                .map((t) => [at[(+t.getAttribute('x')).toString() + ','
                    + (+t.getAttribute('y')).toString()], t.textContent])); })()""")

    assert numbers_drawn() == {name: str(stone["player"] + 1) for name, stone in stones.items()}
    assert page.locator("#scores .chip text.num").all_text_contents() == ["1", "2", "3"]
    assert page.locator("#turn-num").text_content() == str(s["state"]["to_move"] + 1)
    page.reload()
    until(page, f"document.body.dataset.version >= {s['version']}")
    assert page.locator("#numbers").is_checked() and len(numbers_drawn()) == len(stones)
    # The next game begins with Player 2 in seat 1: the numbers follow the players, as their colours do.
    finish(rt, rng, "pyragryb", 3)
    rt.call(c.Again())
    until(
        page,
        "document.querySelectorAll('#scores .chip text.num').length === 3 && "
        "document.getElementById('turn-num').textContent === '2'",
    )
    assert page.locator("#scores .chip text.num").all_text_contents() == ["2", "3", "1"]
    page.locator("#numbers").uncheck()
    until(page, "document.querySelectorAll('#board text.num, #scores .chip text.num').length === 0")
    assert page.locator("#turn-num").text_content() == ""
    page.context.close()


def test_colour_letters_on_the_nodes_for_telling_the_printed_colours_apart(browser, site):
    """A red-green colour-blind player ticks "Colour letters on the nodes": every node of the cloth but the
    head node carries its colour's letter, readable on it (WCAG AA's 4.5:1), under the stones; a tap on a
    letter still presses its node; the choice outlives a reload and a board of another depth, and unticking
    takes the letters away."""
    rt = site.runtime
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, None, abandon=True))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    pair(page, rt)
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#board text.letter").count() == 0
    page.locator("#letters").check()
    letters = """(() => { const at = {};
        document.querySelectorAll('#board circle.n').forEach((n) => {
            at[n.getAttribute('cx') + ',' + n.getAttribute('cy')] = n; });
        const lum = (c) => c.match(/[\\d.]+/g).slice(0, 3).map((v) => { v /= 255;
            return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        return [...document.querySelectorAll('#board text.letter')].map((t) => {
            const n = at[(+t.getAttribute('x')).toString() + ',' + (+t.getAttribute('y')).toString()];
            const [a, b] = [lum(getComputedStyle(t).fill), lum(getComputedStyle(n).fill)];
            return [n.dataset.n, t.textContent, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
        }); })()"""
    drawn = page.evaluate(letters)
    assert len(drawn) == 340 and all(name[-1] == letter for name, letter, _ in drawn)
    assert min(ratio for _, _, ratio in drawn) >= 4.5
    # Under the stones and the marks, not over them; a tap on the letter is a tap on its node.
    assert page.evaluate(
        "document.querySelector('#board .letters').nextElementSibling.classList.contains('marks')"
    )
    page.evaluate("window.scrollTo(0, 0)")  # back up from the box ticked below the board
    box = page.locator("#board text.letter").first.bounding_box()
    name = drawn[0][0]
    after(page, lambda: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    assert site.pressed == [name] and name in rt.snapshot()["state"]["stones"]
    page.reload()
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#letters").is_checked() and len(page.evaluate(letters)) == 340
    rt.call(
        c.NewGame("25-mens-gryb", 2, {"depth": 5}, None, None, None, abandon=True)
    )  # the Giant board, fetched anew
    until(
        page,
        "document.getElementById('board').dataset.depth === '5' && "
        "document.querySelectorAll('#board text.letter').length === 1364",
    )
    page.locator("#letters").uncheck()
    until(page, "document.querySelectorAll('#board text.letter, #board .letters').length === 0")
    page.context.close()


def test_pieces_of_different_kinds_are_told_apart_and_a_game_without_a_die_has_no_roll(browser, site):
    """Hyper-Chess on the page: each piece carries its figure (the cloth has real pieces, the page only
    circles); with no die there is no ROLL and no die face. EZ GRYB brings both back."""
    site.runtime.call(c.NewGame("hyper-chess", 2, {}, None, None, None, abandon=True))
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    stones = page.locator("#board .stone").count()
    figures = page.locator("#board text.kind").all_text_contents()
    assert stones == 20 and len(figures) == stones
    assert sorted(f[0] for f in figures) == sorted("♚" * 2 + "♛" * 2 + "♜" * 2 + "♝" * 2 + "♞" * 2 + "♟" * 10)
    assert not page.locator("#roll").is_visible() and not page.locator("#die").is_visible()
    assert page.locator("#ok").is_visible() and page.locator("#undo").is_visible()
    # Every piece starts on the board: no "In hand" column; played win or lose: no "Points" column;
    # GRYBs play no part: no list of them.
    assert not page.locator("#grybs-found").is_visible()
    assert page.locator("#scores th").all_text_contents() == ["", "Player"]
    assert page.locator("#scores tbody tr").first.locator("td").count() == 2
    # Hyper-Chess plays on the head node; EZ GRYB never uses it (a headless board): there the printed
    # node stays on the cloth, faded.
    head = "getComputedStyle(document.querySelector('#board circle.n[data-n=\"0\"]')).opacity"
    assert float(page.evaluate(head)) == 1
    v = version(page)
    site.runtime.call(c.NewGame("ez-gryb", 2, {}, None, None, None, abandon=True))
    until(
        page,
        f"+document.body.dataset.version > {v} && document.querySelectorAll('#board .stone').length === 0"
        " && document.querySelector('#board').classList.contains('headless')",
    )
    assert float(page.evaluate(head)) < 0.5
    assert page.locator("#roll").is_visible() and page.locator("#die").is_visible()
    assert page.locator("#board text.kind").count() == 0
    assert page.locator("#scores th").all_text_contents() == ["", "Player", "Points", "In hand"]
    assert page.locator("#grybs-found").is_visible()
    assert page.locator("#scores .aim").count() == 0  # one goal for all: nothing beside the names
    assert page.locator("#scores tbody tr").first.locator("td").last.inner_text() == "30"
    ctx.close()


@pytest.mark.die("GRY")
def test_pyragryb_shows_each_players_pyramids_size_by_size(browser, site):
    """PyraGRYB's pieces come in three sizes, five of each: the In hand column splits them (large, medium,
    small), with how many of each are on the board under it; another game's column is one number again."""
    rt = site.runtime
    rt.call(c.NewGame("pyragryb", 3, {}, ["Ann", "Bo", "Cy"], None, None, abandon=True))
    for colour in "GRY":  # each enters a large pyramid on the top node of the colour rolled
        rt.call(c.Roll())
        assert rt.call(c.Press(colour)).ok
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#scores th").last.locator("small").inner_text() == "L · M · S"
    cells = page.locator("#scores tbody tr td.num:last-child")
    assert cells.count() == 3
    assert [cells.nth(i).evaluate("td => td.firstChild.textContent") for i in range(3)] == ["4 · 5 · 5"] * 3
    assert cells.locator("small").all_text_contents() == ["on board 1 · 0 · 0"] * 3
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0  # three columns of numbers still fit a 360 px phone
    v = version(page)
    rt.call(c.NewGame("ez-gryb", 2, {}, None, None, None, abandon=True))
    until(page, f"+document.body.dataset.version > {v}")
    assert page.locator("#scores th").all_text_contents() == ["", "Player", "Points", "In hand"]
    assert page.locator("#scores tbody tr").first.locator("td").last.inner_text() == "30"
    page.context.close()


@pytest.mark.cloth
def test_a_game_against_the_computer_from_the_phone(browser, site):
    """Seat 2 is the computer: its move is marked on the board, its stone blinking and where it goes pulsing,
    until the phone's player carries it out; a hint marks its stone and target too."""
    runtime, url = site.runtime, site.url
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    page.goto(url + "/")
    until(page, "document.body.dataset.version > 0")
    pair(page, runtime)
    page.goto(url + "/games")
    page.locator("label.gamecard", has=page.locator("input[value='drangles']")).click()
    form = page.locator("form[data-game='drangles']")
    form.locator("select[name='kind1']").select_option("medium")
    form.locator("button[type='submit']").click()
    page.wait_for_url(url + "/")
    until(page, "document.getElementById('turn-name').textContent.includes('Player 1')")
    assert runtime.snapshot()["seats"] == ["human", "medium"]

    # The human's turn in Drangles: the head node, then a move down from it. A hint for that move marks
    # its stone and its target (it binds nobody: the move played is another).
    after(page, lambda: page.locator("#board circle.n[data-n='0']").click())
    page.locator("#hint").click()
    until(page, "document.querySelectorAll('#board .hint-mark').length === 2")
    hint = runtime.snapshot()["table"]["hint"]
    assert hint.startswith("0-") and marked(page, ".hint-mark") == sorted(hint.split("-"))
    after(page, lambda: page.locator("#board circle.n[data-n='0']").click())
    after(page, lambda: page.locator("#board circle.n[data-n='G']").click())
    assert page.locator("#board .hint-mark").count() == 0
    # The computer answers with a proposal: shown on the board and in words; carried out by taps. Its stone
    # blinks and where it goes pulses, both before anything is pressed.
    moves = 0
    while runtime.snapshot()["state"]["to_move"] == 1:
        until(page, "!!document.querySelector('#board .proposal')")
        proposal = runtime.snapshot()["table"]["proposal"]
        assert proposal and "the computer plays" in runtime.snapshot()["table"]["message"]
        stone, _, to = proposal.partition("-")
        if to:
            moves += 1
            assert marked(page, ".proposal:not(.to)") == [stone] and marked(page, ".proposal.to") == [to], (
                proposal
            )
        else:  # its stone entering at the head node: the node it fills pulses
            assert marked(page, ".proposal:not(.to)") == [] and marked(page, ".proposal.to") == [stone], (
                proposal
            )
        # A tap's answer on the simulator is only "pressed <node>" (the outcome comes on the feed): it must
        # never overwrite the newer words the feed drew, here the computer's proposal.
        message = page.locator("#message").inner_text()
        assert "the computer plays" in message, message
        parts = proposal.split("-")
        for name in parts[0].split(",") + (parts[1].split(",") if len(parts) > 1 else []):
            after(page, lambda n=name: page.locator(f"#board circle.n[data-n='{n}']").click())
    assert runtime.snapshot()["table"]["proposal"] is None
    assert page.locator("#board .proposal").count() == 0
    assert moves >= 1  # its second move takes its new stone off the head node: a move, with both nodes marked
    assert len(runtime.snapshot()["state"]["stones"]) >= 2
    assert site.pressed[:3] == ["0", "0", "G"]  # the taps went through the emulated Pico

    # A slower board lets its computer players think longer: the settings page says by how much.
    page.goto(url + "/settings")
    field = page.locator("input[name='time_scale']")
    assert float(field.input_value()) == runtime.snapshot()["settings"]["time_scale"] == 1.0
    field.fill("8")
    field.dispatch_event("change")
    until(page, "document.querySelector('#settings .message').textContent === 'Saved.'")
    assert runtime.snapshot()["settings"]["time_scale"] == 8.0
    ctx.close()


class Cable:
    """A TCP relay between the browser and the companion, to be cut and mended like a phone's Wi-Fi.

    Cut, it closes every connection through it and turns new ones away (accepted, then closed at once);
    mended, it relays again."""

    def __init__(self, port: int):
        self.target = ("127.0.0.1", port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.up = True
        self.closed = False
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.streams = 0  # connections that asked for the live feed
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, request: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if request and data.startswith(b"GET /api/events "):
                    self.streams += 1
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.up = False
        with self.lock:
            sockets, self.sockets = self.sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def mend(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.closed = True
        self.listener.close()
        self.thread.join(2)


@pytest.mark.die("GR")
def test_the_live_feed_reconnects_by_itself(browser, site):
    """The page keeps following the board over a dropped connection, without a reload: EventSource
    (told by the feed to retry after 2 s) or, if it gives up, the page itself opens a new stream, whose
    first event is the newest snapshot, with what changed while the page was cut off."""
    runtime, companion = site.runtime, site.companion
    cable = Cable(int(site.url.rsplit(":", 1)[1]))
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    try:
        page.goto(cable.url + "/")
        until(page, "document.body.dataset.version > 0")
        page.evaluate("document.body.dataset.marker = 'the same page'")  # gone if the page were reloaded
        deadline = time.monotonic() + 5
        while not cable.streams:  # the page's feed is open (through the cable)
            assert time.monotonic() < deadline, "the page never opened /api/events"
            time.sleep(0.01)
        opened = cable.streams
        # A change made elsewhere (ROLL at the table, not on this page) arrives over the feed.
        v = version(page)
        runtime.call(c.Roll())
        until(
            page,
            f"+document.body.dataset.version > {v} && document.getElementById('die').textContent === 'G'",
        )

        cable.cut()  # the Wi-Fi drops
        companion.node_input.tap("G")  # meanwhile a stone is placed on the cloth (the emulated Pico)
        deadline = time.monotonic() + 5
        while "G" not in runtime.snapshot()["state"]["stones"]:
            assert time.monotonic() < deadline, runtime.snapshot()["table"]
            time.sleep(0.01)
        time.sleep(0.5)
        assert page.locator("#board .stone").count() == 0  # the page cannot know yet
        missed = runtime.snapshot()["version"]
        assert version(page) < missed

        cable.mend()  # back: the page catches up by itself, no reload, no click
        until(page, f"+document.body.dataset.version >= {missed}", timeout=20)
        assert page.locator("#board .stone").count() == 1
        assert page.evaluate("document.body.dataset.marker") == "the same page"
        assert cable.streams > opened  # a new stream, opened by the page itself

        # And the new stream goes on following the board.
        v = version(page)
        runtime.call(c.Roll())
        until(
            page,
            f"+document.body.dataset.version > {v} && document.getElementById('die').textContent === 'R'",
        )
    finally:
        ctx.close()
        cable.close()


def test_a_press_that_fits_several_moves_offers_them_in_words(browser, site):
    """Grim Reaper: a tap on a free square could be a male or a female with any life; the page asks with
    a button for each, in words, and the one tapped is the move made."""
    site.runtime.call(c.NewGame("grim-reaper", 2, {}, None, None, None, abandon=True))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    pair(page, site.runtime)
    after(page, lambda: page.locator("#board circle.n[data-n='GGG']").click())
    buttons = page.locator("#choices button")
    labels = buttons.evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label'))"
    )  # whole, for a screen reader
    assert (
        len(labels) == 24 and labels[0] == "male, 1 turn, on GGG" and labels[-1] == "female, 12 turns, on GGG"
    )
    assert "choose one with the buttons below the board" in page.locator("#message").inner_text()
    assert "refused" not in page.locator("#message").get_attribute(
        "class"
    )  # a legal press: asked, not refused
    # On the screen, grouped by sex with the node said once by the message: the 24 fit in a phone's screen
    # (one button a line, they ran 1,200 px down it).
    assert page.locator("#choices .choice-head").all_text_contents() == ["male", "female"]
    assert buttons.first.inner_text() == "1 turn" and buttons.last.inner_text() == "12 turns"
    assert page.locator("#choices").bounding_box()["height"] < 400
    after(page, lambda: buttons.nth(labels.index("female, 7 turns, on GGG")).click())
    until(page, "document.querySelectorAll('#choices button').length === 0")
    placed = site.runtime.snapshot()["state"]["stones"]["GGG"]
    assert placed == {"player": 0, "kind": "female", "life": 7, "square": "a8"}
    assert [f[0] for f in page.locator("#board text.kind").all_text_contents()] == ["♀"]
    # The piece's life turns on it; the reserve it was drawn from in the scores (12 + 12 / 2 - 7).
    assert page.locator("#board text.life").all_text_contents() == ["7"]
    assert page.locator("#scores th").last.inner_text() == "Life reserve"
    assert page.locator("#scores .aim").all_text_contents() == ["join top and bottom", "join left and right"]
    assert page.locator("#scores tbody tr").first.locator("td").last.inner_text() == "5"
    page.context.close()


def step(rt, rng, s: dict) -> None:
    """One step of play on the runtime from snapshot ``s``: a chore done, the computer's proposed move
    carried out (or its search waited for), the die rolled, or a random legal action of a person's."""
    if s["table"]["chores"]:
        rt.call(c.Press(s["table"]["chores"][0]["node"]))
    elif s["table"]["proposal"]:
        for node in _presses(rt.board.session.hands.game.parse(s["table"]["proposal"])):
            rt.call(c.Press(nd.name(node)))
    elif s["seats"][s["state"]["to_move"]] != "human":
        time.sleep(0.01)  # the computer is rolling or thinking
    elif s["state"]["awaiting_roll"]:
        rt.call(c.Roll())
    else:
        rt.call(c.Act(rng.choice(s["legal"])))


def finish(rt, rng, game_id, players, options=None, names=None, series=None, seats=None) -> dict:
    """Play a game to its end on the runtime (see ``step``); its last snapshot."""
    rt.call(c.NewGame(game_id, players, options or {}, names, series, seats, abandon=True))
    rt.board.die = Die(4)
    deadline = time.monotonic() + 60
    while not (s := rt.call(c.Snapshot()))["state"]["over"]:
        assert time.monotonic() < deadline, s["table"]
        step(rt, rng, s)
    return s


def test_a_finished_game_replays_step_by_step_with_its_own_columns(browser, site):
    """The replay of a finished Grim Reaper game: the columns are the game's own (no points, for it is
    played win or lose; the life reserve), and the buttons walk the record from its start to its end.
    Multiverse's replay shows every player's board, as its live page does."""
    rt, rng = site.runtime, random.Random(2)
    s = finish(rt, rng, "grim-reaper", 2, names=["Ann", "Bo"])
    page = browser.new_context(viewport=PHONE).new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(f"{site.url}/history/{s['game_id']}")
    until(page, "document.querySelectorAll('#scores tbody tr').length === 2")
    assert page.locator("#scores th").all_text_contents() == ["", "Player", "Life reserve"]
    assert page.locator("#scores tbody tr").first.locator("td").count() == 3
    assert page.locator("#board .stone").count() == len(s["state"]["stones"])
    page.locator("[data-step='first']").click()
    until(
        page,
        "document.getElementById('plyno').textContent === '0' && !document.querySelector('#board .stone')",
    )
    assert page.locator("#action").inner_text() == "· start"
    page.locator("[data-step='next']").click()
    until(page, "document.getElementById('plyno').textContent === '1'")
    first = rt.store.events(s["game_id"])[0][1]  # Ann's first step, in the record's notation and in words
    assert page.locator("#action").get_attribute("title") == first
    reaper = find("grim-reaper")(2)
    action = reaper.parse(first)
    reaper.apply(action)
    words = said(reaper, action, ["Ann", "Bo"], 0)  # "Ann rolled 7", "Ann: male, 6 turns, on GGG"
    assert page.locator("#action").inner_text() == f"· {words}"
    assert page.locator("#boards").is_hidden()
    s = finish(rt, rng, "multiverse", 3, {"turn_limit": 10})
    page.goto(f"{site.url}/history/{s['game_id']}")
    until(page, "document.querySelectorAll('#boards figure').length === 3")
    assert page.locator("#boards figcaption").all_text_contents() == [
        f"Player {i + 1}{' (out)' if b['out'] else ''}: "
        f"{len(b['rings'])} ring{'' if len(b['rings']) == 1 else 's'}"
        for i, b in enumerate(s["state"]["boards"])
    ]
    assert not problems, problems
    page.context.close()


def test_play_again_starts_the_same_game_with_the_same_players(browser, site, artifacts):
    """At a game's end the page offers "Play again": the same game, options and players (the computer's
    level too), begun by the next player along (here the computer), and the series that is still on
    goes on."""
    rt, rng = site.runtime, random.Random(3)
    first = finish(
        rt,
        rng,
        "grim-reaper",
        2,
        {"turn_limit": 50, "reserve": 2},
        ["Ann", "Bo"],
        {"method": "games", "target": 3},
        ["human", "easy"],
    )
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    pair(page, rt)
    assert page.locator("#again").is_visible()
    page.screenshot(path=artifacts / "web-phone-play-again.png", full_page=True)
    page.locator("#again").click()
    until(page, "!document.querySelector('#again').offsetParent")
    snap = rt.snapshot()
    assert snap["game_id"] != first["game_id"] and not snap["state"]["over"]
    assert snap["game"]["id"] == "grim-reaper" and snap["game"]["settings"] == first["game"]["settings"]
    assert snap["game"]["settings"]["reserve"] == 2
    assert first["seats"] == ["human", "easy"] and snap["table"]["names"] == ["Bo", "Ann"]
    assert snap["seats"] == ["easy", "human"] and snap["order"] == [1, 0]
    assert len(first["series"]["games"]) == 1  # the series goes on with the game played again
    assert snap["series"]["id"] == first["series"]["id"] and len(snap["series"]["games"]) == 1
    page.context.close()


def test_the_form_goes_on_with_the_series_being_played(browser, site):
    """While a series is on, the form of the game being played offers to go on with it, chosen already:
    the next game counts in it and is begun by the next player along."""
    rt = site.runtime
    rt.call(c.NewGame("ez-gryb", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 3}, abandon=True))
    series = rt.snapshot()["series"]["id"]
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    pair(page, rt)
    page.goto(site.url + "/games")
    page.locator("label.gamecard", has=page.locator("input[value='ez-gryb']")).click()
    form = page.locator("form[data-game='ez-gryb']")
    assert form.locator("select[name='series']").input_value() == "continue"
    form.locator("button[type='submit']").click()
    page.wait_for_url(site.url + "/")
    snap = rt.snapshot()
    assert snap["series"]["id"] == series and snap["table"]["names"] == ["Bo", "Ann"]
    page.context.close()


def test_the_one_form_is_set_for_each_game_chosen_and_keeps_the_names_typed(browser, site):
    """/games has one form (a form per game, each repeating the seats and the series, weighed 188 KiB): the
    game chosen gives it its name, its number of players, its own options and the series its manuals give it
    (their default chosen: EZ GRYB's best of five, 000), none for a game the manuals give none;
    the names typed stay from game to game, for the same people play whichever they choose."""
    rt = site.runtime
    rt.call(
        c.NewGame("multiverse", 3, {}, ["Ann", "Bo", "Cy"], {"method": "games", "target": 3}, abandon=True)
    )
    page = paired_page(browser, site, "/games")
    form = page.locator("form.newgame")

    def shown():
        return form.evaluate("""f => ({game: f.dataset.game, title: f.querySelector('h2').textContent,
            howto: f.querySelector('.howto').getAttribute('href'),
            start: f.querySelector('button[type=submit]').textContent,
            players: [...f.elements.players.options].map(o => o.value), count: f.elements.players.value,
            seats: [...f.querySelectorAll('.seat')].filter(s => !s.hidden).length,
            options: [...f.querySelectorAll("[name^='opt-']")].map(e => e.name.slice(4)),
            presets: [...f.elements.series.options]
                .filter(o => o.value.startsWith('preset:') && !o.hidden && !o.disabled)
                .map(o => o.textContent),
            series: f.elements.series.value})""")

    def choose(game_id):
        page.locator("label.gamecard", has=page.locator(f"input[value='{game_id}']")).click()

    # The game being played, with who plays it: three players, going on with its series.
    multiverse = shown()
    assert multiverse == {
        "game": "multiverse",
        "title": "Multiverse",
        "howto": "/games/multiverse/rules",
        "start": "Start Multiverse",
        "players": ["2", "3", "4"],
        "count": "3",
        "seats": 3,
        "options": ["depth", "rings", "stall", "turn_limit"],
        "series": "continue",
        "presets": [],
    }
    choose("ez-gryb")
    ez = shown()
    assert (ez["game"], ez["players"], ez["count"], ez["seats"]) == ("ez-gryb", ["2"], "2", 2)
    # Not the game being played: the manuals' own default series, 000's five games.
    assert ez["options"] == ["depth", "stones", "turn_limit"] and ez["series"] == "preset:games:5"
    assert ez["presets"] == [
        "EZ GRYB: most points out of five games",
        "EZ GRYB: first to 21 points",
        "Quick & Easy: most points out of three games",
        "Quick & Easy: first to 8 points",
    ]
    form.locator("input[name='name0']").fill("Di")
    form.locator("input[name='opt-stones']").fill("12")
    choose("hyper-chess")
    chess = shown()
    assert chess["options"] == ["hyperspace", "headless", "first", "quiet_turns", "turn_limit"]
    assert (
        chess["presets"] == []
        and chess["series"] == ""
        and form.locator("input[name='name0']").input_value() == "Di"
    )
    choose("ez-gryb")  # its options as they first were: a game's options are its own
    assert form.locator("input[name='opt-stones']").input_value() == "30"
    choose("multiverse")
    assert shown() == multiverse
    form.locator("select[name='players']").select_option("4")
    assert shown()["seats"] == 4
    form.locator("select[name='series']").select_option("")
    form.locator("input[name='opt-rings']").fill("5")
    form.locator("button[type='submit']").click()
    page.wait_for_url(site.url + "/")
    snap = rt.snapshot()
    assert snap["game"]["id"] == "multiverse" and snap["players"] == 4 and snap["series"] is None
    assert snap["game"]["settings"]["rings"] == 5 and snap["table"]["names"][:3] == ["Di", "Bo", "Cy"]
    page.context.close()


def test_a_blank_option_is_asked_for_by_the_form_and_an_old_reason_goes_when_the_form_changes(browser, site):
    page = paired_page(browser, site, "/games")
    page.locator("label.gamecard", has=page.locator("input[value='pyragryb']")).click()
    form = page.locator("form[data-game='pyragryb']")
    game_id = site.runtime.snapshot()["game_id"]
    form.locator("input[name='opt-pieces']").fill("")
    form.locator("button[type='submit']").click()  # the browser asks for the number; nothing is sent
    assert form.locator("input[name='opt-pieces']").evaluate("el => el.validity.valueMissing")
    page.wait_for_timeout(300)
    assert form.locator(".message").inner_text() == "" and site.runtime.snapshot()["game_id"] == game_id
    form.locator(".message").evaluate("el => { el.textContent = 'an answer about the form as it was'; }")
    form.locator("input[name='opt-pieces']").fill("99")
    assert form.locator(".message").inner_text() == ""
    page.context.close()


def test_a_series_that_is_over_says_who_won_it(browser, site):
    """A series of one game: once it is played, the series line under the scores names its winner."""
    rt = site.runtime
    s = finish(rt, random.Random(4), "grim-reaper", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 1})
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    line = page.locator("#series").inner_text()
    winners = s["series"]["winners"]
    assert s["series"]["over"] and line.startswith("Series (most points after 1 game): Ann ")
    assert line.endswith(
        " · series won by " + " & ".join(["Ann", "Bo"][w] for w in winners) if winners else " · series over"
    ), line
    # The return match: the button at the end now starts the series again, as it was played.
    pair(page, rt)
    assert page.locator("#again").inner_text() == "New series"
    page.locator("#again").click()
    until(page, "!document.querySelector('#again').offsetParent")
    snap = rt.snapshot()
    assert snap["series"]["id"] != s["series"]["id"] and snap["series"]["games"] == []
    assert (snap["series"]["method"], snap["series"]["target"]) == ("games", 1)
    assert page.locator("#series").inner_text() == "Series (most points after 1 game): Ann 0 · Bo 0"
    # Begun by the next player along, in her own colour; the series line keeps the players' order.
    assert snap["table"]["names"] == ["Bo", "Ann"] and page.locator("#turn-name").inner_text().startswith(
        "Bo to "
    )
    assert (
        page.locator("#turn-chip").get_attribute("fill")
        == site.runtime.snapshot()["colours"][0]
        != s["colours"][0]
    )
    page.context.close()


def test_every_game_of_the_catalogue_is_drawn_as_it_stands(browser, site):
    """Each game in turn (the most players), some random plies in: the page draws every stone the state
    has, without a script error. Games follow each other quicker than a board of a new depth loads (the
    Morris games' and Leapfrog's smaller boards), which once left the page drawing on a board no longer
    shown."""

    rt = site.runtime
    page = browser.new_context(viewport=LAPTOP).new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    for cls in catalogue_mod.catalogue():
        rng = random.Random(cls.id)
        rt.call(c.NewGame(cls.id, cls.max_players, {}, None, None, None, abandon=True))
        rt.board.die = Die(7)
        for _ in range(60):
            if (s := rt.call(c.Snapshot()))["state"]["over"]:
                break
            step(rt, rng, s)
        s = rt.call(c.Snapshot())
        until(page, f"+document.body.dataset.version >= {s['version']}")
        assert page.locator("#board").count() == 1
        assert int(page.evaluate("+document.querySelector('#board').dataset.depth")) == s["board"]["depth"], (
            cls.id
        )
        assert page.locator("#board .stone").count() == len(s["state"]["stones"]), cls.id
    assert not problems, problems
    page.context.close()


def cloth_expected(depth: int) -> tuple[list, list]:
    """The board's nodes as companion.rules.node places them (name, x, y, radius, colour class), leaves first
    as the page lays them (the inner nodes' larger rims on top), and its rods: each quadrangle, then its
    corners' rods to its parent."""
    circles = [
        (nd.name(n), *nd.position(n, depth), 0.6 if nd.level(n) == depth else 0.74, nd.focus(n) or "H")
        for n in sorted(nd.nodes(depth), key=lambda n: -nd.level(n))
    ]
    rods = []
    for n in nd.nodes(depth - 1):
        corners = [nd.position(k, depth) for k in nd.children(n)]
        rods.append([c for xy in corners for c in xy])
        rods.extend([*xy, *nd.position(n, depth)] for xy in corners)
    return circles, rods


CLOTH_DRAWN = """(() => {
    const svg = document.getElementById('board');
    return [+svg.dataset.depth, [...svg.querySelectorAll('.nodes circle')].map((c) => [c.dataset.n,
            +c.getAttribute('cx'), +c.getAttribute('cy'), +c.getAttribute('r'), c.classList[1]]),
        svg.querySelector('.rods').getAttribute('d').split('M').filter(Boolean)
            .map((s) => s.replace('Z', '').trim().split(' ').map(Number))];
})()"""


def test_the_page_draws_every_board_from_the_shared_geometry(browser, site):
    """The page draws the rods and nodes itself (web/static/js/cloth.js; as markup a Super Giant board weighed
    444 KiB): every node where companion.rules.node puts it, on the board the page loaded with and on each
    board it changes to, of every depth a game is played on."""
    rt = site.runtime
    page = browser.new_context(viewport=PHONE).new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    for depth in (6, 4, 2, 5, 3):
        rt.call(c.NewGame("ez-gryb", 2, {"depth": depth}, None, None, None, abandon=True))
        if depth == 6:  # the first as the page loads it, the others as it changes board with the game
            page.goto(site.url + "/")
        v = rt.snapshot()["version"]
        until(page, f"+document.body.dataset.version >= {v}")
        drawn_depth, circles, rods = page.evaluate(CLOTH_DRAWN)
        want_circles, want_rods = cloth_expected(depth)
        assert drawn_depth == depth
        assert [tuple(c) for c in circles] == want_circles, depth
        assert rods == want_rods, depth
    # The board stays one control for the keyboard and a screen reader, as it was drawn by the server.
    page.locator("#board").focus()
    page.keyboard.press("R")
    assert page.evaluate("document.getElementById('board').dataset.at") == "R"
    assert (
        page.get_attribute("#board", "role") == "application"
        and page.get_attribute("#board", "tabindex") == "0"
    )
    assert not problems, problems
    page.context.close()


LEDS_SHOWN = """(() => ({
    glows: Object.fromEntries([...document.querySelectorAll('#board .leds circle')]
        .map((c) => [c.dataset.n, c.getAttribute('fill')])),
    pixels: document.getElementById('led-line').hidden ? null
        : [...document.querySelectorAll('#led-status .pixel')].map((c) => c.getAttribute('fill')) }))()"""


def test_the_simulators_page_shows_what_the_leds_show_while_asked_to(browser, site, artifacts):
    """In --sim there are no LEDs to look at: "LEDs" lays what the simulated ones show over the board (GET
    /api/leds), live while it is on: a stone's node glows in its player's colour once entered, the status
    pixels say whose turn it is. The board still takes taps. Off, nothing is asked of the board."""
    rt = site.runtime
    page = browser.new_context(viewport=LAPTOP).new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/leds" in r.url else None)
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    pair(page, rt)
    page.wait_for_timeout(600)
    assert (
        asked == []
        and page.locator("#board .leds").count() == 0
        and page.evaluate(LEDS_SHOWN)["pixels"] is None
    )
    rt.call(c.ChangeSettings(brightness=1.0))  # the LEDs' colours as set (at 0.5 they glow half as bright)
    colours = rt.snapshot()["colours"]
    page.get_by_label("LEDs:").check()
    until(
        page,
        f"(() => {{ const p = {LEDS_SHOWN}.pixels; "  # player 1 to roll
        f"return p?.length === 8 && p.slice(0, 4).every((c) => c === '{colours[0]}'); }})()",
    )
    rt.call(c.Roll())
    until(
        page, f"+document.body.dataset.version >= {rt.snapshot()['version']}"
    )  # else after() took the roll's
    target = rt.snapshot()["table"]["targets"][0]
    after(
        page, lambda: page.locator(f"#board circle.n[data-n='{target}']").click()
    )  # through the emulated Pico
    assert site.pressed == [target]
    until(
        page,
        f"(() => {{ const s = {LEDS_SHOWN}; return s.glows['{target}'] === '{colours[0]}' "
        f"&& s.pixels[0] === '{colours[1]}'; }})()",
    )
    page.screenshot(path=artifacts / "web-leds-laptop.png")
    deadline = time.monotonic() + 5
    while True:  # what the API says the LEDs show, and nothing else (an animation may be a frame apart)
        with urllib.request.urlopen(site.url + "/api/leds", timeout=5) as r:
            told = json.load(r)["nodes"]
        if page.evaluate(LEDS_SHOWN)["glows"] == told:
            break
        assert time.monotonic() < deadline, (told, page.evaluate(LEDS_SHOWN))
        time.sleep(0.05)
    page.get_by_label("LEDs:").uncheck()
    assert page.locator("#board .leds").count() == 0 and page.evaluate(LEDS_SHOWN)["pixels"] is None
    page.wait_for_timeout(300)
    count = len(asked)
    page.wait_for_timeout(800)
    assert len(asked) == count  # off: not asked again
    page.context.close()


def test_a_timed_series_counts_down_on_the_page(browser, site):
    """A series of a set time shows the time left, and the page counts it down between snapshots."""
    import re

    site.runtime.call(
        c.NewGame("ez-gryb", 2, {}, ["Ann", "Bo"], {"method": "time", "target": 600}, None, abandon=True)
    )
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    line = page.locator("#series").inner_text()
    first = re.fullmatch(r"Series \(most points in 10:00\): Ann 0 · Bo 0 · (\d+):(\d\d) left", line)
    assert first and 590 <= 60 * int(first[1]) + int(first[2]) <= 600, line
    until(page, f"!document.querySelector('#series').textContent.endsWith({line[-10:]!r})", timeout=5)
    later = re.search(r"(\d+):(\d\d) left$", page.locator("#series").inner_text())
    assert 60 * int(later[1]) + int(later[2]) < 60 * int(first[1]) + int(first[2])
    page.context.close()


def paired_page(browser, site, path: str):
    """A phone's page, paired, at ``path``."""
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    pair(page, site.runtime)
    page.goto(site.url + path)
    return page


def test_a_refused_setting_goes_back_to_the_value_in_force_in_plain_words(browser, site):
    page = paired_page(browser, site, "/settings")
    field = page.locator("input[name='time_scale']")
    field.fill("100")
    field.dispatch_event("change")
    until(page, "document.querySelector('#settings .message').textContent.endsWith('(not saved)')")
    message = page.locator("#settings .message").inner_text()
    assert message.startswith("Thinking time multiplies") and "time_scale" not in message
    until(page, "document.querySelector(\"input[name='time_scale']\").value === '1'")
    colour = page.locator("input[name='colour0']")
    colour.evaluate("(el) => { el.value = '#00a03c'; el.dispatchEvent(new Event('change')); }")
    until(page, "document.querySelector('#settings .message').textContent.startsWith(\"Player 1's colour\")")
    until(
        page,
        f"document.querySelector(\"input[name='colour0']\").value === "
        f"'{site.runtime.snapshot()['settings']['colours'][0].lower()}'",
    )
    # Two players' colours too alike: both named as the form names them, not as the API does (colours[0]).
    page.locator("input[name='colour1']").evaluate(
        "(el) => { el.value = '#ffffff'; el.dispatchEvent(new Event('change')); }"
    )
    until(page, "document.querySelector('#settings .message').textContent.startsWith(\"Player 2's colour\")")
    assert page.locator("#settings .message").inner_text() == (
        "Player 2's colour #FFFFFF is too close to Player 1's colour (not saved)"
    )
    assert site.runtime.snapshot()["settings"]["time_scale"] == 1.0
    page.context.close()


def test_a_watchers_setting_goes_back_as_it_asks_for_pairing(browser, site):
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/settings")
    night = page.locator("input[name='night']")
    assert not night.is_checked()
    night.click()
    assert page.locator("#pair-panel").is_visible()
    assert page.locator("#settings .message").inner_text() == "Pair this phone to change settings."
    until(page, "!document.querySelector(\"input[name='night']\").checked")  # as the board has it: not saved
    assert site.runtime.snapshot()["settings"]["night"] is False
    page.context.close()


def test_a_refusal_is_not_shown_again_on_reload_and_a_series_lists_its_games_by_name(browser, site):
    rt = site.runtime
    finish(rt, random.Random(4), "ez-gryb", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 3})
    s = rt.call(c.Snapshot())
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    pair(page, rt)
    page.locator("#again").click()  # the second game, begun by Bo
    until(page, "!document.querySelector('#again').offsetParent")
    if not rt.snapshot()["state"]["awaiting_roll"]:
        pytest.skip(
            "the first player has no roll to make"
        )  # never for EZ GRYB, whose turns start with a roll
    page.locator("#ok").click()  # not now: roll first
    until(page, "document.querySelector('#message').classList.contains('refused')")
    page.reload()
    until(page, "document.body.dataset.version > 0")
    assert not page.locator("#message").evaluate("(el) => el.classList.contains('refused')")
    page.goto(site.url + "/history")
    first = page.locator("ol.plain li").first.inner_text()
    scores = s["state"]["scores"]
    assert first == f"#{s['game_id']} EZ GRYB Ann {scores[0]} – Bo {scores[1]} · " + (
        " & ".join(["Ann", "Bo"][w] for w in s["state"]["winners"]) + " won"
        if s["state"]["winners"]
        else "draw"
    )
    page.context.close()


def test_the_laptops_page_shows_the_code_a_phone_asked_for(browser, site):
    """On the simulator the laptop's page is the board: a phone on the LAN reads the code off it."""
    import json
    import urllib.request

    page = browser.new_context(viewport=LAPTOP).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#pair-banner").is_hidden()
    request = urllib.request.Request(
        site.url + "/api/pair/start", data=b"{}", method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:  # as a phone would (here from the laptop too)
        assert json.load(answer)["shown"]
    until(page, "!document.querySelector('#pair-banner').hidden", timeout=10)
    code = "".join(site.runtime.board.effects.code)
    assert page.locator("#pair-banner .codeview").inner_text().replace("\n", "") == code
    # Once the phone has paired the code no longer applies: the banner goes (the page asks every 2 s).
    request = urllib.request.Request(
        site.url + "/api/pair",
        data=json.dumps({"code": code}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.load(answer)["paired"]
    until(page, "document.querySelector('#pair-banner').hidden", timeout=5)
    page.context.close()


def test_the_laptops_sheet_keeps_its_code_through_wrong_tries_and_offers_a_new_one_once_spent(browser, site):
    """On the simulator the sheet shows the board's code: wrong tries do not end it (issue 44, 3: nobody may
    spoil the code another is typing); once it has expired the sheet no longer shows it as the board's,
    says it is spent, and New code (now standing out) shows a live one."""
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    page.locator("#watching [data-pair]").click()
    until(page, "document.querySelector('#pair-shown .codeview').textContent.length === 4")
    code = page.locator("#pair-shown .codeview").text_content()
    wrong = next(c for c in ("GGGG", "RRRR") if c != code)
    for _ in range(3):
        for colour in wrong:
            page.locator(f"#pair-panel .key[data-c='{colour}']").click()
        until(page, "document.querySelector('#pair-msg').textContent.includes('wrong code: try again')")
        assert page.locator("#pair-shown").inner_text().startswith("The board shows")  # still the board's
        page.evaluate("document.querySelector('#pair-msg').textContent = ''")
    assert "".join(site.runtime.board.effects.code) == code
    site.companion.server.app.extensions["gryb-pair-code"]._expires -= 121  # two minutes on
    for colour in code:
        page.locator(f"#pair-panel .key[data-c='{colour}']").click()
    until(page, "document.querySelector('#pair-shown').classList.contains('spent')")
    assert page.locator("#pair-shown").inner_text().replace("\n", "") == f"The code {code} is spent."
    assert page.locator("#pair-msg").inner_text().startswith("that code is spent")
    assert page.locator("#pair-again").evaluate("b => b.classList.contains('attention')")
    page.locator("#pair-again").click()
    until(
        page,
        "!document.querySelector('#pair-shown').hidden && "
        "!document.querySelector('#pair-shown').classList.contains('spent')",
    )
    assert page.locator("#pair-shown").inner_text().startswith("The board shows")
    assert page.locator("#pair-shown .codeview").text_content() == "".join(site.runtime.board.effects.code)
    assert not page.locator("#pair-again").evaluate("b => b.classList.contains('attention')")
    page.context.close()


def test_forget_all_phones_asks_first(browser, site):
    page = paired_page(browser, site, "/settings")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("#forget-all").click()
    page.wait_for_timeout(300)
    page.reload()
    assert page.locator("#pair-open").inner_text() == "Paired"  # thought better of it: still paired
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.locator("#forget-all").click()
    assert page.locator("#pair-open").inner_text() == "Pair"
    assert page.locator("nav a[aria-current='page']").count() == 1
    page.goto(site.url + "/compose")
    assert page.locator("nav a[aria-current='page']").inner_text() == "Games"  # composing is part of Games
    page.context.close()


def test_a_computer_seat_given_a_persons_name_still_says_it_is_the_computer(browser, site):
    site.runtime.call(
        c.NewGame("drangles", 2, {}, ["Ann", "Bartholomew"], None, ["human", "medium"], abandon=True)
    )
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    rows = page.locator("#scores tbody tr")
    assert rows.nth(0).inner_text().split("\t")[1].strip() == "Ann"
    assert "Bartholomew" in rows.nth(1).inner_text() and "computer, medium" in rows.nth(1).inner_text()
    page.context.close()


@pytest.mark.cloth
def test_a_seat_is_handed_to_the_computer_from_the_page_and_it_plays_on(browser, site):
    """A player who has to go: "Who plays" hands their seat to the computer, which answers at once."""
    site.runtime.call(c.NewGame("drangles", 2, {}, ["Ann", ""], None, None, abandon=True))
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    after(page, lambda: page.locator("#board circle.n[data-n='0']").click())
    after(page, lambda: page.locator("#board circle.n[data-n='0']").click())
    after(page, lambda: page.locator("#board circle.n[data-n='G']").click())  # Ann's move: Player 2's turn
    page.locator("#seats-box summary").click()
    seat = page.locator("#seat-list select[data-seat='1']")
    assert seat.input_value() == "human"
    seat.select_option("easy")
    until(page, "document.getElementById('message').textContent.includes('the computer plays')")
    snap = site.runtime.snapshot()
    assert snap["seats"] == ["human", "easy"] and snap["table"]["proposal"]
    assert snap["table"]["names"] == ["Ann", "Player 2 (computer, easy)"]
    until(
        page,
        "document.querySelector('#seat-list .seat-row:nth-child(2) span').textContent "
        "=== 'Player 2 (computer, easy)'",
    )
    assert page.locator("#seat-list select[data-seat='0']").input_value() == "human"
    page.context.close()


@pytest.mark.die(["7"])
def test_a_newborns_random_life_is_rolled_from_the_page(browser, site):
    """Grim Reaper has no die but with random life, where a birth is followed by a roll for the newborn's
    life (roll:N). The page hid ROLL and the die for the whole game, as for a game without one, so a birth
    left the phone with a roll to make and nothing to make it with (found 2026-11-25 playing every game
    through the page)."""
    site.runtime.call(c.NewGame("grim-reaper", 2, {"random_life": True}, None, None, None, abandon=True))
    for action in "M5BGG F3GRG pass pass M4GRB F5RRR pass pass F1GBG M3RGG end".split():
        assert site.runtime.call(c.Act(action)).ok, action
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    assert not page.locator("#roll").is_visible() and not page.locator("#die").is_visible()  # none rolled yet
    after(page, lambda: site.runtime.call(c.Act("+MGBB/GBG")))
    assert page.locator("#roll").is_visible() and "to roll" in page.locator("#turn-name").inner_text()
    page.locator("#roll").click()
    until(page, "document.querySelector('#die').textContent === '7'")
    state = site.runtime.snapshot()["state"]
    assert state["die"] == "7" and not state["awaiting_roll"] and "GBB" in state["stones"]  # the game goes on
    page.context.close()


@pytest.mark.die("GGGG")
def test_roll_is_dimmed_while_no_roll_is_due(browser, site):
    site.runtime.call(c.NewGame("ez-gryb", 2, {}, None, None, None, abandon=True))
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    is_idle = "document.querySelector('#roll').classList.contains('idle')"
    assert not page.evaluate(is_idle)
    page.locator("#roll").click()
    until(page, is_idle)  # rolled: the turn's move is next
    # Dimmed, its word is still read: WCAG AA's 4.5:1, and no fading that the computed colours would not show.
    assert page.evaluate("getComputedStyle(document.getElementById('roll')).opacity") == "1"
    assert contrast(page, "#roll") >= 4.5
    page.context.close()


def test_a_watchers_roll_is_as_dim_as_its_other_buttons_when_a_roll_is_due(browser, site):
    """Unpaired, the controls are dimmed; ROLL glowed yellow all the same when a roll was due (its
    attention rule outweighed the watcher's)."""
    site.runtime.call(c.NewGame("ez-gryb", 2, {}, None, None, None, abandon=True))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0 && document.body.classList.contains('watching')")
    assert page.evaluate("document.querySelector('#roll').classList.contains('attention')")  # a roll is due
    look = (
        "(id) => { const s = getComputedStyle(document.getElementById(id)); "
        "return [s.backgroundColor, s.boxShadow]; }"
    )
    assert page.evaluate(look, "roll") == page.evaluate(look, "ok") == ["rgb(39, 48, 58)", "none"]
    page.context.close()


@pytest.mark.die("GGGG")
def test_a_move_is_typed_in_the_notation_with_the_legal_ones_suggested(browser, site):
    """For a player whose screen reader cannot aim at a node (or who would rather type): "Type a move"
    suggests the legal moves, plays the one typed, and a move the rules refuse is answered, changes
    nothing and stays in the field to be put right."""
    rt = site.runtime
    rt.call(c.NewGame("ez-gryb", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    after(page, lambda: page.locator("#roll").click())
    s = rt.call(c.Snapshot())
    page.locator("#type-box summary").click()
    assert s["legal"] and not any(a.startswith("roll") for a in s["legal"])
    until(page, f"document.querySelectorAll('#legal-list option').length === {len(s['legal'])}")
    assert page.locator("#legal-list option").evaluate_all("os => os.map(o => o.value)") == s["legal"]
    wrong = next(n for n in "GRYB" if n != s["state"]["die"])
    page.locator("#type-action").fill(wrong)
    page.locator("#type-form button").click()
    until(page, "document.getElementById('message').classList.contains('refused')")
    assert "you rolled" in page.locator("#message").text_content()
    assert (
        page.locator("#type-action").input_value() == wrong and rt.call(c.Snapshot())["state"] == s["state"]
    )
    page.locator("#type-action").fill(s["legal"][0])
    after(page, lambda: page.locator("#type-action").press("Enter"))
    until(page, "document.getElementById('type-action').value === ''")
    assert rt.call(c.Snapshot())["state"]["last"] == [s["legal"][0]]
    page.context.close()


def test_the_board_is_played_from_the_keyboard_and_says_what_is_under_its_ring(browser, site):
    """One tab stop for the whole board: the letters walk the notation, Backspace and 0 go up, the arrows
    go where they point, Enter presses (through the emulated Pico, as a tap); a live region says where
    the ring is and what stands there."""
    site.runtime.call(c.NewGame("ez-gryb", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    at = "document.getElementById('board').dataset.at"
    said = "document.getElementById('board-say').textContent"
    page.locator("#roll").focus()
    after(page, lambda: page.keyboard.press("Enter"))  # ROLL is a button: G
    roll = page.locator("#roll").bounding_box()
    page.keyboard.press("Shift+Tab")  # back from ROLL, past Zoom only, to the board
    assert page.evaluate("document.activeElement.id") == "zoom"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "board"
    assert page.locator("#board-keys").is_visible()  # how the keys work, while the board has the keyboard
    # ... laid over the board: nothing under it moves (a click that took the keyboard away would miss).
    assert page.locator("#roll").bounding_box() == roll
    for key, node in (
        ("r", "R"),
        ("g", "RG"),
        ("y", "RGY"),
        ("b", "RGYB"),
        ("g", "G"),
        ("Backspace", "0"),
        ("b", "B"),
        ("0", "0"),
    ):
        page.keyboard.press(key)
        assert page.evaluate(at) == node, (key, node)
    assert page.evaluate(said) == "head node: empty"
    nodes = {
        n["n"]: (n["x"], n["y"])
        for n in page.locator("#board circle.n").evaluate_all(
            "cs => cs.map(c => ({ n: c.dataset.n, x: +c.getAttribute('cx'), y: +c.getAttribute('cy') }))"
        )
    }
    for key, ahead in (
        ("ArrowRight", lambda p: p[0] > 0),
        ("ArrowLeft", lambda p: p[0] < 0),
        ("ArrowUp", lambda p: p[1] < 0),
        ("ArrowDown", lambda p: p[1] > 0),
    ):
        page.keyboard.press("0")
        page.keyboard.press(key)
        assert ahead(nodes[page.evaluate(at)]), (key, page.evaluate(at))
    page.keyboard.press("g")
    assert page.evaluate(said) == "G: empty, a target"
    after(page, lambda: page.keyboard.press("Enter"))
    assert site.pressed == ["G"] and site.runtime.snapshot()["state"]["stones"]["G"]["player"] == 0
    page.keyboard.press("Backspace")
    page.keyboard.press("g")
    assert page.evaluate(said) == "G: Ann's stone, last move"
    page.context.close()


# Whether a node is wholly inside the zoomed box the board scrolls in.
INSIDE = """(name) => { const v = document.getElementById('board-view').getBoundingClientRect();
    const r = document.querySelector(`#board circle.n[data-n="${name}"]`).getBoundingClientRect();
    return r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom; }"""
# The diameter on the screen, in CSS px, of what a finger hits on a node: its circle and its transparent rim.
TARGET = """(name) => { const svg = document.getElementById('board');
    const c = svg.querySelector(`circle.n[data-n="${name}"]`);
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return 2 * (+c.getAttribute('r') + parseFloat(getComputedStyle(c).strokeWidth) / 2) * scale; }"""


def test_a_narrow_phone_zooms_the_board_and_the_zoomed_board_follows_the_play(browser, site):
    """On a 320 px phone a bottom-level node is a target under the 24 px a fingertip needs. Zoom draws the
    board twice as large in a box of the same size that the finger scrolls (the page itself never scrolls
    sideways); a tap there plays; another player's move outside the box is scrolled into it, and so is the
    keyboard's ring; the choice is this phone's and outlives a reload."""
    rt = site.runtime
    rt.call(c.NewGame("25-mens-gryb", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    page = browser.new_context(
        viewport=NARROW, device_scale_factor=2, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(site.url + "/")
    pair(page, rt)
    until(page, "document.body.dataset.version > 0")
    whole = page.evaluate(TARGET, "GGGG")
    box = page.locator("#board-view").bounding_box()
    assert whole < 24 and page.locator("#zoom").get_attribute("aria-pressed") == "false"
    page.locator("#zoom").tap()
    assert page.locator("#zoom").get_attribute("aria-pressed") == "true"
    zoomed = page.evaluate(TARGET, "GGGG")
    assert zoomed >= 36 and abs(zoomed - 2 * whole) < 0.5, (whole, zoomed)
    assert page.locator("#board-view").bounding_box() == box  # the box keeps the board's place and size
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    # Zoomed from the whole board, the middle stays the middle: the head node, and not the corners.
    assert page.evaluate(INSIDE, "0") and not page.evaluate(INSIDE, "BBBB")
    after(page, lambda: page.locator("#board circle.n[data-n='G']").tap())
    assert site.pressed == ["G"] and rt.snapshot()["state"]["stones"]["G"]["player"] == 0
    after(page, lambda: rt.call(c.Press("BBBB")))  # Bo, at the board, in a corner the box does not show
    until(page, f"({INSIDE})('BBBB')")
    assert not page.evaluate(INSIDE, "0")
    page.reload()
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#zoom").get_attribute("aria-pressed") == "true"
    assert page.evaluate(TARGET, "GGGG") == zoomed
    until(page, f"({INSIDE})('BBBB')")  # the last move, shown again where it was played
    page.locator("#board").focus()
    page.keyboard.press("0")  # the keyboard's ring to the head node: the box goes with it
    until(page, f"({INSIDE})('0')")
    page.locator("#zoom").tap()
    assert page.evaluate(TARGET, "GGGG") == whole
    assert page.locator("#board").bounding_box()["width"] == box["width"]
    # The Giant board (depth 5) halves every node again: zoomed, it is drawn four times as large, its
    # bottom-level nodes as large as the standard board's zoomed.
    page.locator("#zoom").tap()
    rt.call(c.NewGame("25-mens-gryb", 2, {"depth": 5}, ["Ann", "Bo"], None, None, abandon=True))
    until(page, "document.getElementById('board').dataset.depth === '5'")
    giant = page.evaluate(TARGET, "GGGGG")
    assert abs(giant - zoomed) < 0.1 * zoomed, (giant, zoomed)
    page.context.close()


# Where the zoomed box is scrolled to.
SCROLLED = "(v => [v.scrollLeft, v.scrollTop])(document.getElementById('board-view'))"


def finger(page, name: str):
    """A finger's tap on the node where the screen shows it (a locator's tap scrolls it into view first)."""
    box = page.locator(f"#board circle.n[data-n='{name}']").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def settled(page):
    """Wait until the zoomed box stops scrolling (a tap while it scrolls only stops it, as on a phone)."""
    was = None
    while (now := page.evaluate(SCROLLED)) != was:
        was = now
        time.sleep(0.2)


def zoomed_phone(browser, site, game_id: str, seats=None):
    """A new game of Ann and Bo, and a narrow phone's page on it, paired and zoomed."""
    site.runtime.call(c.NewGame(game_id, 2, {}, ["Ann", "Bo"], None, seats, abandon=True))
    page = browser.new_context(
        viewport=NARROW, device_scale_factor=2, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(site.url + "/")
    pair(page, site.runtime)
    until(page, "document.body.dataset.version > 0")
    page.locator("#zoom").tap()
    return page


def test_a_tap_that_gives_the_zoomed_board_the_keyboard_leaves_the_box_where_the_finger_put_it(browser, site):
    """A tap gives the board the keyboard too (it is one tab stop), its ring unseen: the zoomed box must not
    scroll to where that ring was (the head node at first), which moved the board under the finger between
    a pick and its target, and after every tap on ROLL or another button."""
    rt = site.runtime
    page = zoomed_phone(browser, site, "hyper-chess")
    # Ann's finger takes the box to her pieces, in the corner of the blue nodes.
    page.evaluate("(v => v.scrollTo(0, v.scrollHeight))(document.getElementById('board-view'))")
    corner = page.evaluate(SCROLLED)
    assert page.evaluate(INSIDE, "BGBB") and page.evaluate(INSIDE, "BRB") and not page.evaluate(INSIDE, "0")
    after(page, lambda: finger(page, "BGBB"))  # her bishop
    assert page.evaluate("document.activeElement.id") == "board"
    time.sleep(0.6)  # as long as a smooth scroll would take
    assert page.evaluate(SCROLLED) == corner
    after(page, lambda: finger(page, "BRB"))
    assert site.pressed == ["BGBB", "BRB"] and rt.snapshot()["state"]["last"] == ["BGBB", "BRB"]
    page.context.close()


@pytest.mark.cloth
def test_the_zoomed_board_goes_to_the_computers_move_and_stays_on_a_pick_the_finger_can_see(browser, site):
    """The most pressing of what is worth following decides: the computer's move off the box is scrolled to
    though the player's own move is in it (it was left off the box); and a piece picked at the box's edge,
    most of it showing, keeps the box still for the tap on its target (it was scrolled away from under the
    finger because the last move was off the box too)."""
    rt = site.runtime
    page = zoomed_phone(browser, site, "hyper-chess", ["human", "easy"])
    page.evaluate("(v => v.scrollTo(0, v.scrollHeight))(document.getElementById('board-view'))")
    after(page, lambda: finger(page, "BGBB"))
    after(page, lambda: finger(page, "BRB"))
    # Bo, the computer, moves a piece of his in the far corner, which Ann carries out at the board.
    until(page, "!!document.querySelector('#board .proposal')")
    stone, to = rt.snapshot()["table"]["proposal"].lstrip("x").split("-")
    until(page, f"({INSIDE})('{stone}')")
    assert not page.evaluate(INSIDE, "BRB")
    for name in (stone, to):
        after(page, lambda n=name: rt.call(c.Press(n)))
    assert rt.snapshot()["state"]["last"] == [stone, to] and rt.snapshot()["state"]["to_move"] == 0
    settled(page)
    # Ann's finger takes the box back to her pieces, a pawn just over its lower edge, and picks it there.
    page.evaluate("""(v => {
        const r = document.querySelector('#board circle.n[data-n="BYBB"]').getBoundingClientRect();
        v.scrollTo(0, v.scrollTop + r.bottom - v.getBoundingClientRect().bottom - 6);
    })(document.getElementById('board-view'))""")
    assert not page.evaluate(INSIDE, "BYBB") and not page.evaluate(INSIDE, stone)
    edge = page.evaluate(SCROLLED)
    after(page, lambda: finger(page, "BYBB"))
    assert rt.snapshot()["table"]["picks"] == ["BYBB"]
    time.sleep(0.6)  # as long as a smooth scroll would take
    assert page.evaluate(SCROLLED) == edge
    page.context.close()


@pytest.mark.die("G")
def test_the_zoomed_board_goes_to_where_the_roll_lets_the_player_go(browser, site):
    """Ann has the box on a corner of the cloth and rolls G: the one node she may press, the top-level G,
    is off the box, and the box goes to it (the last move, unchanged by a roll, does not decide)."""
    rt = site.runtime
    page = zoomed_phone(browser, site, "ez-gryb")
    page.evaluate("(v => v.scrollTo(v.scrollWidth, v.scrollHeight))(document.getElementById('board-view'))")
    assert not page.evaluate(INSIDE, "G")
    after(page, lambda: page.locator("#roll").tap())
    assert rt.snapshot()["table"]["targets"] == ["G"]
    until(page, f"({INSIDE})('G')")
    settled(page)
    after(page, lambda: finger(page, "G"))
    assert site.pressed == ["G"]
    page.context.close()


def test_nothing_scrolls_the_zoomed_box_from_under_a_finger_and_a_drag_presses_no_node(browser, site):
    """Another player's move, off the box, comes while Ann's finger is scrolling the box: the box stays
    with her finger (it jumped to the move mid-drag, and her finger went on from there); the drag
    scrolls and presses nothing."""
    rt = site.runtime
    page = zoomed_phone(browser, site, "25-mens-gryb")
    after(page, lambda: finger(page, "G"))
    settled(page)
    start = page.evaluate(SCROLLED)
    touch = page.context.new_cdp_session(page)
    view = page.locator("#board-view").bounding_box()
    x, y = view["x"] + view["width"] / 2, view["y"] + view["height"] / 2
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 9):  # her finger drags the board 40 px to the right, and stays on it
        touch.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x + 5 * step, "y": y}]}
        )
        time.sleep(0.02)
    settled(page)
    dragged = page.evaluate(SCROLLED)
    assert dragged[0] < start[0] and dragged[1] == start[1]
    after(page, lambda: rt.call(c.Press("BBBB")))  # Bo, at the board, in a corner the box does not show
    time.sleep(0.6)  # as long as a smooth scroll would take
    assert page.evaluate(SCROLLED) == dragged and not page.evaluate(INSIDE, "BBBB")
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    settled(page)
    assert site.pressed == ["G"]
    page.context.close()


# Whether the middle of one of these nodes is inside the zoomed box (what follow() asks before it scrolls).
SEEN = """(names) => { const v = document.getElementById('board-view').getBoundingClientRect();
    return names.some((name) => {
        const r = document.querySelector(`#board circle.n[data-n="${name}"]`).getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        return x >= v.left && x <= v.right && y >= v.top && y <= v.bottom; }); }"""


def test_a_replay_zooms_and_its_zoomed_box_follows_each_step(browser, site):
    """A finished game's replay has the Zoom of the page it was played on, kept by the same choice of this
    phone: zoomed, each step forward or back brings the move it shows into the box."""
    rt = site.runtime
    s = finish(rt, random.Random(5), "25-mens-gryb", 2, names=["Ann", "Bo"])
    actions = [a for _, a in rt.store.events(s["game_id"])]
    page = browser.new_context(
        viewport=NARROW, device_scale_factor=2, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(f"{site.url}/history/{s['game_id']}")
    until(page, f"document.getElementById('plyno').textContent === '{len(actions)}'")
    whole = page.evaluate(TARGET, "GGGG")
    page.locator("#zoom").tap()
    assert page.locator("#zoom").get_attribute("aria-pressed") == "true"
    assert abs(page.evaluate(TARGET, "GGGG") - 2 * whole) < 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    game = find("25-mens-gryb")(2)
    lasts = []
    for action in actions[:16]:
        game.apply(game.parse(action))
        lasts.append(game.state_dict()["last"])
    assert len({tuple(last) for last in lasts if last}) > 4  # moves all over the board, not one corner
    page.locator("[data-step='first']").tap()
    for ply, last in enumerate(lasts, 1):
        page.locator("[data-step='next']").tap()
        until(page, f"document.getElementById('plyno').textContent === '{ply}'")
        if last:
            until(page, f"({SEEN})({last!r})")
    page.locator("[data-step='prev']").tap()  # back one: the move before is shown, and brought into the box
    until(page, f"document.getElementById('plyno').textContent === '{len(lasts) - 1}'")
    if lasts[-2]:
        until(page, f"({SEEN})({lasts[-2]!r})")
    page.goto(site.url + "/")  # the page played on is zoomed too: one choice
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#zoom").get_attribute("aria-pressed") == "true"
    page.context.close()


@pytest.mark.die("GGRGYGBG")  # Ann enters G, R, Y, B; Bo's rolls of G find nothing to do
def test_a_screen_reader_hears_whose_turn_it_is_and_the_points_and_not_the_figures_on_the_board(
    browser, site
):
    """Whose turn it is is a live region, written only when it changes (words written again are read out
    again); points are said as they change (the move's message, "Ann: B", does not give them, and a GRYB's
    outline is for the eye); the board, a control, reads as its name, not as the figures drawn on it."""
    rt = site.runtime
    rt.call(c.NewGame("ez-gryb", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    live = page.evaluate("""['turn-name', 'points-say'].map(id => !!document.getElementById(id)
        .closest('[aria-live="polite"], [role="status"]'))""")
    assert live == [True, True]
    page.evaluate("""() => { window.heard = [];
        for (const id of ['turn-name', 'points-say']) new MutationObserver(() => heard.push([id,
            document.getElementById(id).textContent])).observe(document.getElementById(id),
            { childList: true, characterData: true, subtree: true }); }""")
    after(page, lambda: rt.call(c.Roll()))
    after(page, lambda: rt.call(c.Press("B")))  # refused (G was rolled): the turn stays Ann's
    assert rt.snapshot()["feedback"]["ok"] is False
    for colour in "GRYB":
        after(page, lambda colour=colour: rt.call(c.Press(colour)))
        if colour != "B":
            after(page, lambda: rt.call(c.Roll()))  # Bo's G: nothing to do, the turn passes by itself
            after(page, lambda: rt.call(c.Roll()))
    heard = page.evaluate("heard")
    turns = [text for region, text in heard if region == "turn-name"]
    assert turns[:3] == ["Ann to move", "Bo to roll", "Ann to roll"], turns
    assert turns[-1] == "Ann won" and all(a != b for a, b in zip(turns, turns[1:])), turns
    assert [text for region, text in heard if region == "points-say"] == ["Ann: 1 point"]
    v = version(page)
    rt.call(c.NewGame("hyper-chess", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    until(
        page,
        f"+document.body.dataset.version > {v} && "
        "document.querySelectorAll('#board text.kind').length === 20",
    )
    assert page.locator("#board").aria_snapshot() == '- application "GRYB board"'
    page.context.close()


def contrast(page, selector: str) -> float:
    """WCAG's contrast ratio of an element's text colour against its background."""
    return page.evaluate(
        """(selector) => {
        const style = getComputedStyle(document.querySelector(selector));
        const lum = (c) => c.match(/[\\d.]+/g).slice(0, 3).map((v) => { v /= 255;
            return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        const [a, b] = [lum(style.color), lum(style.backgroundColor)];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }""",
        selector,
    )


@pytest.mark.die("GRYB")
def test_the_letters_on_the_four_colours_can_be_read(browser, site):
    """For a red-green colour-blind player the letter is what tells G from R: on the die, the pairing keys,
    the code typed and the code shown, each letter is at WCAG AA's 4.5:1 against its colour (white on the
    printed green was 3.5:1); and each pairing key shows its colour's corner, as the board does."""
    rt = site.runtime
    rt.call(c.NewGame("ez-gryb", 2, {}, None, None, None, abandon=True))
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/")
    until(page, "document.body.dataset.version > 0")
    for colour in "GRYB":
        after(page, lambda: rt.call(c.Roll()))
        assert page.locator("#die").inner_text() == colour
        assert contrast(page, "#die") >= 4.5, colour
        after(page, lambda colour=colour: rt.call(c.Press(colour)))
    page.locator("#pair-open").click()
    until(page, "document.querySelector('#pair-shown .codeview').textContent.length === 4")
    page.evaluate("""document.querySelector('#pair-shown .codeview')
        .replaceChildren(...[...'GRYB'].map((c) => {
            const s = document.createElement('span'); s.className = 'dot ' + c; s.textContent = c;
            return s; }))""")
    for colour in "GRY":  # three typed: the fourth would send the code
        page.locator(f"#pair-panel .key[data-c='{colour}']").click()
    for colour in "GRYB":
        assert contrast(page, f"#pair-panel .key.{colour}") >= 4.5, colour
        assert contrast(page, f"#pair-shown .dot.{colour}") >= 4.5, colour
        if colour != "B":
            assert contrast(page, f"#pair-panel .slots span.{colour}") >= 4.5, colour
        # Its key also shows the corner of a quadrangle where the colour sits, which the board lights white
        # beside the code's colour (renderer.code_picture): the code read without telling colours apart.
        dot, square = (
            page.locator(f"#pair-panel .key.{colour} .corner {part}").bounding_box() for part in (".on", "")
        )

        def middle(box):
            return (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

        (x, y), (cx, cy) = middle(dot), middle(square)
        assert ((x > cx) - (x < cx), (y > cy) - (y < cy)) == nd.CORNER[colour], colour
    page.locator("#pair-corners summary").click()
    assert (
        "top-left is G, top-right R, bottom-right Y, bottom-left B"
        in page.locator("#pair-corners").inner_text()
    )
    page.context.close()


def test_two_phones_tapping_undo_at_once_take_back_one_move(browser, site):
    """Ann and Bo both tap UNDO on their phones before either sees the other's: one move is taken back,
    not two. Bo's request is held on its way until Ann's has been done, as a slow Wi-Fi would hold it;
    it carries the position Bo's page showed, so the runtime refuses it and his page says why."""
    rt = site.runtime
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], None, None, abandon=True))
    for node in ("0", "0", "G", "0"):  # Ann enters and moves to G; Bo enters
        assert rt.call(c.Press(node)).ok
    ann, bo = (paired_page(browser, site, "/") for _ in range(2))
    shown = rt.call(c.Snapshot())
    for page in (ann, bo):
        until(page, f"document.body.dataset.version >= {shown['version']}")
    held = []
    bo.route("**/api/undo", lambda route: held.append(route))
    bo.locator("#undo").click()
    deadline = time.monotonic() + 10
    while not held:  # the route handler runs as the page's events are dispatched
        assert time.monotonic() < deadline, "Bo's UNDO never left his page"
        bo.wait_for_timeout(20)
    assert held[0].request.post_data_json == {"game": shown["game_id"], "ply": shown["ply"]}
    after(ann, lambda: ann.locator("#undo").click())
    assert rt.call(c.Snapshot())["ply"] == shown["ply"] - 1
    held[0].continue_()
    until(bo, "document.querySelector('#message').classList.contains('refused')")
    assert bo.locator("#message").text_content() == "the game has moved on since: look at the board again"
    assert rt.call(c.Snapshot())["ply"] == shown["ply"] - 1  # Ann's move stands
    for page in (ann, bo):
        page.context.close()


def heartbeat_row(page) -> str:
    return page.evaluate("""[...document.querySelectorAll('#status tr')]
        .filter(r => r.cells[0].textContent === 'last heartbeat')
        .map(r => r.cells[1].textContent)[0] || ''""")


def test_the_settings_pages_hardware_status_is_live(browser, site):
    """An unplugged Pico shows on the settings page within seconds, not at the next reload, and so does its
    return; the page is the one loaded at first (nothing reloads it)."""
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(site.url + "/settings")
    until(page, "document.querySelector('#status') !== null")
    page.evaluate("window.loadedOnce = true")  # gone with the page, were it reloaded
    until(
        page,
        "[...document.querySelectorAll('#status td')]"
        ".some(td => td.textContent.endsWith('the board answers'))",
    )
    site.companion.node_input.unplug(6)  # the emulated Pico's cable pulled for six seconds
    until(
        page,
        "[...document.querySelectorAll('#status td')]"
        ".some(td => td.textContent.endsWith('no word from the board'))",
        timeout=8,
    )
    assert heartbeat_row(page).endswith("s ago: no word from the board")
    until(
        page,
        "[...document.querySelectorAll('#status td')]"
        ".some(td => td.textContent.endsWith('the board answers'))",
        timeout=15,
    )
    assert page.evaluate("window.loadedOnce === true")
    page.context.close()


def test_now_playing_shows_a_running_self_test_and_cancels_it(browser, site):
    """A self-test started from Settings (here by another phone) takes the board for up to five minutes:
    Now playing says so and how far it has got, a tap on the board counts for it, and Cancel gives the
    board back."""
    page = paired_page(browser, site, "/")
    until(page, "document.body.dataset.version > 0")
    assert page.locator("#selftest-bar").is_hidden()
    assert site.companion.start_selftest()
    until(page, "!document.querySelector('#selftest-bar').hidden", timeout=5)
    until(
        page,
        "document.querySelector('#selftest-says').textContent.startsWith('Self-test: press every lit node')",
        timeout=15,
    )
    until(
        page,
        "/^0 of 341 pressed, [45]:\\d\\d left$/"
        ".test(document.querySelector('#selftest-how-far').textContent)",
    )
    version = version_before = site.runtime.snapshot()["version"]
    page.locator("#board circle.n[data-n='G']").click()  # through the emulated Pico: the self-test's press
    until(page, "document.querySelector('#selftest-how-far').textContent.startsWith('1 of 341 pressed')")
    assert site.runtime.snapshot()["version"] == version_before
    page.locator("#selftest-cancel").click()
    until(page, "document.querySelector('#selftest-bar').hidden")
    assert page.locator("#message").inner_text() == "self-test cancelled: the board is the game's again"
    assert not site.companion.selftest_running and site.companion.selftest_report["cancelled"]
    page.locator("#board circle.n[data-n='G']").click()  # the game's again: EZ GRYB asks for the roll first
    until(page, f"(+document.body.dataset.version || 0) > {version}")
    page.context.close()
