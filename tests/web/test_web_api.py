"""The web API and its safety measures, through Flask's test client against a real Runtime."""

import html
import json
import logging
import os
import random
import re
import stat
import time
from dataclasses import replace

import pytest

from companion.games.catalogue import catalogue
from companion.games.catalogue import find as find_game
from companion.games.die import Die
from companion.service import commands as c
from companion.service.config import Config
from companion.service.geometry import board_geometry
from companion.service.runtime import Runtime
from companion.service.store import Store
from companion.session.hands import said
from companion.session.record import GameRecord
from hardware.buttons import load_button_layout
from hardware.node_input import SimulatedNodeInput
from web import create_app
from web.compose import EXAMPLE
from web.openapi import DOCUMENT
from web.replays import Replays
from web.testing import LoadedDie, pair


@pytest.fixture
def rt(tmp_path):
    config = Config()  # its state directory (saved compositions) in the test's own folder, not ~/.local
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    runtime = Runtime(config, Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


@pytest.fixture
def app(rt, tmp_path):
    return create_app(rt, Config(), state_dir=tmp_path / "state")


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def paired(client, rt):
    token = pair(client, rt)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client


def unstarted_link(runtime):
    """A board's link to a broker it has not reached: the Link page's requests are taken (and wait)."""
    from companion.link.link import Link

    return Link(runtime, url="mqtt://127.0.0.1:9", board="probe", secret=bytes(32))


def unchanged(rt, before):
    after = rt.call(c.Snapshot())
    return after["version"] == before["version"] and after["state"] == before["state"]


# -- watching is open ------------------------------------------------------------------------------


def test_anyone_may_watch(client, rt):
    for path in [
        "/",
        "/games",
        "/history",
        "/settings",
        "/api/state",
        "/api/games",
        "/api/history",
        "/api/series",
        "/api/settings",
        "/api/status",
        "/api/openapi.json",
        "/board/4.svg",
    ]:
        assert client.get(path).status_code == 200, path
    state = client.get("/api/state").get_json()
    assert state["game"]["id"] == "ez-gryb" and "legal" not in state
    # The legal actions come apart, for the page's Type a move: the rolls first, then the moves the roll
    # allows.
    assert client.get("/api/legal").get_json() == {
        "version": state["version"],
        "legal": ["roll:G", "roll:R", "roll:Y", "roll:B"],
    }
    rt.call(c.Roll())
    legal = client.get("/api/legal").get_json()
    assert (
        legal["legal"] == [str(a) for a in rt.board.session.hands.game.legal_actions()]
        and legal["legal"][0][0] in "GRYB"
    )


def test_status_defaults_to_the_simulator_and_uses_a_provider(rt, tmp_path):
    assert (
        create_app(rt, Config(), state_dir=tmp_path).test_client().get("/api/status").get_json()["mode"]
        == "simulator"
    )
    provided = {"serial": "connected /dev/ttyACM0", "heartbeat_age": 0.4, "leds": "ws281x"}
    app = create_app(rt, Config(), state_dir=tmp_path, status_provider=lambda: provided)
    status = app.test_client().get("/api/status").get_json()
    # ... and the rows of the settings page's hardware table, which the page draws again from each answer.
    assert status == provided | {
        "mode": "hardware",
        "shown": [
            ["serial", "connected /dev/ttyACM0"],
            ["last heartbeat", "0.4 s ago: the board answers"],
            ["leds", "ws281x"],
            ["mode", "hardware"],
        ],
    }
    page = app.test_client().get("/settings").get_data(as_text=True)
    assert re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", page) == [
        tuple(row) for row in status["shown"]
    ]
    broken = create_app(rt, Config(), state_dir=tmp_path, status_provider=lambda: 1 / 0).test_client()
    assert broken.get("/settings").status_code == 200


def test_the_leds_are_told_with_the_frame_as_an_etag_and_a_pairing_code_is_withheld(rt, tmp_path):
    """GET /api/leds answers from the LED surface's frame last sent; the page asks again and again while its
    LEDs are shown, and gets a 304 while they are unchanged. Without LEDs it is a 404."""
    from companion.rules import node as nd
    from companion.session.renderer import code_picture
    from hardware.led_layout import load_layout
    from hardware.leds import PublicFrame, SimulatedSurface

    assert create_app(rt, Config(), state_dir=tmp_path).test_client().get("/api/leds").status_code == 404
    with SimulatedSurface(load_layout("panels-32x32", board_geometry()), brightness=1.0, fps=1000) as surface:
        client = create_app(rt, Config(), state_dir=tmp_path, leds=surface.shown).test_client()
        first = client.get("/api/leds")
        assert first.get_json() == {
            "frames": 0,
            "limited": False,
            "nodes": {},
            "status": ["#000000"] * 8,
            "withheld": [],
        }
        assert first.headers["Cache-Control"] == "no-cache" and first.headers["ETag"]
        surface.show_nodes({"RG": (255, 0, 200)}, [(255, 255, 255)] * 4)
        lit = client.get("/api/leds", headers={"If-None-Match": first.headers["ETag"]})
        assert (
            lit.status_code == 200
            and lit.get_json()["nodes"] == {"RG": "#ff00c8"}
            and lit.get_json()["frames"] == 1
        )
        again = client.get("/api/leds", headers={"If-None-Match": lit.headers["ETag"]})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == lit.headers["ETag"]
    # A pairing code on the board (what the runtime lights for it): this app is no simulator's page, so it
    # is told the frame as it would be without the code (issue 44, 1), the game's lights under it too.
    with SimulatedSurface(load_layout("panels-32x32", board_geometry()), brightness=1.0, fps=1000) as surface:
        public = PublicFrame(surface)
        client = create_app(
            rt, Config(), state_dir=tmp_path, leds=public.shown, board_leds=surface.shown
        ).test_client()
        game = {"RG": (255, 0, 200), "YYYY": (255, 255, 255)}
        surface.show_nodes(game)
        public.show(game)
        before = client.get("/api/leds")
        assert client.post("/api/pair/start", json={}).status_code == 200
        code = rt.board.effects.code
        surface.show_nodes({nd.name(n): c for n, c in code_picture(code).items()} | game)
        public.show(game)
        shown = client.get("/api/leds", headers={"If-None-Match": before.headers["ETag"]})
        assert shown.status_code == 304
        assert client.get("/api/leds").get_json() == {
            "frames": 1,
            "limited": False,
            "nodes": {"RG": "#ff00c8", "YYYY": "#ffffff"},
            "status": ["#000000"] * 8,
            "withheld": [],
        }


def test_the_settings_page_says_when_the_board_was_last_heard_in_seconds_and_words(rt, tmp_path):
    def row(age):
        provided = {"serial": "up", "heartbeat_age": age, "leds": "ws281x"}
        page = (
            create_app(rt, Config(), state_dir=tmp_path, status_provider=lambda: provided)
            .test_client()
            .get("/settings")
            .get_data(as_text=True)
        )
        return re.search(r"<th>last heartbeat</th><td>([^<]*)</td>", page).group(1)

    assert row(0.4) == "0.4 s ago: the board answers"  # the Pico sends one every half second
    assert (
        row(12.35) == "12 s ago: no word from the board"
    )  # past the 2 s after which the link counts as lost
    assert row(None) == "—"  # never heard
    assert (
        "heartbeat_age"
        in create_app(rt, Config(), state_dir=tmp_path).test_client().get("/api/status").get_json()
    )


def test_the_page_counts_the_link_lost_when_the_bridge_does():
    from firmware_bridge.client import HEARTBEAT_TIMEOUT
    from web.settings import LOST_AFTER

    assert LOST_AFTER == HEARTBEAT_TIMEOUT


def test_the_settings_page_shows_the_last_frames_current_and_whether_it_was_dimmed_to_fit(rt, tmp_path):
    """docs/hardware.md: the settings page shows the LED driver's estimate of the last frame and whether the
    current limiter dimmed it, for whoever sizes the power supply (the API keeps the whole led_status)."""

    def row(**leds):
        provided = {
            "serial": "up",
            "heartbeat_age": 0.4,
            "leds": "ws281x",
            "led_status": {"driver": "ws281x", **leds},
        }
        app = create_app(rt, Config(), state_dir=tmp_path, status_provider=lambda: provided)
        assert app.test_client().get("/api/status").get_json()["led_status"]["driver"] == "ws281x"
        page = app.test_client().get("/settings").get_data(as_text=True)
        found = re.search(r"<th>led current</th><td>([^<]*)</td>", page)
        return found and found.group(1)

    assert row(last_frame_ma=1718, budget_ma=4000, limited=False) == "1718 mA of the 4000 mA budget"
    assert (
        row(last_frame_ma=3999, budget_ma=4000, limited=True)
        == "3999 mA of the 4000 mA budget: dimmed to fit"
    )
    assert row() is None  # a driver that says nothing of it: no row


# -- pairing ---------------------------------------------------------------------------------------


def test_changes_need_pairing(client, rt):
    before = rt.call(c.Snapshot())
    for path, body in [
        ("/api/roll", {}),
        ("/api/press", {"node": "0"}),
        ("/api/undo", {}),
        ("/api/ok", {}),
        ("/api/act", {"action": "G"}),
        ("/api/games/new", {"game": "drangles"}),
        ("/api/settings", {"night": True}),
        ("/api/unpair", {}),
    ]:
        r = client.post(path, json=body)
        assert r.status_code == 401, path
    assert unchanged(rt, before)


def test_pairing_shows_the_code_on_the_board_only(client, rt, caplog):
    caplog.set_level("DEBUG")
    r = client.post("/api/pair/start", json={})
    assert r.status_code == 200 and "code" not in r.get_json()
    code = "".join(rt.board.effects.code)
    assert len(code) == 4 and set(code) <= set("GRYB")
    assert "code" not in str(rt.snapshot()).lower() and "code" not in client.get("/api/state").get_data(
        as_text=True
    )
    r = client.post("/api/pair", json={"code": code})
    assert r.status_code == 200 and r.get_json()["paired"]
    assert rt.call(c.Snapshot()) and rt.board.effects.code is None  # hidden once used
    assert code not in caplog.text
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie


