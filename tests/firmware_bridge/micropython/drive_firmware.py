"""Drives the Pico firmware's logic and prints every byte it sends: run by both MicroPython and CPython.

tests/firmware_bridge/test_firmware_micropython.py copies this file next to the firmware files as the Pico
holds them (flat: protocol.py, debounce.py, keymatrix.py, mcu.py, main.py) and runs it under the real
MicroPython (the Unix port) and under CPython without site-packages; the two outputs must be the same, byte
for byte. Only what both interpreters print the same way is printed (no set or dict order).
"""

import protocol
from debounce import DEFERRED, EAGER
from keymatrix import DirectMatrix, ShiftRegisterMatrix
from leds import Leds
from mcu import Firmware
from panel import Panel

# main.py starts the scan loop at boot on the Pico, and ledstrip.py needs its rp2 module; here they are
# only compiled, to catch syntax MicroPython does not have.
for name in ("main.py", "ledstrip.py"):
    with open(name) as f:
        compile(f.read(), name, "exec")
    print(name, "compiles")


class Keys:
    rows = 24
    cols = 16

    def __init__(self):
        self.state = [0] * 24

    def scan(self):
        return list(self.state)


def show(frames):
    for frame in frames:
        print(protocol.decode(frame), bytes(frame).hex())
    del frames[:]


for mode in (DEFERRED, EAGER):
    out = []
    keys = Keys()
    fw = Firmware(keys, out.append, mode=mode)
    fw.start(0)
    keys.state[3] = 1 << 5
    for t in range(0, 3):
        fw.tick(t)
    keys.state[3] = 0  # a bounce
    fw.tick(3)
    keys.state[3] = 1 << 5
    for t in range(4, 20):
        fw.tick(t)
    keys.state[3] = 0
    keys.state[23] = 1 << 15
    for t in range(20, 40):
        fw.tick(t)
    fw.tick(600)
    # Host commands split anywhere, with garbage between them.
    host = (
        b"\x05\x01garbage\x00"
        + protocol.get_snapshot(7)
        + protocol.get_hello(1)
        + protocol.configure(10, EAGER, 2000, 250, tag=3)
        + protocol.configure(99, EAGER, 2000, 0, tag=4)
        + protocol.ping(9)
        + protocol.replay(1, 0b101, tag=5)
        + protocol.replay(60000, 0b1, tag=6)
    )
    for i in range(0, len(host), 5):
        fw.receive(host[i : i + 5], 700)
    keys.state[0] = 3
    fw.tick(701)
    fw.tick(702)
    print("mode", mode, "bad frames", fw.bad_frames, "edges", fw.edges)
    show(out)


class Pin:
    def __init__(self):
        self.v = 0

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


class Spi:
    def write(self, data):
        self.last = bytes(data)

    def readinto(self, buf, write=0):
        for i in range(len(buf)):
            buf[i] = 0xFE


class Mem:
    def __getitem__(self, address):
        return 0xFFFFFF0F


wired = ShiftRegisterMatrix(Spi(), Pin(), Pin(), 24, 16)
print("shift registers", wired.scan()[:3])
wired.close()
print("direct", DirectMatrix([Pin() for _ in range(8)], (8, 9, 10, 11, 12, 13, 14, 15), Mem()).scan())
print("direct, two rows", DirectMatrix([Pin() for _ in range(2)], (4, 9), Mem()).scan())
print("bitmap", sorted(protocol.unpack_bitmap(protocol.pack_bitmap([1, 0, 3], 16), 3, 16)))
print("crc", protocol.crc16(b"123456789") == 0x29B1)
decoder = protocol.Decoder()
frames = decoder.feed(b"\x00\x01\x02junk\x00" + protocol.ping(5) + b"\xff\xff")
print("decoder", frames, decoder.bad)


# LED frames and the control panel: a strip of 4 GRB pixels, the buttons, the buzzer and the light.
class Strip:
    def __init__(self):
        self.sent = []

    def write(self, buf):
        self.sent.append(bytes(buf).hex())

    def busy(self):
        return False


class PanelIO:
    def __init__(self):
        self.down = 0
        self.log = []

    def read(self):
        return self.down

    def tone(self, hz):
        self.log.append("tone " + str(hz))

    def value(self, on):
        self.log.append("light " + ("1" if on else "0"))


out = []
strip = Strip()
io = PanelIO()
fw = Firmware(Keys(), out.append, leds=Leds(strip, 8, 3), panel=Panel(io, io, io))
fw.start(0)
fw.tick(1)
fw.tick(130)
one = bytes(range(1, 13)) + bytes(12)
two = one[:3] + b"\xff\xfe\xfd" + one[6:]
host = (
    protocol.led_setup(4, 3, 300, tag=1)
    + protocol.led_put(1, protocol.FROM_DARK, b"\x00\x00\x0c" + one[:12])
    + protocol.led_show(1, protocol.frame_crc(one[:12]))
    + protocol.led_put(2, 0, b"\x00\x03\x03" + two[3:6])
    + protocol.led_show(2, protocol.frame_crc(two[:12]))
    + protocol.led_put(3, 0, b"\x00\x0b\x05abcde")  # runs off the strip: refused
    + protocol.led_show(3, 0)
    + protocol.led_show(4, 12345)  # nothing put, and not what is shown: refused
    + protocol.led_setup(4, 5, 300, tag=2)
    + protocol.led_query(3)
    + protocol.tone([(440, 10), (0, 5), (880, 10)], tag=4)
    + protocol.status_led(100, 50, tag=5)
)
for i in range(0, len(host), 7):
    fw.receive(host[i : i + 7], 200)
for t in range(200, 260):
    io.down = 1 if 210 <= t < 240 else 0
    fw.tick(t)
fw.tick(600)  # the host silent for 400 ms: the waiting pattern
print("leds refused", fw.leds.refused, "shown", fw.leds.shown_frames)
show(out)
print("strip", strip.sent)
print("panel", io.log)
