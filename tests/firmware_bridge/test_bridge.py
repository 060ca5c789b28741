"""The host side of the serial link: its logic on a spoilt byte stream (no pty, fake clock), then the real
client on pyserial against the emulated Pico over a pty: unplugs, noise, a hung MCU, loop://."""

from __future__ import annotations

import logging
import os
import random
import threading
import time
import tty
from collections import Counter

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.client import BridgeClient
from firmware_bridge.emulator import Emulator, SwitchMatrix
from firmware_bridge.firmware.debounce import EAGER
from firmware_bridge.firmware.mcu import Firmware
from firmware_bridge.link import DOWN, UP, HostLink, seq_ahead


def wait_for(condition, timeout=3.0, step=0.005):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(step)
    return condition()


# -- HostLink on hand-made frames ----------------------------------------------------------------------


def fresh_link() -> HostLink:
    link = HostLink(heartbeat_timeout=2.0, snapshot_retry=0.25)
    link.connected(0.0)
    link.take_outgoing()
    link.receive(p.hello((1, 0, 0), 24, 16, 0, 0), 0.0)
    link.receive(p.snapshot(0, 0, 24, 16, bytes(48)), 0.0)
    return link


def asked(link: HostLink) -> list[int]:
    return [m.kind for m in p.Decoder().feed(link.take_outgoing())]


def keys(events) -> list[tuple]:
    return [(e.row, e.col, e.pressed, e.source) for e in events]


def test_seq_ahead_wraps():
    assert seq_ahead(1, 0xFFFF) == 2
    assert seq_ahead(0xFFFF, 1) == -2
    assert seq_ahead(5, 5) == 0


def test_edges_in_order_are_reported_and_duplicates_dropped():
    link = fresh_link()
    assert link.state == UP
    assert keys(link.receive(p.edge(1, 10, 2, 3, True), 0.1)) == [(2, 3, True, "edge")]
    assert link.receive(p.edge(1, 10, 2, 3, True), 0.1) == []
    assert keys(link.receive(p.edge(2, 20, 2, 3, False), 0.1)) == [(2, 3, False, "edge")]
    assert link.receive(p.edge(1, 10, 2, 3, True), 0.2) == []  # an old one, late
    assert link.duplicates == 2 and link.pressed == set()


def test_a_gap_asks_for_a_snapshot_whose_difference_becomes_edges():
    link = fresh_link()
    link.receive(p.edge(1, 0, 0, 0, True), 0.1)
    link.receive(p.edge(2, 0, 0, 1, True), 0.1)
    # 3 (release 0,0) and 4 (press 5,5) are lost; 5 presses 7,7.
    events = link.receive(p.edge(5, 0, 7, 7, True), 0.2)
    assert keys(events) == [(7, 7, True, "edge")]
    assert asked(link) == [p.GET_SNAPSHOT] and link.gaps == 1
    rows = [0] * 24
    rows[0] = 0b10
    rows[5] = 1 << 5
    rows[7] = 1 << 7
    events = link.receive(p.snapshot(5, 0, 24, 16, p.pack_bitmap(rows, 16)), 0.3)
    assert keys(events) == [(0, 0, False, "resync"), (5, 5, True, "resync")]
    assert link.pressed == {(0, 1), (5, 5), (7, 7)} and link.resyncs == 1


def test_a_snapshot_request_is_repeated_until_one_arrives():
    link = fresh_link()
    link.receive(p.edge(2, 0, 0, 0, True), 0.0)
    assert asked(link) == [p.GET_SNAPSHOT]
    link.poll(0.1)
    assert asked(link) == []
    link.poll(0.3)
    assert asked(link) == [p.GET_SNAPSHOT]


def test_a_heartbeat_ahead_of_the_last_edge_reveals_a_lost_last_edge():
    link = fresh_link()
    link.receive(p.edge(1, 0, 4, 4, True), 0.0)
    link.receive(p.heartbeat(2, 500, 0), 0.5)  # edge 2 (the release) was lost
    assert asked(link) == [p.GET_SNAPSHOT]
    assert keys(link.receive(p.snapshot(2, 510, 24, 16, bytes(48)), 0.51)) == [(4, 4, False, "resync")]


