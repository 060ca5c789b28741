"""The whole companion on the simulator: node presses through the emulated Pico, the control panel on
gpiozero's MockFactory pins, the LEDs in memory, the web page on waitress — and the program itself,
started, signalled and killed as systemd would."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest

from companion import assembly as app
from companion.assembly import Companion
from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import Game
from companion.rules import node as nd
from companion.service import commands as c
from companion.service import config as config_mod
from companion.service.store import Store
from companion.session.hands import _presses
from companion.session.palette import BOARD_COLOURS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def companion(tmp_path):
    config = config_mod.load(None, sim=True)
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    made = Companion(config, sim=True, port=0, die=Die(1))
    made.start()
    yield made
    made.stop()


def wait_version(runtime, version: int, timeout: float = 5.0, why: str = "") -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = runtime.snapshot()
        if snap["version"] > version:
            return snap
        time.sleep(0.005)
    raise AssertionError(f"the runtime did not react in time to {why}: {runtime.snapshot()['table']}")


def button(companion, name: str, hold: float = 0.08) -> None:
    """A finger on a control-panel button: the mock pin goes low (pull-up), then high again."""
    pin = companion.panel.pin(name)
    pin.drive_low()
    time.sleep(hold)
    pin.drive_high()
    time.sleep(companion.config.panel.bounce_time + 0.02)  # the release settles before the next press


def tap(sim, name: str) -> None:
    """A finger on a node: down until the bridge reports the press, then up until it reports the release."""
    for pressed, act in ((True, sim.press), (False, sim.release)):
        act(name)
        deadline = time.monotonic() + 5
        while (name in sim.pressed_nodes()) != pressed:
            assert time.monotonic() < deadline, f"{name} never went {'down' if pressed else 'up'}"
            time.sleep(0.002)


def greedy(game: Game, rng: random.Random):
    """A quick, decent player: the action after which the mover stands best (a win above all), ties
    broken at random and now and then a random move, so that it never walks in circles."""
    me = game.to_move
    legal = game.legal_actions()
    if rng.random() < 0.2:
        return rng.choice(legal)
    scored = []
    for action in legal:
        trial = game.copy()
        trial.apply(action)
        scored.append((2.0 if me in trial.winners else trial.evaluate()[me], rng.random(), action))
    return max(scored, key=lambda t: t[:2])[2]


def play_on_the_board(companion, game_id: str, options: dict, max_steps: int = 2000) -> Game:
    """Play a whole game with node presses (emulated Pico -> pty -> bridge) and panel buttons only."""
    runtime, sim = companion.runtime, companion.node_input
    rng = random.Random(7)
    runtime.call(c.NewGame(game_id, 2, options))
    for _ in range(max_steps):
        game = runtime.board.session.hands.game
        if game.over:
            return game
        snap = runtime.snapshot()
        version = snap["version"]
        if snap["table"]["chores"]:
            tap(sim, snap["table"]["chores"][0]["node"])
            wait_version(runtime, version)
            continue
        if game.is_chance:
            button(companion, "roll")
            wait_version(runtime, version)
            continue
        action = greedy(game.copy(), rng)
        presses = _presses(action)
        if not presses:  # a pass or an end of turn: OK
            button(companion, "ok")
            wait_version(runtime, version)
            continue
        for node in presses:
            tap(sim, nd.name(node))
            version = wait_version(runtime, version, why=f"{action} at {nd.name(node)}")["version"]
    raise AssertionError(f"{game_id} did not end in {max_steps} steps")


def test_a_whole_game_of_ez_gryb_through_node_presses_and_panel_buttons(companion):
    game = play_on_the_board(companion, "ez-gryb", {"depth": 2})
    assert game.winners and game.scores[game.winners[0]] > 0
    # Every action reached the store, in order, and the LEDs show the stones in their players' colours.
    events = [a for _, a in companion.store.events(companion.runtime.game_id)]
    assert events == [str(a) for a, _ in game.history]
    assert companion.surface.settle(2)
    lit = companion.surface.node_colours()
    assert all(nd.name(n) in lit for mask in game.stones for n in _bits(mask))


def test_a_whole_game_of_25_mens_gryb_on_the_board(companion):
    game = play_on_the_board(companion, "25-mens-gryb", {"depth": 3, "stones": 4})
    assert game.winners
    assert any(a.kind == "remove" for a, _ in game.history)  # a GRYB's removal, pressed on its node


def _leds_at(companion, brightness: float) -> float:
    """The LEDs' brightness once the runtime's next frames have set it (or what it is after 3 s)."""
    deadline = time.monotonic() + 3
    while companion.surface.brightness != pytest.approx(brightness) and time.monotonic() < deadline:
        time.sleep(0.01)
    return companion.surface.brightness


def test_undo_held_opens_the_menu_and_roll_there_dims_the_board_down_to_night_mode(companion):
    runtime = companion.runtime
    night = companion.config.leds.night_brightness
    version = runtime.snapshot()["version"]
    button(companion, "undo", hold=companion.config.panel.hold_time + 0.3)
    snap = wait_version(runtime, version)
    assert snap["settings"]["menu"] is True
    # The simulator's 0.5: 40 %, night mode (its 25 %), then the brightest again.
    for brightness, leds, night_mode in [(0.4, 0.4, False), (0.4, night, True), (1.0, 1.0, False)]:
        button(companion, "roll")
        assert _leds_at(companion, leds) == pytest.approx(leds)
        settings = runtime.snapshot()["settings"]
        assert (settings["brightness"], settings["night"]) == (brightness, night_mode)
    assert len(runtime.board.session.hands.game.history) == 0  # ROLL in the menu rolled no die
    button(companion, "ok")  # closes the menu
    deadline = time.monotonic() + 3
    while runtime.snapshot()["settings"]["menu"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runtime.snapshot()["settings"]["menu"] is False


def test_the_config_starts_the_board_in_night_mode(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f"[leds]\nbrightness = 0.8\nnight = true\n[state]\ndir = '{tmp_path / 'state'}'\n")
    config = config_mod.load(path, sim=True)
    with Companion(config, sim=True, port=0, die=Die(1)) as made:
        assert _leds_at(made, config.leds.night_brightness) == pytest.approx(config.leds.night_brightness)
        assert made.runtime.snapshot()["settings"]["night"] is True


def test_the_web_page_and_the_status_of_the_hardware(companion):
    with urllib.request.urlopen(companion.url + "/api/state", timeout=5) as r:
        state = json.load(r)
    assert state["game"]["id"] == "ez-gryb"
    status = companion.status()
    assert status["mode"] == "simulator" and status["serial"] == "up"
    assert status["led_status"]["pixels"] == 1024


def test_a_giant_game_leaves_the_cloth_dark_but_for_a_pairing_code(companion):
    """A Giant board does not fit the cloth, so the cloth shows none of its nodes; but a phone asking to
    pair must still read the code there, for the phone is the only way to play that game."""
    runtime, leds = companion.runtime, companion.surface
    version = runtime.snapshot()["version"]
    runtime.call(c.NewGame("drangles", 2, {"depth": 5}, ["Ann", "Bo"]))
    runtime.call(c.Press("G"))
    wait_version(runtime, version)
    runtime.call(c.Tick())
    assert not leds.node_colours()  # Ann's stone on the Giant board's G is not the cloth's G
    request = urllib.request.Request(
        companion.url + "/api/pair/start",
        b"{}",
        method="POST",
        headers={"Content-Type": "application/json", "Origin": companion.url},
    )
    with urllib.request.urlopen(request, timeout=5) as r:
        code = json.load(r)["code"]  # the simulator's own page is told the code; a phone reads the cloth
    runtime.call(c.Tick())
    lit = leds.node_colours()
    assert set(lit) == {"G", "R", "Y", "B"} | {top + colour for top, colour in zip("GRYB", code)}, (code, lit)


def leds_shown(companion, until_shown, timeout: float = 5.0) -> dict:
    """GET /api/leds from the simulator's own page (on the laptop: loopback) until ``until_shown(answer)``."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(companion.url + "/api/leds", timeout=5) as r:
            shown = json.load(r)
        if until_shown(shown):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.02)


