"""Per-key debounce, QMK's sym_defer_pk (the default) and sym_eager_pk (docs/firmware.md, 'Debounce').

MicroPython subset; the time (ms) is an argument, so tests drive it with a fake clock.
"""

EAGER = 0
DEFERRED = 1


def _by_time(event):
    return (event[3], event[0], event[1])


class Debouncer:
    """Raw scans (one int per row) -> debounced edges ``(row, col, pressed, ms)``; ``state`` holds the
    debounced rows. A key is ``row << 5 | col``: at most 32 columns."""

    def __init__(self, rows, cols, ms=5, mode=DEFERRED):
        if cols > 32:
            raise ValueError("at most 32 columns")
        self.rows = rows
        self.cols = cols
        self.raw = [0] * rows
        self.state = [0] * rows
        self._locked = [0] * rows  # eager: keys deaf until their timer ends
        self._timers = {}  # key -> ms its timer ends
        self._since = {}  # deferred: key -> ms its contact first moved
        self.ms = ms
        self.mode = mode

    def configure(self, ms, mode):
        """Change the time and the mode; a change under way is timed afresh."""
        self.ms = ms
        self.mode = mode
        self._timers = {}
        self._since = {}
        self._locked = [0] * self.rows
        # every key whose contact differs from its state changes afresh at the next scan
        self.raw = list(self.state)

    @property
    def busy(self):
        """A key is being timed: keep scanning at the full rate."""
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
            # sorted: MicroPython's dicts keep no order, and edges must be numbered as in the tests
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
                events.sort(key=_by_time)  # the contact that moved first goes first
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
