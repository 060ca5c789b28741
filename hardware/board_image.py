"""The simulated board as a picture: the printed bandanna, the LEDs' glow, the status pixels under it.
A lit dot's centre shows the LED's colour exactly, for tests. Pillow (the ``docs`` extra) only here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hardware.geometry import Board

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
CLOTH: RGB = (30, 32, 38)
ROD: RGB = (120, 124, 132)
HEAD: RGB = (225, 225, 225)
DARK_SLOT: RGB = (60, 62, 70)
TEXT: RGB = (170, 172, 180)
CENTRE = 0.22  # radius of a lit node's centre disk, in grid units


def _pillow():
    try:
        import PIL.Image
        import PIL.ImageChops
        import PIL.ImageDraw
        import PIL.ImageFilter
        import PIL.ImageFont
    except ImportError:
        raise ImportError(
            "drawing the board needs Pillow, which is an extra: pip install 'gryb-companion[docs]'"
        ) from None
    return PIL


def size(board: Board, scale: int) -> tuple[int, int]:
    width = 2 * board.reach + 3
    return (width * scale, (width + 2) * scale)


def centre(board: Board, name: str, scale: int) -> tuple[float, float]:
    """Where a node is drawn: 1.5 grid steps of margin round the board."""
    x, y = board.points[name]
    offset = board.reach + 1.5
    return ((x + offset) * scale, (y + offset) * scale)


def status_centre(board: Board, slot: int, scale: int, slots: int = 8) -> tuple[float, float]:
    """Status slots: the first half (whose turn) at the left, the second half (the die) at the right."""
    half = slots // 2
    width = 2 * board.reach + 3
    x = 1.5 + slot if slot < half else width - 1.5 - (slots - 1 - slot)
    return (x * scale, (width + 0.75) * scale)


def _disc(draw: ImageDraw.ImageDraw, xy: tuple[float, float], radius: float, fill: RGB) -> None:
    x, y = xy
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill)


def draw_board(
    board: Board,
    palette: Mapping[str, RGB],
    lit: Mapping[str, RGB],
    status: Sequence[RGB] = (),
    scale: int = 16,
) -> Image.Image:
    """The board printed in ``palette`` (letter -> RGB) with ``lit`` nodes glowing (name -> RGB)."""
    if not isinstance(scale, int) or not 4 <= scale <= 64:
        raise ValueError(f"scale is pixels per grid step, 4..64, not {scale!r}")
    PIL = _pillow()
    image = PIL.Image.new("RGB", size(board, scale), CLOTH)
    draw = PIL.ImageDraw.Draw(image)
    depth = board.depth

    for quadrangle in board.quadrangles:  # the rods: each quadrangle's four sides, thicker higher up
        corners = [centre(board, name, scale) for name in quadrangle]
        width = max(1, round(scale * 0.05 * (depth - board.levels[quadrangle[0]] + 1)))
        draw.line(corners + corners[:1], fill=ROD, width=width, joint="curve")

    if lit or any(c != (0, 0, 0) for c in status):  # the glow shines through the cloth around each dot
        glow = PIL.Image.new("RGB", image.size, (0, 0, 0))
        glow_draw = PIL.ImageDraw.Draw(glow)
        for name, colour in lit.items():
            _disc(glow_draw, centre(board, name, scale), 0.8 * scale, colour)
        for i, colour in enumerate(status):
            _disc(glow_draw, status_centre(board, i, scale, max(8, len(status))), 0.55 * scale, colour)
        glow = glow.filter(PIL.ImageFilter.GaussianBlur(0.35 * scale))
        image = PIL.ImageChops.screen(image, glow)
        draw = PIL.ImageDraw.Draw(image)

    for name in board:  # the printed dots
        colour = HEAD if name == board.head else palette[board.focus[name]]
        _disc(draw, centre(board, name, scale), scale * (0.3 + 0.05 * (depth - board.levels[name])), colour)
    for name, colour in lit.items():  # the LED itself, exact
        _disc(draw, centre(board, name, scale), CENTRE * scale, colour)

    slots = max(8, len(status))
    for i in range(slots):
        colour = status[i] if i < len(status) else (0, 0, 0)
        _disc(draw, status_centre(board, i, scale, slots), 0.36 * scale, DARK_SLOT)
        if colour != (0, 0, 0):
            _disc(draw, status_centre(board, i, scale, slots), 0.3 * scale, colour)
    font = PIL.ImageFont.load_default(size=max(8, round(0.6 * scale)))
    y = status_centre(board, 0, scale)[1]
    draw.text(
        (status_centre(board, slots // 2 - 1, scale, slots)[0] + 0.7 * scale, y),
        "turn",
        fill=TEXT,
        font=font,
        anchor="lm",
    )
    draw.text(
        (status_centre(board, slots // 2, scale, slots)[0] - 0.7 * scale, y),
        "die",
        fill=TEXT,
        font=font,
        anchor="rm",
    )
    return image
