"""Draw docs/images/simulated-board.png: the simulator's picture of a game in progress.

    .venv/bin/python docs/tools/simulated_board.py [output.png]      (needs the docs extra: Pillow)

A frame made by hand to look like a two-player game (the real look: companion/session/renderer.py),
drawn through the Pi's LED pipeline (brightness, gamma, current limiter) on the 32x32 layout.
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.service.geometry import board_geometry
from companion.session.palette import BOARD_COLOURS
from hardware.led_layout import load_layout
from hardware.leds import SimulatedSurface

WHITE = (255, 255, 255)
MAGENTA = (255, 0, 200)
GOLD = (255, 190, 40)
IMAGE = Path(__file__).resolve().parents[1] / "images" / "simulated-board.png"


def dim(colour, factor):
    return tuple(round(c * factor) for c in colour)


def frame() -> tuple[dict, list]:
    nodes = {}
    for name in ("GG", "GGRY", "GRBB", "RB", "RYYG", "YB", "BGGR", "GYRB"):
        nodes[name] = dim(WHITE, 0.85)
    for name in ("R", "RRGY", "RGB", "YYBR", "BR", "BYGY", "YRRG", "GBYB"):
        nodes[name] = dim(MAGENTA, 0.85)
    nodes["YRRG"] = MAGENTA  # the stone just moved ...
    nodes["YRR"] = dim(MAGENTA, 0.15)  # ... and the trail on the node it left
    for name in ("BYGG", "BYGR", "BYGY", "BYGB"):  # a GRYB found by magenta, lit gold
        nodes[name] = GOLD
    nodes["GB"] = dim(WHITE, 0.95)  # white has picked up a stone ...
    for name in ("G", "GBY", "GBB", "B"):  # ... and the nodes it may go to pulse softly
        nodes[name] = dim(WHITE, 0.25)
    status = [WHITE] * 4 + [BOARD_COLOURS["Y"]] * 4  # white to move, the die showed Y
    return nodes, status


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else IMAGE
    with SimulatedSurface(load_layout("panels-32x32", board_geometry()), brightness=1.0) as surface:
        nodes, status = frame()
        surface.show_nodes(nodes, status)
        surface.render_png(out, BOARD_COLOURS, scale=16)
        print(
            f"{out}: {len(surface.node_colours())} nodes lit, "
            f"{surface.status()['last_frame_ma']} mA estimated"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
