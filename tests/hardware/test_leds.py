"""The LED surface pipeline (on the simulator, the code the Pi runs) and the rpi_ws281x driver's checks."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from companion.service.geometry import board_geometry
from hardware.led_layout import load_layout
from hardware.leds import (
    BURST,
    GAMMA,
    HardwarePaths,
    LedError,
    LedInputError,
    LedSurface,
    PowerModel,
    SimulatedSurface,
    Ws281xSurface,
    check_platform,
    gamma_table,
    open_surface,
    pack_words,
    spi_buffer_bytes,
)

PANELS = load_layout("panels-32x32", board_geometry())
CHAIN = load_layout("chain-341", board_geometry())


def sim(layout=PANELS, **kw):
    kw.setdefault("brightness", 1.0)
    kw.setdefault("budget_ma", 60000)
    kw.setdefault("fps", 1000 if "fps" not in kw else kw["fps"])
    return SimulatedSurface(layout, **kw)


def duty(v, brightness=1.0):
    return round(255 * ((v * brightness) / 255) ** GAMMA)


# -- compose, gamma, brightness --------------------------------------------------------------------------


def test_show_nodes_lights_the_nodes_pixels_and_nothing_else():
    with sim() as s:
        s.show_nodes({"G": (255, 0, 0), "RGBY": (0, 0, 255)}, [(255, 255, 255)] * 4)
        frame = s.frame
        lit = {i for i, c in enumerate(frame) if c != (0, 0, 0)}
        assert lit == {PANELS.nodes["G"], PANELS.nodes["RGBY"], *PANELS.status[:4]}
        assert frame[PANELS.nodes["G"]] == (255, 0, 0)
        assert frame[PANELS.status[0]] == (255, 255, 255)
        assert s.node_colours() == {"G": (255, 0, 0), "RGBY": (0, 0, 255)}


def test_unlisted_nodes_go_dark_on_the_next_frame():
    with sim(CHAIN) as s:
        s.show_nodes({"G": (10, 200, 30)})
        s.show_nodes({"R": (10, 200, 30)})
        s.settle()
        assert list(s.node_colours()) == ["R"]


def test_gamma_and_brightness_come_from_one_256_entry_table():
    table = gamma_table(0.5)
    assert len(table) == 256 and table[0] == 0
    assert table[255] == duty(255, 0.5) and table[128] == duty(128, 0.5)
    with sim(brightness=0.5) as s:
        s.show_nodes({"G": (255, 128, 20)})
        assert s.frame[PANELS.nodes["G"]] == (duty(255, 0.5), duty(128, 0.5), duty(20, 0.5))
        s.brightness = 1.0
        s.show_nodes({"G": (255, 128, 20)})
        s.settle()
        assert s.frame[PANELS.nodes["G"]] == (255, duty(128), duty(20))


def test_node_colours_undo_gamma_as_a_screen_shows_them():
    with sim() as s:
        s.show_nodes({"G": (200, 120, 60)})
        shown = s.node_colours()["G"]
        assert all(abs(a - b) <= 3 for a, b in zip(shown, (200, 120, 60)))


# -- what the LEDs show, for the web page (GET /api/leds) ----------------------------------------------------


def test_shown_is_each_lit_node_and_status_pixel_as_the_leds_show_it_with_the_frame_count():
    with sim(brightness=0.5) as s:
        assert s.shown() == {
            "nodes": {},
            "status": [(0, 0, 0)] * 8,
            "frames": 0,
            "limited": False,
        }  # dark at first
        s.show_nodes({"G": (255, 0, 0), "RGBY": (0, 0, 255)}, [(255, 255, 255)] * 4)
        shown = s.shown()
        assert shown == {
            "nodes": s.node_colours(),
            "status": s.status_colours(),
            "frames": 1,
            "limited": False,
        }
        assert shown["nodes"] == {
            "G": (128, 0, 0),
            "RGBY": (0, 0, 128),
        }  # at half brightness, as the eye sees it
        assert shown["status"] == [(128, 128, 128)] * 4 + [(0, 0, 0)] * 4
        s.show_nodes({"G": (255, 0, 0), "RGBY": (0, 0, 255)}, [(255, 255, 255)] * 4)
        assert s.shown()["frames"] == 1  # the same frame is not sent again: the count says nothing changed
        s.brightness = 1.0
        s.show_nodes({"G": (255, 0, 0)})
        assert s.shown() == {
            "nodes": {"G": (255, 0, 0)},
            "status": [(0, 0, 0)] * 8,
            "frames": 2,
            "limited": False,
        }


def test_shown_is_dimmed_as_the_current_limiter_dims_the_leds():
    whole = {name: (255, 255, 255) for name in PANELS.nodes}
    with sim(budget_ma=60000) as free, sim(budget_ma=2000) as tight:
        free.show_nodes(whole)
        tight.show_nodes(whole)
        assert free.shown()["limited"] is False and free.shown()["nodes"]["G"] == (255, 255, 255)
        (r, g, b) = tight.shown()["nodes"]["G"]
        assert tight.shown()["limited"] is True and r == g == b and 0 < r < 255
        assert tight.shown()["nodes"] == {name: (r, g, b) for name in PANELS.nodes}


def test_a_surface_that_keeps_no_frame_of_its_own_shows_the_frame_last_sent():
    """The Pi's surface hands each frame to rpi_ws281x and keeps none itself; what it shows comes from the
    frame every surface keeps to skip unchanged ones, so the page can show it too at no cost."""

    class Elsewhere(LedSurface):  # a backend whose LEDs are out of reach, as the Pi's are to a test
        driver = "elsewhere"

        def _write(self, wire: bytes) -> None:
            pass

    with Elsewhere(PANELS, brightness=1.0, budget_ma=60000, fps=1000) as s:
        assert s.shown()["nodes"] == {}
        s.show_nodes({"YY": (0, 255, 0)}, [(0, 0, 255)])
        assert s.shown() == {
            "nodes": {"YY": (0, 255, 0)},
            "status": [(0, 0, 255)] + [(0, 0, 0)] * 7,
            "frames": 1,
            "limited": False,
        }


@pytest.mark.parametrize("value", [-0.1, 1.5, "1", None, True])
def test_bad_brightness_is_refused_and_changes_nothing(value):
    with sim(brightness=0.3) as s:
        with pytest.raises(LedInputError, match="brightness is a number from 0 to 1"):
            s.brightness = value
        assert s.brightness == 0.3
    with pytest.raises(LedInputError):
        sim(brightness=value)


@pytest.mark.parametrize(
    "nodes,status,message",
    [
        ({"X": (1, 2, 3)}, (), "'X' is not a node of layout panels-32x32"),
        ({"G": (1, 2)}, (), "G: a colour is three integers"),
        ({"G": (1, 2, 300)}, (), "G: a colour is three integers"),
        ({"G": "red"}, (), "G: a colour is three integers"),
        (
            {"G": (1, 2), "R": (1, 2, 3, 4)},
            (),
            "G: a colour is three integers",
        ),  # lengths that add up are no excuse
        ({}, [(0, 0, 0)] * 9, "9 status colours, but layout panels-32x32 has 8"),
        ({}, [(0, 0, -1)], "status\\[0\\]: a colour"),
    ],
)
def test_bad_frames_are_refused_and_the_leds_keep_the_last_frame(nodes, status, message):
    with sim() as s:
        s.show_nodes({"G": (9, 9, 9)})
        before = (s.wire, s.frames_sent)
        with pytest.raises(LedInputError, match=message):
            s.show_nodes(nodes, status)
        assert (s.wire, s.frames_sent) == before


def test_show_pixels_sends_a_raw_frame_in_chain_order():
    with sim(CHAIN) as s:
        pixels = [(0, 0, 0)] * CHAIN.pixel_count
        pixels[0] = (255, 255, 255)
        pixels[348] = (0, 255, 0)
        s.show_pixels(pixels)
        assert s.frame[0] == (255, 255, 255) and s.frame[348] == (0, 255, 0)
        assert s.node_colours() == {CHAIN.node_at(0): (255, 255, 255)}
        with pytest.raises(LedInputError, match="has 349 pixels, not 3"):
            s.show_pixels(pixels[:3])


# -- current limiter -----------------------------------------------------------------------------------------


def test_a_frame_under_the_budget_is_not_touched():
    with sim(budget_ma=4000) as s:
        s.show_nodes({"G": (255, 255, 255)})
        status = s.status()
        assert status["limited"] is False
        assert status["last_frame_ma"] == round(16 + 11 + 15 + 1024 * 1.0)  # one white LED + idle draw


def test_the_limiter_scales_a_full_white_board_down_to_the_budget_keeping_the_hue():
    budget = 4000
    with sim(budget_ma=budget) as s:
        s.show_pixels([(255, 128, 64)] * PANELS.pixel_count)
        status = s.status()
        assert status["limited"] is True
        assert s.current_ma <= budget and status["last_frame_ma"] <= budget
        assert s.current_ma > budget * 0.97  # no needless dimming
        r, g, b = s.frame[0]
        unlimited = (255, duty(128), duty(64))
        assert abs(r / unlimited[0] - g / unlimited[1]) < 0.1  # scaled together, not clipped


def test_the_limiter_counts_the_white_die_of_rgbw_leds():
    with sim(strip="GRBW", budget_ma=3000) as s:
        s.show_pixels([(255, 255, 255)] * PANELS.pixel_count)
        assert s.current_ma <= 3000 and s.status()["limited"]
        model = PowerModel()
        (w,) = {s.wire[i] for i in range(3, len(s.wire), 4)}
        assert s.current_ma == pytest.approx(PANELS.pixel_count * (w * model.white_ma / 255 + model.idle_ma))


def test_a_budget_below_the_idle_draw_is_refused():
    with pytest.raises(LedInputError, match="does not cover the idle draw of 1024 LEDs"):
        SimulatedSurface(PANELS, budget_ma=1000)


# -- encoding ------------------------------------------------------------------------------------------------


def test_grb_strips_get_green_red_blue():
    with sim(CHAIN) as s:
        s.show_pixels([(255, 0, 0)] + [(0, 0, 0)] * 348)
        assert s.wire[:3] == bytes([0, 255, 0]) and len(s.wire) == 3 * 349


def test_grbw_strips_light_the_grey_part_with_the_white_die():
    with sim(CHAIN, strip="GRBW") as s:
        s.show_pixels([(255, 255, 255), (255, 0, 0), (255, 255, 0)] + [(0, 0, 0)] * 346)
        w = s.wire
        assert len(w) == 4 * 349
        assert w[0:4] == bytes([0, 0, 0, 255])  # white: only the white die
        assert w[4:8] == bytes([0, 255, 0, 0])  # red: G R B W
        assert w[8:12] == bytes([255, 255, 0, 0])  # yellow has no grey part
        assert s.frame[0] == (255, 255, 255)


def test_pack_words_makes_rpi_ws281x_send_the_wire_bytes_unchanged():
    # told the strip is RGB, the library sends bits 16-23, 8-15, 0-7 of each word: our G, R, B
    words = pack_words(bytes([1, 2, 3, 4, 5, 6]), "GRB")
    assert list(words) == [0x010203, 0x040506]
    # RGBW: bits 16-23, 8-15, 0-7, then 24-31
    assert list(pack_words(bytes([1, 2, 3, 4]), "GRBW")) == [0x04010203]


# -- unchanged frames and the frame-rate cap -----------------------------------------------------------------


def test_an_unchanged_frame_is_not_sent_again():
    with sim() as s:
        s.show_nodes({"G": (100, 120, 130)})
        s.show_nodes({"G": (100, 120, 130)})
        assert (s.frames_sent, s.frames_unchanged) == (1, 1)


def test_frames_faster_than_the_cap_are_deferred_and_the_last_one_is_shown():
    with sim(fps=10) as s:
        for i in range(1, 7):
            s.show_nodes({"G": (100 + 20 * i, 0, 0)})
        assert s.frames_sent == BURST  # a burst goes out at once
        assert s.settle(1.0)
        assert s.frames_sent == BURST + 1  # then only the newest of the rest
        assert s.frame[PANELS.nodes["G"]] == (duty(220), 0, 0)
        assert s.frames_dropped == 6 - BURST - 1


def test_the_cap_holds_the_average_rate_and_spaces_frames_after_a_burst():
    with sim(fps=20) as s:
        start = time.monotonic()
        for i in range(1, 41):
            s.show_nodes({"G": (100 + i, 0, 0)})
            time.sleep(0.01)
        s.settle(1.0)
        elapsed = time.monotonic() - start
        sent = list(s._sends)
        assert len(sent) <= BURST + elapsed * 20 + 1  # never more than the bucket allows
        # Once the burst is spent, one frame a period on average (a send the scheduler makes late lets the
        # next one follow it closely, as a token bucket should: the rate, not each gap, is the promise).
        after = sent[BURST:]
        assert len(after) >= 2 and (after[-1] - after[0]) / (len(after) - 1) >= 0.05 - 0.01
        assert s.frame[PANELS.nodes["G"]] == (duty(140), 0, 0)


def test_a_frame_after_a_steady_animation_goes_out_at_once():
    """The runtime animates at the cap's rate; the frame a press causes must not wait for a slot."""
    with sim(fps=20) as s:
        for i in range(10):  # an animation at exactly the cap's rate keeps the bucket full
            s.show_nodes({"G": (100 + i, 0, 0)})
            time.sleep(0.05)
        before = s.frames_sent
        s.show_nodes({"R": (200, 0, 0)})  # a press, 0 ms after the last animation frame
        assert s.frames_sent == before + 1


