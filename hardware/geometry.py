"""The board as hardware/ needs it: plain data handed in by the caller, never computed here.

The game computes the geometry in one place (``companion.rules.node.position``) and
``companion.service.board.board_geometry()`` packs it into a :class:`Board` for the LED and button layouts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

Point = tuple[int, int]
Quadrangle = tuple[str, str, str, str]


def _no_node(name: str) -> str:
    return f"{name!r} is not a node of this board"


@dataclass(frozen=True, eq=False)
class Board:
    """Every node by name: its point on the grid (x to the right, y down), its level, its printed colour.

    ``points`` runs in breadth-first order, the head first. ``focus`` is the colour letter printed at each
    node but the head; each quadrangle lists its four nodes around the square, in G R Y B order.
    ``why_not(name)`` words why a name is no node here, in the game's terms, for error messages.
    """

    depth: int
    head: str
    points: Mapping[str, Point]
    levels: Mapping[str, int]
    focus: Mapping[str, str]
    quadrangles: tuple[Quadrangle, ...]
    why_not: Callable[[str], str] = field(default=_no_node, repr=False)

    def __contains__(self, name: object) -> bool:
        return name in self.points

    def __iter__(self) -> Iterator[str]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    @property
    def reach(self) -> int:
        """The largest coordinate, either way: the grid runs -reach..reach on both axes."""
        return max(max(abs(x), abs(y)) for x, y in self.points.values())
