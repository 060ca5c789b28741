"""Drives the Pico firmware's logic and prints every byte it sends: run by both MicroPython and CPython.

tests/firmware_bridge/test_firmware_micropython.py copies this file next to the firmware files as the Pico
holds them (flat: protocol.py, debounce.py, keymatrix.py, mcu.py, main.py) and runs it under the real
MicroPython (the Unix port) and under CPython without site-packages; the two outputs must be the same, byte
for byte. Only what both interpreters print the same way is printed (no set or dict order).
"""

import protocol
from debounce import DEFERRED, EAGER
from keymatrix import DirectMatrix, ShiftRegisterMatrix
from mcu import Firmware

# main.py starts the scan loop at boot on the Pico; here it is only compiled, to catch syntax MicroPython
# does not have.
with open("main.py") as f:
    compile(f.read(), "main.py", "exec")
print("main.py compiles")


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
