"""The composition root: config -> store -> runtime -> hardware -> web (docs/runtime.md, "The program")."""

from __future__ import annotations

import fcntl
import gc
import logging
import os
import signal
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.games.die import Die
from companion.rules import node as nd
from companion.service import commands as c
from companion.service import library, notify
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store, StoreUnavailable
from companion.session.renderer import Picture

log = logging.getLogger(__name__)

DB_NAME = "companion.db"
LOCK_NAME = "companion.lock"
UNIT = Path("/etc/systemd/system/gryb-companion.service")  # where systemd/install.sh puts the service
SELFTEST_SECONDS = 300.0  # to press every node
LINK_WATCH_SECONDS = 0.5
SOUNDS = {"roll": "roll", "illegal": "illegal", "gryb": "gryb", "win": "win", "draw": "ok", "undo": "ok"}


class Companion:
    """Every part of the running companion; ``sim`` needs ``config.simulated``, ``port`` 0 is any free one,
    ``settle`` runs once a kind of game is warmed for a computer player."""

    def __init__(
        self,
        config: Config,
        *,
        sim: bool = False,
        host: str | None = None,
        port: int | None = None,
        die: Die | None = None,
        watchdog: Callable[[], object] | None = None,
        watchdog_every: float | None = None,
        settle: Callable[[], None] | None = None,
    ):
        self.config = config
        self.sim = sim
        self.host = host if host is not None else config.web.host
        self.port = port if port is not None else config.web.port
        self._die = die
        self._watchdog = watchdog
        self._watchdog_every = watchdog_every
        self._settle = settle
        self._lock: int | None = None
        self.store: Store | None = None
        self.runtime: Runtime | None = None
        self.surface = None
        self.public = None  # hardware.leds.PublicFrame: the LEDs but a pairing code
        self.node_input = None
        self.panel = None
        self.server = None
        self._stopped = False
        self._selftest = None  # hardware.selftest.Run
        self._closing = threading.Event()
        self._link_watch: threading.Thread | None = None
        self.link = None  # companion.link.link.Link: boards linked through a broker (docs/linking.md)

    # -- start

    def start(self) -> None:
        from companion.service.geometry import board_geometry
        from hardware.buttons import load_button_layout
        from hardware.led_layout import load_layout
        from hardware.leds import PublicFrame, open_surface
        from hardware.node_input import open_node_input
        from hardware.panel import open_panel
        from hardware.selftest import Run

        config = self.config
        try:
            state = config.state.path()
            self._lock = _hold(state)
            self.store = Store(state / DB_NAME)
            if "pico" in (config.leds.driver, config.panel.driver):  # they go over the Pico's link
                self.node_input = open_node_input(config.serial.url, load_button_layout(board_geometry()))
            leds = config.leds
            self.surface = open_surface(
                leds.driver,
                load_layout(leds.layout, board_geometry()),
                interface=leds.interface,
                strip=leds.strip,
                brightness=leds.brightness,
                budget_ma=leds.budget_ma,
                fps=leds.fps,
                pico=self.node_input,
            )
            self.public = PublicFrame(self.surface)
            p = config.panel
            self.panel = open_panel(
                p.driver,
                roll=p.roll,
                ok=p.ok,
                undo=p.undo,
                buzzer=p.buzzer,
                status_led=p.status_led,
                hold_time=p.hold_time,
                bounce_time=p.bounce_time,
                sounds=p.sounds,
                pico=self.node_input,
            )
            self.panel.set_status("busy")
            self.runtime = Runtime(
                config,
                self.store,
                die=self._die,
                frame_sink=self._show,
                sound=self._sound,
                watchdog=self._watchdog,
                watchdog_every=self._watchdog_every,
                settle=self._settle,
                fresh_code=self._fresh_code,
                stones="leds" if self.sim else "cloth",  # `run --sim` has no stones to move
            )
            self.runtime.start()
            submit = self.runtime.submit
            self.panel.when_roll = lambda: submit(c.Roll())
            self.panel.when_ok = lambda: submit(c.Ok())
            self.panel.when_undo = lambda: submit(c.Undo())
            self.panel.when_menu = self._held
            if self.node_input is None:
                self.node_input = open_node_input(config.serial.url, load_button_layout(board_geometry()))
            self.node_input.when_event = self._node_event
            self._selftest = Run(
                self.surface,
                self.node_input,
                [nd.name(n) for n in nd.nodes()],
                on_end=lambda: self.runtime.submit(c.Tick()),  # the game's picture again
            )
            self._start_link(state)
            self._serve()
            self._link_watch = threading.Thread(target=self._watch_link, name="gryb-link-led", daemon=True)
            self._link_watch.start()
        except BaseException:
            self.stop()
            raise
        log.info("companion ready (%s) on %s", "simulator" if self.sim else "hardware", self.url)

    def _start_link(self, state) -> None:
        link = self.config.link
        if not link.url:
            return
        from companion.link.link import Link, load_secret

        self.link = Link(
            self.runtime,
            url=link.url,
            board=link.board_name(),
            secret=load_secret(state / "link-secret"),
            joining=state / "link-joining",
            user=link.user,
            password=link.password(),
            ca=link.ca,
        )
        self.link.start()

    def _serve(self) -> None:
        from web import create_app
        from web.server import serve

        app = create_app(
            self.runtime,
            self.config,
            sim_input=self.node_input if self.sim else None,
            state_dir=self.config.state.path(),
            status_provider=self.status,
            selftest=self.start_selftest,
            cancel_selftest=self.cancel_selftest,
            leds=self.public.shown,
            board_leds=self.surface.shown,
            link=self.link,
        )
        self.server = serve(app, self.host, self.port)

    @property
    def url(self) -> str:
        return self.server.url if self.server is not None else ""

    # -- the glue (on the runtime's thread or the drivers')

    def _show(self, picture: Picture) -> None:
        """The runtime's frame sink: brightness, then the picture to the LEDs."""
        runtime = self.runtime
        surface = self.surface
        if runtime is None or surface is None:
            return
        if self.selftest_running:
            return
        settings = runtime.board.settings
        surface.brightness = settings.shown_brightness()
        if surface.budget_ma != settings.budget_ma:
            try:
                surface.budget_ma = settings.budget_ma
            except ValueError as err:  # below this layout's idle draw: keep the old budget
                log.warning("LED budget not applied: %s", err)
                settings.budget_ma = surface.budget_ma
        # A Giant board: only the status pixels and a pairing code (docs/runtime.md, "What the LEDs show").
        cloth = runtime.board.on_cloth()
        nodes = picture.nodes if cloth else picture.code
        surface.show_nodes({nd.name(n): colour for n, colour in nodes.items()}, picture.status)
        plain = (picture.nodes if picture.plain is None else picture.plain) if cloth else {}
        self.public.show({nd.name(n): colour for n, colour in plain.items()}, picture.status)

    def _fresh_code(self) -> None:
        """UNDO in the menu: a pairing code from the control panel (docs/security.md, "Guessing codes")."""
        if self.server is not None:
            self.server.app.extensions["gryb-pair-code"].fresh()

    def _sound(self, kind: str) -> None:
        if self.panel is not None:
            self.panel.beep(SOUNDS.get(kind, "ok"))

    def _held(self) -> None:
        """UNDO held: the menu opens; held again in the menu with a broker set: Link boards (docs/linking.md,
        "At the board")."""
        if self.link is not None and self.runtime.board.settings.menu:
            threading.Thread(target=self._link_boards, name="gryb-link-host", daemon=True).start()
        else:
            self.runtime.submit(c.Menu())

    def _link_boards(self) -> None:
        """Open a match for the game on the board, its code on the LEDs; the menu closes."""
        try:
            game, players, options = self.runtime.call(
                c.Read(lambda s: (s.game.id, s.game.players, dict(s.game.settings)))
            )
            self.link.host(game, players if 2 <= players <= 4 else None, options)
            log.info("match open from the control panel: its code is on the LEDs")
        except Exception as err:  # a game that cannot be linked: the menu closes, the buzzer says so
            log.warning("Link boards from the control panel: %s", err)
            self._sound("illegal")
        if self.runtime.board.settings.menu:
            self.runtime.submit(c.Menu())

    def _node_event(self, event) -> None:
        runtime = self.runtime
        if self.selftest_running:
            return  # the self-test's from its LED sweep on
        if runtime is not None and event.pressed:
            runtime.submit(c.ClothPress(event.node))

    def start_selftest(self, timeout: float = SELFTEST_SECONDS) -> bool:
        """Run the self-test on its own thread; False if one runs."""
        return self._selftest is not None and self._selftest.start(timeout)

    def cancel_selftest(self) -> bool:
        """Stop the self-test: the board is the game's again on return. False if none runs."""
        return self._selftest is not None and self._selftest.cancel()

    @property
    def selftest_running(self) -> bool:
        return self._selftest is not None and self._selftest.running

    @property
    def selftest_report(self) -> dict | None:
        """The self-test's progress, then its report."""
        return None if self._selftest is None else self._selftest.status()

    def status(self) -> dict:
        """Hardware status for the settings page."""
        link = self.node_input.link_status() if self.node_input is not None else {"state": "down"}
        leds = self.public.status() if self.public is not None else {}
        return {
            "mode": "simulator" if self.sim else "hardware",
            "serial": link.get("state"),
            "heartbeat_age": link.get("heartbeat_age"),
            "link": link,
            "leds": leds.get("driver", "none"),
            "led_status": leds,
            "selftest": self.selftest_report,
        }

    def _watch_link(self, every: float = LINK_WATCH_SECONDS) -> None:
        """The status LED: steady while the Pico answers (and the broker, in a linked game), a slow blink
        while either does not."""
        shown = None
        while True:
            try:
                up = self.node_input.link_status().get("state") == "up"
                if self.link is not None and self.link.game_id is not None:
                    up = up and self.link.connected
                if up != shown:
                    self.panel.set_status("ready" if up else "link-down")
                    shown = up
            except Exception:  # the LED is a hint: a fault here must not end the watch
                log.exception("status LED: the Pico link's state could not be shown")
            if self._closing.wait(every):
                return

    # -- stop

    def stop(self) -> None:
        """Stop in the reverse order: no new input, then the loop, then the outputs."""
        if self._stopped:
            return
        self._stopped = True
        self._closing.set()
        if self._link_watch is not None:
            self._link_watch.join(timeout=5)
        for name, close in (
            ("web", lambda: self.server.close()),
            ("self-test", lambda: self._selftest.cancel()),  # it uses the LEDs and buttons
            ("node input", lambda: self.node_input.close()),
            ("link", lambda: self.link.stop()),
            ("runtime", lambda: self.runtime.stop()),
            ("control panel", lambda: (self.panel.set_status("off"), self.panel.close())),
            ("LEDs", lambda: self.surface.close()),
            ("store", lambda: self.store.close()),
            ("state directory", lambda: self._lock is not None and os.close(self._lock)),
        ):
            try:
                close()
            except AttributeError:
                pass  # that part never started
            except Exception:
                log.exception("stopping the %s failed", name)

    def __enter__(self) -> Companion:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _hold(state) -> int:
    """Lock the state directory for this process, or StoreUnavailable (docs/runtime.md, "Durability")."""
    try:
        made = not state.exists()
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        _keep_private(state, made)
        fd = os.open(state / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        lock = os.fstat(fd)
        if lock.st_uid == os.geteuid() and lock.st_mode & 0o077:
            os.fchmod(fd, 0o600)
    except OSError as err:  # the first to touch the folder: say which, and where it is set
        raise StoreUnavailable(
            f"the state directory {state} (games, settings; state.dir in the config) cannot "
            f"be made or written: {err.strerror or err}"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreUnavailable(
            f"another GRYB Companion is running on {state}: stop it first ({how_to_stop()})"
        ) from None
    return fd


def _keep_private(state, made: bool) -> None:
    """The state directory 0700, as systemd's StateDirectoryMode makes it: narrowed when it is surely ours
    (this user's, made now or holding what an earlier start or compose import made), never a shared one
    such as /tmp a config names."""
    st = state.stat()
    earlier = any((state / name).exists() for name in (LOCK_NAME, DB_NAME, library.FOLDER))
    if made or (st.st_uid == os.geteuid() and earlier and not st.st_mode & stat.S_ISVTX):
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(state, stat.S_IMODE(st.st_mode) & 0o700)


def how_to_stop(unit: Path = UNIT) -> str:
    """How to stop the companion running: the service where it is installed, else where it was started."""
    if unit.exists():
        return "sudo systemctl stop gryb-companion"
    return "Ctrl+C in the terminal it runs in"


def settle() -> None:
    """Freeze what start-up built, so a full collection skips it; a cycle frozen is never collected
    (docs/performance.md, "What the session keeps for speed")."""
    gc.collect()
    gc.freeze()


def run(
    config: Config,
    *,
    sim: bool,
    host: str | None = None,
    port: int | None = None,
    stop: threading.Event | None = None,
) -> int:
    """``gryb-companion run``: start, notify systemd, ping its watchdog, stop on SIGTERM."""
    stop = stop or threading.Event()
    started = time.monotonic()
    os.umask(0o077)  # what it writes is its user's alone, as systemd's UMask= makes it (docs/security.md)

    def on_signal(signum, frame):
        log.info("%s: stopping", signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    interval = notify.watchdog_interval()
    companion = Companion(
        config,
        sim=sim,
        host=host,
        port=port,
        watchdog=notify.watchdog if interval else None,
        watchdog_every=interval / 2 if interval else None,
        settle=settle,
    )
    try:
        companion.start()
        settle()
        notify.ready(f"serving {companion.url}")
        log.info("started in %.2f s; the board's page is %s/", time.monotonic() - started, companion.url)
        print(
            f"GRYB Companion {'simulator ' if sim else ''}running: open {companion.url}/ (Ctrl+C stops)",
            flush=True,
        )
        stop.wait()
        notify.stopping("stopping")
    finally:
        companion.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0
