"""The host's end of the protocol without I/O: bytes and times in, key events and command bytes out.

How it keeps its picture of the keys, and never invents a press: docs/firmware.md, 'What the host does
with it'.
"""

from __future__ import annotations

from collections import namedtuple

from firmware_bridge import protocol as p

# the MCU's clock gone back further is a restart (an EDGE is stamped a debounce before it is sent)
RESTART_MS = 1000
EARLY_EDGES = 64  # kept while waiting for the HELLO; past that its snapshot settles the keys
REPLAY_SINCE = (1, 1)  # the firmware that keeps its last edges and sends them again on a REPLAY
WAITING_EDGES = 1024  # held past a gap (the firmware keeps as many); more, and a snapshot settles the keys

KeyEvent = namedtuple("KeyEvent", "row col pressed time seq source")
KeyEvent.__doc__ = """A key edge for the host: ``source`` is "edge" (an EDGE frame), "replay" (a lost edge
sent again on the host's REPLAY), "gap" (implied by an edge across a sequence gap), "resync" (a snapshot's
difference), "link" (released because the link was lost) or "held" (the first snapshot after a lost link
finds a key it released still down: the same press going on)."""

UP = "up"
DOWN = "down"
CONNECTING = "connecting"


def seq_ahead(seq: int, last: int) -> int:
    """How far ``seq`` is ahead of ``last`` on the 16-bit wrapping sequence; <= 0 means not newer."""
    d = (seq - last) & 0xFFFF
    return d - 0x10000 if d >= 0x8000 else d