def test_a_release_across_a_gap_proves_its_lost_press():
    link = fresh_link()
    events = link.receive(p.edge(2, 0, 3, 3, False), 0.1)  # 1, the press, was lost
    assert keys(events) == [(3, 3, True, "gap"), (3, 3, False, "edge")]


def test_a_press_across_a_gap_on_a_key_already_down_proves_its_lost_release():
    link = fresh_link()
    link.receive(p.edge(1, 0, 3, 3, True), 0.1)
    events = link.receive(p.edge(3, 0, 3, 3, True), 0.1)
    assert keys(events) == [(3, 3, False, "gap"), (3, 3, True, "edge")]


def test_without_a_gap_a_contradiction_invents_nothing():
    link = fresh_link()
    assert link.receive(p.edge(1, 0, 3, 3, False), 0.1) == []
    assert link.contradictions == 1


def test_a_lost_link_releases_every_key_and_never_replays_them_from_a_stale_release():
    link = fresh_link()
    link.receive(p.edge(1, 0, 1, 1, True), 0.1)
    link.receive(p.edge(2, 0, 2, 2, True), 0.1)
    assert keys(link.lost(0.2)) == [(1, 1, False, "link"), (2, 2, False, "link")]
    assert link.state == DOWN and link.pressed == set()
    link.connected(1.0)
    # Edge 3 (a press of 9,9) was lost while unplugged; 4 releases 1,1, which the host already let go.
    assert link.receive(p.edge(4, 0, 1, 1, False), 1.1) == []


def test_a_key_released_by_a_lost_link_is_held_only_in_the_first_snapshot_after_it():
    down = p.pack_bitmap([0, 1 << 1] + [0] * 22, 16)  # key (1, 1)
    link = fresh_link()
    link.receive(p.edge(1, 0, 1, 1, True), 0.1)
    link.lost(0.2)
    link.connected(1.0)
    link.receive(p.hello((1, 0, 0), 24, 16, 1, 1000), 1.0)
    # Still down after the outage: the press that went on, not a new one.
    assert keys(link.receive(p.snapshot(1, 1000, 24, 16, down), 1.0)) == [(1, 1, True, "held")]
    link.receive(p.edge(2, 1100, 1, 1, False), 1.1)
    link.lost(1.2)
    link.connected(2.0)
    link.receive(p.hello((1, 0, 0), 24, 16, 2, 2000), 2.0)
    assert keys(link.receive(p.snapshot(2, 2000, 24, 16, bytes(48)), 2.0)) == []  # lifted during the outage
    # Its next press is lost on the line; the snapshot the gap asks for finds it down: that is a press.
    link.receive(p.heartbeat(3, 2500, 2), 2.5)
    assert keys(link.receive(p.snapshot(3, 2500, 24, 16, down), 2.5)) == [(1, 1, True, "resync")]


def test_a_tap_on_a_replugged_pico_before_its_hello_is_not_taken_for_a_duplicate():
    """A replugged Pico boots again and numbers its edges from 1, but the host learns that only from the
    HELLO it asks for. A tap in the milliseconds before that answer was once dropped as "older than edge
    65"; now edges that come before the HELLO wait for it, and a restart is seen from the MCU's clock."""
    link = fresh_link()
    for seq in range(1, 66):  # a game's worth of presses
        link.receive(p.edge(seq, 60_000 + seq, 3, 3, seq % 2 == 1), 60.0)
    link.lost(61.0)
    link.connected(62.0)
    assert link.receive(p.edge(1, 40, 5, 5, True) + p.edge(2, 90, 5, 5, False), 62.1) == []  # waiting
    events = link.receive(p.hello((1, 0, 0), 24, 16, 2, 100), 62.1)
    assert keys(events) == [(5, 5, True, "edge"), (5, 5, False, "edge")]
    assert link.last_seq == 2 and link.duplicates == 0 and link.state == UP
    # Edges from before the outage that reach a host reconnecting to the same Pico are still old ones.
    link.lost(63.0)
    link.connected(64.0)
    assert link.receive(p.edge(2, 90, 5, 5, False) + p.edge(3, 1500, 6, 6, True), 64.1) == []
    assert keys(link.receive(p.hello((1, 0, 0), 24, 16, 3, 1600), 64.1)) == [(6, 6, True, "edge")]
    assert link.duplicates == 1
    # An edge whose time is its contact's first move, a debounce before frames already handled, is no restart.
    assert link.receive(p.heartbeat(3, 1700, 1), 64.2) == []
    assert keys(link.receive(p.edge(4, 1695, 6, 6, False), 64.2)) == [(6, 6, False, "edge")]
    assert link.receive(p.edge(4, 1695, 6, 6, False), 64.2) == [] and link.duplicates == 2


