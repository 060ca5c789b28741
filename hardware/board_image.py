"""The simulated board as a picture (Pillow): the printed bandanna with the LEDs' glow on top.

The bandanna: quadrangle rods, then every node printed in its G/R/Y/B colour (bigger dots for higher
levels, the head node white). A lit node glows through the cloth around its dot, and the dot's centre
shows the LED's colour exactly, so a test can read a node's colour off the picture. The status pixels
(whose turn, the die) sit in a strip under the board, as on the LED matrix's spare row.

Node (x, y) of the board (-15..15) is drawn centred at ((x + 16.5) * scale, (y + 16.5) * scale); the
picture is ``33 * scale`` wide and ``35 * scale`` high.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from companion.rules import node as nd
from companion.service.config import BOARD_COLOURS

RGB = tuple[int, int, int]
DEPTH = nd.STANDARD_DEPTH
CLOTH: RGB = (30, 32, 38)
ROD: RGB = (120, 124, 132)
HEAD: RGB = (225, 225, 225)
DARK_SLOT: RGB = (60, 62, 70)
TEXT: RGB = (170, 172, 180)
CENTRE = 0.22  # radius of a lit node's centre disk, in grid units


def size(scale: int) -> tuple[int, int]:
    return (33 * scale, 35 * scale)


def centre(node: int, scale: int) -> tuple[float, float]:
    """Where a node (index) is drawn."""
    x, y = nd.position(node, DEPTH)
    return ((x + 16.5) * scale, (y + 16.5) * scale)


def status_centre(slot: int, scale: int, slots: int = 8) -> tuple[float, float]:
    """Status slots: the first half (whose turn) at the left, the second half (the die) at the right."""
    half = slots // 2
    x = 1.5 + slot if slot < half else 31.5 - (slots - 1 - slot)
    return (x * scale, 33.75 * scale)


def _disc(draw: ImageDraw.ImageDraw, xy: tuple[float, float], radius: float, fill: RGB) -> None:
    x, y = xy
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill)


def draw_board(lit: Mapping[str, RGB], status: Sequence[RGB] = (), scale: int = 16) -> Image.Image:
    """The board with these nodes glowing (node name -> apparent RGB) and these status colours."""
    if not isinstance(scale, int) or not 4 <= scale <= 64:
        raise ValueError(f"scale is pixels per grid step, 4..64, not {scale!r}")
    image = Image.new("RGB", size(scale), CLOTH)
    draw = ImageDraw.Draw(image)

    for parent in nd.nodes(DEPTH - 1):  # the rods: each quadrangle's four sides, thicker higher up
        corners = [centre(child, scale) for child in nd.children(parent)]
        width = max(1, round(scale * 0.05 * (DEPTH - nd.level(parent))))
        draw.line(corners + corners[:1], fill=ROD, width=width, joint="curve")

    lit_nodes = [(nd.from_loci("" if name == nd.HEAD_NAME else name), colour) for name, colour in lit.items()]
    if lit_nodes or any(c != (0, 0, 0) for c in status):  # the glow shines through the cloth around each dot
        glow = Image.new("RGB", image.size, (0, 0, 0))
        glow_draw = ImageDraw.Draw(glow)
        for n, colour in lit_nodes:
            _disc(glow_draw, centre(n, scale), 0.8 * scale, colour)
        for i, colour in enumerate(status):
            _disc(glow_draw, status_centre(i, scale, max(8, len(status))), 0.55 * scale, colour)
        glow = glow.filter(ImageFilter.GaussianBlur(0.35 * scale))
        image = ImageChops.screen(image, glow)
        draw = ImageDraw.Draw(image)

    for n in nd.nodes(DEPTH):  # the printed dots
        colour = HEAD if n == nd.HEAD else BOARD_COLOURS[nd.focus(n)]
        _disc(draw, centre(n, scale), scale * (0.3 + 0.05 * (DEPTH - nd.level(n))), colour)
    for n, colour in lit_nodes:  # the LED itself, exact
        _disc(draw, centre(n, scale), CENTRE * scale, colour)

    slots = max(8, len(status))
    for i in range(slots):
        colour = status[i] if i < len(status) else (0, 0, 0)
        _disc(draw, status_centre(i, scale, slots), 0.36 * scale, DARK_SLOT)
        if colour != (0, 0, 0):
            _disc(draw, status_centre(i, scale, slots), 0.3 * scale, colour)
    font = ImageFont.load_default(size=max(8, round(0.6 * scale)))
    y = status_centre(0, scale)[1]
    draw.text(
        (status_centre(slots // 2 - 1, scale, slots)[0] + 0.7 * scale, y),
        "turn",
        fill=TEXT,
        font=font,
        anchor="lm",
    )
    draw.text(
        (status_centre(slots // 2, scale, slots)[0] - 0.7 * scale, y),
        "die",
        fill=TEXT,
        font=font,
        anchor="rm",
    )
    return image