def board_colour(shown: str) -> str:
    """Which of the board's colours, G R Y B, a colour as /api/leds tells it (#rrggbb) is: the nearest at full
    brightness (dimmed, yellow is nearer red; and 8-bit gamma there and back takes a low channel away)."""
    rgb = [int(shown[i : i + 2], 16) for i in (1, 3, 5)]
    rgb = [c * 255 / max(rgb) for c in rgb]
    return min(
        BOARD_COLOURS, key=lambda letter: sum((a - b) ** 2 for a, b in zip(rgb, BOARD_COLOURS[letter]))
    )


def test_the_page_is_told_what_the_leds_show(companion):
    """GET /api/leds (issue 3): what the simulator's LEDs show, after brightness, gamma and the limiter:
    after a move, the stone's node in its player's colour, and the status pixels whose turn it is and the
    die."""
    runtime = companion.runtime
    runtime.call(
        c.ChangeSettings(brightness=1.0)
    )  # the colours come out as they are set (at 0.5, half as bright)
    colours = runtime.snapshot()["colours"]
    leds_shown(
        companion, lambda s: s["status"][:4] == [colours[0]] * 4 and not s["nodes"]
    )  # player 1 to roll
    runtime.call(c.Roll())
    snap = runtime.snapshot()
    die, target = snap["state"]["die"], snap["table"]["targets"][0]
    leds_shown(
        companion,
        lambda s: (
            s["status"][:4] == [colours[0]] * 4  # the die as rolled, once it stops
            and [board_colour(pixel) for pixel in s["status"][4:]] == [die] * 4
        ),
    )
    runtime.call(c.Press(target))
    shown = leds_shown(companion, lambda s: target in s["nodes"] and s["status"][:4] == [colours[1]] * 4)
    assert shown["nodes"] == {target: colours[0]} and colours[0] != colours[1]  # the stone just entered
    assert shown["withheld"] == [] and shown["limited"] is False
    assert shown["frames"] == companion.surface.status()["frames_sent"]
    runtime.call(c.ChangeSettings(brightness=0.5))  # dimmer, as the LEDs are
    dim = leds_shown(companion, lambda s: s["frames"] > shown["frames"] and target in s["nodes"])
    assert dim["nodes"][target] == "#808080"