def test_silence_times_out_and_releases_keys():
    link = fresh_link()
    link.receive(p.edge(1, 0, 1, 1, True), 0.5)
    assert link.poll(2.4) == []
    assert keys(link.poll(2.6)) == [(1, 1, False, "link")]
    assert link.timed_out and link.state == DOWN


def test_a_hello_with_another_sequence_number_means_resync():
    link = fresh_link()
    link.receive(p.edge(1, 0, 1, 1, True), 0.1)
    link.receive(p.hello((1, 0, 0), 24, 16, 0, 0), 0.2)  # the MCU restarted
    assert asked(link) == [p.GET_SNAPSHOT]
    assert keys(link.receive(p.snapshot(0, 0, 24, 16, bytes(48)), 0.3)) == [(1, 1, False, "resync")]


def test_event_times_are_mcu_times_mapped_to_the_host_clock():
    link = fresh_link()
    link.receive(p.heartbeat(0, 1000, 1), 50.000)  # MCU ms 1000 arrives at host 50.000 s
    [event] = link.receive(p.edge(1, 1500, 0, 0, True), 50.507)  # stamped 1500, arrives 7 ms later
    assert event.time == pytest.approx(50.5, abs=1e-6)


# -- reliability on a spoilt byte stream ---------------------------------------------------------------------


class SpoilingLine:
    """A one-way line that drops, duplicates, truncates (losing the delimiter) and corrupts frames."""

    def __init__(self, rng: random.Random, rate: float):
        self.rng = rng
        self.rate = rate
        self.stats = Counter()

    def carry(self, frame: bytes) -> bytes:
        roll = self.rng.random()
        r = self.rate
        if roll < r:
            self.stats["dropped"] += 1
            return b""
        if roll < 2 * r:
            self.stats["duplicated"] += 1
            return frame + frame
        if roll < 3 * r:
            self.stats["truncated"] += 1
            return frame[: self.rng.randrange(1, len(frame) - 1)]
        if roll < 4 * r:
            self.stats["corrupted"] += 1
            spoilt = bytearray(frame)
            spoilt[self.rng.randrange(len(frame) - 1)] ^= 1 << self.rng.randrange(8)
            return bytes(spoilt)
        if roll < 4.1 * r:
            self.stats["noise"] += 1
            return bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 40))) + frame
        return frame


