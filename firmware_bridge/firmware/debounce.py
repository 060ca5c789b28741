"""Per-key debounce of the scanned matrix, in the two symmetric per-key modes QMK calls sym_defer_pk and
sym_eager_pk. MicroPython subset; time is an argument (ms), so tests drive it with a fake clock.

*Deferred* (the default): a key's change is reported only after its contact has not changed for ``ms``
milliseconds, stamped with the time the contact first moved. A glitch shorter than ``ms`` -- a bounce, a
spark of noise, a knee on the cloth for a moment -- never becomes an event. Cost: each edge leaves the MCU
``ms`` later.

*Eager*: a key's change is reported at the first scan that sees it, then the key is deaf for ``ms``
milliseconds, so its bounces are swallowed. Fastest, but a single noisy scan is a press.

Deferred is the default because on this board a press places a stone: a phantom press is a wrong move in
someone's game, while 5 ms of latency is far below what a player can notice.
"""

EAGER = 0
DEFERRED = 1


def _by_time(event):
    return (event[3], event[0], event[1])


class Debouncer:
    """Turns raw scans (one int per row, bit c = key (row, c) closed) into debounced key edges.

    ``update(scan, now)`` returns a list of ``(row, col, pressed, ms)``; ``state`` holds the debounced
    rows. Keys are indexed ``row * 32 + col``, so a matrix may have up to 32 columns.
    """

    def __init__(self, rows, cols, ms=5, mode=DEFERRED):
        if cols > 32:
            raise ValueError("at most 32 columns")
        self.rows = rows
        self.cols = cols
        self.raw = [0] * rows
        self.state = [0] * rows
        self._locked = [0] * rows  # eager: keys deaf until their timer ends
        self._timers = {}  # key -> ms when its timer ends
        self._since = {}  # deferred: key -> ms its contact first moved in this burst
        self.ms = ms
        self.mode = mode

    def configure(self, ms, mode):
        """Change the time and the mode; a change in progress is timed afresh under the new rule."""
        self.ms = ms
        self.mode = mode
        self._timers = {}
        self._since = {}
        self._locked = [0] * self.rows
        # Make every key whose contact differs from its state look freshly changed at the next scan.
        self.raw = list(self.state)

    @property
    def busy(self):
        """True while some key is being timed: the caller should keep scanning at full rate."""
        return bool(self._timers)

    def update(self, scan, now):
        if self.mode == EAGER:
            return self._eager(scan, now)
        return self._deferred(scan, now)

    def _deferred(self, scan, now):
        raw = self.raw
        timers = self._timers
        since = self._since
        deadline = now + self.ms
        for r in range(self.rows):
            bits = scan[r]
            changed = bits ^ raw[r]
            if changed:
                raw[r] = bits
                c = 0
                while changed:
                    if changed & 1:
                        key = (r << 5) | c
                        if key not in timers:
                            since[key] = now
                        timers[key] = deadline
                    changed >>= 1
                    c += 1
        events = []
        if timers:
            state = self.state
            # sorted: MicroPython's dicts keep no order, and the edges of one scan must go out in the same
            # order (and so with the same sequence numbers) on the Pico as in the tests.
            for key in sorted(timers):
                if now - timers[key] >= 0:
                    del timers[key]
                    first = since.pop(key)
                    r = key >> 5
                    bit = 1 << (key & 31)
                    if (raw[r] ^ state[r]) & bit:
                        state[r] ^= bit
                        events.append((r, key & 31, bool(raw[r] & bit), first))
            if len(events) > 1:
                events.sort(key=_by_time)  # the contact that moved first goes first (ties row by row)
        return events

    def _eager(self, scan, now):
        timers = self._timers
        locked = self._locked
        if timers:
            for key in list(timers):
                if now - timers[key] >= 0:
                    del timers[key]
                    locked[key >> 5] &= ~(1 << (key & 31))
        raw = self.raw
        state = self.state
        deadline = now + self.ms
        events = []
        for r in range(self.rows):
            bits = scan[r]
            raw[r] = bits
            changed = (bits ^ state[r]) & ~locked[r]
            if changed:
                state[r] ^= changed
                locked[r] |= changed
                c = 0
                while changed:
                    if changed & 1:
                        timers[(r << 5) | c] = deadline
                        events.append((r, c, bool(bits & (1 << c)), now))
                    changed >>= 1
                    c += 1
        return events