def test_a_phone_on_the_lan_is_not_told_the_pairing_code_by_the_leds(companion):
    """The code on the LEDs is for whoever sees the board: while it is shown, /api/leds tells a phone on the
    LAN the frame as it would be without it (issue 44, 1: nothing it reads depends on the code). The
    simulator's own page is the board, and is told."""
    lan = companion.server.app.test_client()
    lan.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    assert lan.post("/api/pair/start", json={}).status_code == 200
    code = "".join(companion.runtime.board.effects.code)
    here = leds_shown(
        companion, lambda s: len(s["nodes"]) == 8 and all(s["nodes"].get(top) for top in "GRYB")
    )
    assert (
        "".join(board_colour(here["nodes"][top]) for top in "GRYB") == code
    )  # and a white light beside each
    assert here["withheld"] == []
    there = lan.get("/api/leds").get_json()
    assert there["nodes"] == {} and there["withheld"] == []  # the game lights none yet
    assert lan.post("/api/pair", json={"code": code}).status_code == 200  # used: the board no longer shows it
    assert leds_shown(companion, lambda s: not s["nodes"])
    assert lan.get("/api/leds").get_json()["nodes"] == {}


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- the program, as systemd runs it ----------------------------------------------------------------


def _tmpdir(tmp_path: Path) -> Path:
    """The program's temporary files (the emulated Pico's pty link) inside the test's own directory."""
    path = tmp_path / "tmp"
    path.mkdir(exist_ok=True)
    return path


def _start(tmp_path, *extra: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    environment = dict(
        os.environ, XDG_STATE_HOME=str(tmp_path / "xdg"), PYTHONUNBUFFERED="1", TMPDIR=str(_tmpdir(tmp_path))
    )  # a killed program cannot clean up its emulator's pty link
    environment.update(env or {})
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--sim", "--port", "0", *extra],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert "running: open http://" in line, (
        line,
        process.stderr.read() if process.poll() is not None else "",
    )
    return process, line.split("open ")[1].split("/ ")[0]


class Browser:
    """A client with a cookie jar, paired as the laptop's own browser is on the simulator (on loopback
    the simulator's page is the board, so it is told the code)."""

    def __init__(self, url: str):
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        self.headers = {"Origin": url}
        code = self.post("/api/pair/start", {})["code"]
        self.headers["X-CSRF-Token"] = self.post("/api/pair", {"code": code})["csrf"]

    def get(self, path: str) -> dict:
        with self.opener.open(self.url + path, timeout=5) as r:
            return json.load(r)

    def post(self, path: str, data: dict) -> dict:
        request = urllib.request.Request(
            self.url + path,
            json.dumps(data).encode(),
            method="POST",
            headers={"Content-Type": "application/json", **self.headers},
        )
        with self.opener.open(request, timeout=5) as r:
            return json.load(r)


def test_run_tells_systemd_it_is_ready_pings_the_watchdog_and_stops_on_sigterm(tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    process, url = _start(
        tmp_path, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": ""}
    )
    try:
        messages = []
        while not any(m.startswith("READY=1") for m in messages) or messages[-1] != "WATCHDOG=1":
            messages.append(sock.recv(4096).decode())  # times out (failing the test) if either never comes
        assert f"STATUS=serving {url}" in "".join(messages)
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
        rest = []
        sock.settimeout(1)
        try:
            while True:
                rest.append(sock.recv(4096).decode())
        except TimeoutError:
            pass
        assert any("STOPPING=1" in m for m in rest)
    finally:
        process.kill()
        sock.close()


def test_run_freezes_what_start_up_built_so_collections_skip_it(tmp_path):
    # run() in this process (its signal handlers need the main thread); a timer stops it once it serves.
    import gc
    import threading

    from companion import assembly as app

    config = config_mod.load(None, sim=True)
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    stop = threading.Event()
    frozen = []
    settle = app.settle

    def settle_then_stop():
        settle()
        frozen.append(gc.get_freeze_count())
        stop.set()

    gc.unfreeze()
    fallback = threading.Timer(30, stop.set)  # a run() that never settles fails below instead of hanging
    fallback.start()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(app, "settle", settle_then_stop)
            assert app.run(config, sim=True, port=0, stop=stop) == 0
        assert frozen and frozen[0] > 50_000  # the tables, the catalogue, Flask: tens of thousands of objects
    finally:
        fallback.cancel()
        gc.unfreeze()


def test_a_broken_config_stops_with_the_key_named(tmp_path):
    bad = tmp_path / "config.toml"
    bad.write_text("[panel]\nroll = 27\n")
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2 and "panel.ok uses GPIO27, already used by panel.roll" in result.stderr


def test_under_systemd_a_broken_config_is_logged_as_an_error(tmp_path):
    """journald files a line without a priority prefix as info, so `journalctl -p warning` (docs/install.md:
    "only problems") would miss why the service stopped: the line carries <3> when stderr is the journal."""
    bad = tmp_path / "config.toml"
    bad.write_text("[panel]\nroll = 27\n")
    journal = tmp_path / "journal"
    with open(journal, "w") as stream:  # systemd names the stream it reads in JOURNAL_STREAM: device:inode
        st = os.fstat(stream.fileno())
        result = subprocess.run(
            [sys.executable, "-m", "companion.cli", "run", "--config", str(bad)],
            cwd=ROOT,
            env=dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}"),
            stdout=subprocess.DEVNULL,
            stderr=stream,
            timeout=30,
        )
    assert result.returncode == 2
    assert (
        journal.read_text() == "<3>gryb-companion: config: panel.ok uses GPIO27, already used by panel.roll\n"
    )


