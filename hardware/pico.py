"""The LEDs and the control panel on the Pico (``leds.driver = "pico"``, ``panel.driver = "pico"``): frames
and commands over the node buttons' serial link, for hosts whose GPIO cannot drive WS2812 (a Pi 5, a
laptop). docs/hardware.md, 'The one-cable build'; the protocol: docs/firmware.md, 'LED frames'.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from firmware_bridge import protocol as p
from firmware_bridge.client import UP, KeyEvent
from firmware_bridge.frames import FrameSender
from hardware.led_layout import LedLayout
from hardware.leds import LedError, LedSurface
from hardware.node_input import SerialNodeInput
from hardware.panel import BUTTONS, PATTERNS, STATUS, PanelError

log = logging.getLogger(__name__)

KEEPALIVE = 0.25  # s between the host's LED_QUERYs when no frame goes: the Pico's proof of a live host
SILENCE_MS = 1000  # the Pico goes dark this long after the host's last frame or query
RESEND = 0.1  # s a frame may go unconfirmed before it is sent again (frames are idempotent)
FIRMWARE = (1, 2)  # the first firmware that draws LEDs and holds a panel
_told: set[str] = set()  # the Pico ports whose too-old firmware was logged


def _firmware_ok(link: SerialNodeInput) -> bool:
    """False (and one log line a port) while the Pico's firmware is older than :data:`FIRMWARE`."""
    hello = link.client.link.hello
    if hello is None or (hello.fw_major, hello.fw_minor) >= FIRMWARE:
        return True
    if link.url not in _told:
        _told.add(link.url)
        log.error(
            "the Pico on %s runs firmware %d.%d.%d, which has no LEDs or panel: flash 1.2 or later "
            "(docs/firmware.md, 'Deploying to the Pico')",
            link.url,
            hello.fw_major,
            hello.fw_minor,
            hello.fw_patch,
        )
    return False


def _simulated_strip(link: SerialNodeInput) -> Callable[[], bytes] | None:
    emulator = getattr(link, "emulator", None)
    return None if emulator is None else (lambda: emulator.strip.shown)


class PicoSurface(LedSurface):
    """The LED surface drawn by the Pico. A frame goes as changes or whole once the Pico has confirmed the
    one before (sent by whichever thread learns it may: the caller's, the link's or the surface's own),
    so a slow Pico gets the newest frame, never a queue, and nothing waits on the line. ``shown()`` is
    what the Pico confirmed it shows (in the simulator: what the emulated Pico's strip holds)."""

    driver = "pico"

    def __init__(
        self,
        layout: LedLayout,
        link: SerialNodeInput,
        *,
        keepalive: float = KEEPALIVE,
        silence_ms: int = SILENCE_MS,
        **kw,
    ):
        if not isinstance(link, SerialNodeInput):
            raise LedError('leds.driver = "pico" needs the node buttons on a Pico (serial.url)')
        super().__init__(layout, **kw)
        self.link = link
        self.keepalive = keepalive
        self.silence_ms = silence_ms
        self._client = link.client
        self._bpp = 3 if self.strip == "GRB" else 4
        self._dark = bytes(self._bpp * layout.pixel_count)
        self._sender = FrameSender()
        self._send_lock = threading.Lock()
        self._want = self._dark  # the newest frame the surface was given
        self._sent: bytes | None = None  # the newest frame encoded since the Pico was set up
        self._frame_at = 0.0  # when the frame last encoded went (not the base class's _sent_at: its pacing)
        self._acked = False  # the Pico confirmed it shows the frame sent last
        self._confirmed = self._dark
        self._setup_needed = True
        self._queried = 0.0
        self._view = _simulated_strip(link)
        self._seen_lock = threading.Lock()
        self._seen: bytes | None = None  # the picture shown() told last, and its count
        self._seen_count = 0
        self._wake = threading.Event()
        self._stopping = False
        self._client.on_message = self._heard
        self._client.farewells.append(self._dark_frame)
        self._thread = threading.Thread(target=self._run, name="pico-leds", daemon=True)
        self._thread.start()

    def _write(self, wire: bytes) -> None:
        self._want = wire
        # sent from here: a hop to the thread was the tail of press-to-frame (docs/performance.md, "LEDs")
        self._step_now()

    def _step_now(self) -> None:
        if not self._step(time.monotonic(), wait=False):
            self._wake.set()

    def _close(self) -> None:
        self._client.send(self._dark_frame())
        self._stopping = True
        self._wake.set()
        self._thread.join(timeout=2.0)

    def _dark_frame(self) -> bytes:
        with self._send_lock:
            return self._sender.encode(self._dark)

    def _heard(self, state: p.Message) -> None:
        """An LED_STATE, on the client's thread."""
        with self._send_lock:
            self._acked = self._sender.heard(state)
            confirmed = self._sender.confirmed
            self._confirmed = confirmed[1] if confirmed is not None else self._dark
            if state.mode == p.WAITING:  # a Pico that restarted, or that took the host for gone
                self._setup_needed, self._sent = True, None
            due = not self._acked or self._want != self._sent
        if due:
            self._step_now()

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait(self.keepalive / 2)
            self._wake.clear()
            if self._stopping:
                return
            try:
                self._step(time.monotonic())
            except Exception:  # the LEDs must not stop for one bad turn
                log.exception("LEDs on the Pico: sending a frame failed")

    def _step(self, now: float, wait: bool = True) -> bool:
        """Send what is due; False if ``wait`` is False and a send is under way."""
        client = self._client
        if not self._send_lock.acquire(blocking=wait):
            return False
        try:
            if client.state != UP or not _firmware_ok(self.link):
                self._sender.forget()
                self._setup_needed, self._sent, self._acked = True, None, False
                return True
            data = b""
            if self._setup_needed:
                data += p.led_setup(self.layout.pixel_count, self._bpp, self.silence_ms)
                self._setup_needed = False
            want = self._want
            free = self._acked or self._sent is None or now - self._frame_at > RESEND
            if free and (want != self._sent or not self._acked):
                data += self._sender.encode(want)
                self._sent, self._frame_at, self._acked = want, now, False
            elif now - self._queried >= self.keepalive:
                data += p.led_query()
            if data:
                self._queried = now
                if not client.send(data):
                    self._sent = None  # not sent: again once the link is up
            return True
        finally:
            self._send_lock.release()

    def _shown_wire(self) -> bytes:
        if self._view is not None:
            wire = self._view()
            if len(wire) == len(self._dark):
                return wire
        return self._confirmed

    def shown(self) -> dict:
        """As :meth:`LedSurface.shown`, but ``frames`` counts the pictures the Pico showed: the page's
        ETag is that count, and a frame sent is on the LEDs only later."""
        wire = self._shown_wire()
        with self._seen_lock:
            if wire != self._seen:
                self._seen, self._seen_count = wire, self._seen_count + 1
            frames = self._seen_count
        nodes, status = self._looks(self._apparent_colours(wire))
        return {"nodes": nodes, "status": status, "frames": frames, "limited": self._last_limited}

    def status(self) -> dict:
        """The base's, and the Pico's side. Guests read it (``GET /api/status``): nothing here may depend
        on what a frame shows, such as its size on the link (a pairing code is a frame: issue 44, item 1)."""
        out = super().status()
        sender = self._sender
        state = self._client.link.led_state
        out["pico"] = {
            "shows_newest": self._acked and self._sent == self._want,
            "mode": None if state is None else ("showing" if state.mode == p.SHOWING else "waiting"),
            "refused": None if state is None else state.refused,
            "frames": sender.whole + sender.changes,
        }
        return out