def test_going_back_to_the_shown_frame_cancels_a_deferred_one():
    with sim(fps=5) as s:
        for i in range(BURST):  # spend the burst; the last of these is on the LEDs
            s.show_nodes({"G": (150 - i, 0, 0)})
        s.show_nodes({"G": (200, 0, 0)})  # deferred
        s.show_nodes({"G": (150 - BURST + 1, 0, 0)})  # what the LEDs already show
        s.settle(1.0)
        assert s.frames_sent == BURST and s.frame[PANELS.nodes["G"]] == (duty(150 - BURST + 1), 0, 0)


def test_close_sends_a_deferred_frame_and_is_idempotent():
    s = sim(fps=2)
    s.show_nodes({"G": (100, 0, 0)})
    s.show_nodes({"G": (200, 0, 0)})
    s.close()
    s.close()
    assert s.frames_sent == 2 and s.frame[PANELS.nodes["G"]] == (duty(200), 0, 0)
    with pytest.raises(LedError, match="closed"):
        s.show_nodes({})


def test_status_is_json_for_the_settings_page():
    with open_surface(
        "sim", PANELS, brightness=0.5, budget_ma=4000, fps=30, strip="GRB", interface="spi"
    ) as s:
        s.show_nodes({"G": (255, 0, 0)})
        status = json.loads(json.dumps(s.status()))
        assert status["driver"] == "sim" and status["pixels"] == 1024 and status["brightness"] == 0.5
        assert status["fps"] == 1 and status["fps_cap"] == 30 and status["limited"] is False
        assert {"last_frame_ma", "frames_sent", "layout", "strip"} <= set(status)


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"interface": "i2c"}, "interface must be 'spi'"),
        ({"strip": "RGB"}, "strip must be 'GRB'"),
        ({"fps": 0}, "fps must be 1..1000"),
    ],
)
def test_bad_options(kw, message):
    with pytest.raises(LedInputError, match=message):
        SimulatedSurface(PANELS, **kw)
    with pytest.raises(LedInputError, match="unknown LED driver 'dmx'"):
        open_surface("dmx", PANELS)


