"""A hostile guest on the LAN (issue 44), over real sockets to waitress: loopback addresses 127.0.x.y stand
for the phones and guests of docs/security.md, "The threat model"."""

import itertools
import json
import re
import socket
import subprocess
import time
from dataclasses import replace

import pytest

from companion.assembly import Companion
from companion.games.die import Die
from companion.service import commands as c
from companion.service import config as config_mod
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.server import serve
from web.testing import Feed, LoadedDie, Phone


@pytest.fixture
def rt(tmp_path):
    runtime = Runtime(Config(), Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


@pytest.fixture
def server(rt, tmp_path):
    with serve(create_app(rt, Config(), state_dir=tmp_path / "state"), "127.0.0.1", 0) as server:
        yield server


# -- 4: "Forget this phone" ends its session on the server -------------------------------------------


def test_a_forgotten_phones_saved_cookie_and_token_are_refused_at_once(rt, server):
    """Issue 44, 4: after POST /api/unpair the cookie and CSRF token a phone (or whoever copied them) saved
    still changed settings until the 12-hour expiry. Now they are refused at once, and the session says
    unpaired; another phone's session is untouched."""
    phone, other = Phone(server), Phone(server, "127.0.0.2")
    phone.pair(rt)
    other.pair(rt)
    saved = Phone(server)
    saved.cookie, saved.csrf = phone.cookie, phone.csrf
    assert phone.post("/api/unpair")[0] == 200
    status, answer = saved.json("POST", "/api/settings", {"night": True})
    assert status == 401, answer
    assert saved.json("GET", "/api/session")[1] == {"paired": False, "csrf": None}
    assert rt.snapshot()["settings"]["night"] is False
    assert other.json("POST", "/api/settings", {"night": True})[0] == 200
    assert other.json("GET", "/api/session")[1]["paired"] is True


# -- 7: DNS rebinding --------------------------------------------------------------------------------


@pytest.fixture
def sim_server(rt, tmp_path):
    """The simulator's app: its own page (on loopback) is told the code shown, at /api/pair/shown."""
    config = Config()
    config = replace(config, web=replace(config.web, allowed_hosts=("gryb.example.org",)))
    app = create_app(rt, config, sim_input=object(), state_dir=tmp_path / "state")
    with serve(app, "127.0.0.1", 0) as server:
        yield server


def test_a_page_on_another_name_cannot_read_the_board(rt, sim_server):
    """Issue 44, 7: a page at rebind.example whose name is made to point at the board reads it with its
    own Host header; GETs ignored the Host, so it read the code shown at /api/pair/shown. Any request on a
    name that is not this machine's (or the config's allowed_hosts) is now a 403 that says so."""
    port = sim_server.port
    me = Phone(sim_server)
    assert me.post("/api/pair/start")[0] == 200
    for host in ("rebind.example", f"rebind.example:{port}", "gryb.local.evil.example", "192.0.2.7"):
        rebound = Phone(sim_server, host=host)
        for path in ("/api/pair/shown", "/api/state", "/", "/api/status"):
            status, headers, raw = rebound.get(path)
            assert status == 403, (host, path, status)
            assert (
                b"does not answer to the name" in raw and "".join(rt.board.effects.code).encode() not in raw
            )
        assert rebound.post("/api/pair/start")[0] == 403
    name = socket.gethostname().lower().split(".")[0]
    ours = ["localhost", "127.0.0.1", "[::1]", name, f"{name}.local", f"{name}.lan.", "gryb.example.org"]
    ours += [a for a in _addresses() if not a.startswith("127.")][:2]
    for host in ours:
        status, _, raw = Phone(sim_server, host=f"{host}:{port}").get("/api/pair/shown")
        assert status == 200 and json.loads(raw)["code"] == "".join(rt.board.effects.code), host


def _addresses() -> list[str]:
    """This machine's IPv4 addresses as `hostname -I` gives them (another source than the app's)."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout
    except OSError:
        return []
    return [a for a in out.split() if ":" not in a]


# -- 1: nothing a guest reads depends on the code shown ------------------------------------------------


@pytest.fixture
def board(tmp_path):
    """The whole companion on simulated hardware, not as the simulator: no page is the board here."""
    config = config_mod.load(None, sim=True)
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    made = Companion(config, sim=False, port=0, die=Die(1))
    made.start()
    yield made
    made.stop()


FIGURES = ["/api/status", "/api/leds", "/api/state", "/api/settings"]
EVERYTHING = FIGURES + ["/api/legal", "/api/session", "/api/pair/shown", "/api/history", "/", "/settings"]
# What moves with the clock alone: the link's heartbeats and their age (the page words it "0.4 s ago").
CLOCKS = re.compile(rb'("heartbeat_age":|"frames_ok":)[0-9.e-]+|[0-9.]+ s ago')


def _guest_sees(guest, paths) -> dict:
    seen = {}
    for path in paths:
        status, headers, raw = guest.get(path)
        seen[path] = (status, headers.get("ETag"), CLOCKS.sub(rb"\1#", raw))
    return seen


def _settled(board) -> None:
    board.runtime.call(c.Snapshot())  # the frame the runtime drew last has been handed to the LEDs
    assert board.surface.settle(2.0)


def test_nothing_a_guest_reads_depends_on_the_code_shown(board):
    """Issue 44, 1: GET /api/status told guests the LEDs' current, which moves with the colours of the code
    on the board; polling it before and after POST /api/pair/start cut the 256 codes to some 18. Every
    response a guest may read (status, LEDs, state, settings, pages, the live feed) is now the same, byte
    for byte but the clocks, whichever code is shown, and whether one is."""
    board.runtime.call(c.ChangeSettings(brightness=1.0))  # the code's colours weigh most at full brightness
    frozen = board.runtime.clock()
    board.runtime.clock = lambda: frozen  # clocks aside: the die's blink stands still
    guest = Phone(board.server, "127.0.0.2")
    feed = Feed(board.server.port, "127.0.0.2")
    first = feed.snapshot()
    _settled(board)
    none = _guest_sees(guest, EVERYTHING)
    assert b"last_frame_ma" in none["/api/status"][2]
    for i, code in enumerate(itertools.product("GRYB", repeat=4)):
        board.runtime.call(c.ShowCode("".join(code)))
        _settled(board)
        assert board.surface.node_colours().keys() >= {"G", "R", "Y", "B"}  # the board shows it
        paths = EVERYTHING if i % 51 == 0 else FIGURES
        seen = _guest_sees(guest, paths)
        for path in paths:
            assert seen[path] == none[path], ("".join(code), path)
        board.runtime.call(c.ShowCode(None))
    _settled(board)
    # A code asked for as a phone does, then typed: the feed the guest had open all along said nothing.
    Phone(board.server, "127.0.0.3").pair(board.runtime)
    _settled(board)
    assert _guest_sees(guest, EVERYTHING) == none
    with pytest.raises(TimeoutError):
        feed.snapshot(timeout=0.5)
    assert first["version"] == board.runtime.snapshot()["version"]
    feed.close()


# -- 3: a guesser is slowed, not the owner -------------------------------------------------------------

CODES = ["".join(code) for code in itertools.product("GRYB", repeat=4)]


def _guess_away(rt, guessers, rounds) -> list[int]:
    """Each guesser in turn tries a wrong code (a different one each time), ``rounds`` times."""
    code = "".join(rt.board.effects.code or "")
    wrong = iter(c for c in CODES if c != code)
    return [g.post("/api/pair", {"code": next(wrong)})[0] for _ in range(rounds) for g in guessers]


def test_a_guesser_is_slowed_and_the_owner_pairs_all_the_same(rt, server):
    """Issue 44, 3: 12 wrong guesses from 4 addresses made the owner's POST /api/pair/start answer 429 for
    10 minutes, and 3 of them killed the code the owner was typing. Now no guess ends a code; each address
    has few wrong guesses in ten minutes, and the board few from everyone, after which only an address
    that has guessed none may try: the owner, asking for the code and typing what the board shows."""
    from web.pairing import BOARD_WRONG

    owner = Phone(server, "127.0.0.1")
    assert owner.post("/api/pair/start")[0] == 200
    code = "".join(rt.board.effects.code)
    guessers = [Phone(server, f"127.0.1.{i}") for i in range(1, 5)]
    tried = _guess_away(rt, guessers, 5)
    assert owner.post("/api/pair/start")[0] == 200 and "".join(rt.board.effects.code) == code  # kept
    status, answer = owner.json("POST", "/api/pair", {"code": code})
    assert status == 200 and answer["paired"], answer
    late = Phone(server, "127.0.2.1")  # a phone that comes to the table later pairs as well
    late.pair(rt)
    assert tried.count(403) == BOARD_WRONG and tried[-8:] == [429] * 8  # the rest were not looked at
    status, headers, raw = guessers[0].post("/api/pair", {"code": "GGGG"})
    assert status == 429 and 60 <= int(headers["Retry-After"]) <= 601, raw


def _button(companion, name: str, hold: float = 0.08) -> None:
    """A finger on a control-panel button: the mock pin goes low (pull-up), then high again."""
    pin = companion.panel.pin(name)
    pin.drive_low()
    time.sleep(hold)
    pin.drive_high()
    time.sleep(companion.config.panel.bounce_time + 0.02)


def test_a_person_at_the_board_can_always_show_a_fresh_code_that_works_at_once(board):
    """Issue 44, 3: whatever was guessed, from wherever (the owner's phone too), UNDO in the control
    panel's menu shows a fresh code, and the phone that types it is paired at once."""
    runtime = board.runtime
    owner = Phone(board.server, "127.0.0.1")
    assert owner.post("/api/pair/start")[0] == 200
    old = "".join(runtime.board.effects.code)
    guessers = [owner] + [Phone(board.server, f"127.0.1.{i}") for i in range(1, 5)]
    _guess_away(runtime, guessers, 4)
    _button(board, "undo", hold=board.config.panel.hold_time + 0.3)  # the menu ...
    _button(board, "undo")  # ... and a fresh code
    deadline = time.monotonic() + 5
    while runtime.snapshot()["settings"]["menu"] or "".join(runtime.board.effects.code or "") == old:
        assert time.monotonic() < deadline, "no fresh code came"  # (one in 256 is the same: shown again)
        time.sleep(0.02)
    runtime.call(c.Snapshot())
    fresh = runtime.board.effects.code
    assert fresh, "the board shows no code"
    status, answer = owner.json("POST", "/api/pair", {"code": "".join(fresh)})
    assert status == 200 and answer["paired"], answer


# -- 5: the live feed ----------------------------------------------------------------------------------


def test_guests_cannot_take_the_live_feed_from_a_paired_phone(rt, tmp_path):
    """Issue 44, 5: four unread GET /api/events from each of four addresses left every other device with
    503 while they stayed open. A guest now has GUEST_PER_CLIENT feeds an address and never the last
    RESERVED; a paired phone past the total ends the oldest guest's feed; a guest's feed that has told
    nothing for GRYB_GUEST_IDLE seconds ends (the page's EventSource comes back by itself)."""
    from web.events import GUEST_PER_CLIENT, RESERVED
    from web.server import FREE_THREADS, THREADS

    total = THREADS - FREE_THREADS
    app = create_app(rt, Config(), state_dir=tmp_path / "state")
    app.config["GRYB_GUEST_IDLE"] = 3.0
    with serve(app, "127.0.0.1", 0) as server:
        hogs = [Feed(server.port, f"127.0.3.{a}") for a in range(1, 5) for _ in range(4)]
        phone = Phone(server, "127.0.0.1")
        phone.pair(rt)
        mine = Feed(server.port, "127.0.0.1", cookie=phone.cookie)
        assert mine.status == 200 and mine.snapshot()["version"] == rt.snapshot()["version"]
        assert sorted(f.status for f in hogs) == [200] * 4 * GUEST_PER_CLIENT + [429] * (
            16 - 4 * GUEST_PER_CLIENT
        )
        more = [Feed(server.port, f"127.0.4.{a}") for a in range(1, 9) for _ in range(GUEST_PER_CLIENT)]
        open_ = [f for f in hogs + more if f.status == 200]
        assert len(open_) == total - RESERVED and {f.status for f in more[-4:]} == {503}
        paired = [Phone(server, f"127.0.5.{i}") for i in range(1, 6)]
        feeds = []
        for other in paired:
            other.pair(rt)
            feeds.append(Feed(server.port, other.address, cookie=other.cookie))
        assert [f.status for f in feeds] == [200] * 5 and all(f.snapshot() for f in feeds)
        assert sum(f.ended(0.5) for f in open_[:2]) == 2  # the oldest guests' feeds made room
        before = rt.snapshot()["version"]
        rt.call(c.Roll())
        assert mine.snapshot()["version"] > before  # the paired phone's feed goes on
        assert all(f.ended(5.0) for f in open_[2:])  # unread and told nothing: ended
        late = Feed(server.port, "127.0.6.1")
        assert late.status == 200
        for f in hogs + more + feeds + [mine, late]:
            f.close()
