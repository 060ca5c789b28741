"""What the web tests and the benchmarks share: a loaded die, pairing, games played out, page weights,
slow connections, and clients over real sockets at a chosen loopback address (127.0.x.y standing for a
phone on the LAN)."""

from __future__ import annotations

import http.client
import json
import random
import re
import socket
import threading
import time
from collections.abc import Callable
from itertools import cycle

from companion.games.catalogue import catalogue
from companion.service import commands as c

# Issue 6: "Page weight < 150 KB", a page with everything it loads, as sent (KB as 1000 bytes).
WEIGHT_LIMIT = 150_000


class LoadedDie:
    """A die that shows the given faces in turn (e.g. "GRYB" or ["G"]), for scripted games."""

    seed = None

    def __init__(self, faces="G"):
        self._faces = cycle(list(faces))

    def roll(self, game):
        want = next(self._faces)
        faces = game.roll_faces()
        for face in faces:
            if (face.colour or "") == want or str(face) in (want, f"roll:{want}"):
                return face
        return faces[0]


def pair(client, runtime) -> str:
    """Pair a Flask test client as a phone does (the code read off the board); the CSRF token."""
    r = client.post("/api/pair/start", json={})
    assert r.status_code == 200, r.get_json()
    code = "".join(runtime.board.effects.code)
    r = client.post("/api/pair", json={"code": code})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["csrf"]


def play_to_the_end(runtime, game: str, players: int, options: dict, rng: random.Random) -> int:
    """A whole game played at random through the runtime as a table would (``play_on``); its stored id."""
    runtime.call(c.NewGame(game, players, options))
    game_id = runtime.snapshot()["game_id"]
    play_on(runtime, rng)
    return game_id


def play_on(runtime, rng: random.Random, most: int | None = None) -> dict:
    """Play on at random for at most ``most`` steps (None: to the end); the last snapshot."""
    steps = 0
    while not (s := runtime.call(c.Snapshot()))["state"]["over"] and (most is None or steps < most):
        if s["table"]["chores"]:
            runtime.call(c.Press(s["table"]["chores"][0]["node"]))
        elif s["state"]["awaiting_roll"]:
            runtime.call(c.Roll())
        else:
            runtime.call(c.Act(rng.choice(s["legal"])))
        steps += 1
    return s


def page_weight(fetch: Callable[[str], bytes], path: str) -> dict[str, int]:
    """The bytes a browser fetches for a page, each file once (``fetch(path)`` returns a body)."""
    html = fetch(path)
    sizes = {path: len(html)}
    todo = sorted(set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html.decode())))
    while todo:
        asset = todo.pop(0)
        if asset in sizes:
            continue
        body = fetch(asset)
        sizes[asset] = len(body)
        if asset.endswith(".js"):
            todo += [
                asset.rsplit("/", 1)[0] + "/" + dep for dep in re.findall(r'from "\./([^"]+)"', body.decode())
            ]
    return sizes


def every_page_weight(runtime, fetch: Callable[[str], bytes]) -> dict[str, dict[str, int]]:
    """Every page's weight by label (it plays games on the runtime: one for a replay, one a board)."""
    weights = {}
    replayed = play_to_the_end(runtime, "ez-gryb", 2, {"depth": 6, "turn_limit": 10}, random.Random(6))
    for label, game, players, depth in (
        ("EZ GRYB, depth 4", "ez-gryb", 2, 4),
        ("EZ GRYB, depth 5", "ez-gryb", 2, 5),
        ("EZ GRYB, depth 6", "ez-gryb", 2, 6),
        ("Multiverse, 4 players, depth 6", "multiverse", 4, 6),
    ):
        runtime.call(c.NewGame(game, players, {"depth": depth}))
        weights[f"/ Now playing ({label})"] = page_weight(fetch, "/")
    for label, path in (
        ("/games", "/games"),
        ("/history", "/history"),
        (f"/history/{replayed} (a replay, depth 6)", f"/history/{replayed}"),
        ("/settings", "/settings"),
        ("/compose", "/compose"),
    ):
        weights[label] = page_weight(fetch, path)
    rules = [page_weight(fetch, f"/games/{cls.id}/rules") for cls in catalogue()]
    longest = max(rules, key=lambda sizes: sum(sizes.values()))
    weights[f"{next(iter(longest))} (the longest rules page)"] = longest
    return weights


