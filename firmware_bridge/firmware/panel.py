"""The control panel on the Pico: ROLL, OK, UNDO as edges, the host's tones, its status LED. MicroPython
subset (docs/firmware.md, 'Control panel'). ``buttons.read()``: a bit per button down; ``buzzer.tone(hz)``
(0: silent); ``light.value(on)``.
"""

import struct

try:  # CPython: the host package
    from firmware_bridge.firmware.debounce import DEFERRED, Debouncer
except ImportError:  # the Pico
    from debounce import DEFERRED, Debouncer

BUTTONS = 3  # protocol.ROLL, OK, UNDO: their bits and columns
DEBOUNCE_MS = 20  # big tactile buttons chatter longer than the node switches
WAITING_BLINK = (500, 500)  # ms on, off: no host


class Panel:
    def __init__(self, buttons, buzzer, light, debounce_ms=DEBOUNCE_MS):
        self.buttons = buttons
        self.buzzer = buzzer
        self.light = light
        self.debouncer = Debouncer(1, BUTTONS, debounce_ms, DEFERRED)
        self._scan = [0]
        self._notes = []  # (hz, ms) to play, the next last
        self._playing = False
        self._note_ends = 0
        self._blink = WAITING_BLINK
        self._lit = False
        self._switch_at = 0

    def edges(self, now):
        self._scan[0] = self.buttons.read()
        return [(col, pressed, ms) for _, col, pressed, ms in self.debouncer.update(self._scan, now)]

    @property
    def busy(self):
        return self.debouncer.busy

    def play(self, notes, now):
        """Cut the tune playing; ``notes``: TONE's tail."""
        self._notes = [struct.unpack_from(">HH", notes, i) for i in range(0, len(notes) - 3, 4)]
        self._notes.reverse()
        self._playing = True
        self._note_ends = now

    def status(self, on_ms, off_ms, now):
        self._blink = (on_ms, off_ms)
        self._lit = on_ms > 0
        self.light.value(self._lit)
        self._switch_at = now + (on_ms if self._lit else off_ms)

    def tick(self, now):
        if self._playing and now - self._note_ends >= 0:
            if self._notes:
                hz, ms = self._notes.pop()
                self.buzzer.tone(hz)
                self._note_ends = now + ms
            else:
                self.buzzer.tone(0)
                self._playing = False
        on_ms, off_ms = self._blink
        if on_ms and off_ms and now - self._switch_at >= 0:
            self._lit = not self._lit
            self.light.value(self._lit)
            self._switch_at = now + (on_ms if self._lit else off_ms)

    def next_due(self, now):
        due = 1 << 30
        if self._playing:
            due = self._note_ends - now
        if self._blink[0] and self._blink[1]:
            due = min(due, self._switch_at - now)
        return max(0, due)


class PinButtons:
    """Buttons to GND on pulled-up pins: ROLL, OK, UNDO."""

    def __init__(self, pins):
        self._pins = pins

    def read(self):
        bits = 0
        for i in range(len(self._pins)):
            if not self._pins[i].value():
                bits |= 1 << i
        return bits


class PwmBuzzer:
    """A passive piezo on a PWM pin."""

    def __init__(self, pwm):
        self._pwm = pwm
        pwm.duty_u16(0)

    def tone(self, hz):
        if hz:
            self._pwm.freq(hz)
        self._pwm.duty_u16(32768 if hz else 0)
