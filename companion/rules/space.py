"""The game space: a board, and its move kinds (000 "Traversal") as tables (docs/rules/game-space.md)."""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from companion.rules import node as nd
from companion.rules.node import COLOURS, HEAD, Bitboard, Node, NodeError


class MoveKind(StrEnum):
    DOWN = "down"
    UP = "up"
    SIDEWAYS = "sideways"
    HYPERSPACE = "hyperspace"
    LIMITED_HYPERSPACE = "limited-hyperspace"
    INTERJECTION = "interjection"
    LIMITED_INTERJECTION = "limited-interjection"
    EXCISION = "excision"
    LIMITED_EXCISION = "limited-excision"


def _neighbours(colour: str) -> tuple[str, str]:
    """The two colours one step round the cycle G-R-Y-B-G."""
    i = COLOURS.index(colour)
    return COLOURS[(i - 1) % 4], COLOURS[(i + 1) % 4]


def _vary(loci: str, i: int) -> list[str]:
    return [loci[:i] + c + loci[i + 1 :] for c in _neighbours(loci[i])]


def _interject(loci: str, i: int) -> list[str]:
    return [loci[:i] + c + loci[i:] for c in COLOURS]


# Each rule: (loci, depth) to target loci; GameSpace._build applies the board's limits.
def _down(loci: str, depth: int) -> list[str]:
    return [loci + c for c in COLOURS] if len(loci) < depth else []


def _up(loci: str, depth: int) -> list[str]:
    return [loci[:-1]] if loci else []


def _sideways(loci: str, depth: int) -> list[str]:
    return _vary(loci, len(loci) - 1) if loci else []


def _hyperspace(loci: str, depth: int) -> list[str]:
    # Any one locus above the focus moves to the side; on the top level hyperspace "becomes a sideways move".
    if len(loci) == 1:
        return _sideways(loci, depth)
    return [t for i in range(len(loci) - 1) for t in _vary(loci, i)]


def _limited_hyperspace(loci: str, depth: int) -> list[str]:
    if len(loci) == 1:
        return _sideways(loci, depth)
    return _vary(loci, len(loci) - 2) if len(loci) >= 2 else []


def _interjection(loci: str, depth: int) -> list[str]:
    if not loci or len(loci) >= depth:
        return []
    return [t for i in range(len(loci)) for t in _interject(loci, i)]


def _limited_interjection(loci: str, depth: int) -> list[str]:
    if not loci or len(loci) >= depth:
        return []
    return _interject(loci, len(loci) - 1)


def _excision(loci: str, depth: int) -> list[str]:
    return [loci[:i] + loci[i + 1 :] for i in range(len(loci) - 1)]


def _limited_excision(loci: str, depth: int) -> list[str]:
    return [loci[:-2] + loci[-1]] if len(loci) >= 2 else []


_RULES = {
    MoveKind.DOWN: _down,
    MoveKind.UP: _up,
    MoveKind.SIDEWAYS: _sideways,
    MoveKind.HYPERSPACE: _hyperspace,
    MoveKind.LIMITED_HYPERSPACE: _limited_hyperspace,
    MoveKind.INTERJECTION: _interjection,
    MoveKind.LIMITED_INTERJECTION: _limited_interjection,
    MoveKind.EXCISION: _excision,
    MoveKind.LIMITED_EXCISION: _limited_excision,
}


