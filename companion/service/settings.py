"""The settings the phone and the menu change, each declared once in ``SETTINGS``; kept in the store."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion.service.schema import CommandError, check

log = logging.getLogger(__name__)

TIME_SCALES = (0.1, 20.0)  # lowest, highest
MOST_MA = 60000
DIE_MODES = ("electronic", "physical")
STONES = ("cloth", "leds")  # the players' own stones on the cloth, or the LEDs standing for them
# The menu's steps down to night mode (the last: the LEDs' dimmest).
BRIGHTNESS_STEPS = (1.0, 0.6, 0.4, 0.25)

SETTINGS: dict[str, dict] = {
    "brightness": {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "the LEDs' brightness, 0 to 1",
        "x-error": "brightness is a number from 0 to 1",
    },
    "night": {
        "type": "boolean",
        "description": "night mode: the LEDs at their dimmest",
        "x-error": "night is true or false",
    },
    "sounds": {"type": "boolean", "description": "the buzzer's sounds", "x-error": "sounds is true or false"},
    "budget_ma": {
        "type": "integer",
        "minimum": 100,
        "maximum": MOST_MA,
        "description": "the LED power supply's current budget in mA",
        "x-error": "budget_ma is the LED supply's current in mA, {least} to 60000",
    },
    "colours": {
        "type": "array",
        "minItems": 4,
        "maxItems": 4,
        "items": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"},
        "description": "the four players' stone colours (player 1 first): apart from each other and "
        "the board's",
        "x-error": "colours is a list of four '#RRGGBB' colours, one per player",
    },
    "die": {
        "enum": list(DIE_MODES),
        "description": "electronic: the companion rolls; physical: you roll a GRYB die and enter it",
        "x-error": "die is electronic (the companion rolls) or physical (you roll a GRYB die)",
    },
    "stones": {
        "enum": list(STONES),
        "description": "cloth: the players move real stones, and carry out the computer's moves and UNDO's; "
        "leds: the LEDs are the stones, so every move and UNDO is made at once",
        "x-error": "stones is cloth (real stones on the cloth) or leds (the LEDs show the stones)",
    },
    "time_scale": {
        "type": "number",
        "minimum": TIME_SCALES[0],
        "maximum": TIME_SCALES[1],
        "description": "multiplies the computer players' thinking time (easy 0.05 s, medium 0.12 s, "
        "hard 0.25 s a move on a desktop core; about 8 on a Raspberry Pi Zero 2 W plays as strong)",
        "x-error": "time_scale multiplies the computer players' thinking time, "
        f"{TIME_SCALES[0]:g} to {TIME_SCALES[1]:g}",
    },
}
SAYS = (
    "settings are brightness (0 to 1), night and sounds (true or false), budget_ma (mA), colours (four "
    "'#RRGGBB'), die (electronic or physical), stones (cloth or leds) and time_scale "
    f"({TIME_SCALES[0]:g} to {TIME_SCALES[1]:g})"
)


def bounds(key: str) -> tuple[float, float]:
    return SETTINGS[key]["minimum"], SETTINGS[key]["maximum"]


def schema(least_budget_ma: int) -> dict:
    """A change of settings; the budget's lowest is the layout's."""
    budget = SETTINGS["budget_ma"]
    properties = SETTINGS | {
        "budget_ma": budget
        | {"minimum": least_budget_ma, "x-error": budget["x-error"].format(least=least_budget_ma)}
    }
    return {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": properties}


@dataclass
class Settings:
    """The settings now: the page's changes (kept in the store), else the config's."""

    brightness: float
    night: bool
    sounds: bool
    budget_ma: int
    colours: list[tuple[int, int, int]]  # player 1 first
    die: str
    time_scale: float
    stones: str
    config: Any  # companion.service.config.Config
    least_budget_ma: int
    menu: bool = False  # the control panel's menu is open: not kept

    @classmethod
    def load(
        cls, config, least_budget_ma: int, stored: Callable[[str], Any], stones: str = "cloth"
    ) -> Settings:
        """The config's values, or the stored ones that still pass; ``stones`` until one is stored."""
        settings = cls(
            config.leds.brightness,
            config.leds.night,
            config.panel.sounds,
            config.leds.budget_ma,
            [config.players.rgb(i) for i in range(4)],
            "electronic",
            config.computer.time_scale,
            stones,
            config,
            least_budget_ma,
        )
        for key in SETTINGS:
            try:
                value = stored(key)
                if value is not None:
                    settings.apply(settings.check({key: value}))
            except ValueError as err:  # refused, or not JSON
                log.warning("saved setting %s ignored: %s", key, err)
        return settings

    def check(self, changes: dict) -> dict:
        """The changes as kept, all checked first."""
        check(schema(self.least_budget_ma), changes, SAYS)
        if "colours" in changes:
            self.rgb(changes["colours"])
            changes = changes | {"colours": [c.upper() for c in changes["colours"]]}
        if "brightness" in changes or "time_scale" in changes:
            changes = changes | {k: float(changes[k]) for k in ("brightness", "time_scale") if k in changes}
        return changes

    def rgb(self, colours: list[str]) -> list[tuple[int, int, int]]:
        """Four '#RRGGBB' by the config file's rules, as RGB."""
        from companion.service.config import ConfigError

        players = replace(self.config.players, colours=tuple(colours))
        try:
            players.check()
        except ConfigError as err:
            raise CommandError(str(err).replace("players.colours", "colours")) from None
        return [players.rgb(i) for i in range(4)]

    def apply(self, changes: dict) -> None:
        for key, value in changes.items():
            setattr(self, key, self.rgb(value) if key == "colours" else value)

    def step_brightness(self) -> str:
        """The menu's ROLL; night mode keeps the brightness, as the phone's does."""
        night = self.config.leds.night_brightness
        steps = [s for s in BRIGHTNESS_STEPS if s > night] or [BRIGHTNESS_STEPS[0]]
        nearest = min(range(len(steps)), key=lambda i: abs(steps[i] - self.brightness))
        if self.night:
            self.night, self.brightness = False, steps[0]
        elif nearest + 1 < len(steps):
            self.brightness = steps[nearest + 1]
        else:
            self.night = True
        if not self.night:
            return f"brightness {round(self.brightness * 100)} %"
        return "night mode" if night else "night mode: the LEDs are off"

    def shown_brightness(self) -> float:
        """What the LEDs are set to."""
        night = self.config.leds.night_brightness
        return min(self.brightness, night) if self.night else self.brightness

    def to_dict(self) -> dict:
        return {
            "brightness": self.brightness,
            "night": self.night,
            "sounds": self.sounds,
            "budget_ma": self.budget_ma,
            "die": self.die,
            "time_scale": self.time_scale,
            "stones": self.stones,
            "colours": ["#{:02X}{:02X}{:02X}".format(*c) for c in self.colours],
            "menu": self.menu,
        }
