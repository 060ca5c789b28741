"""The node-input interface end to end: a press in the emulated Pico -> real bytes over a pty -> the pyserial
client -> a NodeEvent named by the button layout."""

from __future__ import annotations

import json
import threading
import time

import pytest

from companion.rules import node as nd
from companion.service.geometry import board_geometry
from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware.mcu import FW_VERSION
from hardware.buttons import ButtonLayout, ButtonLayoutError, default_layout, load_button_layout
from hardware.node_input import NodeEvent, NodeInput, SerialNodeInput, SimulatedNodeInput, open_node_input

BOARD = board_geometry()
BUTTONS = load_button_layout(BOARD)


def wait_for(condition, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


class Events:
    def __init__(self):
        self.items: list[NodeEvent] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, event: NodeEvent) -> None:
        with self.lock:
            self.items.append(event)
            self.threads.add(threading.current_thread().name)

    def of(self, node: str) -> list[bool]:
        with self.lock:
            return [e.pressed for e in self.items if e.node == node]


@pytest.fixture
def sim():
    with SimulatedNodeInput(BUTTONS, emulator_options={"heartbeat_ms": 100}) as node_input:
        events = Events()
        node_input.when_event = events
        assert wait_for(lambda: node_input.link_status()["state"] == "up")
        yield node_input, events


def test_open_node_input_picks_the_backend(tmp_path):
    with open_node_input("sim", BUTTONS) as node_input:
        assert isinstance(node_input, SimulatedNodeInput) and isinstance(node_input, NodeInput)
    with open_node_input(str(tmp_path / "ttyACM9"), BUTTONS) as node_input:
        assert type(node_input) is SerialNodeInput
        assert wait_for(lambda: "ttyACM9" in (node_input.link_status().get("last_error") or ""))
        assert node_input.link_status()["state"] == "down" and node_input.pressed_nodes() == frozenset()


def test_a_tap_comes_back_as_a_press_and_a_release_named_by_node(sim):
    node_input, events = sim
    before = time.monotonic()
    node_input.tap("RG", hold=0.02)
    assert wait_for(lambda: events.of("RG") == [True, False])
    press, release = events.items
    assert before - 0.002 <= press.time <= release.time <= time.monotonic()  # MCU stamps are whole ms
    assert 0.01 <= release.time - press.time <= 0.1  # MCU timestamps keep the hold time
    assert events.threads == {f"bridge {node_input.url}"}  # called on the input's own thread
    assert node_input.pressed_nodes() == frozenset()


def test_a_tap_keeps_its_length_when_the_emulated_pico_runs_late(sim):
    """A loaded machine can hold up the emulator's thread past a whole tap; the real MCU would have
    scanned all along, so the emulated one scans at the planned times and the tap is not lost."""
    node_input, events = sim
    stalled = threading.Event()

    def stall():  # the emulator's thread is held up, as on a busy host, for three times the tap
        stalled.set()
        time.sleep(0.06)

    node_input.emulator._schedule(0.0, stall)
    assert stalled.wait(1.0)
    node_input.tap("RG", hold=0.02)
    assert wait_for(lambda: events.of("RG") == [True, False])
    press, release = events.items
    assert 0.015 <= release.time - press.time <= 0.03  # the planned 20 ms, not the 60 ms of the delay


def test_held_nodes_are_reported_and_every_node_can_be_pressed(sim):
    node_input, events = sim
    names = [nd.name(n) for n in nd.nodes()]
    for name in names:
        node_input.press(name)
    assert wait_for(lambda: node_input.pressed_nodes() == frozenset(names))
    assert sorted(e.node for e in events.items) == sorted(names)
    for name in names:
        node_input.release(name)
    assert wait_for(lambda: node_input.pressed_nodes() == frozenset() and len(events.items) == 2 * len(names))
    assert node_input.link_status()["frames_bad"] == 0


def test_a_spare_key_is_counted_never_an_event(sim):
    node_input, events = sim
    row, col = default_layout(BOARD).spares()[0]
    node_input.emulator.tap(row, col)
    node_input.tap("0")
    assert wait_for(lambda: events.of("0") == [True, False])
    assert wait_for(lambda: node_input.link_status()["unmapped_keys"] == {f"{row},{col}": 1})
    assert {e.node for e in events.items} == {"0"}
    # Held down (a stuck switch, a short), it is no pressed node either.
    node_input.emulator.press(row, col)
    assert wait_for(lambda: (row, col) in node_input.client.pressed())
    assert node_input.pressed_nodes() == frozenset()


