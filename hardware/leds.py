"""The LED surface: what the runtime lights, on WS281x LEDs (rpi_ws281x) or on the simulator.

Both backends share one pipeline (docs/hardware.md, 'The LED driver'), so the simulator runs the Pi's code.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
from array import array
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from hardware.led_layout import LedLayout

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]

GAMMA = 2.8  # WLED's default and Adafruit's gamma8 table
# the dimmest brightness that shows colours: lower ones but 0 are raised to it (docs/hardware.md)
MIN_VISIBLE = 0.25
BURST = 3  # frames the cap lets out back to back
STRIPS = ("GRB", "GRBW")
INTERFACES = {"spi": 10, "pwm": 18}  # data GPIO for each: SPI0 MOSI, PWM0
LED_FREQ_HZ = 800_000
LED_DMA = 10
LED_RESET_US = 55
SPIDEV_DEFAULT_BUFSIZ = 4096


class LedError(RuntimeError):
    """The LEDs cannot be driven; the message says the fix."""


class LedInputError(LedError, ValueError):
    """A bad argument or frame; nothing was changed."""


@dataclass(frozen=True)
class PowerModel:
    """One LED's mA per channel at full duty, and idle (FastLED's WS2812B figures)."""

    red_ma: float = 16.0
    green_ma: float = 11.0
    blue_ma: float = 15.0
    white_ma: float = 20.0
    idle_ma: float = 1.0


def gamma_table(brightness: float, gamma: float = GAMMA) -> bytes:
    """Colour value -> duty at this (perceptual) brightness."""
    return bytes(round(255 * ((v * brightness) / 255) ** gamma) for v in range(256))


def _inverse_gamma(gamma: float = GAMMA) -> bytes:
    return bytes(round(255 * (d / 255) ** (1 / gamma)) for d in range(256))


def _scale_table(factor: float) -> bytes:
    return bytes(int(v * factor) for v in range(256))  # floor: the scaled frame never exceeds the budget


class Pipeline:
    """Compose, brightness + gamma, limit, encode: shared by every backend; no frame state."""

    def __init__(
        self,
        layout: LedLayout,
        strip: str,
        brightness: float,
        budget_ma: float,
        gamma: float = GAMMA,
        power: PowerModel = PowerModel(),
    ):
        self.layout = layout
        self.strip = strip
        self.gamma = gamma
        self.power = power
        self.pixels = layout.pixel_count
        self.budget_ma = budget_ma
        self.idle_ma = power.idle_ma * self.pixels
        self._offsets = {name: 3 * pixel for name, pixel in layout.nodes.items()}
        self._status = [3 * pixel for pixel in layout.status]
        self._lanes: tuple[int, int] | None = None
        self.set_brightness(brightness)

    def set_brightness(self, brightness: float) -> None:
        self.brightness = brightness
        self._table = gamma_table(max(brightness, MIN_VISIBLE) if brightness > 0 else 0.0, self.gamma)

    def compose(self, nodes: Mapping[str, RGB], status: Sequence[RGB]) -> bytearray:
        if len(status) > len(self._status):
            raise LedInputError(
                f"{len(status)} status colours, but layout {self.layout.name} has "
                f"{len(self._status)} status pixels"
            )
        raw = self._nodes_at_once(nodes)
        if raw is None:  # something is wrong: node by node, to say what
            raw = bytearray(3 * self.pixels)
            offsets = self._offsets
            for name, colour in nodes.items():
                try:
                    at = offsets[name]
                except KeyError:
                    raise LedInputError(f"{name!r} is not a node of layout {self.layout.name}") from None
                raw[at : at + 3] = _colour(colour, name)
        for i, colour in enumerate(status):
            at = self._status[i]
            raw[at : at + 3] = _colour(colour, f"status[{i}]")
        return raw

    def _nodes_at_once(self, nodes: Mapping[str, RGB]) -> bytearray | None:
        """Checked once per frame, not per node (docs/performance.md, 'LEDs'); None if something is wrong."""
        offsets = self._offsets
        try:
            if not nodes.keys() <= offsets.keys() or not set(map(len, nodes.values())) <= {3}:
                return None
            raw = bytearray(3 * self.pixels)
            for name, colour in nodes.items():
                at = offsets[name]
                raw[at : at + 3] = colour
        except (TypeError, ValueError):
            return None
        return raw

    def check_pixels(self, pixels: Sequence[RGB]) -> bytearray:
        if len(pixels) != self.pixels:
            raise LedInputError(
                f"a frame for layout {self.layout.name} has {self.pixels} pixels, not {len(pixels)}"
            )
        try:  # bytearray() refuses values outside 0..255
            if all(len(colour) == 3 for colour in pixels):
                return bytearray(chain.from_iterable(pixels))
        except (TypeError, ValueError):
            pass
        for i, colour in enumerate(pixels):
            _colour(colour, f"pixel {i}")
        raise LedInputError("a frame's pixels must each be three integers 0..255")

    def run(self, raw: bytearray) -> tuple[bytes, float, bool]:
        """Composed RGB frame -> (wire bytes, estimated mA, whether the limiter scaled it)."""
        duty = raw.translate(self._table)
        r, g, b = duty[0::3], duty[1::3], duty[2::3]
        w = None
        if self.strip == "GRBW":  # the white die takes the grey part of each colour
            r, g, b, w = self._white(r, g, b)
        ma = self._current(r, g, b, w)
        limited = ma > self.budget_ma
        if limited:
            colour_ma = ma - self.idle_ma
            table = _scale_table(max(0.0, self.budget_ma - self.idle_ma) / colour_ma)
            r, g, b = r.translate(table), g.translate(table), b.translate(table)
            if w is not None:
                w = w.translate(table)
            ma = self._current(r, g, b, w)
        return self._encode(r, g, b, w), ma, limited

    def _white(self, r: bytes, g: bytes, b: bytes) -> tuple[bytes, bytes, bytes, bytes]:
        """w = min(r, g, b) and r, g, b less w, in one int of 16-bit lanes (docs/performance.md, 'LEDs')."""
        n = self.pixels
        if self._lanes is None:
            self._lanes = (int.from_bytes(b"\x01\x00" * n, "big"), int.from_bytes(b"\x00\xff" * n, "big"))
        guard, low = self._lanes

        def spread(channel: bytes) -> int:
            lanes = bytearray(2 * n)
            lanes[1::2] = channel
            return int.from_bytes(lanes, "big")

        def smaller(a: int, b: int) -> int:
            mask = ((((a + guard) - b) & guard) >> 8) * 255  # 0xFF where a >= b
            return (b & mask) | (a & (low ^ mask))

        big_r, big_g, big_b = spread(r), spread(g), spread(b)
        big_w = smaller(smaller(big_r, big_g), big_b)
        # each lane of r, g, b is >= w: no borrow crosses lanes
        return tuple(
            v.to_bytes(2 * n, "big")[1::2] for v in (big_r - big_w, big_g - big_w, big_b - big_w, big_w)
        )

    def _current(self, r: bytes, g: bytes, b: bytes, w: bytes | None) -> float:
        p = self.power
        total = sum(r) * p.red_ma + sum(g) * p.green_ma + sum(b) * p.blue_ma
        if w is not None:
            total += sum(w) * p.white_ma
        return total / 255 + self.idle_ma

    def _encode(self, r: bytes, g: bytes, b: bytes, w: bytes | None) -> bytes:
        if w is None:
            wire = bytearray(3 * self.pixels)
            wire[0::3], wire[1::3], wire[2::3] = g, r, b
        else:
            wire = bytearray(4 * self.pixels)
            wire[0::4], wire[1::4], wire[2::4], wire[3::4] = g, r, b, w
        return bytes(wire)

    def decode(self, wire: bytes) -> list[RGB]:
        """Wire bytes -> the RGB duty of each pixel (white folded back into R, G and B)."""
        if self.strip == "GRB":
            return list(zip(wire[1::3], wire[0::3], wire[2::3]))
        w = wire[3::4]
        return [
            (min(255, r + x), min(255, g + x), min(255, b + x))
            for r, g, b, x in zip(wire[1::4], wire[0::4], wire[2::4], w)
        ]

    def current(self, wire: bytes) -> float:
        if self.strip == "GRB":
            return self._current(wire[1::3], wire[0::3], wire[2::3], None)
        return self._current(wire[1::4], wire[0::4], wire[2::4], wire[3::4])


def _colour(colour, what: str) -> bytes:
    try:
        data = bytes(colour)
    except (TypeError, ValueError):
        raise LedInputError(f"{what}: a colour is three integers 0..255, not {colour!r}") from None
    if len(data) != 3:
        raise LedInputError(f"{what}: a colour is three integers 0..255, not {colour!r}")
    return data


class LedSurface:
    """Lights the board through the layout; thread-safe, a context manager. A backend *must* implement
    :meth:`_write` (wire bytes to the LEDs) and *may* override :meth:`_close` and :meth:`status`."""

    driver = "none"

    def __init__(
        self,
        layout: LedLayout,
        *,
        interface: str = "spi",
        strip: str = "GRB",
        brightness: float = 0.5,
        budget_ma: float = 4000,
        fps: float = 30,
        gamma: float = GAMMA,
        power: PowerModel = PowerModel(),
    ):
        if not isinstance(layout, LedLayout):
            raise LedInputError(
                f"layout must be a LedLayout (see hardware.led_layout.load_layout), not {layout!r}"
            )
        if interface not in INTERFACES:
            raise LedInputError(
                f"interface must be 'spi' (GPIO10, recommended) or 'pwm' (GPIO18), not {interface!r}"
            )
        if strip not in STRIPS:
            raise LedInputError(f"strip must be 'GRB' (WS2812B) or 'GRBW' (SK6812 RGBW), not {strip!r}")
        if not isinstance(fps, (int, float)) or not 1 <= fps <= 1000:
            raise LedInputError(f"fps must be 1..1000, not {fps!r}")
        _check_brightness(brightness)
        _check_budget(budget_ma, layout, power)
        self.layout = layout
        self.interface = interface
        self.strip = strip
        self.fps = fps
        self._pipeline = Pipeline(layout, strip, brightness, budget_ma, gamma, power)
        self._apparent = _inverse_gamma(gamma)
        self._lock = threading.RLock()
        self._period = 1.0 / fps
        self._last_wire: bytes | None = None
        self._last_ma = 0.0
        self._last_limited = False
        self._sent_at = -1e9
        self._tokens = float(BURST)  # the frame-rate cap: a token bucket refilled at fps
        self._refilled = time.monotonic()
        self._pending: tuple[bytes, float, bool] | None = None
        self._timer: threading.Timer | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._sends: deque[float] = deque(maxlen=256)
        self.frames_sent = 0
        self.frames_unchanged = 0
        self.frames_dropped = 0
        self.closed = False

    @property
    def brightness(self) -> float:
        """0..1, perceptual; the current budget may dim a frame further."""
        return self._pipeline.brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        _check_brightness(value)
        with self._lock:
            if value != self._pipeline.brightness:
                self._pipeline.set_brightness(value)

    @property
    def budget_ma(self) -> float:
        """The supply's mA for the LEDs; every frame is dimmed to fit."""
        return self._pipeline.budget_ma

    @budget_ma.setter
    def budget_ma(self, value: float) -> None:
        _check_budget(value, self.layout, self._pipeline.power)
        with self._lock:
            self._pipeline.budget_ma = value

    def show_nodes(self, nodes: Mapping[str, RGB], status: Sequence[RGB] = ()) -> None:
        """Show these nodes in these colours, the others off, and the status pixels."""
        self._show(self._pipeline.compose(nodes, status))

    def show_pixels(self, pixels: Sequence[RGB]) -> None:
        """Show a raw frame, one colour per pixel in chain order."""
        self._show(self._pipeline.check_pixels(pixels))

    def status(self) -> dict:
        """Driver status for the settings page (JSON-serialisable)."""
        with self._lock:
            now = time.monotonic()
            recent = sum(1 for t in self._sends if now - t <= 1.0)
            return {
                "driver": self.driver,
                "layout": self.layout.name,
                "pixels": self.layout.pixel_count,
                "strip": self.strip,
                "interface": self.interface,
                "brightness": round(self.brightness, 3),
                "budget_ma": self._pipeline.budget_ma,
                "last_frame_ma": round(self._last_ma),
                "limited": self._last_limited,
                "fps": recent,
                "fps_cap": self.fps,
                "frames_sent": self.frames_sent,
                "frames_unchanged": self.frames_unchanged,
                "frames_dropped": self.frames_dropped,
                "closed": self.closed,
            }

    def _shown_wire(self) -> bytes:
        with self._lock:
            wire = self._last_wire
        return (
            wire if wire is not None else bytes((3 if self.strip == "GRB" else 4) * self.layout.pixel_count)
        )

    @property
    def frame(self) -> list[RGB]:
        """The last frame sent: RGB duty per pixel."""
        return self._pipeline.decode(self._shown_wire())

    def pixel_colours(self) -> list[RGB]:
        """How each pixel looks: the frame's duty with gamma undone."""
        return self._apparent_colours(self._shown_wire())

    def node_colours(self) -> dict[str, RGB]:
        """How each lit node looks (node name -> RGB); dark nodes are left out."""
        return self._looks(self.pixel_colours())[0]

    def status_colours(self) -> list[RGB]:
        return self._looks(self.pixel_colours())[1]

    def shown(self) -> dict:
        """For the web page: ``nodes`` (lit node -> RGB as seen), ``status``, ``frames`` and ``limited``."""
        with self._lock:  # the frame with its own count
            wire, frames, limited = self._shown_wire(), self.frames_sent, self._last_limited
        nodes, status = self._looks(self._apparent_colours(wire))
        return {"nodes": nodes, "status": status, "frames": frames, "limited": limited}

    def preview(self, nodes: Mapping[str, RGB], status: Sequence[RGB] = ()) -> dict:
        """What ``shown()`` would say of this frame, and its ``ma``, were it shown now: nothing is sent."""
        with self._lock:
            wire, ma, limited = self._pipeline.run(self._pipeline.compose(nodes, status))
        looks, lights = self._looks(self._apparent_colours(wire))
        return {"nodes": looks, "status": lights, "limited": limited, "ma": ma}

    def _apparent_colours(self, wire: bytes) -> list[RGB]:
        t = self._apparent
        return [(t[r], t[g], t[b]) for r, g, b in self._pipeline.decode(wire)]

    def _looks(self, colours: list[RGB]) -> tuple[dict[str, RGB], list[RGB]]:
        """Pixel colours -> the lit nodes' and the status pixels'."""
        lit = {name: colours[p] for name, p in self.layout.nodes.items() if colours[p] != (0, 0, 0)}
        return lit, [colours[p] for p in self.layout.status]

    def settle(self, timeout: float = 1.0) -> bool:
        """Wait for a deferred frame; True when none is pending."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        """Send any deferred frame, then release the LEDs. Idempotent."""
        with self._lock:
            if self.closed:
                return
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._pending is not None:
                self._send(*self._pending)
                self._pending = None
            self._idle.set()
            self.closed = True
        self._close()

    def __enter__(self) -> LedSurface:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _write(self, wire: bytes) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        pass

    def _show(self, raw: bytearray) -> None:
        with self._lock:
            if self.closed:
                raise LedError("the LED surface is closed")
            wire, ma, limited = self._pipeline.run(raw)
            if wire == (self._pending[0] if self._pending else self._last_wire):
                self.frames_unchanged += 1
                return
            if self._pending is not None:
                self.frames_dropped += 1  # superseded before it was shown
            if wire == self._last_wire:  # back to what the LEDs show
                self._pending = None
                self.frames_unchanged += 1
                return
            wait = self._refill()
            if wait <= 0 and self._timer is None:
                self._tokens -= 1
                self._send(wire, ma, limited)
                return
            self._pending = (wire, ma, limited)
            self._idle.clear()
            if self._timer is None:
                self._timer = threading.Timer(max(0.0, wait), self._flush)
                self._timer.daemon = True
                self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            if self._pending is not None and not self.closed:
                pending, self._pending = self._pending, None
                self._refill()
                self._tokens -= 1
                try:
                    self._send(*pending)
                except Exception:  # no caller to raise to: keep the surface usable
                    log.exception("sending a deferred LED frame failed")
            self._idle.set()

    def _refill(self) -> float:
        """Top up the frame tokens; seconds until one is there (0: now)."""
        now = time.monotonic()
        self._tokens = min(float(BURST), self._tokens + (now - self._refilled) * self.fps)
        self._refilled = now
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.fps

    def _send(self, wire: bytes, ma: float, limited: bool) -> None:
        self._write(wire)
        now = time.monotonic()
        self._sent_at = now
        self._sends.append(now)
        self._last_wire = wire
        self._last_ma = ma
        self._last_limited = limited
        self.frames_sent += 1


class PublicFrame:
    """The LEDs as they would be without a pairing code, for whoever may not see the code: what ``shown()``
    and ``status()`` say, of that frame (docs/security.md, "The pairing code on the LEDs"). The frame
    and the figures of the one with the code differ by its colours, so no guest may see those."""

    HIDDEN = ("fps", "frames_unchanged", "frames_dropped")  # they count the code's frames too

    def __init__(self, surface: LedSurface):
        self.surface = surface
        self._lock = threading.Lock()
        self._key: tuple = ((), (), surface.brightness, surface.budget_ma)
        self._frame: tuple[dict, list] = ({}, [])
        self._frames = 0
        self._looks: dict | None = None

    def show(self, nodes: Mapping[str, RGB], status: Sequence[RGB] = ()) -> None:
        """The frame without the code, each time the real one is shown."""
        surface = self.surface
        key = (tuple(sorted(nodes.items())), tuple(status), surface.brightness, surface.budget_ma)
        with self._lock:
            if key != self._key:
                self._key, self._frame, self._looks = key, (dict(nodes), list(status)), None
                self._frames += 1

    def _looked(self) -> tuple[dict, int]:
        with self._lock:
            if self._looks is None:
                self._looks = self.surface.preview(*self._frame)
            return self._looks, self._frames

    def shown(self) -> dict:
        looks, frames = self._looked()
        return {
            "nodes": looks["nodes"],
            "status": looks["status"],
            "frames": frames,
            "limited": looks["limited"],
        }

    def status(self) -> dict:
        looks, frames = self._looked()
        status = {k: v for k, v in self.surface.status().items() if k not in self.HIDDEN}
        return status | {
            "last_frame_ma": round(looks["ma"]),
            "limited": looks["limited"],
            "frames_sent": frames,
        }


def idle_draw_ma(layout: LedLayout, power: PowerModel | None = None) -> float:
    """mA the layout's LEDs draw when dark: the least budget."""
    return (power or PowerModel()).idle_ma * layout.pixel_count


