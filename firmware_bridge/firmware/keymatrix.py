"""Scanning the diode matrix of node buttons (docs/firmware.md, 'Scanning and wiring'). MicroPython subset.

The scanners take the ``machine`` objects as arguments, so tests hand them ``standin_machine``'s.
"""

SIO_BASE = 0xD0000000
GPIO_IN = SIO_BASE + 0x004
"""RP2040 SIO register holding the input level of GPIO 0..29, one bit each."""


class Matrix:
    """A key matrix. *Must* have ``rows``, ``cols`` and ``scan()``: one int per row, bit ``c`` set when key
    (row, c) is closed (the list may be reused: copy it to keep it). *May* have ``close()``."""

    rows = 0
    cols = 0

    def scan(self):
        raise NotImplementedError

    def close(self):
        pass


class ShiftRegisterMatrix(Matrix):
    """Rows driven through 74HC595s, columns read through 74HC165s, on one SPI bus (mode 0, MSB first).

    Per row: write the select bytes (that row low), pulse ``latch``, pulse ``load`` low, read the columns.
    """

    def __init__(self, spi, latch, load, rows=24, cols=16):
        if not 1 <= rows <= 32 or not 1 <= cols <= 32:
            raise ValueError("a matrix has 1..32 rows and 1..32 columns")
        self.rows = rows
        self.cols = cols
        self._spi = spi
        self._latch = latch
        self._load = load
        out_bytes = (rows + 7) // 8
        all_high = (1 << (8 * out_bytes)) - 1
        self._select = [(all_high ^ (1 << r)).to_bytes(out_bytes, "big") for r in range(rows)]
        self._idle = all_high.to_bytes(out_bytes, "big")
        self._buf = bytearray((cols + 7) // 8)
        self._mask = (1 << cols) - 1
        self._out = [0] * rows
        latch.value(0)
        load.value(1)

    def scan(self):
        spi = self._spi
        latch = self._latch
        load = self._load
        buf = self._buf
        mask = self._mask
        out = self._out
        select = self._select
        for r in range(self.rows):
            spi.write(select[r])
            latch.value(1)
            latch.value(0)
            load.value(0)
            load.value(1)
            spi.readinto(buf, 0xFF)
            v = 0
            for b in buf:
                v = (v << 8) | b
            out[r] = ~v & mask
        return out

    def close(self):
        """Leave every row deselected (high)."""
        self._spi.write(self._idle)
        self._latch.value(1)
        self._latch.value(0)


class DirectMatrix(Matrix):
    """Rows and columns on the Pico's own GPIO, for small matrices: ``row_pins`` are outputs, ``col_gpios``
    inputs the caller pulled up; each row is one ``mem32`` load of ``GPIO_IN``."""

    def __init__(self, row_pins, col_gpios, mem32):
        if not 1 <= len(row_pins) <= 32 or not 1 <= len(col_gpios) <= 32:
            raise ValueError("a matrix has 1..32 rows and 1..32 columns")
        self.rows = len(row_pins)
        self.cols = len(col_gpios)
        self._row_pins = list(row_pins)
        self._cols = tuple(col_gpios)
        self._mem32 = mem32
        first = self._cols[0]
        self._shift = first if self._cols == tuple(range(first, first + self.cols)) else -1
        self._mask = (1 << self.cols) - 1
        self._out = [0] * self.rows
        for pin in self._row_pins:
            pin.value(1)

    def scan(self):
        mem32 = self._mem32
        out = self._out
        shift = self._shift
        mask = self._mask
        cols = self._cols
        r = 0
        for pin in self._row_pins:
            pin.value(0)
            low = ~mem32[GPIO_IN]
            pin.value(1)
            if shift >= 0:
                out[r] = (low >> shift) & mask
            else:
                v = 0
                for c in range(len(cols)):
                    if low & (1 << cols[c]):
                        v |= 1 << c
                out[r] = v
            r += 1
        return out

    def close(self):
        for pin in self._row_pins:
            pin.value(1)