@pytest.mark.slow
def test_100k_spoilt_frames_no_phantom_press_and_every_arrived_press_reported_once():
    rng = random.Random(2024)
    matrix = SwitchMatrix(24, 16)
    out = bytearray()
    fw = Firmware(matrix, out.extend, debounce_ms=2, mode=EAGER, heartbeat_ms=100)
    link = HostLink(heartbeat_timeout=60.0, snapshot_retry=0.05)
    down_line = SpoilingLine(rng, 0.01)
    up_line = SpoilingLine(rng, 0.01)
    tap = p.Decoder()  # decodes exactly the bytes the host gets: tells which frames arrived

    keys_in_play = [(rng.randrange(24), rng.randrange(16)) for _ in range(40)]
    truth: list[tuple[tuple[int, int], bool]] = []  # every edge the MCU sent, by edge count - 1
    truth_at_seq: dict[int, int] = {}
    true_presses = Counter()
    reported_presses = Counter()
    edge_reports = Counter()  # truth index -> times reported from its own EDGE frame
    arrived_presses: set[int] = set()
    host_view: dict[tuple[int, int], bool] = {}
    frames = 0
    now = 0

    debounce = fw.debouncer.update

    def record_truth(scan, ms):  # the edges the firmware is about to number and send
        events = debounce(scan, ms)
        for i, (row, col, pressed, _) in enumerate(events):
            truth_at_seq[(fw.seq + 1 + i) & 0xFFFF] = len(truth)
            truth.append(((row, col), pressed))
            true_presses[(row, col)] += pressed
        return events

    fw.debouncer.update = record_truth

    def deliver(settle: bool) -> None:
        nonlocal frames
        stream = bytearray()
        for frame in split_frames(bytes(out)):
            frames += 1
            stream += frame if settle else down_line.carry(frame)
        out.clear()
        for msg in tap.feed(bytes(stream)):
            if msg.kind == p.EDGE and msg.pressed:
                arrived_presses.add(truth_at_seq[msg.seq])
        for event in link.receive(bytes(stream), now / 1000):
            key = (event.row, event.col)
            assert host_view.get(key, False) != event.pressed, f"{event} repeats the key's state"
            host_view[key] = event.pressed
            if event.pressed:
                reported_presses[key] += 1
                assert reported_presses[key] <= true_presses[key], f"phantom press {event}"
            if event.source == "edge":
                index = truth_at_seq[event.seq]
                assert truth[index] == (key, event.pressed)
                edge_reports[index] += 1
        link.poll(now / 1000)
        commands = link.take_outgoing()
        if commands:
            for frame in split_frames(commands):
                fw.receive(frame if settle else up_line.carry(frame), now)

    fw.start(now)
    while frames < 100_000:
        for _ in range(rng.choice((1, 1, 2, 3))):
            row, col = rng.choice(keys_in_play)
            matrix.set(row, col, not (matrix.scan()[row] >> col & 1))
        fw.tick(now)
        deliver(settle=False)
        now += rng.choice((1, 1, 2, 3))
    for _ in range(600):  # a clean line for a while: heartbeats reveal the last gaps, snapshots settle them
        fw.tick(now)
        deliver(settle=True)
        now += 1

    assert all(count == 1 for count in edge_reports.values())
    missing = [i for i in arrived_presses if edge_reports[i] != 1]
    assert missing == [], f"{len(missing)} arrived presses not reported once"
    assert link.pressed == {(r, c) for r in range(24) for c in range(16) if fw.debouncer.state[r] >> c & 1}
    assert sum(down_line.stats.values()) > 3500 and link.gaps > 100 and link.resyncs > 50
    assert link.decoder.bad > 1000


def split_frames(data: bytes) -> list[bytes]:
    return [part + b"\x00" for part in data.split(b"\x00")[:-1]]


# -- the client on pyserial, against the emulated Pico over a pty --------------------------------------------


class Recorder:
    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def __call__(self, event):
        with self.lock:
            self.events.append(event)

    def for_key(self, row, col):
        with self.lock:
            return [e.pressed for e in self.events if (e.row, e.col) == (row, col)]


@pytest.fixture
def emulator():
    with Emulator(heartbeat_ms=100) as emu:
        yield emu


def test_a_press_in_the_emulated_mcu_arrives_through_the_pty(emulator):
    got = Recorder()
    with BridgeClient(emulator.path, got) as client:
        assert wait_for(lambda: client.state == UP)
        emulator.press(4, 5)
        assert wait_for(lambda: got.for_key(4, 5) == [True])
        assert client.pressed() == {(4, 5)}
        emulator.release(4, 5)
        assert wait_for(lambda: got.for_key(4, 5) == [True, False])
        status = client.status()
        assert (status["state"], status["firmware"], status["matrix"]) == ("up", "1.0.0", [24, 16])
        assert status["frames_bad"] == 0 and status["heartbeat_age"] < 1.0
        event = got.events[-1]
        assert event.time <= time.monotonic() and event.source == "edge"


