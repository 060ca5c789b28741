"""waitress on a thread: port 0, the SSE feed over a real socket, heartbeats, and a prompt shutdown."""

import http.client
import json
import select
import socket
import time
import urllib.request

import pytest

from companion.service import commands as c
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.security import BACKSTOP, MAX_BODY
from web.server import serve
from web.testing import LoadedDie


@pytest.fixture
def rt(tmp_path):
    runtime = Runtime(Config(), Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


class Feed:
    """A minimal SSE client on a raw socket."""

    def __init__(self, port, source="127.0.0.1"):  # any 127.x.y.z is this machine, as another address
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.buf = b""
        self.head = self._until(b"\r\n\r\n")
        self.status = int(self.head.split(b" ", 2)[1])
        assert self.status != 200 or b"text/event-stream" in self.head

    def _until(self, sep):
        while sep not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        part, self.buf = self.buf.split(sep, 1)
        return part

    def block(self):
        """The next event block (chunked transfer framing stripped)."""
        text = b""
        while b"\n\n" not in text:
            size = int(self._until(b"\r\n"), 16)
            while len(self.buf) < size + 2:
                self.buf += self.sock.recv(65536)
            text += self.buf[:size]
            self.buf = self.buf[size + 2 :]
        return text.decode()

    def snapshot(self):
        while True:
            block = self.block()
            for line in block.splitlines():
                if line.startswith("data: "):
                    return json.loads(line[6:])

    def close(self):
        self.sock.close()


def test_serves_on_port_zero_and_streams_changes(rt, tmp_path):
    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        assert server.port > 0
        feed = Feed(server.port)
        first = feed.snapshot()
        assert first["version"] == rt.snapshot()["version"] and "legal" not in first
        rt.call(c.Roll())
        t0 = time.perf_counter()
        rt.call(c.Press("G"))
        seen = feed.snapshot()
        while "G" not in seen["state"]["stones"]:
            seen = feed.snapshot()
        assert time.perf_counter() - t0 < 1.0
        feed.close()


def test_heartbeats_and_shutdown_with_open_streams(rt, tmp_path):
    app = create_app(rt, Config(), state_dir=tmp_path)
    app.config["GRYB_SSE_HEARTBEAT"] = 0.3
    server = serve(app, "127.0.0.1", 0)
    feeds = [Feed(server.port) for _ in range(3)]
    feeds[0].snapshot()
    assert ": heartbeat" in feeds[0].block()
    t0 = time.perf_counter()
    server.close()
    assert time.perf_counter() - t0 < 3.0
    assert not server._thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1)
    for feed in feeds:
        feed.close()
    time.sleep(0.1)
    assert not rt.feed.listeners  # every stream unsubscribed


def test_a_phone_that_goes_away_is_unsubscribed(rt, tmp_path):
    app = create_app(rt, Config(), state_dir=tmp_path)
    app.config["GRYB_SSE_HEARTBEAT"] = 0.2
    with serve(app, "127.0.0.1", 0) as server:
        feed = Feed(server.port)
        feed.snapshot()
        assert len(rt.feed.listeners) == 1
        feed.close()
        deadline = time.monotonic() + 5
        while rt.feed.listeners and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not rt.feed.listeners


def _feeds(port, source, n):
    feeds = [Feed(port, source) for _ in range(n)]
    assert [f.status for f in feeds] == [200] * n, source
    return feeds