def bits(mask: Bitboard):
    """The nodes of a bitboard, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(nodes) -> Bitboard:
    m = 0
    for n in nodes:
        m |= 1 << n
    return m


class GameSpace:
    """One board: ``depth`` levels below the head node, maybe headless or periodic."""

    def __init__(self, depth: int = nd.STANDARD_DEPTH, headless: bool = False, periodic: bool = False):
        if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= nd.MAX_DEPTH:
            raise ValueError(f"depth must be a whole number from 1 to {nd.MAX_DEPTH}, not {depth!r}")
        self.depth = depth
        self.headless = bool(headless)
        self.periodic = bool(periodic)
        self.nodes: tuple[Node, ...] = tuple(nd.nodes(depth, headless))
        self.size = nd.count(depth)
        self.all: Bitboard = mask_of(self.nodes)
        self.level_masks: tuple[Bitboard, ...] = tuple(
            mask_of(n for n in self.nodes if nd.LEVEL[n] == lvl) for lvl in range(depth + 1)
        )
        self.focus_masks: dict[str, Bitboard] = {
            c: mask_of(n for n in self.nodes if nd.focus(n) == c) for c in COLOURS
        }
        self.bottom: Bitboard = self.level_masks[depth]
        self.quadrangles: tuple[Bitboard, ...] = tuple(  # round each node that has children
            0b1111 << (4 * n + 1) for n in range(nd.count(depth - 1))
        )
        self.top: Bitboard = self.level_masks[1]
        self._targets: dict[MoveKind, tuple[tuple[Node, ...], ...]] = {}
        self._masks: dict[MoveKind, tuple[Bitboard, ...]] = {}
        for kind in MoveKind:
            self._build(kind)
        self.contiguity: tuple[Bitboard, ...] = tuple(self._link_mask(n) for n in range(self.size))
        self.contiguity_hyper: tuple[Bitboard, ...] = tuple(
            self.contiguity[n] | self._masks[MoveKind.LIMITED_HYPERSPACE][n] for n in range(self.size)
        )

    def __repr__(self) -> str:
        flags = "".join(
            [", headless=True" if self.headless else "", ", periodic=True" if self.periodic else ""]
        )
        return f"GameSpace(depth={self.depth}{flags})"

    def _build(self, kind: MoveKind) -> None:
        rule = _RULES[kind]
        on_board = self.all
        targets: list[tuple[Node, ...]] = []
        masks: list[Bitboard] = []
        for n in range(self.size):
            if not on_board >> n & 1:
                targets.append(())
                masks.append(0)
                continue
            m = 0
            for loci in rule(nd.loci(n), self.depth):
                m |= 1 << nd.from_loci(loci)
            if self.periodic:
                m |= self._wrap(kind, n)
            m &= on_board
            masks.append(m)
            targets.append(tuple(bits(m)))
        self._targets[kind] = tuple(targets)
        self._masks[kind] = tuple(masks)

    def _wrap(self, kind: MoveKind, n: Node) -> Bitboard:
        """Periodic space: the bottom level stands for the head node (docs/rules/game-space.md)."""
        lvl = nd.LEVEL[n]
        if kind is MoveKind.UP and lvl == 1:
            return self.bottom
        if kind is MoveKind.DOWN and lvl == self.depth:
            return self.top
        return 0

    def _link_mask(self, n: Node) -> Bitboard:
        """Contiguity follows the rods printed on the board, never the periodic wraps."""
        if not self.all >> n & 1:
            return 0
        m = 0
        for kind in (MoveKind.UP, MoveKind.DOWN, MoveKind.SIDEWAYS):
            for loci in _RULES[kind](nd.loci(n), self.depth):
                m |= 1 << nd.from_loci(loci)
        return m & self.all

    def parse(self, text: str) -> Node:
        return nd.parse(text, self.depth, self.headless)

    def parse_many(self, texts) -> list[Node]:
        return [self.parse(t) for t in texts]

    @staticmethod
    def name(node: Node) -> str:
        return nd.NODE_NAMES[node]

    def names(self, mask: Bitboard) -> list[str]:
        return [nd.NODE_NAMES[n] for n in bits(mask)]

    def __contains__(self, node: object) -> bool:
        return isinstance(node, int) and 0 <= node < self.size and bool(self.all >> node & 1)

    def position(self, node: Node) -> tuple[int, int]:
        return nd.position(node, self.depth)

    def targets(self, kind: MoveKind | str, node: Node) -> tuple[Node, ...]:
        """The nodes one ``kind`` move reaches from ``node`` on an empty board."""
        return self._targets[MoveKind(kind)][node]

    def target_mask(self, kind: MoveKind | str, node: Node) -> Bitboard:
        # "down" and MoveKind.DOWN hash alike: no conversion on this hot path.
        try:
            return self._masks[kind][node]
        except KeyError:
            raise ValueError(
                f"unknown move kind {kind!r}; one of {', '.join(k.value for k in MoveKind)}"
            ) from None

    def moves_mask(self, kinds, node: Node) -> Bitboard:
        """The union of several move kinds' targets."""
        m = 0
        for kind in kinds:
            m |= self.target_mask(kind, node)
        return m

    def contiguous(self, a: Node, b: Node, hyperspace: bool = False) -> bool:
        table = self.contiguity_hyper if hyperspace else self.contiguity
        return bool(table[a] >> b & 1)

    def neighbours(self, node: Node, hyperspace: bool = False) -> Bitboard:
        return (self.contiguity_hyper if hyperspace else self.contiguity)[node]

    def group(self, start: Node, within: Bitboard, hyperspace: bool = False) -> Bitboard:
        """The contiguous group of ``within`` that contains ``start`` (a flood fill)."""
        table = self.contiguity_hyper if hyperspace else self.contiguity
        group = frontier = 1 << start
        while frontier:
            grown = 0
            for n in bits(frontier):
                grown |= table[n]
            frontier = grown & within & ~group
            group |= frontier
        return group

    def groups(self, within: Bitboard, hyperspace: bool = False) -> list[Bitboard]:
        """Split a set of nodes into contiguous groups, largest first."""
        found = []
        rest = within
        while rest:
            g = self.group((rest & -rest).bit_length() - 1, within, hyperspace)
            found.append(g)
            rest &= ~g
        found.sort(key=lambda g: (-g.bit_count(), g))
        return found

    def is_contiguous(self, nodes, hyperspace: bool = False) -> bool:
        """True for a line or shape: linked through the set itself."""
        within = mask_of(nodes)
        if not within:
            return False
        return self.group((within & -within).bit_length() - 1, within, hyperspace) == within


@cache
def space(depth: int = nd.STANDARD_DEPTH, headless: bool = False, periodic: bool = False) -> GameSpace:
    """The shared board for these parameters."""
    return GameSpace(depth, headless, periodic)


__all__ = ["GameSpace", "MoveKind", "NodeError", "space", "bits", "mask_of", "HEAD"]