# -- rpi_ws281x: the checks before the library is touched ----------------------------------------------------


@pytest.fixture
def pi(tmp_path_factory):
    """Fake /proc and /dev files for a Pi 4 with SPI on and permitted (world-readable: see _unprivileged)."""
    root = Path(tempfile.mkdtemp(prefix="fake-pi-", dir="/tmp"))
    root.chmod(0o755)
    for name, text in (
        ("model", "Raspberry Pi 4 Model B Rev 1.4\x00"),
        ("cpuinfo", "Model\t: Raspberry Pi 4\n"),
        ("spidev0.0", ""),
        ("gpiomem", ""),
        ("mem", ""),
        ("bufsiz", "32768\n"),
    ):
        (root / name).write_text(text)
        (root / name).chmod(0o666)
    paths = HardwarePaths(
        model=str(root / "model"),
        cpuinfo=str(root / "cpuinfo"),
        mem=str(root / "mem"),
        gpiomem=str(root / "gpiomem"),
        spidev=str(root / "spidev0.0"),
        spidev_bufsiz=str(root / "bufsiz"),
    )
    yield root, paths
    shutil.rmtree(root)


def _unprivileged(fn):
    """Run fn() as an ordinary user and return the LedError message it raised ('' for none).

    As root every file is accessible, so the child process drops to 'nobody' first (a real
    permission check, no mocks); as an ordinary user fn runs here.
    """
    if os.geteuid() != 0:
        try:
            fn()
        except LedError as err:
            return str(err)
        return ""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        message = b""
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            fn()
        except LedError as err:
            message = str(err).encode()
        except BaseException as err:
            message = f"unexpected {err!r}".encode()
        os.write(write, message)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read().decode()
    os.waitpid(pid, 0)
    return message


