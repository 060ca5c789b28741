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
    from firmware_bridge.firmware.leds import Leds
    from firmware_bridge.firmware.mcu import Firmware
    from firmware_bridge.firmware.panel import Panel, PinButtons, PwmBuzzer
except ImportError:  # the Pico
    from keymatrix import DirectMatrix, ShiftRegisterMatrix
    from leds import Leds
    from mcu import Firmware
    from panel import Panel, PinButtons, PwmBuzzer

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
READ_BYTES = 256  # host bytes read between two scans, at most,
READ_US = 600  # and for at most this long

# The one-cable build (docs/hardware.md): the LEDs and the control panel on the Pico too
LED_GPIO = 21  # through the 74AHCT125 to the first panel's DIN
LED_PIXELS = 1024  # 0: no LEDs on this Pico; the host's LED_SETUP gives the layout's own count
LED_BPP = 3  # 3 WS2812B (GRB), 4 SK6812 RGBW
PANEL = True
PANEL_GPIOS = (26, 27, 28)  # ROLL, OK, UNDO: each a button to GND
BUZZER_GPIO = 14  # passive piezo to GND (PWM 7A)
STATUS_LED = "LED"  # the Pico's own LED; a GPIO number for one on the panel


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


def build_leds():
    if not LED_PIXELS:
        return None
    try:
        from firmware_bridge.firmware.ledstrip import PioStrip
    except ImportError:
        from ledstrip import PioStrip
    return Leds(PioStrip(LED_GPIO), LED_PIXELS, LED_BPP)


def build_panel():
    if not PANEL:
        return None
    pins = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP) for g in PANEL_GPIOS]
    buzzer = PwmBuzzer(machine.PWM(machine.Pin(BUZZER_GPIO)))
    return Panel(PinButtons(pins), buzzer, machine.Pin(STATUS_LED, machine.Pin.OUT, value=0))


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
    firmware = Firmware(
        build_matrix(), usb_out.write, on_reset=machine.reset, leds=build_leds(), panel=build_panel()
    )
    firmware.start(clock.now())
    while True:
        began = ticks_us()
        if poll.poll(0):
            data = bytearray()
            # a slice of the host's bytes, then a scan: a press never waits behind an LED frame
            while poll.poll(0) and len(data) < READ_BYTES and ticks_diff(ticks_us(), began) < READ_US:
                data += usb_in.read(1)
            firmware.receive(data, clock.now())
        firmware.tick(clock.now())
        rest = firmware.scan_us - ticks_diff(ticks_us(), began)
        if rest > 0:
            sleep_us(rest)


if sys.implementation.name == "micropython":  # CPython only imports it
    run()
