"""The serial protocol: CRC, COBS, every message round trip, the streaming decoder on garbage, and that the
files the Pico runs stay in the MicroPython subset."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p

ROOT = Path(__file__).resolve().parents[2]
PICO_FILES = [ROOT / "firmware_bridge" / "protocol.py"] + sorted(
    (ROOT / "firmware_bridge" / "firmware").glob("*.py")
)


def test_crc_is_ccitt_false():
    assert p.crc16(b"123456789") == 0x29B1  # the catalogue's check value for CRC-16/CCITT-FALSE
    assert p.crc16_table(b"123456789") == 0x29B1


def test_an_led_frame_is_named_by_zlibs_crc32_with_or_without_binascii(monkeypatch):
    assert p.frame_crc(b"123456789") == 0xCBF43926
    monkeypatch.setattr(p, "_crc32", None)  # a MicroPython built without it
    assert p.frame_crc(b"123456789") == 0xCBF43926


@given(st.binary(max_size=300))
def test_the_firmwares_table_crc_equals_the_hosts(data):
    assert p.crc16_table(data) == p.crc16(data)


@given(st.binary(max_size=700))
def test_cobs_round_trip_has_no_zero_byte(data):
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert p.cobs_decode(encoded) == data


@pytest.mark.parametrize("n", [253, 254, 255, 508, 509])
def test_cobs_block_boundaries(n):
    for data in (bytes([7]) * n, bytes([7]) * n + b"\x00", b"\x00" + bytes([7]) * n):
        assert p.cobs_decode(p.cobs_encode(data)) == data


MESSAGES = [
    p.hello((1, 2, 3), 24, 16, 9, 123456),
    p.edge(65535, 4_000_000_000, 23, 15, True),
    p.edge(1, 0, 0, 0, False),
    p.heartbeat(42, 1500, 1),
    p.snapshot(7, 99, 24, 16, p.pack_bitmap([1 << 15] + [0] * 22 + [1], 16)),
    p.ack(5, p.PING),
    p.error(5, p.CONFIGURE, p.E_BAD_VALUE, b"scan us out of range"),
    p.ping(1),
    p.get_snapshot(2),
    p.get_hello(3),
    p.configure(5, p.DEFERRED, 1000, 500, tag=4),
    p.reset(6),
    p.resent(9, 77, 1, 2, True),
    p.replay(3, 0b1011, tag=7),
    p.led_state(12, 0xDEADBEEF, p.SHOWING, 3),
    p.led_setup(1024, 3, 1000, tag=8),
    p.led_put(12, p.FROM_DARK, b"\x00\x00\x03" + bytes(3) + b"\x0b\xfd\x02\xff\x00"),
    p.led_put(13, 0, b""),
    p.led_show(12, 0xDEADBEEF),
    p.led_query(9),
    p.tone([(1760, 60), (0, 50)], tag=10),
    p.status_led(100, 100, tag=11),
]


@pytest.mark.parametrize("frame", MESSAGES, ids=lambda f: p.decode(f).name)
def test_every_message_round_trips(frame):
    assert frame.endswith(b"\x00") and 0 not in frame[:-1]
    msg = p.decode(frame)
    assert p.encode_message(msg) == frame
    assert msg.name in repr(msg)


def test_fields_come_back_by_name():
    msg = p.decode(p.edge(300, 70000, 3, 4, True))
    assert (msg.kind, msg.seq, msg.ms, msg.row, msg.col, msg.pressed) == (p.EDGE, 300, 70000, 3, 4, 1)
    hello = p.decode(p.hello((1, 0, 7), 24, 16, 0, 5))
    assert (hello.fw_major, hello.fw_minor, hello.fw_patch, hello.protocol, hello.rows, hello.cols) == (
        1,
        0,
        7,
        p.VERSION,
        24,
        16,
    )
    snap = p.decode(p.snapshot(3, 4, 24, 16, p.pack_bitmap([0, 0b101] + [0] * 22, 16)))
    assert p.unpack_bitmap(snap.bitmap, snap.rows, snap.cols) == {(1, 0), (1, 2)}
    err = p.decode(p.error(7, p.CONFIGURE, p.E_BAD_VALUE, b"x" * 200))  # a long text is cut to fit a frame
    assert (err.tag, err.command, err.code, err.text) == (7, p.CONFIGURE, p.E_BAD_VALUE, b"x" * 48)


@given(st.sets(st.tuples(st.integers(0, 23), st.integers(0, 15))))
def test_bitmap_round_trip(keys):
    rows = [0] * 24
    for r, c in keys:
        rows[r] |= 1 << c
    assert p.unpack_bitmap(p.pack_bitmap(rows, 16), 24, 16) == keys


def test_bitmap_of_the_wrong_size_is_refused():
    with pytest.raises(p.ProtocolError, match="47 bytes for a 24x16"):
        p.unpack_bitmap(bytes(47), 24, 16)


@pytest.mark.parametrize(
    "build, problem",
    [
        (lambda: p.edge(70000, 0, 0, 0, True), "EDGE"),
        (lambda: p.encode(0x7F, ()), "unknown message type"),
        (lambda: p.encode(p.PING, (1,), b"tail"), "no tail"),
        (lambda: p.snapshot(1, 1, 32, 40, bytes(160)), "longer than"),
        (lambda: p.led_put(1, 0, bytes(160)), "longer than"),
        (lambda: p.replay(1, 1 << 1024), "at most 1024"),
        (lambda: p.led_setup(70000, 3, 1000), "LED_SETUP"),
    ],
)
def test_bad_values_are_refused_when_encoding(build, problem):
    with pytest.raises(p.ProtocolError, match=problem):
        build()


def _reframe(body: bytes) -> bytes:
    return p.cobs_encode(body) + b"\x00"


@pytest.mark.parametrize(
    "spoil, problem",
    [
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "CRC"),
        (lambda b: _with_crc(bytes([2]) + b[1:-2]), "version 2"),
        (lambda b: _with_crc(b[:1] + bytes([0x7E]) + b[2:-2]), "unknown message type"),
        (lambda b: _with_crc(b[:-2] + b"\x01"), "payload of 10 bytes, expected 9"),
        (lambda b: b[:3], "too short"),
    ],
)
def test_a_spoilt_frame_names_its_fault(spoil, problem):
    good = p.cobs_decode(p.edge(1, 2, 3, 4, True)[:-1])
    with pytest.raises(p.ProtocolError, match=problem):
        p.decode(_reframe(spoil(good)))


def _with_crc(head: bytes) -> bytes:
    return head + p.crc16(head).to_bytes(2, "big")


@given(st.lists(st.sampled_from(MESSAGES), max_size=20), st.data())
def test_decoder_takes_any_chunking(frames, data):
    stream = b"".join(frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = p.Decoder()
    got = []
    start = 0
    for cut in cuts + [len(stream)]:
        got += decoder.feed(stream[start:cut])
        start = cut
    assert got == [p.decode(f) for f in frames]
    assert (decoder.good, decoder.bad) == (len(frames), 0)


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_garbage_never_raises_and_the_next_frame_still_arrives(junk):
    decoder = p.Decoder()
    decoder.feed(junk)
    frame = p.edge(9, 9, 9, 9, True)
    got = decoder.feed(b"\x00" + frame)
    assert got[-1:] == [p.decode(frame)]


def test_noise_is_counted_and_bounded():
    rng = random.Random(1)
    decoder = p.Decoder()
    noise = bytes(rng.randrange(1, 256) for _ in range(5000))  # no delimiter at all
    assert decoder.feed(noise) == []
    assert decoder.bad == 1 and len(decoder._buf) == 0
    assert "delimiter" in decoder.last_error
    # The tail of the run is dropped up to the next zero, then frames flow again.
    assert decoder.feed(b"more junk\x00" + p.ping(1)) == [p.decode(p.ping(1))]
    assert decoder.bad == 1  # the run and its tail are one fault
    # Fed in small chunks (as a UART delivers it), the buffer never holds more than the longest frame.
    for _ in range(20):
        decoder.feed(noise[:100])
        assert len(decoder._buf) <= 2 * p.MAX_BODY


def test_a_truncated_frame_merged_with_the_next_is_dropped_and_the_one_after_survives():
    a, b, c = p.edge(1, 1, 1, 1, True), p.edge(2, 2, 2, 2, False), p.heartbeat(2, 3, 0)
    decoder = p.Decoder()
    got = decoder.feed(a[:-4] + b + c)  # a lost its tail and delimiter: a+b read as one bad frame
    assert got == [p.decode(c)]
    assert decoder.bad == 1


# -- the Pico's files stay in MicroPython's subset ----------------------------------------------------

ALLOWED_IMPORTS = {
    "struct",
    "binascii",
    "sys",
    "machine",
    "time",
    "select",
    "micropython",
    "firmware_bridge",
    "rp2",
    "firmware_bridge.firmware.debounce",
    "firmware_bridge.firmware.keymatrix",
    "firmware_bridge.firmware.leds",
    "firmware_bridge.firmware.ledstrip",
    "firmware_bridge.firmware.mcu",
    "firmware_bridge.firmware.panel",
    "protocol",
    "debounce",
    "keymatrix",
    "leds",
    "ledstrip",
    "mcu",
    "panel",
}


@pytest.mark.parametrize("path", PICO_FILES, ids=lambda path: path.name)
def test_pico_files_use_only_the_micropython_subset(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        assert not isinstance(node, ast.JoinedStr), f"{where}: f-string"
        assert not isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.Match)), (
            f"{where}: {type(node).__name__}"
        )
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs
            assert node.returns is None and all(a.annotation is None for a in args), f"{where}: annotations"
            assert not node.decorator_list or all(
                isinstance(d, ast.Name) and d.id in ("property", "staticmethod", "classmethod")
                for d in node.decorator_list
            ), f"{where}: decorator"
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name in ALLOWED_IMPORTS, f"{where}: import {alias.name}"
        if isinstance(node, ast.ImportFrom):
            assert node.module in ALLOWED_IMPORTS, f"{where}: from {node.module} import"
