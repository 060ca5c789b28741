"""The serial protocol (docs/firmware.md, 'The protocol (version 1)'): the Pico's firmware imports this
very file, so it keeps to the MicroPython subset.
"""

import struct

try:
    from binascii import crc_hqx as _crc_hqx  # CPython, in C; from 0xFFFF it is CCITT-FALSE
except ImportError:  # MicroPython has no crc_hqx
    _crc_hqx = None
try:
    from binascii import crc32 as _crc32  # in C on both (MicroPython's rp2 and Unix ports have it)
except ImportError:
    _crc32 = None

VERSION = 1
"""Protocol version: the first byte of every frame body, and a field of HELLO."""

MAX_BODY = 160
"""Longest frame body either end accepts: room for the snapshot of a 32x32 matrix (140 bytes)."""
REPLAY_SPAN = 1024  # edges one REPLAY can name (a 128-byte mask)

# message types: MCU -> host below 0x10, host -> MCU from 0x10
HELLO = 0x01
EDGE = 0x02
HEARTBEAT = 0x03
SNAPSHOT = 0x04
ACK = 0x05
ERROR = 0x06
RESENT = 0x07
LED_STATE = 0x08
PING = 0x10
GET_SNAPSHOT = 0x11
CONFIGURE = 0x12
RESET = 0x13
GET_HELLO = 0x14
REPLAY = 0x15
LED_SETUP = 0x16
LED_PUT = 0x17
LED_SHOW = 0x18
LED_QUERY = 0x19
TONE = 0x1A
STATUS_LED = 0x1B

EAGER = 0
DEFERRED = 1
MODE_NAMES = {EAGER: "eager", DEFERRED: "deferred"}

E_UNKNOWN = 1  # ERROR code: a command the firmware does not know
E_BAD_VALUE = 2  # ERROR code: a CONFIGURE value out of range, nothing changed

PANEL_ROW = 0xFF  # an EDGE of this row is a control-panel button: column ROLL, OK or UNDO
ROLL = 0
OK = 1
UNDO = 2
WAITING = 0  # LED_STATE mode: the Pico shows its "waiting for host" pattern (power-up, a silent host)
SHOWING = 1  # LED_STATE mode: the host's frames
FROM_DARK = 1  # LED_PUT flag: the frame is built on a dark strip, not on the frame shown

# each payload's fixed part and field names; SNAPSHOT and ERROR add a tail (the bitmap, the text)
FORMATS = {
    HELLO: (">BBBBBBHI", ("fw_major", "fw_minor", "fw_patch", "protocol", "rows", "cols", "seq", "ms")),
    EDGE: (">HIBBB", ("seq", "ms", "row", "col", "pressed")),
    HEARTBEAT: (">HII", ("seq", "ms", "uptime")),
    SNAPSHOT: (">HIBB", ("seq", "ms", "rows", "cols")),
    ACK: (">BB", ("tag", "command")),
    ERROR: (">BBB", ("tag", "command", "code")),
    RESENT: (">HIBBB", ("seq", "ms", "row", "col", "pressed")),
    LED_STATE: (">HIBH", ("frame", "crc", "mode", "refused")),
    PING: (">B", ("tag",)),
    GET_SNAPSHOT: (">B", ("tag",)),
    CONFIGURE: (">BBBHH", ("tag", "debounce_ms", "mode", "scan_us", "heartbeat_ms")),
    RESET: (">B", ("tag",)),
    GET_HELLO: (">B", ("tag",)),
    REPLAY: (">BH", ("tag", "first")),
    LED_SETUP: (">BHBH", ("tag", "pixels", "bpp", "silence_ms")),
    LED_PUT: (">HB", ("frame", "flags")),
    LED_SHOW: (">HI", ("frame", "crc")),
    LED_QUERY: (">B", ("tag",)),
    TONE: (">B", ("tag",)),
    STATUS_LED: (">BHH", ("tag", "on_ms", "off_ms")),
}
TAILS = {SNAPSHOT: "bitmap", ERROR: "text", REPLAY: "wanted", LED_PUT: "runs", TONE: "notes"}
NAMES = {
    HELLO: "HELLO",
    EDGE: "EDGE",
    HEARTBEAT: "HEARTBEAT",
    SNAPSHOT: "SNAPSHOT",
    ACK: "ACK",
    ERROR: "ERROR",
    RESENT: "RESENT",
    LED_STATE: "LED_STATE",
    PING: "PING",
    GET_SNAPSHOT: "GET_SNAPSHOT",
    CONFIGURE: "CONFIGURE",
    RESET: "RESET",
    GET_HELLO: "GET_HELLO",
    REPLAY: "REPLAY",
    LED_SETUP: "LED_SETUP",
    LED_PUT: "LED_PUT",
    LED_SHOW: "LED_SHOW",
    LED_QUERY: "LED_QUERY",
    TONE: "TONE",
    STATUS_LED: "STATUS_LED",
}
_SIZES = {}
for _kind in FORMATS:
    _SIZES[_kind] = struct.calcsize(FORMATS[_kind][0])


