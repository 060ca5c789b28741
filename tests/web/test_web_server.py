"""waitress on a thread: port 0, the SSE feed over a real socket, heartbeats, and a prompt shutdown."""

import http.client
import io
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
from web.testing import Feed, LoadedDie, Slowloris


@pytest.fixture
def rt(tmp_path):
    runtime = Runtime(Config(), Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


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


WAITRESS_REFUSALS = {
    413: b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 1000000\r\n\r\n",
    431: b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 300_000 + b"\r\n\r\n",
    400: b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n",
    501: b"POST /api/press HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n",
}


@pytest.mark.parametrize("status", WAITRESS_REFUSALS)
def test_waitress_own_refusals_carry_the_apps_security_headers(rt, tmp_path, status):
    """What waitress answers before the app sees a request (past its limits, or unreadable) has the headers
    every answer of the app has: a text/plain page must not be framed, sniffed or kept either."""
    from web.security import HEADERS

    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            try:
                s.sendall(WAITRESS_REFUSALS[status])
            except ConnectionResetError:  # it may answer and close before reading all of a long head
                pass
            answer = b""
            while b"\r\n\r\n" not in answer and (chunk := s.recv(65536)):
                answer += chunk
    head = http.client.parse_headers(io.BytesIO(answer.split(b"\r\n", 1)[1]))
    assert answer.split(b" ", 2)[1] == str(status).encode()
    assert {key: head[key] for key in HEADERS} == HEADERS and head["Cache-Control"] == "no-store"


def _timed(opener, url: str, data: bytes | None = None, headers: dict | None = None) -> float:
    """Seconds to an answer (inf: none within 5 s)."""
    request = urllib.request.Request(url, data, headers=headers or {}, method="POST" if data else "GET")
    start = time.monotonic()
    try:
        with opener.open(request, timeout=5) as r:
            r.read()
            assert r.status == 200
    except (TimeoutError, OSError):
        return float("inf")
    return time.monotonic() - start


@pytest.mark.slow
def test_slow_connections_from_many_addresses_never_keep_a_paired_phone_waiting(rt, tmp_path):
    """200 slowloris connections from 20 addresses (10 each, under the per-address cap) and waitress' 100
    would stay full: a paired phone's GET and POST are answered within a second throughout, a guest's
    once the attack stops (docs/security.md, "Each limit and why")."""
    from web.server import CONNECTIONS

    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        post = {"Content-Type": "application/json", "Origin": server.url}
        with phone.open(urllib.request.Request(server.url + "/api/pair/start", b"{}", post)) as r:
            assert r.status == 200
        code = json.dumps({"code": "".join(rt.board.effects.code)}).encode()
        with phone.open(urllib.request.Request(server.url + "/api/pair", code, post)) as r:
            post["X-CSRF-Token"] = json.load(r)["csrf"]
        attack = Slowloris(server.port, [f"127.0.9.{i}" for i in range(1, 21)], per=10)
        try:
            held, waits, end = 0, [], time.monotonic() + 15  # past the request deadline: they come back
            while time.monotonic() < end:
                held = max(held, len(server._server.active_channels))
                waits.append(_timed(phone, server.url + "/api/state"))
                body = json.dumps({"brightness": 0.3 + len(waits) % 5 / 10}).encode()
                waits.append(_timed(phone, server.url + "/api/settings", body, post))
                time.sleep(0.2)
        finally:
            attack.close()
        guest = _timed(urllib.request.build_opener(), server.url + "/api/state")
    assert max(waits) < 1.0, sorted(waits)[-5:]
    assert held >= CONNECTIONS - 5 and attack.reopened > 0  # the attack had them all, and kept at it
    assert guest < 1.0


def _closed(s: socket.socket, within: float) -> bool:
    """Whether the server closes ``s`` within ``within`` seconds (what it sent before is read past)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        ready, _, _ = select.select([s], [], [], 0.1)
        try:
            if ready and not s.recv(65536):
                return True
        except ConnectionResetError:
            return True
    return False


def test_a_request_that_does_not_come_whole_in_time_is_closed_an_idle_connection_is_not(
    rt, tmp_path, monkeypatch
):
    from web import server as server_mod

    monkeypatch.setattr(server_mod, "REQUEST_SECONDS", 1.0)
    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        silent = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        kept = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        kept.request("GET", "/api/state")
        assert kept.getresponse().read()
        started = time.monotonic()
        for _ in range(3):  # a line every quarter second: activity, yet not the whole head
            time.sleep(0.25)
            slow.sendall(b"X-Slow: 1\r\n")
        assert _closed(slow, 2.5) and _closed(silent, 0.1) and time.monotonic() - started < 3.5
        kept.request("GET", "/api/state")  # the kept-alive connection still serves
        assert kept.getresponse().status == 200
        for s in (slow, silent):
            s.close()
        kept.close()


def test_a_new_connection_past_the_limit_closes_the_longest_unfinished_request(rt, tmp_path, monkeypatch):
    from web import server as server_mod

    monkeypatch.setattr(server_mod, "CONNECTIONS", 6)
    app = create_app(rt, Config(), state_dir=tmp_path)
    with serve(app, "127.0.0.1", 0) as server:
        kept = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        kept.request("GET", "/api/state")  # idle once answered: it goes last
        assert kept.getresponse().read()
        slow = []
        for _ in range(5):
            slow.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            slow[-1].sendall(b"GET / HTTP/1.1\r\n")
            time.sleep(0.05)
        with urllib.request.urlopen(server.url + "/api/state", timeout=3) as r:  # the seventh gets in
            assert r.status == 200
        assert _closed(slow[0], 1.0) and not any(_closed(s, 0.1) for s in slow[1:])
        kept.request("GET", "/api/state")
        assert kept.getresponse().status == 200
        for s in slow:
            s.close()
        kept.close()
