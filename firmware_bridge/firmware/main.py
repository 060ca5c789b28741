"""The Pico's entry point, run at boot: read host bytes, scan, sleep out the scan period. Pins below.

Ctrl-C is off while it runs (docs/firmware.md, 'Deploying to the Pico'): ground SAFE_GPIO to keep the REPL.
"""

import sys

import machine

try:
    from time import sleep_us, ticks_diff, ticks_ms, ticks_us
except ImportError:  # CPython: the stand-in machine carries the ticks
    from machine import sleep_us, ticks_diff, ticks_ms, ticks_us

try:  # CPython: the host package
    from firmware_bridge.firmware.keymatrix import DirectMatrix, ShiftRegisterMatrix
    from firmware_bridge.firmware.mcu import Firmware
except ImportError:  # the Pico
    from keymatrix import DirectMatrix, ShiftRegisterMatrix
    from mcu import Firmware

WIRING = "shift-register"  # or "direct"
ROWS = 24
COLS = 16

SPI_ID = 0
SPI_BAUD = 4000000
SCK_GPIO = 18
MOSI_GPIO = 19  # to SER of the first 74HC595
MISO_GPIO = 16  # from QH of the first 74HC165
LATCH_GPIO = 17  # every 595 RCLK
LOAD_GPIO = 20  # every 165 SH/LD

# WIRING = "direct": a small test matrix on the Pico's own pins
DIRECT_ROW_GPIOS = (0, 1, 2, 3, 4, 5, 6, 7)
DIRECT_COL_GPIOS = (8, 9, 10, 11, 12, 13, 14, 15)

SAFE_GPIO = 22  # grounded at power-up: stay at the REPL


def build_matrix():
    if WIRING == "direct":
        rows = [machine.Pin(g, machine.Pin.OUT, value=1) for g in DIRECT_ROW_GPIOS]
        for g in DIRECT_COL_GPIOS:
            machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP)
        return DirectMatrix(rows, DIRECT_COL_GPIOS, machine.mem32)
    spi = machine.SPI(
        SPI_ID,
        baudrate=SPI_BAUD,
        polarity=0,
        phase=0,
        sck=machine.Pin(SCK_GPIO),
        mosi=machine.Pin(MOSI_GPIO),
        miso=machine.Pin(MISO_GPIO),
    )
    latch = machine.Pin(LATCH_GPIO, machine.Pin.OUT, value=0)
    load = machine.Pin(LOAD_GPIO, machine.Pin.OUT, value=1)
    return ShiftRegisterMatrix(spi, latch, load, ROWS, COLS)


class Clock:
    """Ms since boot as a growing int (ticks_ms wraps)."""

    def __init__(self):
        self._last = ticks_ms()
        self.ms = 0

    def now(self):
        t = ticks_ms()
        self.ms += ticks_diff(t, self._last)
        self._last = t
        return self.ms


def run():
    if machine.Pin(SAFE_GPIO, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        print("node buttons: safe boot, firmware not started")
        return
    import select

    import micropython

    micropython.kbd_intr(-1)
    usb_in = sys.stdin.buffer
    usb_out = sys.stdout.buffer
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    clock = Clock()
    firmware = Firmware(build_matrix(), usb_out.write, on_reset=machine.reset)
    firmware.start(clock.now())
    while True:
        began = ticks_us()
        if poll.poll(0):
            data = bytearray()
            while poll.poll(0) and len(data) < 64:
                data += usb_in.read(1)
            firmware.receive(data, clock.now())
        firmware.tick(clock.now())
        rest = firmware.scan_us - ticks_diff(ticks_us(), began)
        if rest > 0:
            sleep_us(rest)


if sys.implementation.name == "micropython":  # CPython only imports it
    run()