def _check_budget(budget_ma, layout: LedLayout, power: PowerModel) -> None:
    idle = idle_draw_ma(layout, power)
    if not isinstance(budget_ma, (int, float)) or isinstance(budget_ma, bool) or budget_ma <= idle:
        raise LedInputError(
            f"budget_ma {budget_ma!r} does not cover the idle draw of {layout.pixel_count} LEDs "
            f"(~{idle:.0f} mA at {power.idle_ma:g} mA each): raise the budget"
        )


def _check_brightness(value) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= value <= 1.0:
        raise LedInputError(f"brightness is a number from 0 to 1, not {value!r}")


class SimulatedSurface(LedSurface):
    """The LEDs in memory: the last frame sent (:attr:`wire`), its current, and a PNG of it."""

    driver = "sim"

    def __init__(self, layout: LedLayout, **kw):
        super().__init__(layout, **kw)
        self._wire = bytes((3 if self.strip == "GRB" else 4) * layout.pixel_count)  # dark

    def _write(self, wire: bytes) -> None:
        self._wire = wire

    @property
    def wire(self) -> bytes:
        """The bytes last handed to the strip."""
        return self._wire

    @property
    def current_ma(self) -> float:
        """Estimated current of the frame on the LEDs."""
        return self._pipeline.current(self._wire)

    def render_png(self, path_or_file, palette: Mapping[str, RGB], scale: int = 16) -> None:
        """Write a PNG of the layout's board printed in ``palette``, with this frame's glow (needs Pillow)."""
        from hardware.board_image import draw_board

        if self.layout.board is None:
            raise LedInputError(f"layout {self.layout.name} has no board to draw (load it with one)")
        image = draw_board(self.layout.board, palette, self.node_colours(), self.status_colours(), scale)
        image.save(path_or_file, format="PNG")