def _run_once(tmp_path, *args: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "xdg"))
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _cannot_start(tmp_path, message: str, *args: str) -> None:
    """``run --sim`` stops at once with exit 1 and one line, no traceback, nothing on stdout."""
    result = _run_once(tmp_path, *SIM_COMMANDS["run"], *args)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[-1] == f"gryb-companion: cannot start: {message}"
    assert "Traceback" not in result.stderr and result.stdout == ""


# Both commands that open the board's parts: on the simulator (a bad LED key), and off a Pi (the real LEDs).
SIM_COMMANDS = {
    "run": ["run", "--sim", "--port", "0"],
    "selftest": ["selftest", "--sim", "--auto", "--timeout", "5"],
}
PI_COMMANDS = {"run": ["run", "--port", "0"], "selftest": ["selftest", "--timeout", "1"]}


@pytest.mark.parametrize("command", SIM_COMMANDS)
@pytest.mark.parametrize(
    "text, message",
    [
        ("[leds]\nlayout = 'nosuch'\n", "gryb-companion: config: leds.layout: no LED layout 'nosuch'"),
        (
            "[leds]\nbudget_ma = 100\n",
            "gryb-companion: config: leds.budget_ma: 100 mA does not cover the idle draw",
        ),
    ],
)
def test_a_bad_led_layout_or_budget_stops_with_the_key_named(tmp_path, command, text, message):
    bad = tmp_path / "config.toml"
    bad.write_text(text)
    result = _run_once(tmp_path, *SIM_COMMANDS[command], "--config", str(bad))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("command", PI_COMMANDS)
def test_the_pi_config_off_a_pi_stops_with_one_line(tmp_path, command):
    from hardware.leds import pi_model

    if pi_model() is not None:
        pytest.skip("on a Raspberry Pi the ws281x driver may start")
    result = _run_once(
        tmp_path, *PI_COMMANDS[command], "--config", str(ROOT / "systemd" / "config.example.toml")
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gryb-companion: cannot start: this is not a Raspberry Pi")
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    "host, reason",
    [
        ("no-such-host.invalid", "'no-such-host.invalid': no such address"),  # a typo in --host or web.host
        ("", "'': no such address"),
    ],
)
def test_a_host_that_is_no_address_stops_with_one_line(tmp_path, host, reason):
    _cannot_start(tmp_path, f"the web page cannot listen on {reason}", "--host", host)


def test_a_port_in_use_stops_with_one_line_naming_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _cannot_start(
            tmp_path,
            f"the web page cannot listen on 127.0.0.1 port {port}: Address already in use",
            "--port",
            str(port),
        )


def test_a_database_it_cannot_use_is_moved_aside_and_the_companion_starts_on_a_new_one(tmp_path):
    """A database of another version, one damaged or one this user cannot read (tests/service/test_store.py
    has each): the companion starts anyway, on a new database, and its log says where the old one went."""
    from companion.assembly import DB_NAME
    from companion.service.store import Store

    db = tmp_path / "xdg" / "gryb-companion" / DB_NAME
    store = Store(db)
    store.new_game(find("drangles")(), ["Ann", "Bo"], None, None, 0.0)
    store.db.execute("UPDATE meta SET value='2' WHERE key='schema'")
    store.close()
    before = db.read_bytes()
    process, url = _start(tmp_path)
    try:
        state = Browser(url).get("/api/state")
        assert state["game"]["id"] == "ez-gryb" and state["table"]["names"] == ["Player 1", "Player 2"]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    aside = db.with_name(DB_NAME + ".corrupt-1")
    assert aside.read_bytes() == before
    log = process.stderr.read()
    assert (
        f"database {db} cannot be used (it was written by another version of GRYB Companion (schema 2; this "
        f"one reads 1)): moved aside to {aside}, starting a new one"
    ) in log


# Each a file the companion cannot use (tests/service/test_store.py has them all, with what the log says).
UNUSABLE = {
    "empty": b"",
    "garbage": bytes(range(256)) * 40,
    "another program's": "CREATE TABLE games (name TEXT, score INTEGER); INSERT INTO games VALUES ('go', 3);",
    "ours, with a foreign table": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES ('schema', '1'); CREATE TABLE notes (text TEXT);",
    "ours, a column missing": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES ('schema', '1'); CREATE TABLE games (id INTEGER PRIMARY KEY);",
}