def test_configure_reaches_the_firmware(emulator):
    with BridgeClient(emulator.path) as client:
        assert wait_for(lambda: client.state == UP)
        client.configure(8, EAGER, 2000, 200)
        assert wait_for(lambda: client.link.acks == 1)
        fw = emulator.firmware
        assert (fw.debouncer.ms, fw.debouncer.mode, fw.scan_us, fw.heartbeat_ms) == (8, EAGER, 2000, 200)
        client.configure(200, EAGER, 2000)
        assert wait_for(lambda: "debounce ms out of range" in (client.status()["last_error"] or ""))


def test_unplugged_mid_stream_reconnects_and_resyncs_within_2_s_with_no_stuck_key(emulator):
    got = Recorder()
    with BridgeClient(emulator.path, got) as client:
        assert wait_for(lambda: client.state == UP)
        rng = random.Random(3)
        for _ in range(30):  # a stream of taps
            emulator.tap(rng.randrange(24), rng.randrange(16), hold=0.01)
            time.sleep(0.004)
        emulator.press(1, 1)  # held through the unplug
        emulator.press(2, 2)  # released while unplugged
        assert wait_for(lambda: client.pressed() >= {(1, 1), (2, 2)})
        emulator.unplug()
        assert wait_for(lambda: client.state != UP and client.pressed() == frozenset(), timeout=1.0)
        emulator.release(2, 2)
        emulator.press(3, 3)  # pressed while unplugged
        time.sleep(0.3)
        emulator.replug()
        plugged_at = time.monotonic()
        assert wait_for(lambda: client.state == UP and client.pressed() == {(1, 1), (3, 3)}, timeout=2.0)
        assert time.monotonic() - plugged_at < 2.0
        assert got.for_key(2, 2)[-1] is False and got.for_key(3, 3) == [True]
        assert client.status()["reconnects"] == 1
        emulator.release(1, 1)
        emulator.release(3, 3)
        assert wait_for(lambda: client.pressed() == frozenset())
        for key in {(e.row, e.col) for e in got.events}:
            states = got.for_key(*key)
            assert all(a != b for a, b in zip(states, states[1:])), f"{key}: {states}"
            assert states[-1] is False


def test_line_noise_and_spoilt_frames_make_no_press(emulator):
    got = Recorder()
    with BridgeClient(emulator.path, got) as client:
        assert wait_for(lambda: client.state == UP)
        for _ in range(20):
            emulator.noise(200)
        emulator.corrupt_frames(1)  # the press of 6,6: its release tells the host it happened
        emulator.tap(6, 6)
        emulator.tap(7, 7, hold=0.05)
        assert wait_for(lambda: got.for_key(6, 6) == [True, False] and got.for_key(7, 7) == [True, False])
        time.sleep(0.3)
        assert {(e.row, e.col) for e in got.events} == {(6, 6), (7, 7)}
        # Its press comes back from the release across the gap, or from the snapshot the gap asked for.
        assert [e.source for e in got.events if (e.row, e.col) == (6, 6)] in (
            ["gap", "edge"],
            ["resync", "edge"],
        )
        assert client.status()["frames_bad"] >= 2


def test_spoilt_frames_are_logged_not_only_counted(emulator, caplog):
    with (
        caplog.at_level(logging.WARNING, logger="firmware_bridge.client"),
        BridgeClient(emulator.path) as client,
    ):
        assert wait_for(lambda: client.state == UP)
        emulator.noise(data=b"\x09junk\x00")
        assert wait_for(lambda: "1 spoilt frame(s)" in caplog.text and "runs past the end" in caplog.text)
        assert emulator.path in caplog.text and client.status()["frames_bad"] == 1


