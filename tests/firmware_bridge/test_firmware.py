"""The Pico firmware's own files under CPython: debounce on a bouncing key with a fake clock, the scanners
against simulated 74HC595/74HC165 chips and GPIO (stand-in ``machine``), and the firmware's messages."""

from __future__ import annotations

import importlib
import random
import sys

import pytest

from firmware_bridge import protocol as p
from firmware_bridge import standin_machine
from firmware_bridge.emulator import SwitchMatrix
from firmware_bridge.firmware.debounce import DEFERRED, EAGER, Debouncer
from firmware_bridge.firmware.keymatrix import DirectMatrix, ShiftRegisterMatrix
from firmware_bridge.firmware.mcu import FW_VERSION, HISTORY, Firmware

# -- debounce -------------------------------------------------------------------------------------------

# A press that chatters for 3 ms (contact at 0, 1 and 3 ms, open at 2), then holds until 40 ms, and a
# release that chatters too (open at 40, closed at 41, open from 42); one scan per ms.
BOUNCY_PRESS = {0: 1, 1: 1, 2: 0, 3: 1, 40: 0, 41: 1, 42: 0}


def run(debouncer: Debouncer, contact: dict[int, int], until: int) -> list[tuple]:
    events = []
    level = 0
    for now in range(until):
        level = contact.get(now, level)
        events += debouncer.update([level] + [0] * (debouncer.rows - 1), now)
    return events


def test_deferred_reports_once_after_the_contact_settles_stamped_when_it_first_moved():
    events = run(Debouncer(2, 1, ms=5, mode=DEFERRED), BOUNCY_PRESS, 60)
    assert events == [(0, 0, True, 0), (0, 0, False, 40)]


def test_deferred_reports_late_by_the_debounce_time():
    debouncer = Debouncer(1, 1, ms=5, mode=DEFERRED)
    emitted = []
    level = 0
    for now in range(60):
        level = BOUNCY_PRESS.get(now, level)
        for event in debouncer.update([level], now):
            emitted.append((now, event[2]))
    assert emitted == [(3 + 5, True), (42 + 5, False)]  # 5 ms after the last bounce


def test_eager_reports_at_the_first_touch_and_swallows_the_bounces():
    debouncer = Debouncer(1, 1, ms=5, mode=EAGER)
    emitted = []
    level = 0
    for now in range(60):
        level = BOUNCY_PRESS.get(now, level)
        emitted += [(now, e[2], e[3]) for e in debouncer.update([level], now)]
    assert emitted == [(0, True, 0), (40, False, 40)]


def test_a_glitch_shorter_than_the_debounce_time_is_nothing_when_deferred_and_a_tap_when_eager():
    glitch = {10: 1, 12: 0}  # 2 ms of noise
    assert run(Debouncer(1, 1, 5, DEFERRED), glitch, 40) == []
    assert run(Debouncer(1, 1, 5, EAGER), glitch, 40) == [(0, 0, True, 10), (0, 0, False, 15)]


@pytest.mark.parametrize("mode", [EAGER, DEFERRED])
def test_many_keys_bouncing_at_once_end_in_the_right_state(mode):
    rng = random.Random(mode)
    debouncer = Debouncer(24, 16, 5, mode)
    target = [rng.getrandbits(16) for _ in range(24)]
    for now in range(10):  # 10 ms of random chatter on every key
        debouncer.update([rng.getrandbits(16) for _ in range(24)], now)
    state = [0] * 24
    for now in range(10, 40):
        for r, c, pressed, _ in debouncer.update(target, now):
            state[r] = state[r] | (1 << c) if pressed else state[r] & ~(1 << c)
    assert debouncer.state == target
    assert not debouncer.busy


def test_configure_restarts_a_change_under_the_new_rule():
    debouncer = Debouncer(1, 1, 5, DEFERRED)
    debouncer.update([1], 0)
    debouncer.configure(0, EAGER)
    assert debouncer.update([1], 1) == [(0, 0, True, 1)]


# -- the scanners against simulated hardware ----------------------------------------------------------------


def shift_register_matrix(rows=24, cols=16):
    board = standin_machine.Board()
    board.wire_shift_registers(rows, cols, latch_gpio=17, load_gpio=20)
    spi = board.SPI(0, sck=board.Pin(18), mosi=board.Pin(19), miso=board.Pin(16))
    matrix = ShiftRegisterMatrix(
        spi, board.Pin(17, board.Pin.OUT, value=0), board.Pin(20, board.Pin.OUT, value=1), rows, cols
    )
    return board, matrix


def as_keys(rows: list[int]) -> set[tuple[int, int]]:
    return {(r, c) for r, bits in enumerate(rows) for c in range(32) if bits >> c & 1}