@pytest.mark.parametrize("case", UNUSABLE)
def test_the_program_starts_on_a_new_database_whatever_file_it_found(tmp_path, case):
    from companion.assembly import DB_NAME

    db = tmp_path / "xdg" / "gryb-companion" / DB_NAME
    db.parent.mkdir(parents=True)
    if isinstance(UNUSABLE[case], bytes):
        db.write_bytes(UNUSABLE[case])
    else:
        made = sqlite3.connect(db)
        made.executescript(UNUSABLE[case])
        made.close()
    before = db.read_bytes()
    process, url = _start(tmp_path)
    try:
        browser = Browser(url)
        browser.post("/api/games/new", {"game": "drangles", "players": 2})
        assert browser.get("/api/state")["game"]["id"] == "drangles"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    aside = db.with_name(DB_NAME + ".corrupt-1")
    assert aside.read_bytes() == before and process.returncode == 0
    lines = [line for line in process.stderr.read().splitlines() if "moved aside" in line]
    assert len(lines) == 1 and f"database {db} cannot be used (" in lines[0] and str(aside) in lines[0]


def _modes(state: Path) -> dict[str, str]:
    return {str(p.relative_to(state)): oct(p.stat().st_mode & 0o777) for p in [state, *state.rglob("*")]}


RACE = 'id = "race"\nname = "Race"\n[tokens]\nstones = 3\nenter = "bottom"\n[goal]\nwin = ["race"]\n'
RACE += 'race = "top"\n'