def test_an_edge_off_the_matrix_is_logged_and_changes_nothing(emulator, caplog):
    got = Recorder()
    with (
        caplog.at_level(logging.WARNING, logger="firmware_bridge.client"),
        BridgeClient(emulator.path, got) as client,
    ):
        assert wait_for(lambda: client.state == UP)
        emulator.noise(data=p.edge(1, 0, 30, 3, True))  # row 30 of a 24x16 matrix, in a good frame
        assert wait_for(lambda: "EDGE for key (30, 3), outside the 24x16 matrix" in caplog.text)
        assert "outside the 24x16 matrix" in client.status()["last_error"]
        emulator.tap(2, 2)
        assert wait_for(lambda: got.for_key(2, 2) == [True, False])
        assert [(e.row, e.col) for e in got.events] == [(2, 2), (2, 2)] and client.pressed() == frozenset()


def test_a_lost_last_edge_is_recovered_by_the_next_heartbeat(emulator):
    got = Recorder()
    with BridgeClient(emulator.path, got) as client:
        assert wait_for(lambda: client.state == UP)
        emulator.press(9, 9)
        assert wait_for(lambda: got.for_key(9, 9) == [True])
        emulator.drop_frames(1)
        emulator.release(9, 9)  # its EDGE is lost; nothing else moves
        assert wait_for(lambda: got.for_key(9, 9) == [True, False], timeout=1.0)
        assert got.events[-1].source == "resync"


def test_a_hung_mcu_is_noticed_and_the_link_comes_back():
    got = Recorder()
    with (
        Emulator(heartbeat_ms=50) as emulator,
        BridgeClient(emulator.path, got, heartbeat_timeout=0.4) as client,
    ):
        assert wait_for(lambda: client.state == UP)
        emulator.press(0, 1)
        assert wait_for(lambda: client.pressed() == {(0, 1)})
        emulator.hang(1.0)
        assert wait_for(lambda: client.state != UP, timeout=1.0)
        assert client.pressed() == frozenset() and got.for_key(0, 1) == [True, False]
        assert wait_for(lambda: client.state == UP and client.pressed() == {(0, 1)}, timeout=3.0)


def test_a_silent_device_is_logged_once_and_named_in_the_status(caplog):
    # A Pico that runs no firmware (the SAFE jumper, a crashed main.py) opens but never answers.
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        with (
            caplog.at_level(logging.WARNING, logger="firmware_bridge.client"),
            BridgeClient(os.ttyname(slave), heartbeat_timeout=0.2) as client,
        ):
            assert wait_for(lambda: client.reconnects >= 4)
            assert client.state != UP and "no frame from the MCU" in client.status()["last_error"]
        assert len([r for r in caplog.records if "no frame" in r.getMessage()]) == 1
    finally:
        os.close(master)
        os.close(slave)


def test_reset_reboots_the_mcu_and_the_client_follows(emulator):
    with BridgeClient(emulator.path) as client:
        assert wait_for(lambda: client.state == UP)
        client.reset()
        assert wait_for(lambda: emulator.boots == 2)
        assert wait_for(lambda: client.state == UP and client.status()["reconnects"] >= 1)


def test_a_second_program_on_the_port_is_refused_and_the_first_loses_nothing(emulator):
    got = Recorder()
    with BridgeClient(emulator.path, got) as first:
        assert wait_for(lambda: first.state == UP)
        with BridgeClient(emulator.path, backoff=(0.02, 0.05)) as second:
            assert wait_for(lambda: second.open_errors >= 2)
            assert second.state == DOWN and "lock" in second.status()["last_error"]
            for col in range(8):
                emulator.tap(5, col, hold=0.02)
                time.sleep(0.05)
            assert wait_for(lambda: sum(e.pressed for e in got.events) == 8)
        assert first.state == UP and first.status()["reconnects"] == 0


def test_loop_url_echoes_commands_that_are_never_taken_for_keys():
    got = Recorder()
    with BridgeClient("loop://", got, heartbeat_timeout=0.3) as client:
        assert wait_for(lambda: client.link.unexpected >= 2)
        time.sleep(0.4)
        assert client.state != UP and got.events == []


def test_a_missing_device_is_retried_with_back_off_and_reported():
    with BridgeClient("/dev/ttyACM-not-here", backoff=(0.02, 0.08)) as client:
        assert wait_for(lambda: client.open_errors >= 3)
        status = client.status()
        assert status["state"] == DOWN and "ttyACM-not-here" in status["last_error"]
    started = time.monotonic()
    client.close()  # idempotent
    assert time.monotonic() - started < 0.5


