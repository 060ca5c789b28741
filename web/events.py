"""The change feed: Server-Sent Events at /api/events, one ``data:`` line of snapshot JSON per change.

Each stream subscribes to the runtime (``runtime.subscribe()``), sends the newest snapshot at once,
then every new one; a comment line every 15 s keeps proxies and the page's watchdog awake and lets
waitress notice a phone that went away (its write fails and the stream is closed). At shutdown the
app's stop flag ends every stream within a second, so waitress never waits on an open page.
The runtime drops stale snapshots for a stalled reader, so a slow phone skips to the newest state.

Each open stream holds one of waitress' threads, so there are only so many: at most
``GRYB_MAX_STREAMS`` at once (:func:`web.server.serve` leaves threads free for the page and the
API), ``PER_CLIENT`` of them from one address; past either the answer is a 429 or 503 (the page
tries again in two seconds). A stream whose client has gone (a closed tab, a page that dropped its
connection) ends within ``POLL_SECONDS``, when waitress says so, not at the next failed write.
"""

from __future__ import annotations

import json
import queue
import threading
import time

from flask import Blueprint, Response, current_app, request

from web.api import compact, refuse, web

bp = Blueprint("events", __name__)

HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 0.5
RETRY_MS = 2000
MAX_STREAMS = 16  # when the app's GRYB_MAX_STREAMS is not set (serve() sets it from its threads)
PER_CLIENT = 4  # a phone has one page in the foreground; a laptop a few windows


class Streams:
    """The live feeds open now, by client address: at most ``total`` in all and ``per_client`` from one."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def take(self, who: str, total: int, per_client: int) -> str | None:
        """Count one more stream from ``who``; or say why not (nothing counted)."""
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
    """The stream's lines; it ends at shutdown or once ``gone()`` says the client has left."""
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
            while True:  # several changes queued: only the newest matters to a page
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
    # waitress (with channel_request_lookahead) says when the client has closed the connection.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    response = Response(stream(state, heartbeat, gone), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(lambda: streams.give_back(who))
    return response