@dataclass(frozen=True)
class HardwarePaths:
    """Where the driver looks first; tests point these at fakes."""

    model: str = "/proc/device-tree/model"
    cpuinfo: str = "/proc/cpuinfo"
    mem: str = "/dev/mem"
    gpiomem: str = "/dev/gpiomem"
    spidev: str = "/dev/spidev0.0"
    spidev_bufsiz: str = "/sys/module/spidev/parameters/bufsiz"


PI5_TYPES = {0x17, 0x18, 0x19, 0x1A}  # new-style revision codes: Pi 5, CM5, Pi 500, CM5 Lite


def pi_model(paths: HardwarePaths = HardwarePaths()) -> str | None:
    """The Pi's model (device tree, else /proc/cpuinfo), or None."""
    try:
        model = Path(paths.model).read_bytes().decode("ascii", "replace").strip("\x00\n ")
        if model:
            return model if "Raspberry Pi" in model else None
    except OSError:
        pass
    try:
        cpuinfo = Path(paths.cpuinfo).read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = {}
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if "Raspberry Pi" in fields.get("Model", ""):
        return fields["Model"]
    revision = fields.get("Revision", "")
    if re.fullmatch(r"[0-9a-fA-F]{6,8}", revision) and fields.get("Hardware", "").startswith("BCM"):
        code = int(revision, 16)
        kind = (code >> 4) & 0xFF if code & (1 << 23) else None
        return f"Raspberry Pi (revision {revision}{', Pi 5 family' if kind in PI5_TYPES else ''})"
    return None


