"""Settings: brightness, night mode, sounds, the die, the stones, the LED budget, colours; hardware status,
self-test."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from companion.service import commands as c
from companion.service.settings import BRIGHTNESS_STEPS, TIME_SCALES
from web.api import body, call, command, refuse, web
from web.security import paired

bp = Blueprint("settings", __name__)

# Seconds of silence before the Pico's link counts as lost: the bridge's HEARTBEAT_TIMEOUT, repeated here
# (the web imports no driver); tests/web/test_web_api.py checks the two agree.
LOST_AFTER = 2.0


def _heard(age):
    """The heartbeat's age (seconds since the Pico was last heard) with its unit and what it means."""
    if isinstance(age, bool) or not isinstance(age, (int, float)):
        return age
    if age < LOST_AFTER:
        return f"{age:.1f} s ago: the board answers"
    return f"{age:.0f} s ago: no word from the board"


def _current(leds):
    """The last frame's current against the budget, and whether it was dimmed (None: not said)."""
    if not isinstance(leds, dict):
        return None
    if not all(isinstance(leds.get(key), (int, float)) for key in ("last_frame_ma", "budget_ma")):
        return None
    said = f"{leds['last_frame_ma']:.0f} mA of the {leds['budget_ma']:.0f} mA budget"
    return said + (": dimmed to fit" if leds.get("limited") else "")


def _shown(status: dict) -> dict:
    """The hardware status as the page words it."""
    shown = {}
    for key, value in status.items():
        if key == "heartbeat_age":
            key, value = "last_heartbeat", _heard(value)
        elif key == "led_status" and (current := _current(value)) is not None:
            key, value = "led_current", current
        shown[key] = value
    return shown


def _rows(status: dict) -> list[list[str]]:
    """The settings page's hardware table, [label, text] a row (a nested table is left to the API)."""
    return [
        [key.replace("_", " "), "—" if value is None else str(value)]
        for key, value in _shown(status).items()
        if not isinstance(value, dict)
    ]


@bp.get("/settings")
def settings_page():
    # The slider starts at the dimmest the LEDs show colours at: below it every position looks the same.
    return render_template(
        "settings.html",
        settings=web().runtime.snapshot()["settings"],
        rows=_rows(web().status()),
        self_test=web().selftest is not None,
        time_scales=TIME_SCALES,
        dimmest=min(BRIGHTNESS_STEPS),
        least_budget=web().runtime.board.least_budget_ma,
    )


@bp.get("/api/settings")
def get_settings():
    return jsonify(settings=web().runtime.snapshot()["settings"], status=web().status())


@bp.get("/api/status")
def status():
    """The hardware status, and (``shown``) its rows as the settings page shows them."""
    status = web().status()
    return jsonify(status | {"shown": _rows(status)})


@bp.post("/api/settings")
@paired
def set_settings():
    snapshot = call(command(c.ChangeSettings))  # the runtime checks them all before changing any
    return jsonify(ok=True, settings=snapshot["settings"])


@bp.post("/api/selftest")
@paired
def start_selftest():
    body()
    if web().selftest is None:
        refuse(404, "no self-test here")
    if not web().selftest():
        refuse(409, "a self-test is already running")
    return jsonify(ok=True, message="self-test started: the board sweeps its LEDs, then press every lit node")


@bp.post("/api/selftest/cancel")
@paired
def cancel_selftest():
    """Stop the self-test under way: the game has the board back."""
    body()
    if web().cancel_selftest is None:
        refuse(404, "no self-test here")
    if not web().cancel_selftest():
        refuse(409, "no self-test is running")
    return jsonify(ok=True, message="self-test cancelled: the board is the game's again")