def test_a_pi_4_with_spi_ready_passes_the_checks(pi):
    _, paths = pi
    assert check_platform("spi", 1024, paths) == "Raspberry Pi 4 Model B Rev 1.4"


def test_not_a_pi(pi):
    root, paths = pi
    (root / "model").unlink()
    (root / "cpuinfo").write_text("processor\t: 0\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n")
    with pytest.raises(LedError, match="not a Raspberry Pi.*use the simulator"):
        Ws281xSurface(PANELS, paths=paths)


def test_this_machine_is_not_a_pi_unless_it_is():
    if Path("/proc/device-tree/model").exists():
        pytest.skip("running on a Pi")
    with pytest.raises(LedError, match="not a Raspberry Pi"):
        open_surface("ws281x", PANELS)


def test_a_pi_5_by_model_name(pi):
    root, paths = pi
    (root / "model").write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    with pytest.raises(LedError, match="rpi_ws281x does not support the Raspberry Pi 5"):
        Ws281xSurface(PANELS, paths=paths)


def test_a_pi_5_by_revision_code(pi):
    root, paths = pi
    (root / "model").unlink()
    (root / "cpuinfo").write_text("Hardware\t: BCM2835\nRevision\t: d04170\n")  # type 0x17: Pi 5
    with pytest.raises(LedError, match="does not support the Raspberry Pi 5"):
        check_platform("spi", 10, paths)
    (root / "cpuinfo").write_text("Hardware\t: BCM2835\nRevision\t: c03114\n")  # Pi 4 8 GB
    assert "c03114" in check_platform("spi", 10, paths)


