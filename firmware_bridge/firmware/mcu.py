"""The firmware's logic: scan, debounce, number the edges, beat, answer the host. MicroPython subset.

No I/O and no clock of its own: main.py (or the emulator) calls ``tick`` and ``receive`` with the time.
"""

import struct

try:  # CPython: the host package
    from firmware_bridge import protocol
    from firmware_bridge.firmware.debounce import DEFERRED, EAGER, Debouncer
except ImportError:  # the Pico: the files sit side by side
    import protocol
    from debounce import DEFERRED, EAGER, Debouncer

FW_VERSION = (1, 1, 0)

DEBOUNCE_MS = 5
SCAN_US = 1000
HEARTBEAT_MS = 500
HISTORY = 1024  # edges kept to send again on a REPLAY (8 bytes each): minutes of play, seconds of a storm
_KEPT = ">HIBB"  # seq, ms, row, col | 0x80 when pressed

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
    ):
        self.matrix = matrix
        self.write = write
        self.rows = matrix.rows
        self.cols = matrix.cols
        self.debouncer = Debouncer(matrix.rows, matrix.cols, debounce_ms, mode)
        self.scan_us = scan_us
        self.heartbeat_ms = heartbeat_ms
        self.on_reset = on_reset
        self.seq = 0
        self.edges = 0
        self._history = bytearray(8 * HISTORY)  # the edge numbered seq at seq % HISTORY
        self._kept = 0  # edges in it: a fresh ring holds zeros, not edge 0
        self._decoder = protocol.Decoder()
        self._next_beat = 0

    @property
    def busy(self):
        """A key is being debounced: keep scanning at the full rate."""
        return self.debouncer.busy

    @property
    def bad_frames(self):
        return self._decoder.bad

    def start(self, now):
        self._hello(now)
        self._next_beat = now + self.heartbeat_ms

    def tick(self, now):
        """One scan: debounce, send the edges, and the heartbeat when due."""
        for row, col, pressed, ms in self.debouncer.update(self.matrix.scan(), now):
            self.seq = (self.seq + 1) & 0xFFFF
            self.edges += 1
            self._keep(ms, row, col, pressed)
            self.write(protocol.edge(self.seq, ms, row, col, pressed))
        if now - self._next_beat >= 0:
            self.write(protocol.heartbeat(self.seq, now, now // 1000))
            self._next_beat = now + self.heartbeat_ms

    def next_due(self, now):
        """Ms until it must run again if no key moves (0 while debouncing)."""
        if self.debouncer.busy:
            return 0
        return max(0, self._next_beat - now)

    def receive(self, data, now):
        for msg in self._decoder.feed(data):
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
        else:
            self.write(protocol.error(0, kind, protocol.E_UNKNOWN, b"not a command"))

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
