"""The firmware's logic: scan, debounce, number the edges, beat, answer the host; the LED frames and the
control panel when it has them. MicroPython subset.

No I/O and no clock of its own: main.py (or the emulator) calls ``tick`` and ``receive`` with the time.
"""

import struct

try:  # CPython: the host package
    from firmware_bridge import protocol
    from firmware_bridge.firmware.debounce import DEFERRED, EAGER, Debouncer
except ImportError:  # the Pico: the files sit side by side
    import protocol
    from debounce import DEFERRED, EAGER, Debouncer

FW_VERSION = (1, 2, 0)

DEBOUNCE_MS = 5
SCAN_US = 1000
HEARTBEAT_MS = 500
HISTORY = 1024  # edges kept to send again on a REPLAY (8 bytes each): minutes of play, seconds of a storm
_KEPT = ">HIBB"  # seq, ms, row, col | 0x80 when pressed

SILENCE_MS = 1000  # a host unheard this long is gone (leds.Leds.silence_ms when it has LEDs)
LED_COMMANDS = (protocol.LED_SETUP, protocol.LED_PUT, protocol.LED_SHOW, protocol.LED_QUERY)
PANEL_COMMANDS = (protocol.TONE, protocol.STATUS_LED)

# what CONFIGURE accepts; anything else is refused with an ERROR and changes nothing
DEBOUNCE_RANGE = (0, 50)
SCAN_RANGE = (100, 20000)
HEARTBEAT_RANGE = (50, 10000)


