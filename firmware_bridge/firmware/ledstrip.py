"""The Pico's LED strip: WS2812 timing from a PIO state machine fed by DMA, so a frame (31 ms for 1024
LEDs) goes out while the firmware scans on. RP2040 only (docs/firmware.md, 'LED frames').
"""

from time import ticks_diff, ticks_us

import rp2
from machine import Pin

RESET_US = 300  # the line held low between frames: WS2812B V5 needs 280 us


def _ws2812():
    # 8 MHz: a bit is 10 cycles (1.25 us), high for 2 (a 0) or 7 (a 1); MicroPython's rp2 WS2812 example
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()


# a byte at a time: DMA writes it to all four lanes of the FIFO word, the top one shifts out first
_PROGRAM = rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True, pull_thresh=8
)(_ws2812)


class PioStrip:
    """``write(buf)`` starts sending ``buf`` (untouched until not ``busy()``)."""

    def __init__(self, gpio, state_machine=0):
        self._sm = rp2.StateMachine(state_machine, _PROGRAM, freq=8000000, sideset_base=Pin(gpio))
        self._sm.active(1)
        self._dma = rp2.DMA()
        self._ctrl = self._dma.pack_ctrl(size=0, inc_write=False, treq_sel=state_machine)
        self._started = ticks_us()
        self._takes = 0

    def write(self, buf):
        self._started = ticks_us()
        self._takes = 10 * len(buf) + RESET_US  # 8 bits of 1.25 us a byte, then the reset
        self._dma.config(read=buf, write=self._sm, count=len(buf), ctrl=self._ctrl, trigger=True)

    def busy(self):
        return self._dma.active() or ticks_diff(ticks_us(), self._started) < self._takes
