"""Nodes of the GRYB game space, in the manuals' notation, and where each one sits on the board.

A node is named by the colours of the path from the head node down to it: ``G``, ``RG``, ``GGBY``.
Each letter is a *locus*; the last one is the *focus*, the colour the stone sits on. The head node
is ``0``. Internally a node is an ``int``: its place in breadth-first order (head 0, then G R Y B,
then GG GR GY GB RG ...), so the children of node ``n`` are ``4n+1 .. 4n+4`` and its parent is
``(n-1)//4``, as in a binary heap. Bitboards of nodes are plain Python ints (python-chess style).
"""

from __future__ import annotations

Node = int
Bitboard = int

COLOURS = "GRYB"
"""The colours in their cyclic order: each one neighbours the next, and G-Y and R-B are opposite."""

HEAD: Node = 0
HEAD_NAME = "0"
MAX_DEPTH = 6
"""Super Giant GRYB (16 boards, 5461 nodes) is the largest game space the manuals describe."""

STANDARD_DEPTH = 4


class NodeError(ValueError):
    """A node name that does not name a node of this board; the message says what is wrong."""


def count(depth: int) -> int:
    """Number of nodes on a board ``depth`` levels deep, head included: 1 + 4 + ... + 4**depth."""
    return (4 ** (depth + 1) - 1) // 3


def first_of_level(level: int) -> Node:
    return (4**level - 1) // 3


def _build_names() -> tuple[str, ...]:
    names = [HEAD_NAME]
    level = [""]
    for _ in range(MAX_DEPTH):
        level = [prefix + colour for prefix in level for colour in COLOURS]
        names.extend(level)
    return tuple(names)


NODE_NAMES: tuple[str, ...] = _build_names()
_INDEX: dict[str, Node] = {name: node for node, name in enumerate(NODE_NAMES)}

LEVEL: tuple[int, ...] = tuple(0 if name == HEAD_NAME else len(name) for name in NODE_NAMES)

# Corner of each colour on a quadrangle, x to the right and y downwards (screen and LED-row order):
# G top-left, R top-right, Y bottom-right, B bottom-left.
CORNER: dict[str, tuple[int, int]] = {"G": (-1, -1), "R": (1, -1), "Y": (1, 1), "B": (-1, 1)}


def name(node: Node) -> str:
    return NODE_NAMES[node]


def loci(node: Node) -> str:
    """The node's loci as a string of colour letters ('' for the head node)."""
    return "" if node == HEAD else NODE_NAMES[node]


def level(node: Node) -> int:
    return LEVEL[node]


def focus(node: Node) -> str | None:
    """The colour the stone sits on; None for the head node, whose colour is arbitrary."""
    return None if node == HEAD else NODE_NAMES[node][-1]


def parent(node: Node) -> Node | None:
    return None if node == HEAD else (node - 1) // 4


def children(node: Node) -> tuple[Node, Node, Node, Node]:
    first = 4 * node + 1
    return (first, first + 1, first + 2, first + 3)


def quadrangle(node: Node) -> tuple[Node, Node, Node, Node] | None:
    """The quadrangle the node sits on (itself and its three siblings, in G R Y B order)."""
    if node == HEAD:
        return None
    return children((node - 1) // 4)


def from_loci(colours: str) -> Node:
    """The node with these loci (no validation beyond the lookup; '' is the head node)."""
    return _INDEX[colours or HEAD_NAME]


def parse(text: str, depth: int = STANDARD_DEPTH, headless: bool = False) -> Node:
    """Parse a node name on a board ``depth`` levels deep; raise :class:`NodeError` naming the problem."""
    if not isinstance(text, str):
        raise NodeError(f"a node name must be text, not {type(text).__name__}")
    if text == "":
        raise NodeError(
            "empty node name: name a node by its colours, e.g. G, RG, GGBY, or 0 for the head node"
        )
    if text == HEAD_NAME:
        if headless:
            raise NodeError("the head node 0 is not on a headless board")
        return HEAD
    # A runaway name (a megabyte from a pipe or a request) is quoted by its start, not echoed whole.
    shown = text if len(text) <= 24 else text[:19] + "…"  # as the page quotes a long word: 20 with its quote
    for letter in text:
        if letter not in COLOURS:
            hint = " (node names are capital letters)" if letter.upper() in COLOURS else ""
            raise NodeError(f"bad node name {shown!r}: {letter!r} is not one of the colours G, R, Y, B{hint}")
    if len(text) > depth:
        raise NodeError(
            f"node {shown} has {len(text)} loci but this board is only {depth} "
            f"level{'s' if depth != 1 else ''} deep"
        )
    return _INDEX[text]


def position(node: Node, depth: int = STANDARD_DEPTH) -> tuple[int, int]:
    """The node's point in the one fractal embedding every part of the product shares.

    A node ``c1..ck`` sits at ``sum(corner(ci) * 2**(depth-i))``: each quadrangle encircles its parent
    at half the size. On the standard board that is a 31x31 grid, -15..15 on both axes.
    """
    x = y = 0
    for i, colour in enumerate(loci(node), start=1):
        cx, cy = CORNER[colour]
        scale = 1 << (depth - i)
        x += cx * scale
        y += cy * scale
    return (x, y)


def nodes(depth: int = STANDARD_DEPTH, headless: bool = False) -> range:
    """Every node of a board in breadth-first order."""
    return range(1 if headless else 0, count(depth))
