"""Actions: the small value objects a game record is made of, in the manuals' notation (docs/notation.md):
``R`` place, ``R-RG`` move, ``GR,GRY-R,RY`` a line or shape, ``xRG`` remove, ``pass``, ``end``, ``roll:Y``,
``roll:@GGBY``, ``roll`` (the die chosen). Parsing needs the board's depth; printing does not."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.rules import node as nd
from companion.rules.node import COLOURS, Node, NodeError

PLACE, MOVE, REMOVE, PASS, END, ROLL = "place", "move", "remove", "pass", "end", "roll"


class NotationError(ValueError):
    """Text that is not an action in the notation; the message says why."""


@dataclass(frozen=True, slots=True)
class Action:
    kind: str
    targets: tuple[Node, ...] = ()
    sources: tuple[Node, ...] = ()
    colour: str | None = None

    # One shared instance a placement and a (from, to): lists of moves build none after the first.
    @staticmethod
    @cache
    def place(node: Node) -> Action:
        return Action(PLACE, (node,))

    @staticmethod
    @cache
    def move(source: Node, target: Node) -> Action:
        return Action(MOVE, (target,), (source,))

    @staticmethod
    def block(sources: tuple[Node, ...], targets: tuple[Node, ...]) -> Action:
        return Action(MOVE, tuple(targets), tuple(sources))

    @staticmethod
    def remove(node: Node) -> Action:
        return Action(REMOVE, (node,))

    @staticmethod
    def roll_colour(colour: str) -> Action:
        return Action(ROLL, colour=colour)

    @staticmethod
    def roll_node(node: Node) -> Action:
        return Action(ROLL, (node,))

    @property
    def target(self) -> Node:
        return self.targets[0]

    @property
    def source(self) -> Node:
        return self.sources[0]

    @property
    def is_roll(self) -> bool:
        return self.kind == ROLL

    @property
    def face(self) -> str:
        """What a roll shows: a colour, a node (GRYB Dice II) or a number (Grim Reaper); "" for ``roll``."""
        return self.colour or (nd.NODE_NAMES[self.targets[0]] if self.targets else "")

    def __str__(self) -> str:
        names = nd.NODE_NAMES
        if self.kind == PLACE:
            return names[self.targets[0]]
        if self.kind == MOVE:
            return ",".join(names[n] for n in self.sources) + "-" + ",".join(names[n] for n in self.targets)
        if self.kind == REMOVE:
            return "x" + names[self.targets[0]]
        if self.kind == ROLL:
            if not self.colour and not self.targets:
                return ROLL
            return f"roll:{self.colour}" if self.colour else f"roll:@{names[self.targets[0]]}"
        return self.kind

    @staticmethod
    def parse(text: str, depth: int = nd.STANDARD_DEPTH, headless: bool = False) -> Action:
        """Read one action, or NotationError (a ValueError) with the reason."""
        raw = text.strip()
        if not raw:
            raise NotationError(
                "empty action: write a node to place, FROM-TO to move, xNODE to remove, or pass"
            )

        def node(name: str) -> Node:
            try:
                return nd.parse(name, depth, headless)
            except NodeError as err:
                raise NotationError(f"{raw!r}: {err}") from None

        if raw in (PASS, END, ROLL):
            return Action(raw)
        if raw.startswith("roll:"):
            face = raw[5:]
            if face.startswith("@"):
                return Action.roll_node(node(face[1:]))
            if len(face) == 1 and face in COLOURS:
                return Action.roll_colour(face)
            raise NotationError(f"{raw!r}: a colour die shows G, R, Y or B (a node die: roll:@NODE)")
        if raw.startswith("x"):
            if raw == "x":
                raise NotationError("'x': a removal names the node it empties: xNODE, e.g. xGG")
            return Action.remove(node(raw[1:]))
        if "-" in raw:
            left, _, right = raw.partition("-")
            sources = tuple(node(n) for n in left.split(","))
            targets = tuple(node(n) for n in right.split(","))
            if len(sources) != len(targets):
                n, m = len(sources), len(targets)
                raise NotationError(
                    f"{raw!r}: {n} {'stone moves' if n == 1 else 'stones move'} but {m} "
                    f"{'target is' if m == 1 else 'targets are'} given"
                )
            if len(set(sources)) != len(sources):
                raise NotationError(f"{raw!r}: a stone is named twice")
            if len(sources) > 1:  # a line or shape may be written in any order: its stones lowest first
                pairs = sorted(zip(sources, targets))
                sources, targets = tuple(s for s, _ in pairs), tuple(t for _, t in pairs)
            return Action(MOVE, targets, sources)
        return Action.place(node(raw))


CHOOSE_ROLL = Action(ROLL)  # "roll": the die chosen over the moves a game offers before its roll


def nth_move(r: int, singles, blocks) -> Action:
    """The ``r``-th move of ``singles`` (``(source, reach)``: to each node of ``reach``), then ``blocks``."""
    for source, reach in singles:
        k = reach.bit_count()
        if r < k:
            while r:
                reach &= reach - 1
                r -= 1
            return Action.move(source, (reach & -reach).bit_length() - 1)
        r -= k
    return blocks[r]