def spi_buffer_bytes(pixels: int, freq_hz: int = LED_FREQ_HZ) -> int:
    """Bytes rpi_ws281x sends per SPI frame (its PCM_BYTE_COUNT): 3 bits per data bit, 4 colours, reset."""
    bits = pixels * 4 * 8 * 3 + (LED_RESET_US * freq_hz * 3) // 1_000_000
    return ((bits >> 3) & ~0x7) + 8


def check_platform(interface: str, pixels: int, paths: HardwarePaths = HardwarePaths()) -> str:
    """Check what rpi_ws281x needs (docs/hardware.md, 'Errors and their fixes'); the Pi's model."""
    model = pi_model(paths)
    if model is None:
        raise LedError(
            "this is not a Raspberry Pi (no Pi model in the device tree or /proc/cpuinfo): the ws281x "
            'driver only runs on a Pi; use the simulator (leds.driver = "sim")'
        )
    if re.search(r"Raspberry Pi (5|500)\b|Compute Module 5|Pi 5 family", model):
        raise LedError(
            f"{model}: rpi_ws281x does not support the Raspberry Pi 5 (its GPIO sits behind the RP1 "
            'chip); let the Pico drive the LEDs (leds.driver = "pico"), or use a Pi Zero 2 W, 3 or 4'
        )
    if interface == "spi":
        for dev, fix in (
            (
                paths.spidev,
                "enable SPI: sudo raspi-config nonint do_spi 0 (or dtparam=spi=on in "
                "/boot/firmware/config.txt) and reboot",
            ),
            (paths.gpiomem, "/dev/gpiomem is missing: use a current Raspberry Pi OS kernel"),
        ):
            if not os.path.exists(dev):
                raise LedError(f"{dev} does not exist: {fix}")
            if not os.access(dev, os.R_OK | os.W_OK):
                group = "spi" if dev == paths.spidev else "gpio"
                raise LedError(
                    f"no permission to use {dev}: add the user to the {group} group "
                    f"(sudo usermod -aG spi,gpio $USER, then log in again)"
                )
        need = spi_buffer_bytes(pixels)
        try:
            bufsiz = int(Path(paths.spidev_bufsiz).read_text().strip())
        except (OSError, ValueError):
            bufsiz = SPIDEV_DEFAULT_BUFSIZ
        if bufsiz < need:
            raise LedError(
                f"the SPI buffer holds {bufsiz} bytes but {pixels} LEDs need {need}: add "
                "spidev.bufsiz=32768 to the one line of /boot/firmware/cmdline.txt and reboot"
            )
    else:
        if not os.access(paths.mem, os.R_OK | os.W_OK):
            raise LedError(
                f"PWM on GPIO18 needs {paths.mem}, which only root may open: run as root, or use "
                'interface = "spi" (GPIO10, no root; recommended)'
            )
    return model