def test_event_streams_cannot_take_every_thread(rt, tmp_path):
    """Each open stream holds a waitress thread: one guest's device may open GUEST_PER_CLIENT, all the
    guests together leave RESERVED for paired phones and FREE_THREADS for the page and the API; a stream
    whose client has gone frees its thread at once, not at its next heartbeat."""
    from web.events import GUEST_PER_CLIENT as PER_CLIENT
    from web.events import RESERVED
    from web.server import FREE_THREADS, THREADS

    app = create_app(rt, Config(), state_dir=tmp_path)
    app.config["GRYB_SSE_HEARTBEAT"] = 60.0  # no write to find a closed connection by
    with serve(app, "127.0.0.1", 0) as server:
        first = _feeds(server.port, "127.0.0.1", PER_CLIENT)
        extra = Feed(server.port, "127.0.0.1")
        assert extra.status == 429 and b"application/json" in extra.head and b"Retry-After: 2" in extra.head
        extra.close()
        others = [
            f
            for i in range((THREADS - FREE_THREADS - RESERVED) // PER_CLIENT - 1)
            for f in _feeds(server.port, f"127.0.0.{i + 2}", PER_CLIENT)
        ]
        assert len(first + others) == THREADS - FREE_THREADS - RESERVED
        extra = Feed(server.port, "127.0.0.99")
        assert extra.status == 503 and b"application/json" in extra.head
        extra.close()
        for path in ["/", "/api/state", "/history"]:  # the page still answers everyone
            with urllib.request.urlopen(server.url + path, timeout=3) as r:
                assert r.status == 200, path
        for feed in first:  # the phone's tabs close ...
            feed.close()
        deadline = time.monotonic() + 3
        while len(rt.feed.listeners) > len(others):
            assert time.monotonic() < deadline, "closed streams still hold their threads"
            time.sleep(0.05)
        again = _feeds(server.port, "127.0.0.1", PER_CLIENT)  # ... and it may open as many again
        for feed in again + others:
            feed.close()


def test_one_device_cannot_take_every_connection(rt, tmp_path):
    """waitress lets in 100 connections at once; a device that opens them all and never finishes a request
    (slowloris) would keep everyone else waiting outside. Past PER_ADDRESS its connections are closed."""
    from web.server import PER_ADDRESS

    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        hogs = []
        for _ in range(100):
            s = socket.create_connection(
                ("127.0.0.1", server.port), timeout=3, source_address=("127.0.0.5", 0)
            )
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and never the rest
            hogs.append(s)
        with urllib.request.urlopen(server.url + "/api/state", timeout=3) as r:  # another phone gets in
            assert r.status == 200
        closed, deadline = set(), time.monotonic() + 3
        while len(closed) < len(hogs) - PER_ADDRESS and time.monotonic() < deadline:
            ready, _, _ = select.select([s for s in hogs if s not in closed], [], [], 0.1)
            for s in ready:
                try:
                    if not s.recv(100):
                        closed.add(s)
                except ConnectionResetError:
                    closed.add(s)
        assert closed == set(hogs[PER_ADDRESS:])
        for s in hogs:
            s.close()


def test_a_request_body_over_the_limit_is_cut_off_by_waitress_too(rt, tmp_path):
    app = create_app(rt, Config(), state_dir=tmp_path)
    assert 1000000 > BACKSTOP > MAX_BODY
    with serve(app, "127.0.0.1", 0) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.sendall(
                b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000\r\n\r\n" + b"x" * 1000
            )
            assert b" 413 " in s.recv(200)


def test_a_request_body_over_the_limit_gets_the_apis_json_413(rt, tmp_path):
    """Past MAX_BODY (and short of waitress' backstop) the app refuses it, with {"error": ...} like any
    refusal, whether the body comes with a Content-Length or chunked."""
    app = create_app(rt, Config(), state_dir=tmp_path)
    before = rt.call(c.Snapshot())
    big = b'{"node": "' + b"G" * 20000 + b'"}'
    with serve(app, "127.0.0.1", 0) as server:
        for path, body, chunked in [
            ("/api/press", big, False),
            ("/api/pair", big, False),
            ("/api/press", [big[:9000], big[9000:]], True),
        ]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            try:
                conn.request(
                    "POST",
                    path,
                    body=body,
                    encode_chunked=chunked,
                    headers={"Content-Type": "application/json"},
                )
                r = conn.getresponse()
                assert (r.status, r.getheader("Content-Type")) == (413, "application/json"), (path, chunked)
                assert str(MAX_BODY) in json.loads(r.read())["error"]
            finally:
                conn.close()
    after = rt.call(c.Snapshot())
    assert after["version"] == before["version"] and after["state"] == before["state"]


def test_shutdown_after_the_history_pages_leaves_no_wal_behind(tmp_path):
    """The history's read-only connections end with their requests, so the store's close at shutdown is
    the last and takes its -wal and -shm files with it."""
    runtime = Runtime(Config(), Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    app = create_app(runtime, Config(), state_dir=tmp_path / "state")
    server = serve(app, "127.0.0.1", 0)
    try:
        game_id = runtime.snapshot()["game_id"]
        for path in [
            "/history",
            "/api/history",
            "/api/series",
            f"/api/history/{game_id}",
            f"/history/{game_id}",
            f"/api/history/{game_id}/record.txt",
            "/history",
        ]:
            with urllib.request.urlopen(server.url + path, timeout=5) as r:
                assert r.status == 200, path
        assert (tmp_path / "gryb.db-wal").exists()  # while it runs, WAL
    finally:
        server.close()
        runtime.stop()
        runtime.store.close()
    assert sorted(p.name for p in tmp_path.glob("gryb.db*")) == ["gryb.db"]
