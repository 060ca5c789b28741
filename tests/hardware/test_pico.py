"""The LEDs and the control panel on the Pico, end to end on the simulator: PicoSurface and PicoPanel over
the real serial client to the emulated Pico on a pty, whose strip and panel are in memory."""

from __future__ import annotations

import threading
import time

import pytest

from companion.service.geometry import board_geometry
from firmware_bridge import protocol as p
from firmware_bridge.firmware.leds import PATTERN_LEVEL
from hardware.buttons import load_button_layout
from hardware.led_layout import load_layout
from hardware.leds import LedError, open_surface
from hardware.node_input import SimulatedNodeInput
from hardware.panel import PATTERNS, PanelError, open_panel
from hardware.pico import PicoPanel, PicoSurface


def until(condition, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


@pytest.fixture
def pico():
    node_input = SimulatedNodeInput(
        load_button_layout(board_geometry()), emulator_options={"heartbeat_ms": 100}
    )
    assert until(lambda: node_input.link_status()["state"] == "up")
    yield node_input
    node_input.close()


@pytest.fixture
def surface(pico):
    made = open_surface("pico", load_layout("panels-32x32", board_geometry()), pico=pico, brightness=1.0)
    yield made
    made.close()


def on_strip(pico, surface) -> bool:
    return pico.emulator.strip.shown == surface._want


def test_a_frame_reaches_the_emulated_picos_strip_and_the_page_reads_it_there(pico, surface):
    surface.show_nodes({"R": (255, 0, 0), "GGBY": (0, 0, 255)}, [(255, 255, 255)])
    assert until(lambda: on_strip(pico, surface))
    shown = surface.shown()
    assert shown["nodes"] == {"R": (255, 0, 0), "GGBY": (0, 0, 255)} and shown["status"][0] == (255, 255, 255)
    assert surface.status()["driver"] == "pico"
    assert until(lambda: surface.status()["pico"]["mode"] == "showing")  # the Pico's answer follows
    assert until(lambda: surface.status()["pico"]["shows_newest"])


def test_the_pages_frame_count_changes_with_what_the_pico_shows_not_with_what_was_sent(pico, surface):
    """GET /api/leds tags its answer with ``frames``: a frame that reaches the strip after the page asked
    must come with a new count, or the page keeps the old picture (a 304) until the next frame."""
    surface.show_nodes({"R": (255, 0, 0)})
    assert until(lambda: on_strip(pico, surface))
    pico.emulator.hang(0.4)  # deaf: the next frame waits for the resend
    surface.show_nodes({"B": (0, 0, 255)})
    surface.settle()
    before = surface.shown()
    assert before["nodes"] == {"R": (255, 0, 0)}
    assert until(lambda: on_strip(pico, surface), timeout=3)
    after = surface.shown()
    assert after["nodes"] == {"B": (0, 0, 255)} and after["frames"] != before["frames"]
    assert surface.shown()["frames"] == after["frames"]  # the same picture, the same count


def test_a_pulse_goes_as_changes_and_a_new_scene_whole(pico, surface):
    nodes = {name: (200, 100, 0) for name in ("R", "G", "Y", "B")}
    surface.show_nodes(nodes)
    assert until(lambda: on_strip(pico, surface))
    for level in range(40, 240, 40):  # one stone breathing
        surface.show_nodes({**nodes, "RG": (level, level, level)})
        surface.settle()
        assert until(lambda: on_strip(pico, surface))
    assert surface._sender.whole == 1 and surface._sender.changes >= 4


def test_the_status_a_guest_reads_says_nothing_of_what_the_frames_show(pico, surface):
    """GET /api/status is open to guests, and a pairing code is a frame: the Pico's part of the status
    is the same for two frames of one shape but different colours and sizes on the link."""
    seen = []
    for nodes in ({"R": (255, 0, 0), "G": (0, 255, 0)}, {"RR": (9, 9, 9), "GGBY": (200, 10, 90)}):
        surface.show_nodes(nodes)
        surface.settle()
        assert until(lambda: on_strip(pico, surface) and surface.status()["pico"]["shows_newest"])
        surface.show_nodes({})  # dark again, so each picture is sent from the same start
        surface.settle()
        assert until(lambda: on_strip(pico, surface) and surface.status()["pico"]["shows_newest"])
        seen.append(surface.status()["pico"])
    assert seen[0] | {"frames": 0} == seen[1] | {"frames": 0} and seen[1]["frames"] == seen[0]["frames"] + 2


def test_the_current_limit_applies_before_the_frame_goes_to_the_pico(pico):
    layout = load_layout("panels-32x32", board_geometry())
    with PicoSurface(layout, pico, brightness=1.0, budget_ma=2000) as surface:
        surface.show_pixels([(255, 255, 255)] * layout.pixel_count)
        assert until(lambda: on_strip(pico, surface))
        assert surface.status()["limited"]
        assert surface._pipeline.current(pico.emulator.strip.shown) <= 2000


def waiting(strip: bytes) -> bool:
    lit = [i for i, v in enumerate(strip) if v]
    return 0 < len(lit) <= 8 and all(i % 3 == 2 and strip[i] == PATTERN_LEVEL for i in lit)


def test_a_host_gone_silent_leaves_the_pico_dark_but_for_its_waiting_pattern(pico):
    layout = load_layout("panels-32x32", board_geometry())
    surface = PicoSurface(layout, pico, brightness=1.0, silence_ms=300, keepalive=0.1)
    surface.show_pixels([(255, 255, 255)] * layout.pixel_count)
    assert until(lambda: on_strip(pico, surface))
    time.sleep(0.6)  # the keepalive holds it
    assert on_strip(pico, surface)
    client = pico.client
    client.farewells.clear()  # a host that crashes says no goodbye
    client.close()
    gone = time.monotonic()
    assert until(lambda: waiting(pico.emulator.strip.shown), timeout=2.0)
    assert time.monotonic() - gone < 1.5  # 0.3 s of silence, and a loaded machine's threads
    surface.close()


def test_frames_through_a_spoilt_line_show_only_whole_frames_and_the_last_one(pico, surface):
    """A fifth of frames each way lost, cut or doubled: the strip only ever shows a frame the surface was
    given (or the waiting pattern), and once the line mends, the newest one."""
    given: set[bytes] = set()
    shown: list[bytes] = []
    pico.emulator.strip.on_write = shown.append
    lock = threading.Lock()
    pico.emulator.spoil(0.2)
    for step in range(40):
        surface.show_nodes({"R": (step * 6, 0, 0), "GGBY": (0, step * 6, 255 - step * 6)})
        surface.settle()
        with lock:
            given.add(surface._want)
        time.sleep(0.02)
    pico.emulator.spoil(0.0)
    last = {"B": (0, 0, 255)}
    surface.show_nodes(last)
    surface.settle()
    assert until(lambda: on_strip(pico, surface), timeout=5)
    assert surface.shown()["nodes"] == last
    assert all(frame in given or frame == surface._want or waiting(frame) for frame in shown)
    assert pico.emulator.firmware.leds.refused > 0  # the line did spoil frames


def test_a_frame_lost_while_a_pulse_flows_is_healed_by_a_later_one_at_once(pico, surface):
    """The pulse does not stop for a lost frame: the one after it goes 0.1 s later (``RESEND``) at most."""
    surface.show_nodes({"R": (100, 0, 0)})
    assert until(lambda: on_strip(pico, surface))
    strip = pico.emulator.strip
    pico.emulator.hang(0.1)  # deaf: the frames sent meanwhile are lost
    writes, step, end = strip.writes, 0, time.monotonic() + 1.0
    while time.monotonic() < end:  # 20 frames a second, as the renderer pulses targets
        step += 1
        surface.show_nodes({"R": (100 + step * 7 % 150, 0, 0)})  # each frame a new byte after gamma
        time.sleep(0.05)
    assert strip.writes - writes >= 5


def test_a_pico_that_falls_behind_gets_the_newest_frame_not_a_queue(pico, surface):
    surface.show_nodes({"R": (255, 0, 0)})
    assert until(lambda: on_strip(pico, surface))
    firmware = pico.emulator.firmware
    before = firmware.leds.shown_frames
    receive = firmware.receive

    def slowly(data, now):  # a Pico that takes 0.15 s over whatever it reads
        time.sleep(0.15)
        receive(data, now)

    firmware.receive = slowly
    for step in range(30):  # 30 frames in 0.6 s: the frame-rate cap lets about 20 out
        surface.show_nodes({"R": (255, step * 8, 0)})
        time.sleep(0.02)
    surface.settle()
    assert until(lambda: on_strip(pico, surface), timeout=5)
    assert firmware.leds.shown_frames - before <= 8  # the newest each time it is free, not all 20


def test_a_replugged_pico_gets_the_frame_again(pico, surface):
    surface.show_nodes({"RR": (0, 255, 0)})
    assert until(lambda: on_strip(pico, surface))
    pico.emulator.unplug()
    pico.emulator.replug()  # it boots into its waiting pattern
    assert until(lambda: pico.emulator.boots == 2 and on_strip(pico, surface), timeout=5)


def test_a_pico_with_older_firmware_is_named_once_and_sent_no_frames(monkeypatch, caplog):
    from firmware_bridge.firmware import mcu

    monkeypatch.setattr(mcu, "FW_VERSION", (1, 1, 0))
    layout = load_layout("panels-32x32", board_geometry())
    with SimulatedNodeInput(load_button_layout(board_geometry())) as node_input:
        assert until(lambda: node_input.link_status()["state"] == "up")
        with PicoSurface(layout, node_input) as surface, PicoPanel(node_input) as panel:
            for level in (50, 100, 150):
                surface.show_nodes({"R": (level, 0, 0)})
                surface.settle()
            panel.beep("ok")
            time.sleep(0.4)
            assert node_input.emulator.firmware.leds.shown_frames == 0
            assert node_input.emulator.panel.tones == []
    assert caplog.text.count("runs firmware 1.1.0, which has no LEDs or panel: flash 1.2") == 1


def test_the_pico_backend_needs_the_picos_link():
    layout = load_layout("panels-32x32", board_geometry())
    with pytest.raises(LedError, match="needs the node buttons on a Pico"):
        open_surface("pico", layout, pico=None)
    with pytest.raises(PanelError, match="needs the node buttons on a Pico"):
        open_panel("pico", pico=None)


# -- the control panel on the Pico --------------------------------------------------------------------


@pytest.fixture
def panel(pico):
    made = open_panel("pico", pico=pico, hold_time=0.4, roll=17)  # the Pi's pin numbers are ignored
    yield made
    made.close()


def test_roll_ok_undo_and_a_held_undo_act_as_on_the_pis_panel(pico, panel):
    assert isinstance(panel, PicoPanel)
    got: list[str] = []
    panel.when_roll = lambda: got.append("roll")
    panel.when_ok = lambda: got.append("ok")
    panel.when_undo = lambda: got.append("undo")
    panel.when_menu = lambda: got.append("menu")
    for name in ("roll", "ok", "undo"):
        panel.press(name)
        assert until(lambda name=name: panel.is_pressed(name))
        panel.release(name)
        assert until(lambda name=name: not panel.is_pressed(name))
    assert got == ["roll", "ok", "undo"]
    panel.press("undo")  # held past hold_time: the menu, and no undo on release
    assert until(lambda: got[-1] == "menu", timeout=2)
    panel.release("undo")
    assert until(lambda: not panel.is_pressed("undo"))
    time.sleep(0.1)
    assert got == ["roll", "ok", "undo", "menu"]


def test_a_lost_link_lets_go_of_a_held_button_without_acting(pico, panel):
    got: list[str] = []
    panel.when_undo = lambda: got.append("undo")
    panel.press("undo")
    assert until(lambda: panel.is_pressed("undo"))
    pico.emulator.unplug(0.3)
    assert until(lambda: not panel.is_pressed("undo"))
    assert got == []


def test_sounds_and_the_status_led_are_played_by_the_pico(pico, panel):
    switches = pico.emulator.panel
    panel.beep("illegal")
    wanted = [round(hz or 0) for hz, _ in PATTERNS["illegal"]] + [0]
    assert until(lambda: switches.tones[-len(wanted) :] == wanted, timeout=2)
    panel.set_status("ready")
    assert until(lambda: switches.lit)
    panel.set_status("busy")  # a fast blink
    seen = set()
    end = time.monotonic() + 0.6
    while time.monotonic() < end:
        seen.add(switches.lit)
        time.sleep(0.01)
    assert seen == {True, False} and panel.state == "busy"
    panel.sounds = False
    before = len(switches.tones)
    panel.beep("win")
    time.sleep(0.2)
    assert len(switches.tones) == before
    with pytest.raises(PanelError):
        panel.beep("trumpet")


def test_closing_the_link_says_goodbye_dark_and_silent(pico, surface, panel):
    surface.show_nodes({"R": (255, 255, 255)})
    assert until(lambda: on_strip(pico, surface))
    panel.set_status("ready")
    assert until(lambda: pico.emulator.panel.lit)
    pico.client.close()  # what stopping the companion does first (its node input)
    assert until(lambda: not any(pico.emulator.strip.shown) and not pico.emulator.panel.lit)
    assert pico.emulator.firmware.leds.mode == p.SHOWING  # a dark frame, not the silent host's pattern
