"""The board's printed colours as the LEDs light them (hardware/ is handed these)."""

from __future__ import annotations

BOARD_COLOURS = {"G": (0, 160, 60), "R": (220, 30, 30), "Y": (240, 200, 0), "B": (20, 70, 220)}
