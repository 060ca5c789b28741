"""GRYBs (docs/rules/game-space.md, "GRYBs"); :class:`GrybIndex` finds them on one board."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

from companion.rules import node as nd
from companion.rules.node import COLOURS, Bitboard, Node
from companion.rules.space import GameSpace, bits

_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}


def level_points(level: int, depth: int, big_endian: bool = False) -> int:
    """Points for one GRYB level: 1, 2, 4, 8 from the starting end (the top, unless big-endian)."""
    return 1 << (depth - level if big_endian else level - 1)


def points(levels, depth: int, big_endian: bool = False) -> int:
    return sum(level_points(lvl, depth, big_endian) for lvl in levels)


@dataclass(frozen=True, slots=True)
class Gryb:
    """A valid GRYB: its nodes in one cyclic order, and the levels whose loci step round the cycle."""

    nodes: tuple[Node, Node, Node, Node]
    levels: tuple[int, ...]
    mask: Bitboard

    @property
    def level(self) -> int:
        """The level of the nodes themselves."""
        return nd.LEVEL[self.nodes[0]]

    @property
    def quadrangle(self) -> bool:
        return self.levels == (self.level,)

    @property
    def integrated(self) -> bool:
        return not self.quadrangle

    def points(self, depth: int = nd.STANDARD_DEPTH, big_endian: bool = False) -> int:
        return points(self.levels, depth, big_endian)

    def names(self) -> list[str]:
        return [nd.NODE_NAMES[n] for n in self.nodes]

    def __str__(self) -> str:
        return "[" + ", ".join(self.names()) + "]"


def _column_step(column: tuple[int, int, int, int]) -> int | None:
    """0 for a constant column, 1 for a GRYB equivalent (either way round), None for anything else."""
    step = (column[1] - column[0]) % 4
    if step == 2:
        return None
    for a, b in zip(column[1:], column[2:] + column[:1]):
        if (b - a) % 4 != step:
            return None
    return 0 if step == 0 else 1


def _levels_in_order(ordered: tuple[Node, ...]) -> tuple[int, ...] | None:
    rows = [[_COLOUR_INDEX[c] for c in nd.loci(n)] for n in ordered]
    levels = []
    for i, column in enumerate(zip(*rows), start=1):
        step = _column_step(column)
        if step is None:
            return None
        if step:
            levels.append(i)
    return tuple(levels) or None


def check(nodes) -> Gryb | None:
    """The GRYB these four nodes form, in any order, or None."""
    a, b, c, d = nodes
    if len({a, b, c, d}) != 4:
        return None
    lvl = nd.LEVEL[a]
    if lvl == 0 or any(nd.LEVEL[n] != lvl for n in (b, c, d)):
        return None
    for ordered in ((a, b, c, d), (a, b, d, c), (a, c, b, d)):
        levels = _levels_in_order(ordered)
        if levels:
            return _canonical(ordered, levels)
    return None


def _canonical(ordered: tuple[Node, ...], levels: tuple[int, ...]) -> Gryb:
    """Lowest node first, then its lower neighbour: equal GRYBs compare equal."""
    i = ordered.index(min(ordered))
    rotated = ordered[i:] + ordered[:i]
    if rotated[3] < rotated[1]:
        rotated = (rotated[0], rotated[3], rotated[2], rotated[1])
    return Gryb(rotated, levels, 1 << rotated[0] | 1 << rotated[1] | 1 << rotated[2] | 1 << rotated[3])


def count(depth: int) -> int:
    """How many GRYBs a board of this depth holds, quadrangles included (docs/rules/game-space.md)."""
    return sum((12**k - 4**k) // 8 for k in range(1, depth + 1))


class GrybIndex:
    """The GRYBs through each node of a board, built on first use."""

    def __init__(self, space: GameSpace):
        self.space = space
        self._through: list[tuple[tuple[Bitboard, Gryb], ...] | None] = [None] * space.size
        self._lowest: list[tuple[Gryb, ...] | None] = [None] * space.size
        self._quadrangle: list[tuple[tuple[Bitboard, Gryb], ...]] = [()] * space.size  # built with _through

    def through(self, node: Node) -> tuple[tuple[Bitboard, Gryb], ...]:
        """Every GRYB containing ``node``, each with the bitboard of its other three nodes."""
        entries = self._through[node]
        if entries is None:
            entries = self._build(node)
        return entries

    def _build(self, node: Node) -> tuple[tuple[Bitboard, Gryb], ...]:
        loci = [_COLOUR_INDEX[c] for c in nd.loci(node)]
        k = len(loci)
        first = nd.first_of_level(k)
        weights = [4 ** (k - 1 - i) for i in range(k)]
        entries = []
        # ``node`` first in the cycle, each column constant (0) or stepping; the first stepping column
        # steps forwards (flipping them all walks the same cycle the other way).
        for steps in product((0, 1, -1), repeat=k):
            stepping = [s for s in steps if s]
            if not stepping or stepping[0] != 1:
                continue
            ordered = tuple(
                first + sum(((c + j * s) % 4) * w for c, s, w in zip(loci, steps, weights)) for j in range(4)
            )
            levels = tuple(i + 1 for i, s in enumerate(steps) if s)
            gryb = _canonical(ordered, levels)
            entries.append((gryb.mask & ~(1 << node), gryb))
        result = tuple(entries)
        self._through[node] = result
        self._lowest[node] = tuple(g for _, g in result if g.nodes[0] == node)
        self._quadrangle[node] = tuple(e for e in result if e[1].quadrangle)
        return result

    def completed_by(self, node: Node, stones: Bitboard, quadrangle_only: bool = False) -> list[Gryb]:
        """The GRYBs a stone on ``node`` completes together with ``stones`` (which may include it)."""
        entries = self.through(node)
        if quadrangle_only:  # the node's own quadrangle alone
            entries = self._quadrangle[node]
        return [g for others, g in entries if stones & others == others]

    def find_all(self, stones: Bitboard, quadrangle_only: bool = False) -> list[Gryb]:
        """Every GRYB made of ``stones`` (each once)."""
        found = []
        lowest = self._lowest
        for n in bits(stones & self.space.all):
            if lowest[n] is None:
                self._build(n)
            for g in lowest[n]:
                if stones & g.mask == g.mask and (not quadrangle_only or g.quadrangle):
                    found.append(g)
        return found

    def quadrangle(self, parent: Node) -> Gryb:
        """The quadrangle GRYB round ``parent``'s four children."""
        kids = nd.children(parent)
        return Gryb(kids, (nd.LEVEL[kids[0]],), 0b1111 << kids[0])


@cache
def index(space: GameSpace) -> GrybIndex:
    """The shared index of a (shared) board."""
    return GrybIndex(space)
