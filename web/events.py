"""The change feed: Server-Sent Events at /api/events (docs/web.md, "The live feed (SSE)"). Each stream
holds one of waitress' threads: at most ``GRYB_MAX_STREAMS`` in all, and a paired phone always gets one
(docs/security.md, "Connections and threads")."""

from __future__ import annotations

import json
import queue
import threading
import time

from flask import Blueprint, Response, current_app, request

from web.api import compact, refuse, web
from web.security import is_paired

bp = Blueprint("events", __name__)

HEARTBEAT_SECONDS = 15.0  # keeps proxies awake, and a failed write tells of a phone gone
POLL_SECONDS = 0.5  # how soon a stream ends at shutdown or once its client has gone
RETRY_MS = 2000
MAX_STREAMS = 16  # unless serve() sets GRYB_MAX_STREAMS from its threads
PER_CLIENT = 4  # a paired phone has one page in the foreground; a laptop a few windows
GUEST_PER_CLIENT = 2  # a guest's page closes its feed in the background
RESERVED = 4  # of the streams, never a guest's
GUEST_IDLE_SECONDS = 300.0  # a guest's feed that has told no change for so long ends (the page comes back)


class Stream:
    def __init__(self, who: str, paired: bool):
        self.who, self.paired = who, paired
        self.ended = threading.Event()  # set when a paired phone needs its thread


class Streams:
    """The live feeds open now. Guests have GUEST_PER_CLIENT an address and never the last RESERVED;
    a paired phone past the total ends the oldest guest's feed."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: list[Stream] = []

    def take(self, who: str, paired: bool, total: int) -> Stream | str:
        """One more stream from ``who``, or why not: "client" (it has its share), "total"."""
        with self._lock:
            mine = sum(1 for s in self._open if s.who == who and s.paired == paired)
            if mine >= (PER_CLIENT if paired else GUEST_PER_CLIENT):
                return "client"
            guests = [s for s in self._open if not s.paired]
            if paired and len(self._open) >= total and guests:
                guests[0].ended.set()
                self._open.remove(guests[0])
            elif len(self._open) >= total or not paired and len(guests) >= total - RESERVED:
                return "total"
            stream = Stream(who, paired)
            self._open.append(stream)
            return stream

    def give_back(self, stream: Stream) -> None:
        with self._lock:
            if stream in self._open:
                self._open.remove(stream)


@bp.record_once
def _setup(setup) -> None:
    setup.app.extensions["gryb-streams"] = Streams()


def _event(snapshot: dict) -> str:
    return (
        f"id: {snapshot.get('version', 0)}\ndata: {json.dumps(compact(snapshot), separators=(',', ':'))}\n\n"
    )


def stream(state, heartbeat: float = HEARTBEAT_SECONDS, gone=lambda: False, idle: float | None = None):
    """The stream's lines, until shutdown, ``gone()``, or ``idle`` seconds without a change told."""
    runtime, stopping = state.runtime, state.stopping
    q = runtime.subscribe()
    try:
        yield f"retry: {RETRY_MS}\n"
        last = runtime.snapshot()
        yield _event(last)
        quiet_since = told = time.monotonic()
        while not stopping.is_set() and not gone():
            if idle is not None and time.monotonic() - told >= idle:
                return
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
            quiet_since = told = time.monotonic()
            yield _event(snapshot)
    finally:
        runtime.unsubscribe(q)


@bp.get("/api/events")
def events():
    state = web()
    heartbeat = float(current_app.config.get("GRYB_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    streams, who, mine = current_app.extensions["gryb-streams"], request.remote_addr or "?", is_paired()
    taken = streams.take(who, mine, int(current_app.config.get("GRYB_MAX_STREAMS", MAX_STREAMS)))
    if taken == "client":
        most = PER_CLIENT if mine else GUEST_PER_CLIENT
        refuse(429, f"this device has {most} live feeds open already: close a tab", **{"Retry-After": "2"})
    if taken == "total":
        refuse(503, "too many live feeds are open: try again in a moment", **{"Retry-After": "2"})
    client_gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    idle = None if mine else float(current_app.config.get("GRYB_GUEST_IDLE", GUEST_IDLE_SECONDS))
    body = stream(state, heartbeat, lambda: taken.ended.is_set() or client_gone(), idle)
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(lambda: streams.give_back(taken))
    return response