@pytest.mark.parametrize("before", ["nothing", "an older version's run", "compose import"])
def test_the_state_is_its_users_alone_whatever_the_umask(tmp_path, before):
    """The directory 0700 and every file in it 0600, as systemd's UMask and StateDirectoryMode make them:
    ``run --sim`` from a shell with umask 022 too (docs/security.md, "Each limit and why")."""
    state = tmp_path / "xdg" / "gryb-companion"
    if before == "compose import":  # the first to make the directory
        (tmp_path / "race.toml").write_text(RACE)
        old = os.umask(0o022)
        try:
            assert _run_once(tmp_path, "compose", "import", str(tmp_path / "race.toml")).returncode == 0
        finally:
            os.umask(old)
    if before == "an older version's run":
        state.mkdir(parents=True, mode=0o755)
        made = sqlite3.connect(state / "companion.db")
        made.execute("PRAGMA journal_mode=WAL")
        made.close()
        (state / "companion.lock").touch()
        for path in [state, *state.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    old = os.umask(0o022)
    try:
        process, url = _start(tmp_path)
    finally:
        os.umask(old)
    try:
        browser = Browser(url)  # the session key and pairing epoch are written
        browser.post("/api/games/new", {"game": "drangles", "players": 2})
        browser.post("/api/compositions", {"text": RACE.replace("race", "race-2", 1)})  # a folder of its own
        modes = _modes(state)  # while it runs: the -wal and -shm too
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    assert {"companion.db", "companion.db-wal", "companion.db-shm", "web-secret.key", "compositions"} <= set(
        modes
    )
    assert modes == {name: "0o700" if (state / name).is_dir() else "0o600" for name in modes}


def test_a_database_is_never_moved_aside_under_a_companion_that_runs_on_it(tmp_path):
    """The state directory's lock is taken before the database is opened: a second companion stops there,
    whatever it would have made of the database (here one it cannot use, which it would move aside)."""
    from companion.assembly import DB_NAME, _hold
    from companion.service.store import StoreUnavailable

    config = config_mod.load(None, sim=True)
    state = tmp_path / "state"
    config = replace(config, state=replace(config.state, dir=str(state)))
    state.mkdir()
    (state / DB_NAME).write_bytes(b"what the first companion would not recognise" * 100)
    held = _hold(state)  # the first companion's lock, as it holds it
    try:
        with pytest.raises(StoreUnavailable, match="another GRYB Companion is running"):
            Companion(config, sim=True, port=0).start()
        assert sorted(p.name for p in state.iterdir()) == ["companion.db", "companion.lock"]
    finally:
        os.close(held)


def test_a_kill_mid_game_loses_nothing_and_the_game_goes_on(tmp_path):
    process, url = _start(tmp_path)
    try:
        browser = Browser(url)
        browser.post("/api/games/new", {"game": "drangles", "players": 2})
        for node in ["0", "0", "G", "0"]:  # taps on the virtual board go through the emulated Pico
            browser.post("/api/press", {"node": node})
            time.sleep(0.2)
        before = browser.get("/api/state")
        assert len(before["state"]["stones"]) == 2
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        process, url = _start(tmp_path)
        after = Browser(url).get("/api/state")
        assert after["game"]["id"] == "drangles"
        assert (after["state"]["stones"], after["state"]["to_move"]) == (
            before["state"]["stones"],
            before["state"]["to_move"],
        )
    finally:
        process.kill()
        process.wait(10)


def test_a_second_companion_on_the_same_state_directory_stops_with_one_line(tmp_path):
    """Two companions on one database would each play their own copy of the game into it: a roll made on
    one was lost when the other started a new game, and a roll on each left a game that no longer
    replayed (the next start began a new one)."""
    process, url = _start(tmp_path)
    try:
        browser = Browser(url)
        rolled = browser.post("/api/roll", {})["state"]["state"]
        _cannot_start(
            tmp_path,
            f"another GRYB Companion is running on {tmp_path / 'xdg' / 'gryb-companion'}: "
            "stop it first (Ctrl+C in the terminal it runs in)",  # no service installed here
        )
        assert browser.get("/api/state")["state"] == rolled
    finally:
        process.kill()
        process.wait(10)
    process, url = _start(tmp_path)  # the plug pulled: the state directory is free again
    try:
        assert Browser(url).get("/api/state")["state"] == rolled
    finally:
        process.kill()
        process.wait(10)


def test_a_state_directory_that_cannot_be_made_stops_with_one_line_naming_it(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    config = tmp_path / "config.toml"
    config.write_text(f"[state]\ndir = '{tmp_path / 'a-file' / 'state'}'\n")
    _cannot_start(
        tmp_path,
        f"the state directory {tmp_path / 'a-file' / 'state'} (games, settings; state.dir in "
        "the config) cannot be made or written: Not a directory",
        "--config",
        str(config),
    )


# -- whole games on the program, through its simulated hardware, across a SIGKILL ------------------

WORKER = ROOT / "tests" / "service" / "durability_worker.py"


class Board:
    """``gryb-companion run --sim`` in a child process (tests/service/durability_worker.py --companion) with a
    finger on its simulated hardware: node taps on the emulated Pico, ROLL/OK/UNDO on the panel's mock
    pins. Every input returns the board's report once the runtime has handled (and committed) it."""

    def __init__(self, tmp_path: Path, seed: int):
        self.tmp_path, self.seed = tmp_path, seed
        self.log = open(tmp_path / "companion.log", "a")
        env = dict(
            os.environ,
            XDG_STATE_HOME=str(tmp_path / "xdg"),
            PYTHONUNBUFFERED="1",
            PYTHONPATH=str(ROOT),
            TMPDIR=str(_tmpdir(tmp_path)),
        )
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), "--companion", str(seed)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.report = self._read()
        assert self.report.get("ready"), self.report
        self.url = self.report["url"]

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(10)
            raise AssertionError(
                f"the companion died: {(self.tmp_path / 'companion.log').read_text()[-3000:]}"
            )
        report = json.loads(line)
        assert "error" not in report, report["error"]
        return report

    def send(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        self.report = self._read()
        return self.report

    def tap(self, node: str) -> dict:
        return self.send(f"tap {node}")

    def button(self, name: str) -> dict:
        return self.send(f"button {name}")

    def kill(self) -> None:
        """Pull the plug: SIGKILL, no chance to flush or close anything."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self) -> int:
        """SIGTERM, as systemd stops the service; the exit code (SIGKILL after 15 s: -9)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)
        finally:
            self.log.close()


class Mirror:
    """The test's own engine, kept to the actions the board reports (the player's head)."""

    def __init__(self):
        self.game: Game | None = None
        self.id = None

    def sync(self, report: dict) -> Game:
        history = report["history"]
        if (
            self.game is None
            or self.id != report["game_id"]
            or history[: len(self.game.history)] != [str(a) for a, _ in self.game.history]
        ):
            self.game, self.id = find(report["game"])(2, **report["options"]), report["game_id"]
        for text in history[len(self.game.history) :]:
            self.game.apply(text)
        assert repr(self.game.state_key()) == report["key"], (
            "the board's game is not the replay of its actions"
        )
        return self.game


def play_on_the_program(
    tmp_path, game_id: str, seed: int, kill_at: int, kill_after: str
) -> tuple[Game, dict]:
    """A whole game with its default options on ``gryb-companion run --sim``: chosen on the phone, then
    played with node taps and panel buttons alone, the moves picked by :func:`greedy` (seeded, like the
    program's die, so the game is the same on every run). Once ``kill_at`` actions are on record, right
    after a ``kill_after`` input ("roll": the die has just been cast; "pick": a stone is picked up, its
    target not pressed yet) the process gets SIGKILL; the restarted program must hold exactly what it had
    acknowledged, and the game is played on to its end. Returns the test's replay of the game and the
    board's last report."""
    rng = random.Random(seed)
    board = Board(tmp_path, seed)
    try:
        Browser(board.url).post("/api/games/new", {"game": game_id, "players": 2})  # chosen on the phone
        report = board.send("report")
        assert report["game"] == game_id and report["history"] == []
        mirror = Mirror()
        killed = False
        for _ in range(3000):
            if report["over"]:
                break
            game = mirror.sync(report)
            step = None
            if report["chores"]:  # a stone the runtime moved (a capture): lifted by hand, its node pressed
                report = board.tap(report["chores"][0])
            elif game.is_chance:
                report, step = board.button("roll"), "roll"
            else:
                action = greedy(game.copy(), rng)
                presses = [nd.name(n) for n in _presses(action)]
                if not presses:  # a pass or an end of turn
                    report = board.button("ok")
                for i, node in enumerate(presses):
                    report = board.tap(node)
                    if i == 0 and len(presses) > 1:
                        assert report["picks"] == [node], report  # the stone is picked up, nothing acted yet
                        if kill_after == "pick" and not killed and len(report["history"]) >= kill_at:
                            step = "pick"
                            break
            if step == kill_after and not killed and len(report["history"]) >= kill_at:
                acknowledged = report
                board.kill()
                killed = True
                board = Board(tmp_path, seed)
                report = board.report
                assert (report["game_id"], report["game"]) == (acknowledged["game_id"], game_id)
                assert report["history"] == acknowledged["history"], (
                    "an acknowledged action was lost or added"
                )
                assert (
                    report["key"] == acknowledged["key"]
                )  # the die, the turn, every stone: exactly as acked
                assert report["picks"] == [] and report["chores"] == []  # a half-made move is not persisted
        else:
            raise AssertionError(f"{game_id} did not end")
        assert killed, "the game ended before the kill"
        mirror.sync(report)
    finally:
        code = board.stop() if board.process.poll() is None else board.process.returncode
    assert code == 0  # SIGTERM stops the restarted program cleanly
    return mirror.game, report


def _replayed(tmp_path) -> Game:
    store = Store(tmp_path / "xdg" / "gryb-companion" / "companion.db")
    try:
        return store.replay(store.current_game())
    finally:
        store.close()


@pytest.mark.slow
def test_a_whole_game_of_ez_gryb_on_the_program_survives_a_kill(tmp_path):
    """Issue 5's test: EZ GRYB on the standard board, killed right after a roll some 40 % in."""
    game, final = play_on_the_program(tmp_path, "ez-gryb", seed=0, kill_at=44, kill_after="roll")
    assert game.settings == find("ez-gryb")(2).settings and game.space.depth == 4
    assert {a.kind for a, _ in game.history} >= {"roll", "place", "move"}
    assert final["winners"] and final["scores"][final["winners"][0]] > 0
    assert repr(_replayed(tmp_path).state_key()) == final["key"]  # and the log says the same


@pytest.mark.slow
def test_a_whole_game_of_25_mens_gryb_on_the_program_survives_a_kill(tmp_path):
    """Issue 5's test: 25 Men's GRYB with its 25 men each, killed in phase two with a man picked up."""
    game, final = play_on_the_program(tmp_path, "25-mens-gryb", seed=3, kill_at=65, kill_after="pick")
    assert game.settings == find("25-mens-gryb")(2).settings and game.space.depth == 4
    assert sum(a.kind == "place" for a, _ in game.history) == 50  # phase one: 25 men each
    assert sum(a.kind == "move" for a, _ in game.history) > 10  # phase two
    assert any(a.kind == "remove" for a, _ in game.history)  # GRYBs' removals, pressed on their nodes
    assert final["winners"]
    assert repr(_replayed(tmp_path).state_key()) == final["key"]


def test_the_self_test_from_the_page_takes_the_board_and_gives_it_back(companion):
    runtime, sim = companion.runtime, companion.node_input
    before = runtime.snapshot()["version"]
    assert companion.start_selftest(timeout=60)
    assert not companion.start_selftest()  # one at a time
    sim.tap("G", hold=0.02)  # during the sweep, before the self-test listens: not the game's either
    deadline = time.monotonic() + 10
    while companion.surface.status()["frames_sent"] < 60 and time.monotonic() < deadline:
        time.sleep(0.05)  # the sweep
    time.sleep(1.5)
    for n in nd.nodes():
        sim.tap(nd.name(n), hold=0.02)
        time.sleep(0.003)
    deadline = time.monotonic() + 20
    while (companion.selftest_report or {}).get("running") and time.monotonic() < deadline:
        time.sleep(0.05)
    report = companion.status()["selftest"]
    assert report["ok"] and report["pressed"] == 341, report
    assert runtime.snapshot()["version"] == before  # the presses went to the self-test, not the game
    tap(sim, "G")  # the game takes presses again: EZ GRYB answers that the die comes first
    snap = wait_version(runtime, before)
    assert "roll" in snap["table"]["message"]
    runtime.call(c.ChangeSettings(budget_ma=2000))
    assert companion.surface.settle(2) and companion.surface.budget_ma == 2000


def test_a_self_test_started_from_the_page_shows_on_now_playing_and_is_cancelled_there(companion):
    """The self-test has the board for up to five minutes: the page's status says what runs and how far it
    has got (Now playing follows it), and Cancel, paired like every change, gives the board back at once."""
    from web.testing import pair

    runtime, sim, surface = companion.runtime, companion.node_input, companion.surface
    phone = companion.server.app.test_client()
    headers = {"X-CSRF-Token": pair(phone, runtime)}
    assert surface.settle(2)
    game_picture = surface.node_colours()
    assert 'data-selftest="yes"' in phone.get("/").get_data(as_text=True)  # Now playing follows the status
    assert phone.post("/api/selftest/cancel", json={}, headers=headers).status_code == 409  # none runs
    assert phone.post("/api/selftest", json={}, headers=headers).status_code == 200
    assert until(lambda: (phone.get("/api/status").get_json()["selftest"] or {}).get("step") == "nodes")
    before = runtime.snapshot()["version"]
    sim.tap("G", hold=0.02)  # a press on the cloth is the self-test's
    assert until(lambda: phone.get("/api/status").get_json()["selftest"].get("pressed") == 1)
    running = phone.get("/api/status").get_json()["selftest"]
    assert running["running"] and running["of"] == 341 and 250 < running["left"] <= 300
    assert runtime.snapshot()["version"] == before
    stranger = companion.server.app.test_client()
    assert stranger.post("/api/selftest/cancel", json={}).status_code == 401  # not paired: it runs on
    assert companion.selftest_running
    r = phone.post("/api/selftest/cancel", json={}, headers=headers)
    assert (
        r.status_code == 200
        and r.get_json()["message"] == "self-test cancelled: the board is the game's again"
    )
    assert not companion.selftest_running  # as soon as Cancel answers
    report = phone.get("/api/status").get_json()["selftest"]
    assert report["cancelled"] and report["pressed"] == 1 and report["dead"] == [] and not report["ok"]
    assert until(lambda: surface.settle(0.1) and surface.node_colours() == game_picture)  # the game's LEDs
    tap(sim, "G")  # and the game's presses: EZ GRYB answers that the die comes first
    assert "roll" in wait_version(runtime, before)["table"]["message"]


def until(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_on_the_one_cable_build_the_emulated_pico_draws_the_leds_and_holds_the_panel(tmp_path):
    """issue 48 (leds.driver = panel.driver = "pico"): the page shows what the emulated Pico's strip holds,
    ROLL on the Pico's panel rolls, a press lights its node there, and the status LED is the Pico's."""
    config = config_mod.load(None, sim=True)
    config = replace(
        config,
        leds=replace(config.leds, driver="pico", brightness=1.0),
        panel=replace(config.panel, driver="pico"),
        state=replace(config.state, dir=str(tmp_path / "state")),
    )
    with Companion(config_mod.simulated(config), sim=True, port=0, die=Die(1)) as made:
        runtime, emulator = made.runtime, made.node_input.emulator
        assert made.status()["leds"] == "pico" and until(lambda: emulator.panel.lit)
        colours = runtime.snapshot()["colours"]
        leds_shown(made, lambda s: s["status"][:4] == [colours[0]] * 4)  # player 1 to roll, on the Pico
        version = runtime.snapshot()["version"]
        emulator.tap_panel("roll")
        snap = wait_version(runtime, version, why="ROLL on the Pico's panel")
        target = snap["table"]["targets"][0]
        emulator.tap(*made.node_input.layout.key(target))
        shown = leds_shown(made, lambda s: target in s["nodes"])
        assert shown["nodes"][target] == colours[0]
        assert emulator.strip.shown == made.surface._want  # the page read the emulated strip
        assert emulator.panel.tones  # the die rattled on the Pico's buzzer
    assert not any(emulator.firmware.leds.shown)  # stopped: dark (its transfer may still be going out)


def test_run_sim_with_a_one_cable_config_draws_the_page_from_the_emulated_picos_strip(tmp_path):
    """issue 48: `gryb-companion run --sim --config` keeps leds.driver = "pico": the program's page tells
    what the emulated Pico shows, whose firmware took the frames over its pty, and a roll reaches it."""
    path = tmp_path / "config.toml"
    path.write_text('[leds]\ndriver = "pico"\n[panel]\ndriver = "pico"\n[serial]\nurl = "/dev/ttyACM0"\n')
    process, url = _start(tmp_path, "--config", str(path))
    try:
        browser = Browser(url)

        def shown(condition) -> dict:
            deadline = time.monotonic() + 10
            while not condition(answer := browser.get("/api/leds")):
                assert time.monotonic() < deadline, answer
                time.sleep(0.05)
            return answer

        status = browser.get("/api/status")
        assert status["leds"] == "pico" and status["link"]["firmware"] == "1.2.0"
        assert shown(lambda a: a["status"][0] != "#000000" and a["status"][4:] == ["#000000"] * 4)
        browser.post("/api/roll", {})
        assert shown(lambda a: a["status"][4:] != ["#000000"] * 4)  # the die, on the emulated strip
        pico = browser.get("/api/status")["led_status"]["pico"]
        assert pico["mode"] == "showing" and pico["frames"] >= 2
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
    finally:
        process.kill()
        process.wait(10)


def test_the_status_led_blinks_slowly_while_the_pico_does_not_answer(companion):
    """docs/hardware.md: the status LED is steady while the node buttons' Pico answers and blinks slowly
    while it does not; here the emulated Pico is unplugged for a while and comes back."""
    panel = companion.panel
    assert until(lambda: panel.state == "ready")
    companion.node_input.unplug(1.5)
    assert until(lambda: panel.state == "link-down", timeout=5)
    assert until(lambda: panel.state == "ready", timeout=10)
    companion.stop()
    assert panel.state == "off"


def test_already_running_suggests_systemctl_only_where_the_service_is_installed(tmp_path):
    """Issue 46: "sudo systemctl stop gryb-companion" was said on a laptop that has no such service."""
    unit = tmp_path / "gryb-companion.service"
    assert app.how_to_stop(unit) == "Ctrl+C in the terminal it runs in"
    unit.write_text("[Unit]\n")
    assert app.how_to_stop(unit) == "sudo systemctl stop gryb-companion"
