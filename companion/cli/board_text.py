"""The board as text (``gryb-companion board``): each node's focus letter at its ``node.position``."""

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
