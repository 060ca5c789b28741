"""LED frames for the Pico without I/O: as changes or whole, numbered, named by their CRC-32.

Changes are taken against every frame the Pico may show (the last it confirmed and those sent since), so
a lost frame is healed by the next (docs/firmware.md, 'LED frames').
"""

from __future__ import annotations

import struct

from firmware_bridge import protocol as p

RUN_GAP = 3  # unchanged bytes cheaper to resend than a new run's 3-byte header
RUN_MAX = 255
PUT_ROOM = p.MAX_BODY - 2 - 3 - 2  # an LED_PUT's runs: the body less version, type, head and CRC
IN_FLIGHT = 8  # frames unconfirmed; past that, the next goes whole
_NONZERO = bytes([0] + [1] * 255)
_HEAD = struct.Struct(">HB")  # a run: offset, length


def runs(mask: bytes) -> list[tuple[int, int]]:
    """(start, end) of the non-zero runs of ``mask``, joined across short gaps."""
    out: list[tuple[int, int]] = []
    end = len(mask)
    at = mask.find(1)
    while at >= 0:
        stop = mask.find(0, at)
        stop = end if stop < 0 else stop
        if out and at - out[-1][1] <= RUN_GAP:
            out[-1] = (out[-1][0], stop)
        else:
            out.append((at, stop))
        at = mask.find(1, stop)
    return out


def changed(new: bytes, *olds: bytes) -> bytes:
    """1 where ``new`` differs from any of ``olds``, else 0 (XOR of big ints: in C, not per byte)."""
    size = len(new)
    mine = int.from_bytes(new, "big")
    diff = 0
    for old in olds:
        diff |= mine ^ int.from_bytes(old, "big")
    return diff.to_bytes(size, "big").translate(_NONZERO)


def puts(number: int, flags: int, wire: bytes, spans: list[tuple[int, int]]) -> bytes:
    """LED_PUT frames carrying ``spans`` of ``wire``."""
    frames: list[bytes] = []
    parts: list[bytes] = []
    room = PUT_ROOM
    for start, stop in spans:
        while start < stop:
            if room < 4:
                frames.append(p.led_put(number, flags, b"".join(parts)))
                parts, room = [], PUT_ROOM
            count = min(stop - start, RUN_MAX, room - 3)
            parts += (_HEAD.pack(start, count), wire[start : start + count])
            room -= 3 + count
            start += count
    if parts or not frames:
        frames.append(p.led_put(number, flags, b"".join(parts)))
    return b"".join(frames)


class FrameSender:
    """:meth:`encode` the frames to show, :meth:`heard` the Pico's LED_STATEs, :meth:`forget` on a lost
    link."""

    def __init__(self):
        self.number = 0  # 1..65535; 0 is the Pico's "none"
        self.confirmed: tuple[int, bytes] | None = None  # (number, wire) the Pico said it shows
        self.in_flight: list[tuple[int, bytes, int]] = []  # (number, wire, crc) sent since
        self.whole = 0
        self.changes = 0
        self.bytes = 0

    def encode(self, wire: bytes) -> bytes:
        self.number = self.number % 0xFFFF + 1
        crc = p.frame_crc(wire)
        whole = runs(wire.translate(_NONZERO))  # on a dark strip: the lit bytes
        size = _cost(whole)
        flags = p.FROM_DARK
        known = self.confirmed is not None and len(self.confirmed[1]) == len(wire)
        if known and len(self.in_flight) < IN_FLIGHT:
            spans = runs(changed(wire, self.confirmed[1], *(w for _, w, _ in self.in_flight)))
            if _cost(spans) < size:
                whole, flags = spans, 0
        if flags:
            self.whole += 1
        else:
            self.changes += 1
        data = puts(self.number, flags, wire, whole) + p.led_show(self.number, crc)
        self.in_flight.append((self.number, wire, crc))
        self.bytes += len(data)
        return data

    def heard(self, state: p.Message) -> bool:
        """Take an LED_STATE; True when the Pico shows the frame encoded last."""
        if state.mode != p.SHOWING:
            self.forget()
            return False
        for i, (number, wire, crc) in enumerate(self.in_flight):
            if number == state.frame and crc == state.crc:
                self.confirmed = (number, wire)
                del self.in_flight[: i + 1]
                return not self.in_flight
        confirmed = self.confirmed
        if confirmed is None or confirmed[0] != state.frame or p.frame_crc(confirmed[1]) != state.crc:
            self.forget()  # a frame of an earlier run: nothing to build on
            return False
        return not self.in_flight

    def forget(self) -> None:
        self.confirmed = None
        self.in_flight.clear()


def _cost(spans: list[tuple[int, int]]) -> int:
    return sum(stop - start + 3 * (1 + (stop - start) // RUN_MAX) for start, stop in spans)
