"""The simulator's picture of the board: real properties read back from the PNG."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageChops

from companion.service.geometry import board_geometry
from companion.session.palette import BOARD_COLOURS
from hardware.board_image import CLOTH, centre, draw_board, status_centre
from hardware.led_layout import load_layout
from hardware.leds import SimulatedSurface

ROOT = Path(__file__).resolve().parents[2]
BOARD = board_geometry()


def png(surface, scale=16) -> Image.Image:
    buf = io.BytesIO()
    surface.render_png(buf, BOARD_COLOURS, scale=scale)
    buf.seek(0)
    image = Image.open(buf)
    assert image.format == "PNG"
    return image.convert("RGB")


def at(image, xy):
    return image.getpixel((round(xy[0]), round(xy[1])))


def test_size_follows_the_scale():
    with SimulatedSurface(load_layout("panels-32x32", BOARD)) as s:
        assert png(s, 16).size == (33 * 16, 35 * 16)
        assert png(s, 8).size == (33 * 8, 35 * 8)


def test_a_lit_nodes_centre_shows_the_led_colour_and_dark_nodes_their_print():
    with SimulatedSurface(load_layout("panels-32x32", BOARD), brightness=0.7) as s:
        s.show_nodes({"G": (255, 0, 200), "RGBY": (255, 255, 255), "0": (255, 190, 40)})
        shown = s.node_colours()
        image = png(s)
        for name, colour in shown.items():
            assert at(image, centre(BOARD, name, 16)) == colour
        assert at(image, centre(BOARD, "YB", 16)) == BOARD_COLOURS["B"]  # dark: the printed dot
        assert at(image, centre(BOARD, "RRRR", 16)) == BOARD_COLOURS["R"]


def test_the_glow_reaches_past_the_printed_dot():
    lit = {"RB": (0, 255, 0)}
    image = draw_board(BOARD, BOARD_COLOURS, lit, scale=16)
    dark = draw_board(BOARD, BOARD_COLOURS, {}, scale=16)
    x, y = centre(BOARD, "RB", 16)
    halo = (x + 0.62 * 16, y)  # outside the dot, inside the glow
    assert at(image, halo)[1] > at(dark, halo)[1] + 20
    far = (x + 5 * 16, y + 0.5 * 16)
    assert at(image, far) == at(dark, far)


def test_status_pixels_are_drawn_under_the_board():
    with SimulatedSurface(load_layout("chain-341", BOARD), brightness=1.0) as s:
        s.show_nodes({}, [(255, 0, 0)] * 4 + [(240, 200, 0)] * 4)
        image = png(s)
        assert at(image, status_centre(BOARD, 0, 16)) == (255, 0, 0)
        assert at(image, status_centre(BOARD, 7, 16)) == (240, 200, 0)
        assert at(image, (2, 2)) == CLOTH


def test_the_docs_picture_is_made_by_its_script(tmp_path):
    out = tmp_path / "board.png"
    result = subprocess.run(
        [sys.executable, str(ROOT / "docs/tools/simulated_board.py"), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    made = Image.open(out).convert("RGB")
    committed = Image.open(ROOT / "docs/images/simulated-board.png").convert("RGB")
    assert made.size == committed.size == (33 * 16, 35 * 16)
    # the committed picture is up to date (a little slack for text/blur rendering in other Pillow builds)
    r, g, b = ImageChops.difference(made, committed).split()
    differ = sum(ImageChops.lighter(ImageChops.lighter(r, g), b).histogram()[9:])
    assert differ < 0.01 * made.width * made.height