class ProtocolError(ValueError):
    """A frame or a message that breaks the protocol; the message says how."""


# CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor ("123456789" -> 0x29B1)


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _crc_table()


def crc16_table(data, crc=0xFFFF):
    """By table: the firmware's CRC."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``."""
    if _crc_hqx is not None:
        return _crc_hqx(data, crc)
    return crc16_table(data, crc)


def frame_crc(data):
    """CRC-32 (zlib's) of an LED frame: LED_SHOW and LED_STATE name a frame by it."""
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def cobs_encode(data):
    """COBS-encode ``data``: no zero byte, at most len/254 + 1 bytes longer."""
    out = bytearray()
    for block in bytes(data).split(b"\x00"):  # split in C: a frame of pixels is mostly zeros
        while len(block) >= 254:
            out.append(255)
            out += block[:254]
            block = block[254:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data):
    """Undo :func:`cobs_encode`; ProtocolError on a zero byte or a block that overruns."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("COBS: zero byte inside a frame")
        end = i + code
        if end > n:
            raise ProtocolError("COBS: block of %d bytes runs past the end of the frame" % (code - 1))
        block = data[i + 1 : end]
        if 0 in block:
            raise ProtocolError("COBS: zero byte inside a frame")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


class Message:
    """One decoded message: ``kind`` and its fields as attributes (``msg.seq``)."""

    def __init__(self, kind, values, tail=None):
        self.kind = kind
        self.values = tuple(values)
        names = FORMATS[kind][1]
        for i in range(len(names)):
            setattr(self, names[i], values[i])
        if kind in TAILS:
            setattr(self, TAILS[kind], bytes(tail or b""))
        self.tail = bytes(tail or b"")

    @property
    def name(self):
        return NAMES.get(self.kind, "?")

    def __eq__(self, other):
        return (
            isinstance(other, Message)
            and self.kind == other.kind
            and self.values == other.values
            and self.tail == other.tail
        )

    def __hash__(self):
        return hash((self.kind, self.values, self.tail))

    def __repr__(self):
        names = FORMATS[self.kind][1]
        parts = ["%s=%r" % (names[i], self.values[i]) for i in range(len(names))]
        if self.kind in TAILS:
            parts.append("%s=%r" % (TAILS[self.kind], self.tail))
        return "%s(%s)" % (self.name, ", ".join(parts))


def body(kind, values, tail=b""):
    """A message's frame body before COBS; ProtocolError on bad values."""
    if kind not in FORMATS:
        raise ProtocolError("unknown message type 0x%02x" % kind)
    fmt = FORMATS[kind][0]
    try:
        payload = struct.pack(fmt, *values)
    except (
        struct.error,
        OverflowError,
        TypeError,
        ValueError,
    ) as err:  # not on MicroPython: it packs out-of-range ints silently
        raise ProtocolError("%s: %s" % (NAMES[kind], err)) from None
    if kind not in TAILS and tail:
        raise ProtocolError("%s carries no tail" % NAMES[kind])
    head = bytes((VERSION, kind)) + payload + bytes(tail)
    if len(head) + 2 > MAX_BODY:
        raise ProtocolError("%s: body of %d bytes is longer than %d" % (NAMES[kind], len(head) + 2, MAX_BODY))
    return head + struct.pack(">H", crc16(head))


