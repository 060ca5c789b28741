"""The self-test on the simulator: the sweep lights every pixel, every node pressed through the emulated
Pico, stuck and dead switches found, and the command line's report."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.rules import node as nd
from companion.service.geometry import board_geometry
from hardware.buttons import load_button_layout
from hardware.led_layout import load_layout
from hardware.leds import SimulatedSurface
from hardware.node_input import SimulatedNodeInput
from hardware.selftest import selftest, sweep

ROOT = Path(__file__).resolve().parents[2]
NAMES = [nd.name(n) for n in nd.nodes()]
BOARD = board_geometry()
BUTTONS = load_button_layout(BOARD)


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
    with Recording(load_layout("panels-32x32", BOARD)) as surface, SimulatedNodeInput(BUTTONS) as node_input:
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


def test_every_sweep_frame_reaches_the_leds_whatever_the_frame_rate_cap():
    # `gryb-companion selftest` sweeps with no pause: frames come faster than any fps cap, and a
    # deferred frame is replaced by the next one, so without waiting only the first few were shown.
    with SimulatedSurface(load_layout("panels-32x32", BOARD), fps=120) as surface:
        frames = sweep(surface)
        assert surface.settle(2)
        assert surface.frames_sent == frames and surface.frames_dropped == 0


def test_every_node_pressed_on_the_simulator_passes(board):
    surface, node_input = board

    def press_all():
        for name in NAMES:
            node_input.tap(name, hold=0.02)
            time.sleep(0.003)

    report = selftest(
        surface,
        node_input,
        NAMES,
        timeout=60,
        on_ready=lambda: threading.Thread(target=press_all, daemon=True).start(),
    )
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

    report = selftest(
        surface,
        node_input,
        NAMES,
        timeout=6,
        on_ready=lambda: threading.Thread(target=press_most, daemon=True).start(),
    )
    assert not report.ok
    assert report.stuck == ["RG"] and set(report.dead) == skipped
    assert "stuck (down from the start): RG" in report.text() and "faults found" in report.text()
    # The nodes still to press glow dim; the pressed ones green.
    assert surface.settle(2)
    shown = surface.node_colours()
    assert all(shown[n] != shown["G"] for n in skipped) and "RG" not in shown


def test_a_contact_bouncing_past_the_debounce_is_chattering_and_pressing_again_is_not(board):
    """A tester may press a node three times; a worn contact that bounces longer than the debounce sends
    down-up-down-up-down within a few milliseconds of one press. Only the second is a fault."""
    surface, node_input = board
    wanted = ["G", "R", "Y", "B"]

    def press():
        for _ in range(3):  # a person pressing G again and again
            node_input.tap("G", hold=0.05)
            time.sleep(0.15)
        # R's contact bounces every 8 ms, past the Pico's 5 ms debounce, then settles closed
        node_input.emulator.bounce(*node_input.layout.key("R"), closed=True, flips=6, every=0.008)
        time.sleep(0.2)
        node_input.release("R")
        for name in ("Y", "B"):
            node_input.tap(name, hold=0.03)
            time.sleep(0.05)

    report = selftest(
        surface,
        node_input,
        wanted,
        timeout=10,
        on_ready=lambda: threading.Thread(target=press, daemon=True).start(),
    )
    assert report.pressed == wanted and report.chattering == ["R"], report.text()
    assert "chattering: R" in report.text() and not report.ok


def test_the_command_on_the_simulator(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "selftest", "--sim", "--auto", "--json", "--timeout", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["pressed"] == 341 and report["pixels"] == 1024
    bad = subprocess.run(
        [sys.executable, "-m", "companion.cli", "selftest", "--auto"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--auto presses the simulator's nodes" in bad.stderr
    for timeout in ("0", "-5", "nan"):  # no time to press anything: every node would be reported dead
        bad = subprocess.run(
            [sys.executable, "-m", "companion.cli", "selftest", "--sim", "--auto", "--timeout", timeout],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert bad.returncode == 2 and bad.stdout == "", bad.stdout
        assert bad.stderr.endswith(f"argument --timeout: seconds must be more than 0, not {timeout}\n")


def test_leds_without_permission_stop_the_command_with_one_line(monkeypatch, capsys):
    # The Pi's own refusals (a Pi 5, no access to /dev/spidev0.0) come from opening the surface.
    from companion.cli import command as cli
    from hardware import leds

    def refuse(*args, **kw):
        raise leds.LedError("no permission to use /dev/spidev0.0: add the user to the spi group")

    monkeypatch.setattr(leds, "open_surface", refuse)
    assert cli.main(["selftest", "--sim", "--auto", "--timeout", "1"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "gryb-companion: cannot start: no permission to use /dev/spidev0.0: add the user to the spi group\n"
    )


def test_without_the_pico_the_press_step_is_skipped_and_the_report_says_why(tmp_path):
    """No Pico on the port: asking for 341 presses would only list every node dead after the timeout."""
    from hardware.node_input import open_node_input

    missing = str(tmp_path / "ttyACM9")
    with (
        SimulatedSurface(load_layout("panels-32x32", BOARD), fps=120) as surface,
        open_node_input(missing, BUTTONS) as node_input,
    ):
        asked = []
        report = selftest(
            surface, node_input, NAMES, timeout=60, link_wait=0.3, on_ready=lambda: asked.append(1)
        )
    assert not report.ok and not asked and report.seconds < 10
    assert report.dead == [] and report.pressed == []
    text = report.text()
    assert f"nodes: not tested: the node buttons' Pico is not answering on {missing}" in text
    assert "No such file or directory" in text and "faults found" in text


def until(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_self_test_cancelled_in_its_press_step_stops_at_once_and_calls_no_node_dead(board):
    """Cancelled, the nodes nobody was asked to press long enough are untested, not dead; the report says
    it was cancelled and is not "all good". Its progress says how far it had got."""
    surface, node_input = board
    cancel, heard = threading.Event(), []

    def press_three_then_cancel():
        for name in ("G", "R", "Y"):
            node_input.tap(name, hold=0.02)
            time.sleep(0.05)
        assert until(lambda: heard[-1].get("pressed") == 3, 5)
        cancel.set()

    started = time.monotonic()
    report = selftest(
        surface,
        node_input,
        NAMES,
        timeout=60,
        cancel=cancel,
        progress=heard.append,
        on_ready=lambda: threading.Thread(target=press_three_then_cancel, daemon=True).start(),
    )
    assert time.monotonic() - started < 10  # not the 60 s of the press step
    assert report.cancelled and not report.ok and report.pressed == ["G", "R", "Y"] and report.dead == []
    assert report.to_dict()["cancelled"] is True
    assert "the rest untested: cancelled" in report.text() and report.text().endswith("result: cancelled")
    sweep_steps = [h for h in heard if h["step"] == "sweep"]
    assert (
        [h["done"] for h in sweep_steps]
        == list(range(1, report.sweep_frames))
        == list(range(1, sweep_steps[0]["of"] + 1))
    )  # every frame of the sweep, counted against all of them
    nodes = [h for h in heard if h["step"] == "nodes"]
    assert nodes[0]["pressed"] == 0 and nodes[-1]["pressed"] == 3 and {h["of"] for h in nodes} == {341}
    assert 55 < nodes[0]["until"] - started <= 61  # the press step's end on the clock: 60 s after it began


def test_a_self_test_cancelled_in_its_sweep_lights_no_more_blocks():
    with Recording(load_layout("panels-32x32", BOARD)) as surface, SimulatedNodeInput(BUTTONS) as node_input:
        cancel = threading.Event()
        shown = []

        def frame(step):
            shown.append(step)
            if step.get("done") == 5:
                cancel.set()

        report = selftest(surface, node_input, NAMES, timeout=60, cancel=cancel, progress=frame)
    assert report.cancelled and report.sweep_frames == 6 and len(surface.raw) == 6  # five blocks, then dark
    assert surface.raw[-1] == [(0, 0, 0)] * 1024 and report.pressed == [] and report.dead == []
    assert [s["step"] for s in shown][-1] == "link"  # it never asked for a press


def test_the_companions_self_test_runs_one_at_a_time_is_followed_and_cancelled(board):
    """hardware.selftest.Run, as the companion's pages use it: started, its progress in status(), a second
    start refused while it runs, cancelled (the board given back before cancel returns), started again."""
    from hardware.selftest import Run

    surface, node_input = board
    ended = []
    run = Run(surface, node_input, NAMES, pause=0.0, on_end=lambda: ended.append(run.running))
    assert run.status() is None and not run.cancel()  # nothing to cancel
    assert run.start(timeout=120) and run.running and not run.start(timeout=120)
    assert run.status()["running"] and run.status()["nodes"] == 341
    assert until(lambda: run.status().get("step") == "nodes")
    node_input.tap("GG", hold=0.02)
    assert until(lambda: run.status()["pressed"] == 1)
    status = run.status()
    assert status["of"] == 341 and 100 < status["left"] <= 120 and "until" not in status
    assert run.cancel() and not run.running and ended == [False]  # let go of the board, then told so
    report = run.status()
    assert report["cancelled"] and not report["ok"] and report["pressed"] == 1 and report["dead"] == []
    assert not run.cancel()
    assert run.start(timeout=120) and run.cancel() and ended == [False, False]
