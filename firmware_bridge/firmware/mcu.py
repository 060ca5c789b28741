"""The firmware's logic: scan, debounce, number the edges, beat, answer the host. MicroPython subset.

``Firmware`` does no I/O of its own and reads no clock: ``main.py`` on the Pico (and the emulator on
CPython) call ``tick(now_ms)`` every scan period and ``receive(data, now_ms)`` with whatever bytes came
from the host, and give it a ``write`` function for the bytes going out.
"""

try:  # CPython: the host package
    from firmware_bridge import protocol
    from firmware_bridge.firmware.debounce import DEFERRED, EAGER, Debouncer
except ImportError:  # the Pico: protocol.py and debounce.py sit next to this file
    import protocol
    from debounce import DEFERRED, EAGER, Debouncer

FW_VERSION = (1, 0, 0)

DEBOUNCE_MS = 5
SCAN_US = 1000
HEARTBEAT_MS = 500

# What CONFIGURE accepts; anything else is refused with an ERROR and changes nothing.
DEBOUNCE_RANGE = (0, 50)
SCAN_RANGE = (100, 20000)
HEARTBEAT_RANGE = (50, 10000)


class Firmware:
    """The node-button firmware over any :class:`keymatrix.Matrix` and any byte ``write`` function.

    Every debounced edge goes out as an EDGE with the next sequence number (16 bits, wrapping; the first
    edge after boot is 1) and the ms timestamp of the change. HEARTBEAT every ``heartbeat_ms`` carries the
    last sequence number, so the host notices a lost last edge. HELLO at ``start`` and on GET_HELLO;
    SNAPSHOT (the debounced state and the last sequence number) on GET_SNAPSHOT; CONFIGURE changes
    debounce, scan period and heartbeat; RESET acknowledges and calls ``on_reset`` (``machine.reset`` on
    the Pico).
    """

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
        self._decoder = protocol.Decoder()
        self._next_beat = 0

    @property
    def busy(self):
        """True while a key is being debounced (keep scanning at the full rate)."""
        return self.debouncer.busy

    @property
    def bad_frames(self):
        return self._decoder.bad

    def start(self, now):
        self._hello(now)
        self._next_beat = now + self.heartbeat_ms

    def tick(self, now):
        """One scan: debounce, send the edges, and the heartbeat when it is due."""
        for row, col, pressed, ms in self.debouncer.update(self.matrix.scan(), now):
            self.seq = (self.seq + 1) & 0xFFFF
            self.edges += 1
            self.write(protocol.edge(self.seq, ms, row, col, pressed))
        if now - self._next_beat >= 0:
            self.write(protocol.heartbeat(self.seq, now, now // 1000))
            self._next_beat = now + self.heartbeat_ms

    def next_due(self, now):
        """Ms until the firmware must run again if no key moves: 0 while debouncing, else the heartbeat."""
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
            self.write(
                protocol.snapshot(
                    self.seq, now, self.rows, self.cols, protocol.pack_bitmap(self.debouncer.state, self.cols)
                )
            )
        elif kind == protocol.GET_HELLO:
            self._hello(now)
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

    def _hello(self, now):
        self.write(protocol.hello(FW_VERSION, self.rows, self.cols, self.seq, now))
