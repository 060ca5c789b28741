"""The change feed: Server-Sent Events at /api/events (docs/web.md, "The live feed (SSE)"). Each stream
holds one of waitress' threads: at most ``GRYB_MAX_STREAMS`` in all, ``PER_CLIENT`` from one address."""

from __future__ import annotations

import json
import queue
import threading
import time

from flask import Blueprint, Response, current_app, request

from web.api import compact, refuse, web

bp = Blueprint("events", __name__)

HEARTBEAT_SECONDS = 15.0  # keeps proxies awake, and a failed write tells of a phone gone
POLL_SECONDS = 0.5  # how soon a stream ends at shutdown or once its client has gone
RETRY_MS = 2000
MAX_STREAMS = 16  # unless serve() sets GRYB_MAX_STREAMS from its threads
PER_CLIENT = 4  # a phone has one page in the foreground; a laptop a few windows


class Streams:
    """The live feeds open now, by client address."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def take(self, who: str, total: int, per_client: int) -> str | None:
        """Count one more stream from ``who``, or say why not."""
        with self._lock:
            if self._open.get(who, 0) >= per_client:
                return "client"
            if sum(self._open.values()) >= total:
                return "total"
            self._open[who] = self._open.get(who, 0) + 1
            return None

    def give_back(self, who: str) -> None:
        with self._lock:
            left = self._open.get(who, 0) - 1
            if left > 0:
                self._open[who] = left
            else:
                self._open.pop(who, None)


@bp.record_once
def _setup(setup) -> None:
    setup.app.extensions["gryb-streams"] = Streams()


def _event(snapshot: dict) -> str:
    return (
        f"id: {snapshot.get('version', 0)}\ndata: {json.dumps(compact(snapshot), separators=(',', ':'))}\n\n"
    )


def stream(state, heartbeat: float = HEARTBEAT_SECONDS, gone=lambda: False):
    """The stream's lines, until shutdown or ``gone()``."""
    runtime, stopping = state.runtime, state.stopping
    q = runtime.subscribe()
    try:
        yield f"retry: {RETRY_MS}\n"
        last = runtime.snapshot()
        yield _event(last)
        quiet_since = time.monotonic()
        while not stopping.is_set() and not gone():
            try:
                snapshot = q.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if time.monotonic() - quiet_since >= heartbeat:
                    quiet_since = time.monotonic()
                    yield ": heartbeat\n\n"
                continue
            while True:  # only the newest of several matters
                try:
                    snapshot = q.get_nowait()
                except queue.Empty:
                    break
            if snapshot.get("version") == last.get("version"):
                continue
            last = snapshot
            quiet_since = time.monotonic()
            yield _event(snapshot)
    finally:
        runtime.unsubscribe(q)


@bp.get("/api/events")
def events():
    state = web()
    heartbeat = float(current_app.config.get("GRYB_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    streams, who = current_app.extensions["gryb-streams"], request.remote_addr or "?"
    full = streams.take(who, int(current_app.config.get("GRYB_MAX_STREAMS", MAX_STREAMS)), PER_CLIENT)
    if full == "client":
        refuse(
            429, f"this device has {PER_CLIENT} live feeds open already: close a tab", **{"Retry-After": "2"}
        )
    if full:
        refuse(503, "too many live feeds are open: try again in a moment", **{"Retry-After": "2"})
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    response = Response(stream(state, heartbeat, gone), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(lambda: streams.give_back(who))
    return response
