"""The phone web page: a Flask app factory, one blueprint per feature; thin views that call the runtime."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from web.replays import Replays

__all__ = ["create_app"]


class WebState:
    """What the blueprints share: the runtime, the simulator's input, status, a stop flag, replays kept."""

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
        board_leds=None,
        link=None,
    ):
        self.runtime = runtime
        self.config = config
        self.sim_input = sim_input
        self.state_dir = state_dir
        self.status_provider = status_provider
        self.selftest = selftest
        self.cancel_selftest = cancel_selftest
        self.leds = leds  # PublicFrame.shown: the LEDs but a pairing code
        self.board_leds = board_leds or leds  # LedSurface.shown, for the simulator's own page alone
        self.link = link  # companion.link.link.Link, or None: not linked
        self.stopping = threading.Event()  # set at shutdown: every SSE stream ends
        self.replays = Replays()

    def status(self) -> dict:
        if self.status_provider is None:
            return {"mode": "simulator", "serial": "simulator", "heartbeat_age": None, "leds": "simulator"}
        try:
            status = dict(self.status_provider())
        except Exception as err:  # a broken driver must not take the page down
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
    board_leds: Callable[[], dict] | None = None,
    link=None,
) -> Flask:
    """The web app around a started Runtime; each argument: docs/web.md, "Starting it"."""
    app = Flask(__name__)
    state_dir = Path(state_dir) if state_dir is not None else config.state.path()
    app.extensions["gryb"] = WebState(
        runtime,
        config,
        sim_input,
        state_dir,
        status_provider,
        selftest,
        cancel_selftest,
        leds,
        board_leds,
        link,
    )

    from web import (
        board,
        compose,
        events,
        games,
        history,
        linking,
        openapi,
        pairing,
        play,
        security,
        settings,
    )
    from web import leds as lights  # the blueprint (``leds`` is the argument)

    security.init_app(app, state_dir, config.web.allowed_hosts)
    for module in (play, events, pairing, games, history, settings, board, lights, compose, linking, openapi):
        app.register_blueprint(module.bp)
    return app
