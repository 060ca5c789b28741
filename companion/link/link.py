"""A board's end of a match: its moves go out through the broker once the runtime has taken them; the
other boards' come in signed, are checked, and are submitted to the runtime like the computer's
(docs/linking.md)."""

from __future__ import annotations

import logging
import queue
import secrets
import socket
import ssl
import threading
import time
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt

from companion.link import protocol as p
from companion.rules.action import ROLL
from companion.service import commands as c
from companion.service.commands import CommandError
from companion.session.linked import digests

log = logging.getLogger(__name__)

BEAT_EVERY = 1.0  # seconds between heartbeats
LATE = 5.0  # seconds without a heartbeat: that board's link is down
REFUSALS_KEPT = 50
CODE_SHOWN = 600.0  # seconds the LEDs show a hosted match's code; the page shows it as long as it is open


class LinkError(ValueError):
    """A request to link refused; says why."""


def load_secret(path: Path) -> bytes:
    """This board's secret for its dice values, made once and kept (a restart reveals what it committed)."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        made = secrets.token_bytes(32)
        path.touch(mode=0o600)
        path.write_text(made.hex())
        return made


class Link:
    def __init__(
        self,
        runtime,
        *,
        url: str,
        board: str,
        secret: bytes,
        user: str = "",
        password: str = "",
        ca: str = "",
        clock=time.monotonic,
        joining: Path | None = None,
    ):
        self.runtime, self.board, self.secret, self.clock = runtime, board, secret, clock
        self.joining = joining  # the code of a match joined but not begun, kept for a restart
        self.match = self.code = ""
        self.key = b""
        self.setup: dict | None = None  # the host's hello: game, players, options, names, seats
        self.hosting = False
        self.game_id: int | None = None
        self.published = 0  # plies of the game looked at for this board's moves
        self.retained: dict[str, bytes] = {}  # this board's log, sent again on every connection
        self.pending: dict[int, list[p.Message]] = {}
        self.commits: dict[int, dict[str, str]] = {}
        self.reveals: dict[int, dict[str, str]] = {}
        self.peers: dict[str, dict] = {}
        self.refused: deque = deque(maxlen=REFUSALS_KEPT)
        self.connected = False
        self.shown_until: float | None = None  # the LEDs show the match code until then
        self._events: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()  # the match's fields, read by the page's thread
        self.client = self._client(url, user, password, ca)

    def _client(self, url: str, user: str, password: str, ca: str) -> mqtt.Client:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise LinkError(f"link.url is mqtt://host:port or mqtts://host:port, not {url!r}")
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"gryb-{self.board}",
            clean_session=False,  # the broker keeps QoS 1 messages for a board that is away
            protocol=mqtt.MQTTv311,
        )
        if user:
            client.username_pw_set(user, password or None)
        if parts.scheme == "mqtts":
            client.tls_set(ca_certs=ca or None, cert_reqs=ssl.CERT_REQUIRED)
        client.reconnect_delay_set(min_delay=1, max_delay=4)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = lambda client, userdata, msg: self._events.put(
            ("message", msg.topic, msg.payload)
        )
        self._address = (parts.hostname, parts.port or (8883 if parts.scheme == "mqtts" else 1883))
        return client

    # -- the broker's thread

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("the broker refused this board: %s", reason_code)
            return
        sock = client.socket()
        if sock is not None:  # paho leaves Nagle on: a move would wait for the last one's ACK
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connected = True
        self._events.put(("connected",))

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected:
            log.warning("link down (%s): the game waits", reason_code)
        self.connected = False

    # -- starting and stopping

    def start(self) -> None:
        """Connect, and rejoin the match of the game under way if it is a linked one."""
        state = self._look()
        if state["link"] is not None:
            self._enter(state["link"]["code"])
            self.setup = {"seats": state["link"]["seats"]}
            self.game_id = state["game_id"]
            log.info("rejoining match %s as %s at ply %d", self.match, self.board, state["ply"])
        elif (code := self._joined_before()) is not None:
            log.info("joining match %s again: it had not begun", p.match_id(code))
            self._events.put(("join", code))
        self.client.connect_async(*self._address, keepalive=10)
        self.client.loop_start()
        feed = self.runtime.subscribe()
        for target, name in ((self._work, "gryb-link"), (lambda: self._forward(feed), "gryb-link-feed")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stopping.set()
        self._events.put(("stop",))
        for thread in self._threads:
            thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    def _joined_before(self) -> str | None:
        try:
            return p.normal_code(self.joining.read_text()) if self.joining is not None else None
        except (OSError, p.Refused):
            return None

    def _keep(self, code: str | None) -> None:
        """The match joined and not begun (None: none), in a file of mode 0600 beside the link's secret."""
        if self.joining is None:
            return
        try:
            if code is None:
                self.joining.unlink(missing_ok=True)
            else:
                self.joining.touch(mode=0o600)
                self.joining.write_text(code)
        except OSError as err:  # the match goes on; only a restart before it begins forgets it
            log.warning("link: cannot keep the match joined in %s: %s", self.joining, err)

    def _forward(self, feed: queue.Queue) -> None:
        while not self._stopping.is_set():
            try:
                feed.get(timeout=0.5)
            except queue.Empty:
                continue
            self._events.put(("feed",))

    # -- what the page asks

    def host(
        self, game: str, players: int | None = None, options: dict | None = None, names: list | None = None
    ) -> str:
        """Open a match for a new game (``players`` None: the fewest, at least 2); this board plays seat 1.
        Returns the code to give the others."""
        code = p.new_code()
        cls = c.find_game(self.runtime.board.catalogue, game)
        players = players or max(2, cls.min_players)
        setup = {"game": game, "players": players, "options": dict(options or {}), "names": list(names or [])}
        asked = c.NewGame(game, players, setup["options"], setup["names"] or None)
        asked.validate()
        asked.make(cls)  # its options checked before any board starts
        self._events.put(("host", code, setup))
        self._show(code)
        return code

    def _show(self, code: str | None) -> None:
        """The match code on the LEDs (None: hidden), as the pairing code is shown."""
        self.runtime.call(c.ShowMatchCode(code), timeout=5)
        self.shown_until = None if code is None else self.clock() + CODE_SHOWN

    def join(self, code: str) -> str:
        """Join the match another board shows the code of."""
        code = p.normal_code(code)
        self._events.put(("join", code))
        return code

    def status(self) -> dict:
        now = self.clock()
        with self._lock:
            seats = list((self.setup or {}).get("seats", []))
            boards = sorted(
                {b for b in seats if b} | set(self.peers) | ({self.board} if self.match else set())
            )
            return {
                "board": self.board,
                "connected": self.connected,
                "match": self.match or None,
                "code": self.code or None,
                "hosting": self.hosting,
                "playing": self.game_id is not None,
                "seats": seats,
                "boards": [
                    {
                        "board": b,
                        "seats": [s for s, owner in enumerate(seats) if owner == b],
                        "here": b == self.board,
                        "seen": None if b not in self.peers else round(now - self.peers[b]["seen"], 1),
                        "rtt_ms": None if b not in self.peers else self.peers[b]["rtt_ms"],
                        "up": self.connected if b == self.board else self._heard_from(b, now),
                    }
                    for b in boards
                ],
                "refused": len(self.refused),
                "last_refused": self.refused[-1] if self.refused else None,
            }

    def _heard_from(self, board: str, now: float) -> bool:
        """Another board is up while this one is and hears its heartbeat (away from the broker, none is)."""
        return self.connected and board in self.peers and now - self.peers[board]["seen"] < LATE

    # -- the worker

    def _work(self) -> None:
        next_beat = self.clock()
        while True:
            try:
                event = self._events.get(timeout=max(0.0, next_beat - self.clock()))
            except queue.Empty:
                event = ("beat",)
            try:
                if event[0] == "stop":
                    return
                self._event(event)
                if self.match:
                    self._sync()
            except TimeoutError as err:  # the runtime was busy: the next event tries again
                log.warning("link: %s", err)
            except Exception:
                log.exception("link: %s failed", event[0])
            if self.shown_until is not None and self.clock() >= self.shown_until:
                self._hide()
            if self.clock() >= next_beat:
                self._beat()
                next_beat = self.clock() + BEAT_EVERY

    def _event(self, event: tuple) -> None:
        kind = event[0]
        if kind == "connected":
            if self.match:
                self._subscribe()
        elif kind == "message":
            self._received(event[1], event[2])
        elif kind == "host":
            self._keep(None)
            self._enter(event[1])
            with self._lock:
                self.hosting, self.setup = (
                    True,
                    event[2] | {"seats": [self.board] + [None] * (event[2]["players"] - 1)},
                )
            self._subscribe()
            self._hello()
        elif kind == "join":
            self._hide()
            self._enter(event[1])
            self._keep(event[1])
            self._subscribe()
            self._send(p.JOIN)

    def _enter(self, code: str) -> None:
        with self._lock:
            self.code, self.match, self.key = code, p.match_id(code), p.match_key(code)
            self.hosting, self.setup, self.game_id, self.published = False, None, None, 0
            self.retained.clear()
            for kept in (self.pending, self.commits, self.reveals, self.peers):
                kept.clear()

    def _hide(self) -> None:
        if self.shown_until is not None:
            try:
                self._show(None)
            except TimeoutError:  # the runtime was busy: the next event hides it
                log.warning("link: the match code stays shown a little longer")

    def _subscribe(self) -> None:
        if self.connected:
            self.client.subscribe(f"{p.PREFIX}/{self.match}/#", qos=1)
            for name, payload in list(self.retained.items()):
                self.client.publish(name, payload, qos=1, retain=True)

    def _send(self, kind: str, **fields) -> None:
        name, payload = p.make(self.key, self.match, self.board, kind, **fields)
        if kind in p.RETAINED:
            self.retained[name] = payload
            self.client.publish(name, payload, qos=1, retain=True)  # queued by paho while away
        elif self.connected:
            self.client.publish(name, payload, qos=0)

    def _hello(self) -> None:
        self._send(p.HELLO, **self.setup)

    def _refuse(self, name: str, why: str) -> None:
        log.warning("link: refused %s: %s", name, why)
        self.refused.append({"topic": name, "why": why})

    def _received(self, name: str, payload: bytes) -> None:
        if not self.match or not name.startswith(f"{p.PREFIX}/{self.match}/"):
            return
        try:
            message = p.read(self.key, self.match, name, payload)
        except p.Refused as err:
            self._refuse(name, str(err))
            return
        if message.board == self.board:
            return  # this board's own log, back from the broker
        kind = message.kind
        if kind == p.BEAT:
            self._heard(message)
        elif kind == p.JOIN and self.hosting:
            self._joined(message.board)
        elif kind == p.HELLO and not self.hosting:
            self._hosted(message)
        elif kind == p.ACTION:
            self.pending.setdefault(message["ply"], []).append(message)
        elif kind == p.COMMIT:
            self.commits.setdefault(message["ply"], {}).setdefault(message.board, message["hash"])
        elif kind == p.REVEAL:  # checked against its commitment at the roll: retained ones come in any order
            self.reveals.setdefault(message["ply"], {})[message.board] = message["nonce"]

    def _joined(self, board: str) -> None:
        seats = self.setup["seats"]
        if board in seats or self.game_id is not None:
            return
        if None not in seats:
            log.info("link: %s asked to join a full match: it may watch", board)
            return
        with self._lock:
            seats[seats.index(None)] = board
        self._hello()
        if None not in seats:
            self._start()

    def _hosted(self, message: p.Message) -> None:
        """The host's table: once every seat has a board, the game begins here, played or watched."""
        if self.game_id is not None or None in message["seats"]:
            return
        with self._lock:
            self.setup = {k: message[k] for k in ("game", "players", "options", "names", "seats")}
        self._start()

    def _start(self) -> None:
        setup = self.setup
        link = {"match": self.match, "code": self.code, "board": self.board, "seats": list(setup["seats"])}
        names = setup["names"] or list(setup["seats"])  # each player named after their board
        command = c.StartLinked(setup["game"], setup["players"], setup["options"], names, link)
        made = self.runtime.call(command)
        with self._lock:
            self.game_id, self.published = made["game_id"], 0
        self._hide()
        self._keep(None)
        log.info("match %s: game %s begins, seats %s", self.match, self.game_id, setup["seats"])

    # -- keeping the boards together

    def _look(self) -> dict:
        published, older = self.published, list(self.pending)

        def look(session) -> dict:
            game = session.game
            history = game.played(published)
            return {
                "game_id": session.game_id,
                "link": session.link,
                "ply": len(game.history),
                "chance": game.is_chance,
                "over": game.over,
                "new": [(str(a), seat, a.kind == ROLL) for a, seat in history],
                "digests": digests(game, published) if history else [],
                # only the plies of messages waiting here: the whole history, as text, cost O(plies) a look
                "history": {k: str(game.history[k][0]) for k in older if k < len(game.history)},
            }

        return self.runtime.call(c.Read(look))

    def _sync(self) -> None:
        """Publish this board's new moves, roll when due, apply the others' moves: until nothing moves."""
        for _ in range(10000):
            if self.game_id is None:
                return
            state = self._look()
            link = state["link"]
            if state["game_id"] != self.game_id or link is None or link["match"] != self.match:
                return  # a new game here has ended the match on this board
            seats = link["seats"]
            for offset, ((text, seat, rolled), after) in enumerate(zip(state["new"], state["digests"])):
                if not rolled and seats[seat] == self.board:
                    self._send(p.ACTION, ply=self.published + offset, seat=seat, action=text, digest=after)
            self.published = state["ply"]
            if not self._step(state, seats):
                return

    def _step(self, state: dict, seats: list) -> bool:
        """One action applied (True), or nothing to do yet."""
        ply = state["ply"]
        for old in [k for k in self.pending if k < ply]:
            for message in self.pending.pop(old):
                if state["history"][old] != message["action"]:
                    self._refuse(message.body["board"], f"ply {old} replayed with another action")
        if state["over"]:
            return False
        if state["chance"]:
            return self._roll(ply, seats)
        for message in self.pending.pop(ply, []):
            name = p.topic(self.match, message.board, p.ACTION, ply)
            if message["seat"] >= len(seats) or seats[message["seat"]] != message.board:
                self._refuse(name, f"seat {message['seat'] + 1} is not played by {message.board}")
                continue
            command = c.Linked(self.game_id, ply, message["seat"], message["action"], message["digest"])
            try:
                self.runtime.call(command)
                return True
            except CommandError as err:
                self._refuse(name, str(err))
        return False

    def _roll(self, ply: int, seats: list) -> bool:
        boards = set(seats)
        mine = p.nonce(self.secret, self.match, ply)
        commits = self.commits.setdefault(ply, {})
        if self.board not in commits and self.board in boards:  # a board that watches takes no part
            commits[self.board] = p.commitment(mine)
            self._send(p.COMMIT, ply=ply, hash=commits[self.board])
        if set(commits) < boards:
            return False
        reveals = self.reveals.setdefault(ply, {})
        if self.board not in reveals and self.board in boards:
            reveals[self.board] = mine
            self._send(p.REVEAL, ply=ply, nonce=mine)
        for board in [b for b in reveals if p.commitment(reveals[b]) != commits.get(b)]:
            self._refuse(p.topic(self.match, board, p.REVEAL, ply), "a reveal unlike its board's commitment")
            del reveals[board]
        if set(reveals) < boards:
            return False
        seed = p.roll_seed(self.match, ply, {b: reveals[b] for b in boards})
        self.runtime.call(c.LinkedRoll(self.game_id, ply, seed))
        return True

    # -- heartbeats

    def _beat(self, reply_to: dict | None = None) -> None:
        if not self.match or not self.connected:
            return
        echo = reply_to or {}
        self._send(p.BEAT, sent=self.clock(), echo=echo)

    def _heard(self, message: p.Message) -> None:
        now = self.clock()
        with self._lock:
            peer = self.peers.setdefault(message.board, {"seen": now, "rtt_ms": None})
            peer["seen"] = now
            if self.board in message["echo"]:
                peer["rtt_ms"] = round((now - message["echo"][self.board]) * 1000, 1)
            else:  # a beat, not an answer: answered at once, so the round trip is the link's alone
                self._beat({message.board: message["sent"]})
