"""The control panel on the Pi's GPIO (gpiozero): ROLL, OK and UNDO buttons, a buzzer, a status LED.

    panel = open_panel("sim")                 # "gpio" for the real pins
    panel.pin("roll").drive_low()             # sim: press ROLL (pull-ups: pressed = low)

Debouncing is done here, the same on every pin factory (docs/hardware.md, 'Control panel: the Pi's GPIO').
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

Callback = Callable[[], None] | None

# (Hz or None for a rest, seconds), on a TonalBuzzer of two octaves round A5: 220..3520 Hz
PATTERNS: dict[str, tuple[tuple[float | None, float], ...]] = {
    "ok": ((1760, 0.06),),
    "illegal": ((330, 0.12), (None, 0.05), (247, 0.22)),
    "gryb": ((1047, 0.08), (1319, 0.08), (1568, 0.08), (2093, 0.18)),  # G R Y B, rising
    "win": ((1047, 0.1), (1319, 0.1), (1568, 0.1), (2093, 0.3), (None, 0.06), (1568, 0.1), (2093, 0.45)),
    "roll": ((2637, 0.02), (None, 0.04)) * 6,  # the die rattling
}
STATUS = {"ready": "on", "busy": (0.1, 0.1), "link-down": (0.5, 0.5), "off": "off"}
BUTTONS = ("roll", "ok", "undo")


class PanelError(ValueError):
    """A bad panel option or request, or no GPIO here."""


class _Debounce:
    """One button's debounced state: an edge counts at once; the pin is read again after ``bounce_time``."""

    def __init__(self, read: Callable[[], bool], bounce_time: float, on_change: Callable[[bool], None]):
        self.read = read
        self.bounce_time = bounce_time
        self.on_change = on_change
        self.pressed = False
        self.changed_at = -1e9
        self.timer: threading.Timer | None = None
        self.lock = threading.Lock()

    def edge(self, pressed: bool) -> None:
        with self.lock:
            if pressed == self.pressed:
                return  # a bounce
            now = time.monotonic()
            wait = self.changed_at + self.bounce_time - now
            if wait > 0:
                if self.timer is None:  # look again when the window closes
                    self.timer = threading.Timer(wait, self._settle)
                    self.timer.daemon = True
                    self.timer.start()
                return
            self.pressed, self.changed_at = pressed, now
        self.on_change(pressed)

    def _settle(self) -> None:
        with self.lock:
            self.timer = None
            pressed = self.read()
            if pressed == self.pressed:
                return
            self.pressed, self.changed_at = pressed, time.monotonic()
        self.on_change(pressed)

    def cancel(self) -> None:
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None


