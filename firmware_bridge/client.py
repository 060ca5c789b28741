"""The host client: a pyserial URL (``/dev/ttyACM0``, a pty, ``loop://``, ``socket://``), a reader thread
running :class:`link.HostLink`, and reconnects with back-off after an unplug or a silent MCU.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import serial

from firmware_bridge import protocol as p
from firmware_bridge.link import CONNECTING, DOWN, UP, HostLink, KeyEvent

try:
    from termios import error as TermiosError  # pyserial's open flushes: EIO on a vanished pty
except ImportError:  # pragma: no cover - not a POSIX system

    class TermiosError(Exception):
        pass


# what a port raises when the board behind it goes away (termios.error is no OSError)
PORT_ERRORS = (serial.SerialException, OSError, TermiosError)

log = logging.getLogger(__name__)

__all__ = ["BridgeClient", "KeyEvent", "UP", "DOWN", "CONNECTING", "HEARTBEAT_TIMEOUT"]


HEARTBEAT_TIMEOUT = 2.0  # s without a frame before the link counts as lost
PROBLEM_LOG_EVERY = 10.0  # s between warnings of spoilt frames (noise would flood the log)


class BridgeClient:
    """Talks to the node-button MCU on its own thread; a context manager. ``on_key`` hears each
    :class:`KeyEvent` on that thread; ``pressed()``, ``status()`` and the commands may come from any."""

    def __init__(
        self,
        url: str,
        on_key: Callable[[KeyEvent], None] | None = None,
        *,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        backoff: tuple[float, float] = (0.05, 2.0),
        read_timeout: float = 0.2,
        baudrate: int = 115200,
        start: bool = True,
    ):
        if not isinstance(url, str) or not url:
            raise ValueError("give the serial port as a pyserial URL, e.g. /dev/ttyACM0")
        if heartbeat_timeout <= 0 or backoff[0] <= 0 or backoff[1] < backoff[0]:
            raise ValueError("heartbeat_timeout and back-off must be positive, back-off (first, most)")
        self.url = url
        self.on_key = on_key
        self.backoff = backoff
        self.read_timeout = read_timeout
        self.baudrate = baudrate
        self.reconnects = 0
        self.opens = 0
        self.open_errors = 0
        self._link = HostLink(heartbeat_timeout=heartbeat_timeout)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()  # the reader's commands and send()'s frames, whole each
        self.on_message: Callable[[p.Message], None] | None = None  # hears each LED_STATE, on the thread
        self.farewells: list[Callable[[], bytes]] = []  # their bytes are the last sent, on close()
        self._stop = threading.Event()
        self._port: serial.SerialBase | None = None
        self._last_open_error: str | None = None
        self._silent: str | None = None  # why the link is down though the port opens
        self._problems_logged = (0, 0)  # (bad frames, link problems) at the last warning
        self._problems_logged_at = -PROBLEM_LOG_EVERY
        self._thread = threading.Thread(target=self._run, name=f"bridge {url}", daemon=True)
        if start:
            self.start()

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Send the farewells, stop the reader thread and close the port; idempotent."""
        if not self._stop.is_set() and self.farewells:
            last = b""
            for farewell in self.farewells:
                try:
                    last += farewell()
                except Exception:  # one part's failure must not keep the others' words back
                    log.exception("node buttons: a farewell failed")
            self.send(last)
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._close_port()

    def __enter__(self) -> BridgeClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def pressed(self) -> frozenset[tuple[int, int]]:
        with self._lock:
            return frozenset(self._link.pressed)

    def status(self) -> dict:
        now = time.monotonic()
        with self._lock:
            status = self._link.status(now)
        status.update(url=self.url, reconnects=self.reconnects)
        if status["state"] == DOWN and self._last_open_error:
            status["last_error"] = self._last_open_error
        elif status["state"] != UP and self._silent:
            status["last_error"] = self._silent
        return status

    @property
    def state(self) -> str:
        return self._link.state

    @property
    def link(self) -> HostLink:
        """The protocol state, to read (tests, diagnostics)."""
        return self._link

    def ping(self) -> int:
        return self._command(p.ping)

    def request_snapshot(self) -> int:
        return self._command(p.get_snapshot)

    def configure(self, debounce_ms: int, mode: int, scan_us: int, heartbeat_ms: int = 0) -> int:
        if mode not in (p.EAGER, p.DEFERRED):
            raise ValueError("debounce mode is protocol.EAGER or protocol.DEFERRED")
        return self._command(p.configure, debounce_ms, mode, scan_us, heartbeat_ms)

    def reset(self) -> int:
        return self._command(p.reset)

    def send(self, data: bytes) -> bool:
        """Write frames built elsewhere (LED frames, panel commands) now, from any thread; False (nothing
        sent) while the link is not up."""
        port = self._port
        if port is None or self._link.state != UP or not data:
            return False
        try:
            with self._write_lock:
                port.write(data)
        except (*PORT_ERRORS, AttributeError) as err:  # AttributeError: closed under our feet
            log.debug("node buttons: a send failed on %s: %s", self.url, err)
            return False
        return True

    def _command(self, builder, *args) -> int:
        with self._lock:
            return self._link.command(builder, *args)

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            if self._port is None:
                if not self._open():
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
            try:
                data = self._read()
            except (*PORT_ERRORS, TypeError) as err:
                # TypeError: pyserial on a pty that vanished mid-call
                self._failed(f"read failed: {err}")
                continue
            now = time.monotonic()
            with self._lock:
                events = self._link.receive(data, now) if data else []
                events += self._link.poll(now)
                news = self._link.take_news()
                out = self._link.take_outgoing()
                timed_out = self._link.timed_out
                up = self._link.state == UP
                problems = (self._link.decoder.bad, self._link.problems)
                last_problem = (
                    self._link.errors[-1]
                    if problems[1] != self._problems_logged[1]
                    else self._link.decoder.last_error
                )
            self._deliver(events)
            self._tell(news)
            if problems != self._problems_logged and now - self._problems_logged_at >= PROBLEM_LOG_EVERY:
                log.warning(
                    "node buttons: %d spoilt frame(s) and %d protocol problem(s) from the MCU on %s since "
                    "the last report, the last: %s",
                    problems[0] - self._problems_logged[0],
                    problems[1] - self._problems_logged[1],
                    self.url,
                    last_problem,
                )
                self._problems_logged, self._problems_logged_at = problems, now
            if up:
                delay = self.backoff[0]
                self._silent = None
            if timed_out:
                if self._silent is None:  # once per outage: a Pico without firmware stays silent
                    self._silent = f"no frame from the MCU for {self._link.heartbeat_timeout:.1f} s"
                    log.warning(
                        "node buttons: %s on %s; reconnecting until it answers", self._silent, self.url
                    )
                self._close_port()
                continue
            if out:
                try:
                    with self._write_lock:
                        self._port.write(out)
                except PORT_ERRORS as err:
                    self._failed(f"write failed: {err}")
        self._close_port()

    def _open(self) -> bool:
        try:
            # exclusive: two programs on the port would split its frames and both lose presses
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, timeout=self.read_timeout, write_timeout=0.5, exclusive=True
            )
        except (*PORT_ERRORS, ValueError) as err:
            self.open_errors += 1
            if self._last_open_error != str(err):
                log.info("node buttons: cannot open %s: %s", self.url, err)
            self._last_open_error = str(err)
            return False
        self._port = port
        self.opens += 1
        if self.opens > 1:
            self.reconnects += 1
        self._last_open_error = None
        with self._lock:
            self._link.connected(time.monotonic())
            out = self._link.take_outgoing()
        try:
            port.write(out)
        except PORT_ERRORS as err:
            self._failed(f"write failed: {err}")
            return False
        return True

    def _read(self) -> bytes:
        port = self._port
        data = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
        return data

    def _failed(self, why: str) -> None:
        log.warning("node buttons: %s on %s; releasing all keys and reconnecting", why, self.url)
        self._last_open_error = why
        with self._lock:
            events = self._link.lost(time.monotonic())
        self._deliver(events)
        self._close_port()

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                with self._write_lock:  # not under a send(): a half-closed port raises TypeError
                    port.close()
            except PORT_ERRORS:
                pass
            with self._lock:
                if self._link.state != DOWN:
                    events = self._link.lost(time.monotonic())
                else:
                    events = []
            self._deliver(events)

    def _tell(self, news: list[p.Message]) -> None:
        callback = self.on_message
        for msg in news if callback is not None else ():
            try:
                callback(msg)
            except Exception:
                log.exception("node buttons: on_message failed for %s", msg)

    def _deliver(self, events: list[KeyEvent]) -> None:
        callback = self.on_key
        if callback is None:
            return
        for event in events:
            try:
                callback(event)
            except Exception:  # a consumer's bug must not stop the buttons
                log.exception("node buttons: on_key callback failed for %s", event)