def pack_words(wire: bytes, strip: str) -> array:
    """Wire bytes -> one word per LED; rpi_ws281x, told the strip is RGB(W), sends it as those very bytes."""
    step = 3 if strip == "GRB" else 4
    count = len(wire) // step
    words = bytearray(4 * count)  # big-endian: [w, b0, b1, b2]
    words[1::4], words[2::4], words[3::4] = wire[0::step], wire[1::step], wire[2::step]
    if step == 4:
        words[0::4] = wire[3::4]
    packed = array("I")
    packed.frombytes(bytes(words))
    if sys.byteorder == "little":
        packed.byteswap()
    return packed


class Ws281xSurface(LedSurface):
    """WS2812B / SK6812 LEDs through rpi_ws281x: SPI on GPIO10 (no root) or PWM on GPIO18 (root)."""

    driver = "ws281x"

    def __init__(
        self,
        layout: LedLayout,
        *,
        interface: str = "spi",
        strip: str = "GRB",
        brightness: float = 0.5,
        budget_ma: float = 4000,
        fps: float = 30,
        paths: HardwarePaths = HardwarePaths(),
        **kw,
    ):
        super().__init__(
            layout,
            interface=interface,
            strip=strip,
            brightness=brightness,
            budget_ma=budget_ma,
            fps=fps,
            **kw,
        )
        self.closed = True  # until the strip is up
        self.model = check_platform(interface, layout.pixel_count, paths)
        try:
            import rpi_ws281x
        except ImportError:
            raise LedError(
                "the rpi_ws281x library is not installed: pip install rpi_ws281x (it builds on a "
                "Raspberry Pi only; elsewhere use the simulator)"
            ) from None
        strip_type = rpi_ws281x.ws.WS2811_STRIP_RGB if strip == "GRB" else rpi_ws281x.ws.SK6812_STRIP_RGBW
        # brightness 255 and no gamma in the library: the bytes pass through
        self._strip = rpi_ws281x.PixelStrip(
            layout.pixel_count, INTERFACES[interface], LED_FREQ_HZ, LED_DMA, False, 255, 0, strip_type
        )
        try:
            self._strip.begin()
        except RuntimeError as err:
            raise LedError(
                f"rpi_ws281x could not start on GPIO{INTERFACES[interface]} ({self.model}): {err}"
            ) from None
        self._words = array("I", bytes(4 * layout.pixel_count))
        self.closed = False

    def _write(self, wire: bytes) -> None:
        words = pack_words(wire, self.strip)
        old = self._words
        set_pixel = self._strip.setPixelColor
        for i, (new, before) in enumerate(zip(words, old)):
            if new != before:
                set_pixel(i, new)
        self._words = words
        try:
            self._strip.show()
        except RuntimeError as err:
            raise LedError(f"sending the frame failed: {err}") from None

    def _close(self) -> None:
        try:
            self._write(bytes((3 if self.strip == "GRB" else 4) * self.layout.pixel_count))  # dark on exit
        finally:
            self._strip._cleanup()

    def status(self) -> dict:
        out = super().status()
        out["model"] = self.model
        out["gpio"] = INTERFACES[self.interface]
        return out


def open_surface(driver: str, layout: LedLayout, *, pico=None, **kw) -> LedSurface:
    """The LED surface for a config's ``leds.driver``: "sim", "ws281x" or "pico" (drawn by the Pico
    whose node input is ``pico``)."""
    if driver == "sim":
        return SimulatedSurface(layout, **kw)
    if driver == "ws281x":
        return Ws281xSurface(layout, **kw)
    if driver == "pico":
        from hardware.pico import PicoSurface

        return PicoSurface(layout, pico, **kw)
    raise LedInputError(f'unknown LED driver {driver!r}: use "sim", "ws281x" or "pico"')
