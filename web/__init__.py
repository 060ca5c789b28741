"""The phone web page: a Flask app factory, one blueprint per feature, served by waitress.

    create_app(runtime, config, sim_input=None, state_dir=None, status_provider=None, selftest=None,
               cancel_selftest=None, leds=None)

Views are thin: they check the request and call the runtime (``runtime.call(name, ...)``), which
owns the game. Anyone on the LAN may watch (GET); anything that changes the game or the settings
needs a paired session and a CSRF token (see :mod:`web.security`). The page updates itself from
the Server-Sent Events feed at ``/api/events`` (:mod:`web.events`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from web.replays import Replays

__all__ = ["create_app"]


class WebState:
    """What the blueprints share: the runtime, the optional simulator input, status, a stop flag and the
    replayed games kept."""

    def __init__(
        self,
        runtime,
        config,
        sim_input,
        state_dir: Path,
        status_provider,
        selftest=None,
        cancel_selftest=None,
        leds=None,
    ):
        self.runtime = runtime
        self.config = config
        self.sim_input = sim_input
        self.state_dir = state_dir
        self.status_provider = status_provider
        self.selftest = selftest
        self.cancel_selftest = cancel_selftest
        self.leds = leds  # what the LEDs show now (hardware.leds.LedSurface.shown), for GET /api/leds
        self.stopping = threading.Event()  # set at shutdown: every open SSE stream ends within a second
        self.replays = Replays()  # replayed games the replay page steps through

    def status(self) -> dict:
        if self.status_provider is None:
            return {"mode": "simulator", "serial": "simulator", "heartbeat_age": None, "leds": "simulator"}
        try:
            status = dict(self.status_provider())
        except Exception as err:  # a broken driver must not take the settings page down
            return {"mode": "unknown", "error": f"status unavailable: {type(err).__name__}"}
        status.setdefault("mode", "hardware")
        return status


def create_app(
    runtime,
    config,
    sim_input=None,
    state_dir: str | Path | None = None,
    status_provider: Callable[[], dict[str, Any]] | None = None,
    selftest: Callable[[], bool] | None = None,
    cancel_selftest: Callable[[], bool] | None = None,
    leds: Callable[[], dict] | None = None,
) -> Flask:
    """Build the web app around a started :class:`companion.service.runtime.Runtime`.

    ``sim_input`` (the simulator) has ``tap(node_name)``: a tap on the virtual board presses that
    node through the emulated MCU; without it a tap calls the runtime's ``press``.
    ``state_dir`` keeps the session secret (default: the configured state directory).
    ``status_provider`` returns the hardware status shown on the settings page.
    ``selftest`` starts the hardware self-test (False when one is already running); its progress and
    report come back in the status (``selftest``). ``cancel_selftest`` stops the one under way (False when
    none is).
    ``leds`` says what the LEDs show now (``LedSurface.shown``), for ``GET /api/leds``; without it that is a 404.
    """
    app = Flask(__name__)
    state_dir = Path(state_dir) if state_dir is not None else config.state.path()
    app.extensions["gryb"] = WebState(
        runtime, config, sim_input, state_dir, status_provider, selftest, cancel_selftest, leds
    )

    from web import board, compose, events, games, history, openapi, pairing, play, security, settings
    from web import leds as lights  # the blueprint (``leds`` is the argument)

    security.init_app(app, state_dir)
    for module in (play, events, pairing, games, history, settings, board, lights, compose, openapi):
        app.register_blueprint(module.bp)
    return app
