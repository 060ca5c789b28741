"""MicroPython's ``machine`` module for CPython, with a simulated Pico board behind it.

The firmware's files run against it unchanged (tests put it in ``sys.modules["machine"]``). The
:class:`Board` is a diode matrix of switches, wired to GPIO or through 74HC595/74HC165 chains modelled bit
by bit; a column without a pull-up floats and reads low, as a forgotten pull-up would on the bench.
"""

from __future__ import annotations

import time as _time

SIO_GPIO_IN = 0xD0000004


class Board:
    """A simulated Pico with a key matrix; ``board.Pin``/``SPI``/``mem32`` work on it (the module's on
    :data:`BOARD`)."""

    def __init__(self):
        self.keys: set[tuple[int, int]] = set()
        self.outputs: dict[int, int] = {}  # gpio -> level driven
        self.pulls: dict[int, int] = {}  # gpio -> Pin.PULL_UP / PULL_DOWN
        self.direct_rows: tuple[int, ...] = ()
        self.direct_cols: tuple[int, ...] = ()
        self.chain = None
        self.resets = 0
        board = self

        class _Pin(Pin):
            _board = board

        class _SPI(SPI):
            _board = board

        self.Pin = _Pin
        self.SPI = _SPI
        self.mem32 = _Mem32(self)

    def wire_direct(self, row_gpios, col_gpios) -> None:
        """Rows on these GPIO outputs, columns on these GPIO inputs."""
        self.direct_rows = tuple(row_gpios)
        self.direct_cols = tuple(col_gpios)

    def wire_shift_registers(self, rows: int, cols: int, latch_gpio: int, load_gpio: int) -> ShiftChain:
        """Rows on 74HC595s, columns on 74HC165s, on the SPI bus (see keymatrix)."""
        self.chain = ShiftChain(self, rows, cols, latch_gpio, load_gpio)
        return self.chain

    def row_low(self, row: int) -> bool:
        if self.chain is not None:
            return not (self.chain.outputs >> row) & 1
        gpio = self.direct_rows[row] if row < len(self.direct_rows) else None
        return gpio is not None and self.outputs.get(gpio, 1) == 0

    def column_level(self, col: int, pulled_up: bool = True) -> int:
        for r, c in self.keys:
            if c == col and self.row_low(r):
                return 0
        return 1 if pulled_up else 0

    def level(self, gpio: int) -> int:
        if gpio in self.outputs:
            return self.outputs[gpio]
        if gpio in self.direct_cols:
            return self.column_level(self.direct_cols.index(gpio), self.pulls.get(gpio) == Pin.PULL_UP)
        return 1 if self.pulls.get(gpio) == Pin.PULL_UP else 0

    def gpio_in(self) -> int:
        gpios = set(self.outputs) | set(self.pulls) | set(self.direct_cols)
        word = 0
        for g in gpios:
            if g < 30 and self.level(g):
                word |= 1 << g
        return word

    def drive(self, gpio: int, level: int) -> None:
        old = self.outputs.get(gpio)
        self.outputs[gpio] = level
        if self.chain is not None and old != level:
            self.chain.pin_changed(gpio, level)