class ControlPanel:
    """ROLL / OK / UNDO buttons, a buzzer and a status LED on BCM pins; a context manager. The ``when_*``
    callbacks run on gpiozero's or a timer's thread and *must* return quickly."""

    def __init__(
        self,
        *,
        roll: int = 17,
        ok: int = 27,
        undo: int = 22,
        buzzer: int = 13,
        status_led: int = 6,
        hold_time: float = 1.0,
        bounce_time: float = 0.05,
        sounds: bool = True,
        pin_factory=None,
    ):
        from gpiozero import LED, Button, TonalBuzzer
        from gpiozero.exc import BadPinFactory
        from gpiozero.tones import Tone

        pins = {"roll": roll, "ok": ok, "undo": undo, "buzzer": buzzer, "status_led": status_led}
        seen: dict[int, str] = {}
        for name, number in pins.items():
            if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= 27:
                raise PanelError(f"{name} must be a GPIO number 0..27, not {number!r}")
            if number in seen:
                raise PanelError(f"{name} and {seen[number]} both use GPIO{number}")
            seen[number] = name
        if not isinstance(hold_time, (int, float)) or hold_time <= 0:
            raise PanelError(f"hold_time must be a positive number of seconds, not {hold_time!r}")
        if not isinstance(bounce_time, (int, float)) or not 0 <= bounce_time < hold_time:
            raise PanelError(f"bounce_time must be 0 or more and shorter than hold_time, not {bounce_time!r}")

        self.when_roll: Callback = None
        self.when_ok: Callback = None
        self.when_undo: Callback = None
        self.when_menu: Callback = None
        self.sounds = bool(sounds)
        self.hold_time = hold_time
        self.bounce_time = bounce_time
        self.state = "off"
        self.closed = False
        self._owned_factory = None
        self._Tone = Tone
        self._devices: dict[str, object] = {}
        self._debounce: dict[str, _Debounce] = {}
        self._undo_held = False
        try:
            for name in BUTTONS:
                button = Button(
                    pins[name], pull_up=True, bounce_time=None, hold_time=hold_time, pin_factory=pin_factory
                )
                self._devices[name] = button
                debounce = _Debounce(
                    lambda b=button: b.is_pressed,
                    bounce_time,
                    lambda pressed, n=name: self._changed(n, pressed),
                )
                self._debounce[name] = debounce
                button.when_pressed = lambda d=debounce: d.edge(True)
                button.when_released = lambda d=debounce: d.edge(False)
            self._devices["undo"].when_held = self._held
            self._buzzer = TonalBuzzer(buzzer, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)
            self._devices["buzzer"] = self._buzzer
            self._led = LED(status_led, pin_factory=pin_factory)
            self._devices["status_led"] = self._led
        except PanelError:
            self.close()
            raise
        except Exception as err:  # gpiozero's: no GPIO here, pin in use, ...
            self.close()
            hint = (
                " (no GPIO here: on a Raspberry Pi install python3-lgpio, which install.sh does; elsewhere "
                'set panel.driver = "sim", or run --sim)'
                if isinstance(err, BadPinFactory)
                else ""
            )
            raise PanelError(
                f"the control panel's GPIO could not be opened: {type(err).__name__}: {err}{hint}"
            ) from err
        self._sound_lock = threading.Lock()
        self._sound_wake = threading.Event()
        self._sound_generation = 0
        self._sound_next = None
        self._sound_thread = threading.Thread(target=self._play_loop, name="panel-buzzer", daemon=True)
        self._sound_thread.start()

    def _changed(self, name: str, pressed: bool) -> None:
        if name == "undo":
            if pressed:
                self._undo_held = False
            elif not self._undo_held:
                self._call(self.when_undo, "undo")
            return
        if pressed:
            self._call(self.when_roll if name == "roll" else self.when_ok, name)

    def _held(self) -> None:
        if self._debounce["undo"].pressed and not self._undo_held:
            self._undo_held = True
            self._call(self.when_menu, "menu")

    @staticmethod
    def _call(callback: Callback, what: str) -> None:
        if callback is None:
            return
        try:
            callback()
        except Exception:  # a failing callback must not kill gpiozero's event thread
            log.exception("the %s callback failed", what)

    def is_pressed(self, name: str) -> bool:
        """The debounced state of a button ("roll", "ok", "undo")."""
        if name not in self._debounce:
            raise PanelError(f"no button {name!r}: one of {', '.join(BUTTONS)}")
        return self._debounce[name].pressed

    def pin(self, name: str):
        """The gpiozero pin of a button, "buzzer" or "status_led" (in sim: a MockPin to drive)."""
        if name not in self._devices:
            raise PanelError(f"no panel pin {name!r}: one of {', '.join(self._devices)}")
        device = self._devices[name]
        return getattr(device, "pwm_device", device).pin  # TonalBuzzer wraps a PWMOutputDevice

    def beep(self, kind: str) -> None:
        """Play a pattern of :data:`PATTERNS` in the background, cutting the one playing; never blocks."""
        if kind not in PATTERNS:
            raise PanelError(f"no sound {kind!r}: one of {', '.join(PATTERNS)}")
        if not self.sounds or self.closed:
            return
        with self._sound_lock:
            self._sound_generation += 1
            self._sound_next = PATTERNS[kind]
        self._sound_wake.set()

    def _play_loop(self) -> None:
        while True:
            self._sound_wake.wait()
            with self._sound_lock:
                self._sound_wake.clear()
                pattern, self._sound_next = self._sound_next, None
                generation = self._sound_generation
            if self.closed:
                return
            if pattern is None:
                continue
            try:
                for frequency, seconds in pattern:
                    if generation != self._sound_generation or self.closed:
                        break
                    if frequency is None:
                        self._buzzer.stop()
                    else:
                        self._buzzer.play(self._Tone.from_frequency(frequency))
                    if self._sound_wake.wait(seconds):  # a newer beep arrived: cut this one
                        break
                if not self.closed:
                    self._buzzer.stop()
            except Exception:
                if not self.closed:
                    log.exception("the buzzer failed")

    def set_status(self, state: str) -> None:
        """ "ready" (steady on), "busy" (fast blink), "link-down" (slow blink) or "off"."""
        if state not in STATUS:
            raise PanelError(f"no status {state!r}: one of {', '.join(STATUS)}")
        if self.closed:
            return
        pattern = STATUS[state]
        if pattern == "on":
            self._led.on()
        elif pattern == "off":
            self._led.off()
        elif state != self.state:  # keep a running blink's rhythm when asked again
            self._led.blink(on_time=pattern[0], off_time=pattern[1], background=True)
        self.state = state

    def close(self) -> None:
        """Stop the buzzer and the blinking, release the pins. Idempotent."""
        if self.closed:
            return
        self.closed = True
        if hasattr(self, "_sound_wake"):
            self._sound_wake.set()
            self._sound_thread.join(timeout=1.0)
        for debounce in self._debounce.values():
            debounce.cancel()
        for device in reversed(list(self._devices.values())):
            try:
                device.close()
            except Exception:
                log.exception("closing %r failed", device)
        if self._owned_factory is not None:
            self._owned_factory.close()

    def __enter__(self) -> ControlPanel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_panel(driver: str, *, pico=None, **kw) -> ControlPanel:
    """The panel for ``panel.driver``: "sim" (MockFactory with PWM pins, for the buzzer), "gpio", or "pico"
    (on the Pico whose node input is ``pico``: hardware.pico.PicoPanel)."""
    if driver == "pico":
        from hardware.pico import PicoPanel

        return PicoPanel(pico, **kw)
    if driver == "sim":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        factory = MockFactory(pin_class=MockPWMPin)
        panel = ControlPanel(pin_factory=factory, **kw)
        panel._owned_factory = factory
        return panel
    if driver == "gpio":
        import warnings

        from gpiozero.exc import PinFactoryFallback

        # off a Pi gpiozero warns for each pin library it tries; our one error says what to do
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PinFactoryFallback)
            return ControlPanel(**kw)
    raise PanelError(f'unknown panel driver {driver!r}: use "sim", "gpio" or "pico"')
