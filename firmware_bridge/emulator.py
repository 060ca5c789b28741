"""The emulated Pico: the firmware's own logic on a thread, behind a pty, against a simulated key matrix.

The host opens ``emulator.path`` as it opens ``/dev/ttyACM0``; the helpers press keys, pull the cable and
spoil the line (docs/firmware.md, 'The emulator').
"""

from __future__ import annotations

import errno
import heapq
import itertools
import os
import random
import select
import tempfile
import threading
import time
import tty

from firmware_bridge.firmware.debounce import DEFERRED
from firmware_bridge.firmware.keymatrix import Matrix, ShiftRegisterMatrix
from firmware_bridge.firmware.leds import Leds
from firmware_bridge.firmware.mcu import DEBOUNCE_MS, HEARTBEAT_MS, SCAN_US, Firmware
from firmware_bridge.firmware.panel import Panel

IDLE_WAIT = 0.25  # s; a press or a command wakes the loop at once
PANEL_BUTTONS = ("roll", "ok", "undo")  # their bits, as the firmware's Panel reads them


class _Switches(Matrix):
    """A simulated matrix: its size, a lock, and ``set`` refusing a key off it."""

    def __init__(self, rows: int, cols: int):
        self.rows = rows
        self.cols = cols
        self._lock = threading.Lock()

    def check(self, row: int, col: int) -> None:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"key ({row}, {col}) is outside the {self.rows}x{self.cols} matrix")

    def set(self, row: int, col: int, closed: bool) -> None:
        self.check(row, col)
        with self._lock:
            self._set(row, col, closed)

    def _set(self, row: int, col: int, closed: bool) -> None:  # called under the lock
        raise NotImplementedError


class SwitchMatrix(_Switches):
    """Key switches as row bitmasks: what a perfect diode matrix reads. Thread-safe."""

    def __init__(self, rows: int = 24, cols: int = 16):
        super().__init__(rows, cols)
        self._rows = [0] * rows

    def _set(self, row: int, col: int, closed: bool) -> None:
        if closed:
            self._rows[row] |= 1 << col
        else:
            self._rows[row] &= ~(1 << col)

    def closed(self) -> set[tuple[int, int]]:
        with self._lock:
            return {(r, c) for r in range(self.rows) for c in range(self.cols) if self._rows[r] >> c & 1}

    def scan(self) -> list[int]:
        with self._lock:
            return list(self._rows)


class WiredMatrix(_Switches):
    """The firmware's ``ShiftRegisterMatrix`` on ``standin_machine``'s simulated chips."""

    def __init__(self, rows: int = 24, cols: int = 16):
        from firmware_bridge import standin_machine

        super().__init__(rows, cols)
        self.board = standin_machine.Board()
        self.board.wire_shift_registers(rows, cols, latch_gpio=17, load_gpio=20)
        b = self.board
        spi = b.SPI(0, sck=b.Pin(18), mosi=b.Pin(19), miso=b.Pin(16))
        self._scanner = ShiftRegisterMatrix(
            spi, b.Pin(17, b.Pin.OUT, value=0), b.Pin(20, b.Pin.OUT, value=1), rows, cols
        )

    def _set(self, row: int, col: int, closed: bool) -> None:
        (self.board.keys.add if closed else self.board.keys.discard)((row, col))

    def closed(self) -> set[tuple[int, int]]:
        with self._lock:
            return set(self.board.keys)

    def scan(self) -> list[int]:
        with self._lock:
            return list(self._scanner.scan())


class MemoryStrip:
    """The emulated Pico's LED strip: the bytes last sent to it (``shown``), busy as long as WS2812 takes
    to clock them out (1.25 us a bit, then the reset), as the Pico's PIO is."""

    def __init__(self):
        self.shown = b""
        self.writes = 0
        self.on_write = None  # hears each frame's bytes as the strip starts sending them (benchmarks)
        self._done = 0.0

    def write(self, buf) -> None:
        self.shown = bytes(buf)
        self.writes += 1
        self._done = time.monotonic() + self.takes(len(buf))
        if self.on_write is not None:
            self.on_write(self.shown)

    @staticmethod
    def takes(nbytes: int) -> float:
        """Seconds a frame of ``nbytes`` holds the line."""
        return nbytes * 8 * 1.25e-6 + 300e-6

    def busy(self) -> bool:
        return time.monotonic() < self._done


class PanelSwitches:
    """The emulated control panel: buttons down (bits), the buzzer's pitches in turn, the status LED."""

    def __init__(self):
        self.down = 0
        self.tones: list[int] = []
        self.lit = False

    def read(self) -> int:
        return self.down

    def tone(self, hz: int) -> None:
        self.tones.append(hz)

    def value(self, on) -> None:
        self.lit = bool(on)


