"""The board as text (``gryb-companion board``): each node's focus letter, or its name, at its
``node.position``."""

from __future__ import annotations

from companion.rules import node as nd


def render(
    depth: int = nd.STANDARD_DEPTH, marks: dict[int, str] | None = None, headless: bool = False
) -> str:
    """A line per grid row; ``marks`` overrides the letter drawn at some nodes (stones)."""
    half = (1 << depth) - 1
    width = 2 * half + 1
    grid = [[" "] * width for _ in range(width)]
    for n in nd.nodes(depth, headless):
        x, y = nd.position(n, depth)
        letter = nd.focus(n) or nd.HEAD_NAME
        grid[y + half][x + half] = (marks or {}).get(n, letter)
    return "\n".join(" ".join(row).rstrip() for row in grid)


def render_names(depth: int = nd.STANDARD_DEPTH, headless: bool = False) -> str:
    """The board with every node's name centred where its letter is: the names to type."""
    half = (1 << depth) - 1
    # Bottom-level nodes stand two grid cells apart: two of their names and a space fit in two cells.
    cell = depth // 2 + 1
    margin = depth  # room for a name reaching left of the first cell; taken off again below
    rows = [[" "] * (margin + (2 * half + 1) * cell + depth) for _ in range(2 * half + 1)]
    for n in nd.nodes(depth, headless):
        x, y = nd.position(n, depth)
        name = nd.name(n)
        start = margin + (x + half) * cell + (cell - len(name)) // 2
        rows[y + half][start : start + len(name)] = name
    lines = ["".join(row).rstrip() for row in rows]
    indent = min(len(line) - len(line.lstrip()) for line in lines if line)
    return "\n".join(line[indent:] for line in lines)
