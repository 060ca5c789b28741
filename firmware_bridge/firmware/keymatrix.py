"""Scanning the diode matrix of node buttons, behind one small interface. MicroPython subset.

The switches are wired in a diode matrix: each row wire is driven low in turn while the others stay high,
each column wire has a pull-up, and a closed switch pulls its column low through a diode (anode on the
column, cathode on the row) only while its row is selected, so any number of keys may be down without
ghosts. The scanners read whole ports at once, never pin by pin: a 74HC165 chain with one SPI read, or
the RP2040's SIO ``GPIO_IN`` register with one ``mem32`` load.

The classes take the hardware objects (``machine.SPI``, ``machine.Pin``, ``machine.mem32``) as arguments,
so tests hand them the stand-in ``machine`` of ``firmware_bridge.standin_machine``.
"""

SIO_BASE = 0xD0000000
GPIO_IN = SIO_BASE + 0x004
"""RP2040 SIO register holding the input level of GPIO 0..29, one bit each."""


class Matrix:
    """A key matrix the firmware can scan.

    Must have ``rows`` and ``cols`` and ``scan()``, which returns one int per row with bit ``c`` set when
    key (row, c) is closed (the list may be reused between scans; copy it to keep it). May have
    ``close()`` to release its pins.
    """

    rows = 0
    cols = 0

    def scan(self):
        raise NotImplementedError

    def close(self):
        pass


class ShiftRegisterMatrix(Matrix):
    """Rows driven through a chain of 74HC595, columns read through a chain of 74HC165, on one SPI bus.

    Wiring (SPI mode 0, MSB first): SCK to every 595 SRCLK and every 165 CLK; MOSI to SER of the first
    595; MISO from QH of the first 165; ``latch`` to every 595 RCLK; ``load`` to every 165 SH/LD. The 595
    nearest the Pico drives rows 0-7 (QA = row 0 ... QH = row 7), the next rows 8-15, and so on. The 165
    chain reads big-endian: the last 165 (farthest from the Pico) reads columns 0-7 (A = column 0), the
    one before it columns 8-15. Unused 165 inputs and the last 165's SER are tied high.

    One row: write the row-select bytes (only that row low), pulse ``latch``, pulse ``load`` low to
    sample all columns at once, read the column bytes.
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
    """Rows and columns on the Pico's own GPIO: for small matrices (the RP2040 has 26 free pins).

    ``row_pins`` are ``machine.Pin`` outputs; ``col_gpios`` the GPIO numbers of the columns, which the
    caller has made inputs with pull-ups; ``mem32`` is ``machine.mem32``. Each row is read with one
    load of ``GPIO_IN``; contiguous columns come out with one shift and mask.
    """

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
