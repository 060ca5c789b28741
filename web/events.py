"""The change feed: Server-Sent Events at /api/events, one ``data:`` line of snapshot JSON per change.

Each stream subscribes to the runtime (``runtime.subscribe()``), sends the newest snapshot at once,
then every new one; a comment line every 15 s keeps proxies and the page's watchdog awake and lets
waitress notice a phone that went away (its write fails and the stream is closed). At shutdown the
app's stop flag ends every stream within a second, so waitress never waits on an open page.
The runtime drops stale snapshots for a stalled reader, so a slow phone skips to the newest state.
"""

from __future__ import annotations

import json
import queue
import time

from flask import Blueprint, Response, current_app

from .play import compact
from .security import web

bp = Blueprint("events", __name__)

HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 0.5
RETRY_MS = 2000


def _event(snapshot: dict) -> str:
    return f"id: {snapshot.get('version', 0)}\ndata: {json.dumps(compact(snapshot), separators=(',', ':'))}\n\n"


def stream(state, heartbeat: float = HEARTBEAT_SECONDS):
    runtime, stopping = state.runtime, state.stopping
    q = runtime.subscribe()
    try:
        yield f"retry: {RETRY_MS}\n"
        last = runtime.snapshot()
        yield _event(last)
        quiet_since = time.monotonic()
        while not stopping.is_set():
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
    response = Response(stream(state, heartbeat), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response