@pytest.mark.parametrize("rows, cols", [(24, 16), (12, 10)])
def test_shift_register_matrix_reads_any_set_of_keys_without_ghosts(rows, cols):
    board, matrix = shift_register_matrix(rows, cols)
    rng = random.Random(rows)
    for _ in range(15):
        board.keys = {(rng.randrange(rows), rng.randrange(cols)) for _ in range(rng.randrange(12))}
        assert as_keys(matrix.scan()) == board.keys
    # Three corners of a rectangle down: a matrix without diodes would see the fourth as well.
    board.keys = {(0, 0), (0, 5), (7, 0)}
    assert as_keys(matrix.scan()) == {(0, 0), (0, 5), (7, 0)}


def test_shift_register_matrix_reads_each_row_with_one_spi_read():
    board, matrix = shift_register_matrix()
    spi_bytes = matrix._spi.bytes
    latches = board.chain.latches
    matrix.scan()
    assert matrix._spi.bytes - spi_bytes == 24 * (3 + 2)  # 3 row-select bytes out, 2 column bytes in
    assert board.chain.latches - latches == 24
    matrix.close()
    assert board.chain.outputs == 0xFFFFFF  # every row left deselected


@pytest.mark.parametrize("cols", [list(range(8, 16)), [15, 8, 9, 10, 26, 12, 13, 14]])
def test_direct_matrix_reads_the_gpio_port(cols):
    board = standin_machine.Board()
    row_pins = [board.Pin(g, board.Pin.OUT, value=1) for g in range(8)]
    for g in cols:
        board.Pin(g, board.Pin.IN, board.Pin.PULL_UP)
    board.wire_direct(range(8), cols)
    matrix = DirectMatrix(row_pins, cols, board.mem32)
    assert matrix.scan() == [0] * 8
    board.keys = {(1, 2), (7, 7), (7, 0), (3, 5)}
    assert as_keys(matrix.scan()) == board.keys
    assert all(board.outputs[g] == 1 for g in range(8))  # every row back high after the scan


def test_main_builds_the_shift_register_scanner_on_the_stand_in_machine(monkeypatch):
    monkeypatch.setitem(sys.modules, "machine", standin_machine)
    board = standin_machine.new_board()
    main = importlib.import_module("firmware_bridge.firmware.main")
    board.wire_shift_registers(main.ROWS, main.COLS, main.LATCH_GPIO, main.LOAD_GPIO)
    matrix = main.build_matrix()
    board.keys = {(23, 15), (0, 0), (11, 7)}
    assert as_keys(matrix.scan()) == board.keys
    monkeypatch.setattr(main, "WIRING", "direct")
    board = standin_machine.new_board()
    board.wire_direct(main.DIRECT_ROW_GPIOS, main.DIRECT_COL_GPIOS)
    matrix = main.build_matrix()
    board.keys = {(2, 3)}
    assert as_keys(matrix.scan()) == {(2, 3)}
    clock = main.Clock()
    first = clock.now()
    standin_machine.sleep_us(3000)
    assert 2 <= clock.now() - first <= 100


# -- the firmware's messages --------------------------------------------------------------------------------


class Wire:
    def __init__(self):
        self.decoder = p.Decoder()
        self.messages: list[p.Message] = []

    def write(self, data: bytes) -> None:
        self.messages += self.decoder.feed(data)

    def take(self) -> list[p.Message]:
        out, self.messages = self.messages, []
        return out


def firmware(**options):
    matrix = SwitchMatrix(24, 16)
    wire = Wire()
    resets = []
    fw = Firmware(matrix, wire.write, on_reset=lambda: resets.append(1), **options)
    return fw, matrix, wire, resets


def test_hello_at_start_then_numbered_edges_and_heartbeats_carrying_the_last_number():
    fw, matrix, wire, _ = firmware(debounce_ms=5, heartbeat_ms=100)
    fw.start(0)
    [hello] = wire.take()
    assert (
        hello.kind,
        (hello.fw_major, hello.fw_minor, hello.fw_patch),
        hello.rows,
        hello.cols,
        hello.seq,
    ) == (p.HELLO, FW_VERSION, 24, 16, 0)
    matrix.set(3, 4, True)
    for now in range(1, 10):
        fw.tick(now)
    matrix.set(3, 4, False)
    matrix.set(5, 6, True)
    for now in range(10, 120):
        fw.tick(now)
    edges = [m for m in wire.take() if m.kind == p.EDGE]
    assert [(e.seq, e.row, e.col, e.pressed, e.ms) for e in edges] == [
        (1, 3, 4, 1, 1),
        (2, 3, 4, 0, 10),
        (3, 5, 6, 1, 10),
    ]  # one scan's edges go out in key order
    fw.tick(250)
    [beat] = wire.take()
    assert (beat.kind, beat.seq, beat.ms) == (p.HEARTBEAT, 3, 250)


def test_sequence_numbers_wrap_at_16_bits():
    fw, matrix, wire, _ = firmware(debounce_ms=0, heartbeat_ms=10000)
    fw.seq = 0xFFFF
    matrix.set(0, 0, True)
    fw.tick(1)
    assert [m.seq for m in wire.take() if m.kind == p.EDGE] == [0]