def test_a_code_is_single_use_and_wrong_guesses_slow_their_guesser_alone(client, rt, app):
    """Issue 44, 3: a wrong guess no longer counts against the code (three of them killed the one someone
    else was typing): it counts against its address, which is told how many more it may make for now."""
    client.post("/api/pair/start", json={})
    code = "".join(rt.board.effects.code)
    assert client.post("/api/pair", json={"code": code}).status_code == 200
    late = app.test_client()
    late.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    spent = {"error": "that code is spent (used, or over two minutes old): tap New code for a new one"}
    used = late.post("/api/pair", json={"code": code})
    assert (used.status_code, used.get_json()) == (403, spent)
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.8"
    other.post("/api/pair/start", json={})
    code = "".join(rt.board.effects.code)
    wrong = next(c for c in ("GGGG", "RRRR") if c != code)
    said = [other.post("/api/pair", json={"code": wrong}).get_json()["error"] for _ in range(5)]
    assert said == [
        "wrong code: try again (4 more tries from here for now)",
        "wrong code: try again (3 more tries from here for now)",
        "wrong code: try again (2 more tries from here for now)",
        "wrong code: try again (1 more try from here for now)",
        "wrong code, and the last try from here for now: ask someone at the board for a fresh code "
        "(hold UNDO, then press UNDO)",
    ]
    third = app.test_client()
    third.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert third.post("/api/pair", json={"code": wrong}).status_code == 403
    assert rt.call(c.Snapshot()) and "".join(rt.board.effects.code) == code  # shown still
    assert client.post("/api/pair", json={"code": code}).status_code == 200


def test_asking_again_keeps_the_code_someone_is_typing(client, rt, app):
    """A second phone (or a stranger) pressing Pair while a code is shown gets the same code, not a new
    one under the first phone's fingers, for two minutes more; its wrong guesses do not end it."""
    client.post("/api/pair/start", json={})
    code = "".join(rt.board.effects.code)
    wrong = next(c for c in ("GGGG", "RRRR") if c != code)
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.8"
    assert other.post("/api/pair", json={"code": wrong}).status_code == 403
    assert other.post("/api/pair", json={"code": wrong}).status_code == 403
    holder = app.extensions["gryb-pair-code"]
    holder._expires -= 100  # twenty seconds left ...
    assert other.post("/api/pair/start", json={}).get_json() == {"shown": True, "expires_in": 120}
    assert (
        "".join(rt.board.effects.code) == code and holder._expires - holder.clock() > 115
    )  # ... two minutes again
    assert other.post("/api/pair", json={"code": wrong}).status_code == 403
    assert client.post("/api/pair", json={"code": code}).status_code == 200


def test_a_code_expires(client, rt, app):
    client.post("/api/pair/start", json={})
    code = "".join(rt.board.effects.code)
    holder = app.extensions["gryb-pair-code"]
    holder._expires -= 121
    assert client.post("/api/pair", json={"code": code}).status_code == 403


def test_pairing_is_rate_limited_per_address(app, rt):
    a = app.test_client()
    a.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    codes = [a.post("/api/pair", json={"code": "GGGG"}).status_code for _ in range(6)]
    assert codes[:5].count(429) == 0 and codes[5] == 429
    r = a.post("/api/pair", json={"code": "GGGG"})
    assert (
        r.get_json()["error"] == "too many codes tried: wait a minute" and int(r.headers["Retry-After"]) > 0
    )
    starts = [a.post("/api/pair/start", json={}) for _ in range(6)]  # asking for codes is counted apart
    assert [s.status_code for s in starts] == [200] * 5 + [429]
    assert starts[5].get_json()["error"] == "too many codes asked for: wait a minute"
    b = app.test_client()
    b.environ_base["REMOTE_ADDR"] = "192.168.1.21"
    assert b.post("/api/pair/start", json={}).status_code == 200


def test_three_mistypes_and_a_new_code_leave_the_new_code_to_be_typed(app, rt):
    """Start, three wrong tries and New code were five attempts of one count: the right code was then
    refused for a minute, just where a first-timer who mistyped would be."""
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = "192.168.1.30"
    phone.post("/api/pair/start", json={})
    wrong = next(c for c in ("GGGG", "RRRR") if c != "".join(rt.board.effects.code))
    assert [phone.post("/api/pair", json={"code": wrong}).status_code for _ in range(3)] == [403] * 3
    assert phone.post("/api/pair/start", json={}).status_code == 200  # New code
    assert phone.post("/api/pair", json={"code": "".join(rt.board.effects.code)}).status_code == 200


def test_guessing_from_many_addresses_gets_no_further_than_from_one(app, rt):
    """Five attempts a minute per address, but 256 codes: twenty addresses would guess one in about
    three minutes. The board takes twelve wrong guesses in ten minutes, from anywhere; past them an
    address that has guessed wrong waits, and one that has not gets a single try. Nobody is refused
    a code (issue 44, 3): the owner asks, and types what the board shows."""
    from web.pairing import BOARD_WRONG

    statuses = []
    for n in range(8):
        guesser = app.test_client()
        guesser.environ_base["REMOTE_ADDR"] = f"10.0.1.{n}"
        assert guesser.post("/api/pair/start", json={}).status_code == 200
        miss = next(c for c in ("GGGG", "RRRR") if c != "".join(rt.board.effects.code))
        statuses += [guesser.post("/api/pair", json={"code": miss}).status_code for _ in range(3)]
    assert statuses[:BOARD_WRONG] == [403] * BOARD_WRONG and statuses[BOARD_WRONG:] == [403, 429, 429] * 4
    refused = guesser.post("/api/pair", json={"code": miss})
    assert refused.get_json()["error"].startswith("too many wrong codes from here: try again in 10 minutes")
    assert 590 <= int(refused.headers["Retry-After"]) <= 601
    owner = app.test_client()
    owner.environ_base["REMOTE_ADDR"] = "10.0.2.1"
    assert owner.post("/api/pair/start", json={}).status_code == 200
    assert owner.post("/api/pair", json={"code": "".join(rt.board.effects.code)}).status_code == 200
    holder = app.extensions["gryb-pair-code"].guesses
    holder._all = type(holder._all)(t - 600 for t in holder._all)  # ten minutes on
    holder._by = {who: type(q)(t - 600 for t in q) for who, q in holder._by.items()}
    guesser.post("/api/pair/start", json={})
    assert guesser.post("/api/pair", json={"code": miss}).status_code in (200, 403)


def test_bad_codes_are_400(client):
    for body in [{}, {"code": 1234}, {"code": "GRY"}, {"code": "grby"}, {"code": "GRYBG"}, {"code": None}]:
        assert client.post("/api/pair", json=body).status_code == 400


def test_forget_this_phone_and_forget_all(paired, app, rt):
    other = app.test_client()
    other.environ_base["HTTP_X_CSRF_TOKEN"] = pair(other, rt)
    assert paired.post("/api/unpair", json={}).status_code == 200
    assert paired.post("/api/roll").status_code == 401
    assert other.post("/api/pair/forget-all").status_code == 200
    assert other.post("/api/roll").status_code == 401


# -- CSRF and origin -------------------------------------------------------------------------------


