"""Nodes in the manuals' notation (``0``, ``G``, ``RG``), stored as ints in breadth-first order and sets of
them as bitboards (docs/rules/game-space.md, "Nodes and boards")."""

from __future__ import annotations

Node = int
Bitboard = int

COLOURS = "GRYB"  # in their cyclic order: each neighbours the next; G-Y and R-B are opposite

HEAD: Node = 0
HEAD_NAME = "0"
MAX_DEPTH = 6  # Super Giant GRYB (16 boards, 5461 nodes), the largest in the manuals

STANDARD_DEPTH = 4


class NodeError(ValueError):
    """A name that is no node of this board; the message says why."""


def count(depth: int) -> int:
    """Nodes on a board ``depth`` levels deep, head included: 1 + 4 + ... + 4**depth."""
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

# Each colour's corner of a quadrangle, x rightwards and y downwards.
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
    """The node and its three siblings, in G R Y B order."""
    if node == HEAD:
        return None
    return children((node - 1) // 4)


def from_loci(colours: str) -> Node:
    """The node with these loci, unchecked ('' is the head node)."""
    return _INDEX[colours or HEAD_NAME]


def parse(text: str, depth: int = STANDARD_DEPTH, headless: bool = False) -> Node:
    """A node name on a board ``depth`` levels deep, or :class:`NodeError` naming the problem."""
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
    # A runaway name (a megabyte from a pipe) is quoted by its start, as the page quotes a long word.
    shown = text if len(text) <= 24 else text[:19] + "…"
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
    """The node's point in the fractal embedding: ``sum(corner(ci) * 2**(depth-i))`` over its loci."""
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