class ShiftChain:
    """74HC595s driving the rows and 74HC165s reading the columns: the 595s shift on the clock and show
    on a latch's rising edge, the 165s sample while SH/LD is low and shift on the clock."""

    def __init__(self, board: Board, rows: int, cols: int, latch_gpio: int, load_gpio: int):
        self.board = board
        self.rows = rows
        self.cols = cols
        self.latch_gpio = latch_gpio
        self.load_gpio = load_gpio
        self.out_bits = 8 * ((rows + 7) // 8)
        self.in_bits = 8 * ((cols + 7) // 8)
        self.shift595 = 0
        self.outputs = (1 << self.out_bits) - 1  # all rows high until the first latch
        self.shift165 = (1 << self.in_bits) - 1
        self.latches = 0

    def pin_changed(self, gpio: int, level: int) -> None:
        if gpio == self.latch_gpio and level == 1:
            self.outputs = self.shift595
            self.latches += 1
        elif gpio == self.load_gpio and level == 0:
            self._load()

    def _load(self) -> None:
        value = (1 << self.in_bits) - 1
        for c in range(self.cols):
            if not self.board.column_level(c):
                value &= ~(1 << c)
        self.shift165 = value

    def clock(self, mosi_bit: int) -> int:
        """One SCK pulse: the bit on MISO (165 QH) before it; both chains shift."""
        miso = (self.shift165 >> (self.in_bits - 1)) & 1
        if self.board.outputs.get(self.load_gpio, 1) == 0:
            self._load()  # SH/LD low: the 165 loads, does not shift
        else:
            self.shift165 = ((self.shift165 << 1) | 1) & ((1 << self.in_bits) - 1)
        self.shift595 = ((self.shift595 << 1) | mosi_bit) & ((1 << self.out_bits) - 1)
        return miso


class Pin:
    """``machine.Pin``: outputs drive the board, inputs read it."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    _board: Board | None = None

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        self.id = id
        self.board = self._board if self._board is not None else BOARD
        self.mode = None
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None):
        board = self.board
        if mode != -1:
            self.mode = mode
        if pull != -1:
            if pull is None:
                board.pulls.pop(self.id, None)
            else:
                board.pulls[self.id] = pull
        if self.mode == Pin.OUT:
            board.drive(self.id, int(bool(value)) if value is not None else board.outputs.get(self.id, 0))
        elif self.mode == Pin.IN:
            board.outputs.pop(self.id, None)

    def value(self, v=None):
        if v is None:
            return self.board.level(self.id)
        if self.mode == Pin.OUT:
            self.board.drive(self.id, 1 if v else 0)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)

    def __repr__(self):
        return f"Pin(GPIO{self.id})"


class SPI:
    """``machine.SPI``, controller, mode 0, MSB first, clocking the board's chain."""

    MSB = 0
    LSB = 1
    _board: Board | None = None

    def __init__(
        self, id, baudrate=1000000, *, polarity=0, phase=0, bits=8, firstbit=0, sck=None, mosi=None, miso=None
    ):
        if polarity != 0 or phase != 0 or bits != 8 or firstbit != SPI.MSB:
            raise ValueError("the stand-in SPI models mode 0, 8 bits, MSB first")
        self.id = id
        self.baudrate = baudrate
        self.board = self._board if self._board is not None else BOARD
        self.bytes = 0

    def _byte(self, out: int) -> int:
        chain = self.board.chain
        self.bytes += 1
        if chain is None:
            return 0xFF
        got = 0
        for i in range(7, -1, -1):
            got = (got << 1) | chain.clock((out >> i) & 1)
        return got

    def write(self, buf) -> None:
        for b in bytes(buf):
            self._byte(b)

    def read(self, nbytes, write=0x00) -> bytes:
        return bytes(self._byte(write) for _ in range(nbytes))

    def readinto(self, buf, write=0x00) -> None:
        for i in range(len(buf)):
            buf[i] = self._byte(write)

    def write_readinto(self, write_buf, read_buf) -> None:
        for i, b in enumerate(bytes(write_buf)):
            read_buf[i] = self._byte(b)


class _Mem32:
    def __init__(self, board: Board):
        self.board = board

    def __getitem__(self, address: int) -> int:
        if address == SIO_GPIO_IN:
            return self.board.gpio_in()
        raise ValueError(
            f"the stand-in mem32 reads only SIO GPIO_IN (0x{SIO_GPIO_IN:08x}), not 0x{address:08x}"
        )


class _DefaultMem32(_Mem32):
    def __init__(self):
        pass

    @property
    def board(self):  # follows BOARD when a test swaps it
        return BOARD


BOARD = Board()
mem32 = _DefaultMem32()


def new_board() -> Board:
    """A fresh default board, for a test."""
    global BOARD
    BOARD = Board()
    return BOARD


def reset() -> None:
    BOARD.resets += 1


def freq(hz=None):
    return 125_000_000 if hz is None else None


def unique_id() -> bytes:
    return b"\xe6\x60\x58\x38\x83\x00\x00\x00"


_EPOCH = _time.monotonic_ns()
_TICKS_PERIOD = 1 << 30


def ticks_ms() -> int:
    return ((_time.monotonic_ns() - _EPOCH) // 1_000_000) % _TICKS_PERIOD


def ticks_us() -> int:
    return ((_time.monotonic_ns() - _EPOCH) // 1_000) % _TICKS_PERIOD


def ticks_diff(a: int, b: int) -> int:
    """MicroPython's signed difference of two wrapping tick values."""
    return ((a - b + _TICKS_PERIOD // 2) % _TICKS_PERIOD) - _TICKS_PERIOD // 2


def sleep_us(us: int) -> None:
    _time.sleep(us / 1e6)