def encode(kind, values, tail=b""):
    """The framed bytes of a message, ready for the wire."""
    return cobs_encode(body(kind, values, tail)) + b"\x00"


def encode_message(msg):
    return encode(msg.kind, msg.values, msg.tail)


def parse(data):
    """The message in a frame body (after COBS); ProtocolError says what is wrong."""
    n = len(data)
    if n < 4:
        raise ProtocolError("frame of %d bytes is too short" % n)
    if crc16(data[:-2]) != (data[-2] << 8 | data[-1]):
        raise ProtocolError("CRC mismatch")
    if data[0] != VERSION:
        raise ProtocolError("protocol version %d, expected %d" % (data[0], VERSION))
    kind = data[1]
    spec = FORMATS.get(kind)
    if spec is None:
        raise ProtocolError("unknown message type 0x%02x" % kind)
    size = _SIZES[kind]
    if kind in TAILS:
        if n - 4 < size:
            raise ProtocolError("%s too short" % NAMES[kind])
    elif n - 4 != size:
        raise ProtocolError("%s payload of %d bytes, expected %d" % (NAMES[kind], n - 4, size))
    values = struct.unpack_from(spec[0], data, 2)
    tail = data[2 + size : n - 2] if kind in TAILS else None
    return Message(kind, values, tail)


def decode(frame):
    """The message in one wire frame, with or without its trailing 0x00."""
    if frame and frame[-1] == 0:
        frame = frame[:-1]
    return parse(cobs_decode(frame))