class PicoPanel:
    """ROLL / OK / UNDO, the buzzer and the status LED on the Pico; the same interface as
    :class:`hardware.panel.ControlPanel` (``when_*`` callbacks on the link's thread or a timer's)."""

    def __init__(self, link: SerialNodeInput, *, hold_time: float = 1.0, sounds: bool = True, **_pins):
        if not isinstance(link, SerialNodeInput):
            raise PanelError('panel.driver = "pico" needs the node buttons on a Pico (serial.url)')
        self.link = link
        self.when_roll: Callable[[], None] | None = None
        self.when_ok: Callable[[], None] | None = None
        self.when_undo: Callable[[], None] | None = None
        self.when_menu: Callable[[], None] | None = None
        self.hold_time = hold_time
        self.sounds = bool(sounds)
        self.state = "off"
        self.closed = False
        self._pressed = dict.fromkeys(BUTTONS, False)
        self._held = False
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        link.when_panel = self._key
        link.client.farewells.append(lambda: p.tone(()) + p.status_led(0, 0))

    def _key(self, event: KeyEvent) -> None:
        if not 0 <= event.col < len(BUTTONS):
            return
        name = BUTTONS[event.col]
        with self._lock:
            self._pressed[name] = event.pressed
            if event.source == "link":  # the link dropped: nothing was let go
                self._cancel()
                return
            if name == "undo":
                if event.pressed:
                    self._held = False
                    self._cancel()
                    self._timer = threading.Timer(self.hold_time, self._hold)
                    self._timer.daemon = True
                    self._timer.start()
                    return
                self._cancel()
                if self._held:
                    return
        if name == "undo":
            self._call(self.when_undo, name)
        elif event.pressed:
            self._call(self.when_roll if name == "roll" else self.when_ok, name)

    def _hold(self) -> None:
        with self._lock:
            if not self._pressed["undo"] or self._held:
                return
            self._held = True
        self._call(self.when_menu, "menu")

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @staticmethod
    def _call(callback, what: str) -> None:
        if callback is None:
            return
        try:
            callback()
        except Exception:  # a failing callback must not stop the buttons
            log.exception("the %s callback failed", what)

    def is_pressed(self, name: str) -> bool:
        if name not in self._pressed:
            raise PanelError(f"no button {name!r}: one of {', '.join(BUTTONS)}")
        return self._pressed[name]

    def beep(self, kind: str) -> None:
        """Play a pattern of :data:`hardware.panel.PATTERNS` on the Pico's buzzer; never blocks."""
        if kind not in PATTERNS:
            raise PanelError(f"no sound {kind!r}: one of {', '.join(PATTERNS)}")
        if self.sounds and not self.closed and _firmware_ok(self.link):
            self.link.client.send(p.tone([(round(hz or 0), round(s * 1000)) for hz, s in PATTERNS[kind]]))

    def set_status(self, state: str) -> None:
        if state not in STATUS:
            raise PanelError(f"no status {state!r}: one of {', '.join(STATUS)}")
        if self.closed:
            return
        self.state = state
        pattern = STATUS[state]
        if isinstance(pattern, str):
            on, off = (1, 0) if pattern == "on" else (0, 0)
        else:
            on, off = round(pattern[0] * 1000), round(pattern[1] * 1000)
        if _firmware_ok(self.link):
            self.link.client.send(p.status_led(on, off))

    def press(self, name: str) -> None:
        """The simulator: press a button on the emulated Pico."""
        self.link.emulator.press_panel(name)

    def release(self, name: str) -> None:
        self.link.emulator.release_panel(name)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with self._lock:
            self._cancel()
        self.link.client.send(p.tone(()) + p.status_led(0, 0))

    def __enter__(self) -> PicoPanel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