class HostLink:
    """Feed :meth:`receive`, call :meth:`poll` often, :meth:`connected` and :meth:`lost` as the port opens
    and fails; send what :meth:`take_outgoing` returns."""

    def __init__(
        self,
        *,
        heartbeat_timeout: float = 2.0,
        snapshot_retry: float = 0.25,
        hello_retry: float = 0.5,
        replay_retry: float = 0.03,
    ):
        self.heartbeat_timeout = heartbeat_timeout
        self.snapshot_retry = snapshot_retry
        self.hello_retry = hello_retry
        self.replay_retry = replay_retry
        self.decoder = p.Decoder()
        self.state = DOWN
        self.hello: p.Message | None = None
        self.last_seq: int | None = None
        self.pressed: set[tuple[int, int]] = set()
        self.panel_pressed: set[int] = set()  # the control panel's buttons down (EDGEs of PANEL_ROW)
        self.led_state: p.Message | None = None  # the Pico's latest LED_STATE
        self._news: list[p.Message] = []  # LED_STATEs for the LED surface, until taken
        self.duplicates = 0
        self.gaps = 0
        self.resyncs = 0
        self.contradictions = 0
        self.unexpected = 0
        self.errors: list[str] = []  # the last ten problems
        self.problems = 0
        self.acks = 0
        self.replays = 0  # REPLAY requests sent
        self.timed_out = False
        self.last_frame_at: float | None = None
        self._untrusted: set[tuple[int, int]] = set()  # keys the host let go itself
        self._held: set[tuple[int, int]] = set()  # keys a lost link released, until a snapshot
        self._want_snapshot = False
        self._synced = False
        self._snapshot_asked: float | None = None
        self._hello_asked: float | None = None
        self._connected_at: float | None = None
        self._offset: float | None = None  # host time - MCU time
        self._mcu_ms: int | None = None  # of the latest frame
        self._early: list[p.Message] | None = None  # edges waiting for the HELLO
        self._out = bytearray()
        self._tag = 0
        self._replay = False  # the MCU sends lost edges again (docs/firmware.md, 'Replay')
        self._waiting: dict[int, p.Message] = {}  # edges past a gap, by number, until it is filled
        self._newest: int | None = None  # the highest edge number the MCU has shown
        self._replay_asked: float | None = None
        self._replay_first: int | None = None  # the first edge the last REPLAY asked for, and which
        self._replay_wanted = 0

    def connected(self, now: float) -> None:
        """A port was (re)opened: start the handshake (HELLO, then SNAPSHOT)."""
        self.decoder.reset()
        self.state = CONNECTING
        self.timed_out = False
        self._connected_at = now
        self.last_frame_at = None
        self._early = []
        self._forget_gap()
        self._ask_hello(now)
        self._ask_snapshot(now)

    def lost(self, now: float) -> list[KeyEvent]:
        """The port failed or went silent: release every key."""
        self.state = DOWN
        self._want_snapshot = False
        self._early = None
        self._forget_gap()
        events = [KeyEvent(r, c, False, now, None, "link") for r, c in sorted(self.pressed)]
        events += [KeyEvent(p.PANEL_ROW, c, False, now, None, "link") for c in sorted(self.panel_pressed)]
        self.panel_pressed.clear()
        self.led_state = None
        self._untrusted |= self.pressed
        self._held |= self.pressed
        self.pressed.clear()
        self._offset = None
        return events

    def take_news(self) -> list[p.Message]:
        """The LED_STATEs received since the last call."""
        news, self._news = self._news, []
        return news

    def take_outgoing(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def command(self, frame_builder, *args) -> int:
        """Queue a host command built by a ``protocol`` builder; returns its tag."""
        self._tag = (self._tag + 1) & 0xFF
        self._out += frame_builder(*args, tag=self._tag)
        return self._tag

    def _clock_sample(self, ms: int, now: float) -> None:
        sample = now - ms / 1000.0
        if self._offset is None or sample < self._offset or sample - self._offset > 1.0:
            self._offset = sample  # the fastest delivery yet, or a restart
        else:
            self._offset += (sample - self._offset) * 0.02  # follow crystal drift slowly

    def host_time(self, ms: int, now: float) -> float:
        """Host ``time.monotonic()`` of an MCU timestamp; never later than ``now``."""
        if self._offset is None:
            return now
        t = ms / 1000.0 + self._offset
        return now if t > now or now - t > 1.0 else t

    def receive(self, data: bytes, now: float) -> list[KeyEvent]:
        events: list[KeyEvent] = []
        for msg in self.decoder.feed(data):
            events.extend(self.handle(msg, now))
        return events

    def handle(self, msg: p.Message, now: float) -> list[KeyEvent]:
        kind = msg.kind
        if kind >= p.PING:  # a host command echoed back (loop://, a shorted line)
            self.unexpected += 1
            return []
        self.last_frame_at = now
        if kind == p.EDGE and self._early is not None:
            if len(self._early) < EARLY_EDGES:
                self._early.append(msg)
            return []
        if kind == p.RESENT:  # an old edge again: its clock is no restart
            return [] if self._early is not None else self._edge(msg, now)
        events: list[KeyEvent] = []
        if kind == p.HELLO and self._early is not None:
            early, self._early = self._early, None
            for edge in early:  # before the HELLO's clock, as sent
                events.extend(self.handle(edge, now))
        if hasattr(msg, "ms"):
            if self._mcu_ms is not None and msg.ms + RESTART_MS < self._mcu_ms:
                # a restart: its numbers start again, the keys down are second-hand until a snapshot
                self.last_seq = None
                self._forget_gap()
                self._untrusted |= self.pressed
                self._ask_snapshot(now)
            self._mcu_ms = msg.ms
        if kind == p.EDGE:
            return self._edge(msg, now)
        if kind == p.HEARTBEAT:
            self._clock_sample(msg.ms, now)
            if self.last_seq is not None and seq_ahead(msg.seq, self.last_seq) > 0:
                if self._replay:  # also the end of a REPLAY's answer: what is still missing, at once
                    self._gap(msg.seq, now, again=True)
                else:
                    self.gaps += 1
                    self._ask_snapshot(now)
            return []
        if kind == p.SNAPSHOT:
            self._clock_sample(msg.ms, now)
            return self._snapshot(msg, now)
        if kind == p.HELLO:
            self._clock_sample(msg.ms, now)
            return events + self._hello(msg, now)
        if kind == p.LED_STATE:
            self.led_state = msg
            self._news.append(msg)
        elif kind == p.ACK:
            self.acks += 1
        elif kind == p.ERROR:
            if msg.command == p.REPLAY:  # it keeps no edges after all: snapshots settle gaps
                self._replay = False
                events = self._flush_waiting(now)
                self._ask_snapshot(now)
            self._problem(
                f"{p.NAMES.get(msg.command, hex(msg.command))} refused (code {msg.code}): "
                f"{msg.text.decode('ascii', 'replace')}"
            )
        return events

    def _problem(self, text: str) -> None:
        self.errors.append(text)
        del self.errors[:-10]
        self.problems += 1

    def _hello(self, msg: p.Message, now: float) -> list[KeyEvent]:
        self.hello = msg
        self._replay = (msg.fw_major, msg.fw_minor) >= REPLAY_SINCE
        self.state = UP
        self._hello_asked = None
        if self.last_seq is None or msg.seq != self.last_seq:
            # edges missed or a restart: second-hand until a snapshot
            self.last_seq = msg.seq
            self._untrusted |= self.pressed
            self._ask_snapshot(now)
        return []

    def _edge(self, msg: p.Message, now: float) -> list[KeyEvent]:
        panel = msg.row == p.PANEL_ROW and msg.col <= p.UNDO
        if (
            not panel
            and self.hello is not None
            and (msg.row >= self.hello.rows or msg.col >= self.hello.cols)
        ):
            self.contradictions += 1
            self._problem(
                f"EDGE for key ({msg.row}, {msg.col}), outside the "
                f"{self.hello.rows}x{self.hello.cols} matrix the MCU said it scans"
            )
            return []
        gap = False
        if self.last_seq is not None:
            ahead = seq_ahead(msg.seq, self.last_seq)
            if ahead <= 0:
                self.duplicates += 1
                return []
            if ahead > 1 and self._replay and not self._want_snapshot:
                return self._hold(msg, now)
            if ahead > 1:
                gap = True
                self.gaps += 1
                self._ask_snapshot(now)
        self.last_seq = msg.seq
        if self._waiting or self._replay_asked is not None:
            return self._apply(msg, gap, now) + self._drain(now)
        return self._apply(msg, gap, now)

    def _apply(self, msg: p.Message, gap: bool, now: float) -> list[KeyEvent]:
        key = (msg.row, msg.col)
        t = self.host_time(msg.ms, now)
        source = "replay" if msg.kind == p.RESENT else "edge"
        if msg.row == p.PANEL_ROW:  # no snapshot holds these: told as they come
            if bool(msg.pressed) == (msg.col in self.panel_pressed):
                return []
            (self.panel_pressed.add if msg.pressed else self.panel_pressed.discard)(msg.col)
            return [KeyEvent(msg.row, msg.col, bool(msg.pressed), t, msg.seq, source)]
        # explained by lost edges only while edges are known lost, and for keys known first-hand
        explain = (gap or self._want_snapshot) and key not in self._untrusted
        if msg.pressed:
            if key not in self.pressed:
                self.pressed.add(key)
                self._untrusted.discard(key)
                return [KeyEvent(msg.row, msg.col, True, t, msg.seq, source)]
            if explain:  # down, and down again: its release was lost
                return [
                    KeyEvent(msg.row, msg.col, False, t, msg.seq, "gap"),
                    KeyEvent(msg.row, msg.col, True, t, msg.seq, source),
                ]
            self.contradictions += 1
            return []
        if key in self.pressed:
            self.pressed.discard(key)
            return [KeyEvent(msg.row, msg.col, False, t, msg.seq, source)]
        self._untrusted.discard(key)
        if explain:  # up, and up again: its press was lost
            return [
                KeyEvent(msg.row, msg.col, True, t, msg.seq, "gap"),
                KeyEvent(msg.row, msg.col, False, t, msg.seq, source),
            ]
        self.contradictions += 1
        return []

    def _snapshot(self, msg: p.Message, now: float) -> list[KeyEvent]:
        if self.last_seq is not None and seq_ahead(msg.seq, self.last_seq) < 0:
            return []  # older than edges applied: a fresh one is still wanted
        try:
            keys = p.unpack_bitmap(msg.bitmap, msg.rows, msg.cols)
        except p.ProtocolError as err:
            self._problem(str(err))
            return []
        # edges held past a gap that the snapshot covers: told as they came, before its difference
        flushed = self._flush_waiting(now, upto=msg.seq) if self._waiting else []
        if self._want_snapshot and self._synced:
            self.resyncs += 1  # the first snapshot is the sync, not a resync
        self._synced = True
        self._want_snapshot = False
        self._snapshot_asked = None
        self.last_seq = msg.seq
        self._untrusted.clear()
        held, self._held = self._held, set()  # settles every key the outage released
        if self.state == CONNECTING and self.hello is not None:
            self.state = UP
        released = sorted(self.pressed - keys)
        pressed = sorted(keys - self.pressed)
        self.pressed = set(keys)
        events = [KeyEvent(r, c, False, now, msg.seq, "resync") for r, c in released] + [
            KeyEvent(r, c, True, now, msg.seq, "held" if (r, c) in held else "resync") for r, c in pressed
        ]
        return flushed + events + self._drain(now)

    # -- replay: a gap is filled by the MCU sending the lost edges again (docs/firmware.md, 'Replay') --

    def _gap(self, newest: int, now: float, again: bool = False) -> None:
        """Edges up to ``newest`` exist that the host has not had: ask for them again."""
        if self._newest is None or seq_ahead(newest, self._newest) > 0:
            self._newest = newest
        if self._replay_asked is None:
            self.gaps += 1
        self._ask_replay(now, again)

    def _hold(self, msg: p.Message, now: float) -> list[KeyEvent]:
        self._waiting[msg.seq] = msg
        self._gap(msg.seq, now)
        if len(self._waiting) <= WAITING_EDGES:
            return []
        events = self._flush_waiting(now)  # too far behind to wait: a snapshot settles the rest
        self._ask_snapshot(now)
        return events

    def _drain(self, now: float) -> list[KeyEvent]:
        """The waiting edges that now follow on; the next hole asked for, or the gap closed."""
        events: list[KeyEvent] = []
        while self.last_seq is not None and (following := (self.last_seq + 1) & 0xFFFF) in self._waiting:
            msg = self._waiting.pop(following)
            self.last_seq = following
            events += self._apply(msg, False, now)
        behind = self._newest is not None and seq_ahead(self._newest, self.last_seq) > 0
        if self._waiting or behind:
            self._ask_replay(now)
        elif self._replay_asked is not None:
            self._replay_asked = None
            self.resyncs += 1
        return events

    def _flush_waiting(self, now: float, upto: int | None = None) -> list[KeyEvent]:
        """Give up waiting for the gap: the held edges (up to ``upto``) in order, as across a gap."""
        events: list[KeyEvent] = []
        for seq in sorted(self._waiting, key=lambda s: seq_ahead(s, self.last_seq or 0)):
            if upto is not None and seq_ahead(seq, upto) > 0:
                continue
            msg = self._waiting.pop(seq)
            if self.last_seq is None or seq_ahead(seq, self.last_seq) > 0:
                self.last_seq = seq
                events += self._apply(msg, True, now)
        if not self._waiting:
            self._replay_asked = None
        return events

    def _forget_gap(self) -> None:
        self._waiting.clear()
        self._newest = None
        self._replay_asked = self._replay_first = None
        self._replay_wanted = 0

    def _ask_replay(self, now: float, again: bool = False) -> None:
        """Ask for every edge missing between the last applied and the newest known."""
        first = ((self.last_seq or 0) + 1) & 0xFFFF
        span = seq_ahead(self._newest, first) + 1 if self._newest is not None else 1
        wanted = (1 << min(max(span, 1), p.REPLAY_SPAN)) - 1
        for seq in self._waiting:
            i = seq_ahead(seq, first)
            if 0 <= i < p.REPLAY_SPAN:
                wanted &= ~(1 << i)
        recent = self._replay_asked is not None and now - self._replay_asked <= self.replay_retry
        if recent and not again and first == self._replay_first and not wanted & ~self._replay_wanted:
            return  # asked, the edges may be on their way
        self._replay_asked, self._replay_first, self._replay_wanted = now, first, wanted
        self.replays += 1
        self.command(p.replay, first, wanted)

    def poll(self, now: float) -> list[KeyEvent]:
        """Retries and the heartbeat timeout; call it every few tens of ms."""
        if self.state == DOWN:
            return []
        since = self.last_frame_at if self.last_frame_at is not None else self._connected_at
        if since is not None and now - since > self.heartbeat_timeout:
            self.timed_out = True
            return self.lost(now)
        if (
            self._want_snapshot
            and self._snapshot_asked is not None
            and now - self._snapshot_asked > self.snapshot_retry
        ):
            self._ask_snapshot(now)
        if self._replay_asked is not None and now - self._replay_asked > self.replay_retry:
            self._ask_replay(now)
        if self.hello is None or self.state == CONNECTING:
            if self._hello_asked is not None and now - self._hello_asked > self.hello_retry:
                self._ask_hello(now)
        return []

    def _ask_snapshot(self, now: float) -> None:
        if (
            self._want_snapshot
            and self._snapshot_asked is not None
            and now - self._snapshot_asked <= self.snapshot_retry
        ):
            return  # already asked, the answer may be on its way
        self._want_snapshot = True
        self._snapshot_asked = now
        self.command(p.get_snapshot)

    def _ask_hello(self, now: float) -> None:
        self._hello_asked = now
        self.command(p.get_hello)

    @property
    def resyncing(self) -> bool:
        return self._want_snapshot

    def status(self, now: float) -> dict:
        hello = self.hello
        return {
            "state": self.state,
            "heartbeat_age": None if self.last_frame_at is None else round(now - self.last_frame_at, 3),
            "firmware": None if hello is None else f"{hello.fw_major}.{hello.fw_minor}.{hello.fw_patch}",
            "protocol": None if hello is None else hello.protocol,
            "matrix": None if hello is None else [hello.rows, hello.cols],
            "frames_ok": self.decoder.good,
            "frames_bad": self.decoder.bad,
            "duplicates": self.duplicates,
            "gaps": self.gaps,
            "resyncs": self.resyncs,
            "replays": self.replays,
            "last_error": self.errors[-1] if self.errors else self.decoder.last_error,
        }