class Emulator:
    """A Pico running the firmware on a thread behind a pty; helpers return at once, from any thread."""

    def __init__(
        self,
        rows: int = 24,
        cols: int = 16,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        mode: int = DEFERRED,
        scan_us: int = SCAN_US,
        heartbeat_ms: int = HEARTBEAT_MS,
        wiring: str = "model",
        seed: int | None = None,
        start: bool = True,
    ):
        if wiring not in ("model", "shift-register"):
            raise ValueError("wiring is 'model' or 'shift-register'")
        self.matrix = SwitchMatrix(rows, cols) if wiring == "model" else WiredMatrix(rows, cols)
        self.rows = rows
        self.cols = cols
        self._settings = dict(debounce_ms=debounce_ms, mode=mode, scan_us=scan_us, heartbeat_ms=heartbeat_ms)
        self._dir = tempfile.mkdtemp(prefix="gryb-pico-")
        self.path = os.path.join(self._dir, "ttyACM0")
        self.device: str | None = None
        self.firmware: Firmware | None = None
        self.boots = 0
        self.written: list[bytes] | None = None  # a list records every frame written
        self.strip = MemoryStrip()  # its LEDs keep their last frame through an unplug, as on the board
        self.panel = PanelSwitches()
        self.on_frame = None  # hears each frame just before it is written (benchmarks)
        self._rng = random.Random(seed)
        self._master: int | None = None
        self._slave: int | None = None
        self._drop = 0
        self._hung_until = 0.0
        self._corrupt = 0
        self._spoil = 0.0
        self._from_host = b""  # a host frame split across reads, while spoiling
        self._plan: list[tuple[float, int, object]] = []  # (monotonic time, order, action)
        self._order = itertools.count()
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._scanned = 0  # the MCU time of the last scan
        self._thread = threading.Thread(target=self._run, name="emulated pico", daemon=True)
        self._closed = False
        if start:
            self.start()

    def start(self) -> None:
        self.replug()
        self._thread.start()

    def close(self) -> None:
        """Stop the thread, close the pty, remove the symlink; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        with self._lock:
            self._unplug_now()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        try:
            os.rmdir(self._dir)
        except OSError:
            pass

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def ms(self) -> int:
        """The emulated MCU's clock: ms since the emulator was made."""
        return int((time.monotonic() - self._t0) * 1000)

    def press(self, row: int, col: int) -> None:
        self.matrix.set(row, col, True)
        self._wake()

    def release(self, row: int, col: int) -> None:
        self.matrix.set(row, col, False)
        self._wake()

    def tap(self, row: int, col: int, hold: float = 0.03, after: float = 0.0) -> None:
        """Close the switch ``after`` seconds from now and open it ``hold`` seconds later, both planned
        (see :meth:`_run`)."""
        self.matrix.check(row, col)
        self._schedule(after, lambda: self.matrix.set(row, col, True))
        self._schedule(after + hold, lambda: self.matrix.set(row, col, False))

    def bounce(self, row: int, col: int, closed: bool, flips: int = 6, every: float = 0.0004) -> None:
        """Chatter the contact ``flips`` times, then settle ``closed``."""
        self.matrix.check(row, col)
        for i in range(flips):
            level = (i % 2 == 0) == closed
            self._schedule(i * every, lambda level=level: self.matrix.set(row, col, level))
        self._schedule(flips * every, lambda: self.matrix.set(row, col, closed))

    def closed(self) -> set[tuple[int, int]]:
        return self.matrix.closed()

    def press_panel(self, name: str) -> None:
        """Press a control-panel button: "roll", "ok" or "undo"."""
        self._panel(self._bit(name), True)
        self._wake()

    def release_panel(self, name: str) -> None:
        self._panel(self._bit(name), False)
        self._wake()

    def tap_panel(self, name: str, hold: float = 0.06) -> None:
        bit = self._bit(name)
        self._schedule(0.0, lambda: self._panel(bit, True))
        self._schedule(hold, lambda: self._panel(bit, False))

    @staticmethod
    def _bit(name: str) -> int:
        if name not in PANEL_BUTTONS:
            raise ValueError(f"no panel button {name!r}: one of {', '.join(PANEL_BUTTONS)}")
        return 1 << PANEL_BUTTONS.index(name)

    def _panel(self, bit: int, down: bool) -> None:
        with self._lock:
            self.panel.down = self.panel.down | bit if down else self.panel.down & ~bit

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the USB cable (and the power); plug it back after ``seconds`` if given."""
        with self._lock:
            self._unplug_now()
        if seconds is not None:
            self._schedule(seconds, self.replug)

    def replug(self) -> None:
        """Plug the cable in: a fresh pty behind ``path``; the firmware boots."""
        with self._lock:
            if self._master is not None or self._closed:
                return
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line discipline
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.device = os.ttyname(slave)
            tmp = self.path + ".new"
            try:
                os.remove(tmp)
            except FileNotFoundError:
                pass
            os.symlink(self.device, tmp)
            os.replace(tmp, self.path)
            self.boots += 1
            self.firmware = Firmware(
                self.matrix,
                self._write,
                on_reset=self._reset_requested,
                leds=Leds(self.strip, 1024, 3),
                panel=Panel(self.panel, self.panel, self.panel),
                **self._settings,
            )
            self.firmware.start(self.ms())
        self._wake()

    def noise(self, nbytes: int = 64, data: bytes | None = None) -> None:
        """Put garbage (random bytes, or ``data``) on the line."""
        junk = data if data is not None else bytes(self._rng.randrange(256) for _ in range(nbytes))
        with self._lock:
            self._raw_write(junk)

    def hang(self, seconds: float) -> None:
        """The firmware stops for ``seconds``: the line stays open, silent and deaf."""
        with self._lock:
            self._hung_until = time.monotonic() + seconds
        self._schedule(seconds, lambda: None)

    def drop_frames(self, n: int = 1) -> None:
        """The next ``n`` frames are lost."""
        with self._lock:
            self._drop += n

    def corrupt_frames(self, n: int = 1) -> None:
        """The next ``n`` frames get one bit flipped."""
        with self._lock:
            self._corrupt += n

    def spoil(self, rate: float) -> None:
        """From now on each frame either way is lost, truncated (its delimiter with it, so the next frame
        is spoilt too) or sent twice, each with probability ``rate``; 0 mends the line."""
        if not 0.0 <= rate <= 1 / 3:
            raise ValueError("rate is from 0 to 1/3: a third each of lost, truncated and duplicated")
        with self._lock:
            self._spoil = rate
            self._from_host = b""

    def _spoilt(self, frame: bytes) -> bytes:
        roll = self._rng.random()
        if roll < self._spoil:
            return b""
        if roll < 2 * self._spoil:
            return frame[: self._rng.randrange(1, len(frame))]
        if roll < 3 * self._spoil:
            return frame + frame
        return frame

    def _spoil_from_host(self, data: bytes) -> bytes:
        frames = (self._from_host + data).split(b"\x00")
        self._from_host = frames.pop()
        return b"".join(self._spoilt(frame + b"\x00") for frame in frames)

    def _reset_requested(self) -> None:
        # machine.reset() drops off USB and comes back
        self._schedule(0.0, lambda: self.unplug(0.05))

    def _unplug_now(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.device = None
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass

    def _next_planned(self):
        """The earliest due (time, action), taken off the plan; None if none."""
        with self._lock:
            if self._plan and self._plan[0][0] <= time.monotonic():
                when, _, action = heapq.heappop(self._plan)
                return when, action
        return None

    def _scan_at(self, when: float) -> None:
        """One firmware scan at the MCU time of ``when`` (monotonic)."""
        with self._lock:
            if (
                self.firmware is not None
                and self._master is not None
                and time.monotonic() >= self._hung_until
            ):
                self._scanned = max(self._scanned, int((when - self._t0) * 1000))  # MCU time never runs back
                self.firmware.tick(self._scanned)

    def _schedule(self, delay: float, action) -> None:
        with self._lock:
            heapq.heappush(self._plan, (time.monotonic() + delay, next(self._order), action))
        self._wake()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except (BlockingIOError, OSError):
            pass

    def _write(self, frame: bytes) -> None:
        """The firmware's USB write (under the lock, on the emulator thread)."""
        if self.written is not None:
            self.written.append(frame)
        if self._drop:
            self._drop -= 1
            return
        if self._corrupt:
            self._corrupt -= 1
            spoilt = bytearray(frame)
            i = self._rng.randrange(len(spoilt) - 1)
            spoilt[i] ^= 1 << self._rng.randrange(8)
            frame = bytes(spoilt)
        if self.on_frame is not None:
            self.on_frame(frame)  # before the host can see it
        self._raw_write(self._spoilt(frame) if self._spoil else frame)

    def _raw_write(self, data: bytes) -> None:
        """Lost, as on USB, with the cable out or the host not reading."""
        if self._master is None:
            return
        try:
            os.write(self._master, data)
        except BlockingIOError:
            pass
        except OSError as err:
            if err.errno not in (errno.EIO, errno.EBADF):
                raise

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                firmware = self.firmware
                master = self._master
                wait = IDLE_WAIT
                if firmware is not None and master is not None:
                    due = firmware.next_due(self.ms())
                    wait = firmware.scan_us / 1e6 if due == 0 else min(due / 1000.0, IDLE_WAIT)
                if self._plan:
                    wait = max(0.0, min(wait, self._plan[0][0] - time.monotonic()))
            try:
                ready = select.select(
                    [self._wake_r] + ([master] if master is not None else []), [], [], wait
                )[0]
            except OSError as err:  # the cable pulled between taking master and select
                if err.errno != errno.EBADF:
                    raise
                continue
            if self._wake_r in ready:
                try:
                    while os.read(self._wake_r, 4096):
                        pass
                except BlockingIOError:
                    pass
            with self._lock:
                hung = time.monotonic() < self._hung_until
                if master is not None and master in ready and self._master == master:
                    try:
                        data = os.read(master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data and self._spoil:
                        data = self._spoil_from_host(data)
                    if data and self.firmware is not None and not hung:
                        self.firmware.receive(data, self.ms())
            # scans at each planned change's own time, before and after it, however late this thread
            # woke (docs/firmware.md, 'The emulator')
            while (due := self._next_planned()) is not None:
                when, action = due
                self._scan_at(when)
                action()
                self._scan_at(when)
            self._scan_at(time.monotonic())
