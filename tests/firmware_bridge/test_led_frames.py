"""LED frames over the serial link, without threads or ports: the host's FrameSender against the
firmware's Leds on a fake strip and a fake clock; frames whole and as changes, corrupted and lost on the
line, a silent host, the waiting pattern, and the control panel's buttons, buzzer and light."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.emulator import PanelSwitches, SwitchMatrix
from firmware_bridge.firmware.leds import PATTERN_DOTS, PATTERN_LEVEL, PATTERN_MS, Leds
from firmware_bridge.firmware.mcu import Firmware
from firmware_bridge.firmware.panel import Panel
from firmware_bridge.frames import FrameSender, changed, puts, runs

PIXELS = 1024


class Strip:
    """The fake strip behind the firmware's interface: every frame it was handed."""

    def __init__(self):
        self.frames: list[bytes] = []

    def write(self, buf) -> None:
        self.frames.append(bytes(buf))

    def busy(self) -> bool:
        return False

    @property
    def shown(self) -> bytes:
        return self.frames[-1] if self.frames else b""


class Pico:
    """The firmware with LEDs and a panel, its messages decoded."""

    def __init__(self, pixels: int = PIXELS, silence_ms: int = 1000):
        self.strip = Strip()
        self.switches = PanelSwitches()
        self.decoder = p.Decoder()
        self.sent: list[p.Message] = []
        self.fw = Firmware(
            SwitchMatrix(24, 16),
            lambda data: self.sent.extend(self.decoder.feed(data)),
            heartbeat_ms=10_000,
            leds=Leds(self.strip, pixels, 3),
            panel=Panel(self.switches, self.switches, self.switches),
        )
        self.fw.start(0)
        self.now = 0
        self.receive(p.led_setup(pixels, 3, silence_ms))

    def receive(self, data: bytes) -> None:
        self.fw.receive(data, self.now)

    def tick(self, until: int) -> None:
        while self.now < until:
            self.now += 1
            self.fw.tick(self.now)

    def take(self) -> list[p.Message]:
        out, self.sent = self.sent, []
        return out

    def states(self) -> list[p.Message]:
        return [m for m in self.take() if m.kind == p.LED_STATE]


def scene(rng: random.Random, lit: int = 300) -> bytearray:
    wire = bytearray(3 * PIXELS)
    for pixel in rng.sample(range(PIXELS), lit):
        wire[3 * pixel : 3 * pixel + 3] = bytes(rng.randrange(256) for _ in range(3))
    return wire


def send(sender: FrameSender, pico: Pico, wire: bytes, line=lambda data: data) -> None:
    pico.receive(line(sender.encode(bytes(wire))))
    for state in pico.states():
        sender.heard(state)


# -- the encoding --------------------------------------------------------------------------------------


def test_runs_join_changes_closer_than_a_run_header():
    assert runs(bytes([0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1])) == [(1, 7), (11, 12)]
    assert runs(bytes(5)) == [] and runs(b"\x01") == [(0, 1)]


def test_changed_marks_every_byte_that_differs_from_any_frame_the_pico_may_show():
    assert changed(b"abcd", b"abcd", b"abxd") == b"\x00\x00\x01\x00"
    assert changed(b"abcd", b"zbcd", b"abcz") == b"\x01\x00\x00\x01"


def test_long_runs_split_across_puts_that_each_fit_a_frame():
    wire = bytes(range(1, 256)) * 12
    data = puts(7, p.FROM_DARK, wire, [(0, len(wire))])
    messages = p.Decoder().feed(data)
    assert all(m.kind == p.LED_PUT and m.frame == 7 for m in messages) and len(messages) > 10
    built = bytearray(len(wire))
    for m in messages:
        i = 0
        while i < len(m.runs):
            at, n = m.runs[i] << 8 | m.runs[i + 1], m.runs[i + 2]
            built[at : at + n] = m.runs[i + 3 : i + 3 + n]
            i += 3 + n
    assert bytes(built) == wire


# -- frames whole and as changes -----------------------------------------------------------------


def test_the_first_frame_goes_whole_and_a_small_change_goes_as_changes():
    rng = random.Random(1)
    pico, sender = Pico(), FrameSender()
    wire = scene(rng)
    send(sender, pico, wire)
    assert pico.strip.shown == bytes(wire) and (sender.whole, sender.changes) == (1, 0)
    whole_bytes = sender.bytes
    wire[300:303] = b"\xff\x10\x20"  # one stone
    send(sender, pico, wire)
    assert pico.strip.shown == bytes(wire) and (sender.whole, sender.changes) == (1, 1)
    assert sender.bytes - whole_bytes < 40 < whole_bytes
    assert pico.fw.leds.frame == sender.number == 2 and pico.fw.leds.refused == 0