class Decoder:
    """Streaming reader: ``feed(data)`` returns the messages completed; bad frames are counted, never
    raised."""

    def __init__(self, max_frame=2 * MAX_BODY):
        self.good = 0
        self.bad = 0
        self.last_error = None
        self._max = max_frame
        self._buf = bytearray()
        self._skipping = False

    def reset(self):
        """Forget any partial frame; the counters stay."""
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data):
        out = []
        buf = self._buf
        buf += data
        start = 0
        while True:
            end = buf.find(b"\x00", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif end > start:
                try:
                    out.append(parse(cobs_decode(bytes(buf[start:end]))))
                    self.good += 1
                except ProtocolError as err:
                    self.bad += 1
                    self.last_error = str(err)
            start = end + 1
        if start:
            buf = buf[start:]
        if len(buf) > self._max:
            if not self._skipping:
                self.bad += 1
                self.last_error = "no frame delimiter within %d bytes" % self._max
            self._skipping = True
            buf = bytearray()
        self._buf = buf
        return out


# builders for each message, the names both ends use


def hello(fw_version, rows, cols, seq, ms):
    return encode(HELLO, (fw_version[0], fw_version[1], fw_version[2], VERSION, rows, cols, seq, ms))


def edge(seq, ms, row, col, pressed):
    return encode(EDGE, (seq, ms & 0xFFFFFFFF, row, col, 1 if pressed else 0))


def resent(seq, ms, row, col, pressed):
    return encode(RESENT, (seq, ms & 0xFFFFFFFF, row, col, 1 if pressed else 0))


def heartbeat(seq, ms, uptime):
    return encode(HEARTBEAT, (seq, ms & 0xFFFFFFFF, uptime & 0xFFFFFFFF))


def snapshot(seq, ms, rows, cols, bitmap):
    return encode(SNAPSHOT, (seq, ms & 0xFFFFFFFF, rows, cols), bitmap)


def ack(tag, command):
    return encode(ACK, (tag, command))


def error(tag, command, code, text=b""):
    return encode(ERROR, (tag, command, code), text[:48])


def ping(tag=0):
    return encode(PING, (tag,))


def get_snapshot(tag=0):
    return encode(GET_SNAPSHOT, (tag,))


def get_hello(tag=0):
    return encode(GET_HELLO, (tag,))


def configure(debounce_ms, mode, scan_us, heartbeat_ms=0, tag=0):
    """CONFIGURE: debounce ms, EAGER/DEFERRED, scan period us, heartbeat ms (0 = keep)."""
    return encode(CONFIGURE, (tag, debounce_ms, mode, scan_us, heartbeat_ms))


def reset(tag=0):
    return encode(RESET, (tag,))


def replay(first, wanted, tag=0):
    """REPLAY: send again edge ``first + i`` for each bit ``i`` set in ``wanted`` (an int; bit 0 is
    ``first``, at most REPLAY_SPAN edges; docs/firmware.md, 'Replay')."""
    size = 0
    while wanted >> (8 * size):
        size += 1
    if size > REPLAY_SPAN // 8:
        raise ProtocolError("REPLAY: %d edges past the first, at most %d" % (8 * size, REPLAY_SPAN))
    return encode(REPLAY, (tag, first & 0xFFFF), wanted.to_bytes(size, "little"))


def led_state(frame, crc, mode, refused):
    return encode(LED_STATE, (frame, crc, mode, refused & 0xFFFF))


def led_setup(pixels, bpp, silence_ms, tag=0):
    """LED_SETUP: the strip's length and bytes a pixel (3 GRB, 4 GRBW); dark after ``silence_ms`` unheard."""
    return encode(LED_SETUP, (tag, pixels, bpp, silence_ms))


def led_put(frame, flags, runs):
    """LED_PUT: ``runs`` is offset u16, length u8 and that many bytes, over and over."""
    return encode(LED_PUT, (frame, flags), runs)


def led_show(frame, crc):
    return encode(LED_SHOW, (frame, crc))


def led_query(tag=0):
    return encode(LED_QUERY, (tag,))


def tone(notes, tag=0):
    """TONE: (Hz, ms) pairs played in turn, Hz 0 a rest; none stops the buzzer."""
    tail = bytearray()
    for hz, ms in notes:
        tail += struct.pack(">HH", hz, ms)
    return encode(TONE, (tag,), tail)


def status_led(on_ms, off_ms, tag=0):
    """STATUS_LED: on ``on_ms`` then off ``off_ms``, over and over; 0 on is off, 0 off is steady."""
    return encode(STATUS_LED, (tag, on_ms, off_ms))


# the snapshot bitmap: bit row * cols + col, least significant bit of byte 0 first


def bitmap_size(rows, cols):
    return (rows * cols + 7) // 8


def pack_bitmap(row_bits, cols):
    """Bitmap bytes from one int per row (bit c: key (row, c) pressed)."""
    out = bytearray(bitmap_size(len(row_bits), cols))
    for r in range(len(row_bits)):
        bits = row_bits[r]
        c = 0
        while bits:
            if bits & 1:
                i = r * cols + c
                out[i >> 3] |= 1 << (i & 7)
            bits >>= 1
            c += 1
    return bytes(out)


def unpack_bitmap(bitmap, rows, cols):
    """The pressed (row, col) keys of a bitmap; ProtocolError if its size is wrong."""
    if len(bitmap) != bitmap_size(rows, cols):
        raise ProtocolError("snapshot bitmap of %d bytes for a %dx%d matrix" % (len(bitmap), rows, cols))
    keys = set()
    for i in range(rows * cols):
        if bitmap[i >> 3] & (1 << (i & 7)):
            keys.add((i // cols, i % cols))
    return keys
