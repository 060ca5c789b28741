"""The host's LED frames, built, checked and shown; a "waiting for host" pattern without them. MicroPython
subset (docs/firmware.md, 'LED frames'). The strip: ``write(buf)`` starts sending, ``busy()``.
"""

try:  # CPython: the host package
    from firmware_bridge import protocol
except ImportError:  # the Pico
    import protocol

MAX_BYTES = 4096  # a strip of 1024 GRBW or 1365 GRB pixels
SILENCE_MS = 1000
PATTERN_MS = 120  # a step of the waiting pattern
PATTERN_DOTS = 8
PATTERN_LEVEL = 24  # blue, of 255: 8 dots draw about 11 mA


class Leds:
    """Frames built from LED_PUTs, shown on LED_SHOW if their CRC-32 is the host's."""

    def __init__(self, strip, pixels, bpp=3):
        self.strip = strip
        self.refused = 0
        self.shown_frames = 0
        self.silence_ms = SILENCE_MS
        self._resize(pixels, bpp)

    def _resize(self, pixels, bpp):
        size = pixels * bpp
        self.pixels = pixels
        self.bpp = bpp
        self._shown = bytearray(size)
        self._next = bytearray(size)
        self._wire = bytearray(size)  # the strip's, untouched while it sends
        self._dark = bytes(size)
        self._building = None  # the frame being put together in _next
        self._bad = False  # a run of it fell off the strip
        self._pending = False  # shown changed while the strip was busy
        self.wait(0)

    @property
    def shown(self):
        return self._shown

    def wait(self, now):
        """The waiting pattern from ``now`` (power-up, a silent host)."""
        self.mode = protocol.WAITING
        self.frame = 0
        self._step = 0
        self._next_step = now
        self._building = None

    def setup(self, pixels, bpp, silence_ms):
        if bpp not in (3, 4):
            return b"bytes a pixel are 3 or 4"
        if not 1 <= pixels * bpp <= MAX_BYTES:
            return b"more pixels than the strip takes"
        if not 100 <= silence_ms <= 60000:
            return b"silence ms out of range"
        self.silence_ms = silence_ms
        if pixels != self.pixels or bpp != self.bpp:
            self._resize(pixels, bpp)
        return None

    def put(self, frame, flags, runs):
        nxt = self._next
        if frame != self._building:
            nxt[:] = self._dark if flags & protocol.FROM_DARK else self._shown
            self._building = frame
            self._bad = False
        size = len(nxt)
        end = len(runs)
        i = 0
        while i + 3 <= end:
            at = (runs[i] << 8) | runs[i + 1]
            count = runs[i + 2]
            i += 3
            if at + count > size or i + count > end:
                self._bad = True
                return
            nxt[at : at + count] = runs[i : i + count]
            i += count
        if i != end:
            self._bad = True

    def show(self, frame, crc):
        if frame == self._building:
            self._building = None
            if self._bad or protocol.frame_crc(self._next) != crc:
                self.refused += 1
                return False
            self._shown, self._next = self._next, self._shown
        elif protocol.frame_crc(self._shown) != crc or self.mode != protocol.SHOWING:
            self.refused += 1
            return False
        self.frame = frame
        self.mode = protocol.SHOWING
        self.shown_frames += 1
        self._flush()
        return True

    def state(self):
        return protocol.led_state(self.frame, protocol.frame_crc(self._shown), self.mode, self.refused)

    def tick(self, now):
        if self.mode == protocol.WAITING and now - self._next_step >= 0:
            shown = self._shown
            shown[:] = self._dark
            gap = max(1, self.pixels // PATTERN_DOTS)
            for dot in range(min(PATTERN_DOTS, self.pixels)):
                shown[((self._step + dot * gap) % self.pixels) * self.bpp + 2] = PATTERN_LEVEL
            self._step += 1
            self._next_step = now + PATTERN_MS
            self._flush()
        if self._pending and not self.strip.busy():
            self._flush()

    def next_due(self, now):
        if self._pending:
            return 1
        if self.mode == protocol.WAITING:
            return max(0, self._next_step - now)
        return 1 << 30

    def _flush(self):
        self._pending = self.strip.busy()
        if not self._pending:
            self._wire[:] = self._shown
            self.strip.write(self._wire)