class Slowloris:
    """``per`` connections from each address, each a request head begun and a header line every ``every``
    seconds (slowloris); one the server has closed is opened again at its next line."""

    def __init__(self, port: int, addresses: list[str], per: int, every: float = 5.0):
        self.port, self.every, self.reopened = port, every, 0
        self.stop = threading.Event()
        start = time.monotonic()
        self.due = {}  # socket -> (its address, when its next line goes)
        for i, source in enumerate(a for a in addresses for _ in range(per)):
            self.due[self._open(source)] = (source, start + every * i / (len(addresses) * per))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _open(self, source: str) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=5, source_address=(source, 0))
        s.setblocking(False)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            pass
        return s

    def _run(self) -> None:
        while not self.stop.wait(0.05):
            now = time.monotonic()
            for s, (source, when) in list(self.due.items()):
                if when > now:
                    continue
                try:
                    closed = s.recv(4096) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if not closed:
                    try:
                        s.send(b"X-Slow: 1\r\n")
                    except OSError:
                        closed = True
                if closed:
                    del self.due[s]
                    s.close()
                    try:
                        s = self._open(source)
                        self.reopened += 1
                    except OSError:  # not accepted in time: tried again at its next line
                        s = socket.socket()
                self.due[s] = (source, now + self.every)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for s in self.due:
            s.close()


class Phone:
    """A client at one address with its own cookie and CSRF token, as a phone's browser keeps them."""

    def __init__(self, server, address="127.0.0.1", host=None):
        self.port, self.address = server.port, address
        self.host = host or f"127.0.0.1:{server.port}"
        self.cookie = self.csrf = None

    def ask(self, method, path, data=None, headers=None) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=10, source_address=(self.address, 0)
        )
        sent = {"Host": self.host} | (headers or {})
        if self.cookie:
            sent["Cookie"] = self.cookie
        if self.csrf:
            sent["X-CSRF-Token"] = self.csrf
        body = None
        if data is not None:
            body, sent["Content-Type"] = json.dumps(data).encode(), "application/json"
        try:
            conn.request(method, path, body=body, headers=sent)
            r = conn.getresponse()
            raw = r.read()
            cookie = r.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            return r.status, dict(r.getheaders()), raw
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.ask("GET", path, **kw)

    def post(self, path, data=None, **kw):
        return self.ask("POST", path, {} if data is None else data, **kw)

    def json(self, method, path, data=None) -> tuple[int, dict]:
        status, _, raw = self.ask(method, path, data)
        return status, json.loads(raw or b"null")

    def pair(self, rt) -> None:
        """Read the code off the board (the runtime's) and type it."""
        assert self.post("/api/pair/start")[0] == 200
        status, answer = self.json("POST", "/api/pair", {"code": "".join(rt.board.effects.code)})
        assert status == 200, answer
        self.csrf = answer["csrf"]


class Feed:
    """A live feed (GET /api/events) on a raw socket at one address."""

    def __init__(self, port, source="127.0.0.1", cookie=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        jar = f"Cookie: {cookie}\r\n".encode() if cookie else b""
        self.sock.sendall(
            b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n" + jar + b"\r\n"
        )
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

    def block(self, timeout=5.0) -> str:
        """The next event block, a heartbeat included (chunked framing stripped)."""
        self.sock.settimeout(timeout)
        text = b""
        while b"\n\n" not in text:
            size = int(self._until(b"\r\n"), 16)
            while len(self.buf) < size + 2:
                self.buf += self.sock.recv(65536)
            text, self.buf = text + self.buf[:size], self.buf[size + 2 :]
        return text.decode()

    def snapshot(self, timeout=5.0):
        """The next state the feed sends (heartbeats skipped); TimeoutError if none comes in time."""
        while True:
            for line in self.block(timeout).splitlines():
                if line.startswith("data: "):
                    return json.loads(line[6:])

    def ended(self, timeout=5.0) -> bool:
        """Whether the server ends the feed within ``timeout`` (all it sends till then is left unread)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk or chunk.endswith(b"0\r\n\r\n"):
                    return True
        except TimeoutError:
            return False

    def close(self):
        self.sock.close()