def test_spi_switched_off(pi):
    root, paths = pi
    (root / "spidev0.0").unlink()
    with pytest.raises(LedError, match="spidev0.0 does not exist: enable SPI"):
        Ws281xSurface(PANELS, paths=paths)


def test_spi_not_permitted(pi):
    root, paths = pi
    (root / "spidev0.0").chmod(0o600)
    message = _unprivileged(lambda: check_platform("spi", 1024, paths))
    assert "no permission to use" in message and "spi group" in message


def test_pwm_needs_dev_mem(pi):
    root, paths = pi
    (root / "mem").chmod(0o600)
    message = _unprivileged(lambda: check_platform("pwm", 1024, paths))
    assert "PWM on GPIO18 needs" in message and "only root" in message


def test_the_spi_buffer_must_hold_the_whole_chain(pi):
    root, paths = pi
    assert spi_buffer_bytes(339) <= 4096 < spi_buffer_bytes(340)  # rpi_ws281x: 12 bytes per LED + reset
    (root / "bufsiz").write_text("4096\n")
    with pytest.raises(LedError, match="holds 4096 bytes but 349 LEDs need 4208: add spidev.bufsiz=32768"):
        check_platform("spi", CHAIN.pixel_count, paths)
    assert check_platform("spi", 300, paths)


def test_the_library_missing(pi):
    if importlib.util.find_spec("rpi_ws281x") is not None:
        pytest.skip("rpi_ws281x is installed here")
    _, paths = pi
    with pytest.raises(LedError, match="rpi_ws281x library is not installed"):
        Ws281xSurface(PANELS, paths=paths)


def test_white_extraction_matches_a_plain_per_pixel_min():
    import random

    from hardware.leds import Pipeline

    rnd = random.Random(3)
    pipeline = Pipeline(CHAIN, "GRBW", 1.0, 60000)
    r, g, b = (bytes(rnd.randrange(256) for _ in range(CHAIN.pixel_count)) for _ in range(3))
    r, g, b = r[:-3] + bytes([0, 255, 7]), g[:-3] + bytes([0, 255, 9]), b[:-3] + bytes([0, 255, 3])
    w = bytes(map(min, r, g, b))
    assert pipeline._white(r, g, b) == tuple(bytes(map(int.__sub__, c, w)) for c in (r, g, b)) + (w,)


def test_the_dimmest_brightness_still_shows_every_colour_of_the_game_apart():
    """Night mode once set 0.08, where the 8-bit duty rounds white itself to 0: the board went dark. Any
    brightness above 0 shows at least MIN_VISIBLE, where the board's colours and the default seats'
    colours are all lit and all told apart (a seat's colour, full at its brightest channel, at 5 duty
    steps or more; the board's own, dimmer like the print, at 1 or more); 0 is off."""
    from companion.service.config import Players
    from companion.session.palette import BOARD_COLOURS
    from hardware.leds import MIN_VISIBLE

    players = Players()
    colours = list(BOARD_COLOURS.values()) + [players.rgb(i) for i in range(4)]
    nodes = ["G", "R", "Y", "B", "GG", "GR", "GY", "GB"]
    for brightness in (0.01, 0.08, 0.12, MIN_VISIBLE):
        with sim(brightness=brightness) as s:
            s.show_nodes(dict(zip(nodes, colours)), [])
            lit = [s.frame[PANELS.nodes[n]] for n in nodes]
            assert all(any(c) for c in lit) and all(max(c) >= 5 for c in lit[4:]), (brightness, lit)
            assert len(set(lit)) == len(lit), (brightness, lit)
            assert s.brightness == brightness  # as set: the floor is the LEDs', not the setting's
    with sim(brightness=0.0) as s:
        s.show_nodes(dict(zip(nodes, colours)), [])
        assert not any(map(any, s.frame))