def held_through_unplug(node_input, node: str) -> None:
    """``node`` pressed, then the emulated Pico unplugged for 0.3 s: returns once the link is down."""
    node_input.press(node)
    assert wait_for(lambda: node_input.pressed_nodes() == {node})
    node_input.unplug(0.3)
    assert wait_for(lambda: node_input.link_status()["state"] != "up", timeout=1.0)


def test_unplug_releases_held_nodes_and_the_link_comes_back_resynced(sim):
    node_input, events = sim
    held_through_unplug(node_input, "GGBY")
    assert node_input.pressed_nodes() == frozenset() and events.of("GGBY") == [True, False]
    assert wait_for(lambda: node_input.link_status()["state"] == "up", timeout=2.5)
    assert wait_for(lambda: node_input.pressed_nodes() == {"GGBY"})  # still held on the board
    status = node_input.link_status()
    assert status["reconnects"] == 1 and json.loads(json.dumps(status)) == status
    # Held through the outage: the same press, not a second one (the game would take it as a new press).
    time.sleep(0.2)
    assert events.of("GGBY") == [True, False]
    node_input.release("GGBY")
    time.sleep(0.1)  # past the Pico's debounce
    node_input.tap("GGBY")  # a new press after it is a press
    assert wait_for(
        lambda: node_input.pressed_nodes() == frozenset() and len(events.of("GGBY")) >= 4, timeout=3
    )
    # Press and release alternate: the release of the press held through the outage was the lost link's.
    assert events.of("GGBY") == [True, False, True, False]


def test_a_node_pressed_while_the_link_was_down_is_a_press(sim):
    node_input, events = sim
    held_through_unplug(node_input, "GGBY")
    node_input.release("GGBY")  # lifted during the outage,
    node_input.press("RR")  # and another node pressed
    assert wait_for(lambda: node_input.link_status()["state"] == "up", timeout=2.5)
    assert wait_for(lambda: events.of("RR") == [True])
    assert events.of("GGBY") == [True, False]


def test_a_node_lifted_during_the_outage_is_pressed_again_even_when_its_edge_is_lost(sim):
    node_input, events = sim
    held_through_unplug(node_input, "GGBY")
    node_input.release("GGBY")  # lifted during the outage
    assert wait_for(lambda: node_input.link_status()["state"] == "up", timeout=2.5)
    time.sleep(0.2)
    assert events.of("GGBY") == [True, False]
    node_input.emulator.drop_frames(1)  # the EDGE of its next press is lost on the line,
    node_input.press("GGBY")  # so the next heartbeat asks for it again (or a snapshot finds it down)
    assert wait_for(lambda: events.of("GGBY") == [True, False, True], timeout=2.0), events.of("GGBY")


def test_link_status_is_json_with_the_promised_keys(sim):
    node_input, _ = sim
    status = node_input.link_status()
    assert json.loads(json.dumps(status)) == status
    assert status["state"] == "up" and status["firmware"] == ".".join(map(str, FW_VERSION))
    assert isinstance(status["heartbeat_age"], float) and status["heartbeat_age"] < 1.0
    assert "layout_mismatch" not in status


def test_a_layout_of_another_size_is_flagged_in_the_status():
    mapping = {key: name for name, key in default_layout(BOARD).key_of.items()}
    wide = ButtonLayout.from_mapping(24, 20, mapping, BOARD)
    with Emulator(24, 16) as emulator, SerialNodeInput(emulator.path, wide) as node_input:
        assert wait_for(lambda: node_input.link_status()["state"] == "up")
        assert "24x16 but the button layout is 24x20" in node_input.link_status()["layout_mismatch"]


def test_unknown_nodes_are_refused_and_change_nothing(sim):
    node_input, events = sim
    with pytest.raises(ButtonLayoutError, match="no key for node 'GGGGG'"):
        node_input.press("GGGGG")
    time.sleep(0.05)
    assert events.items == [] and node_input.emulator.closed() == set()


def test_close_is_idempotent_and_silences_the_input():
    node_input = SimulatedNodeInput(BUTTONS)
    events = Events()
    node_input.when_event = events
    assert wait_for(lambda: node_input.link_status()["state"] == "up")
    node_input.press("Y")
    assert wait_for(lambda: events.of("Y") == [True])
    node_input.close()
    node_input.close()
    assert events.of("Y") == [True]  # no release invented on the way out
    assert not node_input.client._thread.is_alive()


def test_a_failing_consumer_does_not_stop_the_buttons(sim):
    node_input, events = sim

    def broken(event):
        events(event)
        raise RuntimeError("consumer bug")

    node_input.when_event = broken
    node_input.tap("B")
    node_input.tap("R")
    assert wait_for(lambda: events.of("B") == [True, False] and events.of("R") == [True, False])