def test_a_frame_lost_on_the_wire_is_healed_by_the_next():
    rng = random.Random(2)
    pico, sender = Pico(), FrameSender()
    first = scene(rng)
    send(sender, pico, first)
    lost = bytearray(first)
    lost[0:30] = bytes(range(1, 31))
    send(sender, pico, lost, line=lambda data: b"")  # never arrives
    assert pico.strip.shown == bytes(first)
    healed = bytearray(lost)
    healed[3000:3003] = b"\x01\x02\x03"  # the next frame changes something else
    send(sender, pico, healed)
    assert pico.strip.shown == bytes(healed) and sender.changes == 2  # as changes, the lost ones with them


def test_a_frame_whose_show_is_lost_is_healed_by_the_next_whichever_the_pico_shows():
    rng = random.Random(3)
    pico, sender = Pico(), FrameSender()
    send(sender, pico, scene(rng))
    second = scene(rng, 10)
    data = sender.encode(bytes(second))
    pico.receive(data)  # shown, but its LED_STATE is lost on the way back
    pico.take()
    third = bytearray(second)
    third[6:9] = b"\x09\x09\x09"
    send(sender, pico, third)
    assert pico.strip.shown == bytes(third) and pico.fw.leds.refused == 0


def test_a_corrupted_frame_is_never_shown_and_the_next_heals_it():
    rng = random.Random(4)
    pico, sender = Pico(), FrameSender()
    first = scene(rng)
    send(sender, pico, first)
    second = scene(rng)

    def flip(data: bytes) -> bytes:  # one bit of a pixel byte, CRC-16 recomputed: only the CRC-32 sees it
        frames = [m for m in p.Decoder().feed(data)]
        put = frames[0]
        runs_ = bytearray(put.runs)
        runs_[-1] ^= 0x10
        return p.led_put(put.frame, put.flags, bytes(runs_)) + b"".join(
            p.encode_message(m) for m in frames[1:]
        )

    send(sender, pico, second, line=flip)
    assert pico.strip.shown == bytes(first) and pico.fw.leds.refused == 1
    send(sender, pico, second)  # the same frame again, as the surface resends an unconfirmed one
    assert pico.strip.shown == bytes(second)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_no_frame_is_applied_from_a_spoilt_message(data):
    """Whatever happens to a frame's bytes on the line (bits flipped, bytes lost, frames cut, dropped,
    doubled or reordered, junk between), the Pico shows the frame before it or that frame, nothing else."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    pico, sender = Pico(), FrameSender()
    first = scene(rng)
    send(sender, pico, first)
    second = scene(rng, data.draw(st.integers(1, 400)))
    frames = [f + b"\x00" for f in sender.encode(bytes(second)).split(b"\x00")[:-1]]
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(frames) - 1))
        f = bytearray(frames[i])
        if len(f) < 2:
            continue
        kind = data.draw(st.sampled_from(["flip", "lose-byte", "cut", "drop", "double", "swap", "junk"]))
        if kind == "flip":
            f[data.draw(st.integers(0, len(f) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "lose-byte":
            del f[data.draw(st.integers(0, len(f) - 2))]
        elif kind == "cut":
            f = f[: data.draw(st.integers(1, len(f) - 1))]
        elif kind == "drop":
            f = bytearray()
        elif kind == "double":
            f = f + f
        elif kind == "swap" and i + 1 < len(frames):
            frames[i], frames[i + 1] = frames[i + 1], frames[i]
            continue
        elif kind == "junk":
            f = bytearray(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + f
        frames[i] = bytes(f)
    pico.receive(b"".join(frames))
    assert pico.strip.shown in (bytes(first), bytes(second))
    assert pico.fw.leds.frame in (1, 2)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=60), max_size=8), st.integers(0, 0xFFFF), st.integers(0, 3))
def test_fuzzed_frame_messages_with_good_crcs_crash_nothing_and_show_nothing_unchecked(tails, frame, flags):
    """LED_PUTs of any runs (off the strip, cut short, overlapping) and LED_SHOWs naming any CRC-32:
    no exception, and a frame shows only when its bytes have the CRC-32 the host named."""
    pico = Pico(pixels=16)
    pico.tick(1)
    before = pico.strip.shown
    for tail in tails:
        pico.receive(p.led_put(frame, flags, tail))
    pico.receive(p.led_show(frame, 0x12345678))
    pico.receive(p.led_setup(16, 9, 100) + p.led_setup(60000, 3, 100) + p.led_setup(16, 3, 5))
    pico.tick(pico.now + 1)
    shown = pico.strip.shown
    assert shown == before or p.frame_crc(shown) == 0x12345678
    assert [m.code for m in pico.take() if m.kind == p.ERROR] == [p.E_BAD_VALUE] * 3


# -- a silent host, the waiting pattern --------------------------------------------------------------


def pattern(shown: bytes) -> bool:
    """The waiting pattern: dim blue dots and nothing else."""
    lit = [i for i, v in enumerate(shown) if v]
    return 0 < len(lit) <= PATTERN_DOTS and all(i % 3 == 2 and shown[i] == PATTERN_LEVEL for i in lit)


def test_the_pico_shows_the_waiting_pattern_from_power_up_and_it_moves():
    pico = Pico()
    pico.tick(1)
    first = pico.strip.shown
    assert pattern(first)
    pico.tick(PATTERN_MS + 2)
    assert pattern(pico.strip.shown) and pico.strip.shown != first
    [state] = [m for m in (p.decode(pico.fw.leds.state()),)]
    assert (state.mode, state.frame) == (p.WAITING, 0)


def test_a_silent_host_blanks_the_leds_within_the_silence_time():
    pico, sender = Pico(silence_ms=500), FrameSender()
    bright = bytes([255]) * (3 * PIXELS)
    send(sender, pico, bright)
    assert pico.strip.shown == bright
    pico.tick(pico.now + 499)  # the host has said nothing since its frame
    assert pico.strip.shown == bright
    pico.tick(pico.now + 2)
    assert pattern(pico.strip.shown)
    [state] = pico.states()
    assert state.mode == p.WAITING and not sender.heard(state)
    assert pico.switches.lit  # the status LED blinks: on, then off
    pico.tick(pico.now + 501)
    assert not pico.switches.lit


def test_a_query_keeps_the_frame_lit_and_the_next_frame_after_silence_goes_whole():
    pico, sender = Pico(silence_ms=300), FrameSender()
    wire = scene(random.Random(5))
    send(sender, pico, wire)
    for _ in range(5):
        pico.tick(pico.now + 200)
        pico.receive(p.led_query())
    assert pico.strip.shown == bytes(wire)
    for state in pico.states():
        assert sender.heard(state)
    pico.tick(pico.now + 400)
    for state in pico.states():
        sender.heard(state)
    assert sender.confirmed is None
    send(sender, pico, wire)  # the surface sends it again: whole, on a dark strip
    assert pico.strip.shown == bytes(wire) and sender.whole == 2


# -- the control panel ---------------------------------------------------------------------------


def test_panel_buttons_are_numbered_edges_of_the_panel_row():
    pico = Pico()
    pico.take()
    pico.switches.down = 1 << p.UNDO
    pico.tick(pico.now + 30)
    pico.switches.down = 0
    pico.tick(pico.now + 30)
    edges = [(m.seq, m.row, m.col, m.pressed) for m in pico.take() if m.kind == p.EDGE]
    assert edges == [(1, p.PANEL_ROW, p.UNDO, 1), (2, p.PANEL_ROW, p.UNDO, 0)]


def test_a_tone_plays_its_notes_in_turn_and_a_new_one_cuts_it():
    pico = Pico()
    pico.receive(p.tone([(440, 10), (0, 5), (880, 10)], tag=1))
    pico.tick(pico.now + 40)
    assert pico.switches.tones == [440, 0, 880, 0]
    pico.receive(p.tone([(1000, 50)]))
    pico.tick(pico.now + 10)
    pico.receive(p.tone([]))
    pico.tick(pico.now + 100)
    assert pico.switches.tones[4:] == [1000, 0]


def test_the_status_led_blinks_as_the_host_asks():
    pico = Pico()
    pico.receive(p.status_led(100, 100))
    seen = []
    for _ in range(4):
        seen.append(pico.switches.lit)
        pico.tick(pico.now + 100)
    assert seen == [True, False, True, False]
    pico.receive(p.status_led(0, 0))
    pico.tick(pico.now + 300)
    assert not pico.switches.lit


def test_a_pico_without_leds_or_panel_refuses_their_commands():
    sent = []
    decoder = p.Decoder()
    fw = Firmware(SwitchMatrix(24, 16), lambda data: sent.extend(decoder.feed(data)))
    fw.receive(p.led_query() + p.tone([(440, 10)]), 0)
    assert [(m.kind, m.code) for m in sent] == [(p.ERROR, p.E_UNKNOWN)] * 2


@pytest.mark.parametrize("pixels", [349, 1024])
def test_the_waiting_pattern_draws_a_few_milliamps(pixels):
    pico = Pico(pixels=pixels)
    pico.tick(2)
    blue = sum(pico.strip.shown[2::3])
    assert blue * 15 / 255 < 15  # mA at FastLED's 15 mA for blue at full duty
