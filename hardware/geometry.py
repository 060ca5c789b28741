"""The board as hardware/ needs it: plain data from the caller (companion.service.geometry), not computed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

Point = tuple[int, int]
Quadrangle = tuple[str, str, str, str]


def _no_node(name: str) -> str:
    return f"{name!r} is not a node of this board"


@dataclass(frozen=True, eq=False)
class Board:
    """Each node's point (x right, y down; breadth-first), level and printed letter (``focus``, not the
    head's); quadrangles in order round the square; ``why_not(name)`` in the game's words."""

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
        """The grid runs -reach..reach on both axes."""
        return max(max(abs(x), abs(y)) for x, y in self.points.values())