def test_csrf_token_is_required_and_must_match(paired, rt):
    before = rt.call(c.Snapshot())
    assert paired.post("/api/roll", headers={"X-CSRF-Token": ""}).status_code == 403
    assert paired.post("/api/roll", headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert unchanged(rt, before)
    assert paired.post("/api/roll").status_code == 200


# Every state-changing operation of the OpenAPI document, except pairing itself (reachable without a
# session, so that a phone can pair): each needs the session's CSRF token.
UNSAFE = ("post", "put", "patch", "delete")
OPEN = {("POST", "/api/pair/start"), ("POST", "/api/pair")}
CHANGES = sorted(
    (method.upper(), path)
    for path, ops in DOCUMENT["paths"].items()
    for method in ops
    if method in UNSAFE and (method.upper(), path) not in OPEN
)
# A body and path each operation accepts, so that the token is the only thing wrong with the request.
PROBE = "csrf-probe"  # a composition saved (and deleted) by these tests only
COMPOSITION = re.sub(r'(?m)^id = ".*"$', f'id = "{PROBE}"', EXAMPLE)
BODIES = {
    "/api/press": {"node": "G"},
    "/api/act": {"action": "G"},
    "/api/games/new": {"game": "drangles", "abandon": True},  # the game before is under way
    "/api/settings": {"night": True, "brightness": 0.25},
    "/api/compositions": {"text": COMPOSITION, "format": "toml"},
    "/api/seat": {"seat": 1, "kind": "easy"},
    "/api/link/host": {"game": "drangles"},
    "/api/link/join": {"match_code": "7K3Q-M2XD-9F4A"},
}
PATH_PARAMS = {"game_id": PROBE}
SAVED_FIRST = {"/api/compositions/{game_id}/delete"}  # something there to delete


def test_the_csrf_list_is_every_change_in_the_served_openapi_document(app):
    doc = app.test_client().get("/api/openapi.json").get_json()
    served = {(m.upper(), path) for path, ops in doc["paths"].items() for m in ops if m in UNSAFE}
    assert set(CHANGES) == served - OPEN and OPEN <= served and len(CHANGES) >= 10
    for method, path in CHANGES:  # and the document says so
        assert {"session": [], "csrf": []} in doc["paths"][path][method.lower()]["security"], path
    for method, path in OPEN:
        assert "security" not in doc["paths"][path][method.lower()], path


@pytest.mark.parametrize("method,path", CHANGES, ids=[f"{m} {p}" for m, p in CHANGES])
def test_every_change_refuses_a_request_without_the_csrf_token(method, path, rt, tmp_path):
    started = []  # the self-test launcher and its Cancel: neither may run for a refused request
    app = create_app(
        rt,
        Config(),
        state_dir=tmp_path / "state",
        selftest=lambda: started.append(1) is None,
        cancel_selftest=lambda: started.append(0) is None,
        link=unstarted_link(rt),
    )
    client = app.test_client()
    token = pair(client, rt)  # paired: the session cookie is there, only the header is missing or wrong
    rt.call(c.Roll())  # EZ GRYB's die shows G: a press, an action, a hint all have something to do
    if path in SAVED_FIRST:
        rt.call(c.Compose(COMPOSITION, "toml", False))
    url = re.sub(r"\{(\w+)\}", lambda m: PATH_PARAMS[m.group(1)], path)
    try:
        pairings = app.extensions["gryb-pairings"]
        before, epoch, library = rt.call(c.Snapshot()), pairings.epoch, rt.board.library.ids()
        games = [g["id"] for g in client.get("/api/games").get_json()["games"]]
        stored = {
            k: rt.store.setting(k) for k in ("brightness", "night", "sounds", "budget_ma", "colours", "die")
        }
        data = BODIES.get(path, {})
        for headers in ({}, {"X-CSRF-Token": ""}, {"X-CSRF-Token": "forged-" + token[7:]}):
            r = client.open(url, method=method, json=data, headers=headers)
            assert r.status_code == 403, (headers, r.status_code)
            assert "CSRF" in r.get_json()["error"]
        after = rt.call(c.Snapshot())
        assert after is before or (
            after["version"],
            after["state"],
            after["table"],
            after["settings"],
            after["game_id"],
            after["seats"],
        ) == (
            before["version"],
            before["state"],
            before["table"],
            before["settings"],
            before["game_id"],
            before["seats"],
        )
        assert stored == {k: rt.store.setting(k) for k in stored}
        assert rt.board.library.ids() == library
        assert [g["id"] for g in client.get("/api/games").get_json()["games"]] == games
        assert pairings.epoch == epoch and client.get("/api/session").get_json()["paired"] is True
        assert started == []
        # The very same request with the token goes through: it was the token, and only the token.
        r = client.open(url, method=method, json=data, headers={"X-CSRF-Token": token})
        assert r.status_code == 200, (r.status_code, r.get_json())
    finally:
        if PROBE in rt.board.library.ids():  # the catalogue is the process's: leave it as it was
            rt.call(c.ForgetComposition(PROBE))


def test_cross_origin_and_cross_site_posts_are_refused(paired, rt):
    before = rt.call(c.Snapshot())
    for headers in [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:9999"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ]:
        assert paired.post("/api/roll", headers=headers).status_code == 403, headers
    assert paired.post("/api/roll", headers={"Host": "gryb.evil.example"}).status_code == 403  # DNS rebinding
    assert unchanged(rt, before)
    assert (
        paired.post(
            "/api/roll", headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
        ).status_code
        == 200
    )


def test_only_json_bodies_and_small_ones(paired, rt):
    before = rt.call(c.Snapshot())
    r = paired.post("/api/press", data="node=0", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    assert paired.post("/api/press", data='{"node": "0"}', content_type="text/plain").status_code == 415
    assert paired.post("/api/press", data="{nope", content_type="application/json").status_code == 400
    assert paired.post("/api/press", data="[1]", content_type="application/json").status_code == 400
    big = '{"node": "' + "G" * 20000 + '"}'
    assert paired.post("/api/press", data=big, content_type="application/json").status_code == 413
    assert unchanged(rt, before)


# -- the live feed: made to reconnect -------------------------------------------------------------


def _feed(client, headers=None):
    """Open /api/events and return (the response, its chunks as they come)."""
    r = client.get("/api/events", headers=headers or {}, buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store"
    return r, iter(r.response)


def _event(chunks) -> tuple[int, dict]:
    block = next(chunks).decode()
    fields = dict(line.split(": ", 1) for line in block.strip().splitlines())
    return int(fields["id"]), json.loads(fields["data"])


def test_the_feed_asks_to_reconnect_and_a_new_stream_starts_with_the_newest_state(paired, rt):
    """What a page's EventSource needs to come back by itself: a retry time first, an id per event, and
    on any (re)connection the newest snapshot at once, so whatever happened meanwhile is not missed."""
    from web.events import RETRY_MS

    r, chunks = _feed(paired)
    assert next(chunks).decode() == f"retry: {RETRY_MS}\n" and 0 < RETRY_MS <= 5000  # before any event
    seen, snapshot = _event(chunks)
    assert seen == snapshot["version"] == rt.snapshot()["version"] and "legal" not in snapshot
    r.close()  # the phone's connection drops ...
    assert not rt.feed.listeners  # (the stream let go of the runtime)

    paired.post("/api/roll")  # ... and the board changes meanwhile
    paired.post("/api/press", json={"node": "G"})
    now = rt.snapshot()
    assert now["version"] > seen + 1
    # EventSource reconnects with the last id it saw; the new stream brings it up to date at once.
    r, chunks = _feed(paired, {"Last-Event-ID": str(seen)})
    assert next(chunks).decode().startswith("retry: ")
    version, snapshot = _event(chunks)
    assert version == now["version"] and snapshot["state"]["stones"]["G"]["player"] == 0
    # ... and goes on with the changes that follow.
    paired.post("/api/undo")
    version, snapshot = _event(chunks)
    assert version == rt.snapshot()["version"] and snapshot["state"]["stones"] == {}
    r.close()


# -- secret key and headers ------------------------------------------------------------------------


def test_secret_key_made_once_with_mode_0600_and_reused(rt, tmp_path, client):
    state = tmp_path / "keys"
    first = create_app(rt, Config(), state_dir=state)
    key = state / "web-secret.key"
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    second = create_app(rt, Config(), state_dir=state)
    assert first.secret_key == second.secret_key and len(first.secret_key) >= 32
    c1 = first.test_client()
    token = pair(c1, rt)
    c2 = second.test_client()  # "after a restart": the same cookie still works
    c2.set_cookie("gryb_session", c1.get_cookie("gryb_session").value)
    assert c2.post("/api/roll", headers={"X-CSRF-Token": token}).status_code == 200


def _signed(app, data: dict) -> str:
    """A session cookie as ``app`` signs one (Flask's own serializer, with the app's key)."""
    return app.session_interface.get_signing_serializer(app).dumps(data)


def test_a_session_cookie_signed_with_another_key_is_refused(paired, app, rt, tmp_path):
    """A cookie made by another companion (another state directory, so another key), or forged, carries the
    very session this one would accept: only the signature is wrong, and it is refused (401)."""
    session = app.session_interface.get_signing_serializer(app).loads(paired.get_cookie("gryb_session").value)
    assert {"csrf", "epoch", "paired_at"} <= set(session)
    elsewhere = create_app(rt, Config(), state_dir=tmp_path / "another-board")
    assert elsewhere.secret_key != app.secret_key
    before = rt.call(c.Snapshot())
    phone = app.test_client()
    phone.set_cookie("gryb_session", _signed(elsewhere, session))
    headers = {"X-CSRF-Token": session["csrf"]}
    r = phone.post("/api/roll", json={}, headers=headers)
    assert r.status_code == 401 and "pair this phone first" in r.get_json()["error"]
    assert phone.get("/api/session").get_json() == {"paired": False, "csrf": None}
    assert unchanged(rt, before)
    # The same session signed with this board's key goes through: it was the key, and only the key.
    phone.set_cookie("gryb_session", _signed(app, session))
    assert phone.post("/api/roll", json={}, headers=headers).status_code == 200


def test_a_session_older_than_its_twelve_hours_is_refused(paired, app, rt):
    """A phone paired 12 hours ago must pair again: the session's pairing time is signed into the cookie, so
    a phone cannot keep it young. (A cookie whose pairing time says so, signed with this board's key, stands
    for a phone that paired then; nothing sleeps.)"""
    from web.security import SESSION_HOURS

    session = app.session_interface.get_signing_serializer(app).loads(paired.get_cookie("gryb_session").value)
    headers = {"X-CSRF-Token": session["csrf"]}
    phone = app.test_client()
    before = rt.call(c.Snapshot())
    phone.set_cookie(
        "gryb_session", _signed(app, session | {"paired_at": time.time() - SESSION_HOURS * 3600 - 1})
    )
    r = phone.post("/api/roll", json={}, headers=headers)
    assert r.status_code == 401 and "pair this phone first" in r.get_json()["error"]
    assert phone.get("/api/session").get_json()["paired"] is False and unchanged(rt, before)
    # A minute short of the twelve hours it still plays.
    phone.set_cookie(
        "gryb_session", _signed(app, session | {"paired_at": time.time() - SESSION_HOURS * 3600 + 60})
    )
    assert phone.get("/api/session").get_json()["paired"] is True
    assert phone.post("/api/roll", json={}, headers=headers).status_code == 200


def test_security_headers_on_every_response(client):
    for path in ["/", "/api/state", "/static/style.css", "/api/nope", "/nope"]:
        h = client.get(path).headers
        csp = h["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert h["X-Content-Type-Options"] == "nosniff" and h["Referrer-Policy"] == "no-referrer"
        assert h["X-Frame-Options"] == "DENY" and "camera=()" in h["Permissions-Policy"]


def _inline_script_or_style(text: str) -> list[str]:
    """What the CSP would refuse in a page: style attributes, <style> elements, <script> elements with code
    (an element that names its src, or holds JSON data, runs nothing inline)."""
    found = re.findall(r"\sstyle=|<style", text)
    found += [
        tag
        for tag in re.findall(r"<script[^>]*>", text)
        if 'src="' not in tag and 'type="application/json"' not in tag
    ]
    found += re.findall(r"\son[a-z]+=", text)  # onclick= and its kind are inline scripts too
    return found


def test_pages_have_no_inline_script_or_style(app, paired, rt, tmp_path):
    """Every page the app serves (every GET route outside /api and /static, each with the values its path
    takes: every game's rules, a stored game's replay, every board), to a watcher, a paired phone and the
    laptop simulator's own page, and the refusal page; and so every template renders in one of them."""
    from flask import template_rendered
    from jinja2 import meta

    rt.board.die = LoadedDie("GRYB")
    paired.post("/api/games/new", json={"game": "ez-gryb", "options": {"depth": 2, "stones": 4}})
    _play(paired, rt, random.Random(1))  # a finished game: the history lists it with its outcome
    finished = rt.snapshot()["game_id"]
    paired.post("/api/games/new", json={"game": "drangles"})  # and one being played
    rt.call(c.Compose(COMPOSITION, "toml", False))  # a game of one's own: its rules page lists its parameters
    sim = SimulatedNodeInput(load_button_layout(board_geometry()))
    laptop = create_app(rt, Config(), sim_input=sim, state_dir=tmp_path / "state")
    values = {
        "game_id": {
            "/games/<game_id>/rules": [g.id for g in rt.board.catalogue],
            "/history/<int:game_id>": [finished, rt.snapshot()["game_id"]],
        },
        "depth": {"/board/<int:depth>.svg": [2, 3, 4, 5, 6]},
    }
    paths = ["/nope", "/history/999"]  # the refusal page
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static/")):
            continue
        path = [rule.rule]
        for argument in rule.arguments:
            path = [
                re.sub(rf"<[^>]*\b{argument}>", str(v), p) for p in path for v in values[argument][rule.rule]
            ]
        paths += path
    rendered = set()

    def seen(sender, template, context, **extra):
        rendered.add(template.name)

    try:
        with template_rendered.connected_to(seen, app), template_rendered.connected_to(seen, laptop):
            for client in (app.test_client(), paired, laptop.test_client()):
                for path in paths:
                    r = client.get(path)
                    assert r.status_code == (404 if path in ("/nope", "/history/999") else 200), path
                    assert not _inline_script_or_style(r.get_data(as_text=True)), (
                        path,
                        _inline_script_or_style(r.get_data(as_text=True)),
                    )
    finally:
        rt.call(c.ForgetComposition(PROBE))  # the catalogue is the process's: leave it as it was
        laptop.extensions["gryb"].sim_input.close()
    assert "/compose" in paths and "/games/csrf-probe/rules" in paths and f"/history/{finished}" in paths
    # Every template was rendered, or is part of one that was (an include renders with its page).
    env = app.jinja_env
    parts = set(rendered)
    for name in rendered:
        parts |= set(meta.find_referenced_templates(env.parse(env.loader.get_source(env, name)[0])))
    assert parts >= set(env.list_templates()), set(env.list_templates()) - parts


# -- playing through the API -----------------------------------------------------------------------


def test_roll_press_undo_through_the_api(paired, rt):
    r = paired.post("/api/roll").get_json()
    assert r["ok"] and r["state"]["state"]["die"] == "G"
    r = paired.post("/api/press", json={"node": "G"}).get_json()
    assert r["ok"] and r["state"]["state"]["stones"]["G"]["player"] == 0
    r = paired.post("/api/undo").get_json()
    assert r["ok"] and r["state"]["state"]["stones"] == {}


def test_a_refused_move_is_200_with_the_reason(paired, rt):
    paired.post("/api/roll")
    r = paired.post("/api/press", json={"node": "R"}).get_json()
    assert r["ok"] is False and r["message"]
    assert paired.post("/api/press", json={"node": "GGGGG"}).status_code == 400
    assert paired.post("/api/press", json={"node": 3}).status_code == 400


def test_sim_input_takes_the_taps(rt, tmp_path):
    taps = []

    class Sim:
        def tap(self, name):
            taps.append(name)

    app = create_app(rt, Config(), sim_input=Sim(), state_dir=tmp_path)
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = pair(client, rt)
    before = rt.call(c.Snapshot())
    assert client.post("/api/press", json={"node": "RG"}).get_json()["via"] == "board"
    assert taps == ["RG"] and unchanged(rt, before)
    # A tap from a page that still shows a game since replaced is not passed on to the emulated board.
    r = client.post("/api/press", json={"node": "G", "game": before["game_id"] + 1})
    assert (r.status_code, r.get_json()["error"]) == (
        400,
        "a new game has started since: look at the board again",
    )
    assert taps == ["RG"]
    assert client.post(
        "/api/press", json={"node": "G", "game": before["game_id"]}
    ).status_code == 200 and taps == ["RG", "G"]


def test_a_move_meant_for_a_game_since_replaced_is_refused_and_changes_nothing(paired, rt):
    """Ann taps her move as Bo, on another phone, starts a new game: were the move made in the new game,
    Ann would be told it was made in the game she saw. The page sends the game it shows; the runtime checks
    it on its own thread, where no new game can begin between the check and the move."""
    old = rt.call(c.Snapshot())["game_id"]
    assert paired.post("/api/games/new", json={"game": "drangles", "names": ["Ann", "Bo"]}).status_code == 200
    before = rt.call(c.Snapshot())
    assert before["game_id"] != old
    for path, data in [
        ("/api/press", {"node": "0"}),
        ("/api/act", {"action": "0"}),
        ("/api/roll", {}),
        ("/api/ok", {}),
        ("/api/undo", {}),
        ("/api/again", {}),
    ]:
        r = paired.post(path, json=data | {"game": old})
        assert (r.status_code, r.get_json()) == (
            400,
            {"error": "a new game has started since: look at the board again"},
        ), path
        assert unchanged(rt, before), path
    for game in ("1", 1.0, True, [old]):
        r = paired.post("/api/act", json={"action": "0", "game": game})
        assert (
            r.status_code == 400 and "game is the id of the game the page shows" in r.get_json()["error"]
        ), game
    assert unchanged(rt, before)
    r = paired.post("/api/act", json={"action": "0", "game": before["game_id"]}).get_json()
    assert r["ok"] and r["state"]["state"]["stones"]["0"]["player"] == 0


def test_two_phones_tapping_undo_at_once_take_back_one_move(paired, rt):
    """Both phones show the same position and both tap UNDO: the first takes the move back, the second,
    meant for a position that is gone, is refused (it took back a second move, the other player's, until
    2026-11-26). OK is checked the same way: a second OK would end the next player's turn."""
    assert paired.post("/api/games/new", json={"game": "drangles", "names": ["Ann", "Bo"]}).status_code == 200
    for node in ("0", "0", "G"):  # Ann enters and moves to G: two actions
        assert paired.post("/api/press", json={"node": node}).get_json()["ok"]
    shown = rt.call(c.Snapshot())
    assert shown["ply"] == 2
    first = paired.post("/api/undo", json={"game": shown["game_id"], "ply": shown["ply"]})
    assert first.status_code == 200 and first.get_json()["ok"] and first.get_json()["state"]["ply"] == 1
    for chore in first.get_json()["state"]["table"]["chores"]:  # the stone back on 0
        assert paired.post("/api/press", json={"node": chore["node"]}).get_json()["ok"]
    before = rt.call(c.Snapshot())
    for path in ("/api/undo", "/api/ok"):
        r = paired.post(path, json={"game": shown["game_id"], "ply": shown["ply"]})
        assert (r.status_code, r.get_json()) == (
            400,
            {"error": "the game has moved on since: look at the board again"},
        ), path
        assert unchanged(rt, before), path
    for ply in ("1", -1, 1.5, True, None):
        r = paired.post("/api/undo", json={"ply": ply})
        if ply is None:  # not sent: whatever the position
            assert r.status_code == 200 and r.get_json()["state"]["ply"] == 0
        else:
            assert r.status_code == 400 and r.get_json()["error"].startswith(
                "ply is the number of actions"
            ), ply


def test_a_field_an_endpoint_does_not_take_is_a_400_and_changes_nothing(paired, rt):
    # {"zzz": 1} rolled the die: a misspelt field (say "gmae") went unheard, and the command was done anyway.
    before = rt.call(c.Snapshot())
    posts = [path.replace("{game_id}", "mine") for path, ops in DOCUMENT["paths"].items() if "post" in ops]
    assert len(posts) >= 15
    for path in posts:
        r = paired.post(path, json={"zzz": 1})
        assert r.status_code == 400 and r.get_json()["error"].startswith(
            f"unknown field 'zzz': POST {path} takes"
        ), path
        schema = DOCUMENT["paths"][path.replace("mine", "{game_id}")]["post"].get("requestBody")
        if schema:  # the document says so too
            ref = schema["content"]["application/json"]["schema"]
            ref = DOCUMENT["components"]["schemas"][ref["$ref"].split("/")[-1]] if "$ref" in ref else ref
            for each in ref.get("oneOf", [ref]):  # a body of several kinds (a new game, for each game): each
                assert each.get("additionalProperties") is False, path
    assert (
        paired.post("/api/roll", json={"game": 1, "gmae": 1}).get_json()["error"]
        == "unknown field 'gmae': POST /api/roll takes game"
    )
    assert unchanged(rt, before) and paired.get("/api/session").get_json()["paired"]


def test_sim_shows_the_code_to_a_loopback_page_only(rt, tmp_path):
    class Sim:
        def tap(self, name):
            pass

    app = create_app(rt, Config(), sim_input=Sim(), state_dir=tmp_path)
    local = app.test_client()
    local.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    assert local.post("/api/pair/start").get_json()["code"] == "".join(rt.board.effects.code)
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "192.168.1.5"
    assert "code" not in remote.post("/api/pair/start").get_json()
    # The laptop's page shows the code a phone on the LAN asked for; the phone cannot read it back.
    assert local.get("/api/pair/shown").get_json() == {"code": "".join(rt.board.effects.code)}
    assert remote.get("/api/pair/shown").status_code == 404
    assert 'data-board-here="yes"' in local.get("/").get_data(as_text=True)
    assert "data-board-here" not in remote.get("/").get_data(as_text=True)


def test_without_the_simulator_no_page_is_told_the_code(client, rt):
    client.post("/api/pair/start", json={})
    assert client.get("/api/pair/shown").status_code == 404
    assert "data-board-here" not in client.get("/").get_data(as_text=True)


def test_new_game_with_names_options_and_a_series(paired, rt):
    body = {
        "game": "drangles",
        "players": 2,
        "options": {"stones": 12},
        "names": ["Ann", " Bo  b "],
        "seats": ["human", "human"],
        "series": {"method": "points", "target": 8},
    }
    r = paired.post("/api/games/new", json=body)
    assert r.status_code == 200, r.get_json()
    s = rt.call(c.Snapshot())
    assert s["game"]["id"] == "drangles" and s["game"]["settings"]["stones"] == 12
    assert s["table"]["names"] == ["Ann", "Bo b"] and s["series"]["method"] == "points"
    r = paired.post(
        "/api/games/new", json=body | {"names": ["\u202eAnn\u202c 12", "B\x00o\x1b[31mb\u2067 زيد"]}
    )
    assert rt.call(c.Snapshot())["table"]["names"] == [
        "Ann 12",
        "B o [31mb زيد",
    ]  # no control or bidi override
    assert paired.get("/api/series").get_json()["series"]["target"] == 8
    before = rt.call(c.Snapshot())
    for bad in [
        {"game": "chess"},
        {"game": "drangles", "players": 5},
        {"game": "drangles", "options": {"x": 1}},
        {"game": "drangles", "options": {"stones": 1}},
        {"game": "drangles", "seats": ["computer", "human"]},
        {"game": "drangles", "series": {"method": "games", "target": 0}},
        {"game": "drangles", "names": "Ann"},
        {"game": "drangles", "players": True},
    ]:
        assert paired.post("/api/games/new", json=bad).status_code == 400, bad
    # An option's value is of its type, as the form sends it: no text for a number or a switch.
    for options, why in [
        ({"stones": "12"}, "option stones is a whole number"),
        ({"depth": True}, "option depth is a whole number"),
        ({"headless": "yes"}, "option headless is true or false"),
        ({"headless": 0}, "option headless is true or false"),
    ]:
        r = paired.post("/api/games/new", json={"game": "connection", "options": options})
        assert r.status_code == 400 and r.get_json()["error"] == why, options
    r = paired.post("/api/games/new", json={"game": "ez-gryb", "players": 3})
    assert r.get_json()["error"] == "EZ GRYB is for 2 players"
    assert unchanged(rt, before)


def test_choosing_the_next_game_starts_from_the_people_at_the_table(paired, rt):
    """The form for the next game comes filled in with who plays now: the people's names (escaped), the
    computer seats at their levels, the number of players; names the companion gave are left blank."""
    body = {
        "game": "pyragryb",
        "players": 3,
        "names": ["Ann", "<b>Bo</b>", ""],
        "seats": ["human", "human", "hard"],
    }
    assert paired.post("/api/games/new", json=body).status_code == 200
    page = paired.get("/games").get_data(as_text=True)
    form = the_form(page)

    def seat(i):
        return re.search(
            rf'<input type="text" name="name{i}"[^>]*>\s*<select name="kind{i}"[^>]*>(.*?)</select>',
            form,
            re.S,
        )

    def value(i):
        return re.search(r'value="([^"]*)"', seat(i).group(0)).group(1)

    def selected(i):
        return re.search(r'<option value="(\w+)" selected>', seat(i).group(1)).group(1)

    assert [value(i) for i in range(4)] == ["Ann", "&lt;b&gt;Bo&lt;/b&gt;", "", ""]
    assert [selected(i) for i in range(4)] == ["human", "human", "hard", "human"]
    assert 'data-players="3"' in form and "<b>Bo" not in page  # games.js chooses 3 where the game takes 3
    # The default names stay placeholders, so a game of two new people does not start as "Player 1".
    assert paired.post("/api/games/new", json={"game": "drangles", "players": 2}).status_code == 200
    form = the_form(paired.get("/games").get_data(as_text=True))
    assert value(0) == value(1) == "" and 'data-players="2"' in form


def test_play_again_moves_the_start_round_and_the_pages_keep_each_player_straight(paired, rt):
    """Play again is begun by the next player along: the players change seats, but the form lists them in
    their order, and the series, its standings and each game's replay give everyone their own name,
    total and colour."""
    colours = ["#FFFFFF", "#FF00C8", "#00E5FF", "#8080FF"]
    assert paired.post("/api/settings", json={"colours": colours}).status_code == 200
    body = {"game": "ez-gryb", "names": ["Ann", "Bo"], "series": {"method": "games", "target": 3}}
    assert paired.post("/api/games/new", json=body).status_code == 200
    assert paired.post("/api/again").get_json()["ok"] is False  # not over yet: nothing changes

    def seat_0_wins():
        rt.board.die = LoadedDie("GGRRYYB")
        for node in ["G", None, "R", None, "Y", None, "B"]:
            assert paired.post("/api/roll").get_json()["ok"]
            if node:
                assert paired.post("/api/press", json={"node": node}).get_json()["ok"]
        return rt.snapshot()["game_id"]

    first = seat_0_wins()
    r = paired.post("/api/again").get_json()
    assert r["ok"] and r["message"] == "EZ GRYB again: Bo begins"
    assert r["state"]["table"]["names"] == ["Bo", "Ann"] and r["state"]["colours"] == ["#ff00c8", "#ffffff"]
    form = the_form(paired.get("/games").get_data(as_text=True))
    assert re.findall(r'name="name\d" maxlength="24" placeholder="[^"]*" value="([^"]*)"', form)[:2] == [
        "Ann",
        "Bo",
    ]
    second = seat_0_wins()  # Bo's win
    series = paired.get("/api/series").get_json()["series"]
    assert series["names"] == ["Ann", "Bo"] and series["totals"] == [1, 1]
    standings = paired.get("/history").get_data(as_text=True)
    assert re.findall(r'fill="(#\w+)"/></svg></td><td>(\w+)</td><td class="num">(\d+)<', standings) == [
        ("#FFFFFF", "Ann", "1"),
        ("#FF00C8", "Bo", "1"),
    ]
    assert paired.get(f"/api/history/{first}").get_json()["colours"] == colours[:2]
    replay = paired.get(f"/api/history/{second}").get_json()
    assert replay["game"]["names"] == ["Bo", "Ann"] and replay["colours"] == [colours[1], colours[0]]
    assert replay["order"] == [1, 0]  # who sat where: the page numbers the stones by player
    # The form offers to go on with the series (games.js chooses it for the game being played, data-current,
    # and not for the others: the browser test); a name put right there is the one the standings show from
    # then on, and the finished games keep the names they were played under.
    form = the_form(paired.get("/games").get_data(as_text=True))
    assert (
        '<option value="continue">go on with the series being played (2 played, 2 players)</option>' in form
    )
    assert 'data-current="ez-gryb"' in form
    body = {"game": "ez-gryb", "names": ["Ann", "Bob"], "series": "continue"}
    assert paired.post("/api/games/new", json=body).get_json()["state"]["table"]["names"] == ["Ann", "Bob"]
    series = paired.get("/api/series").get_json()["series"]
    assert (
        series["names"] == ["Ann", "Bob"] and series["totals"] == [1, 1] and len(series["games_played"]) == 3
    )
    assert paired.get(f"/api/history/{second}").get_json()["game"]["names"] == ["Bo", "Ann"]
    # Going on with it needs as many players; refused, nothing changes.
    state = paired.get("/api/state").get_json()
    r = paired.post("/api/games/new", json={"game": "pyragryb", "players": 3, "series": "continue"})
    assert r.status_code == 400 and "the series being played is for 2 players" in r.get_json()["error"]
    assert paired.get("/api/state").get_json()["version"] == state["version"]
    # Just this game (another game, or the same) leaves the series: it is not counted, and the form
    # offers no series to go on with.
    r = paired.post(
        "/api/games/new", json={"game": "hyper-chess", "names": ["Ann", "Bob"], "seats": ["human", "easy"]}
    )
    assert r.get_json()["state"]["series"] is None and r.get_json()["state"]["table"]["names"][0] == "Ann"
    assert paired.get("/api/series").get_json()["series"] is None
    assert 'value="continue"' not in paired.get("/games").get_data(as_text=True)


def test_the_brightness_slider_starts_where_the_leds_still_show_colours(client):
    """Below hardware.leds.MIN_VISIBLE the LEDs show MIN_VISIBLE, so a slider reaching lower would have
    positions that all look the same."""
    from hardware.leds import MIN_VISIBLE

    page = client.get("/settings").get_data(as_text=True)
    slider = re.search(r'<input type="range" name="brightness"[^>]*>', page).group(0)
    assert f'min="{MIN_VISIBLE}"' in slider and 'max="1"' in slider


def test_settings(paired, rt):
    assert paired.post("/api/settings", json={"brightness": 0.3, "night": True}).status_code == 200
    settings = rt.snapshot()["settings"]
    assert (settings["brightness"], settings["night"], settings["menu"]) == (0.3, True, False)
    colours = ["#FFFFFF", "#FF00C8", "#00E5FF", "#8080FF"]
    r = paired.post("/api/settings", json={"sounds": False, "budget_ma": 2500, "colours": colours})
    assert r.status_code == 200, r.get_json()
    settings = rt.snapshot()["settings"]
    assert (settings["sounds"], settings["budget_ma"], settings["colours"]) == (False, 2500, colours)
    assert rt.board.settings.colours[3] == (128, 128, 255) and rt.store.setting("budget_ma") == 2500
    assert paired.post("/api/settings", json={"time_scale": 8}).status_code == 200  # a Pi Zero 2 W
    assert rt.snapshot()["settings"]["time_scale"] == 8.0 and rt.store.setting("time_scale") == 8.0
    before = rt.call(c.Snapshot())
    for bad in [
        {},
        {"brightness": 2},
        {"brightness": "1"},
        {"night": "yes"},
        {"volume": 1},
        {"brightness": True},
        {"sounds": 1},
        {"budget_ma": 500},
        {"budget_ma": 2000.5},
        {"colours": ["#FFFFFF"] * 4},
        {"colours": ["#00A03C", "#FF00C8", "#00E5FF", "#9A00FF"]},  # seat 1 as green as the board's G
        {"time_scale": 0},
        {"time_scale": 50},
        {"time_scale": "8"},
        {"time_scale": False},
        {"brightness": 0.9, "budget_ma": 10},
    ]:  # one bad value: nothing of the request changes
        r = paired.post("/api/settings", json=bad)
        assert r.status_code == 400, bad
    after = rt.call(c.Snapshot())
    assert after["settings"] == before["settings"]
    # The players' own GRYB die: ROLL asks for its colour, which the phone then enters.
    assert paired.post("/api/settings", json={"die": "physical"}).status_code == 200
    assert paired.post("/api/settings", json={"die": "loaded"}).status_code == 400
    assert paired.post("/api/roll", json={}).get_json()["state"]["table"]["choices"] == [
        {"action": "roll:G", "label": "green"},
        {"action": "roll:R", "label": "red"},
        {"action": "roll:Y", "label": "yellow"},
        {"action": "roll:B", "label": "blue"},
    ]
    assert paired.post("/api/act", json={"action": "roll:B"}).get_json()["state"]["state"]["die"] == "B"
    assert paired.post("/api/settings", json={"die": "electronic"}).status_code == 200
    assert paired.post("/api/act", json={"action": "roll:G"}).status_code == 400  # no typing the die in


def test_the_least_led_budget_follows_the_layout(tmp_path):
    """The phone may set the LED supply down to the first 100 mA above what the layout's LEDs draw dark:
    1100 mA for the 1024-LED matrix, 400 mA for the 349-LED chain (the config accepts 400 there too)."""
    for layout, least in (("panels-32x32", 1100), ("chain-341", 400)):
        config = Config()
        config = replace(
            config,
            leds=replace(config.leds, layout=layout, budget_ma=least),
            state=replace(config.state, dir=str(tmp_path / layout)),
        )
        runtime = Runtime(config, Store(tmp_path / f"{layout}.db"), die=LoadedDie("G"))
        runtime.start()
        try:
            phone = create_app(runtime, config, state_dir=tmp_path / layout).test_client()
            phone.environ_base["HTTP_X_CSRF_TOKEN"] = pair(phone, runtime)
            assert f'name="budget_ma" min="{least}"' in phone.get("/settings").get_data(as_text=True)
            low = phone.post("/api/settings", json={"budget_ma": least - 100})
            assert low.status_code == 400 and f"{least} to 60000" in low.get_json()["error"]
            assert phone.post("/api/settings", json={"budget_ma": least}).status_code == 200
            assert runtime.snapshot()["settings"]["budget_ma"] == least
        finally:
            runtime.stop()
            runtime.store.close()


def test_the_selftest_launcher(paired, rt, client):
    from web import create_app

    started = []
    app = create_app(
        rt,
        Config(),
        state_dir=rt.store.path.parent,
        selftest=lambda: not started.append(1) and len(started) == 1,
    )
    other = app.test_client()
    csrf = pair(other, rt)
    headers = {"X-CSRF-Token": csrf}
    assert other.post("/api/selftest", json={}, headers=headers).status_code == 200
    assert other.post("/api/selftest", json={}, headers=headers).status_code == 409  # one at a time
    assert app.test_client().post("/api/selftest", json={}).status_code in (401, 403)  # not paired
    assert paired.post("/api/selftest", json={}).status_code == 404  # this app has no hardware to test
    assert paired.post("/api/selftest/cancel", json={}).status_code == 404
    assert 'data-selftest="no"' in paired.get("/").get_data(as_text=True)  # Now playing asks nothing of it


def test_history_replay_and_export(paired, rt):
    rt.board.die = LoadedDie("GRYB")  # a game of this small board ends after some 30 actions
    paired.post("/api/games/new", json={"game": "ez-gryb", "options": {"depth": 2, "stones": 4}})
    game_id = rt.snapshot()["game_id"]
    for _ in range(400):
        s = rt.call(c.Snapshot())
        if s["state"]["over"]:
            break
        if s["table"]["chores"]:
            paired.post("/api/press", json={"node": s["table"]["chores"][0]["node"]})
        elif s["state"]["awaiting_roll"]:
            paired.post("/api/roll")
        elif s["legal"]:
            paired.post("/api/act", json={"action": s["legal"][0]})
    assert rt.snapshot()["state"]["over"]
    games = paired.get("/api/history").get_json()["games"]
    assert games[0]["id"] == game_id and games[0]["game"] == "ez-gryb" and games[0]["name"] == "EZ GRYB"
    record = paired.get(f"/api/history/{game_id}").get_json()
    n = len(record["actions"])
    assert record["ply"] == n and record["state"]["over"]
    assert paired.get(f"/api/history/{game_id}?ply=0").get_json()["state"]["stones"] == {}
    # Each step says who made it, in words: the first is Player 1's roll, the second their move.
    first, second = (paired.get(f"/api/history/{game_id}?ply={n}").get_json()["step"] for n in (1, 2))
    assert first == f"Player 1 rolled {record['actions'][0].removeprefix('roll:')}"
    assert second == f"Player 1 placed a stone on {record['actions'][1]}"  # every action in a sentence
    assert paired.get(f"/api/history/{game_id}?ply={n + 1}").status_code == 400
    text = paired.get(f"/api/history/{game_id}/record.txt")
    assert text.status_code == 200 and "attachment" in text.headers["Content-Disposition"]
    assert '[Game "ez-gryb"]' in text.get_data(as_text=True)
    js = paired.get(f"/api/history/{game_id}/record.json").get_json()
    assert js["actions"] == record["actions"]
    page = paired.get(f"/history/{game_id}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and f"EZ GRYB #{game_id}</h2>" in html
    assert games[0]["score"] == "Points" and "<th>Points</th><th>In hand</th>" in html
    won = (
        " & ".join(games[0]["names"][w] for w in games[0]["result"]["winners"]) + " won"
        if games[0]["result"]["winners"]
        else "draw"
    )
    scores = " – ".join(map(str, games[0]["result"]["scores"]))
    assert f" · {scores} · {won}</p>" in html
    listing = paired.get("/history")
    assert listing.status_code == 200 and "<b>EZ GRYB</b>" in listing.get_data(as_text=True)
    assert f">{scores} · {won}</span>" in listing.get_data(as_text=True)
    assert paired.get("/api/history/999").status_code == 404


def test_the_exported_record_says_who_played_when_and_how_it_ended_and_reads_back(paired, rt):
    """docs/notation.md: record.txt and record.json carry the players' names, the computer's level, the
    game's start and its result, and the record reader reads either back to the same record."""
    rt.board.die = LoadedDie("GRYB")
    r = paired.post(
        "/api/games/new",
        json={
            "game": "ez-gryb",
            "options": {"depth": 2, "stones": 4},
            "names": ['Ann "A" #1', "Bo"],
            "seats": ["human", "easy"],
        },
    )
    assert r.status_code == 200, r.get_json()
    game_id = rt.snapshot()["game_id"]
    deadline = time.monotonic() + 60
    while not (s := rt.call(c.Snapshot()))["state"]["over"]:
        assert time.monotonic() < deadline, s["table"]
        proposal = s["table"].get("proposal")
        if s["table"]["chores"]:
            paired.post("/api/press", json={"node": s["table"]["chores"][0]["node"]})
        elif proposal:  # the computer's move, carried out by hand as on the cloth
            paired.post("/api/act", json={"action": proposal})
        elif s["seats"][s["state"]["to_move"]] != "human":
            time.sleep(0.01)  # it rolls by itself, then thinks
        elif s["state"]["awaiting_roll"]:
            paired.post("/api/roll")
        else:
            paired.post("/api/act", json={"action": s["legal"][0]})
    row = rt.store.game_row(game_id)
    text = paired.get(f"/api/history/{game_id}/record.txt").get_data(as_text=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.started))
    winners = " ".join(str(w + 1) for w in row.result["winners"]) or "none"
    assert text.partition("\n\n")[0].splitlines()[-6:] == [
        f'[Date "{started}"]',
        '[Name1 "Ann \\"A\\" #1"]',
        '[Name2 "Bo"]',
        '[Seats "human easy"]',
        f'[Winners "{winners}"]',
        f'[Points "{" ".join(map(str, row.result["scores"]))}"]',
    ]
    from_text = GameRecord.from_text(text)
    from_json = GameRecord.from_json(paired.get(f"/api/history/{game_id}/record.json").get_data(as_text=True))
    assert from_text == from_json
    assert (from_json.names, from_json.seats, from_json.date, from_json.result) == (
        ['Ann "A" #1', "Bo"],
        ["human", "easy"],
        started,
        row.result,
    )
    assert from_text.replay().state_dict() == rt.store.replay(row).state_dict()


def _play(paired, rt, rng, undos=0.0, until_over=True, actions=None):
    """Play the game on the board at random through the page's API: the stones the table asks for
    pressed, ROLL when the die is due, a random legal action otherwise (and now and then, with ``undos``,
    UNDO); to its end, or for ``actions`` requests."""
    done = 0
    while until_over or done < actions:
        s = rt.call(c.Snapshot())
        if s["state"]["over"]:
            break
        done += 1
        if s["table"]["chores"]:
            paired.post("/api/press", json={"node": s["table"]["chores"][0]["node"]})
        elif undos and rng.random() < undos and rt.snapshot()["state"]["turn"] > 0:
            assert paired.post("/api/undo").get_json()["ok"]
        elif s["state"]["awaiting_roll"]:
            paired.post("/api/roll")
        else:
            paired.post("/api/act", json={"action": rng.choice(s["legal"])})


def _from_the_start(rt, game_id, ply):
    """What the replay answered before it kept replayed games: the stored game replayed, its record taken,
    and a new game played from the start to ``ply``."""
    row = rt.store.game_row(game_id)
    record = GameRecord.of(rt.store.replay(row), row.seed)
    game, by = record.new_game(), 0
    for action in record.actions[:ply]:
        by = game.to_move
        game.apply(action)
    return {
        "actions": record.actions,
        "ply": ply,
        "state": game.state_dict(),
        "step": said(game, game.history[-1][0], row.names, by) if ply else None,
    }


@pytest.mark.parametrize(
    "options", [{"depth": 4, "stones": 6, "turn_limit": 40}, {"depth": 5, "stones": 4, "turn_limit": 30}]
)
def test_each_step_of_a_replay_is_the_position_a_replay_from_the_start_makes(paired, rt, options):
    """The replay keeps the replayed game for its next steps: forwards, backwards and by jumps, every
    answer is what replaying the record from its start to that ply gives (undos in the log included)."""
    rng = random.Random(3)
    rt.board.die = Die(3)
    paired.post("/api/games/new", json={"game": "ez-gryb", "names": ["Ann", "Bo"], "options": options})
    game_id = rt.snapshot()["game_id"]
    _play(paired, rt, rng, undos=0.05)
    assert any(kind == "undo" for kind, _ in rt.store.events(game_id))
    n = len(paired.get(f"/api/history/{game_id}").get_json()["actions"])
    plies = list(range(0, 12)) + list(range(n, n - 12, -1)) + rng.choices(range(n + 1), k=15) + [n // 2, 0, n]
    for ply in plies:
        answer = paired.get(f"/api/history/{game_id}?ply={ply}").get_json()
        assert {k: answer[k] for k in ("actions", "ply", "state", "step")} == _from_the_start(
            rt, game_id, ply
        ), ply
        assert answer["board"]["depth"] == options["depth"]


def test_a_game_still_being_played_is_replayed_as_it_stands_at_every_request(paired, rt):
    """A game in play can be asked for by its id: each action, undo or redo makes a new replay, never the
    one kept from before (even an undo followed by another move, which leaves the record as long)."""
    rng = random.Random(4)
    rt.board.die = Die(4)
    paired.post("/api/games/new", json={"game": "ez-gryb", "options": {"depth": 4, "stones": 6}})
    game_id = rt.snapshot()["game_id"]
    url = f"/api/history/{game_id}"
    for step in range(30):
        _play(paired, rt, rng, undos=0.2, until_over=False, actions=1)
        answer = paired.get(url).get_json()
        live = rt.call(c.Snapshot())["state"]
        assert answer["actions"] == _from_the_start(rt, game_id, 0)["actions"], step
        assert answer["state"]["stones"] == live["stones"] and answer["state"]["turn"] == live["turn"], step
        if answer["actions"]:
            assert (
                paired.get(f"{url}?ply={len(answer['actions']) - 1}").get_json()
                == paired.get(f"{url}?ply={len(answer['actions']) - 1}").get_json()
            )
    kinds = {kind for kind, _ in rt.store.events(game_id)}
    assert kinds == {"action", "undo"}


def test_the_replayed_games_kept_stay_within_their_bound(paired, rt, app):
    """However many games are stepped through, no more are kept than the bound (and one dropped is
    replayed again when asked for)."""
    app.extensions["gryb"].replays = replays = Replays(games=2)
    rt.board.die = LoadedDie("GRYB")
    ids = []
    for _ in range(3):
        paired.post("/api/games/new", json={"game": "ez-gryb", "options": {"depth": 2, "stones": 4}})
        ids.append(rt.snapshot()["game_id"])
        _play(paired, rt, random.Random(5))
    for game_id in ids + ids:
        for ply in (0, 1, 2):
            assert (
                paired.get(f"/api/history/{game_id}?ply={ply}").get_json()
                == paired.get(f"/api/history/{game_id}?ply={ply}").get_json()
            )
            assert len(replays) <= 2
    assert (
        paired.get(f"/api/history/{ids[0]}?ply=1").get_json()["step"]
        == _from_the_start(rt, ids[0], 1)["step"]
    )


def test_a_game_played_win_or_lose_is_listed_by_its_winner_without_points(paired, rt):
    """Grim Reaper keeps no points: its history and replay name who won, with no column of points; the
    series of one game it was is over, and the history says who won that."""
    rng = random.Random(2)
    paired.post(
        "/api/games/new",
        json={"game": "grim-reaper", "names": ["Ann", "Bo"], "series": {"method": "games", "target": 1}},
    )
    game_id = rt.snapshot()["game_id"]
    rt.board.die = Die(4)
    while not (s := rt.call(c.Snapshot()))["state"]["over"]:
        if s["table"]["chores"]:  # the pieces that died, lifted from the cloth
            assert (
                paired.post("/api/press", json={"node": s["table"]["chores"][0]["node"]}).status_code == 200
            )
        elif s["state"]["awaiting_roll"]:
            assert paired.post("/api/roll").status_code == 200
        else:
            assert paired.post("/api/act", json={"action": rng.choice(s["legal"])}).status_code == 200
    winners = s["state"]["winners"]
    won = " & ".join(["Ann", "Bo"][w] for w in winners) + " won" if winners else "draw"
    row = paired.get("/api/history").get_json()["games"][0]
    assert row["id"] == game_id and row["score"] is None and row["hand"] == "Life reserve"
    listing = paired.get("/history").get_data(as_text=True)
    assert f'<span class="result">{won}</span>' in listing
    decided = "won by " + " & ".join(["Ann", "Bo"][w] for w in winners) if winners else "over"
    assert f"Most points after 1 game · 1 played · {decided}</p>" in listing
    html = paired.get(f"/history/{game_id}").get_data(as_text=True)
    assert f"Ann v Bo · {won}</p>" in html
    assert "<th>Player</th><th>Life reserve</th></tr>" in html


def test_openapi_document_lists_every_api_route(app):
    doc = app.test_client().get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    documented = set()
    for path, ops in doc["paths"].items():
        for method in ops:
            documented.add((method.upper(), path.replace("{", "<").replace("}", ">")))
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = rule.rule.replace("<int:", "<").replace("<fmt>", "")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            if rule.rule.endswith("record.<fmt>"):
                assert (method, path.replace("record.", "record.txt")) in documented
                continue
            assert (method, path) in documented, (method, rule.rule)


def test_the_openapi_document_says_which_new_games_are_valid_as_the_catalogue_stands(paired, rt):
    """A new game's body is one schema per game of the catalogue and number of players: its id, its own
    options with their types and ranges, a seat for each player. A composition saved joins it at once; each
    game's smallest body the document allows is taken, and an option past its range is refused."""

    def variants():
        doc = paired.get("/api/openapi.json").get_json()
        return doc["components"]["schemas"]["NewGame"]["oneOf"]

    by_game = {}
    for variant in variants():
        by_game.setdefault(variant["properties"]["game"]["const"], []).append(variant)
    assert set(by_game) == {cls.id for cls in catalogue()}
    ez = by_game["ez-gryb"][0]["properties"]
    assert ez["options"]["properties"]["depth"] == {
        "type": "integer",
        "default": 4,
        "minimum": 2,
        "maximum": 6,
    }
    assert ez["options"]["additionalProperties"] is False and ez["players"] == {"const": 2}
    assert ez["seats"]["minItems"] == ez["seats"]["maxItems"] == 2 and ez["names"]["maxItems"] == 2
    assert [v["properties"]["players"]["const"] for v in by_game["pyragryb"]] == [2, 3, 4]
    assert by_game["grim-reaper"][0]["properties"]["options"]["properties"]["size"]["enum"] == [6, 8]
    for game, each in sorted(by_game.items()):
        fewest = each[0]
        body = {"game": game, "seats": ["human"] * fewest["properties"]["players"]["const"]}
        assert paired.post("/api/games/new", json=body).status_code == 200, game
    assert paired.post("/api/games/new", json={"game": "ez-gryb", "options": {"depth": 7}}).status_code == 400
    try:
        rt.call(c.Compose(COMPOSITION, "toml", False))
        assert PROBE in {v["properties"]["game"]["const"] for v in variants()}
    finally:
        rt.call(c.ForgetComposition(PROBE))
    assert PROBE not in {v["properties"]["game"]["const"] for v in variants()}


def test_a_computer_seat_and_a_hint_from_the_page(paired, rt):
    r = paired.post("/api/games/new", json={"game": "drangles", "players": 2, "seats": ["human", "hard"]})
    assert r.status_code == 200, r.get_json()
    assert rt.call(c.Snapshot())["seats"] == ["human", "hard"]
    assert paired.post("/api/press", json={"node": "0"}).status_code == 200  # the head node
    assert paired.post("/api/hint").get_json()["ok"]
    deadline = time.monotonic() + 10
    while rt.snapshot()["table"]["hint"] is None and time.monotonic() < deadline:
        time.sleep(0.02)
    state = paired.get("/api/state").get_json()
    assert state["table"]["hint"] is not None and state["table"]["message"].startswith("hint:")
    for bad in [
        {"game": "drangles", "seats": ["human"]},
        {"game": "drangles", "seats": ["human", "genius"]},
        {"game": "drangles", "seats": "hard"},
    ]:
        assert paired.post("/api/games/new", json=bad).status_code == 400, bad
    assert rt.call(c.Snapshot())["seats"] == ["human", "hard"]


def test_a_seat_is_handed_over_from_the_page_and_a_bad_one_is_a_400(paired, rt, app):
    game_id = rt.call(c.NewGame("drangles", 2, {}, None, None, ["human", "hard"]))["game_id"]
    r = paired.post("/api/seat", json={"seat": 1, "kind": "human", "game": game_id})
    assert r.status_code == 200 and r.get_json()["message"] == "a person plays for Player 2 now"
    assert r.get_json()["state"]["seats"] == ["human", "human"]
    for bad in [
        {},
        {"seat": "1", "kind": "easy"},
        {"seat": 1, "kind": "genius"},
        {"seat": True, "kind": "easy"},
        {"seat": 1, "kind": ["easy"]},
        {"seat": 1, "kind": "easy", "game": "1"},
    ]:
        r = paired.post("/api/seat", json=bad)
        assert r.status_code == 400 and "one of human, easy" in r.get_json()["error"], bad
    for bad, error in [
        ({"seat": 5, "kind": "easy"}, "seat: 0 to 1"),
        ({"seat": 0, "kind": "easy", "game": game_id + 1}, "a new game has started since"),
    ]:
        r = paired.post("/api/seat", json=bad)
        assert r.status_code == 400 and error in r.get_json()["error"], bad
    stranger = app.test_client()  # not paired
    assert stranger.post("/api/seat", json={"seat": 0, "kind": "easy"}).status_code == 401
    assert rt.call(c.Snapshot())["seats"] == ["human", "human"]


# -- hostile ids, query strings and bodies ---------------------------------------------------------

HUGE = "99999999999999999999999"  # past SQLite's 64-bit INTEGER


def _errors_logged(caplog) -> list:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_ids_past_64_bits_are_404_and_log_no_traceback(client, caplog):
    caplog.set_level(logging.ERROR)
    cases = [
        (f"/api/history/{HUGE}", f"no game {HUGE}"),
        (f"/api/history/{HUGE}/record.json", f"no game {HUGE}"),
        (f"/api/history/{HUGE}/record.txt", f"no game {HUGE}"),
        (f"/api/series/{HUGE}", f"no series {HUGE}"),
        (f"/api/history/{2**63}", f"no game {2**63}"),
        (f"/api/series/{2**63}", f"no series {2**63}"),
        (f"/api/history/{2**63 - 1}", f"no game {2**63 - 1}"),  # the largest SQLite holds: asked, not found
        (f"/api/series/{2**63 - 1}", f"no series {2**63 - 1}"),
    ]
    for path, message in cases:
        r = client.get(path)
        assert (r.status_code, r.get_json()) == (404, {"error": message}), path
    # A replay's page (an old link, a game no longer stored) is a page with the reason and a way back.
    for ident in (HUGE, "999"):
        r = client.get(f"/history/{ident}")
        html = r.get_data(as_text=True)
        assert r.status_code == 404 and r.mimetype == "text/html", ident
        assert f"<p>no game {ident}</p>" in html and 'href="/">Back to the board</a>' in html
    assert not _errors_logged(caplog)


def test_ply_and_limit_are_whole_numbers_or_a_400(client, rt):
    game_id = rt.snapshot()["game_id"]  # the game under way: a record of no actions yet
    assert client.get(f"/api/history/{game_id}").get_json()["ply"] == 0
    assert client.get(f"/api/history/{game_id}?ply=0").status_code == 200
    for bad in ["abc", "1.5", "-1", "1", "", " 0", "+0", "0x0", "٠", "1e0", "9" * 30]:
        r = client.get(f"/api/history/{game_id}", query_string={"ply": bad})
        assert (r.status_code, r.get_json()) == (400, {"error": "ply is a whole number from 0 to 0"}), bad
    for good in ["1", "50", "500"]:
        assert client.get("/api/history", query_string={"limit": good}).status_code == 200, good
    for bad in ["abc", "1.5", "0", "501", "-3", "", " 5", "+5", "5_0", "٥", "9" * 5000]:
        r = client.get("/api/history", query_string={"limit": bad})
        assert (r.status_code, r.get_json()) == (400, {"error": "limit is a whole number from 1 to 500"}), bad


def test_json_nested_too_deep_is_a_400_on_every_json_endpoint(paired, rt, caplog):
    caplog.set_level(logging.ERROR)
    before = rt.call(c.Snapshot())
    posts = [path.replace("{game_id}", "mine") for path, ops in DOCUMENT["paths"].items() if "post" in ops]
    assert "/api/press" in posts and "/api/pair" in posts and len(posts) > 10
    bodies = [
        '{"node":' + "[" * 5000 + "]" * 5000 + "}",  # past the decoder's own recursion limit
        "[" * 5000 + "]" * 5000,
        '{"options": {"x": ' + "[" * 40 + "]" * 40 + "}}",
    ]  # decodes, but deeper than any request needs
    for path in posts:
        for text in bodies:
            r = paired.post(path, data=text, content_type="application/json")
            assert r.status_code == 400, (path, r.status_code, r.get_data()[:200])
            assert "not valid JSON" in r.get_json()["error"] and "nested" in r.get_json()["error"], path
    assert unchanged(rt, before) and paired.get("/api/session").get_json()["paired"]
    assert not _errors_logged(caplog)
    ok = paired.post("/api/settings", json={"colours": rt.snapshot()["settings"]["colours"]})
    assert ok.status_code == 200  # the page's own bodies, two levels deep, still go through


def test_half_a_character_is_a_400_on_every_json_endpoint(paired, rt, caplog):
    # "\ud800" decodes, but no page can be sent with it: a player's name holding one made /games (and, once
    # the game was over, /history for its next 50 games) a 500 for every phone.
    caplog.set_level(logging.ERROR)
    before = rt.call(c.Snapshot())
    posts = [path.replace("{game_id}", "mine") for path, ops in DOCUMENT["paths"].items() if "post" in ops]
    for path in posts:
        for text in ['{"game": "ez-gryb", "names": ["Ann\\ud800", "Bo"]}', '{"\\udfff": 1}']:
            r = paired.post(path, data=text, content_type="application/json")
            assert (r.status_code, r.get_json()) == (
                400,
                {
                    "error": "the body is not valid JSON here: it holds half "
                    "a character (a lone surrogate such as \\ud800)"
                },
            ), path
    assert unchanged(rt, before) and paired.get("/api/session").get_json()["paired"]
    for page in ("/games", "/history"):
        assert paired.get(page).status_code == 200
    assert not _errors_logged(caplog)
    # A whole character written as its two halves is one character.
    r = paired.post(
        "/api/games/new",
        data='{"game": "ez-gryb", "names": ["Ann \\ud83d\\ude00"]}',
        content_type="application/json",
    )
    assert r.status_code == 200 and rt.call(c.Snapshot())["table"]["names"][0] == "Ann \U0001f600"


def test_an_error_quotes_at_most_a_short_prefix_of_what_was_sent(paired, rt):
    before = rt.call(c.Snapshot())
    for node in ["G" * 15000, "X" + "G" * 15000, "0" + "G" * 15000]:
        r = paired.post("/api/press", json={"node": node})
        error = r.get_json()["error"]
        assert r.status_code == 400 and len(error) <= 400 and "G" * 21 not in error, error[:500]
        assert node[:19] + "…" in error  # the first 20 characters (with the opening quote) and an ellipsis
    assert unchanged(rt, before)
    error = paired.post("/api/press", json={"node": "GX"}).get_json()["error"]
    assert error == "bad node name 'GX': 'X' is not one of the colours G, R, Y, B"  # short ones are whole


def test_a_move_that_cannot_be_stored_is_answered_503_and_changes_nothing(tmp_path):
    import sqlite3

    config = replace(Config(), state=replace(Config().state, dir=str(tmp_path / "state")))
    runtime = Runtime(config, Store(tmp_path / "gryb.db", timeout=0.05), die=LoadedDie("G"))
    runtime.start()
    try:
        client = create_app(runtime, config, state_dir=tmp_path / "state").test_client()
        client.environ_base["HTTP_X_CSRF_TOKEN"] = pair(client, runtime)
        client.post("/api/games/new", json={"game": "drangles"})
        before = runtime.call(c.Snapshot())
        other = sqlite3.connect(tmp_path / "gryb.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the database
        r = client.post("/api/act", json={"action": "0"})
        assert r.status_code == 503
        assert r.get_json()["error"] == "could not save (database is locked): nothing changed; try again"
        assert runtime.call(c.Snapshot())["state"] == before["state"]
        other.execute("ROLLBACK")
        assert client.post("/api/act", json={"action": "0"}).status_code == 200
    finally:
        runtime.stop()
        runtime.store.close()


def test_the_games_to_try_first_head_the_list_and_say_so(client):
    """A newcomer meets the manuals' own first game at the top of the list, then the next one (001 gives
    its examples easiest first: Quick & Easy GRYB, then 'Drangles); the rest follow, and /api/games is
    unchanged."""
    page = client.get("/games").get_data(as_text=True)
    cards = re.findall(r'<input type="radio" name="game" value="([^"]+)"', page)
    catalogue = [g["id"] for g in client.get("/api/games").get_json()["games"]]
    assert (
        cards[:2] == ["ez-gryb", "drangles"]
        and sorted(cards) == sorted(catalogue)
        and catalogue[0] == "battlefield"
    )
    badges = re.findall(
        r'value="([^"]+)"[^>]*>\s*<span class="gname">[^<]*<span class="badge">([^<]+)</span>', page
    )
    assert badges == [("ez-gryb", "Start here"), ("drangles", "Try next")]
    assert (
        "New to GRYB? Start with EZ GRYB, the manuals' own first game, then try 'Drangles."
        in html.unescape(page)
    )


def test_each_game_card_names_the_series_its_manuals_give_and_their_default(client):
    """games.js offers a game only its own presets (data-presets) and chooses its default (data-default), as
    `variants` lists them (the browser test chooses EZ GRYB, Hyper-Chess and Multiverse)."""
    page = client.get("/games").get_data(as_text=True)
    described = {g["id"]: g["series"] for g in client.get("/api/games").get_json()["games"]}
    cards = dict(
        (i, (p, d))
        for i, p, d in re.findall(
            r'<input type="radio" name="game" value="([^"]+)"[^>]* '
            r'data-presets="([^"]*)" data-default="([^"]*)"',
            page,
        )
    )
    assert set(cards) == set(described)
    for game_id, (given, default) in cards.items():
        assert given.split() == [p["id"] for p in described[game_id]["presets"]]
        assert default == (described[game_id]["default"] or "")
    assert cards["ez-gryb"] == (
        "ez-best-of-five ez-first-to-21 quick-best-of-three quick-first-to-8",
        "ez-best-of-five",
    )
    assert cards["hyper-chess"] == ("", "")
    form = the_form(page)
    assert (
        '<option value="preset:points:21" data-id="ez-first-to-21" data-source="000 EZ GRYB">'
        "EZ GRYB: first to 21 points</option>" in form
    )


def test_the_games_page_has_one_form_and_each_games_own_options_once(client):
    """The page once held a form per game, each repeating the seats and the series (188 KiB with its script
    and style, over the 150 KB of docs/web.md): now one form, and each game's options in a template of
    its own that games.js puts in the form when the game is chosen."""
    page = client.get("/games").get_data(as_text=True)
    assert page.count("<form") == 1 and page.count('name="name0"') == 1 and page.count('name="series"') == 1
    described = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    templates = dict(re.findall(r'<template id="options-([^"]+)">(.*?)</template>', page, re.S))
    assert set(templates) == {i for i, g in described.items() if g["options"]}
    for game_id, body in templates.items():
        assert re.findall(r'name="opt-(\w+)"', body) == [o["name"] for o in described[game_id]["options"]]
    depth = re.search(r'<input type="number" name="opt-depth"[^>]*>', templates["ez-gryb"]).group(0)
    assert 'value="4"' in depth and 'min="2"' in depth and 'max="6"' in depth
    cards = re.findall(
        r'<input type="radio" name="game" value="([^"]+)" data-name="([^"]+)" data-min="(\d)" '
        r'data-max="(\d)"',
        page,
    )
    assert {i: (html.unescape(n), int(a), int(b)) for i, n, a, b in cards} == {
        i: (g["name"], g["players"]["min"], g["players"]["max"]) for i, g in described.items()
    }


def the_form(page: str) -> str:
    """The one form of /games (games.js sets it for the game chosen)."""
    return page.split('<form class="newgame"')[1].split("</form>")[0]


def test_the_catalogue_gives_each_game_the_series_its_manuals_suggest_and_their_default(client):
    """What the games form needs to offer a game's own series and preselect its default: EZ GRYB's four
    (000: best of five or first to 21; 001's Quick & Easy: best of three or first to 8), 000's first by
    default; none for a game whose manuals suggest none."""
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    ez = games["ez-gryb"]["series"]
    assert [(p["method"], p["target"], p["source"]) for p in ez["presets"]] == [
        ("games", 5, "000 EZ GRYB"),
        ("points", 21, "000 EZ GRYB"),
        ("games", 3, "001 Quick & Easy GRYB"),
        ("points", 8, "001 Quick & Easy GRYB"),
    ]
    assert ez["default"] == "ez-best-of-five" == ez["presets"][0]["id"]
    assert ez["presets"][1]["short"] == "first to 21 points"
    assert games["hyper-chess"]["series"] == games["drangles"]["series"] == {"presets": [], "default": None}


def test_a_name_with_half_a_character_stored_before_the_page_refused_one_shows_as_a_replacement(tmp_path):
    """Before the page refused a lone surrogate (2026-11-25) one could be stored as a name; every page that
    showed it then failed (a 500 on /history, on the replay and the export, for good). The store reads
    each such half as U+FFFD."""
    store = Store(tmp_path / "gryb.db")
    game, rng = find_game("ez-gryb")(), random.Random(1)
    old = store.new_game(game, ["An\ud800n", "Bo"], 7, None, 1.0)
    while not game.over:  # a whole game, as the runtime stores one
        action = game.random_action(rng) if game.is_chance else rng.choice(game.legal_actions())
        game.apply(action)
        store.append(old, "action", str(action), 2.0)
    store.finish_game(old, {"winners": list(game.winners), "scores": list(game.scores)}, 5.0)
    store.set_setting("names-seen", ["\udc80"])
    store.close()
    config = Config()
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    runtime = Runtime(config, Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    try:
        client = create_app(runtime, Config(), state_dir=tmp_path / "state").test_client()
        for path in ("/history", f"/history/{old}"):
            assert client.get(path).status_code == 200, path
        assert client.get("/api/history").get_json()["games"][0]["names"] == ["An\ufffdn", "Bo"]
        assert client.get(f"/api/history/{old}").get_json()["game"]["names"] == ["An\ufffdn", "Bo"]
        for fmt in ("txt", "json"):
            assert client.get(f"/api/history/{old}/record.{fmt}").status_code == 200
        assert runtime.store.game_row(old).names == ["An\ufffdn", "Bo"]
        assert runtime.store.setting("names-seen") == ["\ufffd"]
    finally:
        runtime.stop()
        runtime.store.close()