class Firmware:
    """The node-button firmware over any :class:`keymatrix.Matrix` and byte ``write`` function; the
    messages it sends and obeys: docs/firmware.md, 'The protocol (version 1)'."""

    def __init__(
        self,
        matrix,
        write,
        debounce_ms=DEBOUNCE_MS,
        mode=DEFERRED,
        scan_us=SCAN_US,
        heartbeat_ms=HEARTBEAT_MS,
        on_reset=None,
        leds=None,
        panel=None,
    ):
        self.matrix = matrix
        self.write = write
        self.rows = matrix.rows
        self.cols = matrix.cols
        self.debouncer = Debouncer(matrix.rows, matrix.cols, debounce_ms, mode)
        self.scan_us = scan_us
        self.heartbeat_ms = heartbeat_ms
        self.on_reset = on_reset
        self.leds = leds  # leds.Leds, or None: no LEDs on this Pico
        self.panel = panel  # panel.Panel, or None
        self._heard = None  # ms the host last sent a good frame; None: silent (the waiting pattern)
        self.seq = 0
        self.edges = 0
        self._history = bytearray(8 * HISTORY)  # the edge numbered seq at seq % HISTORY
        self._kept = 0  # edges in it: a fresh ring holds zeros, not edge 0
        self._decoder = protocol.Decoder()
        self._next_beat = 0

    @property
    def busy(self):
        """A key is being debounced: keep scanning at the full rate."""
        return self.debouncer.busy or (self.panel is not None and self.panel.busy)

    @property
    def bad_frames(self):
        return self._decoder.bad

    def start(self, now):
        self._hello(now)
        self._next_beat = now + self.heartbeat_ms
        if self.leds is not None:
            self.leds.wait(now)
        if self.panel is not None:
            self.panel.status(500, 500, now)

    def tick(self, now):
        """One scan: debounce, send the edges, and the heartbeat when due."""
        for row, col, pressed, ms in self.debouncer.update(self.matrix.scan(), now):
            self._edge(row, col, pressed, ms)
        if self.panel is not None:
            for col, pressed, ms in self.panel.edges(now):
                self._edge(protocol.PANEL_ROW, col, pressed, ms)
        if now - self._next_beat >= 0:
            self.write(protocol.heartbeat(self.seq, now, now // 1000))
            self._next_beat = now + self.heartbeat_ms
        silent = self._heard is not None and now - self._heard > self._silence()
        if silent:
            self._heard = None  # no board left lit by a host that crashed
            if self.panel is not None:
                self.panel.status(500, 500, now)
        if self.leds is not None:
            if silent:
                self.leds.wait(now)
            self.leds.tick(now)
            if silent:
                self.write(self.leds.state())
        if self.panel is not None:
            self.panel.tick(now)

    def _edge(self, row, col, pressed, ms):
        self.seq = (self.seq + 1) & 0xFFFF
        self.edges += 1
        self._keep(ms, row, col, pressed)
        self.write(protocol.edge(self.seq, ms, row, col, pressed))

    def _silence(self):
        return self.leds.silence_ms if self.leds is not None else SILENCE_MS

    def next_due(self, now):
        """Ms until it must run again if no key moves (0 while debouncing)."""
        if self.busy:
            return 0
        due = self._next_beat - now
        if self._heard is not None:
            due = min(due, self._heard + self._silence() + 1 - now)
        if self.leds is not None:
            due = min(due, self.leds.next_due(now))
        if self.panel is not None:
            due = min(due, self.panel.next_due(now))
        return max(0, due)

    def receive(self, data, now):
        for msg in self._decoder.feed(data):
            if self._heard is None and self.panel is not None:
                self.panel.status(1, 0, now)  # steady: a host is there (it may ask for another)
            self._heard = now
            self.handle(msg, now)

    def handle(self, msg, now):
        kind = msg.kind
        if kind == protocol.PING:
            self.write(protocol.ack(msg.tag, kind))
        elif kind == protocol.GET_SNAPSHOT:
            self._snapshot(now)
        elif kind == protocol.GET_HELLO:
            self._hello(now)
        elif kind == protocol.REPLAY:
            self._replay(msg.first, msg.wanted, now)
        elif kind == protocol.CONFIGURE:
            self._configure(msg)
        elif kind == protocol.RESET:
            self.write(protocol.ack(msg.tag, kind))
            if self.on_reset is not None:
                self.on_reset()
        elif kind in LED_COMMANDS and self.leds is not None:
            self._led_command(msg)
        elif kind in PANEL_COMMANDS and self.panel is not None:
            if kind == protocol.TONE:
                self.panel.play(msg.notes, now)
            else:
                self.panel.status(msg.on_ms, msg.off_ms, now)
            self.write(protocol.ack(msg.tag, kind))
        else:
            self.write(protocol.error(0, kind, protocol.E_UNKNOWN, b"not a command"))

    def _led_command(self, msg):
        kind = msg.kind
        leds = self.leds
        if kind == protocol.LED_PUT:
            leds.put(msg.frame, msg.flags, msg.runs)
        elif kind == protocol.LED_SETUP:
            problem = leds.setup(msg.pixels, msg.bpp, msg.silence_ms)
            if problem is None:
                self.write(protocol.ack(msg.tag, kind))
            else:
                self.write(protocol.error(msg.tag, kind, protocol.E_BAD_VALUE, problem))
        else:  # LED_SHOW, LED_QUERY: what is shown now
            if kind == protocol.LED_SHOW:
                leds.show(msg.frame, msg.crc)
            self.write(leds.state())

    def _configure(self, msg):
        heartbeat = msg.heartbeat_ms or self.heartbeat_ms
        problem = None
        if not DEBOUNCE_RANGE[0] <= msg.debounce_ms <= DEBOUNCE_RANGE[1]:
            problem = b"debounce ms out of range"
        elif msg.mode not in (EAGER, DEFERRED):
            problem = b"unknown debounce mode"
        elif not SCAN_RANGE[0] <= msg.scan_us <= SCAN_RANGE[1]:
            problem = b"scan us out of range"
        elif not HEARTBEAT_RANGE[0] <= heartbeat <= HEARTBEAT_RANGE[1]:
            problem = b"heartbeat ms out of range"
        if problem is not None:
            self.write(protocol.error(msg.tag, msg.kind, protocol.E_BAD_VALUE, problem))
            return
        self.debouncer.configure(msg.debounce_ms, msg.mode)
        self.scan_us = msg.scan_us
        self.heartbeat_ms = heartbeat
        self.write(protocol.ack(msg.tag, msg.kind))

    def _keep(self, ms, row, col, pressed):
        at = 8 * (self.seq % HISTORY)
        struct.pack_into(_KEPT, self._history, at, self.seq, ms & 0xFFFFFFFF, row, col | (pressed << 7))
        self._kept = min(self._kept + 1, HISTORY)

    def _replay(self, first, wanted, now):
        """The edges the mask names again, then a HEARTBEAT; a SNAPSHOT if they are not kept."""
        sent = (self.seq - first + 1) & 0xFFFF
        if sent > self._kept:  # forgotten, or a number not yet sent
            self._snapshot(now)
            return
        for i in range(min(8 * len(wanted), sent)):
            if wanted[i >> 3] & (1 << (i & 7)):
                at = 8 * (((first + i) & 0xFFFF) % HISTORY)
                seq, ms, row, col = struct.unpack_from(_KEPT, self._history, at)
                self.write(protocol.resent(seq, ms, row, col & 0x7F, col >> 7))
        self.write(protocol.heartbeat(self.seq, now, now // 1000))

    def _snapshot(self, now):
        bitmap = protocol.pack_bitmap(self.debouncer.state, self.cols)
        self.write(protocol.snapshot(self.seq, now, self.rows, self.cols, bitmap))

    def _hello(self, now):
        self.write(protocol.hello(FW_VERSION, self.rows, self.cols, self.seq, now))
