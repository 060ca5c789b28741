"""A match code on the LEDs: its characters drawn on the 16 x 16 grid the bottom level's nodes make
(docs/linking.md, "The code on the LEDs")."""

from __future__ import annotations

from companion.rules import node as nd
from companion.rules.node import Node
from companion.session.palette import BOARD_COLOURS

RGB = tuple[int, int, int]
GRID = 16  # the bottom level's nodes stand in 16 rows of 16 (docs/rules/game-space.md)
GROUP_COLOURS = ("G", "R", "Y")  # the code's three groups of four, a row of characters each

# 3 x 5 dots, one string a row, each its own; a digit and the letter like it (0/D, 2/Z, 5/S, 6/G, 8/B) differ
# in two dots or more (a test says so).
FONT = {
    "0": (".#.", "#.#", "#.#", "#.#", ".#."),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "##.", "##.", "#.#", "#.#"),
    "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": ("###", "#.#", "#.#", "###", "..#"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "#.#", "###", "#.#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
}


def _grid() -> dict[tuple[int, int], Node]:
    """(column, row) of each bottom-level node: its position's odd coordinates -15..15, halved."""
    first = nd.first_of_level(nd.STANDARD_DEPTH)
    cells = {}
    for n in range(first, first + GRID * GRID):
        x, y = nd.position(n)
        cells[((x + GRID - 1) // 2, (y + GRID - 1) // 2)] = n
    return cells


CELLS = _grid()
NODES: tuple[Node, ...] = tuple(sorted(CELLS.values()))  # what a code's picture may light
COVERED: tuple[Node, ...] = tuple(n for n in range(nd.count(nd.STANDARD_DEPTH)) if nd.level(n) >= 3)


def picture(code: str) -> dict[Node, RGB]:
    """The code ``XXXX-XXXX-XXXX``: a group a row, four characters across, each 3 x 5 dots a column apart;
    every other node of the two bottom levels dark, so the dots read alone."""
    lit: dict[Node, RGB] = dict.fromkeys(COVERED, (0, 0, 0))
    for row, (group, colour) in enumerate(zip(code.split("-"), GROUP_COLOURS)):
        for column, char in enumerate(group):
            for dy, line in enumerate(FONT[char]):
                for dx, dot in enumerate(line):
                    if dot == "#":
                        lit[CELLS[(4 * column + dx, 5 * row + dy)]] = BOARD_COLOURS[colour]
    return lit
