"""The configuration: one TOML file, every key checked (nothing starts half-configured), sim defaults."""

from __future__ import annotations

import os
import re
import socket
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from companion.service.geometry import board_geometry
from companion.session.palette import BOARD_COLOURS
from hardware.led_layout import LayoutError, load_layout
from hardware.leds import PowerModel, idle_draw_ma

DEFAULT_PATH = Path("/etc/gryb-companion/config.toml")


MIN_DISTANCE = 120  # sum of channel differences: below it two glows are confused
# A seat's brightest channel: below it stones hardly show (docs/runtime.md, "Colours").
MIN_GLOW = 128


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b))


def _full(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """The colour at its brightest: LEDs scale colours keeping their hue (#00FF00 is (0, 160, 60) up)."""
    top = max(rgb)
    return rgb if top == 0 else tuple(round(c * 255 / top) for c in rgb)  # type: ignore[return-value]


def _near_board(rgb: tuple[int, int, int], board: tuple[int, int, int]) -> bool:
    """Too close to a board colour, as given or at another brightness."""
    return _distance(rgb, board) < MIN_DISTANCE or _distance(_full(rgb), _full(board)) < MIN_DISTANCE


class ConfigError(ValueError):
    """A configuration problem; the message names the key."""


def _rgb(text: str) -> tuple[int, int, int]:
    if not (isinstance(text, str) and len(text) == 7 and text[0] == "#"):
        raise ValueError(f"a colour is written #RRGGBB, not {text!r}")
    try:
        return tuple(int(text[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    except ValueError:
        raise ValueError(f"a colour is written #RRGGBB, not {text!r}") from None


@dataclass(frozen=True)
class Leds:
    driver: str = "sim"  # "sim", "ws281x" or "pico" (the Pico on serial.url draws them)
    layout: str = "panels-32x32"  # a shipped layout name or a path to a layout file
    interface: str = "spi"  # "spi" (GPIO10, no root) or "pwm" (GPIO18, needs /dev/mem)
    strip: str = "GRB"  # "GRB" (WS2812B) or "GRBW" (SK6812 RGBW)
    brightness: float = 0.5
    night_brightness: float = 0.25  # the dimmest the LEDs show colours at (hardware.leds.MIN_VISIBLE)
    night: bool = False  # start in night mode; the phone's and the menu's choice is kept
    budget_ma: int = 4000
    fps: int = 30

    def check(self) -> None:
        _choice("leds.driver", self.driver, ("sim", "ws281x", "pico"))
        _choice("leds.interface", self.interface, ("spi", "pwm"))
        _choice("leds.strip", self.strip, ("GRB", "GRBW"))
        _span("leds.brightness", self.brightness, 0.0, 1.0)
        _span("leds.night_brightness", self.night_brightness, 0.0, 1.0)
        _flag("leds.night", self.night)
        _span("leds.budget_ma", self.budget_ma, 100, 60000)
        _span("leds.fps", self.fps, 1, 120)
        if self.night_brightness > self.brightness:
            raise ConfigError(
                "leds.night_brightness is brighter than leds.brightness: night mode would dazzle"
            )
        self._check_layout()

    def least_budget_ma(self) -> int:
        """The lowest budget offered: the first 100 mA above what the LEDs draw dark."""
        return (int(idle_draw_ma(load_layout(self.layout, board_geometry()))) // 100 + 1) * 100

    def _check_layout(self) -> None:
        """Else the LEDs would fail only once all else had started."""
        try:
            layout = load_layout(self.layout, board_geometry())
        except LayoutError as err:
            raise ConfigError(f"leds.layout: {err}") from None
        idle_ma, idle = PowerModel().idle_ma, idle_draw_ma(layout)
        if self.budget_ma <= idle:
            raise ConfigError(
                f"leds.budget_ma: {self.budget_ma} mA does not cover the idle draw of the "
                f"{layout.pixel_count} LEDs of layout {layout.name} (~{idle:.0f} mA at {idle_ma:g} mA "
                f"each): raise it"
            )


@dataclass(frozen=True)
class Serial:
    url: str = "sim"  # "sim" runs the emulated Pico; else a pyserial URL such as /dev/ttyACM0

    def check(self) -> None:
        if not self.url:
            raise ConfigError("serial.url is empty: give /dev/ttyACM0 (or another pyserial URL), or sim")


@dataclass(frozen=True)
class Panel:
    driver: str = "sim"  # "sim" (gpiozero MockFactory), "gpio" or "pico" (on the Pico on serial.url)
    roll: int = 17
    ok: int = 27
    undo: int = 22
    buzzer: int = 13
    status_led: int = 6
    hold_time: float = 1.0
    bounce_time: float = 0.05
    sounds: bool = True

    def check(self) -> None:
        _choice("panel.driver", self.driver, ("sim", "gpio", "pico"))
        pins = {}
        for name in ("roll", "ok", "undo", "buzzer", "status_led"):
            pin = getattr(self, name)
            _span(f"panel.{name}", pin, 0, 27)
            if pin in pins:
                raise ConfigError(f"panel.{name} uses GPIO{pin}, already used by panel.{pins[pin]}")
            if pin in (10, 18):
                raise ConfigError(f"panel.{name} uses GPIO{pin}, which drives the LEDs (SPI MOSI / PWM)")
            pins[pin] = name
        _span("panel.hold_time", self.hold_time, 0.2, 10.0)
        _span("panel.bounce_time", self.bounce_time, 0.0, 0.5)
        _flag("panel.sounds", self.sounds)


@dataclass(frozen=True)
class Web:
    host: str = "127.0.0.1"
    port: int = 8080
    # Names the page may be reached by besides this machine's own (docs/security.md, "The threat model").
    allowed_hosts: tuple[str, ...] = ()

    def check(self) -> None:
        _span("web.port", self.port, 1, 65535)
        if not self.host:
            raise ConfigError("web.host is empty: give an address such as 0.0.0.0 or 127.0.0.1")
        for name in self.allowed_hosts:
            if not isinstance(name, str) or not name or any(c in name for c in " /\t@"):
                raise ConfigError(f"web.allowed_hosts: {name!r} is not a host name such as gryb.example.org")


@dataclass(frozen=True)
class Players:
    # Apart from the board's and each other's, in lightness too (docs/runtime.md, "Colours").
    colours: tuple[str, ...] = ("#FFFFFF", "#FF00C8", "#00E5FF", "#9A00FF")
    names: tuple[str, ...] = ("Player 1", "Player 2", "Player 3", "Player 4")

    def check(self) -> None:
        if len(self.colours) != 4 or len(self.names) != 4:
            raise ConfigError("players.colours and players.names need one entry for each of 4 seats")
        seen = {}
        for i, text in enumerate(self.colours):
            try:
                rgb = _rgb(text)
            except ValueError as err:
                raise ConfigError(f"players.colours[{i}]: {err}") from None
            for other, j in seen.items():
                if _distance(rgb, other) < MIN_DISTANCE:
                    raise ConfigError(f"players.colours[{i}] {text} is too close to players.colours[{j}]")
            for letter, board in BOARD_COLOURS.items():
                if _near_board(rgb, board):
                    raise ConfigError(
                        f"players.colours[{i}] {text} is too close to the board's {letter} nodes"
                    )
            if max(rgb) < MIN_GLOW:
                raise ConfigError(
                    f"players.colours[{i}] {text} is too dark: its stones would hardly show on the "
                    f"board (a colour needs one of its red, green or blue at {MIN_GLOW:02X} or more)"
                )
            seen[rgb] = i

    def rgb(self, seat: int) -> tuple[int, int, int]:
        return _rgb(self.colours[seat])


@dataclass(frozen=True)
class State:
    dir: str = ""  # empty: $STATE_DIRECTORY (systemd) or ~/.local/state/gryb-companion

    def path(self) -> Path:
        if self.dir:
            return Path(self.dir)
        if os.environ.get("STATE_DIRECTORY"):
            return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(base) / "gryb-companion"

    def check(self) -> None:
        pass


TIME_SCALES = (0.1, 20.0)  # lowest, highest


@dataclass(frozen=True)
class Computer:
    # Multiplies the levels' budgets, set on a desktop core (docs/runtime.md, "Computer players and hints").
    time_scale: float = 1.0

    def check(self) -> None:
        _span("computer.time_scale", self.time_scale, *TIME_SCALES)


BOARD_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


@dataclass(frozen=True)
class Link:
    """Boards linked through an MQTT broker (docs/linking.md); no url: not linked."""

    url: str = ""  # mqtt://host:1883 or mqtts://host:8883
    board: str = ""  # this board's name in topics (and its broker user); empty: the host's name
    user: str = ""
    password_file: str = ""  # a file holding the broker password (never the password in this file)
    ca: str = ""  # the CA certificate for mqtts (empty: the system's)

    def check(self) -> None:
        if self.url and not re.match(r"^mqtts?://[^/:]+(:\d{1,5})?/?$", self.url):
            raise ConfigError(f"link.url is mqtt://host:port or mqtts://host:port, not {self.url!r}")
        if self.board and not BOARD_NAME.match(self.board):
            raise ConfigError("link.board is 1 to 32 of a-z, 0-9, - and _, beginning with a letter or digit")
        for key in ("password_file", "ca"):
            path = getattr(self, key)
            if path and not Path(path).is_file():
                raise ConfigError(f"link.{key}: no file at {path}")

    def board_name(self) -> str:
        if self.board:
            return self.board
        name = re.sub(r"[^a-z0-9_-]", "-", socket.gethostname().lower()).strip("-_")[:32]
        return name or "board"

    def password(self) -> str:
        return Path(self.password_file).read_text(encoding="utf-8").strip() if self.password_file else ""


@dataclass(frozen=True)
class Config:
    leds: Leds = field(default_factory=Leds)
    serial: Serial = field(default_factory=Serial)
    panel: Panel = field(default_factory=Panel)
    web: Web = field(default_factory=Web)
    players: Players = field(default_factory=Players)
    computer: Computer = field(default_factory=Computer)
    state: State = field(default_factory=State)
    link: Link = field(default_factory=Link)

    def check(self) -> Config:
        for section in fields(self):
            getattr(self, section.name).check()
        return self


def _choice(key: str, value: Any, choices: tuple) -> None:
    if value not in choices:
        raise ConfigError(f"{key} is one of {', '.join(map(str, choices))}, not {value!r}")


def _span(key: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{key} must be from {low} to {high}, not {value!r}")


def _flag(key: str, value: Any) -> None:
    # For a Config built in code (_section checks the file's types).
    if not isinstance(value, bool):
        raise ConfigError(f"{key} is true or false, not {value!r}")


def _section(cls, name: str, data: Any):
    if not isinstance(data, dict):
        raise ConfigError(f"[{name}] must be a table of keys")
    known = {f.name: f for f in fields(cls)}
    values = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{name}.{key} is not a setting; [{name}] has {', '.join(known)}")
        expected = type(getattr(cls(), key))
        if expected is tuple:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{name}.{key} must be a list of strings")
            value = tuple(value)
        elif expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(
                f"{name}.{key} must be {expected.__name__}, not {type(value).__name__} {value!r}"
            )
        values[key] = value
    return cls(**values)


def from_dict(data: dict) -> Config:
    sections = {f.name: f.default_factory for f in fields(Config)}  # type: ignore[misc]
    built = {}
    for name, value in data.items():
        if name not in sections:
            raise ConfigError(f"[{name}] is not a section; sections are {', '.join(sections)}")
        built[name] = _section(type(sections[name]()), name, value)
    return Config(**built).check()


def load(path: str | os.PathLike | None, sim: bool = False) -> Config:
    """Read the config file; with ``sim`` and no file, the simulator defaults."""
    if path is None:
        if sim:
            return Config().check()
        path = DEFAULT_PATH
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}") from None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:  # another encoding (Latin-1, UTF-16), or not text
        line = err.object[: err.start].count(b"\n") + 1
        raise ConfigError(f"{path} is not UTF-8 text (line {line}): save it as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    config = from_dict(data)
    if sim:
        return simulated(config)
    if "host" not in data.get("web", {}):
        # The Pi serves the room's phones.
        config = replace(config, web=replace(config.web, host="0.0.0.0"))
    return config


def simulated(config: Config) -> Config:
    """Every backend the simulator; "pico" stays (the emulated Pico drives them)."""
    return replace(
        config,
        leds=replace(config.leds, driver="pico" if config.leds.driver == "pico" else "sim"),
        serial=replace(config.serial, url="sim"),
        panel=replace(config.panel, driver="pico" if config.panel.driver == "pico" else "sim"),
    )
