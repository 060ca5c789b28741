"""The self-test on the simulator: the sweep lights every pixel, every node pressed through the emulated
Pico, stuck and dead switches found, and the command line's report."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion import node as nd
from hardware.led_layout import load_layout
from hardware.leds import SimulatedSurface
from hardware.node_input import SimulatedNodeInput
from hardware.selftest import selftest, sweep

ROOT = Path(__file__).resolve().parent.parent
NAMES = [nd.name(n) for n in nd.nodes()]


class Recording(SimulatedSurface):
    """The simulated LEDs, keeping every raw frame handed to them."""

    def __init__(self, layout):
        super().__init__(layout, fps=120)
        self.raw = []

    def show_pixels(self, pixels):
        self.raw.append(list(pixels))
        super().show_pixels(pixels)


@pytest.fixture
def board():
    with Recording(load_layout("panels-32x32")) as surface, SimulatedNodeInput() as node_input:
        yield surface, node_input


def test_the_sweep_lights_every_pixel_in_every_colour(board):
    surface, _ = board
    frames = sweep(surface)
    assert frames == len(surface.raw)
    for colour in [(255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255)]:
        lit = set()
        for frame in surface.raw:
            lit |= {i for i, c in enumerate(frame) if c == colour}
        assert lit == set(range(1024)), colour
    assert surface.raw[-1] == [(0, 0, 0)] * 1024


def test_every_node_pressed_on_the_simulator_passes(board):
    surface, node_input = board

    def press_all():
        for name in NAMES:
            node_input.tap(name, hold=0.02)
            time.sleep(0.003)

    report = selftest(surface, node_input, NAMES, timeout=60,
                      on_ready=lambda: threading.Thread(target=press_all, daemon=True).start())
    assert report.ok, report.text()
    assert len(report.pressed) == 341 and not report.dead and report.link["state"] == "up"
    assert surface.settle(2)
    assert set(surface.node_colours()) == set(NAMES)  # every node shown green at the end
    assert "all good" in report.text()


def test_stuck_and_dead_switches_are_named(board):
    surface, node_input = board
    node_input.press("RG")  # held down before the test starts: a stuck switch
    deadline = time.monotonic() + 5
    while "RG" not in node_input.pressed_nodes():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    skipped = {"0", "YYYY", "BGRY"}

    def press_most():
        for name in NAMES:
            if name not in skipped and name != "RG":
                node_input.tap(name, hold=0.02)
                time.sleep(0.003)

    report = selftest(surface, node_input, NAMES, timeout=6,
                      on_ready=lambda: threading.Thread(target=press_most, daemon=True).start())
    assert not report.ok
    assert report.stuck == ["RG"] and set(report.dead) == skipped
    assert "stuck (down from the start): RG" in report.text() and "faults found" in report.text()
    # The nodes still to press glow dim; the pressed ones green.
    assert surface.settle(2)
    shown = surface.node_colours()
    assert all(shown[n] != shown["G"] for n in skipped) and "RG" not in shown


def test_the_command_on_the_simulator(tmp_path):
    result = subprocess.run([sys.executable, "-m", "companion.cli", "selftest", "--sim", "--auto", "--json",
                             "--timeout", "60"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["pressed"] == 341 and report["pixels"] == 1024
    bad = subprocess.run([sys.executable, "-m", "companion.cli", "selftest", "--auto"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--auto presses the simulator's nodes" in bad.stderr


@pytest.mark.parametrize("text, message", [
    ("[leds]\nlayout = 'nosuch'\n", "gryb-companion: config: leds.layout: no LED layout 'nosuch'"),
    ("[leds]\nbudget_ma = 100\n", "gryb-companion: config: leds.budget_ma: 100 mA does not cover the idle draw"),
])
def test_the_command_names_a_bad_led_key(tmp_path, text, message):
    bad = tmp_path / "config.toml"
    bad.write_text(text)
    result = subprocess.run([sys.executable, "-m", "companion.cli", "selftest", "--sim", "--auto", "--timeout", "5",
                             "--config", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith(message), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_the_command_off_a_pi_stops_with_one_line(tmp_path):
    from hardware.leds import pi_model

    if pi_model() is not None:
        pytest.skip("on a Raspberry Pi the ws281x driver may start")
    result = subprocess.run([sys.executable, "-m", "companion.cli", "selftest", "--timeout", "1", "--config",
                             str(ROOT / "systemd" / "config.example.toml")], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gryb-companion: cannot start: this is not a Raspberry Pi")
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_leds_without_permission_stop_the_command_with_one_line(monkeypatch, capsys):
    # The Pi's own refusals (a Pi 5, no access to /dev/spidev0.0) come from opening the surface.
    from companion import cli
    from hardware import leds

    def refuse(*args, **kw):
        raise leds.LedError("no permission to use /dev/spidev0.0: add the user to the spi group")

    monkeypatch.setattr(leds, "open_surface", refuse)
    assert cli.main(["selftest", "--sim", "--auto", "--timeout", "1"]) == 1
    err = capsys.readouterr().err
    assert err == "gryb-companion: cannot start: no permission to use /dev/spidev0.0: add the user to the spi group\n"