def test_the_emulated_pico_survives_its_cable_pulled_at_any_moment():
    """Unplugging closes the pty the emulator's thread may be waiting on: the thread must live on (it died
    with EBADF in about half of these runs, and a replugged board then never answered)."""
    for _ in range(10):
        with Emulator(heartbeat_ms=100) as emulator:
            for _ in range(50):
                emulator.unplug()
                emulator.replug()
            time.sleep(0.05)
            assert emulator._thread.is_alive()
    got = Recorder()
    with Emulator(heartbeat_ms=100) as emulator, BridgeClient(emulator.path, got) as client:
        for _ in range(20):
            emulator.unplug()
            emulator.replug()
        assert wait_for(lambda: client.state == UP)
        emulator.tap(3, 4)
        assert wait_for(lambda: got.for_key(3, 4) == [True, False])


def test_the_client_lives_on_whatever_a_vanishing_port_raises_while_it_opens():
    """A cable pulled while the client opens the port makes pyserial's flush raise termios.error (not an
    OSError): it killed the client's thread in a CI run, and the board's buttons were gone until a restart."""
    got = Recorder()
    pauses = random.Random(5)
    with (
        Emulator(heartbeat_ms=100) as emulator,
        BridgeClient(emulator.path, got, backoff=(0.001, 0.002)) as client,
    ):
        for _ in range(300):
            emulator.unplug()
            time.sleep(pauses.uniform(0, 0.002))
            emulator.replug()
            time.sleep(pauses.uniform(0, 0.002))
            assert client._thread.is_alive()
        assert wait_for(lambda: client.state == UP)
        emulator.tap(2, 5)
        assert wait_for(lambda: got.for_key(2, 5) == [True, False])


class WaitLog(threading.Event):
    """The client's stop event, recording how long the reader thread waits between attempts to open."""

    def __init__(self):
        super().__init__()
        self.waits = []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        return super().wait(timeout)


def test_reopening_backs_off_by_doubling_up_to_its_cap_and_starts_again_after_a_link():
    with Emulator(heartbeat_ms=100) as emulator:
        client = BridgeClient(emulator.path, backoff=(0.02, 0.08), start=False)
        client._stop = waits = WaitLog()
        emulator.unplug()
        client.start()
        try:
            assert wait_for(lambda: len(waits.waits) >= 6)
            assert waits.waits[:6] == [0.02, 0.04, 0.08, 0.08, 0.08, 0.08]
            emulator.replug()
            assert wait_for(lambda: client.state == UP)
            before = len(waits.waits)
            emulator.unplug()
            assert wait_for(lambda: len(waits.waits) >= before + 3)
            assert waits.waits[before : before + 3] == [0.02, 0.04, 0.08]  # a link that came up resets it
        finally:
            client.close()


def test_a_bad_url_or_setting_is_refused():
    with pytest.raises(ValueError, match="pyserial URL"):
        BridgeClient("", start=False)
    with pytest.raises(ValueError, match="positive"):
        BridgeClient("loop://", heartbeat_timeout=0, start=False)


def test_the_emulator_can_scan_through_simulated_shift_registers_and_swallows_bounce():
    got = Recorder()
    # 20 ms of debounce, so a busy CI machine stretching the 3 ms of chatter cannot split it.
    with (
        Emulator(heartbeat_ms=100, debounce_ms=20, wiring="shift-register") as emulator,
        BridgeClient(emulator.path, got) as client,
    ):
        assert wait_for(lambda: client.state == UP)
        emulator.bounce(20, 13, closed=True, flips=6, every=0.0005)
        assert wait_for(lambda: client.pressed() == {(20, 13)})
        emulator.bounce(20, 13, closed=False, flips=6, every=0.0005)
        assert wait_for(lambda: client.pressed() == frozenset())
        time.sleep(0.05)
        assert got.for_key(20, 13) == [True, False]  # deferred debounce: one press, one release