def test_commands_get_their_answers():
    fw, matrix, wire, resets = firmware(heartbeat_ms=10000)
    matrix.set(2, 2, True)
    for now in range(10):
        fw.tick(now)
    wire.take()
    fw.receive(p.ping(7) + p.get_snapshot(8) + p.get_hello(9) + p.reset(10), 20)
    ack, snap, hello, reset_ack = wire.take()
    assert (ack.kind, ack.tag, ack.command) == (p.ACK, 7, p.PING)
    assert p.unpack_bitmap(snap.bitmap, snap.rows, snap.cols) == {(2, 2)} and snap.seq == 1
    assert hello.kind == p.HELLO and hello.seq == 1
    assert (reset_ack.kind, reset_ack.command) == (p.ACK, p.RESET) and resets == [1]


def test_configure_changes_debounce_scan_and_heartbeat():
    fw, _, wire, _ = firmware()
    fw.receive(p.configure(12, EAGER, 2000, 250, tag=3), 0)
    [ack] = wire.take()
    assert (ack.kind, ack.tag) == (p.ACK, 3)
    assert (fw.debouncer.ms, fw.debouncer.mode, fw.scan_us, fw.heartbeat_ms) == (12, EAGER, 2000, 250)
    fw.receive(p.configure(12, DEFERRED, 2000, 0), 0)  # heartbeat 0 keeps the current one
    assert fw.heartbeat_ms == 250 and fw.debouncer.mode == DEFERRED


@pytest.mark.parametrize(
    "args, problem",
    [
        ((200, DEFERRED, 1000, 0), b"debounce"),
        ((5, 7, 1000, 0), b"mode"),
        ((5, DEFERRED, 10, 0), b"scan"),
        ((5, DEFERRED, 1000, 20), b"heartbeat"),
    ],
)
def test_a_bad_configure_is_refused_and_changes_nothing(args, problem):
    fw, _, wire, _ = firmware()
    before = (fw.debouncer.ms, fw.debouncer.mode, fw.scan_us, fw.heartbeat_ms)
    fw.receive(p.configure(*args, tag=4), 0)
    [err] = wire.take()
    assert (err.kind, err.tag, err.code) == (p.ERROR, 4, p.E_BAD_VALUE) and problem in err.text
    assert (fw.debouncer.ms, fw.debouncer.mode, fw.scan_us, fw.heartbeat_ms) == before


def test_the_firmware_shrugs_off_garbage_and_refuses_what_is_not_a_command():
    fw, _, wire, _ = firmware()
    fw.receive(bytes(range(1, 200)) + b"\x00" + p.heartbeat(1, 2, 3) + p.ping(1), 0)
    err, ack = wire.take()
    assert (err.kind, err.code, err.command) == (p.ERROR, p.E_UNKNOWN, p.HEARTBEAT)
    assert ack.kind == p.ACK
    assert fw.bad_frames >= 1


def test_replay_sends_the_named_edges_again_then_a_heartbeat():
    fw, matrix, wire, _ = firmware(debounce_ms=0, heartbeat_ms=10000)
    for col in range(4):  # edges 1..8: press and release of keys (0, 0..3)
        matrix.set(0, col, True)
        fw.tick(2 * col)
        matrix.set(0, col, False)
        fw.tick(2 * col + 1)
    wire.take()
    fw.receive(p.replay(3, 0b1011), 20)  # 3, 4 and 6
    *again, beat = wire.take()
    assert [(m.kind, m.seq, m.ms, m.row, m.col, m.pressed) for m in again] == [
        (p.RESENT, 3, 2, 0, 1, 1),
        (p.RESENT, 4, 3, 0, 1, 0),
        (p.RESENT, 6, 5, 0, 2, 0),
    ]
    assert (beat.kind, beat.seq, beat.ms) == (p.HEARTBEAT, 8, 20)
    fw.receive(p.replay(9, 0b1), 21)  # nothing sent after 8 yet
    [beat] = wire.take()
    assert beat.kind == p.HEARTBEAT


def test_replay_of_edges_no_longer_kept_is_answered_with_a_snapshot():
    fw, matrix, wire, _ = firmware(debounce_ms=0, heartbeat_ms=100000)
    for now in range(HISTORY + 2):  # one key toggled at every scan: more edges than are kept
        matrix.set(1, 1, now % 2 == 0)
        fw.tick(now)
    wire.take()
    fw.receive(p.replay(1, 0b1), 5000)
    [snap] = wire.take()
    assert snap.kind == p.SNAPSHOT and snap.seq == HISTORY + 2
    fw.receive(p.replay(3, 0b1), 5001)  # still kept
    assert [m.kind for m in wire.take()] == [p.RESENT, p.HEARTBEAT]


def test_replay_follows_the_numbers_across_their_wrap():
    fw, matrix, wire, _ = firmware(debounce_ms=0, heartbeat_ms=100000)
    fw.seq = 0xFFFE
    for now in range(4):  # edges 0xFFFF, 0, 1, 2
        matrix.set(2, 2, now % 2 == 0)
        fw.tick(now)
    wire.take()
    fw.receive(p.replay(0xFFFF, 0b1111), 10)
    assert [m.seq for m in wire.take() if m.kind == p.RESENT] == [0xFFFF, 0, 1, 2]
